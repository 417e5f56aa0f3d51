"""The errors every part of tapsolve raises for a person to read: one line, an exit code."""


class TapsolveError(Exception):
    """A problem the person can act on; the message names it and what to do. Exit code 1."""

    exit_code = 1


class InputError(TapsolveError, ValueError):
    """Malformed input (a board string, cards, an option): exit code 2, like a usage error."""

    exit_code = 2


class NotABoardNow(TapsolveError):
    """The screen captured shows no board to read now: nothing recognisable on it (vision's
    ReadError) or nothing on it at all (a black screen: off, locked, a secure window). Every path
    that captures a screen treats both alike: it is looked at again, never taken as the board."""


class BoardChanged(TapsolveError):
    """What the phone shows differs from the board the assistant knows (rows a scroll brought
    on screen, a phone that came back): read the board again."""
