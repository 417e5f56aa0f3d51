"""Number Match search: clear the board with the fewest adds (fast) or the most points (score).

``solve`` is what the rest of tapsolve calls. It runs the compiled search of
``solver._numbermatch_kernel`` in slices, watching the clock between them:

- ``objective="fast"``: iterative deepening on the adds allowed (0, 1, 2, ...), a depth-first
  search for each with a transposition table of positions known not to clear. The first count
  that clears is the fewest possible, proved by the failed passes before it (``adds_optimal``).
  Then, with that many adds, branch and bound on the moves: each pass asks for a line two
  fewer numbers copied by its adds (one pair fewer) than the best so far, until a pass proves
  there is none (``moves_optimal``), or until the best reaches a floor: the first add copies
  at least what pairs alone can leave, and two to four pairing classes can lock each other
  (``pairs_floor``; the pass cuts every position before the first add where a lock leaves
  more than its bound allows, ``lock_floor``). Pressing "+" while few numbers are live is
  what saves moves.
- ``objective="score"``: first the fast answer (so every clearable board is cleared), then,
  until the budget ends, attempts that press "+" early (an add copies every live number, so
  early adds make many more pairs and points) and keep the rest in reserve; the best-scoring
  line that clears wins.

``reference_solve`` is the readable twin in plain Python over ``solver.numbermatch.Board``:
the tests check the compiled search against it, and it answers small boards on its own.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from solver.errors import InputError
from solver.numbermatch import Add, Board, Move, Pair

OBJECTIVES = ("fast", "score")
MAX_CELLS = 1 << 15  # room for the longest board the kernel will grow (adds past it are refused)
MAX_BOARD = 4096  # the longest board solve accepts


@dataclass
class Solution:
    """A search's answer, shaped like the contract's Solution JSON."""

    start: Board
    status: str  # "solved", "unsolvable" (proved) or "gave_up" (budget spent)
    moves: list[Move] = field(default_factory=list)
    adds_optimal: bool = False  # proved: no line with fewer adds clears the board
    moves_optimal: bool = False  # proved: no line with as few adds clears it in fewer moves
    nodes: int = 0
    seconds: float = 0.0

    @property
    def optimal(self) -> bool:
        """Both proved: the fewest adds, and the fewest moves with them."""
        return self.adds_optimal and self.moves_optimal

    def replay(self) -> Board:
        """The board after the moves, played with the reference rules (raises if one is illegal)."""
        board = self.start.copy()
        for move in self.moves:
            board.push(move)
        return board

    @property
    def adds_used(self) -> int:
        return sum(isinstance(m, Add) for m in self.moves)

    @property
    def score(self) -> int:
        return self.replay().score - self.start.score

    def to_json(self) -> dict:
        return {"game": "numbermatch", "start": self.start.to_json(), "status": self.status,
                "moves": [m.to_json() for m in self.moves], "seconds": round(self.seconds, 4),
                "adds_used": self.adds_used, "score": self.score, "optimal": self.optimal,
                "adds_optimal": self.adds_optimal, "moves_optimal": self.moves_optimal, "nodes": self.nodes}

    @property
    def pairs(self) -> int:
        return len(self.moves) - self.adds_used


# -- the readable reference ------------------------------------------------------------------

class _OutOfTime(Exception):
    pass


def reference_solve(board: Board, budget: float = 2.0) -> Solution:
    """Clear the board with the fewest adds, then the fewest pairs for them; proves both.

    ``fewest_pairs(r)`` is the least number of pairs that clear the board as it stands using at
    most ``r`` more adds (None when no line does), remembered per position. The fewest adds is
    the least ``r`` that clears; the line is read back by following the moves that keep the
    remembered value."""
    start, t0 = board.copy(), time.perf_counter()
    deadline = t0 + budget
    work = board.copy()
    known: dict = {}
    nodes = 0

    def fewest_pairs(r: int) -> int | None:
        nonlocal nodes
        if work.is_won():
            return 0
        key = (tuple(work.cells), r)
        if key in known:
            return known[key]
        nodes += 1
        if nodes & 1023 == 0 and time.perf_counter() > deadline:
            raise _OutOfTime
        best = None
        if not (work.live_count() % 2 and r == 0):  # an odd count with no add left never clears
            for move in work.legal_moves():
                is_add = isinstance(move, Add)
                if is_add and r == 0:
                    continue
                work.push(move)
                rest = fewest_pairs(r - is_add)
                work.pop()
                if rest is not None and (best is None or rest + (not is_add) < best):
                    best = rest + (not is_add)
        known[key] = best
        return best

    def line(r: int) -> list[Move]:
        moves = []
        while not work.is_won():
            want = fewest_pairs(r)
            for move in work.legal_moves():
                is_add = isinstance(move, Add)
                if is_add and r == 0:
                    continue
                work.push(move)
                if fewest_pairs(r - is_add) == (None if want is None else want - (not is_add)):
                    moves.append(move)
                    r -= is_add
                    break
                work.pop()
        return moves

    def done(status: str, moves: list[Move], proved: bool) -> Solution:
        return Solution(start, status, moves, adds_optimal=proved, moves_optimal=proved, nodes=nodes,
                        seconds=time.perf_counter() - t0)

    try:
        for adds_allowed in range(start.adds_left + 1):
            if fewest_pairs(adds_allowed) is not None:
                return done("solved", line(adds_allowed), True)
    except _OutOfTime:
        return done("gave_up", [], False)
    return done("unsolvable", [], True)


def pairing_class(v: int) -> int:
    """The pairing class of a number (0-4: {1,9} {2,8} {3,7} {4,6} {5}): pairs join two of one."""
    return min(v, 10 - v) - 1


def reference_group_floor(board: Board, group: set[int], live: frozenset) -> int:
    """The fewest numbers of the pairing classes in ``group`` that pairs can leave when every
    other number may vanish at any moment (the readable twin of the kernel's ``mask_floor``),
    ``live`` the cells of ``board`` still live. Two numbers of the group may pair when no live
    number of the group lies between them in reading order, or in their column, or on a
    diagonal some choice of the rows between them would form (a row holding a live number of
    the group cannot go)."""
    cols, n = board.rules.columns, len(board.cells)
    cells = [k for k in live if pairing_class(board.cells[k]) in group]

    def sees(live: frozenset, a: int, b: int) -> bool:
        if not any(a < k < b for k in live):
            return True
        (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
        if ca == cb:
            return not any(a < k < b and k % cols == ca for k in live)
        d, sign = abs(cb - ca), (1 if cb > ca else -1)
        held = {k // cols for k in live if ra < k // cols < rb}
        for kept in itertools.combinations(range(ra + 1, rb), d - 1):
            path = [r * cols + ca + sign * t for t, r in enumerate(kept, 1)]
            if held <= set(kept) and all(k < n and k not in live for k in path):
                return True
        return False

    known: dict[frozenset, int] = {}

    def fewest(live: frozenset) -> int:
        if live not in known:
            known[live] = min([len(live)] + [
                fewest(live - {a, b}) for a, b in itertools.combinations(sorted(live), 2)
                if pairing_class(board.cells[a]) == pairing_class(board.cells[b]) and sees(live, a, b)])
        return known[live]

    return fewest(frozenset(cells))


def reference_lock_floor(board: Board, live: frozenset | None = None, sizes: tuple = (2, 3)) -> int:
    """A floor on the live numbers pairs alone can leave from the position where ``live`` of the
    cells of ``board`` are still live, ``board`` before any add (the readable twin of the
    kernel's ``lock_floor``): a number for each pairing class with an odd count, and more for
    the best choice of disjoint groups of classes (of ``sizes``) that ``reference_group_floor``
    shows to leave more than their odd classes."""
    live = frozenset(k for k, v in enumerate(board.cells) if v) if live is None else live
    counts = [0] * 5
    for k in live:
        counts[pairing_class(board.cells[k])] += 1
    odd = [c % 2 for c in counts]
    gains = {}
    for size in sizes:
        for group in itertools.combinations(range(5), size):
            if all(counts[c] for c in group):
                gains[group] = reference_group_floor(board, set(group), live) - sum(odd[c] for c in group)
    best = max([0] + list(gains.values()) + [
        gains[g] + gains[h] for g in gains for h in gains if not set(g) & set(h)])
    return sum(odd) + best


def reference_pairs_floor(board: Board) -> int:
    """The floor on what pairs alone can leave on the start board (the readable twin of the
    kernel's ``pairs_floor``): ``reference_lock_floor`` with groups of four classes too."""
    return reference_lock_floor(board, sizes=(2, 3, 4))


# -- the compiled search -----------------------------------------------------------------------

_ZOBRIST: tuple[np.ndarray, np.ndarray] | None = None


def _zobrist():
    """Fixed random keys for (cell index, number) and for the cell count."""
    global _ZOBRIST
    if _ZOBRIST is None:
        rng = np.random.default_rng(20240521)
        zob = rng.integers(1, 1 << 62, size=(MAX_CELLS + 1, 10), dtype=np.int64)
        zob[:, 0] = 0
        zn = rng.integers(1, 1 << 62, size=MAX_CELLS + 2, dtype=np.int64)
        _ZOBRIST = (zob, zn)
    return _ZOBRIST


_TABLES: dict = {}
_SALTS = itertools.count(1)


def _tables(bits: int) -> tuple[np.ndarray, ...]:
    """The transposition tables of ``1 << bits`` entries (and the lock floors' memo), made once
    per process: a fresh 8 MB table costs a page fault on each first touch, more than a whole
    small search."""
    if bits not in _TABLES:
        _TABLES[bits] = (np.zeros(1 << bits, np.int64), np.zeros(1 << bits, np.int8), np.zeros(1 << bits, np.int64),
                         np.zeros(1 << LOCK_TABLE_BITS, np.int64))
    return _TABLES[bits]


_STACKS: dict = {}


def _stacks(role: str, size: int) -> tuple[np.ndarray, ...]:
    """The move and sleep stacks (``mv``, ``prio``, ``sl``) of ``size`` entries for the search
    playing ``role``, kept for the process: the search writes every entry before it reads it,
    and a fresh 48 MB set cost the page faults of a tenth of a median board."""
    held = _STACKS.get(role)
    if held is None or len(held[1]) < size:
        held = _STACKS[role] = (np.empty((size, 2), np.int32), np.empty(size, np.int64),
                                np.empty((size, 2), np.int32))
    return tuple(a[:size] for a in held)


# positions one group of pairing classes may search for its floor (``Kernel.pairs_floor``): enough
# to prove the locks of most groups of three on a 42-number board, a few ms at most
GROUP_POSITIONS = 20_000
# seconds into the fewest-moves search before the floor on what pairs alone leave is taken (a
# few ms; most boards are settled sooner by a line at the floor the counts give)
PAIRS_FLOOR_AFTER = 0.005
# random bits in the priority of each move a fewest-moves restart tries (``NOISE``): enough to
# drown the fast ordering, so the restarts walk lines at random. A line that copies no more than
# the floor is one of a few among millions, and the ordering that finds lines with few adds
# steers away from it: on the 41 boards of 42 numbers that 1 s left unproved, restarts at random
# proved 19, restarts mixing 15 to 65535 random bits 14
MOVES_NOISE = (1 << 20) - 1


# positions ``mask_floor`` may search for one group's floor in one position of the search; a group
# position it did not settle is not tried again
LOCK_POSITIONS = 2000
LOCK_TABLE_BITS = 20  # the lock floors' memo, a word an entry (8 MB): 4 times more missed 15-25 % fewer, no faster


def _lock_geometry(root: np.ndarray, cols: int, K) -> np.ndarray | None:
    """What the bits of the kernel's lock masks mean on this start board (its ``lg``): None
    when it has more live numbers than a mask holds."""
    live = np.flatnonzero(root)
    if len(live) > K.MASK_BITS:
        return None
    n = len(root)
    lg = np.zeros((7, max(n, cols, 32) + 1), np.int64)
    values = root[live].astype(np.int64)
    classes = np.minimum(values, 10 - values) - 1
    bits = np.left_shift(1, np.arange(len(live), dtype=np.int64))
    lg[K.LG_CLASS, :len(live)] = classes
    np.bitwise_or.at(lg[K.LG_ROW], live // cols, bits)
    np.bitwise_or.at(lg[K.LG_COL], live % cols, bits)
    lg[K.LG_AT, :] = -1
    lg[K.LG_AT, live] = np.arange(len(live))
    lg[K.LG_POS, :len(live)] = live
    of_class = [int(bits[classes == c].sum()) for c in range(5)]
    lg[K.LG_SEL, :32] = [sum(of_class[c] for c in range(5) if group >> c & 1) for group in range(32)]
    lg[K.LG_SIZE, :3] = cols, n, len(live)
    return lg


def grown_size(board: Board) -> int:
    """The most cells the board can reach: every add pressed before any pair."""
    live, n = board.live_count(), len(board.cells)
    adds = min(board.adds_left, 16)
    return min(n + live * ((1 << adds) - 1), MAX_CELLS)


class Kernel:
    """One compiled search over one start board: its arrays, and Python handles on them.

    ``role`` names the stacks it borrows from the process (``_stacks``): one search per role
    at a time (``solve`` uses "main" and its helper's "helper"); None: stacks of its own."""

    def __init__(self, board: Board, tt_bits: int = 20, share: "Kernel | None" = None,
                 role: str | None = None):
        from solver import _numbermatch_kernel as K

        self.K = K
        self.board = board
        self.root = np.array(board.cells, np.int8)
        self.live = board.live_count()
        maxn = max(grown_size(board), len(board.cells))
        live_max = maxn - len(board.cells) + self.live
        depth = live_max // 2 + min(board.adds_left, maxn) + 2
        self.cells = np.zeros(maxn + 1, np.int8)
        self.ctl = np.zeros(K.SLOTS, np.int64)
        self.ctl[K.MAXN] = maxn
        self.ctl[K.COLS] = board.rules.columns
        self.ctl[K.ADD_LIVE] = board.rules.add_after == "live"
        self.undo = np.zeros((depth + 1, K.UNDO_COLS), np.int64)
        self.best = np.zeros((depth + 1, 3), np.int64)
        buf = min(4 * live_max * live_max // 4 + 4 * live_max + 64, 1 << 21)
        self.role = role
        if role is None:
            self.mv, self.sl = np.zeros((buf, 2), np.int32), np.zeros((buf, 2), np.int32)
            self.prio = np.zeros(buf, np.int64)
        else:
            self.mv, self.prio, self.sl = _stacks(role, buf)
        self.lvl = np.zeros((depth + 1, 3), np.int64)
        self.lsl = np.zeros((depth + 2, 2), np.int64)
        if share is not None:
            # facts in the tables hold for every search of the same board. The fewest-moves
            # racer runs in a thread of its own: it only reads the fewest-adds table (written
            # in FAST mode, before), and the tables it writes hold an entry in one word
            self.tt_key, self.tt_val, self.mt, self.memo = share.tt_key, share.tt_val, share.mt, share.memo
            self.salt = share.salt
        else:
            self.tt_key, self.tt_val, self.mt, self.memo = _tables(tt_bits)
            # a new salt in every key makes the entries of earlier searches match nothing (what
            # failed there may have failed for lack of room that this board has)
            self.salt = next(_SALTS) * 0x9E3779B97F4A7C15 & ((1 << 62) - 1)
        self.zob, self.zn = _zobrist()
        self.pts = np.array(board.rules.points, np.int64)  # the board's table, learned or not
        self.deg = np.zeros(maxn + 1, np.int64)
        self.mark = np.full(maxn + 1, -1, np.int64)
        self.rl = np.zeros(maxn // board.rules.columns + 3, np.int64)
        self.ctl[K.BEST_LIVE] = self.live + 1
        self.chunk = 4096
        self._helper: Kernel | None = None
        # what every pass starts from, counted once: the root's hash, live numbers in each
        # pairing class and in each row
        live = np.flatnonzero(self.root)
        values = self.root[live].astype(np.int64)
        self.root_hash = int(self.zn[len(self.root)] ^ np.bitwise_xor.reduce(self.zob[live, values]))
        self.root_classes = np.bincount(np.minimum(values, 10 - values) - 1, minlength=5)
        self.root_rows = np.bincount(live // board.rules.columns, minlength=len(self.rl))
        # the fewest-moves pass's lock floors (``lock_floor``), made at its first reset
        self.lg, self.locks = np.zeros((7, 1), np.int64), None
        self.lock_cuts = True  # MOVES passes cut by lock floors (``_fewest_moves`` starts without)
        self.gstack = np.zeros((48, 32), np.int64)  # ``mask_floor``'s stack; rows 40, 41 scratch
        self.gains = np.zeros((depth + 1, len(K.LOCK_GROUPS) + 1), np.int64)

    def _can_take_locks(self) -> bool:
        """Whether the lock floors can be taken on this board (``_lock_geometry``, made once)."""
        if self.locks is None:
            lg = _lock_geometry(self.root, self.board.rules.columns, self.K)
            self.locks = lg is not None
            if self.locks:
                self.lg = lg
        return self.locks

    def helper(self) -> "Kernel":
        """A second search over the same board sharing this one's tables (made once): the
        restarts that race a pass."""
        if self._helper is None:
            self._helper = Kernel(self.board, share=self, role=self.role and "helper")
        return self._helper

    def reset(self, allowed: int, mode: int, forced: int = 0, seed: int = 1, noise: int = 0,
              add_at: int = -1, bound: int = 0) -> None:
        """Back to the start board, for a pass that may use ``allowed`` adds (and in MOVES mode
        copy at most ``bound`` live numbers with them)."""
        K, ctl, board = self.K, self.ctl, self.board
        self.cells[:] = 0
        self.cells[:len(self.root)] = self.root
        ctl[K.N] = len(self.root)
        ctl[K.ADDS] = ctl[K.ADDS0] = board.adds_left
        ctl[K.SCORE] = board.score
        ctl[K.DEPTH] = 0
        self.lsl[0] = 0
        ctl[K.ALLOWED] = allowed
        ctl[K.MODE] = mode
        ctl[K.FORCED] = forced
        ctl[K.SEED] = seed or 1
        ctl[K.NOISE] = noise
        ctl[K.ADD_AT] = add_at
        ctl[K.COST] = 0
        ctl[K.BOUND] = bound
        ctl[K.SALT] = self.salt
        ctl[K.STATE] = K.ENTER
        ctl[K.LIVE] = self.live
        ctl[K.CNT:K.CNT + 5] = self.root_classes
        ctl[K.HASH] = self.root_hash
        self.rl[:] = self.root_rows
        ctl[K.LOCKS] = (2 if self.lock_cuts else 1) if mode == K.MOVES and self._can_take_locks() else 0
        ctl[K.LMASK] = (1 << self.live) - 1 if ctl[K.LOCKS] else 0
        ctl[K.LOCK_BUDGET] = LOCK_POSITIONS

    def run(self, deadline: float, node_cap: int | None = None, stop: threading.Event | None = None) -> int:
        """Run the pass until it ends, the deadline passes (LIMIT), node_cap more nodes, or
        ``stop`` is set (looked at between slices)."""
        K, ctl = self.K, self.ctl
        stop_at = None if node_cap is None else ctl[K.NODES] + node_cap
        while True:
            t = time.perf_counter()
            limit = ctl[K.NODES] + self.chunk
            if stop_at is not None:
                limit = min(limit, stop_at)
            ctl[K.LIMIT_AT] = limit
            code = K.run(self.cells, self.rl, ctl, self.undo, self.mv, self.prio, self.lvl, self.tt_key,
                         self.tt_val, self.mt, self.zob, self.zn, self.pts, self.deg,
                         self.best, self.sl, self.lsl, self.mark, self.lg, self.memo, self.gstack, self.gains)
            if code != K.LIMIT:
                return code
            now = time.perf_counter()
            # slices of about 5 ms: the clock is checked often without costing much
            spent = now - t
            if spent < 0.002:
                self.chunk = min(self.chunk * 2, 1 << 22)
            elif spent > 0.01:
                self.chunk = max(self.chunk // 2, 256)
            if now >= deadline or (stop_at is not None and ctl[K.NODES] >= stop_at) or (stop and stop.is_set()):
                return K.LIMIT

    @property
    def nodes(self) -> int:
        """Positions visited by this search and its helper."""
        own = int(self.ctl[self.K.NODES])
        return own if self._helper is None else own + self._helper.nodes

    @property
    def capped(self) -> bool:
        return bool(self.ctl[self.K.CAPPED])

    def _moves(self, rows: np.ndarray, count: int) -> list[Move]:
        return [Add() if kind == 1 else Pair(int(i), int(j)) for kind, i, j in rows[:count].tolist()]

    def line(self) -> list[Move]:
        """The moves of the current line (after FOUND: a line that clears)."""
        d = int(self.ctl[self.K.DEPTH])
        return self._moves(self.undo[:, [0, 1, 2]], d)

    def best_line(self) -> list[Move]:
        """The line that left the fewest live numbers so far."""
        return self._moves(self.best, int(self.ctl[self.K.BEST_LEN]))

    def score(self) -> int:
        return int(self.ctl[self.K.SCORE]) - self.board.score

    def pairs_floor(self, budget: int = GROUP_POSITIONS) -> int:
        """A floor on the live numbers pairs alone can leave on the start board (``pairs_floor``
        in the kernel): what the first add copies at least. On a board with more live numbers
        than the kernel's masks hold, only what the odd classes leave."""
        if not self._can_take_locks():
            return int(sum(self.root_classes % 2))
        return int(self.K.pairs_floor(self.lg, self.memo, self.gstack, self.salt, budget))

    # -- the kernel's rules, one move at a time (for the tests that hold them to the reference)

    def position(self) -> tuple[list[int], int, int]:
        """The current cells, adds left and score."""
        K, ctl = self.K, self.ctl
        return self.cells[:ctl[K.N]].tolist(), int(ctl[K.ADDS]), int(ctl[K.SCORE])

    def legal_moves(self) -> list[Move]:
        K, ctl = self.K, self.ctl
        end = K.pairs_into(self.cells, ctl[K.N], ctl[K.COLS], self.mv, 0, len(self.mv))
        moves: list[Move] = [Pair(int(i), int(j)) for i, j in self.mv[:end].tolist()]
        if ctl[K.ADDS] > 0 and ctl[K.LIVE] > 0:
            moves.append(Add())
        return moves

    def push(self, move: Move) -> None:
        K = self.K
        if isinstance(move, Add):
            K.push_add(self.cells, self.rl, self.ctl, self.undo, self.zob, self.zn)
        else:
            K.push_pair(self.cells, self.rl, self.ctl, self.undo, move.i, move.j, self.pts, self.zob, self.zn,
                        self.lg)

    def pop(self) -> None:
        self.K.pop_move(self.cells, self.rl, self.ctl, self.undo)

    def bookkeeping_is_current(self) -> bool:
        """Whether what the kernel keeps up to date move by move (the hash, the live numbers
        in each row and each pairing class) equals what it would count afresh."""
        K, ctl = self.K, self.ctl
        cells = self.cells[:ctl[K.N]].tolist()
        cols = self.board.rules.columns
        rows = [0] * len(self.rl)
        classes = [0] * 5
        for k, v in enumerate(cells):
            if v:
                rows[k // cols] += 1
                classes[pairing_class(v)] += 1
        return (int(ctl[K.HASH]) == int(K.full_hash(self.cells, ctl[K.N], self.zob, self.zn))
                and rows == self.rl.tolist() and classes == ctl[K.CNT:K.CNT + 5].tolist()
                and int(ctl[K.LIVE]) == sum(classes) and not any(self.cells[ctl[K.N]:]))


_WARM = False


def warm_up() -> None:
    """Load (or, the first time ever, compile) the kernel before any clock starts: each entry
    the search calls from Python is compiled on its own, so the floors too (the first solve
    after an install that took them in its budget ran a second over it)."""
    global _WARM
    if not _WARM:
        kernel = Kernel(Board([1, 9, 5], 1), tt_bits=4)
        kernel.reset(1, kernel.K.FAST)
        kernel.run(time.perf_counter() + 60)
        kernel.K.cost_floor(kernel.ctl, 1)
        kernel.pairs_floor()
        _WARM = True


def without_empty_rows(board: Board) -> Board:
    """The board as the game shows it: a row with no live number has already disappeared.

    The rules remove a row when a pair empties it; a row that is empty from the start (typed
    by hand, or read mid-animation) would otherwise stay forever and the board never clear."""
    cols, cells = board.rules.columns, board.cells
    kept = []
    for r in range(0, len(cells), cols):
        row = cells[r:r + cols]
        if any(row):
            kept.extend(row)
    if len(kept) == len(cells):
        return board.copy()
    return Board(kept, board.adds_left, board.score, board.stage, board.rules)


def check_input(board: Board, objective: str, budget: float) -> None:
    if objective not in OBJECTIVES:
        raise InputError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if not 0 < budget < float("inf"):
        raise InputError(f"the budget must be a number of seconds more than 0, not {budget}")
    if board.live_count() == 0:
        raise InputError("the board has no live number to pair")
    if len(board.cells) > MAX_BOARD:
        raise InputError(f"the board has {len(board.cells)} cells: more than {MAX_BOARD} is no game board")


def solve(board: Board, objective: str = "fast", budget: float = 1.0) -> Solution:
    """Clear ``board`` (any position: crossed-out cells, a partial last row, adds, stage, score).

    ``fast``: the fewest adds, then the fewest moves with them (``adds_optimal`` and
    ``moves_optimal`` say which was proved, ``optimal`` both); ``score``: the most points found in
    ``budget`` seconds among lines that clear. ``status`` is "solved", "unsolvable" (proved:
    no line clears even with every add) or "gave_up" (the budget ran out first; the moves are
    then the line that left the fewest live numbers)."""
    check_input(board, objective, budget)
    warm_up()
    t0 = time.perf_counter()
    start = without_empty_rows(board)
    kernel = Kernel(start, role="main")
    solution = _fewest_adds(kernel, start, t0, t0 + budget)
    if objective == "fast" and solution.status == "solved" and solution.adds_optimal:
        solution = _fewest_moves(kernel, start, solution, t0 + budget)
    if objective == "score" and solution.status == "solved":
        solution = _most_points(kernel, start, solution, t0 + budget)
    solution.nodes = kernel.nodes
    solution.seconds = time.perf_counter() - t0
    return solution


def adds_in(moves: list[Move]) -> int:
    return sum(isinstance(m, Add) for m in moves)


def luby(k: int) -> int:
    """The k-th term (from 1) of the Luby restart sequence 1 1 2 1 1 2 4 1 1 2 ..."""
    power = 1
    while (1 << power) - 1 < k:
        power += 1
    if (1 << power) - 1 == k:
        return 1 << (power - 1)
    return luby(k - (1 << (power - 1)) + 1)


def _fewest_adds(kernel: Kernel, start: Board, t0: float, deadline: float) -> Solution:
    """Iterative deepening on the adds allowed, proved pass by pass (``kernel``), raced by
    restarts with random tie-breaks and random moments to press "+" that look for a line
    within the same count: for a count every smaller one of which is proved impossible, the
    first line found by either is the fewest adds. A first short attempt with every add
    allowed gives a line to fall back on if the budget ends before the proof."""
    adds = start.adds_left
    rng = random.Random(hash((tuple(start.cells), adds)) & 0xFFFFFFFF)
    return _race(kernel, kernel.helper(), start, deadline, rng, kernel.live)


def _race(kernel: Kernel, racer: Kernel, start: Board, deadline: float, rng: random.Random,
          live: int) -> Solution:
    K = kernel.K
    adds = start.adds_left

    def attempt(allowed: int, cap: int, add_at: int) -> int:
        racer.reset(allowed, K.FAST, seed=rng.getrandbits(62), noise=rng.choice((15, 255, 4095, 65535)), add_at=add_at)
        return racer.run(deadline, node_cap=cap)

    fallback = None
    proved, allowed, restart = True, 0, 0
    kernel.reset(allowed, K.FAST)
    while True:
        if fallback is not None and proved and adds_in(fallback) == allowed:
            return Solution(start, "solved", fallback, adds_optimal=True)
        code = kernel.run(min(deadline, time.perf_counter() + 0.003))
        if code == K.FOUND:
            return Solution(start, "solved", kernel.line(), adds_optimal=proved)
        if code == K.EXHAUSTED:
            proved = proved and not kernel.capped
            allowed += 1
            if allowed > adds:
                break
            kernel.reset(allowed, K.FAST)
            continue
        if time.perf_counter() >= deadline:
            break
        if restart == 0 and attempt(adds, 3000, -1) == K.FOUND:
            fallback = racer.line()
        restart += 1
        # every other restart looks one add further, so that a proof cut short by the budget
        # still leaves the likely best line to fall back on
        target = allowed
        if restart % 2 == 0 and (fallback is None or adds_in(fallback) > allowed + 1):
            target = min(allowed + 1, adds)
        code = attempt(target, 500 * luby(restart), rng.choice((-1, rng.randint(0, live))))
        if code == K.FOUND:
            line = racer.line()
            if adds_in(line) <= allowed:
                return Solution(start, "solved", line, adds_optimal=proved)
            if fallback is None or adds_in(line) < adds_in(fallback):
                fallback = line
        elif code == K.EXHAUSTED and target == allowed and not racer.capped:
            allowed += 1  # the racer finished the proof first
            if allowed > adds:
                break
            kernel.reset(allowed, K.FAST)
    if fallback is not None:
        return Solution(start, "solved", fallback)
    if allowed > adds and proved:
        return Solution(start, "unsolvable", [], adds_optimal=True, moves_optimal=True)
    return Solution(start, "gave_up", kernel.best_line())


def _fewest_moves(kernel: Kernel, start: Board, found: Solution, deadline: float) -> Solution:
    """Branch and bound on the moves, the adds fixed at the proved fewest: one pass looks for a
    line whose adds copy fewer numbers than the best so far (so with fewer pairs) and, on each
    line found, tightens its bound and goes on where it was; when it ends, the best is proved.
    So does a line that reaches the floor (the least the adds can copy, ``cost_floor``).
    Tightening a bound mid-pass is sound: a position that fails within some add cost fails
    within any smaller one, which is all the tables record.

    Finding the short lines is the hard part (the floor usually is the answer), so once the
    pass has had a slice it is raced by restarts in a thread of their own (``_MovesRacer``)
    sharing its tables: the pass keeps its whole thread, and on a machine with a second core
    the racer takes it."""
    K = kernel.K
    best, adds = found.moves, found.adds_used
    racer = _MovesRacer(kernel.helper(), start, adds, deadline)
    # most boards are settled within PAIRS_FLOOR_AFTER, before the lock floors would have paid
    # for their first look at each group (a cold memo)
    kernel.lock_cuts = racer.kernel.lock_cuts = False

    def bound() -> int:
        return add_cost(start, len(best) - adds - 1)

    kernel.reset(adds, K.MOVES, bound=bound())
    floor = int(K.cost_floor(kernel.ctl, adds))
    t0, floored = time.perf_counter(), False
    try:
        while time.perf_counter() < deadline:
            line, raised = racer.news()
            if line is not None and len(line) < len(best):
                best = line
                kernel.ctl[K.BOUND] = bound()
            floor = max(floor, raised)
            if bound() < floor:
                return Solution(start, "solved", best, adds_optimal=True, moves_optimal=True)
            # the first add copies at least what pairs alone leave, and every later one 4 or more
            if not floored and time.perf_counter() - t0 >= PAIRS_FLOOR_AFTER and adds > 0:
                floored = True
                floor = max(floor, kernel.pairs_floor() + 4 * (adds - 1))
                # and from now on, in every position before the first add (the pass goes on
                # where it is: the rows of gains it has are not whole, so none is taken up)
                kernel.lock_cuts = racer.kernel.lock_cuts = True
                if kernel.ctl[K.LOCKS]:
                    kernel.ctl[K.LOCKS] = 2
                continue
            code = kernel.run(min(deadline, time.perf_counter() + 0.001))
            if code == K.EXHAUSTED:
                return Solution(start, "solved", best, adds_optimal=True, moves_optimal=not kernel.capped)
            if code == K.FOUND:
                best = kernel.line()
                kernel.ctl[K.BOUND] = bound()
            racer.aim(bound(), floor)
    finally:
        racer.stop()
    return Solution(start, "solved", best, adds_optimal=True)


class _MovesRacer:
    """Restarts racing the fewest-moves pass, in a thread started at the first ``aim``: each
    tries moves in random order (``MOVES_NOISE``) up to a node cap, every other one aiming
    straight at the floor. A restart that ends its tree within its cap has proved its aim out
    of reach (its tree is the pass's in another order, made small by the tables it shares with
    the pass): the best, or the floor raised past it. What it finds, the pass takes up between
    its slices (``news``)."""

    def __init__(self, kernel: Kernel, start: Board, adds: int, deadline: float):
        self.kernel, self.adds, self.deadline = kernel, adds, deadline
        self.rng = random.Random(hash((tuple(start.cells), adds, 2)) & 0xFFFFFFFF)  # ints: the same every run
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None
        self.target = self.floor = 0
        self.line: list[Move] | None = None
        self.raised = 0
        self.error: BaseException | None = None  # raised again in the caller's thread by ``stop``

    def aim(self, bound: int, floor: int) -> None:
        with self.lock:
            self.target, self.floor = bound, floor
        if self.thread is None:
            self.thread = threading.Thread(target=self._race, name="moves-racer", daemon=True)
            self.thread.start()

    def news(self) -> tuple[list[Move] | None, int]:
        """The shortest line found so far (None for none), and the floor it has proved."""
        with self.lock:
            return self.line, self.raised

    def stop(self) -> None:
        self.stopped.set()
        if self.thread is not None:
            self.thread.join()
        if self.error is not None:
            raise self.error

    def _race(self) -> None:
        try:
            self._restarts()
        except BaseException as error:  # noqa: BLE001 (handed to the caller's thread)
            self.error = error

    def _restarts(self) -> None:
        K, kernel = self.kernel.K, self.kernel
        restart = 0
        while not self.stopped.is_set() and time.perf_counter() < self.deadline:
            restart += 1
            with self.lock:
                target = max(self.floor, self.raised) if restart % 2 else self.target
            kernel.reset(self.adds, K.MOVES, bound=target, seed=self.rng.getrandbits(62), noise=MOVES_NOISE)
            code = kernel.run(self.deadline, node_cap=500 * luby(restart), stop=self.stopped)
            with self.lock:
                if code == K.EXHAUSTED and not kernel.capped:
                    # no line copies ``target`` or fewer, so two more at least
                    self.raised = max(self.raised, target + 2)
                elif code == K.FOUND and (self.line is None or kernel.ctl[K.DEPTH] < len(self.line)):
                    self.line = kernel.line()


def add_cost(start: Board, pairs: int) -> int:
    """The live numbers a line's adds copy when it clears ``start`` in ``pairs`` pairs: every
    number, there at the start or copied, is crossed out by exactly one pair."""
    return 2 * pairs - start.live_count()


def _most_points(kernel: Kernel, start: Board, found: Solution, deadline: float) -> Solution:
    """Anytime: attempts that press p adds first (p from all of them down) and keep the rest
    in reserve, each with a node cap that doubles every round; the best-scoring line that
    clears wins. Once p early adds clear, plans with fewer are dropped: they copy fewer
    numbers, so they make fewer pairs and points."""
    K = kernel.K
    best_moves, best_score = found.moves, found.score
    adds = start.adds_left
    plans = list(range(adds, -1, -1))
    rng = random.Random(len(start.cells) * 7919 + sum(start.cells))
    cap = 2000
    while plans and time.perf_counter() < deadline:
        for p in list(plans):
            if time.perf_counter() >= deadline:
                break
            if p not in plans:
                continue
            kernel.reset(adds, K.SCORE_MODE, forced=p, seed=rng.getrandbits(62))
            kernel.chunk = 256  # grown boards cost more per node: find the slice size again
            code = kernel.run(deadline, node_cap=cap)
            if code == K.FOUND:
                if kernel.score() > best_score:
                    best_moves, best_score = kernel.line(), kernel.score()
                # fewer early adds make fewer numbers and points: spend the time above p
                plans = [q for q in plans if q >= p]
            elif code == K.EXHAUSTED and not kernel.capped:
                plans.remove(p)  # proved: no line clears after p adds first
        cap = min(cap * 2, 1 << 40)
    return Solution(start, "solved", best_moves, adds_optimal=found.adds_optimal
                    and adds_in(best_moves) == found.adds_used)
