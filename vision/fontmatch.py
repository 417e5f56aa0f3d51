"""Tiny digits (a badge a few pixels high) by matching digits drawn with common phone fonts.

Tesseract needs a glyph some 10 px high; a badge on a small or downscaled screenshot can be
5-8 px. Here each digit is drawn large in a few sans fonts (Roboto, DejaVu Sans: those a
phone shows or ones like them), shrunk to the observed glyph's size, and correlated with it.
"""

from __future__ import annotations

import glob
from functools import lru_cache

import cv2
import numpy as np

FONT_GLOBS = ("/usr/share/fonts/truetype/roboto/**/Roboto-Bold.ttf", "/usr/share/fonts/truetype/roboto/**/Roboto-Medium.ttf",
              "/usr/share/fonts/truetype/roboto/**/Roboto-Regular.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
              "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@lru_cache(maxsize=1)
def drawn_digits() -> list[tuple[str, np.ndarray]]:
    """(digit, tight ink mask 0-1) for 0-9 in every font found."""
    from PIL import Image, ImageDraw, ImageFont

    out = []
    for pattern in FONT_GLOBS:
        for path in sorted(glob.glob(pattern, recursive=True))[:1]:
            font = ImageFont.truetype(path, 96)
            for d in "0123456789":
                img = Image.new("L", (120, 140), 0)
                ImageDraw.Draw(img).text((10, 10), d, fill=255, font=font)
                a = np.asarray(img, np.float32) / 255
                ys, xs = np.nonzero(a > 0.5)
                out.append((d, a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]))
    return out


def match(crop: np.ndarray, chars: str = "0123456789") -> tuple[str | None, float, float]:
    """(best digit, its correlation, margin over the best other digit) for a tight ink crop."""
    h, w = crop.shape
    if h < 3 or w < 1:
        return None, 0.0, 0.0
    v = crop.astype(np.float32).flatten()
    v = v - v.mean()
    n = np.linalg.norm(v)
    if n == 0:
        return None, 0.0, 0.0
    v /= n
    best: dict[str, float] = {}
    for d, g in drawn_digits():
        if d not in chars:
            continue
        small = cv2.resize(g, (w, h), interpolation=cv2.INTER_AREA).flatten()
        small = small - small.mean()
        m = np.linalg.norm(small)
        if m == 0:
            continue
        score = float(v @ small / m)
        best[d] = max(best.get(d, -1.0), score)
    if not best:
        return None, 0.0, 0.0
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    return ranked[0][0], ranked[0][1], ranked[0][1] - (ranked[1][1] if len(ranked) > 1 else -1.0)
