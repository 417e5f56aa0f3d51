"""Shapes every reader cuts out of a mask or a line of ink: solid shapes (holes filled) and glyphs."""

from __future__ import annotations

import cv2
import numpy as np

from vision.thresholds import STROKE


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """A binary mask with its enclosed holes filled."""
    m = np.pad(mask.astype(np.uint8), 1)
    flood = m.copy()
    cv2.floodFill(flood, np.zeros((m.shape[0] + 2, m.shape[1] + 2), np.uint8), (0, 0), 1)
    return ((m | (1 - flood)) > 0)[1:-1, 1:-1]


def runs(on: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each run of True in a 1-D mask."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], on.astype(np.int8), [0]]))).tolist()
    return list(zip(edges[::2], edges[1::2]))


def split_glyphs(ink: np.ndarray) -> list[np.ndarray]:
    """The glyph crops of a line of text, split at empty columns."""
    out = []
    for a, b in runs((ink > STROKE).any(axis=0)):
        part = ink[:, a:b]
        rows = np.flatnonzero((part > STROKE).any(axis=1))
        out.append(part[rows[0]:rows[-1] + 1])
    return out
