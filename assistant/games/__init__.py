"""The Game protocol: what the loop, autoplay, the guide and the overlay ask of every game.

A game is one module here (``assistant.games.<name>``, a folder if it needs several; found through
``solver.games``) with one class on this protocol: no generic module asks a game its name, nor
reaches into its helpers (a game scrolls and learns through this protocol).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from solver import games as registry
from solver.errors import BoardChanged  # noqa: F401 (a game raises it: its protocol's word)
from solver.words import count


@dataclass
class Plan:
    """A solver's line from a position: the moves, and what it promises."""

    moves: list
    status: str
    adds_used: int = 0
    score: int = 0
    optimal: bool = False


@dataclass
class InPlace:
    """A move that first changes only some parts of the screen, where they are (a pair fading):
    its first frame that shows them changing judges it (``assistant.link.Link.early``). Parts
    ``shifted`` move once they have changed (rows collapsing under a row the pair emptied), so a
    touch there waits for the move's animation; a touch elsewhere need not."""

    parts: list  # (x0, y0, x1, y1) of each part that changes
    aside: list  # parts of the screen that may change too, unjudged (a header's score)
    reading: object  # the screen read once the move is made, as predicted
    # parts a next touch waits out too, beyond ``parts``, until the animation ends: where a
    # touch would move what is still moving (a tile next to the cell a tile is leaving, the
    # button of a card on its way)
    reach: list = field(default_factory=list)
    # what each part shows early in the animation: "fading" (its marks fading on a still ground,
    # a pair crossed out: ``assistant.animation.part_change``) or "moving" (any change: a tile
    # or a card on its way, ``part_moved``)
    shows: str = "fading"
    shifted: list = field(default_factory=list)  # parts that move after the parts changed


@dataclass(frozen=True)
class Judgement:
    """What the loop saw of one move, built in one place (``Loop.judged``): the position
    ``before`` it, the ``move``, the position ``expected`` and the one ``seen``, and ``how`` it
    was seen: "early" (one frame early in its animation: ``seen`` is ``expected``), "glance"
    (one frame taken as the prediction, not proved settled), "settled" (a settled screen), or
    "stage" (the next stage's first board: ``before`` and ``move`` None, ``expected`` the won one)."""

    before: object | None
    move: object | None
    expected: object
    seen: object
    how: str

    @property
    def settled(self) -> bool:
        """Seen on a settled screen (or the next stage's): a glance or an early frame is not."""
        return self.how in ("settled", "stage")


@dataclass(frozen=True)
class Learned:
    """What a game learned from a judgement, as values: a line to say (the loop plans again
    with it), the points table to keep in the phone's profile (None: nothing to keep), and the
    touch its app makes a move by ("tap", or "swipe" on an app that takes no tap; None: nothing
    to keep)."""

    note: str | None = None
    points: dict | None = None
    touch: str | None = None


class Game:
    """One game as the assistant plays it. A position is the game's own board (from a reading);
    a move is the game's own move. Subclasses give the methods that raise NotImplementedError."""

    name = ""
    # play goes on to the next stage through the phone's Continue button (Number Match)
    more_stages = False
    # the game's Android app packages: the focused window of one of them is the game in front
    # (assistant.phone.front), unless its activity is an ad SDK's
    APP_PACKAGES: tuple[str, ...] = ()

    def __init__(self, objective: str = "fast", budget: float = 1.0):
        self.objective, self.budget = objective, budget

    # -- reading and planning ----------------------------------------------------------------

    def attach(self, session, alone: bool = False) -> None:
        """The phone's reading session (``assistant.session``: its reads, and its link's touches),
        for a game that scrolls its board; ``alone``: nobody else scrolls it."""

    def look(self, image, reading, expected=None, before=None, glance=False):
        """The whole board's (image, reading) from a sure reading of its screen, ``expected`` then
        ``before`` the positions thought possible (a ``glance``: None unless it shows ``expected``)."""
        return image, reading

    def forget_place(self) -> None:
        """Forget where the board stands on screen: the next look reads it whole again."""

    @staticmethod
    def warm() -> None:
        """Load what the first plan needs (a compiled solver), in a thread while the first screen is captured."""

    @classmethod
    def prepare(cls) -> None:
        """Compile the solver and build its tables now, as a first plan would (`tapsolve warm`)."""
        cls.warm()

    @classmethod
    def add_bench_command(cls, commands) -> None:
        """Register the game's own `tapsolve bench <name>` on ``commands``; default: it has none."""

    @classmethod
    def add_bench_play_options(cls, parser) -> None:
        """Add the game's own options (its app's board, its look) to `tapsolve bench play`; default: none."""

    def position(self, reading):
        """The game's position from a reading of its board."""
        raise NotImplementedError

    def plan(self, position) -> Plan:
        raise NotImplementedError

    def after(self, position, move):
        """The position the rules predict once ``move`` is made (``position`` is left alone)."""
        expected = position.copy()
        expected.push(move)
        return expected

    def same(self, seen, expected) -> bool:
        """The position on screen is the one expected (a question: nothing changes)."""
        raise NotImplementedError

    def shows(self, seen, expected) -> bool:
        """Whether a glance (one frame, not proved settled) shows just the expected position. It
        only decides whether to wait for a settled screen; nothing changes."""
        return self.same(seen, expected)

    def recall(self, points: dict, touch: str | None = None) -> Learned | None:
        """Start from what the phone's profile kept from earlier games on it (the points table,
        the touch a move is made by when it is not a tap); what this game learned so far, to keep
        in that profile (one rebuilt lost it), or None."""
        return None

    def learn(self, judgement: Judgement) -> Learned | None:
        """The game's one learning step, once a judgement: what it learned, as a value (the
        session keeps it in the profile; a note is said and the loop plans again), or None."""
        return None

    def ends(self, position) -> bool:
        """The move that made ``position`` ends the board (the phone moves to its won screen)."""
        return False

    def finished(self, position, reading) -> bool:
        """The board on screen is won."""
        return reading.screen == "stage_complete"

    def score(self, position) -> int | None:
        """The phone's own count of points, when the game has one."""
        return None

    def numbers(self, position) -> dict[str, int]:
        """The numbers the screen shows around ``position``'s board, by the reading's names
        (``vision.read``'s ``expect``; default: none)."""
        return {}

    # -- tapping -----------------------------------------------------------------------------

    def tap_points(self, move, reading) -> list[tuple[int, int]]:
        """Screen points to tap for ``move`` on the screen read now (a question: nothing is sent)."""
        raise NotImplementedError

    def swipes(self, move, reading) -> list[tuple[int, int, int, int, int]]:
        """Swipes (x1, y1, x2, y2, ms) that make ``move`` instead of its taps, on an app that
        wants them (default: none, the move is tapped; a question: nothing is sent)."""
        return []

    def planned_tap_points(self, move, position, reading) -> list[tuple[tuple[int, int], str]]:
        """For a dry run: the taps of a move planned ahead (``position`` the board before it),
        placed from the screen read at the start, each with a note ("" when none)."""
        raise NotImplementedError

    def animation(self, position, move) -> str:
        """What the game animates after ``move``, by kind (the link learns how long each lasts);
        a kind "A, B" begins as kind A does (``AnimationClock.timed``)."""
        return "move"

    def meanwhile(self, loop, move, following) -> str | None:
        """Right after ``move``'s taps, before it is judged: a game may try whether the phone
        accepts ``following`` (the plan's next move) while ``move``'s effect still shows, where
        the rules as known foresee none, to learn what the phone's game does (Number Match: the
        row window). Then ``move``'s outcome ("done", "same", "other") with the ``loop`` moved on
        by what it judged; None (default): nothing tried, ``move`` is judged as always."""
        return None

    def in_place(self, position, move, reading) -> InPlace | None:
        """What ``move`` changes on screen when it changes only some parts in place, else None."""
        return None

    def order_for_screen(self, position, moves: list, reading, ready=None) -> list:
        """The rest of the plan reordered where the rules allow: the next move on screen (a tall
        board scrolls less), and one whose taps go at once (``ready(move)``: none of its points
        still moving after the last move) before one that would wait for an animation to end."""
        return moves

    def show(self, move, reading, select: bool = False):
        """Bring ``move``'s cells on screen (by scrolling): the new (image, reading), or None when
        nothing moved. ``select``: autoplay taps it next, the game may select part of it on the way."""
        return None

    # -- words -------------------------------------------------------------------------------

    def describe(self, position, move) -> str:
        raise NotImplementedError

    def progress(self, position) -> str:
        """How the game stands, for the guide's header and each exported step."""
        raise NotImplementedError

    def status(self, position) -> str:
        """How the game stands, for the status line after each move in play."""
        return self.progress(position)

    def where(self, cell: int, reading) -> str:
        """Where cell index ``cell`` of a reading is, in words ("row 2 column 3")."""
        raise NotImplementedError

    # a one-board game's words: its moves ("swaps") and its board won ("sorted")
    moves_word = "moves"
    won_word = "won"

    def won(self, stages_done: int, stages: int) -> str:
        """The line said when autoplay sees the board won."""
        return self.won_word

    def won_header(self) -> str:
        """The guide's first line over a won board."""
        return self.won_word.capitalize() + "!"

    def results(self, tally) -> str:
        """What a run did (an ``assistant.loop.Tally``), in the game's words."""
        return f"{count(tally.moves, self.moves_word)}{', ' + self.won_word if tally.stages else ''}"

    def summary(self) -> str:
        """What the run learned of the game, for the closing line ("" when nothing)."""
        return ""

    # -- drawing -----------------------------------------------------------------------------

    def draw_next(self, image: np.ndarray, reading, move) -> np.ndarray:
        """The screenshot with ``move`` drawn over it."""
        raise NotImplementedError

    def diagram(self, position, move) -> np.ndarray:
        """A clean drawing of ``position`` with ``move`` (None: no move) marked, for exports."""
        raise NotImplementedError


def kind(name: str) -> type[Game]:
    """The assistant class of game ``name`` (its module's ``GAME``)."""
    return registry.module("assistant.games", name).GAME


_warming: dict[str, threading.Thread] = {}


def warming(name: str) -> threading.Thread:
    """Game ``name``'s ``warm`` in a thread of its own, started by the first call: a command
    that names its game starts it before it connects to the phone (a second or so, mostly spent
    waiting), so the first plan no longer waits for the solver after the first screen is read,
    nor the first read for its reader's modules to load."""
    thread = _warming.get(name)
    if thread is None:
        def warm() -> None:
            kind(name).warm()
            registry.module("vision", name)

        thread = _warming[name] = threading.Thread(target=warm, daemon=True)
        thread.start()
    return thread
