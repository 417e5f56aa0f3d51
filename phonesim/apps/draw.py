"""Drawing on numpy screens: themes, fonts, cached text masks, shapes and the status bar.

Every app draws into an H x W x 3 uint8 RGB array. Text is rasterised once per (font, size,
text) by Pillow into an alpha mask and kept in a cache, so a re-render only blends small masks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from solver import platforms

# the games' fonts, as Linux's packages lay them out in its TrueType folder (scripts/setup installs
# fonts-roboto-unhinted and fonts-dejavu-core); elsewhere a file of that name among the system's
# installed fonts (``font_file``)
FONT_FILES = {
    ("roboto", "regular"): "roboto/unhinted/RobotoTTF/Roboto-Regular.ttf",
    ("roboto", "bold"): "roboto/unhinted/RobotoTTF/Roboto-Bold.ttf",
    ("roboto", "medium"): "roboto/unhinted/RobotoTTF/Roboto-Medium.ttf",
    ("dejavu", "regular"): "dejavu/DejaVuSans.ttf",
    ("dejavu", "bold"): "dejavu/DejaVuSans-Bold.ttf",
    ("dejavu", "medium"): "dejavu/DejaVuSans-Bold.ttf",
    # the thin and heavy weights the 15-puzzle's skins draw their digits in (the same packages)
    ("roboto", "thin"): "roboto/unhinted/RobotoTTF/Roboto-Thin.ttf",
    ("roboto", "light"): "roboto/unhinted/RobotoTTF/Roboto-Light.ttf",
    ("roboto", "black"): "roboto/unhinted/RobotoTTF/Roboto-Black.ttf",
    ("serif", "regular"): "dejavu/DejaVuSerif.ttf",
    ("serif", "bold"): "dejavu/DejaVuSerif-Bold.ttf",
}


def eased(progress: float) -> float:
    """How far an animation has got at ``progress`` (0-1) of its time: along Android's default
    curve (AccelerateDecelerateInterpolator), slow to start and slow to end, as real apps move."""
    return (1.0 - math.cos(math.pi * min(1.0, max(0.0, progress)))) / 2


def under_way(moves: list, now: float, seconds: float) -> tuple[list, list]:
    """Moves of ``seconds`` each, (start, from, to, what), still playing at ``now``: those kept,
    and each as (from, to, what, how far it has got, ``eased``)."""
    kept = [move for move in moves if now - move[0] < seconds]
    return kept, [(source, target, what, eased((now - start) / seconds)) for start, source, target, what in kept]


def hex_rgb(text: str) -> tuple[int, int, int]:
    return tuple(bytes.fromhex(text.lstrip("#")))


@dataclass(frozen=True)
class Theme:
    """The colours of one look (light or dark), as #RRGGBB."""

    name: str
    background: str
    text: str  # live digits, score
    muted: str  # labels such as "Stage"
    crossed: str  # crossed-out digits
    grid: str  # lines between cells
    border: str  # the grid's left, right and top border
    selected: str  # fill behind the selected cell
    hint: str  # fill behind a hinted pair
    button: str  # the round "+" and hint buttons
    accent: str  # glyphs on buttons, the back arrow, the gear
    badge: str  # the badge with the adds left
    badge_text: str
    status_text: str
    card: str  # Flip 9 card face
    card_edge: str
    key: str  # Flip 9 button face
    key_text: str
    header: str  # the "Numbers Cleared" digits
    panel: str  # the grey panel under a tablet's game card
    title: str  # the title bar's text (the 2022 build)

    def rgb(self, name: str) -> tuple[int, int, int]:
        return hex_rgb(vars(self)[name])


THEMES = {
    "light": Theme("light", background="#FFFFFF", text="#000000", muted="#868A95", crossed="#C8CDD6",
                   grid="#E3E6EB", border="#A6AEC1", selected="#CFE3FB", hint="#FFF1B8",
                   button="#F3F2F7", accent="#1E88F0", badge="#2E85EC", badge_text="#FFFFFF",
                   status_text="#1F1F1F", card="#FFFFFF", card_edge="#A6AEC1", key="#E4E6EB",
                   key_text="#000000", header="#252B41", panel="#DDE4EC", title="#44526A"),
    "dark": Theme("dark", background="#16181D", text="#ECEEF2", muted="#7D8494", crossed="#454B57",
                  grid="#2B2F37", border="#59627A", selected="#1F3D63", hint="#4D4322",
                  button="#262932", accent="#4EA1F5", badge="#2E85EC", badge_text="#FFFFFF",
                  status_text="#E8E8E8", card="#23262E", card_edge="#59627A", key="#30343E",
                  key_text="#ECEEF2", header="#C9CFDB", panel="#0B0C0F", title="#AEB8CA"),
}


@lru_cache(maxsize=None)
def font_file(family: str, weight: str) -> Path | None:
    """The family's font file among the system's installed fonts (``solver.platforms.font_folders``:
    laid out as Linux's packages lay it, or by its name alone, as Windows and macOS keep fonts);
    None when it has none."""
    laid_out = Path(FONT_FILES[(family, weight)])
    return next((path for folder in platforms.font_folders() for path in (folder / laid_out, folder / laid_out.name)
                 if path.is_file()), None)


@lru_cache(maxsize=None)
def font(family: str, weight: str, size: int) -> ImageFont.FreeTypeFont:
    """The family's font at ``size``; Pillow's own sans font where the system has not the family
    (Windows and macOS have neither Roboto nor DejaVu Sans unless installed): the games look a
    little different and play the same (tests/test_platforms.py plays a demo so)."""
    path = font_file(family, weight)
    return ImageFont.truetype(str(path), size) if path else ImageFont.load_default(size)


@dataclass(frozen=True)
class Mask:
    """A rasterised text: alpha 0-255 and its ink box relative to the pen at the baseline."""

    alpha: np.ndarray  # h x w uint8
    left: int  # ink box offset from the pen position (x) ...
    top: int  # ... and from the baseline (y, negative above it)
    advance: float  # how far the pen moves
    width: int  # the ink box's size (alpha's shape)
    height: int


@lru_cache(maxsize=4096)
def text_mask(family: str, weight: str, size: int, text: str) -> Mask:
    """The alpha mask of ``text`` (cached: the same label is rasterised once)."""
    f = font(family, weight, size)
    left, top, right, bottom = f.getbbox(text, anchor="ls")
    w, h = max(1, right - left), max(1, bottom - top)
    image = Image.new("L", (w, h), 0)
    ImageDraw.Draw(image).text((-left, -top), text, font=f, fill=255, anchor="ls")
    alpha = np.asarray(image, dtype=np.uint8)
    alpha.setflags(write=False)
    return Mask(alpha, left, top, f.getlength(text), w, h)


def blend(screen: np.ndarray, x: int, y: int, alpha: np.ndarray, color) -> None:
    """Paint ``color`` through ``alpha`` with its top-left corner at (x, y), clipped to the screen."""
    h, w = alpha.shape
    H, W = screen.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if x0 >= x1 or y0 >= y1:
        return
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x].astype(np.uint16)[..., None]
    region = screen[y0:y1, x0:x1]
    c = np.asarray(color, np.uint16)
    region[...] = ((region.astype(np.uint16) * (255 - a) + c * a + 127) // 255).astype(np.uint8)


def put_text(screen, family, weight, size, text, x, y, color, align="left", valign="baseline"):
    """Draw ``text`` at pen (x, y); align left/centre/right by advance, valign baseline or
    "middle" (ink centred on y). Returns the ink rect [x, y, w, h]."""
    m = text_mask(family, weight, size, text)
    if align == "center":
        x = x - m.advance / 2
    elif align == "right":
        x = x - m.advance
    if valign == "middle":
        y = y - (m.top + m.height / 2)
    left, top = int(round(x + m.left)), int(round(y + m.top))
    blend(screen, left, top, m.alpha, color)
    return [left, top, m.width, m.height]


def put_text_centered(screen, family, weight, size, text, cx, cy, color) -> None:
    """Draw ``text`` with its ink box centred on (cx, cy)."""
    m = text_mask(family, weight, size, text)
    blend(screen, int(round(cx - m.width / 2)), int(round(cy - m.height / 2)), m.alpha, color)


def fill_rect(screen, x, y, w, h, color) -> None:
    screen[max(y, 0):max(y + h, 0), max(x, 0):max(x + w, 0)] = color


def _shape(w: int, h: int, draw) -> np.ndarray:
    """An anti-aliased alpha mask drawn 4x larger with cv2 and scaled down."""
    s = 4
    big = np.zeros((h * s, w * s), np.uint8)
    draw(big, s)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


@lru_cache(maxsize=256)
def circle_mask(r: int) -> np.ndarray:
    d = 2 * r
    return _shape(d, d, lambda big, s: cv2.circle(big, (d * s // 2, d * s // 2), r * s, 255, -1, cv2.LINE_AA))


@lru_cache(maxsize=256)
def rounded_rect_mask(w: int, h: int, r: int) -> np.ndarray:
    def draw(big, s):
        R = r * s
        W, H = w * s, h * s
        cv2.rectangle(big, (R, 0), (W - R - 1, H - 1), 255, -1)
        cv2.rectangle(big, (0, R), (W - 1, H - R - 1), 255, -1)
        for cx, cy in ((R, R), (W - R - 1, R), (R, H - R - 1), (W - R - 1, H - R - 1)):
            cv2.circle(big, (cx, cy), R, 255, -1, cv2.LINE_AA)
    return _shape(w, h, draw)


@lru_cache(maxsize=64)
def star_mask(r: int) -> np.ndarray:
    """A filled five-pointed star of outer radius ``r``."""
    angles = np.pi / 2 + np.arange(10) * np.pi / 5
    radii = np.where(np.arange(10) % 2 == 0, r, r * 0.45)

    def draw(big, s):
        pts = np.stack([r + radii * np.cos(angles), r - radii * np.sin(angles)], axis=1) * s
        cv2.fillPoly(big, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)
    return _shape(2 * r, 2 * r, draw)


def put_coin(screen, cx, cy, r) -> None:
    """A gold coin with a star, as the game shows beside coins."""
    put_circle(screen, cx, cy, r, (242, 176, 64))
    put_circle(screen, cx, cy, round(r * 0.78), (255, 226, 110))
    star = max(2, round(r * 0.62))
    blend(screen, cx - star, cy - star, star_mask(star), (246, 184, 52))


def polyline_mask(w: int, h: int, points, thickness: float, closed=False) -> np.ndarray:
    """Anti-aliased strokes through ``points`` (in mask pixels, floats allowed)."""
    def draw(big, s):
        pts = np.round(np.asarray(points, np.float64) * s).astype(np.int32)
        cv2.polylines(big, [pts], closed, 255, max(1, int(round(thickness * s))), cv2.LINE_AA)
    return _shape(w, h, draw)


def put_circle(screen, cx, cy, r, color) -> None:
    blend(screen, int(cx - r), int(cy - r), circle_mask(int(r)), color)


def put_rounded_rect(screen, x, y, w, h, r, color) -> None:
    blend(screen, x, y, rounded_rect_mask(int(w), int(h), int(r)), color)


def cap_size(family: str, cap_height: float) -> int:
    """The font size whose digits are ``cap_height`` pixels tall."""
    m = text_mask(family, "regular", 200, "8")
    return max(6, round(200 * cap_height / m.height))


def blank(preset, theme: Theme, background=None) -> np.ndarray:
    """A full screen of ``background`` (default: the theme's) under the status bar."""
    screen = np.empty((preset.height, preset.width, 3), np.uint8)
    screen[...] = theme.rgb("background") if background is None else background
    status_bar(screen, preset, theme)
    return screen


def status_bar(screen, preset, theme: Theme, clock: str = "12:30", date: str = "Sat, 21 Nov",
               battery: int = 100) -> None:
    """The Android status bar: time and date at the left, signal, battery level and icon at the right."""
    h = preset.status_bar
    size = cap_size(preset.font, 0.34 * h)
    color = theme.rgb("status_text")
    margin = round(h * 0.72)
    middle = h * 0.5
    box = put_text(screen, preset.font, "regular", size, clock, margin, middle, color, valign="middle")
    put_text(screen, preset.font, "regular", size, date, box[0] + box[2] + round(0.35 * h), middle, color,
             valign="middle")
    # battery: a rounded outline with a fill proportional to the charge, then the percentage
    bw, bh = round(h * 0.24), round(h * 0.4)
    bx, by = preset.width - margin - bw, round(middle - bh / 2)
    put_rounded_rect(screen, bx, by, bw, bh, max(1, bw // 6), color)
    inner = max(1, bw // 7)
    fill_rect(screen, bx + inner, by + inner, bw - 2 * inner, bh - 2 * inner, theme.rgb("background"))
    level = int((bh - 2 * inner - 2) * battery / 100)
    fill_rect(screen, bx + inner + 1, by + bh - inner - 1 - level, bw - 2 * inner - 2, level, color)
    fill_rect(screen, bx + bw // 3, by - inner, bw - 2 * (bw // 3), inner, color)
    box = put_text(screen, preset.font, "regular", size, f"{battery}%", bx - round(h * 0.1), middle, color,
                   align="right", valign="middle")
    # signal: four bars of rising height
    bar, gap = max(1, round(h * 0.05)), max(1, round(h * 0.04))
    right = box[0] - round(h * 0.25)
    for k in range(4):
        top = round(middle + bh / 2 - bh * (k + 1) / 4)
        x = right - (4 - k) * (bar + gap)
        fill_rect(screen, x, top, bar, round(middle + bh / 2) - top, color)
