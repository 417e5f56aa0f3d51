"""Small text reads around the board: lines of text above it, the adds badge, buttons.

Text is the dark (or, on a dark theme, light) neutral ink on the background; coloured pixels
(icons, coins, trophies, badges) are left out so that they do not read as characters.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import tesseract
from vision.glyphs import PAD, STRIP_HEIGHT
from vision.image import distance
from vision.shapes import runs
from vision.thresholds import COLOURED, STROKE, TEXT_CONTRAST


@dataclass
class TextLine:
    """A run of text on one line: its box, its ink crop (0-1) and its glyph height."""

    x0: int
    y0: int
    x1: int
    y1: int
    ink: np.ndarray

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def centre_x(self) -> float:
        return (self.x0 + self.x1) / 2


def saturation(image: np.ndarray) -> np.ndarray:
    """Per pixel, max minus min channel (0-255): high for coloured pixels, low for greys."""
    r, g, b = image[:, :, 0], image[:, :, 1], image[:, :, 2]
    return cv2.subtract(cv2.max(cv2.max(r, g), b), cv2.min(cv2.min(r, g), b))


def text_lines(image: np.ndarray, bg, y0: int, y1: int, min_contrast: float = TEXT_CONTRAST) -> list[TextLine]:
    """Neutral text lines across a band of the screen, split into runs at gaps wider than a glyph height."""
    region = image[y0:y1]
    if region.size == 0:
        return []
    ink = distance(region, bg).astype(np.float32)
    coloured = (saturation(region) > COLOURED).astype(np.uint8)
    ink[cv2.dilate(coloured, np.ones((5, 5), np.uint8)) > 0] = 0
    mask = ink > min_contrast
    lines = []
    for a, b in runs(mask.any(axis=1)):
        xs = np.flatnonzero(mask[a:b].any(axis=0))
        for run in np.split(xs, np.flatnonzero(np.diff(xs) > max(3, b - a)) + 1):
            start, end = int(run[0]), int(run[-1]) + 1
            seg = mask[a:b, start:end].any(axis=1)
            ra, rb = a + int(np.argmax(seg)), b - int(np.argmax(seg[::-1]))
            lines.append(TextLine(start, y0 + ra, end, y0 + rb, np.clip(ink[ra:rb, start:end] / 255.0 * 1.6, 0, 1)))
    return lines


def line_image(ink: np.ndarray) -> np.ndarray:
    """One line of ink (0-1) as tesseract is given it: scaled to STRIP_HEIGHT px high, binarised, padded."""
    h, w = ink.shape
    scale = STRIP_HEIGHT / max(1, h)
    big = cv2.resize(ink.astype(np.float32), (max(2, int(w * scale)), STRIP_HEIGHT), interpolation=cv2.INTER_CUBIC)
    img = np.where(big > STROKE, 0, 255).astype(np.uint8)
    return cv2.copyMakeBorder(img, PAD, PAD, PAD, PAD, cv2.BORDER_CONSTANT, value=255)


def read_texts(inks: list[np.ndarray], chars: str | None = None, psm: int = 7,
               stop: tesseract.Stop | None = None) -> list[str]:
    """Tesseract on lines of ink (0-1), all in one process (a call is mostly its own start, loading
    its model), each line a page of its own. ``stop``: see tesseract.Stop."""
    return [t.strip() for t in tesseract.run([line_image(ink) for ink in inks], tesseract.options(psm, chars), stop)]


def read_text(ink: np.ndarray, chars: str | None = None, psm: int = 7) -> str:
    """Tesseract on one line of ink (0-1)."""
    return read_texts([ink], chars, psm)[0]


def norm_line(ink: np.ndarray) -> np.ndarray:
    """A text line's ink scaled so its strongest strokes are 1."""
    top = float(np.percentile(ink, 99)) if ink.size else 0
    return np.clip(ink / top, 0, 1) if top > 0 else ink
