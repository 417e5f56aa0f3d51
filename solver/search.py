"""Number Match search: clear the board with the fewest adds (fast) or the most points (score).

``solve`` is what the rest of tapsolve calls. It runs the compiled search of
``solver._numbermatch_kernel`` in slices, watching the clock between them:

- ``objective="fast"``: iterative deepening on the adds allowed (0, 1, 2, ...), a depth-first
  search for each with a transposition table of positions known not to clear. The first count
  that clears is the fewest possible, proved by the failed passes before it (``optimal``).
- ``objective="score"``: first the fast answer (so every clearable board is cleared), then,
  until the budget ends, attempts that press "+" early (an add copies every live number, so
  early adds make many more pairs and points) and keep the rest in reserve; the best-scoring
  line that clears wins.

``reference_solve`` is the readable twin in plain Python over ``solver.numbermatch.Board``:
the tests check the compiled search against it, and it answers small boards on its own.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from solver.errors import InputError
from solver.numbermatch import POINTS, Add, Board, Move, Pair

OBJECTIVES = ("fast", "score")
MAX_CELLS = 1 << 15  # room for the longest board the kernel will grow (adds past it are refused)


@dataclass
class Solution:
    """A search's answer, shaped like the contract's Solution JSON."""

    start: Board
    status: str  # "solved", "unsolvable" (proved) or "gave_up" (budget spent)
    moves: list[Move] = field(default_factory=list)
    optimal: bool = False  # no line with fewer adds clears the board
    nodes: int = 0
    seconds: float = 0.0

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
                "nodes": self.nodes}


# -- the readable reference ------------------------------------------------------------------

class _OutOfTime(Exception):
    pass


def dead(board: Board) -> bool:
    """Positions that can never be cleared: an odd count of live numbers with no add left."""
    return board.live_count() % 2 == 1 and board.adds_left == 0


def reference_solve(board: Board, budget: float = 2.0) -> Solution:
    """Clear the board with the fewest adds; proves it when every smaller count fails."""
    start, t0 = board.copy(), time.perf_counter()
    deadline = t0 + budget
    work = board.copy()
    nodes = 0
    best_line: list[Move] = []
    best_live = work.live_count()

    def dfs(adds_allowed: int, failed: set) -> bool:
        nonlocal nodes, best_line, best_live
        nodes += 1
        if work.is_cleared():
            return True
        if nodes & 1023 == 0 and time.perf_counter() > deadline:
            raise _OutOfTime
        if work.live_count() < best_live:
            best_live, best_line = work.live_count(), [m for m, *_ in work.move_stack]
        used = start.adds_left - work.adds_left
        key = (tuple(work.cells), used)
        if key in failed or (dead(work) or work.live_count() % 2 and used == adds_allowed):
            return False
        for move in work.legal_moves():
            if isinstance(move, Add) and used >= adds_allowed:
                continue
            work.push(move)
            if dfs(adds_allowed, failed):
                return True
            work.pop()
        failed.add(key)
        return False

    try:
        for adds_allowed in range(start.adds_left + 1):
            if dfs(adds_allowed, set()):
                moves = [m for m, *_ in work.move_stack]
                return Solution(start, "solved", moves, optimal=True, nodes=nodes,
                                seconds=time.perf_counter() - t0)
            work = start.copy()
    except _OutOfTime:
        return Solution(start, "gave_up", best_line, nodes=nodes, seconds=time.perf_counter() - t0)
    return Solution(start, "unsolvable", [], optimal=True, nodes=nodes, seconds=time.perf_counter() - t0)


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


def points_table() -> np.ndarray:
    return np.array([POINTS["touching"], POINTS["row_break"], POINTS["gap"], POINTS["row"],
                     POINTS["clear"]], np.int64)


def grown_size(board: Board) -> int:
    """The most cells the board can reach: every add pressed before any pair."""
    live, n = board.live_count(), len(board.cells)
    adds = min(board.adds_left, 16)
    return min(n + live * ((1 << adds) - 1), MAX_CELLS)


class Kernel:
    """One compiled search over one start board: its arrays, and Python handles on them."""

    def __init__(self, board: Board, tt_bits: int = 20):
        from solver import _numbermatch_kernel as K

        self.K = K
        self.board = board
        self.root = np.array(board.cells, np.int8)
        maxn = max(grown_size(board), len(board.cells))
        live_max = maxn - len(board.cells) + board.live_count()
        depth = live_max // 2 + min(board.adds_left, maxn) + 2
        self.cells = np.zeros(maxn + 1, np.int8)
        self.ctl = np.zeros(K.SLOTS, np.int64)
        self.ctl[K.MAXN] = maxn
        self.ctl[K.COLS] = board.rules.columns
        self.ctl[K.ADD_LIVE] = board.rules.add_after == "live"
        self.undo = np.zeros((depth + 1, K.UNDO_COLS), np.int64)
        self.best = np.zeros((depth + 1, 3), np.int64)
        buf = min(4 * live_max * live_max // 4 + 4 * live_max + 64, 1 << 21)
        self.mv = np.zeros((buf, 2), np.int32)
        self.prio = np.zeros(buf, np.int64)
        self.lvl = np.zeros((depth + 1, 3), np.int64)
        self.tt_key = np.zeros(1 << tt_bits, np.int64)
        self.tt_val = np.zeros(1 << tt_bits, np.int8)
        self.zob, self.zn = _zobrist()
        self.pts = points_table()
        self.deg = np.zeros(maxn + 1, np.int64)
        self.row_live = np.zeros(maxn // max(board.rules.columns, 1) + 2, np.int64)
        self.ctl[K.BEST_LIVE] = board.live_count() + 1
        self.chunk = 4096

    def reset(self, allowed: int, mode: int, forced: int = 0, seed: int = 1) -> None:
        """Back to the start board, for a pass that may use ``allowed`` adds."""
        K, ctl, board = self.K, self.ctl, self.board
        self.cells[:] = 0
        self.cells[:len(self.root)] = self.root
        ctl[K.N] = len(self.root)
        ctl[K.ADDS] = ctl[K.ADDS0] = board.adds_left
        ctl[K.SCORE] = board.score
        ctl[K.DEPTH] = 0
        ctl[K.ALLOWED] = allowed
        ctl[K.MODE] = mode
        ctl[K.FORCED] = forced
        ctl[K.SEED] = seed or 1
        ctl[K.STATE] = K.ENTER
        ctl[K.LIVE] = board.live_count()
        for c in range(5):
            ctl[K.CNT + c] = 0
        for v in board.cells:
            if v:
                ctl[K.CNT + min(v, 10 - v) - 1] += 1
        ctl[K.HASH] = K.full_hash(self.cells, len(self.root), self.zob, self.zn)

    def run(self, deadline: float, node_cap: int | None = None) -> int:
        """Run the pass until it ends, the deadline passes (LIMIT) or node_cap more nodes."""
        K, ctl = self.K, self.ctl
        stop_at = None if node_cap is None else ctl[K.NODES] + node_cap
        while True:
            t = time.perf_counter()
            limit = ctl[K.NODES] + self.chunk
            if stop_at is not None:
                limit = min(limit, stop_at)
            ctl[K.LIMIT_AT] = limit
            code = K.run(self.cells, ctl, self.undo, self.mv, self.prio, self.lvl, self.tt_key,
                         self.tt_val, self.zob, self.zn, self.pts, self.deg, self.row_live, self.best)
            if code != K.LIMIT:
                return code
            now = time.perf_counter()
            # slices of about 5 ms: the clock is checked often without costing much
            spent = now - t
            if spent < 0.002:
                self.chunk = min(self.chunk * 2, 1 << 22)
            elif spent > 0.01:
                self.chunk = max(self.chunk // 2, 256)
            if now >= deadline or (stop_at is not None and ctl[K.NODES] >= stop_at):
                return K.LIMIT

    @property
    def nodes(self) -> int:
        return int(self.ctl[self.K.NODES])

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
            K.push_add(self.cells, self.ctl, self.undo, self.zob, self.zn)
        else:
            K.push_pair(self.cells, self.ctl, self.undo, move.i, move.j, self.pts, self.zob, self.zn)

    def pop(self) -> None:
        self.K.pop_move(self.cells, self.ctl, self.undo)

    def hash_is_current(self) -> bool:
        """Whether the incrementally kept hash equals the one computed afresh."""
        K, ctl = self.K, self.ctl
        return int(ctl[K.HASH]) == int(K.full_hash(self.cells, ctl[K.N], self.zob, self.zn))


_WARM = False


def warm_up() -> None:
    """Load (or, the first time ever, compile) the kernel before any clock starts."""
    global _WARM
    if not _WARM:
        kernel = Kernel(Board([1, 9, 5], 1), tt_bits=4)
        kernel.reset(1, kernel.K.FAST)
        kernel.run(time.perf_counter() + 60)
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
    if not budget > 0:
        raise InputError(f"the budget must be more than 0 seconds, not {budget}")
    if board.live_count() == 0:
        raise InputError("the board has no live number to pair")


def solve(board: Board, objective: str = "fast", budget: float = 1.0) -> Solution:
    """Clear ``board`` (any position: crossed-out cells, a partial last row, adds, stage, score).

    ``fast``: the fewest adds, ``optimal`` when proved; ``score``: the most points found in
    ``budget`` seconds among lines that clear. ``status`` is "solved", "unsolvable" (proved:
    no line clears even with every add) or "gave_up" (the budget ran out first; the moves are
    then the line that left the fewest live numbers)."""
    check_input(board, objective, budget)
    warm_up()
    t0 = time.perf_counter()
    start = without_empty_rows(board)
    kernel = Kernel(start)
    solution = _fewest_adds(kernel, start, t0, t0 + budget)
    if objective == "score" and solution.status == "solved":
        solution = _most_points(kernel, start, solution, t0 + budget)
    solution.nodes = kernel.nodes
    solution.seconds = time.perf_counter() - t0
    return solution


def _fewest_adds(kernel: Kernel, start: Board, t0: float, deadline: float) -> Solution:
    K = kernel.K
    proved = True
    for allowed in range(start.adds_left + 1):
        kernel.reset(allowed, K.FAST)
        code = kernel.run(deadline)
        if code == K.FOUND:
            return Solution(start, "solved", kernel.line(), optimal=proved)
        if code == K.LIMIT:
            return Solution(start, "gave_up", kernel.best_line())
        proved = proved and not kernel.capped
    if proved:
        return Solution(start, "unsolvable", [], optimal=True)
    return Solution(start, "gave_up", kernel.best_line())


def _most_points(kernel: Kernel, start: Board, found: Solution, deadline: float) -> Solution:
    """Anytime: attempts that press p adds first (p from all of them down), each with a node
    cap that doubles every round, keep the best-scoring line that clears."""
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
            kernel.reset(adds, K.SCORE_MODE, forced=p, seed=rng.getrandbits(62))
            code = kernel.run(deadline, node_cap=cap)
            if code == K.FOUND:
                if kernel.score() > best_score:
                    best_moves, best_score = kernel.line(), kernel.score()
            elif code == K.EXHAUSTED and not kernel.capped:
                plans.remove(p)  # proved: no line clears after p adds first
        cap = min(cap * 2, 1 << 40)
    return Solution(start, "solved", best_moves, optimal=found.optimal
                    and sum(isinstance(m, Add) for m in best_moves) == found.adds_used)
