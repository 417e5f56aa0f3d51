"""Tiny digits (a badge a few pixels high) by matching digits drawn with common phone fonts.

Tesseract needs a glyph some 10 px high; a badge on a small or downscaled screenshot can be
5-8 px. Here each digit is drawn large in a few sans fonts (Roboto, DejaVu Sans: those a
phone shows or ones like them), shrunk to the observed glyph's size, and correlated with it.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import zlib
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from solver import platforms
from solver.cache import cache_dir, keep, load_array

# the fonts drawn, as Linux's packages lay them out in its TrueType folder; elsewhere found by
# their names among the system's installed fonts (``font_files``)
FONT_GLOBS = ("roboto/**/Roboto-Bold.ttf", "roboto/**/Roboto-Medium.ttf", "roboto/**/Roboto-Regular.ttf",
              "dejavu/DejaVuSans-Bold.ttf", "dejavu/DejaVuSans.ttf")
# the drawings are some 0.7 MB: a cached file claiming more is not them
DRAWINGS_BYTES = 1 << 24
DRAWING_VERSION = 1  # raise when ``draw`` changes: the drawings kept in the cache are then redrawn


@lru_cache(maxsize=1)
def drawn_digits() -> list[tuple[str, np.ndarray]]:
    """(digit, tight ink mask 0-1) for 0-9 in every font found; drawn once per machine and kept
    in the cache folder (drawing them costs more CPU than the rest of a read's header)."""
    fonts = font_files()
    path = cache_dir() / f"drawn-digits-{drawing_key(fonts)}.npy"
    try:
        return unpack(load_array(path, DRAWINGS_BYTES))
    except (OSError, ValueError, IndexError, EOFError, OverflowError):  # missing or damaged: drawn again
        drawn = draw(fonts)
        keep(path, lambda tmp: np.save(tmp, pack(drawn)))
        return drawn


def font_files() -> list[str]:
    """The first file each of FONT_GLOBS finds among the system's installed fonts
    (``solver.platforms.font_folders``, best first), laid out as on Linux or by its name alone."""
    out = []
    for pattern in FONT_GLOBS:
        for folder in platforms.font_folders():
            found = (sorted(glob.glob(str(folder / pattern), recursive=True))
                     or sorted(glob.glob(str(folder / Path(pattern).name))))
            if found:
                out.append(found[0])
                break
    return out


def drawing_key(fonts: list[str]) -> str:
    """What the drawings depend on: the font files and the installed Pillow (by its files' times,
    so Pillow need not be imported to know it), and the drawing's version."""
    parts, files = [f"v{DRAWING_VERSION}"], list(fonts)
    pil = importlib.util.find_spec("PIL")
    if pil and pil.origin:
        files.append(os.path.join(os.path.dirname(pil.origin), "_version.py"))
    for name in files:
        try:
            st = os.stat(name)
        except OSError:
            continue
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    key = "\n".join(parts).encode()
    return f"{zlib.crc32(key):08x}"  # a checksum, not hashlib: its OpenSSL takes 5-15 ms to import


def draw(fonts: list[str]) -> list[tuple[str, np.ndarray]]:
    from PIL import Image, ImageDraw, ImageFont

    out = []
    for path in fonts:
        font = ImageFont.truetype(path, 96)
        for d in "0123456789":
            img = Image.new("L", (120, 140), 0)
            ImageDraw.Draw(img).text((10, 10), d, fill=255, font=font)
            a = np.asarray(img, np.float32) / 255
            ys, xs = np.nonzero(a > 0.5)
            out.append((d, a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]))
    return out


def pack(drawn: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """The drawings as one float32 array: their count, then (digit, height, width) of each, then
    every drawing's pixels in turn (small integers are exact in float32)."""
    head = [len(drawn)] + [v for d, g in drawn for v in (int(d), *g.shape)]
    return np.concatenate([np.array(head, np.float32), *[g.ravel() for _, g in drawn]]).astype(np.float32)


def unpack(data: np.ndarray) -> list[tuple[str, np.ndarray]]:
    if data.ndim != 1 or data.dtype != np.float32:
        raise ValueError("a drawn-digits file of another layout")
    n = int(data[0])
    out, at = [], 1 + 3 * n
    for k in range(n):
        d, h, w = (int(v) for v in data[1 + 3 * k:4 + 3 * k])
        if not (0 <= d <= 9 and h > 0 and w > 0):
            raise ValueError("a drawn-digits file of another layout")
        out.append((str(d), data[at:at + h * w].reshape(h, w)))
        at += h * w
    if at != len(data):
        raise ValueError("a drawn-digits file of another layout")
    return out


def match(crop: np.ndarray) -> tuple[str | None, float, float]:
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
