"""The errors every part of tapsolve raises for a person to read: one line, an exit code."""


class TapsolveError(Exception):
    """A problem the person can act on; the message names it and what to do. Exit code 1."""

    exit_code = 1


class InputError(TapsolveError, ValueError):
    """Malformed input (a board string, cards, an option): exit code 2, like a usage error."""

    exit_code = 2


class BoardChanged(TapsolveError):
    """What the phone shows differs from the board the assistant knows (rows a scroll brought
    on screen, a phone that came back): read the board again."""
