"""The 15-puzzle app of the virtual phone: a frame of numbered tiles and one gap, in one of two
looks or in a skin drawn at random, as the hundreds of real 15-puzzle apps differ.

The rules are ``solver.fifteen.Board``'s. Tapping a tile next to the gap slides it in; a tap
anywhere else does nothing. Two looks, as phone apps draw it: "tiles" (separate rounded tiles
on a frame) and "grid" (square cells divided by lines, the gap shaded). A ``skin`` (a seed:
``Skin.draw``) instead draws the palette (light, dark, colourful, one colour for tiles at
home), the tiles' shape and spacing, the gap (a hole, a filled cell, a blank tile), the digits'
font, weight and size, a header with moves and a timer, buttons under the board, the board's
size, and whether a tile slides by a tap or only by a swipe (apps such as italankin/15Puzzle
move tiles by gesture: its docs/how-to-play.markdown). Once solved, the board stays on screen
with "Solved in N moves!" under it and a "New game" button. Under a real-phone profile a tile
glides into the gap (``ANIMATIONS``): the board changes at once, the picture follows over the
animation's time. A tap on another tile while one glides is taken at once, as open-source apps
do: italankin/15Puzzle (app/src/main/java/com/italankin/fifteen/GameSurface.java, onTouchEvent:
no check of a running animation; Tile.java, move: the game's index changes at once, and a tile
animating is cancelled and started again from where it is drawn) and AChep/15puzzle
(lib/widgets/game/board.dart: the board changes at once, each chip animates on its own, a new
animation replacing its last). Only a tap on a cell a tile is gliding from or into lands on
the moving tile (``landed``: "animating"). A game that ignores taps meanwhile is phonesim's
``--ignore-taps-while-animating``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

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


# the tile colours real apps use (issue 38: white, green, blue, yellow, red, purple, and more)
TILE_COLOURS = {"white": "#FFFFFF", "green": "#3A8F5C", "blue": "#2F7FD8", "yellow": "#F2C230",
                "red": "#C8352E", "purple": "#7B4FBF", "orange": "#EF8A2C", "teal": "#1A9C9C",
                "slate": "#536878", "pink": "#E0548A"}
LIGHT_BACKGROUNDS = ("#FFFFFF", "#F4F4F6", "#ECE6DA", "#DDE3EA", "#CFCBCF")
DARK_BACKGROUNDS = ("#121212", "#1E1F24", "#2B2B2B", "#0F1A2A", "#262130")
PALETTES = ("light", "dark", "colourful", "correct")
GAP_STYLES = ("hole", "filled", "blank")
DIGIT_FONTS = (("roboto", "thin"), ("roboto", "light"), ("roboto", "regular"), ("roboto", "medium"),
               ("roboto", "bold"), ("roboto", "black"), ("dejavu", "regular"), ("dejavu", "bold"),
               ("serif", "bold"))
SLIDES = ("tap", "swipe")
MAX_SKIN = 2 ** 31 - 1  # a skin is any seed up to this


def luminance(colour) -> float:
    r, g, b = colour
    return 0.299 * r + 0.587 * g + 0.114 * b


def apart(a, b, least: float = 60) -> bool:
    """Two colours a reader (or a person) tells apart: their channels differ by ``least`` in all."""
    return sum(abs(x - y) for x, y in zip(a, b)) >= least


@dataclass(frozen=True)
class Skin:
    """One app's look and feel, drawn from its seed (``draw``): every colour an RGB triple."""

    seed: int
    palette: str
    background: tuple
    frame: tuple | None  # the board's backing (None: tiles straight on the background)
    faces: tuple  # each tile number's face colour, [0] unused
    home: tuple | None  # the "correct" palette: a tile at home turns this colour
    gap: str  # "hole" (the frame shows), "filled" (a cell of gap_colour), "blank" (a tile with no number)
    gap_colour: tuple
    radius: float  # tiles' corner radius, a share of their width
    spacing: float  # space between tiles, a share of their width (0: touching, a line between)
    line: tuple  # the line between touching tiles (and the frame's colour when it has none)
    tall: float  # a tile's height / width
    family: str
    weight: str
    digit_size: float  # digits' cap height, a share of the tile's height
    header: bool  # moves and a timer over the board
    buttons: bool  # buttons under the board
    width: int  # tiles a side
    slide: str  # "tap" or "swipe"
    share: float  # the board's width, a share of the screen's

    @classmethod
    def draw(cls, seed: int, width: int | None = None) -> "Skin":
        """The skin of ``seed`` (its board's size drawn too unless ``width`` is given)."""
        rng = random.Random(f"fifteen-skin:{seed}")
        palette = rng.choice(PALETTES)
        dark = palette == "dark" or (palette != "light" and rng.random() < 0.4)
        background = draw.hex_rgb(rng.choice(DARK_BACKGROUNDS if dark else LIGHT_BACKGROUNDS))
        names = [k for k, v in TILE_COLOURS.items() if apart(draw.hex_rgb(v), background, 120)]
        tile = draw.hex_rgb(TILE_COLOURS[rng.choice(names)])
        n = width or rng.choice((3, 4, 4, 5))
        if palette == "colourful":  # a colour per row, or per tile
            colours = [draw.hex_rgb(TILE_COLOURS[c]) for c in rng.sample(names, min(len(names), 4))]
            by_row = rng.random() < 0.5
            faces = tuple([tile] + [colours[((t - 1) // n if by_row else t) % len(colours)] for t in range(1, n * n)])
        else:
            faces = tuple([tile] * (n * n))
        home = None
        if palette == "correct":
            home = next(draw.hex_rgb(TILE_COLOURS[c]) for c in rng.sample(names, len(names))
                        if apart(draw.hex_rgb(TILE_COLOURS[c]), tile, 120))
        framed = rng.random() < 0.6
        frame = None
        if framed:
            shade = -40 if not dark else 40
            frame = tuple(int(min(255, max(0, c + shade + rng.randint(-10, 10)))) for c in background)
        behind = frame or background
        spacing = rng.choice((0.0, 0.03, 0.06, 0.1))
        line = tuple(int(min(255, max(0, c + (-70 if luminance(tile) > 110 else 70)))) for c in tile)
        if spacing == 0 and frame is not None:
            line = frame if apart(frame, tile) else line
        if spacing == 0:
            behind = line  # touching tiles: the lines between them show in a hole
        gap = rng.choice(GAP_STYLES)
        gap_colour = behind
        if gap == "filled":
            fills = [c for c in ((40, 40, 44), (120, 120, 128), (230, 230, 235), (90, 60, 40), (200, 170, 120))
                     if apart(c, behind, 60) and all(apart(c, f, 100) for f in (*faces, *([home] if home else [])))]
            gap, gap_colour = ("filled", fills[0]) if fills else ("hole", behind)
        elif gap == "blank":
            gap_colour = tile
        family, weight = rng.choice(DIGIT_FONTS)
        return cls(seed, palette, background, frame, faces, home, gap, gap_colour, 0.0 if spacing == 0 else rng.choice((0.0, 0.08, 0.15, 0.25)), spacing, line,
                   rng.choice((1.0, 1.0, 1.15, 1.3)), family, weight,
                   rng.uniform(0.38, 0.55) if weight in ("thin", "light") else rng.uniform(0.3, 0.5),
                   rng.random() < 0.7, rng.random() < 0.6, n, rng.choice(SLIDES), rng.uniform(0.82, 0.96))

    def face(self, tile: int, cell: int) -> tuple:
        """A tile's face colour in this cell."""
        return self.home if self.home is not None and tile == cell + 1 else self.faces[tile]

    def ink(self, tile: int, cell: int) -> tuple:
        """Its digits' colour: dark on a light face, white on a dark one."""
        return (20, 20, 24) if luminance(self.face(tile, cell)) > 150 else (250, 250, 250)


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
                 width: int | None = None, slides: int = 0, skin: int | None = None):
        self.skin = Skin.draw(skin, width) if skin is not None else None
        if self.skin is not None:
            width = self.skin.width
            theme = "dark" if luminance(self.skin.background) < 128 else "light"  # its status bar's
        self.preset, self.seed, self.look, self.width, self.slides = preset, seed, look, width or 4, slides
        self.theme = draw.THEMES[theme]
        self.colours = {k: draw.hex_rgb(v) for k, v in LOOKS[look, theme].items()}
        self.deals = 0
        self.unit = preset.width / 10
        self.clock = time.monotonic  # tests put a clock moved by hand here
        self.glide = 0.0  # seconds a tile takes into the gap (0: at once, the fast profile)
        # the slides still gliding: (start, from cell, to cell, tile), each on its own
        self._glides: list[tuple[float, int, int, int]] = []
        self.new_deal()

    def animate(self, durations: dict[str, float], banner: bool = False) -> None:
        """Play the slide for the profile's length (a banner ad is not drawn in this app)."""
        self.glide = durations.get("tile", 0.0)

    # -- the game --------------------------------------------------------------------------

    def new_deal(self) -> None:
        self.deals += 1
        self.board = Board(deal(self.seed, self.deals, self.width, self.slides))
        self.moves = 0
        self.started = self.clock()  # the header's timer counts from here

    @property
    def slide(self) -> str:
        """How a tile is slid: "tap" (on it) or "swipe" (from it towards the gap)."""
        return self.skin.slide if self.skin is not None else "tap"

    def tap(self, x: int, y: int) -> None:
        if inside(self.buttons()["new"], x, y):
            self.new_deal()
            return
        if self.slide == "tap":
            self._slide(self.cell_at(x, y))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        """A swipe from a tile towards the gap slides it in (the app of a swiping skin only)."""
        cell = self.cell_at(x1, y1)
        if self.slide != "swipe" or cell is None:
            return
        dx, dy = x2 - x1, y2 - y1
        n = self.width
        step = (1 if dx > 0 else -1) if abs(dx) > abs(dy) else (n if dy > 0 else -n)
        if self.board.blank == cell + step and (abs(step) == n or (cell + step) // n == cell // n):
            self._slide(cell)

    def _slide(self, cell: int | None) -> None:
        if cell is None or self.board.is_won() or self.board.tiles[cell] not in self.board.legal_moves():
            return
        gap = self.board.blank
        self.board.push(self.board.tiles[cell])
        self.moves += 1
        if self.glide > 0:
            tile = self.board.tiles[gap]  # (a tile slid again mid-glide starts again, as Tile.move does)
            self._glides = [glide for glide in self._glides if glide[3] != tile] + [(self.clock(), cell, gap, tile)]
            self.animated_s += self.glide

    def cell_at(self, x: int, y: int) -> int | None:
        """The cell under a finger at (x, y), None off the board."""
        return next((cell for cell, rect in self.cell_rects().items() if inside(rect, x, y)), None)

    def _gliding(self, now: float | None = None) -> list[tuple[int, int, int, float]]:
        """The slides playing now: (from cell, to cell, tile, progress 0-1) each."""
        self._glides, gliding = draw.under_way(self._glides, self.clock() if now is None else now, self.glide)
        return gliding

    def motion(self, now: float | None = None) -> str | None:
        """The animation playing now (a name from ANIMATIONS), None when the screen is still."""
        return "tile" if self._gliding(now) else None

    def moving_cells(self, now: float | None = None) -> set[int]:
        """The cells a tile is gliding from or into now."""
        return {cell for source, target, _, _ in self._gliding(now) for cell in (source, target)}

    def landed(self, x: int, y: int) -> str:
        """What a tap at (x, y) lands on (phonesim.app.TAP_TARGETS). On a swiping skin a tap on a
        tile that can slide is still on a live tile: the app only wants it dragged, which a player
        learns by trying. A tap on a cell a tile glides from or into lands on a moving tile; on
        another, as on a still board (see the module's docstring)."""
        if inside(self.buttons()["new"], x, y):
            return "button"
        cell = self.cell_at(x, y)
        if cell is None:
            return "nothing"
        if cell in self.moving_cells():
            return "animating"
        tile = self.board.tiles[cell]
        if self.board.is_won():
            return "nothing"
        return "empty" if tile == 0 else "live" if tile in self.board.legal_moves() else "nothing"

    # -- geometry --------------------------------------------------------------------------

    def frame_rect(self) -> list[int]:
        """The board's frame (x, y, w, h)."""
        u = self.unit
        if self.skin is None:
            side = round(9 * u)
            return [round(0.5 * u), round(self.preset.status_bar + 3.2 * u), side, side]
        k = self.skin
        tw, th, space, pad = self._tile_size()
        w = self.width * tw + (self.width - 1) * space + 2 * pad
        h = self.width * th + (self.width - 1) * space + 2 * pad
        return [(self.preset.width - w) // 2, round(self.preset.status_bar + (2.6 if k.header else 1.6) * u), w, h]

    def _tile_size(self) -> tuple[int, int, int, int]:
        """A skin's tile width and height, the space between tiles and the frame's padding: the
        board as wide as the skin says, shrunk to fit between the header and the buttons."""
        k, u, n = self.skin, self.unit, self.width
        H = self.preset.height
        room = H - self.preset.status_bar - (2.6 if k.header else 1.6) * u - (3.2 if k.buttons else 2.6) * u
        ratio = k.spacing or 0.015
        tw = k.share * self.preset.width / (n + (n - 1) * ratio + (2 * ratio if k.frame else 0))
        tw = min(tw, room / (n * k.tall + (n - 1) * ratio + (2 * ratio if k.frame else 0)))
        space = max(1, round(ratio * tw))
        return int(tw), int(tw * k.tall), space, space if k.frame or not k.spacing else 0

    def cell_rects(self) -> dict[int, list[int]]:
        """Each cell's rectangle on screen (tiles look: the tile's face; grid look: between lines)."""
        x0, y0, side, _ = self.frame_rect()
        n = self.width
        if self.skin is not None:
            tw, th, space, pad = self._tile_size()
            return {r * n + c: [x0 + pad + c * (tw + space), y0 + pad + r * (th + space), tw, th]
                    for r in range(n) for c in range(n)}
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
        x0, y0, side, height = self.frame_rect()
        bw, bh = round(3.2 * u), round(1.1 * u)
        below = y0 + height + round(1.7 * u)
        if self.skin is not None and self.skin.buttons:  # a row of three: only "New" deals a board
            bw = round(2.6 * u)
            return {"menu": [W // 2 - round(1.5 * bw), below, bw - round(0.2 * u), bh],
                    "new": [W // 2 - bw // 2, below, bw - round(0.2 * u), bh],
                    "undo": [W // 2 + bw // 2, below, bw - round(0.2 * u), bh]}
        return {"new": [(W - bw) // 2, below, bw, bh]}

    def truth(self) -> dict:
        return {
            "game": "fifteen", "preset": self.preset.name, "theme": self.theme.name, "look": self.look,
            "skin": None if self.skin is None else self.skin.seed, "slide": self.slide,
            "screen": "stage_complete" if self.board.is_won() else "board", "board": self.board.to_json(),
            "moves": self.moves, "cells": {str(k): v for k, v in self.cell_rects().items()},
            "buttons": self.buttons(),
        }

    # -- drawing ---------------------------------------------------------------------------

    def render(self) -> np.ndarray:
        if self.skin is not None:
            return self._render_skin()
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
        arriving = {target for _, target, _, _ in gliding}  # their cells show the gap until the tiles arrive
        for cell, (x, y, w, h) in rects.items():
            self._draw_cell(screen, x, y, w, h, 0 if cell in arriving else self.board.tiles[cell], family)
        for source, target, tile, progress in gliding:  # each tile drawn between its cells, over both shown empty
            (ax, ay, _, _), (zx, zy, w, h) = rects[source], rects[target]
            self._draw_cell(screen, round(ax + (zx - ax) * progress), round(ay + (zy - ay) * progress), w, h,
                            tile, family)
        size = cap_size(family, 0.34 * u)
        words = f"Solved in {self.moves} moves!" if self.board.is_won() else f"Moves: {self.moves}"
        draw.put_text_centered(screen, family, "regular", size, words, W // 2, y0 + side + round(0.8 * u), text)
        bx, by, bw, bh = self.buttons()["new"]
        draw.put_rounded_rect(screen, bx, by, bw, bh, max(3, round(0.1 * u)), t.rgb("key"))
        draw.put_text_centered(screen, family, "medium", size, "New game", bx + bw // 2, by + bh // 2,
                               t.rgb("key_text"))
        return screen

    def _render_skin(self) -> np.ndarray:
        """The screen in the app's skin: header, frame, tiles, gap, moves, buttons."""
        k, u, W, family = self.skin, self.unit, self.preset.width, self.preset.font
        screen = draw.blank(self.preset, self.theme, k.background)
        text = (20, 20, 24) if luminance(k.background) > 128 else (235, 235, 240)
        sb = self.preset.status_bar
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.45 * u), "Fifteen", W // 2, sb + round(0.8 * u),
                               text)
        size = cap_size(family, 0.32 * u)
        if k.header:  # moves and a timer that ticks on its own
            seconds = int(max(0.0, self.clock() - self.started))
            draw.put_text(screen, family, "medium", size, f"Moves {self.moves}", round(0.6 * u), sb + round(1.9 * u),
                          text)
            draw.put_text(screen, family, "medium", size, f"Time {seconds // 60}:{seconds % 60:02d}",
                          W - round(0.6 * u), sb + round(1.9 * u), text, align="right")
        x0, y0, bw, bh = self.frame_rect()
        tw, th, space, _ = self._tile_size()
        if not k.spacing:  # touching tiles: the lines between them are the board's backing
            draw.fill_rect(screen, x0, y0, bw, bh, k.line)
        elif k.frame is not None:
            draw.put_rounded_rect(screen, x0, y0, bw, bh, round(min(bw, bh) * 0.02), k.frame)
        rects, gliding = self.cell_rects(), self._gliding()
        arriving = {target for _, target, _, _ in gliding}  # their cells show the gap until the tiles arrive
        for cell, (x, y, w, h) in rects.items():
            self._draw_skin_cell(screen, x, y, w, h, 0 if cell in arriving else self.board.tiles[cell], cell)
        for source, target, tile, progress in gliding:
            (ax, ay, _, _), (zx, zy, w, h) = rects[source], rects[target]
            self._draw_skin_cell(screen, round(ax + (zx - ax) * progress), round(ay + (zy - ay) * progress), w, h,
                                 tile, target, moving=True)
        if self.board.is_won() or not k.header:
            words = f"Solved in {self.moves} moves!" if self.board.is_won() else f"Moves: {self.moves}"
            draw.put_text_centered(screen, family, "regular", size, words, W // 2, y0 + bh + round(0.8 * u), text)
        key = (228, 230, 235) if luminance(k.background) > 128 else (58, 60, 68)
        key_text = (20, 20, 24) if luminance(key) > 128 else (235, 235, 240)
        for name, (bx, by, w, h) in self.buttons().items():
            draw.put_rounded_rect(screen, bx, by, w, h, max(3, round(0.1 * u)), key)
            draw.put_text_centered(screen, family, "medium", size, {"new": "New game" if len(self.buttons()) == 1
                                                                    else "New"}.get(name, name.capitalize()),
                                   bx + w // 2, by + h // 2, key_text)
        return screen

    def _draw_skin_cell(self, screen, x: int, y: int, w: int, h: int, tile: int, cell: int,
                        moving: bool = False) -> None:
        """One cell in the skin: a tile with its number, or the gap (a hole, a filled cell, a blank tile)."""
        k = self.skin
        radius = round(k.radius * w)
        if tile == 0:
            if moving or k.gap == "hole":
                colour = k.line if not k.spacing else k.frame if k.frame is not None else k.background
                draw.fill_rect(screen, x, y, w, h, colour)
            else:
                draw.put_rounded_rect(screen, x, y, w, h, radius, k.gap_colour)
            return
        draw.put_rounded_rect(screen, x, y, w, h, radius, k.face(tile, cell) if not moving else k.faces[tile])
        # as large as the skin says, but two digits fit the tile's width, as apps keep them
        draw.put_text_centered(screen, k.family, k.weight, cap_size(k.family, min(k.digit_size * h, 0.42 * w)), str(tile),
                               x + w // 2, y + h // 2, k.ink(tile, cell))

    # -- options and fixtures ----------------------------------------------------------------

    OPTIONS = {"look": "tiles", "width": None, "slides": 0, "skin": None}
    FIXTURES = """15-puzzle states, per look (`tiles`: rounded tiles on a frame; `grid`: cells between lines, the
gap shaded): `fresh`, `midgame` (seven slides tapped), `solved` (the last slide tapped: "Solved in
N moves!", screen `stage_complete`). The 1440x3200 phone shows the 3x3 size, the tablet the 5x5."""

    @classmethod
    def create(cls, preset, seed: int, theme: str, options: dict) -> "FifteenApp":
        look, width, slides, skin = options["look"], options["width"], options["slides"], options["skin"]
        choose("look", look, LOOK_NAMES)
        if width is not None:
            choose("width", width, WIDTHS)
        if not isinstance(slides, int) or not 0 <= slides <= 10_000:
            raise AppOptionError(f"slides must be 0 to 10000, not {slides!r}")
        if skin is not None and (not isinstance(skin, int) or not 0 <= skin <= MAX_SKIN):
            raise AppOptionError(f"skin must be a seed from 0 to {MAX_SKIN}, not {skin!r}")
        return cls(preset, seed=seed, theme=theme, look=look, width=width, slides=slides, skin=skin)

    @classmethod
    def add_options(cls, parser, types) -> None:
        o = cls.OPTIONS
        parser.add_argument("--look", choices=LOOK_NAMES, default=o["look"], help="15-puzzle look")
        parser.add_argument("--width", type=int, choices=WIDTHS, default=o["width"],
                            help="15-puzzle tiles a side (default 4, or the skin's own)")
        parser.add_argument("--slides", type=types.non_negative_int, default=o["slides"],
                            help="15-puzzle: scramble the goal by this many slides (default 0: a random board)")
        parser.add_argument("--skin", type=types.non_negative_int, default=o["skin"], metavar="SEED",
                            help="15-puzzle: an app look drawn from this seed (palette, tiles, gap, digits, "
                                 "header, board size, tap or swipe; default: the plain --look)")

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
