"""Lights Out on the virtual phone: a title, three rows of three rounded lamps (lit yellow or
unlit grey) and the presses so far; once every light is out, "All lights out!" under the board."""

from __future__ import annotations

import random

import numpy as np

from phonesim.apps import draw
from phonesim.apps.draw import cap_size
from phonesim.app import App, Preset
from tests.lightsout.rules import CELLS, SIDE, Board

LIT = "#F5C542"
UNLIT = {"light": "#B0B4BC", "dark": "#3A3D44"}


def deal(seed: int) -> list[int]:
    """A board of the seed with some lights on (every 3x3 board can be put out)."""
    rng = random.Random(f"lightsout:{seed}")
    board = Board()
    while board.is_won():
        for cell in rng.sample(range(CELLS), 4):
            board._play(cell)  # dealt by presses, passing through the board with every light out
    return board.lights


class LightsOutApp(App):
    """The 3x3 board, pressed by taps."""

    def __init__(self, preset: Preset, *, seed: int = 0, theme: str = "light"):
        self.preset, self.seed = preset, seed
        self.theme = draw.THEMES[theme]
        self.unlit = draw.hex_rgb(UNLIT[theme])
        self.board = Board(deal(seed))
        self.presses = 0

    def cell_rects(self) -> dict[int, list[int]]:
        u = self.preset.width / 10
        side, gap = round(2.6 * u), round(0.3 * u)
        x0, y0 = round((self.preset.width - SIDE * side - (SIDE - 1) * gap) / 2), round(self.preset.status_bar + 3 * u)
        return {r * SIDE + c: [x0 + c * (side + gap), y0 + r * (side + gap), side, side]
                for r in range(SIDE) for c in range(SIDE)}

    def _cell_at(self, x: int, y: int) -> int | None:
        return next((k for k, (cx, cy, w, h) in self.cell_rects().items() if cx <= x < cx + w and cy <= y < cy + h),
                    None)

    def tap(self, x: int, y: int) -> None:
        cell = self._cell_at(x, y)
        if cell is not None and not self.board.is_won():
            self.board.push(cell)
            self.presses += 1

    def landed(self, x: int, y: int) -> str:
        return "live" if self._cell_at(x, y) is not None and not self.board.is_won() else "nothing"

    def truth(self) -> dict:
        return {"game": "lightsout", "preset": self.preset.name, "theme": self.theme.name,
                "screen": "stage_complete" if self.board.is_won() else "board", "board": self.board.to_json(),
                "presses": self.presses, "cells": {str(k): v for k, v in self.cell_rects().items()}}

    def render(self) -> np.ndarray:
        p, t = self.preset, self.theme
        u = p.width / 10
        screen = np.empty((p.height, p.width, 3), np.uint8)
        screen[...] = t.rgb("background")
        draw.status_bar(screen, p, t)
        draw.put_text_centered(screen, p.font, "bold", cap_size(p.font, 0.5 * u), "Lights Out", p.width // 2,
                               p.status_bar + round(1.3 * u), t.rgb("text"))
        rects = self.cell_rects()
        for cell, (x, y, w, h) in rects.items():
            colour = draw.hex_rgb(LIT) if self.board.lights[cell] else self.unlit
            draw.put_rounded_rect(screen, x, y, w, h, round(0.12 * w), colour)
        x, y, w, h = rects[CELLS - 1]
        words = "All lights out!" if self.board.is_won() else f"Presses: {self.presses}"
        draw.put_text_centered(screen, p.font, "regular", cap_size(p.font, 0.34 * u), words, p.width // 2,
                               y + h + round(1.0 * u), t.rgb("text"))
        return screen


APP = LightsOutApp  # no options of its own, no fixtures: App's defaults
