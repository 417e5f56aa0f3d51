"""Lights Out's rules: pressing a cell toggles it and its orthogonal neighbours; the board is won
when every light is off. python-chess's dialect: legal_moves(), push(move), pop() -> move,
peek(), is_won(), copy(), move_stack; a move is a cell index, row by row."""

from __future__ import annotations

from collections import deque
from functools import lru_cache

SIDE = 3
CELLS = SIDE * SIDE


def toggled(cell: int) -> list[int]:
    """The cells a press on ``cell`` toggles: itself and its orthogonal neighbours."""
    r, c = divmod(cell, SIDE)
    return [cell] + [rr * SIDE + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                     if 0 <= rr < SIDE and 0 <= cc < SIDE]


class Board:
    """Nine lights (1 on, 0 off) and the presses made on them."""

    def __init__(self, lights=(0,) * CELLS):
        self.lights = list(lights)
        if len(self.lights) != CELLS or set(self.lights) - {0, 1}:
            raise ValueError(f"a board is {CELLS} lights of 0 or 1, not {lights!r}")
        self.move_stack: list[int] = []

    @classmethod
    def parse(cls, text: str) -> "Board":
        return cls([int(ch) for ch in text if ch in "01"])

    def __eq__(self, other) -> bool:
        return isinstance(other, Board) and self.lights == other.lights

    def legal_moves(self) -> list[int]:
        return [] if self.is_won() else list(range(CELLS))

    def push(self, cell: int) -> None:
        for k in toggled(cell):
            self.lights[k] ^= 1
        self.move_stack.append(cell)

    def pop(self) -> int:
        cell = self.move_stack.pop()
        for k in toggled(cell):
            self.lights[k] ^= 1
        return cell

    def peek(self) -> int:
        return self.move_stack[-1]

    def is_won(self) -> bool:
        return not any(self.lights)

    def copy(self) -> "Board":
        board = Board(self.lights)
        board.move_stack = list(self.move_stack)
        return board

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
            after.push(cell)
            if after.key() not in found:
                found[after.key()] = after.move_stack
                queue.append(after)
    return found


def solve(board: Board) -> list[int]:
    """The fewest presses that put every light out (every 3x3 board can be)."""
    return list(lines()[board.key()])
