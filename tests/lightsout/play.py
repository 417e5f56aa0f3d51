"""Lights Out as the assistant plays it, on the Game protocol: plan the fewest presses, tap the
lamp, draw the next lamp outlined."""

from __future__ import annotations

import cv2
import numpy as np

from assistant import overlay
from assistant.games import Game, Plan
from tests.lightsout.rules import SIDE, Board, solve

LAMP = {1: (245, 197, 66), 0: (176, 180, 188)}  # RGB of a lit and an unlit lamp on the diagram


def where(cell: int) -> str:
    return f"row {cell // SIDE + 1} column {cell % SIDE + 1}"


class LightsOut(Game):
    """A position is a rules.Board; a move is the cell pressed."""

    name = "lightsout"
    moves_word = "presses"
    won_word = "all out"

    def position(self, reading):
        return reading.board.copy()

    def plan(self, board) -> Plan:
        return Plan(solve(board), "solved", optimal=True)

    def same(self, seen, expected) -> bool:
        return seen == expected

    def ends(self, board) -> bool:
        return board.is_won()

    def tap_points(self, move, reading) -> list[tuple[int, int]]:
        return [reading.cells[move]]

    def planned_tap_points(self, move, board, reading) -> list[tuple[tuple[int, int], str]]:
        return [(reading.cells[move], "")]  # the lamps stay where they are

    def describe(self, board, move) -> str:
        return f"press {where(move)}"

    def progress(self, board) -> str:
        return f"{sum(board.lights)} lights on"

    def where(self, cell: int, reading) -> str:
        return where(cell)

    def draw_next(self, image: np.ndarray, reading, move) -> np.ndarray:
        return overlay.mark_points(image, [reading.cells[move]], reading.pitch, False)

    def diagram(self, board, move, cell: int = 72) -> np.ndarray:
        image = np.full((SIDE * cell + cell, SIDE * cell + cell, 3), 255, np.uint8)
        centres = {}
        for k, light in enumerate(board.lights):
            x0, y0 = cell // 2 + (k % SIDE) * cell, cell // 2 + (k // SIDE) * cell
            cv2.rectangle(image, (x0 + 4, y0 + 4), (x0 + cell - 4, y0 + cell - 4), LAMP[light], -1)
            centres[k] = (x0 + cell // 2, y0 + cell // 2)
        return image if move is None else overlay.mark_points(image, [centres[move]], cell, False)


def add_solve_command(games) -> None:
    """`tapsolve solve lightsout 110100000`: the presses that put the lights out."""
    command = games.add_parser(LightsOut.name, help="Lights Out 3x3: put every light out")
    command.add_argument("lights", help="nine 0s and 1s, row by row")
    command.set_defaults(run=solve_command)


def solve_command(args) -> int:
    presses = solve(Board.parse(args.lights))
    print(", ".join(f"press {where(cell)}" for cell in presses) or "all out already")
    return 0


GAME = LightsOut
