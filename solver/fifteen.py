"""Sliding-puzzle rules (the 15-puzzle, its 3x3 size, and 5x5 up to 7x7) and its solver: optimal up to 4x4, in stages beyond.

A board is its tiles row by row, ``0`` the blank; the goal is 1..N-1 in order with the blank in
the bottom-right cell. A move is the tile slid into the blank, so it must touch the blank. Every
slide swaps the blank with a tile: it flips the parity of the arrangement and moves the blank one
cell, which is why exactly half of all arrangements can be solved.

>>> board = Board.parse("1 2 3, 4 5 6, 7 _ 8")
>>> board.legal_moves()
[5, 7, 8]
>>> board.push(8); board.is_won(), board.format()
(True, '1 2 3, 4 5 6, 7 8 _')
>>> board.pop()
8
>>> solve(board).moves
[8]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from solver.cache import Progress, cache_dir, keep, kept, load_arrays
from solver.errors import InputError
from solver.files import is_digits
from solver.rules import Position

WIDTHS = (3, 4, 5, 6, 7)
# The 4x4 pattern groups: Korf and Felner's 6-6-3 split, turned for the blank at the bottom
# right. Each group's tiles lie together at home, so one group's moves rarely serve another.
GROUPS = ((1, 2, 5, 6, 9, 10), (3, 4, 7, 8, 11, 12), (13, 14, 15))
# Nodes an optimal search may generate before a board is called too hard to prove: a 4x4 board
# needs at most some millions with the tables; a random 5x5 one far more than any budget (a
# board a few slides from home is still proved within this).
PROOF_NODES = {3: 10**9, 4: 2 * 10**9, 5: 200_000, 6: 200_000, 7: 200_000}
# Past that, a board wider than 4 is solved in stages, the well-known row-and-column reduction:
# its top row, then its left column, a tile more home each time by IDA* on those tiles alone
# with the distance weighted (f = moves + w * distance), the rows and columns placed before
# locked; then the next row and
# column, down to the 3x3 in the corner, solved shortest. Each stage tries these weights in
# turn, each within STAGE_NODES: a line of a few hundred slides in a fraction of a second, not
# proved shortest.
STAGE_WEIGHTS = ((3, 1), (5, 1), (8, 1))
STAGE_NODES = 1_000_000


class BoardError(InputError):
    """A board or move that does not follow the rules; the message says why."""


def parity_solvable(tiles, width: int) -> bool:
    """True when the tiles can reach the goal: the arrangement's parity (the blank counted as
    tile N) equals the parity of the blank's distance from the bottom-right cell."""
    n = len(tiles)
    order = [t if t else n for t in tiles]
    swaps = 0
    for i in range(n):  # count the swaps that sort the arrangement
        while order[i] != i + 1:
            j = order[i] - 1
            order[i], order[j] = order[j], order[i]
            swaps += 1
    blank = tiles.index(0)
    distance = (width - 1 - blank // width) + (width - 1 - blank % width)
    return swaps % 2 == distance % 2


@dataclass
class Board(Position):
    """A sliding-puzzle position: tiles in reading order, 0 the blank; a move is the tile slid."""

    tiles: list[int]
    _undo: list = field(default_factory=list, init=False, repr=False, compare=False)

    Error = BoardError

    def __post_init__(self):
        self.tiles = list(self.tiles)
        count = len(self.tiles)
        self.width = next((w for w in WIDTHS if w * w == count), None)
        if self.width is None:
            raise BoardError(f"a board has 9, 16, 25, 36 or 49 tiles (3x3 to 7x7) counting the blank, not {count}")
        seen = set()
        for t in self.tiles:
            if t >= count:
                raise BoardError(f"tile {t} does not fit a {self.width}x{self.width} board: its tiles are 1-{count - 1}")
            if t in seen:
                raise BoardError(f"tile {t} appears twice" if t else "the board has two blanks: give exactly one 0 or _")
            seen.add(t)
        if not parity_solvable(self.tiles, self.width):
            raise BoardError("this board cannot be solved: two tiles are swapped against the goal's parity "
                             "(swap any two tiles to make it solvable)")

    @classmethod
    def parse(cls, text: str) -> "Board":
        """Tiles from ``"1 2 3 4, 5 ... 15 _"``: numbers row by row, ``0`` or ``_`` the blank,
        separated by spaces or commas."""
        tiles = []
        for k, word in enumerate(text.replace(",", " ").split(), 1):
            if word == "_":
                tiles.append(0)
            elif is_digits(word):
                tiles.append(int(word))
            else:
                raise BoardError(f"tile {k} is {word!r}: tiles are numbers, with 0 or _ for the blank")
        return cls(tiles)

    @classmethod
    def goal(cls, width: int = 4) -> "Board":
        return cls(list(range(1, width * width)) + [0])

    @classmethod
    def from_json(cls, data) -> "Board":
        tiles = data.get("tiles") if isinstance(data, dict) else None
        if not isinstance(tiles, list) or data.get("game", "fifteen") != "fifteen" or any(type(t) is not int for t in tiles):
            raise BoardError('a 15-puzzle board JSON is {"game": "fifteen", "tiles": [...]}, each tile a whole number')
        return cls(tiles)

    def to_json(self) -> dict:
        return {"game": "fifteen", "tiles": list(self.tiles)}

    def format(self) -> str:
        """Board text: rows separated by commas, the blank as ``_``."""
        w = self.width
        return ", ".join(" ".join(str(t) if t else "_" for t in self.tiles[r * w:(r + 1) * w]) for r in range(w))

    def _fresh(self) -> "Board":
        return Board(self.tiles)

    @property
    def blank(self) -> int:
        return self.tiles.index(0)

    def is_won(self) -> bool:
        """Solved: the tiles in order, the blank last."""
        return self.tiles[-1] == 0 and all(t == k + 1 for k, t in enumerate(self.tiles[:-1]))

    def neighbours(self, cell: int) -> list[int]:
        """The cells next to `cell` (sharing a side)."""
        w = self.width
        r, c = divmod(cell, w)
        return [(r + dr) * w + c + dc for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
                if 0 <= r + dr < w and 0 <= c + dc < w]

    def legal_moves(self) -> list[int]:
        """The tiles that can slide: those next to the blank, in increasing order."""
        return sorted(self.tiles[c] for c in self.neighbours(self.blank))

    def _illegal(self, tile: int) -> str:
        return f"tile {tile} does not touch the blank: it cannot slide"

    def _snapshot(self) -> int:
        return self.blank

    def _restore(self, blank: int) -> None:
        """The tile slid last slides back: the blank returns to ``blank``, where it was."""
        self.tiles[self.blank], self.tiles[blank] = self.tiles[blank], 0

    def _play(self, tile: int) -> None:
        cell, blank = self.tiles.index(tile), self.blank
        self.tiles[blank], self.tiles[cell] = tile, 0

    def describe(self, tile: int) -> str:
        """Which way `tile` slides, in words: ``slide 12 left``."""
        cell, blank = self.tiles.index(tile), self.blank
        way = {-self.width: "up", self.width: "down", -1: "left", 1: "right"}.get(blank - cell, "?")
        return f"slide {tile} {way}"

    def manhattan(self) -> int:
        """Sum over tiles of rows plus columns away from home: no slide lowers it by more than 1."""
        w = self.width
        return sum(abs(c // w - (t - 1) // w) + abs(c % w - (t - 1) % w) for c, t in enumerate(self.tiles) if t)


def scramble(width: int, slides: int, rng) -> Board:
    """The goal after `slides` random slides (``rng``: a random.Random), never one straight back:
    solvable by construction, and at most `slides` moves from home."""
    board = Board.goal(width)
    last = None
    for _ in range(slides):
        tile = rng.choice([t for t in board.legal_moves() if t != last])
        board.push(tile)
        last = tile
    return Board(board.tiles)


# -- the readable search ---------------------------------------------------------------------

def solve_plain(board: Board, node_budget: int = 10**6, targets: dict[int, int] | None = None,
                locked=()) -> list[int] | None:
    """A shortest line of tiles by plain IDA* with Manhattan distance (None past the budget):
    to the goal, or with ``targets`` (tile to cell) to those tiles on those cells, the blank
    never entering a ``locked`` cell.

    The readable twin of the compiled search: deepen a bound on moves + distance left, walk
    every line under it, never sliding a tile straight back."""
    work = board.copy()
    w = board.width
    goal = targets if targets is not None else {t: t - 1 for t in range(1, w * w)}
    nodes = 0

    def distance() -> int:
        return sum(abs(c // w - goal[t] // w) + abs(c % w - goal[t] % w) for c, t in enumerate(work.tiles) if t in goal)

    def walk(moved: int, last: int | None, bound: int) -> int | None:
        """Depth-first under `bound`; the smallest bound that was passed, or -1 when solved."""
        nonlocal nodes
        h = distance()
        if moved + h > bound:
            return moved + h
        if h == 0:
            return -1
        smallest = None
        for tile in work.legal_moves():
            if tile == last or work.tiles.index(tile) in locked:
                continue
            nodes += 1
            if nodes > node_budget:
                return None
            work.push(tile)
            found = walk(moved + 1, tile, bound)
            if found == -1:
                return -1
            work.pop()
            if found is None:
                return None
            smallest = found if smallest is None else min(smallest, found)
        return smallest if smallest is not None else 1 << 30

    bound = distance()
    while True:
        found = walk(0, None, bound)
        if found is None or found == 1 << 30:  # past the budget, or no slide left to try
            return None
        if found == -1:
            return work.move_stack
        bound = found


# -- the pattern tables ------------------------------------------------------------------------

_TABLES: dict | None = None
# the tables are 2 x 16^6 + 16^3 bytes (33.6 MB): a cached file claiming more is not them
TABLE_BYTES = 1 << 26


def table_name() -> str:
    from solver import _fifteen_kernel as kernel

    groups = "-".join(str(len(g)) for g in GROUPS)
    return f"fifteen-pdb-{groups}-v{kernel.TABLE_VERSION}.npz"


def table_path() -> Path:
    """Where the tables are kept (written)."""
    return cache_dir() / table_name()


def offsets() -> np.ndarray:
    """Where each group's table starts in the tables laid one after the other."""
    return np.cumsum([0] + [16 ** len(g) for g in GROUPS[:-1]]).astype(np.int64)


def checksum(table: np.ndarray) -> str:
    import hashlib  # here: a read that never solves the 15-puzzle imports this module too

    return hashlib.sha256(table.tobytes()).hexdigest()


def table_fits(table: np.ndarray, stored_sum: str) -> bool:
    """The loaded tables are these groups' and unharmed: the right size and type, their bytes'
    checksum as stored, and each group at home needing no move."""
    if table.dtype != np.uint8 or table.shape != (sum(16 ** len(g) for g in GROUPS),) or checksum(table) != stored_sum:
        return False
    homes = [sum((t - 1) << (4 * i) for i, t in enumerate(g)) for g in GROUPS]
    return not table[offsets() + homes].any()


def build_tables() -> np.ndarray:
    """Every group's table, one after the other (the kernel's search reads them by offset); a
    minute or so, with a progress bar on stderr."""
    from solver import _fifteen_kernel as kernel

    kernel.build_pattern_table(np.array([1], np.int64))  # compiled (and said) before the bar starts
    progress = Progress("building the 15-puzzle's tables (once)", [16 ** len(g) for g in GROUPS])
    tables = []
    try:
        for g in GROUPS:
            tables.append(kernel.build_pattern_table(np.array(g, np.int64)))
            progress.step()
    finally:
        progress.close()
    return np.concatenate(tables)


def pattern_tables(rebuild: bool = False) -> dict:
    """The 4x4 tables and the lookups the search needs; built once (tens of seconds) and cached
    in the tapsolve cache folder, checked on every load and built again when they do not fit."""
    global _TABLES
    if _TABLES is not None and not rebuild:
        return _TABLES
    table = None
    if not rebuild:
        try:
            data = load_arrays(kept(table_name()), TABLE_BYTES)
            table, stored_sum = data["table"], str(data["sha256"])
            if not table_fits(table, stored_sum):
                table = None
        except (OSError, ValueError, KeyError):
            table = None  # missing or harmed: built again below
    if table is None:
        table = build_tables()
        keep(table_path(), lambda tmp: np.savez(tmp, table=table, sha256=np.array(checksum(table))))
    _TABLES = {"pdb": table, **lookups(4)}
    return _TABLES


def lookups(width: int) -> dict:
    """Where each tile's cell goes in its group's table index, and the diagonal mirror."""
    n = width * width
    group = np.zeros(n, np.int64)
    slot = np.zeros(n, np.int64)
    for g, tiles in enumerate(GROUPS):
        for i, t in enumerate(tiles):
            group[t], slot[t] = g, i
    mirror_cell = np.array([(c % width) * width + c // width for c in range(n)], np.int64)
    mirror_tile = np.array([0] + [mirror_cell[t - 1] + 1 for t in range(1, n)], np.int64)
    return {"offset": offsets(), "group": group, "slot": slot, "mirror_tile": mirror_tile, "mirror_cell": mirror_cell}


# -- the solver ----------------------------------------------------------------------------------

@dataclass
class Solution:
    """A line of tiles to slide, and what the search proved about it."""

    board: Board
    moves: list[int]
    status: str  # "solved", or "gave_up" (no line found within the budget)
    optimal: bool
    nodes: int
    seconds: float

    def to_json(self) -> dict:
        return {"game": "fifteen", "board": self.board.to_json(), "status": self.status,
                "moves": [{"tile": t} for t in self.moves], "length": len(self.moves),
                "optimal": self.optimal, "seconds": round(self.seconds, 4), "nodes": self.nodes}


def search(board: Board, weight=(1, 1), node_budget: int = 10**9, tables: bool = True,
           targets: dict[int, int] | None = None, locked=()):
    """One compiled IDA* run: (line, nodes, found). ``tables=False`` on 4x4: Manhattan only.
    ``targets``: tile to the cell it must reach (default every tile home: the board solved;
    some tiles: a stage, by Manhattan distance alone, the others anywhere), ``locked``: cells
    the blank must not enter (placed stages)."""
    from solver import _fifteen_kernel as kernel

    n = board.width * board.width
    target = np.arange(-1, n - 1, dtype=np.int64)  # every tile's home; the blank none
    if targets is not None:
        target[:] = -1
        for tile, cell in targets.items():
            target[tile] = cell
        tables = False  # the tables bring every tile home
    lock = np.zeros(n, np.bool_)
    lock[list(locked)] = True
    empty = np.zeros(0, np.int64)
    if board.width == 4 and tables:
        t = pattern_tables()
        args = (t["pdb"], t["offset"], t["group"], t["slot"], t["mirror_tile"], t["mirror_cell"])
    else:
        args = (np.zeros(0, np.uint8), empty, empty, empty, empty, empty)
    line, nodes, found = kernel.ida_star(np.array(board.tiles, np.int64), board.width, weight[0], weight[1],
                                         node_budget, target, lock, *args)
    return [int(t) for t in line], int(nodes), bool(found)


def solve(board: Board, proof_nodes: int | None = None) -> Solution:
    """A shortest line when the search proves one within `proof_nodes` (by size by default);
    else, on a board wider than 4, a line found in stages (``solve_in_stages``), marked not optimal."""
    t0 = time.perf_counter()
    budget = PROOF_NODES[board.width] if proof_nodes is None else proof_nodes
    line, nodes, found = search(board, node_budget=budget)
    if found:
        return Solution(board, line, "solved", True, nodes, time.perf_counter() - t0)
    line, more = solve_in_stages(board) if board.width > 3 else (None, 0)
    status = "gave_up" if line is None else "solved"
    return Solution(board, line or [], status, False, nodes + more, time.perf_counter() - t0)


def solve_in_stages(board: Board) -> tuple[list[int] | None, int]:
    """A line by rows and columns (``stages``, each by STAGE_WEIGHTS), each row and column then
    locked, down to the 3x3 left in the bottom-right corner, solved shortest as a 3x3 board of
    its own. (line, nodes); line None when a stage found none."""
    n = board.width
    work, line, nodes, locked = board.copy(), [], 0, set()
    for k in range(n - 3):
        for cells, step in (([k * n + c for c in range(k, n)], n), ([r * n + k for r in range(k + 1, n)], 1)):
            for targets in stages(cells, step):
                for weight in STAGE_WEIGHTS:
                    part, spent, found = search(work, weight, STAGE_NODES, targets=targets, locked=locked)
                    nodes += spent
                    if found:
                        break
                else:
                    return None, nodes
                for tile in part:
                    work.push(tile)
                line += part
            locked |= set(cells)
    corner = [r * n + c for r in range(n - 3, n) for c in range(n - 3, n)]  # its cells, in reading order
    label = {cell + 1: k + 1 for k, cell in enumerate(corner)}  # a tile's number on the 3x3 board
    small = Board([label.get(work.tiles[c], 0) for c in corner])
    rest, spent, _ = search(small)
    tile_of = {k: t for t, k in label.items()}
    return line + [tile_of[t] for t in rest], nodes + spent


def stages(cells: list[int], step: int) -> list[dict[int, int]]:
    """The stages that bring a row's (or a column's) tiles home, ``cells`` its cells in order
    and ``step`` from a cell to the one beside it off the line (n for a row: the cell below).
    Each stage's targets (tile to cell) keep the tiles placed before it. Its tiles one by one
    but the last two: the first of them goes to the last cell, the last beside it, then both
    home together (the way round a full line that is no way in)."""
    home = {cell + 1: cell for cell in cells}
    out, placed = [], {}
    for cell in cells[:-2]:
        placed[cell + 1] = cell
        out.append(dict(placed))
    a, b = cells[-2] + 1, cells[-1] + 1
    out.append({**placed, a: cells[-1]})
    out.append({**placed, a: cells[-1], b: cells[-1] + step})
    out.append(dict(home))
    return out
