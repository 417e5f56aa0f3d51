"""Where a Number Match board stands on a screen, worked out from readings alone: the rows on
screen, where they fit in a board read before, whether the board goes on below, and where to
swipe next on a board of repeated rows. Pure: no phone, no capture (``scroll`` acts on these)."""

from __future__ import annotations

import copy

import numpy as np

from solver.numbermatch import Rules
from vision import Reading

COLUMNS = Rules().columns  # cells a row, as the rules (and the reader's grid) have it


def capacity(reading: Reading) -> int | None:
    """How many whole rows the grid shows, from the reading profile's geometry (None: unknown)."""
    geo = reading.profile.geometry if reading.profile is not None else {}
    try:
        return int((float(geo["bottom"]) - float(geo["top"])) / float(geo["pitch"]) + 0.1)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None


def screen_rows(reading: Reading) -> list[tuple[int, ...]]:
    """The board rows on screen, top first (the last may be partial)."""
    cells = reading.board.cells
    return [tuple(cells[k:k + COLUMNS]) for k in range(0, len(cells), COLUMNS)]


def goes_on_below(image, reading: Reading) -> bool | None:
    """Whether digits show in the row the fade cuts under the last whole row (None: no room
    to look). The reader counts a grid filled with full rows as going on below; at the board's
    true end that row is empty lattice, and rows repeated by adds cannot tell the end either."""
    if image is None or not reading.cells or not reading.pitch or reading.profile is None:
        return None
    bg = (reading.profile.colours or {}).get("background")
    bottom = (reading.profile.geometry or {}).get("bottom")
    if bg is None or bottom is None:
        return None
    p = reading.pitch
    last = max(y for _, y in reading.cells.values())
    y0, y1 = int(last + 0.65 * p), int(min(last + 1.5 * p, float(bottom), image.shape[0]))
    if y1 - y0 < 0.1 * p:
        return None
    xs = sorted({x for x, _ in reading.cells.values()})[:COLUMNS]
    bg = np.asarray(bg, np.float32)
    for x in xs:
        band = image[y0:y1, max(0, int(x - 0.3 * p)):int(x + 0.3 * p)].astype(np.float32)
        if band.size and float(np.abs(band - bg).max()) > 40:
            return True
    return False


def numbered(reading: Reading, first_row: int) -> Reading:
    """A copy of a reading (whose cells count from the top of the screen) with absolute indices."""
    out = copy.copy(reading)
    base = first_row * COLUMNS
    out.cells = {k + base: xy for k, xy in reading.cells.items()}
    out.selected = None if reading.selected is None else reading.selected + base
    out.unsure = [k + base for k in reading.unsure]
    out.unsure_why = {str(int(k) + base) if k.isdigit() else k: v for k, v in reading.unsure_why.items()}
    out.first_row = first_row
    out.more_above = first_row > 0
    return out


def fits(rows, reading: Reading) -> list[int]:
    """Every first row at which the screen's rows agree with the known rows (one at least shared)."""
    seen = screen_rows(reading)
    out = []
    for f in range(0, len(rows)):
        shared = [(rows[f + i], row) for i, row in enumerate(seen) if f + i < len(rows)]
        if shared and all(a == b for a, b in shared):
            out.append(f)
    return out


def looks_same(rows: list, a: int, b: int, k: int) -> bool:
    """The screens with board rows ``a`` and ``b`` at the top (``k`` rows shown) look alike."""
    return rows[a:a + k] == rows[b:b + k]

def step(rows: list, top: int, target: int, k: int, reach: int) -> int:
    """The board row to bring to the top with the next swipe, on the way to ``target``.

    A swipe moves at most ``reach`` rows. Rows repeat after adds (a board of 27 numbers added
    to three times is one screen of 3 rows over and over), so the place a swipe aims at may
    look just like the screen it leaves: then a board that moved cannot be told from a swipe
    the phone dropped. Aim instead at the place nearest the target, in reach, that looks
    different (and from which the target does too, since the target looks like here)."""
    aim = top + max(-reach, min(reach, target - top))
    if not looks_same(rows, top, aim, k):
        return aim
    last = max(0, len(rows) - k)
    others = [t for t in range(max(0, top - reach), min(last, top + reach) + 1)
              if not looks_same(rows, top, t, k)]
    if not others:
        return aim
    return min(others, key=lambda t: (abs(t - aim), abs(t - top)))
