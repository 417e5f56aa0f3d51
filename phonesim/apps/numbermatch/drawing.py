"""Number Match's pixels: the board screen at any moment of its animations, stage complete and game over."""

from __future__ import annotations

import cv2
import numpy as np

from phonesim.app import Preset
from phonesim.apps import draw
from phonesim.apps.draw import Theme, cap_size
from phonesim.apps.numbermatch.layout import COLUMNS, Layout
from solver.numbermatch import Board

SEED_SQUARE = 0.3  # the selection's highlight starts as a square this part of the cell, and grows


class Painter:
    """Draws one app's screens (its preset, theme and coins), keeping what no move changes."""

    def __init__(self, preset: Preset, theme: Theme, layout: Layout, coins: int):
        self.preset, self.theme, self.layout, self.coins = preset, theme, layout, coins
        self._static: dict = {}  # what no move changes: the board screen's still part, the lattices, the tiles
        self._fade = np.linspace(0, 1, layout.fade_end - layout.fade_start, dtype=np.float32)[:, None, None]
        self._fade_to = self._fade * np.float32(theme.rgb("background"))
        self._message: tuple = (None, None)  # the last stage-complete or game-over screen drawn: (what it shows, it)
        self.digit_size = cap_size(preset.font, 0.59 * layout.cell)  # digits 0.59 of a cell tall

    def board(self, board: Board, shown, selected, hinted, lit: float, best: int, banner: bool, mix) -> np.ndarray:
        """The board screen: the game's ``board`` (score, stage, adds), the grid as ``shown`` now (the app's
        ``_frame_cells``), the ``selected`` cell's highlight ``lit`` 0..1, the ``hinted`` pair, a banner or not;
        a tile on its way between looks blended by the app's ``mix`` (``mix_tiles``, or a game's own blend)."""
        L, t, family = self.layout, self.theme, self.preset.font
        c = L.cell
        cells, ghost, offset, lift, written, pair, faded, vanish = shown
        screen = self._board_static(banner).copy()
        x0, y0, x1, y1 = L.grid_span()
        screen[y0:y1, x0:x1] = self._lattice(offset % c)
        hinted = set(hinted or ())
        n = min(len(cells), int(np.ceil(written)))
        for row in range(offset // c, -(-n // COLUMNS)):
            top = L.grid_top + row * c - offset - round(lift[row] if lift else 0) + L.border
            if top >= y1:
                break
            for col in range(COLUMNS):
                index = row * COLUMNS + col
                if index >= n:
                    break
                value = cells[index]
                state = ("selected" if index == selected else "hint" if index in hinted
                         else "live" if value else "crossed")
                tile = self._tile(value or ghost[index], state)
                if index in pair:
                    crossed = self._tile(value, "crossed")
                    tile = mix(self._tile(value, "live"), crossed, faded) if faded < 1 else crossed
                elif state == "selected" and lit < 1:
                    # the highlight grows out from a small square at the cell's centre
                    grown, inner = self._tile(value, "live").copy(), tile.shape[0]
                    margin = round(inner * (1 - SEED_SQUARE) * (1 - lit) / 2)
                    a, z = margin, inner - margin
                    grown[a:z, a:z] = tile[a:z, a:z]
                    tile = grown
                if index + 1 > written:  # being written in
                    tile = mix(self._tile(0, "live"), tile, written - index)
                if row in vanish:  # squashed towards its top edge as the rows below slide up
                    tall = max(1, round(tile.shape[0] * (1 - vanish[row])))
                    squashed = self._tile(0, "live").copy()
                    squashed[:tall] = cv2.resize(tile, (tile.shape[1], tall), interpolation=cv2.INTER_AREA)
                    tile = squashed
                inner = tile.shape[0]
                a, z = max(top, y0), min(top + inner, y1)  # rows cut by the top border or the fade's end
                if a < z:
                    x = L.grid_x + col * c + L.border
                    screen[a:z, x:x + inner] = tile[a - top:z - top]
        # the grid fades out towards the buttons, over whatever is drawn there
        region = screen[L.fade_start:L.fade_end, x0:x1].astype(np.float32)
        screen[L.fade_start:L.fade_end, x0:x1] = np.round(region * (1 - self._fade) + self._fade_to)
        text, muted = t.rgb("text"), t.rgb("muted")
        if L.style == "2022":
            size = cap_size(family, 0.36 * c)
            box = draw.put_text(screen, family, "bold", size, f"{board.score:,}", L.width // 2 + round(0.25 * c),
                                L.score_y, text, align="center", valign="middle")
            self._trophy(screen, box[0] - round(0.1 * c), box[1] + box[3], 0.4 * c, (240, 180, 40))
            draw.put_text(screen, family, "regular", cap_size(family, 0.17 * c), str(board.stage), L.grid_x,
                          L.value_y, muted, valign="middle")
        else:
            draw.put_text(screen, family, "bold", cap_size(family, 0.27 * c), f"{board.score:,}",
                          L.width // 2, L.score_y, text, align="center")
            value = cap_size(family, 0.19 * c)
            draw.put_text(screen, family, "regular", value, str(board.stage), L.grid_x, L.value_y, muted)
            box = draw.put_text(screen, family, "regular", value, f"{best:,}", L.grid_x + COLUMNS * c,
                                L.value_y, muted, align="right")
            self._trophy(screen, box[0] - round(0.06 * c), L.value_y, 0.19 * c, muted)
            # numbers cleared: the digits no longer on the board are faded
            present = set(board.cells)
            step = round(0.285 * c)
            for d in range(1, 10):
                draw.put_text(screen, family, "medium", value, str(d), L.width // 2 + (d - 5) * step, L.value_y,
                              t.rgb("header" if d in present else "crossed"), align="center")
        if board.adds_left:
            ax, ay = L.add_center
            R = L.button_radius
            bx, by, br = ax + round(0.83 * R), ay - round(0.69 * R), round(0.37 * R)
            draw.put_circle(screen, bx, by, br, t.rgb("badge"))
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.28 * R), str(board.adds_left),
                                   bx, by, t.rgb("badge_text"))
        return screen

    def message(self, kind: str, board: Board, banner: bool, under: np.ndarray | None, slide: float | None):
        """The stage-complete or game-over screen (``kind``; ``slide``: how far it has slid in over the
        board screen ``under``; None: in place)."""
        # those screens change only with the stage and score: keep the last one drawn
        key = (kind, board.stage, board.score)
        if self._message[0] != key:
            self._message = key, self._draw_message(kind, board, banner)
        message = self._message[1]
        if slide is not None:
            # the board as its last pair leaves it, the stage-complete sheet sliding up over it
            # (its top edge casts a shadow; a banner ad stays on top)
            frame, sb, H = under, self.layout.status_bar, self.layout.height
            shift = round((1 - slide) * (H - sb))
            frame[sb + shift:] = message[sb:H - shift]
            shadow = max(2, round(0.12 * self.layout.cell))
            edge = frame[max(sb, sb + shift - shadow):sb + shift]
            edge[...] = (edge * np.float32(0.8)).astype(np.uint8)
            if banner:
                x, y, w, h = self.layout.banner_rect()
                frame[y:y + h] = self._board_static(banner)[y:y + h]
            return frame
        return message.copy()

    def _draw_message(self, kind: str, board: Board, banner: bool) -> np.ndarray:
        """The stage-complete or game-over screen (``kind``), with a banner ad or not."""
        L, t, family = self.layout, self.theme, self.preset.font
        c, W = L.cell, L.width
        screen = draw.blank(self.preset, t)
        won = kind == "stage_complete"
        title = "Well done!" if won else "No more moves"
        sub = f"Stage {board.stage} complete" if won else f"Stage {board.stage}"
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.45 * c), title, W // 2, round(L.height * 0.3), t.rgb("text"))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.24 * c), sub, W // 2, round(L.height * 0.3 + 1.0 * c), t.rgb("muted"))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.2 * c), "Score", W // 2, round(L.height * 0.45), t.rgb("muted"))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.4 * c), f"{board.score:,}", W // 2, round(L.height * 0.45 + 0.8 * c), t.rgb("text"))
        x, y, w, h = L.message_button()
        draw.put_rounded_rect(screen, x, y, w, h, h // 2, t.rgb("badge"))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.24 * c), "Continue" if won else "New game",
                               x + w // 2, y + h // 2, t.rgb("badge_text"))
        if banner:
            self._banner(screen)
        return screen

    def _board_static(self, banner: bool) -> np.ndarray:
        """Everything on the board screen that no move changes, drawn once (with a banner ad or not)."""
        if ("board", banner) in self._static:
            return self._static["board", banner]
        L, t, family = self.layout, self.theme, self.preset.font
        c = L.cell
        screen = draw.blank(self.preset, t)
        accent = t.rgb("accent")
        if L.panel_top is not None:
            # a tablet shows the game on a card over a grey panel, with a soft shadow at its edge
            draw.fill_rect(screen, 0, L.panel_top, L.width, L.height - L.panel_top, t.rgb("panel"))
            shade = round(0.08 * c)
            for k in range(shade):
                mix = 0.25 * (1 - k / shade)
                row = np.float32(t.rgb("panel")) * (1 - mix) + np.float32((120, 130, 150)) * mix
                screen[L.panel_top + k] = np.round(row)
        if banner:
            self._banner(screen)
        # toolbar: back arrow, then coins (current) or the title (2022), settings gear
        k = 1.35 if L.style == "2022" else 1.0  # that build's icons are larger
        s = round(0.36 * c * k)
        arrow = draw.polyline_mask(s, s, [(s * 0.68, s * 0.08), (s * 0.25, s * 0.5), (s * 0.68, s * 0.92)], c * 0.04 * k)
        draw.blend(screen, round(0.32 * c), L.toolbar_y - s // 2, arrow, accent)
        self._gear(screen, L.width - round(0.54 * c * k), L.toolbar_y, round(0.22 * c * k), c * 0.032 * k, accent)
        label = cap_size(family, 0.16 * c)
        muted = t.rgb("muted")
        right = L.grid_x + COLUMNS * c
        if L.style == "2022":
            draw.put_text(screen, family, "medium", cap_size(family, 0.27 * c), "Number Match", L.width // 2,
                          L.toolbar_y, t.rgb("title"), align="center", valign="middle")
            draw.put_text(screen, family, "regular", cap_size(family, 0.14 * c), "Stage:", L.grid_x, L.label_y,
                          muted, valign="middle")
        else:
            pw, ph = round(1.34 * c), round(0.62 * c)
            px, py = L.width // 2 - pw // 2, L.toolbar_y - ph // 2
            draw.put_rounded_rect(screen, px - 2, py - 1, pw + 4, ph + 4, ph // 2 + 2, t.rgb("grid"))
            draw.put_rounded_rect(screen, px, py, pw, ph, ph // 2, t.rgb("background"))
            draw.put_coin(screen, px + round(0.28 * c), L.toolbar_y, round(0.19 * c))
            draw.put_text(screen, family, "medium", cap_size(family, 0.21 * c), str(self.coins),
                          px + round(0.53 * c), L.toolbar_y, t.rgb("text"), valign="middle")
            draw.put_text(screen, family, "regular", label, "Stage", L.grid_x, L.label_y, muted)
            draw.put_text(screen, family, "regular", label, "Numbers Cleared", L.width // 2, L.label_y, muted,
                          align="center")
            draw.put_text(screen, family, "regular", label, "This Month", right, L.label_y, muted, align="right")
        # the grid's top border; the lattice under it scrolls and is drawn per frame
        b = L.border
        draw.fill_rect(screen, L.grid_x - b // 2, L.grid_top - b // 2, COLUMNS * c + b, b, t.rgb("border"))
        # the "+" and hint buttons (the adds badge is drawn per frame)
        r = L.button_radius
        for center in (L.add_center, L.hint_center):
            draw.put_circle(screen, center[0], center[1], r, t.rgb("button"))
        ax, ay = L.add_center
        arm = round(0.5 * r)
        plus = draw.polyline_mask(2 * arm, 2 * arm, [(arm, 0), (arm, 2 * arm)], 0.083 * r)
        draw.blend(screen, ax - arm, ay - arm, np.maximum(plus, plus.T), accent)
        self._bulb(screen, *L.hint_center, round(r / 0.54), accent)
        if L.style != "2022":  # that build's hint button has no coin price
            hx, hy = L.hint_center
            bx, by, br = hx + round(0.45 * c), hy - round(0.37 * c), round(0.2 * c)
            draw.put_rounded_rect(screen, bx - br, by - br, round(3.2 * br), 2 * br, br, t.rgb("badge"))
            draw.put_coin(screen, bx, by, round(0.8 * br))
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.15 * c), "3",
                                   bx + round(1.35 * br), by, t.rgb("badge_text"))
        screen.setflags(write=False)
        self._static["board", banner] = screen
        return screen

    def _banner(self, screen) -> None:
        """A banner ad across the bottom of the screen, as free games show under the board."""
        x, y, w, h = self.layout.banner_rect()
        family = self.preset.font
        draw.fill_rect(screen, x, y, w, h, (236, 240, 246))
        draw.fill_rect(screen, x, y, w, max(1, h // 60), (200, 206, 216))
        tag = round(0.22 * h)
        draw.fill_rect(screen, x + 4, y + 4, round(1.4 * tag), tag, (250, 190, 40))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.4 * tag), "Ad",
                               x + 4 + round(0.7 * tag), y + 4 + tag // 2, (60, 40, 0))
        draw.put_text(screen, family, "medium", cap_size(family, 0.2 * h), "Solitaire Kings - play free",
                      x + round(0.5 * h), y + h // 2, (40, 50, 70), valign="middle")
        bw = round(1.6 * h)
        draw.put_rounded_rect(screen, x + w - bw - round(0.2 * h), y + round(0.22 * h), bw, round(0.56 * h),
                              round(0.28 * h), (26, 115, 232))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.17 * h), "INSTALL",
                               x + w - bw // 2 - round(0.2 * h), y + h // 2, (255, 255, 255))

    def _tile(self, value: int, state: str) -> np.ndarray:
        """A cell's inside (between its lines) with its digit: live, crossed, selected or hinted."""
        key = ("tile", value, state)
        tile = self._static.get(key)
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
            self._static[key] = tile
        return tile

    def _lattice(self, phase: int) -> np.ndarray:
        """The empty grid (lines and side borders) scrolled ``phase`` pixels into a row, cached."""
        key = ("lattice", phase)
        if key not in self._static:
            L, t, c = self.layout, self.theme, self.layout.cell
            x0, y0, x1, y1 = L.grid_span()
            lattice = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
            lattice[...] = t.rgb("background")
            grid = t.rgb("grid")
            for k in range(1, COLUMNS):
                draw.fill_rect(lattice, L.grid_x + k * c - L.line // 2 - x0, 0, L.line, y1 - y0, grid)
            for j in range(0, (y1 - y0) // c + 3):
                y = L.grid_top + j * c - phase - L.line // 2 - y0
                if -L.line < y < y1 - y0:
                    lattice[max(y, 0):y + L.line, L.grid_x - x0:L.grid_x + COLUMNS * c - x0] = grid
            b = L.border
            lattice[:, :b] = t.rgb("border")
            lattice[:, x1 - x0 - b:] = t.rgb("border")
            lattice.setflags(write=False)
            self._static[key] = lattice
        return self._static[key]

    def _gear(self, screen, cx, cy, r, stroke, color) -> None:
        """The settings gear: an outlined wheel of eight teeth around an outlined hole."""
        size = 2 * r + 4
        m = size / 2
        points = []
        for k in range(8):
            for da, radius in ((-0.2, 0.78), (-0.12, 1.0), (0.12, 1.0), (0.2, 0.78)):
                a = (k + 0.5 + da * 2) * np.pi / 4
                points.append((m + (r - stroke) * radius * np.cos(a), m + (r - stroke) * radius * np.sin(a)))
        wheel = draw.polyline_mask(size, size, points, stroke, closed=True)
        hole = draw.polyline_mask(size, size, [(m + r * 0.3 * np.cos(a), m + r * 0.3 * np.sin(a))
                                              for a in np.linspace(0, 2 * np.pi, 24)], stroke, closed=True)
        draw.blend(screen, cx - size // 2, cy - size // 2, np.maximum(wheel, hole), color)

    def _trophy(self, screen, right, baseline, height, color) -> None:
        """A small trophy whose right edge is at ``right``, standing on ``baseline``."""
        w = round(height * 0.9)
        h = round(height)
        mask = np.zeros((h, w), np.uint8)
        cup = draw.rounded_rect_mask(round(w * 0.64), round(h * 0.62), max(1, round(w * 0.3)))
        mask[:cup.shape[0], (w - cup.shape[1]) // 2:(w - cup.shape[1]) // 2 + cup.shape[1]] = cup
        handles = draw.polyline_mask(w, h, [(w * 0.22, h * 0.12), (w * 0.05, h * 0.15), (w * 0.08, h * 0.35),
                                            (w * 0.25, h * 0.42)], max(1, h * 0.1))
        mask = np.maximum(mask, np.maximum(handles, handles[:, ::-1]))
        mask[round(h * 0.6):round(h * 0.85), round(w * 0.44):round(w * 0.56)] = 255
        mask[round(h * 0.82):, round(w * 0.25):round(w * 0.75)] = 255
        draw.blend(screen, right - w, baseline - h, mask, color)

    def _bulb(self, screen, cx, cy, c, color) -> None:
        size = round(0.5 * c)
        r = size * 0.28
        pts = [(size / 2 + r * np.cos(a), size * 0.38 + r * np.sin(a)) for a in np.linspace(0.75 * np.pi, 2.25 * np.pi, 30)]
        pts += [(size / 2 + r * 0.45, size * 0.78), (size / 2 - r * 0.45, size * 0.78), pts[0]]
        mask = draw.polyline_mask(size, size, pts, c * 0.035)
        foot = draw.polyline_mask(size, size, [(size / 2 - r * 0.4, size * 0.92), (size / 2 + r * 0.4, size * 0.92)], c * 0.035)
        draw.blend(screen, cx - size // 2, cy - size // 2, np.maximum(mask, foot), color)


def mix_tiles(a: np.ndarray, b: np.ndarray, progress: float) -> np.ndarray:
    """A tile on its way from looking like ``a`` to looking like ``b``."""
    return np.round(a * np.float32(1 - progress) + b * np.float32(progress)).astype(np.uint8)
