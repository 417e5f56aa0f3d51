"""Drawing a plan's step: on the live screenshot, or on a clean board diagram for exports."""

from __future__ import annotations

import cv2
import numpy as np

HIGHLIGHT = (255, 64, 160)  # RGB magenta: no game draws it, so tests can find it
LINK = (255, 140, 0)
UNSURE = (255, 170, 0)  # RGB amber: a cell not read for sure
INK = (30, 30, 30)
PANEL = (250, 250, 250)


def cell_pitch(centres: dict) -> float:
    """The distance between neighbouring cell centres on screen."""
    points = np.array(list(centres.values()), float)
    if len(points) < 2:
        return 60.0
    best = np.inf
    for k in range(min(len(points), 40)):
        d = np.hypot(*(points - points[k]).T)
        d = d[d > 1]
        if d.size:
            best = min(best, d.min())
    return float(best) if np.isfinite(best) else 60.0


def caption(image: np.ndarray, lines: list[str], scale: float | None = None) -> np.ndarray:
    """The image with a panel of text lines above it, each wrapped to the image's width; at
    ``scale`` 1 capitals are about 17 pixels tall (the default grows with the image's width)."""
    w = image.shape[1]
    scale = scale or max(0.6, w / 900)
    line_h, margin = int(34 * scale), int(12 * scale)
    rows = [part for text in lines for part in wrap(text, w - 2 * margin, scale)]
    panel = np.full((line_h * len(rows) + line_h // 2, w, 3), PANEL, np.uint8)
    for k, text in enumerate(rows):
        cv2.putText(panel, text, (margin, line_h * (k + 1)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.8 * scale, INK, max(1, int(2 * scale)), cv2.LINE_AA)
    return np.vstack([panel, image])


def wrap(text: str, width: int, scale: float) -> list[str]:
    """The text cut between words into lines at most ``width`` pixels wide (a longer word alone)."""
    rows = []
    thick = max(1, int(2 * scale))
    for word in text.split(" "):
        joined = f"{rows[-1]} {word}" if rows else word
        if rows and cv2.getTextSize(joined, cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, thick)[0][0] <= width:
            rows[-1] = joined
        else:
            rows.append(word)
    return rows


def in_window(image: np.ndarray, lines: list[str], size: tuple[int, int], scale: float) -> np.ndarray:
    """A window's picture, ``size`` (width, height) pixels: the text lines at ``scale`` above the
    image, which is scaled to fit under them and centred."""
    out, (x, y, w, h) = window_panel(lines, size, scale, image.shape[:2])
    out[y:y + h, x:x + w] = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA if w < image.shape[1]
                                       else cv2.INTER_LINEAR)
    return out


def window_panel(lines: list[str], size: tuple[int, int], scale: float, shape) -> tuple[np.ndarray, tuple]:
    """The window's picture without its image: the text lines at ``scale`` on top, and where an
    image of ``shape`` (height, width) goes under them, scaled to fit and centred (x, y, w, h)."""
    width, height = size
    top = caption(np.zeros((0, width, 3), np.uint8), lines, scale)
    room = height - top.shape[0]
    h, w = shape
    fit = min(room / h, width / w)
    pw, ph = max(1, round(w * fit)), max(1, round(h * fit))
    out = np.full((height, width, 3), PANEL, np.uint8)
    out[:top.shape[0]] = top
    return out, (max(0, (width - pw) // 2), top.shape[0] + (room - ph) // 2, pw, ph)


def mark_points(image: np.ndarray, points: list, size: float, joined: bool) -> np.ndarray:
    """Outline each point's cell (a square of `size`) and join consecutive ones."""
    out = image.copy()
    thick = max(2, int(size / 12))
    half = int(size * 0.48)
    for a, b in zip(points, points[1:]):
        if joined:
            cv2.line(out, tuple(map(int, a)), tuple(map(int, b)), LINK, thick, cv2.LINE_AA)
    for x, y in points:
        x, y = int(x), int(y)
        cv2.rectangle(out, (x - half, y - half), (x + half, y + half), HIGHLIGHT, thick)
    return out


def mark_button(image: np.ndarray, point, size: float, label: str = "") -> np.ndarray:
    out = image.copy()
    x, y = map(int, point)
    cv2.circle(out, (x, y), int(size * 0.7), HIGHLIGHT, max(3, int(size / 10)), cv2.LINE_AA)
    if label:
        cv2.putText(out, label, (x - int(size * 0.4), y - int(size * 0.8)), cv2.FONT_HERSHEY_SIMPLEX,
                    size / 50, HIGHLIGHT, max(2, int(size / 20)), cv2.LINE_AA)
    return out


def mark_unsure(image: np.ndarray, reading) -> np.ndarray:
    """Each cell not read for sure boxed in amber with a "?": the guide shows no move on a board
    it is not sure of, and says why."""
    out = image.copy()
    size = reading.pitch or cell_pitch(reading.cells) if reading.cells else 60.0
    half, thick = int(size * 0.46), max(2, int(size / 14))
    for k in reading.unsure:
        if k not in reading.cells:
            continue
        x, y = map(int, reading.cells[k])
        cv2.rectangle(out, (x - half, y - half), (x + half, y + half), UNSURE, thick)
        cv2.putText(out, "?", (x + half - int(size * 0.38), y - half + int(size * 0.36)), cv2.FONT_HERSHEY_SIMPLEX,
                    size / 80, UNSURE, thick, cv2.LINE_AA)
    return out
