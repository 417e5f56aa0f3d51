"""Number Match rules: the board, its pairs, the "+" add, points and removed rows.

This module is the specification in code: the compiled search, the virtual phone and the
reader all follow it. A board is a flat list of cells in reading order, ``columns`` to a row;
``0`` is a crossed-out cell, ``1``-``9`` a live number.

>>> board = Board.parse("467956239 385113145 967616278")
>>> Pair(0, 1) in board.legal_moves()      # 4 and 6 sum to ten and touch
True
>>> board.push(Pair(0, 1)); board.format(), board.score
('..7956239 385113145 967616278', 1)
>>> board.pop(); board.format()
Pair(i=0, j=1)
'467956239 385113145 967616278'

With ``Rules(row_window=True)`` a row a pair empties stays until the player lets it go
(``Wait``), and pairs chosen before then are played with it still there:

>>> board = Board.parse("123456789 19", rules=Rules(row_window=True))
>>> board.push(Pair(9, 10)); board.format(), Wait() in board.legal_moves()
('123456789 ..', True)
>>> board.push(Wait()); board.format()
'123456789'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Union

from solver.errors import InputError
from solver.files import is_digits, parse_json
from solver.rules import Position


class BoardError(InputError):
    """A board, board text or move that does not follow the contract; the message says why."""


# The scoring table, in one place so it can be corrected when the real game disagrees (the
# assistant learns the phone's own table in play: ``Rules.points`` is the one a board scores by).
POINTS = {
    "touching": 1,  # neighbours along a row, column or diagonal
    "row_break": 2,  # the last number of a row with the first of the next row
    "gap": 4,  # a pair that sees across crossed-out cells
    "row": 10,  # each row removed
    "clear": 150,  # the board cleared
}
POINT_KINDS = tuple(POINTS)  # the order of ``Rules.points`` (and of the compiled search's table)

# More presses of "+" than any version of the game gives (4 or 5) by far; it also keeps every
# count the compiled search makes inside its 64-bit integers.
MAX_ADDS = 99


def check_adds(adds) -> int:
    """The adds left, when a whole number from 0 to MAX_ADDS; BoardError otherwise."""
    if not isinstance(adds, int) or isinstance(adds, bool) or not 0 <= adds <= MAX_ADDS:
        raise BoardError(f"adds left must be a whole number from 0 to {MAX_ADDS}, not {adds!r}")
    return adds


def _optional_count(data: dict, key: str, low: int, default: int) -> int:
    """A board JSON's optional whole-number field (null or absent: the default)."""
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < 2 ** 31:
        raise BoardError(f"the board JSON's {key} must be a whole number {low} or more, not {value!r}")
    return value


# The four directions a pair can be seen along, forward in reading order: right, down,
# down-left, down-right (reading order itself, across row breaks, is a fifth way).
LINES = ((0, 1), (1, 0), (1, -1), (1, 1))


@dataclass(frozen=True)
class Rules:
    """Rule options: the board width, the adds a stage starts with, where an add appends, and
    the points of each kind (``POINT_KINDS`` order)."""

    columns: int = 9
    adds: int = 5
    # "cell": an add appends after the last cell, crossed-out ones included (the real game);
    # "live": after the last live number (a variant, so a game that plays otherwise is testable).
    add_after: str = "cell"
    points: tuple[int, ...] = tuple(POINTS.values())
    # True: the row-removal window (the seed's blog: "you can still choose pairs, which resets
    # the animation timer"): a row a pair empties stays on the board, crossed out, while pairs
    # keep coming; a pair chosen then is played on the board as it stands, the empty rows still
    # there. The rows go together when the player lets the window end (``Wait``: "+" is pressed
    # only after it) or crosses out the last number. False: a row goes with its pair.
    row_window: bool = False

    @property
    def point_table(self) -> dict[str, int]:
        """The points as ``POINTS`` spells them: kind to points."""
        return dict(zip(POINT_KINDS, self.points))

    def scoring(self, table: dict[str, int]) -> "Rules":
        """These rules with the points of ``table`` (kinds it does not name keep theirs)."""
        return replace(self, points=points_from(table, self.point_table))

    def __post_init__(self):
        if self.columns < 2:
            raise BoardError("a board needs at least 2 columns")
        if self.adds < 0:
            raise BoardError(f"adds must be 0 or more, not {self.adds}")
        if self.add_after not in ("cell", "live"):
            raise BoardError(f"add_after must be 'cell' or 'live', not {self.add_after!r}")
        if (len(self.points) != len(POINT_KINDS)
                or any(not isinstance(p, int) or isinstance(p, bool) or p < 0 for p in self.points)):
            raise BoardError(f"points are {len(POINT_KINDS)} whole numbers 0 or more "
                             f"({', '.join(POINT_KINDS)}), not {self.points!r}")


def parse_points(text: str) -> dict[str, int]:
    """A points table from ``kind=points`` items separated by commas: ``gap=3,row=20``."""
    table = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, eq, value = item.partition("=")
        if not eq or not is_digits(value.strip()):
            raise BoardError(f"points are kind=number items ({', '.join(POINT_KINDS)}), like gap=3,row=20;"
                             f" not {item!r}")
        table[kind.strip()] = int(value)
    points_from(table)
    return table


def points_from(table, base: dict[str, int] | None = None) -> tuple[int, ...]:
    """A points tuple (``POINT_KINDS`` order) from a table naming some kinds; the others keep
    ``base``'s (default ``POINTS``). Raises BoardError naming an unknown kind or a bad value."""
    if not isinstance(table, dict):
        raise BoardError(f"a points table is an object of kinds ({', '.join(POINT_KINDS)}) to points")
    unknown = sorted(set(table) - set(POINT_KINDS))
    if unknown:
        raise BoardError(f"no kind of points {unknown[0]!r}: the kinds are {', '.join(POINT_KINDS)}")
    for kind, value in table.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise BoardError(f"points for {kind} must be a whole number 0 or more, not {value!r}")
    base = POINTS if base is None else base
    return tuple(table.get(kind, base[kind]) for kind in POINT_KINDS)


@dataclass(frozen=True, order=True)
class Pair:
    """Cross out cells ``i`` and ``j`` (indices into the board as it stands, ``i < j``)."""

    i: int
    j: int

    def to_json(self) -> dict:
        return {"type": "pair", "cells": [self.i, self.j]}


@dataclass(frozen=True)
class Add:
    """Press "+": append a copy of every live number after the board."""

    def to_json(self) -> dict:
        return {"type": "add"}


@dataclass(frozen=True)
class Wait:
    """Choose nothing until the rows emptied in the row-removal window go (``Rules.row_window``)."""

    def to_json(self) -> dict:
        return {"type": "wait"}


Move = Union[Pair, Add, Wait]


def parse_cells(text: str) -> list[int]:
    """Cells of the contract's board text: ``1``-``9`` live, ``.`` crossed out; spaces, ``/``
    and newlines are ignored."""
    cells = []
    for ch in text:
        if ch in " /\n\r\t":
            continue
        if "1" <= ch <= "9":
            cells.append(int(ch))
        elif ch == ".":
            cells.append(0)
        elif ch == "0":
            raise BoardError(f"cell {len(cells) + 1} is '0': numbers are 1-9, '.' is a crossed-out cell")
        else:
            raise BoardError(f"cell {len(cells) + 1} is {ch!r}: use 1-9 for numbers and '.' for crossed-out cells")
    if not cells:
        raise BoardError("the board is empty: give its cells as digits 1-9 and '.', nine to a row")
    return cells


def matches(a: int, b: int) -> bool:
    """Two live numbers pair when they are equal or sum to ten."""
    return a > 0 and b > 0 and (a == b or a + b == 10)


@dataclass
class Board(Position):
    """A Number Match position: its cells, the adds left, the score and the stage."""

    Error = BoardError

    cells: list[int]
    # None only on a board read off a screen where the value was not read for sure (the
    # reading names it unsure); such a board is shown, never played
    adds_left: int | None = 5
    score: int | None = 0
    stage: int | None = 1
    rules: Rules = field(default_factory=Rules)
    _undo: list = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.adds_left is not None and self.adds_left < 0:
            raise BoardError(f"adds left must be 0 or more, not {self.adds_left}")
        if any(not (isinstance(c, int) and 0 <= c <= 9) for c in self.cells):
            raise BoardError("cells must be 0 (crossed out) or 1-9")

    # -- parse and format ------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, adds_left: int | None = None, rules: Rules | None = None, **kw) -> "Board":
        """The board of the contract's board text."""
        rules = rules or Rules()
        return cls(parse_cells(text), rules.adds if adds_left is None else check_adds(adds_left), rules=rules, **kw)

    def format(self) -> str:
        """The contract's board text, rows separated by spaces; ``Board.parse(b.format())`` gives the
        same cells back."""
        text, cols = "".join(str(c) if c else "." for c in self.cells), self.rules.columns
        return " ".join(text[k:k + cols] for k in range(0, len(text), cols))

    __str__ = format

    @classmethod
    def from_json(cls, data: dict | str, rules: Rules | None = None) -> "Board":
        """The board of the contract's board JSON (a dict or its text)."""
        if isinstance(data, str):
            try:
                data = parse_json(data, "the board JSON")
            except InputError as exc:
                raise BoardError(str(exc)) from None
        if not isinstance(data, dict) or data.get("game", "numbermatch") != "numbermatch":
            raise BoardError('a Number Match board JSON is {"game": "numbermatch", "cells": [...], ...}')
        cells = data.get("cells")
        if not isinstance(cells, list) or not cells:
            raise BoardError("the board JSON has no cells")
        if any(not isinstance(c, int) or isinstance(c, bool) or not 0 <= c <= 9 for c in cells):
            raise BoardError("board JSON cells must be 0 (crossed out) or 1-9")
        rules = rules or Rules()
        adds = check_adds(data.get("adds_left", rules.adds))
        return cls(list(cells), adds, score=_optional_count(data, "score", 0, 0),
                   stage=_optional_count(data, "stage", 1, 1), rules=rules)

    def to_json(self) -> dict:
        return {"game": "numbermatch", "cells": list(self.cells), "adds_left": self.adds_left,
                "stage": self.stage, "score": self.score}

    def _fresh(self) -> "Board":
        return Board(list(self.cells), self.adds_left, self.score, self.stage, self.rules)

    # -- geometry --------------------------------------------------------------------------

    @property
    def rows(self) -> int:
        return -(-len(self.cells) // self.rules.columns)

    def live_count(self) -> int:
        return sum(1 for c in self.cells if c)

    def is_won(self) -> bool:
        """No cell is left: the board is cleared, the stage won."""
        return not self.cells

    # -- seeing and pairing ----------------------------------------------------------------

    def seen_from(self, i: int) -> set[int]:
        """The live cells after ``i`` that it sees over crossed-out cells: the next in reading
        order (across row breaks), and the first along each of ``LINES`` short of an edge."""
        cols, cells = self.rules.columns, self.cells
        seen = set()
        for k in range(i + 1, len(cells)):
            if cells[k]:
                seen.add(k)
                break
        for dr, dc in LINES:
            r, c = divmod(i, cols)
            while 0 <= c + dc < cols and (r + dr) * cols + c + dc < len(cells):
                r, c = r + dr, c + dc
                if cells[r * cols + c]:
                    seen.add(r * cols + c)
                    break
        return seen

    def is_pair(self, i: int, j: int) -> bool:
        """Whether crossing out i and j is a legal move now."""
        n = len(self.cells)
        return 0 <= i < j < n and matches(self.cells[i], self.cells[j]) and j in self.seen_from(i)

    def pairs(self) -> Iterator[Pair]:
        """Every legal pair, each once, in order of its first cell."""
        for i, value in enumerate(self.cells):
            if value:
                yield from (Pair(i, j) for j in sorted(self.seen_from(i)) if matches(value, self.cells[j]))

    def can_add(self) -> bool:
        """A press is left, a number to copy, and (in the row window) no emptied row waiting to go."""
        return self.adds_left > 0 and self.live_count() > 0 and not self.rows_waiting()

    def rows_waiting(self) -> list[int]:
        """The rows wholly crossed out, top first, when emptied rows stay (``Rules.row_window``):
        they go at the next ``Wait``. Without the window none wait (an emptied row goes at once)."""
        if not self.rules.row_window:
            return []
        cols = self.rules.columns
        return [r for r in range(self.rows) if not any(self.cells[r * cols:(r + 1) * cols])]

    def legal_moves(self) -> list[Move]:
        """All legal pairs, then the add if a press is left, then the wait if rows wait to go."""
        moves: list[Move] = list(self.pairs())
        if self.can_add():
            moves.append(Add())
        if self.rows_waiting():
            moves.append(Wait())
        return moves

    def is_legal(self, move: Move) -> bool:
        if isinstance(move, Add):
            return self.can_add()
        if isinstance(move, Wait):
            return bool(self.rows_waiting())
        return self.is_pair(move.i, move.j)

    def pair_kind(self, i: int, j: int) -> str:
        """Which line of the scoring table a legal pair earns: touching, row_break or gap."""
        cols = self.rules.columns
        (ri, ci), (rj, cj) = divmod(i, cols), divmod(j, cols)
        if max(abs(rj - ri), abs(cj - ci)) == 1:
            return "touching"
        if j == i + 1:
            return "row_break"
        return "gap"

    # -- playing ---------------------------------------------------------------------------

    def emptied_rows(self, *indices: int) -> list[int]:
        """The rows among those holding ``indices`` whose every cell is crossed out, bottom first."""
        cols = self.rules.columns
        rows = sorted({k // cols for k in indices}, reverse=True)
        return [r for r in rows if not any(self.cells[r * cols:(r + 1) * cols])]

    def scored(self, pair: Pair) -> dict[str, int]:
        """What a legal pair scores, as how many of each kind of points: its own kind, each row
        it empties, and the board cleared when those rows are the last (``push`` adds them up
        by the rules' table; the assistant compares them with the score the phone shows)."""
        cols, ends = self.rules.columns, (pair.i, pair.j)
        emptied = sum(all(not c or k in ends for k, c in enumerate(self.cells[r * cols:(r + 1) * cols], r * cols))
                      for r in {k // cols for k in ends})
        counts = {self.pair_kind(pair.i, pair.j): 1}
        if emptied:
            counts["row"] = emptied
        # in the row window the rows emptied earlier are still there: the pair clears the board
        # when it crosses out the last numbers
        if emptied == self.rows or (self.rules.row_window and self.live_count() == 2):
            counts["clear"] = 1
        return counts

    def points(self, move: Move) -> int:
        """The points a legal move earns: the pair, each row it removes, and the clear."""
        if not isinstance(move, Pair):
            return 0
        after = self.copy()
        after.push(move)
        return after.score - self.score

    def _illegal(self, move: Move) -> str:
        return f"illegal move {move} on {self.format()}"

    def _snapshot(self):
        return tuple(self.cells), self.adds_left, self.score

    def _restore(self, snapshot) -> None:
        cells, self.adds_left, self.score = snapshot
        self.cells = list(cells)

    def _play(self, move: Move) -> None:
        """Cross out a pair (removing the rows it empties, scoring it) or press "+"."""
        if isinstance(move, Add):
            live = [c for c in self.cells if c]
            if self.rules.add_after == "live":
                del self.cells[max(k for k, c in enumerate(self.cells) if c) + 1:]
            self.cells.extend(live)
            self.adds_left -= 1
            return
        cols = self.rules.columns
        if isinstance(move, Wait):
            for r in reversed(self.rows_waiting()):
                del self.cells[r * cols:(r + 1) * cols]
            return
        points = self.rules.point_table
        self.score += sum(points[k] * n for k, n in self.scored(move).items())
        self.cells[move.i] = self.cells[move.j] = 0
        if self.rules.row_window:
            if not self.live_count():
                self.cells = []  # nothing left to choose: every row goes
            return
        for r in self.emptied_rows(move.i, move.j):
            del self.cells[r * cols:(r + 1) * cols]

    def describe(self, move: Move) -> str:
        """A line for a person: the pair's values and (row, column) positions from 1, or the add."""
        if isinstance(move, Add):
            return f"press +  ({self.adds_left - 1} left after)"
        if isinstance(move, Wait):
            return f"wait: let the empty {'rows' if len(self.rows_waiting()) > 1 else 'row'} go"
        cols = self.rules.columns
        (ri, ci), (rj, cj) = divmod(move.i, cols), divmod(move.j, cols)
        return (f"{self.cells[move.i]} at ({ri + 1},{ci + 1}) with {self.cells[move.j]} at "
                f"({rj + 1},{cj + 1})  +{self.points(move)}")
