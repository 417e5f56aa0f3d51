"""Reading Number Match: the grid, every cell, the adds badge, stage and score; the screens between boards."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

from solver.numbermatch import Board, parse_cells, points_from
from solver.words import count
from vision import glyphs as glyphs_, tesseract
from vision.cells import Cell, blur_size, classify, look_at
from vision.digits import digit_parts, drawn_agree, read_digits, read_number, sharpness, unlike_their_digit
from vision.grid import (COLUMNS, Lattice, find_lattice, full_rows, horizontal_profile, line_positions,
                         line_scale)
from vision.image import LandmarkError, ReadError, background, distance, theme as screen_theme
from vision.profile import Profile
from vision.reader import Reader
from vision.reading import CAUGHT_MOVING, Reading
from vision.schema import Wrong, check_keys, check_number, check_numbers
from vision.screens import close_button, pill_buttons
from vision.shapes import fill_holes
from vision.text import norm_line, saturation, text_lines
from vision.thresholds import EMPTY, POOR_SHARPNESS


# The stage and the score are text lines at most this many pitches tall and wide (a banner or a
# panel over the header is a far bigger block of "ink"); a line cut by the image's top is not read.
TALLEST_TEXT = 0.9
WIDEST_NUMBER = 3.5
# Saturation (max minus min channel) above which a pixel is part of the blue "+" or its badge.
BADGE_SATURATION = 45
# A grid line must show over at least this share of a row's height beside a cell, or the cell
# is taken as covered: a card drawn over the board hides the lines, a glyph or JPEG never does.
LINE_SEEN = 0.5
# A line pixel differs from the pixels either side of it by more than this (0-255, any channel).
LINE_CONTRAST = 5
# Every this many pixel rows are looked at for the lines beside each cell (a dialog covers many).
LINE_STEP = 3
# Lines this share of a pitch off the lattice (or the top border this far below the top of the
# vertical lines) are not the grid's.
LINE_SLACK = 0.3

# The glyph templates this reader learns, one font each (a stored profile holds no others).
FONTS = {"cell", "badge", "stage", "score"}


class NumberMatchReading(Reading):
    """A Number Match read: its JSON says where the grid is and how far it is scrolled; its text
    shows the board nine cells a row, "?" where a cell is unsure."""

    def cell_words(self, i: int) -> str:
        return f"row {i // COLUMNS + 1} column {i % COLUMNS + 1}"

    def cell_row(self, i: int) -> int:
        return i // COLUMNS + 1

    def first_index(self) -> int:
        return self.first_row * COLUMNS

    def layout_json(self) -> dict:
        return {"first_row": self.first_row, "rows_visible": self.rows_visible,
                "more_above": self.more_above, "more_below": self.more_below,
                "selected": self.selected, "pitch": round(self.pitch, 2),
                "add_button": list(self.add_button) if self.add_button else None}

    def lines(self) -> list[str]:
        if self.board is None:
            return super().lines()
        b = self.board
        first = self.first_row
        # unsure cells show as "?": never a digit the reader is not sure of
        text = "".join("?" if first * COLUMNS + k in self.unsure else ("." if c == 0 else str(c))
                       for k, c in enumerate(b.cells))
        rows = [text[k:k + COLUMNS] for k in range(0, len(text), COLUMNS)]
        known = lambda v: "?" if v is None else v  # noqa: E731
        lines = [f"Number Match, stage {known(b.stage)}, score {known(b.score)}, "
                 f"{count(known(b.adds_left), 'adds')} left{self.rows_shown(len(rows))}", *rows]
        if self.selected is not None:
            lines.append(f"selected: {self.cell_words(self.selected)}")
        return lines

    def rows_shown(self, rows: int) -> str:
        """Which rows of a board partly off screen the text shows: the board's, when whoever
        scrolled it said where it stands (``first_row``), else those on screen from its top."""
        if self.first_row:
            return f" (rows {self.first_row + 1}-{self.first_row + rows} shown)"
        more = " and ".join(w for w, on in (("above", self.more_above), ("below", self.more_below)) if on)
        return f" ({count(rows, 'rows')} on screen, more {more}: rows counted from the top of the screen)" \
            if more else ""


def quick_lattice(dist: np.ndarray, geometry: dict) -> Lattice | None:
    """The lattice at a profile's vertical lines, when they are still there (else None: stale)."""
    try:
        xs = [float(x) for x in geometry["xs"]]
        pitch, top, bottom = float(geometry["pitch"]), float(geometry["top"]), float(geometry["bottom"])
        solid = float(geometry.get("solid", bottom))
    except (KeyError, TypeError, ValueError):
        return None
    h, w = dist.shape
    if len(xs) != COLUMNS + 1 or not (0 <= xs[0] and xs[-1] < w and 0 <= top < bottom <= h):
        return None
    s = line_scale(w, h)
    ya, yb = int(top + pitch * 0.2), int(bottom - pitch * 0.2)
    seen = 0
    for x in xs:  # each line must still stand out from both sides along most of its length
        xi = int(round(x))
        if xi - s - 1 < 0 or xi + s + 2 > w:
            continue
        line = dist[ya:yb, xi - 1:xi + 2].max(axis=1).astype(np.int16)
        side = np.maximum(dist[ya:yb, xi - s - 1], dist[ya:yb, xi + s + 1]).astype(np.int16)
        if np.mean(line - side > 2) > 0.6:
            seen += 1
    if seen < COLUMNS:
        return None
    hprof = horizontal_profile(dist, xs, pitch, w, h, step=2)
    radius = max(1, int(pitch * 0.12))
    ys = line_positions(hprof, max(0, int(top) - radius), min(h, int(bottom) + radius + 1))
    lattice = Lattice(xs, ys, pitch, top, bottom, solid=solid)
    lattice.rows = full_rows(lattice)
    return lattice if lattice.rows else None


def find_add_button(image: np.ndarray, lattice: Lattice, area: list | None = None
                    ) -> tuple[tuple[int, int] | None, np.ndarray | None, tuple | None]:
    """The "+" button's centre, the ink of its badge's digit (or None) and the area they span.

    The "+" is a coloured cross below the grid; its badge a filled coloured disc to its upper
    right with the count in the background colour. ``area`` (x0, y0, x1, y1) narrows the search
    to where a profile saw them.
    """
    h, w = image.shape[:2]
    p = lattice.pitch
    x0, y0, x1, y1 = area if area else (0, int(min(h - 1, lattice.bottom)), w, h)
    region = image[y0:y1, x0:x1]
    sat = saturation(region)
    mask = (sat > BADGE_SATURATION).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    plus, discs = None, []
    for i in range(1, n):
        x, y, bw, bh, pixels = stats[i]
        if bw < p * 0.12 or bw > p * 1.5 or not 0.6 < bw / max(1, bh) < 1.6:
            continue
        fill = pixels / float(bw * bh)
        comp = labels[y:y + bh, x:x + bw] == i
        filled = cv2.morphologyEx(comp.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        holes = fill_holes(filled)
        if holes.mean() > 0.6:
            discs.append((x + x0, y + y0, bw, bh))
        cy, cx = bh // 2, bw // 2
        band = max(1, min(bw, bh) // 8)
        cross = comp[cy - band:cy + band + 1].any(axis=0).mean() > 0.8 and comp[:, cx - band:cx + band + 1].any(axis=1).mean() > 0.8
        if cross and fill < 0.45 and (plus is None or x + x0 < plus[0]):
            plus = (x + x0, y + y0, bw, bh)
    if plus is None:
        return None, None, None
    px, py, pw, ph = plus
    centre = (int(round(px + pw / 2)), int(round(py + ph / 2)))
    # the badge: the nearest disc up and right of the "+", within two of its sizes
    near = [((x + bw / 2 - centre[0]) ** 2 + (y + bh / 2 - centre[1]) ** 2, x, y, bw, bh) for x, y, bw, bh in discs
            if centre[0] < x + bw / 2 < centre[0] + 2 * pw and centre[1] - 2 * ph < y + bh / 2 < centre[1]]
    best = min(near, key=lambda disc: disc[0], default=None)
    m = int(p * 0.5)
    span = (max(0, px - m), max(0, py - 2 * m), min(w, px + pw + 3 * m), min(h, py + ph + m))
    if best is None:
        return centre, None, span
    _, x, y, bw, bh = best
    disc = image[y:y + bh, x:x + bw].astype(np.float32)
    strong = saturation(image[y:y + bh, x:x + bw]) > 90
    colour = np.median(disc[strong], axis=0) if strong.any() else disc.mean(axis=(0, 1))
    ink = np.abs(disc - colour).max(axis=2)  # the count, in the background colour, on the disc
    # only the disc's inside: the corners outside the circle are background too
    yy, xx = np.mgrid[0:bh, 0:bw]
    inside = ((yy - bh / 2 + 0.5) / (bh / 2)) ** 2 + ((xx - bw / 2 + 0.5) / (bw / 2)) ** 2 < 0.55
    ink = np.where(inside, ink, 0)
    if ink.max() < 40:
        return centre, None, span
    ink = np.clip(ink / ink.max(), 0, 1)
    ys, xs = np.nonzero(ink > 0.45)
    return centre, ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1], span


def badge_zone_clear(image: np.ndarray, centre: tuple[int, int], pitch: float) -> bool:
    """Whether the place of the adds badge (up and right of the "+") shows no colour at all
    beyond the "+" itself: then the badge is not drawn (no add left), not lost to the image."""
    h, w = image.shape[:2]
    cx, cy = centre
    x0, x1 = int(cx + pitch * 0.3), int(min(w, cx + pitch * 1.1))
    y0, y1 = int(max(0, cy - pitch * 1.0)), int(cy - pitch * 0.15)
    if x1 <= x0 or y1 <= y0:
        return False
    return int((saturation(image[y0:y1, x0:x1]) > BADGE_SATURATION).sum()) <= 2


def read_extras(image, bg, lattice: Lattice, profile: Profile, use_tesseract: bool, pool, expect=None) -> dict:
    """The "+" button and its adds-left badge, the stage and the score, each read in ``pool``
    (a thread pool of three threads or more: the three numbers are read side by side, and beside
    the cells, their first tesseract calls sent together: see tesseract.Gather).
    Returns a function that waits for them and gives their dict. ``expect``: the numbers
    predicted by name (``read_number``'s ``expect``).

    A profile remembers where they were found, so that later reads look only there (and look
    everywhere again when that fails). The three reads touch nothing the others do (each its own
    font and place in the geometry).
    """
    geo, fonts = profile.geometry, profile.fonts
    known = [*geo, *fonts]
    gather = tesseract.Gather(3)  # their first tesseract calls in one process
    expect = expect or {}
    parts = [pool.submit(gather.part, read_adds, image, lattice, profile, use_tesseract,
                         expect.get("adds_left", ()))] + \
        [pool.submit(gather.part, read_header_number, image, bg, lattice, profile, use_tesseract, name, pick,
                     expect.get(name, ()))
         for name, pick in (("stage", stage_lines), ("score", score_lines))]

    def result() -> dict:
        out = {"add_button": None, "adds_left": None, "stage": None, "score": None, "learned": False, "why": {}}
        for part in parts:
            got = part.result()
            out["learned"] |= got.pop("learned", False)
            out["why"].update(got.pop("why", {}))
            out.update(got)
        # what they added, in the order of reads made one by one (a stored profile stays the same)
        for where, key in ((geo, "add_area"), (fonts, "badge"), (geo, "stage_band"), (fonts, "stage"),
                           (geo, "score_band"), (fonts, "score")):
            if key in where and key not in known:
                where[key] = where.pop(key)
        return out
    return result


def read_adds(image, lattice: Lattice, profile: Profile, use_tesseract: bool, expect=()) -> dict:
    """The "+" button and the number of adds left on its badge (``expect``: the numbers predicted)."""
    geo = profile.geometry
    out = {"add_button": None, "adds_left": None, "learned": False, "why": {}}
    found = find_add_button(image, lattice, geo.get("add_area")) if geo.get("add_area") else (None, None, None)
    if found[0] is None:
        found = find_add_button(image, lattice)
    centre, badge, span = found
    if centre is None:
        out["why"]["adds_left"] = "the \"+\" button was not found"
    else:
        geo["add_area"] = [int(v) for v in span]
        out["add_button"] = centre
        if badge is None and badge_zone_clear(image, centre, lattice.pitch):
            out["adds_left"] = 0  # the game hides the badge when no add is left
        elif badge is None:
            # something coloured where the badge sits, but not a badge that reads: never 0
            out["why"]["adds_left"] = "the badge beside the \"+\" did not read"
        else:
            value, learned = read_number(np.pad(badge, 1), profile.font("badge"), use_tesseract,
                                         tiny_first=True, expect=expect)
            out["adds_left"] = value
            out["learned"] = learned
            if value is None:
                out["why"]["adds_left"] = "the badge's number did not read"
    return out


def read_header_number(image, bg, lattice: Lattice, profile: Profile, use_tesseract: bool, name: str, pick,
                       expect=()) -> dict:
    """The stage or the score (``name``): a number in the text between the status bar and the
    grid, the stage on the grid's left, the score centred (``pick`` ranks the candidate lines;
    ``expect``: the numbers predicted)."""
    geo = profile.geometry
    out = {name: None, "learned": False, "why": {}}
    top, limit = int(image.shape[0] * 0.02), int(lattice.top - 2)
    band = geo.get(name + "_band")
    value = None
    for y0, y1 in ([band] if band else []) + [[top, limit]]:
        ry = max(top, y0)
        lines = [t for t in text_lines(image, bg, ry, min(limit, y1), min_contrast=35)
                 if lattice.pitch * 0.12 <= t.height <= lattice.pitch * TALLEST_TEXT
                 and t.x1 - t.x0 <= lattice.pitch * WIDEST_NUMBER and t.y0 > ry + 1]
        # only the likeliest line: when it does not read, another that does (the coin
        # count beside it) is not the number
        for t in pick(lines, lattice)[:1]:
            value, learned = read_number(norm_line(t.ink), profile.font(name), use_tesseract, expect=expect)
            out["learned"] |= learned
            if value is not None:
                m = max(2, t.height // 2)
                geo[name + "_band"] = [t.y0 - m, t.y1 + m]
                break
        if value is not None:
            break
    out[name] = value
    if value is None:
        out["why"][name] = f"no {name} number read above the grid"
    return out


def stage_lines(lines, lattice: Lattice):
    """Candidates for the stage number: lines starting at the grid's left edge, lowest first."""
    p, centre = lattice.pitch, (lattice.xs[0] + lattice.xs[-1]) / 2
    left = [t for t in lines if abs(t.x0 - lattice.xs[0]) < p * 0.6 and t.x1 < centre]
    return sorted(left, key=lambda t: -t.y1)


def score_lines(lines, lattice: Lattice):
    """Candidates for the score: lines centred over the grid, tallest first (the row of small
    single digits some versions show, "Numbers cleared 1 2 ... 9", is not a score)."""
    p, centre = lattice.pitch, (lattice.xs[0] + lattice.xs[-1]) / 2
    centred = [t for t in lines if abs(t.centre_x - centre) < p * 0.8]
    centred = [t for t in centred if len(digit_parts(norm_line(t.ink))) < 7]
    return sorted(centred, key=lambda t: (-t.height, -t.y1))


def cut_above(lattice: Lattice) -> bool:
    """Whether a row cut by the top border shows above the first whole row (a board scrolled
    by part of a row): then the board goes on above whatever ``first_row`` says."""
    if not lattice.ys or not lattice.rows:
        return False
    gap = lattice.rows[0][0] - lattice.ys[0]
    return 0.1 * lattice.pitch < gap < 0.95 * lattice.pitch


def read_numbermatch(image: np.ndarray, bg: np.ndarray, dist: np.ndarray, profile: Profile | None,
                     use_tesseract: bool = True, first_row: int = 0, expect=None) -> Reading:
    """Read a Number Match screen (raises ReadError when there is no grid).

    The screen does not show how far the board is scrolled: ``first_row`` (the board row at the
    top of the grid, known to whoever scrolled) numbers the cells; 0 for a board not scrolled.
    ``expect``: the numbers around the board predicted (``vision.read``'s).
    """
    h, w = image.shape[:2]
    theme = screen_theme(bg)
    stale = False
    lattice = None
    if profile is not None:
        if profile.suits("numbermatch", image, theme):
            lattice = quick_lattice(dist, profile.geometry)
        stale = lattice is None
    if lattice is None:
        if profile is not None:
            dist = distance(image, bg)  # the profile's rows were not enough: look everywhere
        lattice = find_lattice(dist)
        if lattice is None or not lattice.rows:
            raise ReadError("no Number Match board found")
        if profile is None or stale:
            profile = Profile("numbermatch", w, h, theme)
        profile.geometry = {"xs": lattice.xs, "pitch": lattice.pitch, "top": lattice.top, "bottom": lattice.bottom,
                            "solid": lattice.solid}
        profile.changed = True
    profile.colours["background"] = [round(float(c), 1) for c in bg]

    ya, yb = int(lattice.rows[0][0]), int(lattice.rows[-1][1]) + 1
    blurred = np.zeros_like(dist)
    blurred[ya:yb] = cv2.blur(dist[ya:yb], blur_size(lattice.pitch * 0.72))
    cells: list[Cell] = []
    for r in range(len(lattice.rows)):
        row_cells = [look_at(image, lattice.cell_box(r, c), dist, blurred) for c in range(COLUMNS)]
        if any(cell is None for cell in row_cells):
            break  # a cell too small to look at: the grid ends here
        cells.extend(row_cells)
        if all(x.contrast < EMPTY for x in row_cells) and r > 0 and all(x.contrast < EMPTY for x in cells[-18:-9]):
            break  # two empty grid rows: the board ended above
    ink = classify(cells, bg, profile.colours.get("live_ink"))
    if ink is not None and "live_ink" not in profile.colours:
        profile.colours["live_ink"], profile.changed = round(ink, 1), True
    glyph_cells = [c for c in cells if c.glyph is not None]
    if not glyph_cells:
        raise ReadError("no Number Match board found")
    font = profile.font("cell")
    geometry_before = {k: list(v) if isinstance(v, list) else v for k, v in profile.geometry.items()}
    # the numbers around the board are read while the cells are
    with ThreadPoolExecutor(max_workers=3) as pool:
        extras = read_extras(image, bg, lattice, profile, use_tesseract, pool, expect)
        return _read_cells(image, dist, lattice, profile, use_tesseract, theme, stale, first_row, cells,
                           glyph_cells, font, geometry_before, extras)


def _read_cells(image, dist, lattice: Lattice, profile: Profile, use_tesseract: bool, theme: str, stale: bool,
                first_row: int, cells: list[Cell], glyph_cells: list[Cell], font, geometry_before: dict,
                extras) -> NumberMatchReading:
    """read_numbermatch once the cells are found: their digits, and the numbers around the board
    (``extras``: read_extras' result, waited for here)."""
    poor = []  # asked only on a read that needs tesseract: a template's match is judged on its own
    digits, learned, bootstrapped, disputed = read_digits(
        glyph_cells, font, use_tesseract, poor=lambda: poor.append(sharpness(glyph_cells) < POOR_SHARPNESS) or poor[0])
    profile.changed = profile.changed or learned

    last = max(i for i, c in enumerate(cells) if c.glyph is not None)
    base = first_row * COLUMNS
    board_cells, centres, selected, why = [], {}, None, {}  # why: each unsure cell's reason
    digit_of = {id(c): d for c, d in zip(glyph_cells, digits)}
    # a template's match was judged against its learned spread; tesseract's reads against the board
    odd = {k for k in unlike_their_digit(glyph_cells, digits) if k in bootstrapped} if bootstrapped else set()
    # on a blurred or tiny image tesseract's first reads are guesses: unsure until a template
    # learned on a sharp screen agrees
    guessed = set(bootstrapped) if poor and poor[0] else set()
    # ... or the digits drawn in phone fonts read the glyph as tesseract did, clearly
    agreed = drawn_agree(glyph_cells, digits, odd | guessed)
    odd = {id(glyph_cells[k]) for k in odd - agreed}
    guessed = {id(glyph_cells[k]) for k in guessed - agreed}
    for i, c in enumerate(cells[:last + 1]):
        d = digit_of.get(id(c))
        if c.state == "faded":
            board_cells.append(0)  # crossed out: which digit it was does not matter
        elif c.glyph is None or d is None or id(c) in odd or id(c) in guessed:
            why[base + i] = ("the digit did not read" if d is None else "looks like another digit's glyphs too"
                             if id(c) in odd else "read on first contact from a blurred or tiny image")
            board_cells.append(0)
        else:
            board_cells.append(int(d))
        x, y = c.centre
        centres[base + i] = (int(round(x)), int(round(y)))
        if c.selected and c.glyph is not None:
            selected = base + i
    at = {id(c): i for i, c in enumerate(cells)}
    for k, reason in disputed.items():  # tesseract's answer for these was not taken: say why
        why[base + at[id(glyph_cells[k])]] = reason
    # cells something is drawn over: unsure, and the board may go on under it
    covered = covered_cells(image, dist, lattice)
    for k in range(last + 1, max(covered, default=-1) + 1):
        board_cells.append(0)
        r, c = divmod(k, COLUMNS)
        centres[base + k] = (int(round((lattice.xs[c] + lattice.xs[c + 1]) / 2)),
                             int(round(lattice.rows[0][0] + (r + 0.5) * lattice.pitch)))
    # the board goes on below when its cells fill every row the grid shows
    more_below = (last + 1) % COLUMNS == 0 and (last + 1) // COLUMNS == len(lattice.rows)

    extras = extras()
    profile.changed = profile.changed or extras.pop("learned") or geometry_before != profile.geometry
    if extras["add_button"] is None and extras["stage"] is None:
        # a grid of digits alone is not Number Match (a web game like TenPair draws one too)
        raise LandmarkError("no Number Match board found: a grid, but no \"+\" button and no stage above it")
    board = Board(board_cells, adds_left=extras["adds_left"], score=extras["score"], stage=extras["stage"])
    reading = NumberMatchReading("numbermatch", "board", board=board, cells=centres, add_button=extras["add_button"],
                                 selected=selected, theme=theme, pitch=lattice.pitch,
                                 first_row=first_row, more_above=first_row > 0 or cut_above(lattice),
                                 more_below=more_below,
                                 rows_visible=(last // COLUMNS) + 1, profile=profile, profile_stale=stale)
    for part, reason in [*why.items(), *extras["why"].items()]:
        reading.doubt(part, reason)
    for why in check_rows(lattice):
        reading.doubt("rows", why)
    if not any(board_cells):
        # every row with all its numbers crossed out goes: no still board shows none live (the
        # moment a stage's last pair fades, or ink this phone's profile knows is not live)
        reading.doubt(CAUGHT_MOVING, "no live number on the board")
    elif any(all(c.state == "faded" for c in cells[r:min(r + COLUMNS, last + 1)]) for r in range(0, last + 1, COLUMNS)):
        # nor a row of them: it is on its way out (its collapse, or the row-removal window of a
        # game that keeps it a moment for pairs chosen meanwhile, seed 004's; phonesim --row-window)
        reading.doubt(CAUGHT_MOVING, "a row with every number crossed out")
    if covered:
        for k in covered:
            if k >= 0:
                reading.doubt(base + k, "covered")
                reading.unsure_why[str(base + k)] = "covered"  # the reason behind any other
        reading.doubt("screen", "something is drawn over the board (a dialog or a banner?)")
        if max(covered) >= last:
            reading.doubt("rows", "the board's end is covered")
    return reading


def check_rows(lattice: Lattice) -> list[str]:
    """Why the rows found may not be the grid's rows (empty when they account for the whole grid):
    the first line must be the grid's top border, every line must lie on the lattice one pitch
    apart (a stroke's double a few pixels off one is no line), and none may be missing."""
    p, ys = lattice.pitch, lattice.ys
    why = []
    if not ys or ys[0] - lattice.top > LINE_SLACK * p:
        why.append("the grid's top line was not found")
    if cut_above(lattice):
        ys = ys[1:]  # the top border, then a row cut by it (a board scrolled by part of a row)
    if not ys:
        return why
    steps = [(y - ys[0]) / p for y in ys]
    if any(abs(k - round(k)) > LINE_SLACK for k in steps):
        why.append("a line off the lattice (an extra line or an uneven grid)")
    on = {round(k) for k in steps}
    end = (lattice.solid if lattice.solid is not None else lattice.bottom) - ys[0]
    if any(k not in on for k in range(max(on)) if k * p < end):
        why.append("a grid line between rows was not found")
    return why


def covered_cells(image: np.ndarray, dist: np.ndarray, lattice: Lattice) -> list[int]:
    """Cells (screen indices, over every row the grid's vertical lines span, one pitch apart from
    the first row found) whose side lines are hidden for most of the row's height: something (a
    dialog, a toast, a banner) is drawn over them."""
    h, w = dist.shape
    p = lattice.pitch
    s = line_scale(w, h)
    first = lattice.rows[0][0]
    first -= int((first - lattice.top) / p + 0.1) * p  # rows above the first found count too
    end = lattice.solid if lattice.solid is not None else lattice.bottom
    n = int((end - first) / p + 0.03)
    ya, yb = int(first), min(h, int(first + n * p))
    if n < 1 or yb - ya < 4:
        return []
    seen = []
    step = LINE_STEP
    rows = np.arange(len(range(ya, yb, step)))
    for x in lattice.xs:
        xi = int(round(x))
        if xi - s - 2 < 0 or xi + s + 3 > w:
            seen.append(np.ones(len(rows), bool))
            continue
        near = dist[ya:yb:step, xi - 1:xi + 2]
        line = image[ya:yb:step, xi - 1:xi + 2].astype(np.int16)[rows, near.argmax(axis=1)]

        def differs(*columns):
            # either of two pixels beside the line: a video frame's colour is shared by two
            # pixels (4:2:0 chroma), so the one at a highlight's edge may take the line's grey
            return np.stack([np.abs(line - image[ya:yb:step, x].astype(np.int16)).max(axis=1)
                             for x in columns]).max(axis=0) > LINE_CONTRAST

        seen.append(differs(xi - s - 1, xi - s - 2) & differs(xi + s + 1, xi + s + 2))
    seen = np.stack(seen)
    out = []
    skip = int(round((lattice.rows[0][0] - first) / p))  # screen indices count from the first row found
    for r in range(n):
        a, b = int((r * p + p * 0.15) / step), int(((r + 1) * p - p * 0.15) / step)
        if b <= a or b > seen.shape[1]:
            continue
        share = seen[:, a:b].mean(axis=1)
        for c in range(COLUMNS):
            if min(share[c], share[c + 1]) < LINE_SEEN:
                out.append((r - skip) * COLUMNS + c)
    return out


def check_geometry(geo: dict, w: int, h: int) -> None:
    """A stored profile's geometry as this reader writes it (the lattice, where the "+" and the
    stage and score lines were found); vision.schema asks, and gets its Wrong when it is not."""
    check_keys("geometry", geo, {"xs", "pitch", "top", "bottom", "solid"}, {"add_area", "stage_band", "score_band"})
    xs = check_numbers("geometry.xs", geo["xs"], COLUMNS + 1, 0, w)
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise Wrong("geometry.xs are not the grid's lines left to right")
    pitch = check_number("geometry.pitch", geo["pitch"], 0, w)
    if pitch <= 0:
        raise Wrong("geometry.pitch is 0: a grid has cells")
    top = check_number("geometry.top", geo["top"], 0, h)
    bottom = check_number("geometry.bottom", geo["bottom"], 0, h)
    if bottom <= top:
        raise Wrong("geometry.bottom is not below geometry.top")
    check_number("geometry.solid", geo["solid"], 0, h)
    if "add_area" in geo:
        x0, y0, x1, y1 = check_numbers("geometry.add_area", geo["add_area"], 4, 0, max(w, h))
        if not (x0 < x1 <= w and y0 < y1 <= h):
            raise Wrong("geometry.add_area is not an area on the screen")
    for band in ("stage_band", "score_band"):
        if band in geo:
            y0, y1 = check_numbers(f"geometry.{band}", geo[band], 2, -h, h)
            if y1 <= y0:
                raise Wrong(f"geometry.{band} is not a band from top to bottom")


# the label of the button on each screen between boards (pill_buttons' names) -> the screen
SCREENS = {"continue": "stage_complete", "new_game": "game_over", "play_again": "game_over"}


def read_message_screen(image: np.ndarray, bg) -> Reading:
    """The screen that is not a board: stage complete, game over, an ad; else ReadError."""
    for name, centre in pill_buttons(image):
        if name in SCREENS:
            return NumberMatchReading("numbermatch", SCREENS[name], buttons={name: centre})
    close = close_button(image, bg)
    if close is not None:
        return NumberMatchReading("numbermatch", "ad", buttons={"close": close})
    raise ReadError("no Number Match screen but its board")


class NumberMatchReader(Reader):
    """vision.read's reader of Number Match: its board, and the screens between boards."""

    game = "numbermatch"
    FONTS = FONTS
    CELL_BENCHMARK = True
    read_board = staticmethod(read_numbermatch)
    read_other_screen = staticmethod(read_message_screen)
    OWN_BUTTONS = frozenset(SCREENS)
    check_geometry = staticmethod(check_geometry)
    check_points = staticmethod(points_from)  # a BoardError (a ValueError) names a bad kind or value

    def trust_case(self, truth: dict) -> dict:
        """The visible cells, the header's numbers, where the first row is, and every cell of the
        board (a row at the faded edge read whole)."""
        b = truth["board"]
        return dict(cells={int(k): b["cells"][int(k)] for k in truth["cells"]},
                    values={"adds_left": b["adds_left"], "stage": b["stage"], "score": b["score"]},
                    first_row_y=min(r[1] + r[3] / 2 for r in truth["cells"].values()),
                    first_row=truth["first_row"], board=dict(enumerate(b["cells"])))

    def trust_label(self, label: dict) -> dict:
        """The cells and the header's numbers."""
        return dict(cells=dict(enumerate(parse_cells(label["board"]))),
                    values={"adds_left": label["refills_left"], "stage": label["stage"], "score": label["score"]})

    def trust_outcome(self, case, perturbation: str, reading: Reading) -> str:
        b = reading.board
        wrong = any(key not in reading.unsure_why and getattr(b, key) != case.values[key]
                    for key in ("adds_left", "stage", "score"))
        # a perturbation that moves the board (crop) shows the truth's rows under other indices
        truth = case.cells if perturbation != "crop" else {}
        whole = (case.board or case.cells) if perturbation != "crop" else {}
        placed = "rows" not in reading.unsure_why and "screen" not in reading.unsure_why
        if placed:
            base = reading.first_row * COLUMNS
            for i, value in enumerate(b.cells, base):
                if i not in reading.unsure and truth.get(i, whole.get(i)) != value:
                    wrong = True  # a wrong digit, or a row made up (past the board, or not its numbers)
            if reading.sure and (base + len(b.cells) < max(truth, default=-1) + 1 or base > min(truth, default=base)):
                wrong = True  # a row on screen lost
        return "misread" if wrong else "exact" if reading.sure else "unsure"

    def trust_words(self, reading: Reading) -> str:
        if reading.board is None:
            return super().trust_words(reading)
        b = reading.board
        return (f"read {b.format()} adds {b.adds_left} stage {b.stage} score {b.score}"
                f" unsure {list(reading.unsure)[:6]}+{reading.parts_unsure}")

    def truth_cells(self, truth: dict) -> list[int]:
        """The visible cells."""
        return [truth["board"]["cells"][int(i)] for i in sorted(int(k) for k in truth["cells"])]

    def reading_cells(self, reading: Reading) -> list[int]:
        return [0 if i in reading.unsure else c for i, c in enumerate(reading.board.cells)]

    def tesseract_cells(self, image: np.ndarray) -> list[int]:
        bg = background(image)
        dist = distance(image, bg)
        lattice = find_lattice(dist)
        cells = [look_at(image, lattice.cell_box(r, c), dist) for r in range(len(lattice.rows)) for c in range(COLUMNS)]
        cells = [c for c in cells if c is not None]
        classify(cells, bg)
        last = max(i for i, c in enumerate(cells) if c.glyph is not None)
        cells = cells[:last + 1]
        reads = iter(glyphs_.read_strip([c.crop for c in cells if c.glyph is not None]))
        out = []
        for c in cells:
            r = next(reads) if c.glyph is not None else []  # no glyph: no read, -1
            out.append(0 if c.state == "faded" else (int(glyphs_.vote(r) or r[0]) if r else -1))
        return out


READER = NumberMatchReader()
