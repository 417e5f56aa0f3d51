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

GLYPH = 24  # side of a normalised glyph image


@dataclass
class Cell:
    """One grid cell as seen: where it is, its background, its ink and its glyph."""

    row: int
    col: int
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 between its lines
    background: np.ndarray  # RGB of the cell's own background
    contrast: float  # strength of its ink (0 = nothing drawn)
    colour: np.ndarray | None = None  # RGB of the glyph's core
    glyph: np.ndarray | None = None  # GLYPH x GLYPH float image of the ink, 0-1
    crop: np.ndarray | None = None  # the ink crop (float, 0-1) for tesseract
    state: str = "empty"  # "empty", "live", "faded"
    selected: bool = False

    @property
    def centre(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return (x0 + x1) / 2, (y0 + y1) / 2


def look_at(image: np.ndarray, box, inset: float = 0.14) -> Cell | None:
    """Measure one cell: its background, ink contrast, glyph colour and normalised glyph."""
    x0, y0, x1, y1 = box
    p = x1 - x0
    m = max(1, int(round(p * inset)))
    xa, xb = int(round(x0)) + m, int(round(x1)) - m + 1
    ya, yb = int(round(y0)) + m, int(round(y1)) - m + 1
    h, w = image.shape[:2]
    xa, ya, xb, yb = max(0, xa), max(0, ya), min(w, xb), min(h, yb)
    if xb - xa < 4 or yb - ya < 4:
        return None
    crop = image[ya:yb, xa:xb]
    ring = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    bg = np.median(ring, axis=0)
    ink = distance(crop, bg).astype(np.float32)
    smooth = cv2.blur(ink, (2, 2)) if min(ink.shape) < 30 else cv2.blur(ink, (3, 3))
    contrast = float(np.percentile(smooth, 99.5))
    cell = Cell(0, 0, tuple(box), bg, contrast)
    if contrast < 12:
        return cell
    norm = np.clip(ink / contrast, 0, 1)
    core = norm > 0.5
    ys, xs = np.nonzero(core)
    # a glyph is the ink near the cell's middle: drop specks and bits of neighbouring lines
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core.astype(np.uint8), connectivity=8)
    keep = np.zeros(n, bool)
    ch, cw = core.shape
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if bh >= 0.2 * ch and (x + bw / 2) > 0.15 * cw and (x + bw / 2) < 0.85 * cw:
            keep[i] = True
    if not keep.any():
        cell.contrast = 0.0
        return cell
    mask = keep[labels]
    ys, xs = np.nonzero(mask)
    ga, gb, gc, gd = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    cell.colour = np.median(crop[mask], axis=0)
    cell.crop = norm[ga:gb, gc:gd]
    cell.glyph = normalise(cell.crop)
    return cell


def normalise(crop: np.ndarray) -> np.ndarray:
    """A glyph crop scaled to GLYPH high (keeping its aspect), centred on a GLYPH square."""
    h, w = crop.shape
    nw = max(1, min(GLYPH, int(round(w * GLYPH / h))))
    img = cv2.resize(crop.astype(np.float32), (nw, GLYPH), interpolation=cv2.INTER_AREA)
    out = np.zeros((GLYPH, GLYPH), np.float32)
    a = (GLYPH - nw) // 2
    out[:, a:a + nw] = img
    return out


def classify(cells: list[Cell], board_bg: np.ndarray, faded_ratio: float | None = None) -> None:
    """Set each cell's state (live, faded, empty) and whether it is selected."""
    strong = [c.contrast for c in cells if c.glyph is not None]
    if not strong:
        return
    ref = float(np.percentile(strong, 90))
    for c in cells:
        if c.glyph is None:
            c.state = "empty"
        elif c.contrast >= 0.6 * ref:
            c.state = "live"
        else:
            c.state = "faded"
        # the game highlights the selected cell in blue (a hint shows in yellow: not a selection)
        off = float(np.abs(c.background - board_bg).max()) > 18
        c.selected = off and c.background[2] > c.background[0] + 12
