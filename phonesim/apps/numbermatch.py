"""The Number Match app of the virtual phone: draws the board like the real game and plays taps.

The rules are ``solver.numbermatch.Board``'s; this module only decides what a tap means (select,
cross out, move the selection, add) and draws the screens: the board, stage complete, game over
and the interstitial "ad".
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from phonesim.apps import draw
from phonesim.phone import Preset
from solver.numbermatch import Add, Board, Pair, Rules

COLUMNS = 9
BACK_KEYS = {"4", "KEYCODE_BACK", "BACK"}


@dataclass(frozen=True)
class Layout:
    """Where everything sits on one preset's screen, in pixels (measured off the real game,
    in units of the cell: about 112 px on a 1080-wide phone)."""

    width: int
    height: int
    status_bar: int
    cell: int
    line: int  # grid line thickness
    border: int  # border thickness
    grid_x: int  # left border's centre; column k spans grid_x + k*cell .. + cell
    grid_top: int  # top border's centre; screen row k spans grid_top + k*cell .. + cell
    fade_start: int
    fade_end: int
    rows_fit: int  # whole rows between the top border and the fade
    toolbar_y: int
    score_y: int
    label_y: int
    value_y: int
    add_center: tuple[int, int]
    hint_center: tuple[int, int]
    button_radius: int

    @classmethod
    def of(cls, preset: Preset) -> "Layout":
        W, H, sb = preset.width, preset.height, preset.status_bar
        # phones are tall enough for the width to set the cell; a tablet's height sets it
        cell = round(W * 0.104) if H / W >= 2 else round(H * 0.045)
        grid_x = (W - COLUMNS * cell) // 2
        grid_top = sb + round(2.6 * cell)
        button_y = H - round(3.2 * cell)
        fade_end = button_y - round(1.45 * cell)
        fade_start = fade_end - round(0.42 * cell)
        return cls(
            width=W, height=H, status_bar=sb, cell=cell,
            line=max(1, round(cell / 40)), border=max(2, round(cell / 24)),
            grid_x=grid_x, grid_top=grid_top, fade_start=fade_start, fade_end=fade_end,
            rows_fit=(fade_start - grid_top) // cell,
            toolbar_y=sb + round(0.28 * cell), score_y=grid_top - round(1.25 * cell),
            label_y=grid_top - round(0.6 * cell), value_y=grid_top - round(0.31 * cell),
            add_center=(W // 2, button_y), hint_center=(W // 2 + 2 * cell, button_y),
            button_radius=round(0.54 * cell),
        )

    def cell_rect(self, screen_row: int, column: int) -> list[int]:
        return [self.grid_x + column * self.cell, self.grid_top + screen_row * self.cell, self.cell, self.cell]

    def button_rect(self, center) -> list[int]:
        r = self.button_radius
        return [center[0] - r, center[1] - r, 2 * r, 2 * r]


def cap_size(family: str, cap_height: float) -> int:
    """The font size whose digits are ``cap_height`` pixels tall."""
    m = draw.text_mask(family, "regular", 200, "8")
    return max(6, round(200 * cap_height / m.height))


def start_cells(seed: int, stage: int, size: int) -> list[int]:
    """A stage's start board, derived from the seed; redrawn until it has a pair to play."""
    rng = random.Random(f"numbermatch:{seed}:{stage}")
    while True:
        cells = [rng.randint(1, 9) for _ in range(size)]
        if any(Board(cells).pairs()):
            return cells


class NumberMatchApp:
    """Number Match on the virtual phone. ``board`` is the live game; tests may set it."""

    def __init__(self, preset: Preset, *, seed: int = 0, theme: str = "light", size: int = 27,
                 adds: int = 5, add_rule: str = "cell", ads: bool = False):
        self.preset = preset
        self.theme = draw.THEMES[theme]
        self.seed, self.size, self.ads = seed, size, ads
        self.rules = Rules(columns=COLUMNS, adds=adds, add_after=add_rule)
        self.layout = Layout.of(preset)
        self.best = random.Random(f"best:{seed}").randint(1000, 9999)
        self.clock = "12:30"
        self.screen = "board"
        self.first_row = 0
        self.selected: int | None = None
        self.hinted: tuple[int, int] | None = None
        self.new_game()
        self._static: dict[str, np.ndarray] = {}
        self._tiles: dict[tuple[int, str], np.ndarray] = {}
        L, family = self.layout, preset.font
        self.digit_size = cap_size(family, 0.59 * L.cell)

    # -- the game --------------------------------------------------------------------------

    def new_game(self) -> None:
        self.start_stage(1, score=0)

    @property
    def board(self) -> Board:
        return self._board

    @board.setter
    def board(self, board: Board) -> None:
        """Put a board on screen; crossed-out cells of unknown value get a stand-in faded digit."""
        self._board = board
        self.ghost = [v or 1 + (7 * k) % 9 for k, v in enumerate(board.cells)]
        self.selected, self.hinted = None, None
        self.scroll(0)

    def start_stage(self, stage: int, score: int) -> None:
        self.first_row = 0
        self.board = Board(start_cells(self.seed, stage, self.size), self.rules.adds, score=score,
                           stage=stage, rules=self.rules)
        self.screen = "board"

    def _after_move(self) -> None:
        self.selected, self.hinted = None, None
        self.best = max(self.best, self.board.score)
        self.scroll(0)
        self.check_end()

    def check_end(self) -> None:
        """Show stage complete when the board is cleared, game over when nothing can be played."""
        if self.board.is_cleared():
            self.screen = "stage_complete"
        elif not any(self.board.pairs()) and not self.board.can_add():
            self.screen = "game_over"

    def tap_cell(self, index: int) -> None:
        """What tapping cell ``index`` does: select, cross out a pair, move or drop the selection."""
        board = self.board
        if not board.cells[index]:
            return  # a crossed-out cell does nothing
        self.hinted = None
        if self.selected is None:
            self.selected = index
        elif self.selected == index:
            self.selected = None
        else:
            i, j = sorted((self.selected, index))
            if board.is_pair(i, j):
                # the digits stay on screen, faded, until their row goes: follow the rows removed
                crossed = board.copy()
                crossed.cells[i] = crossed.cells[j] = 0
                for r in crossed.emptied_rows(i, j):
                    del self.ghost[r * COLUMNS:(r + 1) * COLUMNS]
                board.push(Pair(i, j))
                self._after_move()
            else:
                self.selected = index

    def press_add(self) -> None:
        if self.board.can_add():
            self.board.push(Add())
            cells = self.board.cells
            self.ghost = [cells[k] or (self.ghost[k] if k < len(self.ghost) else 0) for k in range(len(cells))]
            self._after_move()

    def press_hint(self) -> None:
        self.hinted = next(((p.i, p.j) for p in self.board.pairs()), None)

    def scroll(self, rows: int) -> None:
        """Scroll the board by ``rows`` (positive shows later rows), kept inside the board."""
        top = max(0, self.board.rows - self.layout.rows_fit)
        self.first_row = min(max(self.first_row + rows, 0), top)

    # -- the phone's events ----------------------------------------------------------------

    def visible_cells(self) -> dict[int, list[int]]:
        """Screen rect of every board cell on screen, by index."""
        L, n = self.layout, len(self.board.cells)
        out = {}
        for k in range(L.rows_fit):
            for c in range(COLUMNS):
                index = (self.first_row + k) * COLUMNS + c
                if index < n:
                    out[index] = L.cell_rect(k, c)
        return out

    def cell_at(self, x: int, y: int) -> int | None:
        L = self.layout
        if not (L.grid_x <= x < L.grid_x + COLUMNS * L.cell and L.grid_top <= y < L.grid_top + L.rows_fit * L.cell):
            return None
        index = (self.first_row + (y - L.grid_top) // L.cell) * COLUMNS + (x - L.grid_x) // L.cell
        return index if index < len(self.board.cells) else None

    @staticmethod
    def _inside(rect, x, y) -> bool:
        return rect is not None and rect[0] <= x < rect[0] + rect[2] and rect[1] <= y < rect[1] + rect[3]

    def tap(self, x: int, y: int) -> None:
        if self.screen == "board":
            L = self.layout
            index = self.cell_at(x, y)
            if index is not None:
                self.tap_cell(index)
            elif self._inside(L.button_rect(L.add_center), x, y):
                self.press_add()
            elif self._inside(L.button_rect(L.hint_center), x, y):
                self.press_hint()
            return
        buttons = self.buttons()
        if self.screen == "stage_complete" and self._inside(buttons["continue"], x, y):
            if self.ads:
                self.screen = "ad"
            else:
                self.start_stage(self.board.stage + 1, self.board.score)
        elif self.screen == "ad" and self._inside(buttons["close"], x, y):
            self.start_stage(self.board.stage + 1, self.board.score)
        elif self.screen == "game_over" and self._inside(buttons["new_game"], x, y):
            self.new_game()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        """A vertical swipe scrolls the board: the finger moving up shows later rows."""
        if self.screen != "board" or abs(y1 - y2) < abs(x1 - x2):
            return
        self.scroll(round((y1 - y2) / self.layout.cell))

    def keyevent(self, key: str) -> None:
        if self.screen == "ad" and str(key).upper() in BACK_KEYS:
            self.start_stage(self.board.stage + 1, self.board.score)

    # -- what is on screen -----------------------------------------------------------------

    def buttons(self) -> dict[str, list[int]]:
        L = self.layout
        W, H, c = L.width, L.height, L.cell
        if self.screen in ("stage_complete", "game_over"):
            bw, bh = round(5.5 * c), round(1.05 * c)
            name = "continue" if self.screen == "stage_complete" else "new_game"
            return {name: [(W - bw) // 2, round(H * 0.72), bw, bh]}
        if self.screen == "ad":
            r = round(0.4 * c)
            return {"close": [W - round(0.35 * c) - 2 * r, L.status_bar + round(0.35 * c), 2 * r, 2 * r]}
        return {}

    def truth(self) -> dict:
        L = self.layout
        on_board = self.screen == "board"
        cells = self.visible_cells() if on_board else {}
        shown = len({(i // COLUMNS) for i in cells})
        return {
            "game": "numbermatch", "preset": self.preset.name, "theme": self.theme.name,
            "screen": self.screen, "board": self.board.to_json(),
            "first_row": self.first_row, "rows_visible": shown,
            "more_above": on_board and self.first_row > 0,
            "more_below": on_board and self.first_row + L.rows_fit < self.board.rows,
            "cells": {str(i): r for i, r in cells.items()},
            "selected": self.selected if on_board else None,
            "add_button": L.button_rect(L.add_center) if on_board else None,
            "hint_button": L.button_rect(L.hint_center) if on_board else None,
            "buttons": self.buttons(),
        }

    # -- drawing ---------------------------------------------------------------------------

    def render(self) -> np.ndarray:
        if self.screen == "board":
            return self._render_board()
        if self.screen == "ad":
            return self._render_ad()
        return self._render_message()

    def _blank(self) -> np.ndarray:
        L, t = self.layout, self.theme
        screen = np.empty((L.height, L.width, 3), np.uint8)
        screen[...] = t.rgb("background")
        draw.status_bar(screen, self.preset, t, self.clock)
        return screen

    def _board_static(self) -> np.ndarray:
        """Everything on the board screen that no move changes, drawn once."""
        if "board" in self._static:
            return self._static["board"]
        L, t, family = self.layout, self.theme, self.preset.font
        c = L.cell
        screen = self._blank()
        accent = t.rgb("accent")
        # toolbar: back arrow and settings gear
        s = round(0.36 * c)
        arrow = draw.polyline_mask(s, s, [(s * 0.7, s * 0.1), (s * 0.25, s * 0.5), (s * 0.7, s * 0.9)], c * 0.045)
        draw.blend(screen, round(0.3 * c), L.toolbar_y - s // 2, arrow, accent)
        self._gear(screen, L.width - round(0.5 * c), L.toolbar_y, round(0.19 * c), accent)
        # header labels
        label = cap_size(family, 0.18 * c)
        muted = t.rgb("muted")
        right = L.grid_x + COLUMNS * c
        draw.put_text(screen, family, "regular", label, "Stage", L.grid_x, L.label_y, muted, valign="middle")
        draw.put_text(screen, family, "regular", label, "This Month", right, L.label_y, muted,
                      align="right", valign="middle")
        # the grid: lattice, then the border on the left, right and top, then the fade
        top, bottom = L.grid_top, L.fade_end
        grid, border = t.rgb("grid"), t.rgb("border")
        for k in range(1, COLUMNS):
            x = L.grid_x + k * c - L.line // 2
            draw.fill_rect(screen, x, top, L.line, bottom - top, grid)
        y = top + c
        while y < bottom:
            draw.fill_rect(screen, L.grid_x, y - L.line // 2, COLUMNS * c, L.line, grid)
            y += c
        b = L.border
        draw.fill_rect(screen, L.grid_x - b // 2, top - b // 2, COLUMNS * c + b, b, border)
        draw.fill_rect(screen, L.grid_x - b // 2, top, b, bottom - top, border)
        draw.fill_rect(screen, right - b // 2, top, b, bottom - top, border)
        region = screen[L.fade_start:L.fade_end].astype(np.float32)
        fade = np.linspace(0, 1, L.fade_end - L.fade_start, dtype=np.float32)[:, None, None]
        screen[L.fade_start:L.fade_end] = np.round(region * (1 - fade) + np.float32(t.rgb("background")) * fade)
        # the "+" and hint buttons (the adds badge is drawn per frame)
        r = L.button_radius
        for center in (L.add_center, L.hint_center):
            draw.put_circle(screen, center[0], center[1], r, t.rgb("button"))
        ax, ay = L.add_center
        arm = round(0.27 * c)
        plus = draw.polyline_mask(2 * arm, 2 * arm, [(arm, 0), (arm, 2 * arm)], 0.045 * c)
        draw.blend(screen, ax - arm, ay - arm, np.maximum(plus, plus.T), accent)
        self._bulb(screen, *L.hint_center, c, accent)
        hx, hy = L.hint_center
        bx, by, br = hx + round(0.45 * c), hy - round(0.37 * c), round(0.2 * c)
        draw.put_rounded_rect(screen, bx - br, by - br, round(3.2 * br), 2 * br, br, t.rgb("badge"))
        draw.put_circle(screen, bx, by, round(0.8 * br), (240, 180, 40))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.15 * c), "3",
                               bx + round(1.35 * br), by, t.rgb("badge_text"))
        screen.setflags(write=False)
        self._static["board"] = screen
        return screen

    def _gear(self, screen, cx, cy, r, color) -> None:
        size = 2 * r + 4
        teeth = []
        for k in range(8):
            a = k * np.pi / 4
            teeth.append([(size / 2 + r * 0.75 * np.cos(a), size / 2 + r * 0.75 * np.sin(a)),
                          (size / 2 + r * np.cos(a), size / 2 + r * np.sin(a))])
        mask = np.zeros((size, size), np.uint8)
        for pts in teeth:
            mask = np.maximum(mask, draw.polyline_mask(size, size, pts, r * 0.35))
        ring = draw.polyline_mask(size, size, [(size / 2 + r * 0.62 * np.cos(a), size / 2 + r * 0.62 * np.sin(a))
                                              for a in np.linspace(0, 2 * np.pi, 40)], r * 0.22, closed=True)
        hole = draw.polyline_mask(size, size, [(size / 2 + r * 0.25 * np.cos(a), size / 2 + r * 0.25 * np.sin(a))
                                              for a in np.linspace(0, 2 * np.pi, 24)], r * 0.16, closed=True)
        draw.blend(screen, cx - size // 2, cy - size // 2, np.maximum(np.maximum(mask, ring), hole), color)

    def _bulb(self, screen, cx, cy, c, color) -> None:
        size = round(0.5 * c)
        r = size * 0.28
        pts = [(size / 2 + r * np.cos(a), size * 0.38 + r * np.sin(a)) for a in np.linspace(0.75 * np.pi, 2.25 * np.pi, 30)]
        pts += [(size / 2 + r * 0.45, size * 0.78), (size / 2 - r * 0.45, size * 0.78), pts[0]]
        mask = draw.polyline_mask(size, size, pts, c * 0.035)
        foot = draw.polyline_mask(size, size, [(size / 2 - r * 0.4, size * 0.92), (size / 2 + r * 0.4, size * 0.92)], c * 0.035)
        draw.blend(screen, cx - size // 2, cy - size // 2, np.maximum(mask, foot), color)

    def _tile(self, value: int, state: str) -> np.ndarray:
        """A cell's inside (between its lines) with its digit: live, crossed, selected or hinted."""
        key = (value, state)
        tile = self._tiles.get(key)
        if tile is None:
            L, t = self.layout, self.theme
            inner = L.cell - 2 * L.border
            fill = {"selected": "selected", "hint": "hint"}.get(state, "background")
            tile = np.empty((inner, inner, 3), np.uint8)
            tile[...] = t.rgb(fill)
            if value:
                m = draw.text_mask(self.preset.font, "regular", self.digit_size, str(value))
                color = t.rgb("crossed" if state == "crossed" else "text")
                draw.blend(tile, round((inner - m.width) / 2), round((inner - m.height) / 2), m.alpha, color)
            self._tiles[key] = tile
        return tile

    def _render_board(self) -> np.ndarray:
        L, t, family, board = self.layout, self.theme, self.preset.font, self.board
        c = L.cell
        screen = self._board_static().copy()
        hinted = set(self.hinted or ())
        for index, (x, y, _, _) in self.visible_cells().items():
            value = board.cells[index]
            state = ("selected" if index == self.selected else "hint" if index in hinted
                     else "live" if value else "crossed")
            tile = self._tile(value or self.ghost[index], state)
            inner = tile.shape[0]
            screen[y + L.border:y + L.border + inner, x + L.border:x + L.border + inner] = tile
        text, muted = t.rgb("text"), t.rgb("muted")
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.27 * c), str(board.score),
                               L.width // 2, L.score_y, text)
        value = cap_size(family, 0.21 * c)
        draw.put_text(screen, family, "regular", value, str(board.stage), L.grid_x, L.value_y, muted, valign="middle")
        draw.put_text(screen, family, "regular", value, f"{self.best:,}", L.grid_x + COLUMNS * c, L.value_y, muted,
                      align="right", valign="middle")
        if board.adds_left:
            ax, ay = L.add_center
            bx, by, br = ax + round(0.45 * c), ay - round(0.37 * c), round(0.2 * c)
            draw.put_circle(screen, bx, by, br, t.rgb("badge"))
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.15 * c), str(board.adds_left),
                                   bx, by, t.rgb("badge_text"))
        return screen

    def _render_message(self) -> np.ndarray:
        """The stage-complete and game-over screens."""
        L, t, family = self.layout, self.theme, self.preset.font
        c, W = L.cell, L.width
        screen = self._blank()
        won = self.screen == "stage_complete"
        title = "Well done!" if won else "No more moves"
        sub = f"Stage {self.board.stage} complete" if won else f"Stage {self.board.stage}"
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.45 * c), title, W // 2, round(L.height * 0.3), t.rgb("text"))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.24 * c), sub, W // 2, round(L.height * 0.3 + 1.0 * c), t.rgb("muted"))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.2 * c), "Score", W // 2, round(L.height * 0.45), t.rgb("muted"))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.4 * c), f"{self.board.score:,}", W // 2, round(L.height * 0.45 + 0.8 * c), t.rgb("text"))
        (name, (x, y, w, h)), = self.buttons().items()
        draw.put_rounded_rect(screen, x, y, w, h, h // 2, t.rgb("badge"))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.24 * c), "Continue" if won else "New game",
                               x + w // 2, y + h // 2, t.rgb("badge_text"))
        return screen

    def _render_ad(self) -> np.ndarray:
        L, family = self.layout, self.preset.font
        c, W, H = L.cell, L.width, L.height
        screen = np.empty((H, W, 3), np.uint8)
        screen[...] = (32, 36, 48)
        draw.status_bar(screen, self.preset, draw.THEMES["dark"], self.clock)
        draw.put_rounded_rect(screen, c, round(H * 0.25), W - 2 * c, round(H * 0.35), round(0.3 * c), (250, 170, 40))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.6 * c), "SUPER GAME", W // 2, round(H * 0.38), (255, 255, 255))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.25 * c), "Install now - it's free", W // 2, round(H * 0.47), (40, 30, 20))
        draw.put_text(screen, family, "regular", cap_size(family, 0.16 * c), "Ad", round(0.3 * c), L.status_bar + round(0.55 * c), (200, 200, 200), valign="middle")
        x, y, w, h = self.buttons()["close"]
        draw.put_circle(screen, x + w // 2, y + h // 2, w // 2, (80, 84, 96))
        s = round(w * 0.4)
        cross = draw.polyline_mask(s, s, [(0, 0), (s, s)], max(2, w * 0.07))
        draw.blend(screen, x + (w - s) // 2, y + (h - s) // 2, np.maximum(cross, cross[:, ::-1]), (255, 255, 255))
        return screen
