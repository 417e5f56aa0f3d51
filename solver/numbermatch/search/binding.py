"""The binding of the compiled Number Match search: its arrays as one record; the only code knowing its slots."""

import functools
import itertools
import threading
import time
from collections import namedtuple

import numpy as np

from solver.numbermatch import Add, Board, Move, Pair, Wait

MAX_CELLS = 1 << 15  # room for the longest board the kernel will grow (adds past it are refused)

_SALTS = itertools.count(1)


@functools.cache
def _zobrist() -> tuple[np.ndarray, np.ndarray]:
    """Fixed random keys for (cell index, number) and for the cell count."""
    rng = np.random.default_rng(20240521)
    zob = rng.integers(1, 1 << 62, size=(MAX_CELLS + 1, 10), dtype=np.int64)
    zob[:, 0] = 0
    return zob, rng.integers(1, 1 << 62, size=MAX_CELLS + 2, dtype=np.int64)


@functools.cache
def _tables(bits: int) -> tuple[np.ndarray, ...]:
    """The transposition tables of ``1 << bits`` entries (and the lock floors' memo), made once
    per process: a fresh 8 MB table costs a page fault on each first touch, more than a whole
    small search."""
    return (np.zeros(1 << bits, np.int64), np.zeros(1 << bits, np.int8), np.zeros(1 << bits, np.int64),
            np.zeros(1 << LOCK_TABLE_BITS, np.int64))


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


# one search's state as one record, in the order the kernel's ``run`` takes it (what each array
# holds: the kernel's docstring)
SearchArrays = namedtuple("SearchArrays", "cells rl ctl undo mv prio lvl tt_key tt_val mt zob zn pts deg best sl lsl"
                                          " mark lg memo gstack gains gone")


class Kernel:
    """One compiled search over one start board: its arrays (``arrays``), and Python handles on them.

    ``role`` names the stacks it borrows from the process (``_stacks``): one search per role
    at a time (``solve`` uses "main" and its helper's "helper"); None: stacks of its own."""

    def __init__(self, board: Board, tt_bits: int = 20, share: "Kernel | None" = None,
                 role: str | None = None):
        from solver.numbermatch import kernel as K

        self.K = K
        self.board = board
        self.root = np.array(board.cells, np.int8)
        self.live = board.live_count()
        maxn = max(grown_size(board), len(board.cells))
        live_max = maxn - len(board.cells) + self.live
        self.window = board.rules.row_window
        # a line's pairs, adds and (in the row window) a wait at most after each pair
        depth = live_max // 2 * (2 if self.window else 1) + min(board.adds_left, maxn) + 2
        ctl = np.zeros(K.SLOTS, np.int64)
        ctl[K.MAXN] = maxn
        ctl[K.COLS] = board.rules.columns
        ctl[K.ADD_LIVE] = board.rules.add_after == "live"
        ctl[K.BEST_LIVE] = self.live + 1
        buf = min(4 * live_max * live_max // 4 + 4 * live_max + 64, 1 << 21)
        self.role = role
        if role is None:
            mv, prio, sl = np.zeros((buf, 2), np.int32), np.zeros(buf, np.int64), np.zeros((buf, 2), np.int32)
        else:
            mv, prio, sl = _stacks(role, buf)
        if share is not None:
            # facts in the tables hold for every search of the same board. The fewest-moves
            # racer runs in a thread of its own: it only reads the fewest-adds table (written
            # in FAST mode, before), and the tables it writes hold an entry in one word
            tt_key, tt_val, mt, memo = share.arrays.tt_key, share.arrays.tt_val, share.arrays.mt, share.arrays.memo
            self.salt = share.salt
        else:
            tt_key, tt_val, mt, memo = _tables(tt_bits)
            # a new salt in every key makes the entries of earlier searches match nothing (what
            # failed there may have failed for lack of room that this board has)
            self.salt = next(_SALTS) * 0x9E3779B97F4A7C15 & ((1 << 62) - 1)
        zob, zn = _zobrist()
        self.arrays = SearchArrays(
            cells=np.zeros(maxn + 1, np.int8), rl=np.zeros(maxn // board.rules.columns + 3, np.int64), ctl=ctl,
            undo=np.zeros((depth + 1, K.UNDO_COLS), np.int64), mv=mv, prio=prio,
            lvl=np.zeros((depth + 1, 3), np.int64), tt_key=tt_key, tt_val=tt_val, mt=mt, zob=zob, zn=zn,
            pts=np.array(board.rules.points, np.int64),  # the board's table, learned or not
            deg=np.zeros(maxn + 1, np.int64), best=np.zeros((depth + 1, 3), np.int64), sl=sl,
            lsl=np.zeros((depth + 2, 2), np.int64), mark=np.full(maxn + 1, -1, np.int64),
            # the fewest-moves pass's lock floors (``lock_floor``): ``lg`` made at its first reset
            lg=np.zeros((7, 1), np.int64), memo=memo,
            gstack=np.zeros((48, 32), np.int64),  # ``mask_floor``'s stack; rows 40, 41 scratch
            gains=np.zeros((depth + 1, len(K.LOCK_GROUPS) + 1), np.int64),
            # each wait's rows: a row goes once on a line, which holds the start's rows and
            # those its adds make (maxn cells in full rows, and a partial last one an add)
            gone=np.zeros(maxn // board.rules.columns + depth + 3, np.int64))
        self.chunk = 4096
        self._helper: Kernel | None = None
        # what every pass starts from, counted once: the root's hash, live numbers in each
        # pairing class and in each row
        live = np.flatnonzero(self.root)
        values = self.root[live].astype(np.int64)
        self.root_hash = int(zn[len(self.root)] ^ np.bitwise_xor.reduce(zob[live, values]))
        self.root_classes = np.bincount(np.minimum(values, 10 - values) - 1, minlength=5)
        self.root_rows = np.bincount(live // board.rules.columns, minlength=len(self.arrays.rl))
        self.locks: bool | None = None  # whether the lock floors can be taken (``_can_take_locks``)
        self.lock_cuts = True  # MOVES passes cut by lock floors (the fewest-moves phase starts without)

    def _can_take_locks(self) -> bool:
        """Whether the lock floors can be taken on this board (``_lock_geometry``, made once)."""
        if self.locks is None:
            lg = _lock_geometry(self.root, self.board.rules.columns, self.K)
            self.locks = lg is not None
            if self.locks:
                self.arrays = self.arrays._replace(lg=lg)
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
        K, a, board = self.K, self.arrays, self.board
        ctl = a.ctl
        a.cells[:] = 0
        a.cells[:len(self.root)] = self.root
        ctl[K.N] = len(self.root)
        ctl[K.ADDS] = ctl[K.ADDS0] = board.adds_left
        ctl[K.SCORE] = board.score
        ctl[K.DEPTH] = 0
        a.lsl[0] = 0
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
        a.rl[:] = self.root_rows
        ctl[K.WINDOW] = self.window
        rows = -(-len(self.root) // board.rules.columns)
        ctl[K.PENDING] = int(np.count_nonzero(self.root_rows[:rows] == 0)) if self.window else 0
        ctl[K.GONE] = 0
        # the lock floors' masks assume a row goes with its pair: not in the row window
        ctl[K.LOCKS] = ((2 if self.lock_cuts else 1) if mode == K.MOVES and not self.window
                        and self._can_take_locks() else 0)
        ctl[K.LMASK] = (1 << self.live) - 1 if ctl[K.LOCKS] else 0
        ctl[K.LOCK_BUDGET] = LOCK_POSITIONS

    def run(self, deadline: float, node_cap: int | None = None, stop: threading.Event | None = None) -> int:
        """Run the pass until it ends, the deadline passes (LIMIT), node_cap more nodes, or
        ``stop`` is set (looked at between slices)."""
        K, ctl = self.K, self.arrays.ctl
        stop_at = None if node_cap is None else ctl[K.NODES] + node_cap
        while True:
            t = time.perf_counter()
            limit = ctl[K.NODES] + self.chunk
            if stop_at is not None:
                limit = min(limit, stop_at)
            ctl[K.LIMIT_AT] = limit
            code = K.run(*self.arrays)
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

    def set_bound(self, bound: int) -> None:
        """The most live numbers the adds of a line of this MOVES pass may copy, from now on."""
        self.arrays.ctl[self.K.BOUND] = bound

    def cut_by_locks_now(self) -> None:
        """The MOVES pass under way cuts by the lock floors too, from where it is (when the
        board lets them be taken)."""
        ctl = self.arrays.ctl
        if ctl[self.K.LOCKS]:
            ctl[self.K.LOCKS] = 2

    def cost_floor(self, adds: int) -> int:
        """The least live numbers ``adds`` more adds copy from the current position (``cost_floor``)."""
        return int(self.K.cost_floor(self.arrays.ctl, adds))

    @property
    def nodes(self) -> int:
        """Positions visited by this search and its helper."""
        own = int(self.arrays.ctl[self.K.NODES])
        return own if self._helper is None else own + self._helper.nodes

    @property
    def capped(self) -> bool:
        return bool(self.arrays.ctl[self.K.CAPPED])

    def _moves(self, rows: np.ndarray, count: int) -> list[Move]:
        K = self.K
        return [Add() if kind == K.ADD else Wait() if kind == K.WAIT else Pair(int(i), int(j))
                for kind, i, j in rows[:count].tolist()]

    def line(self) -> list[Move]:
        """The moves of the current line (after FOUND: a line that clears)."""
        return self._moves(self.arrays.undo[:, [0, 1, 2]], int(self.arrays.ctl[self.K.DEPTH]))

    def best_line(self) -> list[Move]:
        """The line that left the fewest live numbers so far."""
        return self._moves(self.arrays.best, int(self.arrays.ctl[self.K.BEST_LEN]))

    def score(self) -> int:
        return int(self.arrays.ctl[self.K.SCORE]) - self.board.score

    def pairs_floor(self, budget: int = GROUP_POSITIONS) -> int:
        """A floor on the live numbers pairs alone can leave on the start board (``pairs_floor``
        in the kernel): what the first add copies at least. On a board with more live numbers
        than the kernel's masks hold, only what the odd classes leave."""
        if not self._can_take_locks():
            return int(sum(self.root_classes % 2))
        a = self.arrays
        return int(self.K.pairs_floor(a.lg, a.memo, a.gstack, self.salt, budget))

    def start_playouts(self, seed: int) -> None:
        """Ready for ``playouts`` (the bench's baseline): the start board, no clearing score yet.
        The baseline plays as the public solvers do, a row going with its pair (no row window)."""
        self.reset(self.board.adds_left, self.K.FAST, seed=seed)
        self.arrays.ctl[self.K.BEST_LIVE] = -1
        self.arrays.ctl[self.K.WINDOW] = self.arrays.ctl[self.K.PENDING] = 0

    def playouts(self, count: int) -> int:
        """``count`` more random playouts from the start board: how many cleared. The
        best-scoring line that cleared is ``best_line``, its score ``best_playout_score``."""
        K, a = self.K, self.arrays
        return int(K.playouts(a.cells, a.rl, a.ctl, a.undo, a.mv, a.zob, a.zn, a.pts, self.root, len(self.root),
                              self.board.adds_left, count, a.best, a.lg))

    @property
    def best_playout_score(self) -> int:
        return int(self.arrays.ctl[self.K.BEST_LIVE])


@functools.cache
def warm_up() -> None:
    """Load (or, the first time ever, compile) the kernel before any clock starts (once): each
    entry the search calls from Python is compiled on its own, so the floors too (the first
    solve after an install that took them in its budget ran a second over it)."""
    kernel = Kernel(Board([1, 9, 5], 1), tt_bits=4)
    kernel.reset(1, kernel.K.FAST)
    kernel.run(time.perf_counter() + 60)
    kernel.cost_floor(1)
    kernel.pairs_floor()
