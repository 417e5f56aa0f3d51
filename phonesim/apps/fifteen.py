"""The 15-puzzle app of the virtual phone: a square frame of numbered tiles and one gap.

The rules are ``solver.fifteen.Board``'s. Tapping a tile next to the gap slides it in; a tap
anywhere else does nothing. Two looks, as phone apps draw it: "tiles" (separate rounded tiles
on a frame) and "grid" (square cells divided by lines, the gap shaded). Once solved, the board
stays on screen with "Solved in N moves!" under it and a "New game" button. Under a real-phone
profile a tile glides into the gap (``ANIMATIONS``): the board changes at once, the picture
follows over the animation's time.
"""

from __future__ import annotations

import random
import time

import numpy as np

from phonesim.apps import AppOptionError, choose, draw
from phonesim.apps.draw import cap_size
from phonesim.app import App, Preset, inside
from solver.fifteen import Board, parity_solvable, scramble

# each look's colours per theme: frame, tile face, digits, the gap (grid look)
LOOKS = {
    ("tiles", "light"): {"frame": "#A6AEC1", "tile": "#1E88F0", "digit": "#FFFFFF", "gap": "#A6AEC1"},
    ("tiles", "dark"): {"frame": "#2B2F37", "tile": "#4EA1F5", "digit": "#0B0C0F", "gap": "#2B2F37"},
    ("grid", "light"): {"frame": "#59627A", "tile": "#FFFFFF", "digit": "#000000", "gap": "#DDE4EC"},
    ("grid", "dark"): {"frame": "#7D8494", "tile": "#23262E", "digit": "#ECEEF2", "gap": "#0B0C0F"},
}


# The animation the app plays, by the name a realism profile gives its length.
ANIMATIONS = {"tile": "a tapped tile glides from its cell into the gap"}


def deal(seed: int, number: int, width: int, slides: int = 0) -> list[int]:
    """The ``number``-th board of a seed: a random solvable arrangement, or (``slides`` > 0)
    the goal after that many random slides; never the goal itself."""
    rng = random.Random(f"fifteen:{seed}:{number}:{width}")
    while True:
        if slides:
            tiles = scramble(width, slides, rng).tiles
        else:
            tiles = list(range(width * width))
            rng.shuffle(tiles)
            if not parity_solvable(tiles, width):
                a, b = [k for k, t in enumerate(tiles) if t][:2]
                tiles[a], tiles[b] = tiles[b], tiles[a]
        if not Board(tiles).is_won():
            return tiles


class FifteenApp(App):
    """The sliding puzzle on the virtual phone, in the "tiles" or "grid" look."""

    # phonesim's own package (no one real app is this game): the assistant's game declares it
    PACKAGE = "org.phonesim.fifteen"
    ACTIVITY = "org.phonesim.fifteen.MainActivity"

    def __init__(self, preset: Preset, *, seed: int = 0, theme: str = "light", look: str = "tiles",
                 width: int = 4, slides: int = 0):
        self.preset, self.seed, self.look, self.width, self.slides = preset, seed, look, width, slides
        self.theme = draw.THEMES[theme]
        self.colours = {k: draw.hex_rgb(v) for k, v in LOOKS[look, theme].items()}
        self.deals = 0
        self.unit = preset.width / 10
        self.clock = time.monotonic  # tests put a clock moved by hand here
        self.glide = 0.0  # seconds a tile takes into the gap (0: at once, the fast profile)
        self._motion: tuple[float, int, int] | None = None  # the last slide: (start, from cell, to cell)
        self.new_deal()

    def animate(self, durations: dict[str, float], banner: bool = False) -> None:
        """Play the slide for the profile's length (a banner ad is not drawn in this app)."""
        self.glide = durations.get("tile", 0.0)

    # -- the game --------------------------------------------------------------------------

    def new_deal(self) -> None:
        self.deals += 1
        self.board = Board(deal(self.seed, self.deals, self.width, self.slides))
        self.moves = 0

    def tap(self, x: int, y: int) -> None:
        if inside(self.buttons()["new"], x, y):
            self.new_deal()
            return
        cell = self.cell_at(x, y)
        if cell is None or self.board.is_won() or self.board.tiles[cell] not in self.board.legal_moves():
            return
        gap = self.board.blank
        self.board.push(self.board.tiles[cell])
        self.moves += 1
        if self.glide > 0:
            self._motion = (self.clock(), cell, gap)
            self.animated_s += self.glide

    def cell_at(self, x: int, y: int) -> int | None:
        """The cell under a finger at (x, y), None off the board."""
        return next((cell for cell, rect in self.cell_rects().items() if inside(rect, x, y)), None)

    def _gliding(self, now: float | None = None) -> tuple[int, int, float] | None:
        """The slide playing now: (from cell, to cell, progress 0-1), else None."""
        if self._motion is None:
            return None
        start, source, target = self._motion
        t = (self.clock() if now is None else now) - start
        if t >= self.glide:
            self._motion = None
            return None
        return source, target, draw.eased(t / self.glide)

    def motion(self, now: float | None = None) -> str | None:
        """The animation playing now (a name from ANIMATIONS), None when the screen is still."""
        return "tile" if self._gliding(now) else None

    def landed(self, x: int, y: int) -> str:
        """What a tap at (x, y) lands on (phonesim.app.TAP_TARGETS)."""
        if inside(self.buttons()["new"], x, y):
            return "button"
        cell = self.cell_at(x, y)
        if cell is None:
            return "nothing"
        if self._gliding() is not None:
            return "animating"
        tile = self.board.tiles[cell]
        if self.board.is_won():
            return "nothing"
        return "empty" if tile == 0 else "live" if tile in self.board.legal_moves() else "nothing"

    # -- geometry --------------------------------------------------------------------------

    def frame_rect(self) -> list[int]:
        u = self.unit
        side = round(9 * u)
        return [round(0.5 * u), round(self.preset.status_bar + 3.2 * u), side, side]

    def cell_rects(self) -> dict[int, list[int]]:
        """Each cell's rectangle on screen (tiles look: the tile's face; grid look: between lines)."""
        x0, y0, side, _ = self.frame_rect()
        n = self.width
        if self.look == "tiles":
            pad, gap = round(0.025 * side), round(0.02 * side)
        else:
            pad, gap = round(0.012 * side), max(2, round(0.006 * side))
        tile = (side - 2 * pad - (n - 1) * gap) // n
        pad = (side - n * tile - (n - 1) * gap) // 2  # the rounding's leftover goes to the edge
        return {r * n + c: [x0 + pad + c * (tile + gap), y0 + pad + r * (tile + gap), tile, tile]
                for r in range(n) for c in range(n)}

    def buttons(self) -> dict[str, list[int]]:
        u, W = self.unit, self.preset.width
        x0, y0, side, _ = self.frame_rect()
        bw, bh = round(3.2 * u), round(1.1 * u)
        return {"new": [(W - bw) // 2, y0 + side + round(1.7 * u), bw, bh]}

    def truth(self) -> dict:
        return {
            "game": "fifteen", "preset": self.preset.name, "theme": self.theme.name, "look": self.look,
            "screen": "stage_complete" if self.board.is_won() else "board", "board": self.board.to_json(),
            "moves": self.moves, "cells": {str(k): v for k, v in self.cell_rects().items()},
            "buttons": self.buttons(),
        }

    # -- drawing ---------------------------------------------------------------------------

    def render(self) -> np.ndarray:
        u, W, t, family = self.unit, self.preset.width, self.theme, self.preset.font
        screen = draw.blank(self.preset, t)
        text = t.rgb("text")
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.5 * u), "15 Puzzle", W // 2,
                               self.preset.status_bar + round(1.3 * u), text)
        x0, y0, side, _ = self.frame_rect()
        c = self.colours
        if self.look == "tiles":
            draw.put_rounded_rect(screen, x0, y0, side, side, round(0.03 * side), c["frame"])
        else:
            draw.fill_rect(screen, x0, y0, side, side, c["frame"])
        rects, gliding = self.cell_rects(), self._gliding()
        arriving = gliding[1] if gliding else None  # its cell shows the gap until the tile arrives
        for cell, (x, y, w, h) in rects.items():
            self._draw_cell(screen, x, y, w, h, 0 if cell == arriving else self.board.tiles[cell], family)
        if gliding is not None:  # the tile is drawn between its cells, over both shown empty
            source, target, progress = gliding
            (ax, ay, _, _), (zx, zy, w, h) = rects[source], rects[target]
            self._draw_cell(screen, round(ax + (zx - ax) * progress), round(ay + (zy - ay) * progress), w, h,
                            self.board.tiles[target], family)
        size = cap_size(family, 0.34 * u)
        words = f"Solved in {self.moves} moves!" if self.board.is_won() else f"Moves: {self.moves}"
        draw.put_text_centered(screen, family, "regular", size, words, W // 2, y0 + side + round(0.8 * u), text)
        bx, by, bw, bh = self.buttons()["new"]
        draw.put_rounded_rect(screen, bx, by, bw, bh, max(3, round(0.1 * u)), t.rgb("key"))
        draw.put_text_centered(screen, family, "medium", size, "New game", bx + bw // 2, by + bh // 2,
                               t.rgb("key_text"))
        return screen

    # -- options and fixtures ----------------------------------------------------------------

    OPTIONS = {"look": "tiles", "width": 4, "slides": 0}
    FIXTURES = """15-puzzle states, per look (`tiles`: rounded tiles on a frame; `grid`: cells between lines, the
gap shaded): `fresh`, `midgame` (seven slides tapped), `solved` (the last slide tapped: "Solved in
N moves!", screen `stage_complete`). The 1440x3200 phone shows the 3x3 size, the tablet the 5x5."""

    @classmethod
    def create(cls, preset, seed: int, theme: str, options: dict) -> "FifteenApp":
        look, width, slides = options["look"], options["width"], options["slides"]
        choose("look", look, LOOK_NAMES)
        choose("width", width, WIDTHS)
        if not isinstance(slides, int) or not 0 <= slides <= 10_000:
            raise AppOptionError(f"slides must be 0 to 10000, not {slides!r}")
        return cls(preset, seed=seed, theme=theme, look=look, width=width, slides=slides)

    @classmethod
    def add_options(cls, parser, types) -> None:
        o = cls.OPTIONS
        parser.add_argument("--look", choices=LOOK_NAMES, default=o["look"], help="15-puzzle look")
        parser.add_argument("--width", type=int, choices=WIDTHS, default=o["width"],
                            help=f"15-puzzle tiles a side (default {o['width']})")
        parser.add_argument("--slides", type=types.non_negative_int, default=o["slides"],
                            help="15-puzzle: scramble the goal by this many slides (default 0: a random board)")

    @classmethod
    def fixture_states(cls, preset, theme: str, seed: int):
        width = FIXTURE_WIDTHS[preset.name]
        for look in LOOK_NAMES:
            app = cls(preset, seed=seed, theme=theme, look=look, width=width)
            yield f"{look}_fresh", app
            rng = random.Random(seed)
            last = None
            for _ in range(7):  # slides tapped as a finger would, never straight back
                tile = rng.choice([t for t in app.board.legal_moves() if t != last])
                app.tap_on_cell(app.board.tiles.index(tile))
                last = tile
            yield f"{look}_midgame", app
            app.board = Board.goal(width)
            app.board.push(width * width - 1)  # one slide from home: the last tap solves it
            app.tap_on_cell(width * width - 1)
            yield f"{look}_solved", app

    def _draw_cell(self, screen, x: int, y: int, w: int, h: int, tile: int, family) -> None:
        """One cell at (x, y): a tile with its number, or the gap."""
        c = self.colours
        if self.look == "tiles":
            if tile:
                draw.put_rounded_rect(screen, x, y, w, h, round(0.12 * w), c["tile"])
        else:
            draw.fill_rect(screen, x, y, w, h, c["tile"] if tile else c["gap"])
        if tile:
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.36 * w), str(tile),
                                   x + w // 2, y + h // 2, c["digit"])


LOOK_NAMES = ("tiles", "grid")
WIDTHS = (3, 4, 5)
# the fixtures' size per preset: the phones show 4x4, the big screens the 3x3 and 5x5 sizes
FIXTURE_WIDTHS = {"720x1600": 4, "1080x2400": 4, "1440x3200": 3, "tablet-1600x2560": 5, "1080x2340-2022": 4}
APP = FifteenApp
