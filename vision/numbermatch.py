"""Reading a Number Match screen: the grid, every cell, the adds badge, the stage and the score."""

from __future__ import annotations

import cv2
import numpy as np

from solver.numbermatch import Board
from vision import glyphs as glyphs_
from vision.cells import Cell, blur_size, classify, look_at, normalise
from vision.grid import COLUMNS, Lattice, find_lattice, full_rows, horizontal_profile, line_positions
from vision.image import ReadError, distance
from vision.profile import Profile
from vision.reading import Reading
from vision.text import read_text, saturation, text_lines



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
    s = max(2, int(round(max(w, h * 0.45) / 270)))
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


def clusters(glyphs: list[np.ndarray], level: float = 0.88) -> list[list[int]]:
    """Groups of glyphs that look alike (correlation with the group's first glyph >= level):
    on one screen, every glyph of a digit is drawn the same way."""
    if not glyphs:
        return []
    g = np.stack([glyphs_.centred(x) for x in glyphs])
    sim = g @ g.T
    groups: list[list[int]] = []
    heads: list[int] = []
    for i in range(len(glyphs)):
        for k, h in enumerate(heads):
            if sim[i, h] >= level:
                groups[k].append(i)
                break
        else:
            heads.append(i)
            groups.append([i])
    return groups


def looks_more_like(look: np.ndarray, digit: str, heads: dict[str, np.ndarray]) -> bool:
    """Whether a glyph correlates clearly better with another digit's look than with ``digit``'s
    (by a margin: tiny glyphs shift by a pixel and correlate loosely with their own kind)."""
    own = float(look @ heads[digit])
    return any(float(look @ v) > own + 0.1 for k, v in heads.items() if k != digit)


def read_digits(cells: list[Cell], font: glyphs_.Templates, use_tesseract: bool = True) -> tuple[list, bool]:
    """A digit (or None when unsure) for each glyph cell, and whether the font learned something.

    Glyphs the templates are sure of are taken; the others are grouped by look and read by
    tesseract in one strip, each group taking its members' majority (so one misread glyph is
    outvoted); a group with no majority is read alone, and stays unsure if that fails too.
    """
    matches = font.match([c.glyph for c in cells])
    digits: list[str | None] = [d if font.sure(d, best, margin) else None for d, best, margin in matches]
    doubtful = [i for i, d in enumerate(digits) if d is None]
    learned = False
    if not doubtful or not use_tesseract:
        return digits, learned
    reads = glyphs_.read_strip([cells[i].crop for i in doubtful])
    votes = dict(zip(doubtful, reads))
    groups = sorted(([doubtful[k] for k in g] for g in clusters([cells[i].glyph for i in doubtful])),
                    key=len, reverse=True)
    heads: dict[str, np.ndarray] = {}  # the biggest group's look of each digit
    known = {k: glyphs_.centred(v) for k, v in font.sums.items()}  # learned on earlier reads
    for members in groups:
        digit = glyphs_.vote([r for i in members for r in votes[i]])
        if digit is None:
            digit = glyphs_.read_one(cells[members[0]].crop)
        if digit is None:
            continue
        # a template that is sure of another digit wins over tesseract: they were learned by vote
        d, best, margin = matches[members[0]]
        if d is not None and d != digit and font.sure(d, best, margin):
            continue
        look = glyphs_.centred(cells[members[0]].glyph)
        if digit in heads and looks_more_like(look, digit, heads):
            continue  # looks more like another digit as drawn elsewhere on this board: unsure
        if digit in known and looks_more_like(look, digit, known):
            continue  # or as this device's templates know it
        heads.setdefault(digit, look)
        for i in members:
            digits[i] = digit
            font.add(digit, cells[i].glyph)
        learned = True
    return digits, learned


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
    mask = (sat > 45).astype(np.uint8)
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
            discs.append((x + x0, y + y0, bw, bh, i))
        cy, cx = bh // 2, bw // 2
        band = max(1, min(bw, bh) // 8)
        cross = comp[cy - band:cy + band + 1].any(axis=0).mean() > 0.8 and comp[:, cx - band:cx + band + 1].any(axis=1).mean() > 0.8
        if cross and fill < 0.45 and (plus is None or x + x0 < plus[0]):
            plus = (x + x0, y + y0, bw, bh)
    if plus is None:
        return None, None, None
    px, py, pw, ph = plus
    centre = (int(round(px + pw / 2)), int(round(py + ph / 2)))
    best = None
    for x, y, bw, bh, i in discs:
        cx, cy = x + bw / 2, y + bh / 2
        if cx > centre[0] and cy < centre[1] and abs(cx - centre[0]) < 2 * pw and abs(cy - centre[1]) < 2 * ph:
            dist = (cx - centre[0]) ** 2 + (cy - centre[1]) ** 2
            if best is None or dist < best[0]:
                best = (dist, x, y, bw, bh)
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


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """A binary mask with its enclosed holes filled."""
    m = np.pad(mask.astype(np.uint8), 1)
    flood = m.copy()
    cv2.floodFill(flood, np.zeros((m.shape[0] + 2, m.shape[1] + 2), np.uint8), (0, 0), 1)
    return ((m | (1 - flood)) > 0)[1:-1, 1:-1]


def split_glyphs(ink: np.ndarray) -> list[np.ndarray]:
    """The glyph crops of a line of text, split at empty columns."""
    cols = (ink > 0.45).any(axis=0)
    out, x = [], 0
    while x < len(cols):
        if cols[x]:
            a = x
            while x < len(cols) and cols[x]:
                x += 1
            part = ink[:, a:x]
            rows = np.flatnonzero((part > 0.45).any(axis=1))
            out.append(part[rows[0]:rows[-1] + 1])
        x += 1
    return out


TINY = 14  # glyphs fewer pixels high than this are matched against drawn fonts before tesseract


def digit_parts(ink: np.ndarray) -> list[np.ndarray]:
    """The glyphs of a number's line, without separators: a thousands comma (or dot) is far
    shorter than the digits, and tesseract drops it, so it must not count as a digit."""
    parts = split_glyphs(ink)
    tall = max((g.shape[0] for g in parts), default=0)
    return [g for g in parts if g.shape[0] >= 0.6 * tall]


def read_number(ink: np.ndarray, font: glyphs_.Templates, use_tesseract: bool = True,
                tiny_first: bool = False) -> tuple[int | None, bool]:
    """A whole number from a line of ink: templates when they are sure, else tesseract (learning).

    A digit the templates are sure of wins over tesseract's read of it (they were learned from
    agreeing reads); only the glyphs they are unsure of are learned from tesseract, and only
    when tesseract gave one digit per glyph and agreed with every sure one (a misread learned
    would misread that digit on every later screen).
    ``tiny_first``: a glyph too small for tesseract (a badge) is matched with drawn fonts first.
    """
    parts = digit_parts(ink)
    if not parts:
        return None, False
    norm = [normalise(g) for g in parts]
    matches = font.match(norm)
    sure = [font.sure(d, best, margin) for d, best, margin in matches]
    if all(sure):
        return int("".join(d for d, _, _ in matches)), False
    text = None
    if tiny_first and max(g.shape[0] for g in parts) < TINY:
        text = drawn_font_read(parts)
    if text is None and use_tesseract:
        text = ocr_number(ink)
    if text is None:
        text = drawn_font_read(parts)
    if text is None:
        return None, False
    if len(text) != len(parts):
        return int(text), False  # glyphs split otherwise than tesseract read them: learn nothing
    if any(ok and d != t for (d, _, _), ok, t in zip(matches, sure, text)):
        # tesseract contradicts a sure template: keep the templates' digits, learn nothing
        return int("".join(d if ok else t for (d, _, _), ok, t in zip(matches, sure, text))), False
    known = {k: glyphs_.centred(v) for k, v in font.sums.items()}
    learned = False
    for (d, _, _), ok, t, g in zip(matches, sure, text, norm):
        if ok or (t in known and looks_more_like(glyphs_.centred(g), t, known)):
            continue  # already known, or looks more like another digit of this font: not learned
        font.add(t, g)
        learned = True
    return int(text), learned


def drawn_font_read(parts: list[np.ndarray]) -> str | None:
    """Digits of glyph crops by drawn fonts, when every one is clearly ahead of the rest."""
    from vision import fontmatch

    out = ""
    for g in parts:
        d, score, margin = fontmatch.match(g)
        if d is None or score < 0.5 or margin < 0.1:
            return None
        out += d
    return out


LOOKALIKE = str.maketrans({"O": "0", "o": "0", "D": "0", "Q": "0", "l": "1", "I": "1", "|": "1", "i": "1",
                           "Z": "2", "z": "2", "S": "5", "s": "5", "B": "8", "g": "9", "q": "9", "A": "4"})


def ocr_number(ink: np.ndarray) -> str | None:
    """Tesseract on a line that should be a number; tries the page modes that suit short lines
    (a lone "0" often comes back empty in line mode) and maps look-alike letters to digits."""
    for psm, chars in ((7, "0123456789"), (6, "0123456789"), (7, None)):
        text = read_text(ink, chars, psm=psm).replace(" ", "").replace(",", "").replace(".", "")
        text = text.translate(LOOKALIKE)
        if text.isdigit():
            return text
    return None


def read_extras(image, bg, lattice: Lattice, profile: Profile, use_tesseract: bool) -> dict:
    """The "+" button and its adds-left badge, the stage and the score.

    A profile remembers where they were found, so that later reads look only there (and look
    everywhere again when that fails).
    """
    geo = profile.geometry
    out = {"add_button": None, "adds_left": None, "stage": None, "score": None, "learned": False}
    found = find_add_button(image, lattice, geo.get("add_area")) if geo.get("add_area") else (None, None, None)
    if found[0] is None:
        found = find_add_button(image, lattice)
    centre, badge, span = found
    if centre is not None:
        geo["add_area"] = [int(v) for v in span]
        out["add_button"] = centre
        if badge is None:
            out["adds_left"] = 0
        else:
            value, learned = read_number(np.pad(badge, 1), profile.font("badge"), use_tesseract,
                                         tiny_first=True)
            out["adds_left"] = value
            out["learned"] |= learned
    # text between the status bar and the grid: stage on the grid's left, score centred
    top, limit = int(image.shape[0] * 0.02), int(lattice.top - 2)
    for name, pick in (("stage", stage_lines), ("score", score_lines)):
        band = geo.get(name + "_band")
        value = None
        for y0, y1 in ([band] if band else []) + [[top, limit]]:
            lines = [t for t in text_lines(image, bg, max(top, y0), min(limit, y1), min_contrast=35)
                     if t.height >= lattice.pitch * 0.12]
            for t in pick(lines, lattice):
                value, learned = read_number(norm_line(t.ink), profile.font(name), use_tesseract)
                out["learned"] |= learned
                if value is not None:
                    m = max(2, t.height // 2)
                    geo[name + "_band"] = [t.y0 - m, t.y1 + m]
                    break
            if value is not None:
                break
        out[name] = value
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


def norm_line(ink: np.ndarray) -> np.ndarray:
    """A text line's ink scaled so its strongest strokes are 1."""
    top = float(np.percentile(ink, 99)) if ink.size else 0
    return np.clip(ink / top, 0, 1) if top > 0 else ink


def cut_above(lattice: Lattice) -> bool:
    """Whether a row cut by the top border shows above the first whole row (a board scrolled
    by part of a row): then the board goes on above whatever ``first_row`` says."""
    if not lattice.ys or not lattice.rows:
        return False
    gap = lattice.rows[0][0] - lattice.ys[0]
    return 0.1 * lattice.pitch < gap < 0.95 * lattice.pitch


def read_numbermatch(image: np.ndarray, bg: np.ndarray, dist: np.ndarray, profile: Profile | None,
                     use_tesseract: bool = True, templates: bool = True, first_row: int = 0) -> Reading:
    """Read a Number Match screen (raises ReadError when there is no grid).

    The screen does not show how far the board is scrolled: ``first_row`` (the board row at the
    top of the grid, known to whoever scrolled) numbers the cells; 0 for a board not scrolled.
    """
    h, w = image.shape[:2]
    theme = "light" if float(np.mean(bg)) > 128 else "dark"
    stale = False
    lattice = None
    if profile is not None:
        if profile.game == "numbermatch" and profile.fits(image) and profile.theme == theme:
            lattice = quick_lattice(dist, profile.geometry)
        stale = lattice is None
    if lattice is None:
        if profile is not None:
            dist = distance(image, bg)  # the profile's rows were not enough: look everywhere
        lattice = find_lattice(dist)
        if lattice is None or not lattice.rows:
            raise ReadError("no Number Match or Flip 9 board found")
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
        row_cells = []
        for c in range(COLUMNS):
            cell = look_at(image, lattice.cell_box(r, c), dist, blurred)
            if cell is None:
                break
            cell.row, cell.col = r, c
            row_cells.append(cell)
        if len(row_cells) < COLUMNS:
            break
        cells.extend(row_cells)
        if all(x.contrast < 12 for x in row_cells) and r > 0 and all(x.contrast < 12 for x in cells[-18:-9]):
            break  # two empty grid rows: the board ended above
    classify(cells, bg)
    glyph_cells = [c for c in cells if c.glyph is not None]
    if not glyph_cells:
        raise ReadError("no Number Match or Flip 9 board found")
    font = profile.font("cell") if templates else glyphs_.Templates()
    digits, learned = read_digits(glyph_cells, font, use_tesseract)
    profile.changed = profile.changed or learned

    last = max(i for i, c in enumerate(cells) if c.glyph is not None)
    base = first_row * COLUMNS
    board_cells, unsure, centres, selected = [], [], {}, None
    digit_of = {id(c): d for c, d in zip(glyph_cells, digits)}
    for i, c in enumerate(cells[:last + 1]):
        d = digit_of.get(id(c))
        if c.glyph is None or d is None:
            unsure.append(base + i)
            board_cells.append(0)
        else:
            board_cells.append(0 if c.state == "faded" else int(d))
        x, y = c.centre
        centres[base + i] = (int(round(x)), int(round(y)))
        if c.selected and c.glyph is not None:
            selected = base + i
    # the board goes on below when its cells fill every row the grid shows
    more_below = (last + 1) % COLUMNS == 0 and (last + 1) // COLUMNS == len(lattice.rows)

    geometry_before = {k: list(v) if isinstance(v, list) else v for k, v in profile.geometry.items()}
    extras = read_extras(image, bg, lattice, profile, use_tesseract)
    profile.changed = profile.changed or extras.pop("learned") or geometry_before != profile.geometry
    board = Board(board_cells, adds_left=extras["adds_left"] if extras["adds_left"] is not None else 0,
                  score=extras["score"] or 0, stage=extras["stage"] or 1)
    reading = Reading("numbermatch", "board", board=board, cells=centres, add_button=extras["add_button"],
                      selected=selected, unsure=unsure, theme=theme, pitch=lattice.pitch,
                      first_row=first_row, more_above=first_row > 0 or cut_above(lattice),
                      more_below=more_below,
                      rows_visible=(last // COLUMNS) + 1, profile=profile, profile_stale=stale)
    for key in ("adds_left", "stage", "score"):
        if extras[key] is None:
            reading.notes.append(f"{key.replace('_', ' ')} not read")
    return reading


read_board = read_numbermatch  # vision.read's entry for this game (solver.games finds the module)


def read_other_screen(image: np.ndarray, bg) -> Reading:
    """Number Match's screens between boards: stage complete, game over, an ad (vision.screens)."""
    from vision.screens import read_message_screen

    return read_message_screen(image, bg)
