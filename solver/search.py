"""The readable Number Match search: clear the board with the fewest adds, in plain Python.

Iterative deepening on the adds allowed, a depth-first search over the rules of
``solver.numbermatch`` with a set of positions already known to fail. It is the reference the
compiled search is checked against, and answers small boards on its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from solver.numbermatch import Add, Board, Move


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


class _OutOfTime(Exception):
    pass


def dead(board: Board) -> bool:
    """Positions that can never be cleared: an odd count of live numbers with no add left."""
    return board.live_count() % 2 == 1 and board.adds_left == 0


def solve(board: Board, budget: float = 2.0) -> Solution:
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
