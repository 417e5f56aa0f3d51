"""Lights Out's rules: pressing a cell toggles it and its orthogonal neighbours; the board is won
when every light is off. It speaks the rules dialect of every game (solver.rules.Position); a
move is a cell index, row by row."""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from solver.rules import Position

SIDE = 3
CELLS = SIDE * SIDE


def toggled(cell: int) -> list[int]:
    """The cells a press on ``cell`` toggles: itself and its orthogonal neighbours."""
    r, c = divmod(cell, SIDE)
    return [cell] + [rr * SIDE + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                     if 0 <= rr < SIDE and 0 <= cc < SIDE]


class Board(Position):
    """Nine lights (1 on, 0 off) and the presses made on them."""

    def __init__(self, lights=(0,) * CELLS):
        self.lights = list(lights)
        if len(self.lights) != CELLS or set(self.lights) - {0, 1}:
            raise ValueError(f"a board is {CELLS} lights of 0 or 1, not {lights!r}")
        self._undo = []

    @classmethod
    def parse(cls, text: str) -> "Board":
        return cls([int(ch) for ch in text if ch in "01"])

    def __eq__(self, other) -> bool:
        return isinstance(other, Board) and self.lights == other.lights

    def legal_moves(self) -> list[int]:
        return [] if self.is_won() else list(range(CELLS))

    def is_won(self) -> bool:
        return not any(self.lights)

    def _play(self, cell: int) -> None:
        for k in toggled(cell):
            self.lights[k] ^= 1

    def _snapshot(self) -> tuple[int, ...]:
        return tuple(self.lights)

    def _restore(self, lights) -> None:
        self.lights = list(lights)

    def _fresh(self) -> "Board":
        return Board(self.lights)

    def key(self) -> int:
        return sum(light << k for k, light in enumerate(self.lights))

    def to_json(self) -> dict:
        return {"cells": list(self.lights)}

    def format(self) -> str:
        return "\n".join("".join("#" if v else "." for v in self.lights[r * SIDE:(r + 1) * SIDE]) for r in range(SIDE))


@lru_cache(maxsize=None)
def lines() -> dict[int, list[int]]:
    """Each board's fewest presses (by its key), breadth first over the 512 boards from the one with
    every light out: a press undoes itself, so the presses that lead there from a board lead back."""
    found = {Board().key(): []}
    queue = deque([Board()])
    while queue:
        here = queue.popleft()
        for cell in range(CELLS):
            after = here.copy()
            after._play(cell)  # pressed from the board with every light out, where no press is legal
            if after.key() not in found:
                found[after.key()] = found[here.key()] + [cell]
                queue.append(after)
    return found


def solve(board: Board) -> list[int]:
    """The fewest presses that put every light out (every 3x3 board can be)."""
    return list(lines()[board.key()])
