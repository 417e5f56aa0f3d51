"""Each grid cell's state: no number, live digit, crossed-out (faded) digit, selected; and its glyph.

A cell's ink is its pixels' colour distance from the cell's own background (so a highlighted,
selected cell reads like any other, and light and dark themes alike). A live digit has strong
ink, a crossed-out one faint ink, an empty cell none; the split is relative to the strongest
glyph on the board, so it does not depend on one theme's colours.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.image import distance
from vision.thresholds import EMPTY, FAINTEST, HIGHLIGHT, LIVE, SELECTED_BLUE, STORED_INK_SHARE

GLYPH = 24  # side of a normalised glyph image


@dataclass
class Cell:
    """One grid cell as seen: where it is, its background, its ink and its glyph."""

    box: tuple[float, float, float, float]  # x0, y0, x1, y1 between its lines
    background: np.ndarray | None  # RGB of the cell's own background (None: the board's)
    contrast: float  # strength of its ink (0 = nothing drawn)
    glyph: np.ndarray | None = None  # GLYPH x GLYPH float image of the ink, 0-1
    crop: np.ndarray | None = None  # the ink crop (float, 0-1) for tesseract
    state: str = "empty"  # "empty", "live", "faded"
    selected: bool = False

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2


def look_at(image: np.ndarray, box, dist: np.ndarray | None = None, blurred: np.ndarray | None = None,
            inset: float = 0.14) -> Cell | None:
    """Measure one cell: its background, ink contrast and normalised glyph.

    ``dist`` (distance of every pixel from the board's background) saves work for the many
    cells drawn on the board's own background; a highlighted cell is measured against its own.
    """
    x0, y0, x1, y1 = box
    p = x1 - x0
    m = max(1, int(round(p * inset)))
    h, w = image.shape[:2]
    xa, ya = max(0, int(round(x0)) + m), max(0, int(round(y0)) + m)
    xb, yb = min(w, int(round(x1)) - m + 1), min(h, int(round(y1)) - m + 1)
    if xb - xa < 4 or yb - ya < 4:
        return None
    crop = image[ya:yb, xa:xb]
    ink, contrast = None, None
    if dist is not None:
        d = dist[ya:yb, xa:xb]
        if max(d[0].max(), d[-1].max(), d[:, 0].max(), d[:, -1].max()) <= 10:
            ink = d  # the board's own background all around: no need to measure another
            if blurred is not None:
                contrast = float(blurred[ya:yb, xa:xb].max())
    if ink is None:
        ring = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
        bg = np.median(ring, axis=0)
        ink = distance(crop, bg)
    else:
        bg = None
    if contrast is None:
        contrast = float(cv2.blur(ink, blur_size(ink.shape[1])).max())
    cell = Cell(tuple(box), bg, contrast)
    if contrast < EMPTY:
        return cell
    core = ink > 0.5 * contrast
    rows = np.flatnonzero(core.any(axis=1))
    cols = np.flatnonzero(core.any(axis=0))
    ch, cw = core.shape
    ga, gb, gc, gd = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    if ga == 0 or gc == 0 or gb == ch or gd == cw or gb - ga < 0.2 * ch:
        # ink at the crop's edge or too flat: keep only the parts that look like a glyph
        _, labels, stats, _ = cv2.connectedComponentsWithStats(core.astype(np.uint8), connectivity=8)
        middle = stats[:, 0] + stats[:, 2] / 2
        keep = (stats[:, 3] >= 0.2 * ch) & (0.15 * cw < middle) & (middle < 0.85 * cw)
        keep[0] = False  # the background
        if not keep.any():
            cell.contrast = 0.0
            return cell
        ys, xs = np.nonzero(keep[labels])
        ga, gb, gc, gd = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    cell.crop = np.clip(ink[ga:gb, gc:gd].astype(np.float32) / contrast, 0, 1)
    cell.glyph = normalise(cell.crop)
    return cell


def blur_size(width: float) -> tuple[int, int]:
    """The smoothing that keeps a glyph's strokes but not JPEG specks, by cell size."""
    return (2, 2) if width < 30 else (3, 3)


def normalise(crop: np.ndarray) -> np.ndarray:
    """A glyph crop scaled to GLYPH high (keeping its aspect), centred on a GLYPH square."""
    h, w = crop.shape
    nw = max(1, min(GLYPH, int(round(w * GLYPH / h))))
    img = cv2.resize(crop.astype(np.float32), (nw, GLYPH), interpolation=cv2.INTER_AREA)
    out = np.zeros((GLYPH, GLYPH), np.float32)
    a = (GLYPH - nw) // 2
    out[:, a:a + nw] = img
    return out


def classify(cells: list[Cell], board_bg: np.ndarray, live_ink: float | None = None) -> float | None:
    """Set each cell's state (live, faded, empty) and whether it is selected. ``live_ink``: the
    live digits' ink on this phone (a profile's, see return), so that a board whose digits are
    all crossed out (the moment its last pair fades) does not read them live. Returns the live
    digits' ink when the board showed live and crossed-out digits both (worth keeping), else None."""
    strong = [c.contrast for c in cells if c.glyph is not None]
    if not strong:
        return None
    # the live digits are the strongest cell and those near it: on a board of a few live digits
    # among many crossed out, a share of all the cells would fall among the crossed-out ones
    top = max(strong)
    ref = float(np.percentile([s for s in strong if s >= LIVE * top], 90))
    if live_ink is not None:
        ref = max(ref, STORED_INK_SHARE * live_ink)
    for c in cells:
        if c.glyph is None:
            c.state = "empty"
        elif c.contrast < FAINTEST * ref:
            c.state, c.glyph, c.crop = "empty", None, None  # specks of noise, not a crossed-out digit
        elif c.contrast >= LIVE * ref:
            c.state = "live"
        else:
            c.state = "faded"
        # the game highlights the selected cell in blue (a hint shows in yellow: not a selection)
        off = c.background is not None and float(np.abs(c.background - board_bg).max()) > HIGHLIGHT
        c.selected = off and c.background[2] > c.background[0] + SELECTED_BLUE
    states = {c.state for c in cells}
    return ref if {"live", "faded"} <= states else None
