"""Finding the Number Match grid with no prior knowledge: its lines, pitch, columns and rows.

The board is a lattice of thin lines a little off the background (light grey on white, or the
dark theme's equivalent) inside a stronger border. Lines are found as thin ridges of colour
distance from the background that run long in one direction; the nine columns are the ten
equally spaced vertical lines that run longest; the rows are the horizontal lines between them
at the same pitch. Nothing depends on where one screenshot put the board.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.image import MIN_CELL, ImageInputError
from vision.shapes import runs

COLUMNS = 9
# a grid line's pixel stands out of the background beside it by more than this colour distance;
# JPEG ringing and anti-aliasing by less
RIDGE = 2.5


@dataclass
class Lattice:
    """The grid on screen: vertical line x positions (10), horizontal line y positions, pitch."""

    xs: list[float]  # the ten vertical lines, left border first
    ys: list[float]  # horizontal lines from the top of the visible grid down
    pitch: float
    top: float  # top of the grid's vertical lines
    bottom: float  # bottom of the grid's vertical lines
    solid: float | None = None  # where the lines are still at full strength (above a fade)
    rows: list[tuple[float, float]] = field(default_factory=list)  # (y_top, y_bottom) of full rows

    def cell_box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of a visible cell, between its lines."""
        y0, y1 = self.rows[row]
        return self.xs[col], y0, self.xs[col + 1], y1


def line_scale(w: int, h: int) -> int:
    """How far to each side of a grid line its background is looked at (farther than half a
    line's width), by the screen's size."""
    return max(2, int(round(max(w, h * 0.45) / 270)))


def vertical_ridges(dist: np.ndarray) -> np.ndarray:
    """A mask of thin vertical line pixels in a colour-distance image: pixels brighter by more
    than RIDGE than both neighbours ``s`` away across the line (wrapping at the edges)."""
    h, w = dist.shape
    d = dist.astype(np.float32)
    s = line_scale(w, h)
    k = max(3, int(round(max(w, h * 0.45) / 200)) | 1)
    v = cv2.blur(d, (1, k))  # smooth along the line to beat JPEG noise
    n = v.shape[1]
    # the brighter of the two neighbours, built in place (np.roll would copy the image twice)
    near = np.empty_like(v)
    cv2.max(v[:, 0:n - 2 * s], v[:, 2 * s:n], dst=near[:, s:n - s])
    near[:, 0:s] = np.maximum(v[:, n - s:n], v[:, s:2 * s])
    near[:, n - s:n] = np.maximum(v[:, n - 2 * s:n - s], v[:, 0:s])
    cv2.subtract(v, near, dst=near)
    return (near > RIDGE).astype(np.uint8)


def long_runs(mask: np.ndarray, length: int) -> np.ndarray:
    """Keep only vertical runs of at least ``length`` pixels (morphological opening)."""
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((length, 1), np.uint8))


def best_columns(profile: np.ndarray, width: int) -> tuple[float, float, float]:
    """(x0, pitch, score) of the ten equally spaced peaks of a column profile with the best weakest line."""
    padded = np.maximum(np.maximum(profile, np.roll(profile, 1)), np.roll(profile, -1))
    best = (0.0, 0.0, -1.0)
    k = np.arange(COLUMNS + 1)
    for pitch in np.arange(width / 22, width / 7.5, 0.25):
        span = pitch * COLUMNS
        if span >= width - 2:
            break
        x0 = np.arange(0, width - span - 1)
        idx = np.rint(x0[:, None] + k[None, :] * pitch).astype(np.int64)
        scores = padded[idx].min(axis=1)
        i = int(scores.argmax())
        if scores[i] > best[2] * 1.02:
            best = (float(x0[i]), float(pitch), float(scores[i]))
    return best


def refine(profile: np.ndarray, guess: float, radius: int) -> float:
    """The centroid of a profile peak near ``guess``."""
    lo = max(0, int(guess) - radius)
    hi = min(len(profile), int(guess) + radius + 2)
    w = profile[lo:hi].astype(np.float64)
    if w.sum() <= 0:
        return guess
    w = np.where(w >= w.max() * 0.5, w, 0)
    return float((w * np.arange(lo, hi)).sum() / w.sum())


def find_lattice(dist: np.ndarray) -> Lattice | None:
    """The grid lattice in a colour-distance-from-background image, or None when there is none."""
    h, w = dist.shape
    vlong = long_runs(vertical_ridges(dist), max(6, h // 60))
    profile = vlong.sum(axis=0).astype(np.float64)
    f = max(1, w // 400)  # search a block-max profile of ~400 columns, then refine in full
    coarse = profile[:w - w % f].reshape(-1, f).max(axis=1)
    x0, pitch, score = best_columns(coarse, len(coarse))
    x0, pitch = x0 * f + f / 2, pitch * f
    if score < 1.5 * pitch or pitch <= 0:
        return None
    radius = max(1, int(pitch * 0.12))
    xs = [refine(profile, x0 + k * pitch, radius) for k in range(COLUMNS + 1)]
    xs = [refine(profile, xs[0] + k * (xs[-1] - xs[0]) / COLUMNS, radius) for k in range(COLUMNS + 1)]
    pitch = (xs[-1] - xs[0]) / COLUMNS
    if pitch < MIN_CELL:  # digits too small to be read for sure
        raise ImageInputError(f"the board's cells are {pitch:.1f} px: too small to read for sure (at least "
                              f"{MIN_CELL} px); give the phone's full-size screenshot")

    # the vertical extent: where most of the ten lines run
    cols = np.stack([vlong[:, int(round(x)) - 1:int(round(x)) + 2].max(axis=1) for x in xs])
    present = cols.mean(axis=0) >= 0.7
    ys_present = np.flatnonzero(present)
    if ys_present.size < pitch:
        return None
    top, bottom = float(ys_present[0]), float(ys_present[-1])

    hprof = horizontal_profile(dist, xs, pitch, w, h)
    lo, hi = max(0, int(top) - radius), min(h, int(bottom) + radius + 1)
    ys = line_positions(hprof, lo, hi)
    lattice = Lattice(xs, ys, pitch, top, bottom, solid=solid_bottom(dist, xs, top, bottom))
    lattice.rows = full_rows(lattice)
    return lattice


def horizontal_profile(dist: np.ndarray, xs: list[float], pitch: float, w: int, h: int, step: int = 1) -> np.ndarray:
    """Per image row, the share of pixels near the vertical lines (where no digit is drawn, but
    not on the lines themselves) that lie on a thin horizontal ridge: 1 on a grid line."""
    s = line_scale(w, h)
    band = max(2, int(pitch * 0.18))
    cols = []
    for x in xs:
        a, b = int(x) - band, int(x) + band + 1
        cols.extend(c for c in range(a, b, step) if abs(c - x) > s + 1 and 0 <= c < w)
    d = dist[:, cols].astype(np.float32)
    d = cv2.blur(d, (3, 1))
    up = np.empty_like(d)
    down = np.empty_like(d)
    up[s:] = d[:-s]
    up[:s] = d[:1]
    down[:-s] = d[s:]
    down[-s:] = d[-1:]
    ridge = d - np.maximum(up, down)
    return (ridge > RIDGE).mean(axis=1)


def line_positions(hprof: np.ndarray, lo: int, hi: int, level: float = 0.5) -> list[float]:
    """Centres of the runs of rows where the horizontal-line profile is above ``level``."""
    ys = []
    for a, b in runs(hprof[lo:hi] >= level):
        seg = hprof[lo + a:lo + b]
        ys.append(lo + a + float((seg * np.arange(len(seg))).sum() / seg.sum()))
    return ys


def solid_bottom(dist: np.ndarray, xs: list[float], top: float, bottom: float) -> float:
    """The lowest row where the inner vertical lines still stand out at nearly full strength:
    where a grid that fades out at the bottom (cutting its last row) stops being whole."""
    cols = [int(round(x)) for x in xs[1:-1]]
    ya, yb = int(top), int(bottom) + 1
    strength = dist[ya:yb, cols].astype(np.float32).mean(axis=1)
    strength = np.convolve(strength, np.ones(5) / 5, mode="same")
    full = float(np.median(strength))
    weak = np.flatnonzero(strength[: len(strength) - 2] < 0.85 * full)
    # the last stretch of weak rows that runs to the end is the fade
    end = len(strength) - 3
    while weak.size and weak[-1] == end:
        weak = weak[:-1]
        end -= 1
    return float(ya + end + 1)


def full_rows(lattice: Lattice) -> list[tuple[float, float]]:
    """Rows of cells fully inside the grid: between lines one pitch apart, and a last row below
    the last line when the vertical lines go on for a full pitch (a grid that fades out)."""
    p = lattice.pitch
    ys = lattice.ys
    rows = []
    # keep lines on the lattice: one pitch (or a whole number of pitches) apart
    for a, b in zip(ys, ys[1:]):
        n = round((b - a) / p)
        if n >= 1 and abs(b - a - n * p) <= 0.12 * p:
            step = (b - a) / n
            rows.extend((a + i * step, a + (i + 1) * step) for i in range(n))
    end = lattice.solid if lattice.solid is not None else lattice.bottom
    if ys and end - ys[-1] >= 0.97 * p:
        rows.append((ys[-1], ys[-1] + p))
    # rows lost between lines off the lattice (something drawn over the grid) are put back, so
    # that every row below keeps its index
    whole = rows[:1]
    for a, b in zip(rows, rows[1:]):
        n = round((b[0] - a[1]) / p)
        whole.extend((a[1] + k * p, a[1] + (k + 1) * p) for k in range(n))
        whole.append(b)
    return whole
