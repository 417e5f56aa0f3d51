"""A Number Match search's answer: its moves, what it proved, and the contract's Solution JSON."""

from dataclasses import dataclass, field

from solver.numbermatch import Add, Board, Move, Pair


def adds_in(moves: list[Move]) -> int:
    """How many of ``moves`` press "+"."""
    return sum(isinstance(m, Add) for m in moves)


def pairs_in(moves: list[Move]) -> int:
    """How many of ``moves`` are pairs (a wait for the row window's rows is no move of the player's)."""
    return sum(isinstance(m, Pair) for m in moves)


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
        return adds_in(self.moves)

    @property
    def score(self) -> int:
        return self.replay().score - self.start.score

    def to_json(self) -> dict:
        return {"game": "numbermatch", "board": self.start.to_json(), "status": self.status,
                "moves": [m.to_json() for m in self.moves], "seconds": round(self.seconds, 4),
                "adds_used": self.adds_used, "score": self.score, "optimal": self.optimal,
                "adds_optimal": self.adds_optimal, "moves_optimal": self.moves_optimal, "nodes": self.nodes,
                "row_window": self.start.rules.row_window}

    @property
    def pairs(self) -> int:
        return pairs_in(self.moves)
