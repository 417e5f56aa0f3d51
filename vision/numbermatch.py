"""Reading a Number Match screen: the grid, every cell, the adds badge, the stage and the score."""

from __future__ import annotations

import cv2
import numpy as np

from solver.numbermatch import Board
from vision import glyphs as glyphs_
from vision.cells import Cell, blur_size, classify, look_at, normalise
from vision.grid import COLUMNS, Lattice, find_lattice, full_rows, horizontal_profile, line_positions
from vision.image import LandmarkError, ReadError, distance
from vision.profile import Profile
from vision.reading import Reading
from vision.text import read_text, saturation, text_lines


# Digits fewer edge widths tall than this (see ``sharpness``) are too soft for a first read to
# be sure of, or for templates to be learned from.
POOR_SHARPNESS = 10
# A glyph must correlate with the other glyphs of its digit by this much more than with any other
# digit's glyphs on the board, or its read is unsure.
UNLIKE_MARGIN = 0.05
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


def read_digits(cells: list[Cell], font: glyphs_.Templates, use_tesseract: bool = True,
                poor=lambda: False) -> tuple[list, bool, set]:
    """A digit (or None when unsure) for each glyph cell, whether the font learned something, and
    which cells tesseract read (the templates were not sure of them). ``poor()`` (asked only
    when tesseract is needed) says the image is too poor to learn templates from.

    Glyphs the templates are sure of are taken; the others are grouped by look and read by
    tesseract in one strip, each group taking its members' majority (so one misread glyph is
    outvoted); a group with no majority is read alone, and stays unsure if that fails too.
    """
    matches = font.match([c.glyph for c in cells])
    digits: list[str | None] = [d if font.sure(d, best, margin) else None for d, best, margin in matches]
    doubtful = [i for i, d in enumerate(digits) if d is None]
    learned = False
    if not doubtful or not use_tesseract:
        return digits, learned, set()
    learn = not poor()
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
            if learn:
                font.add(digit, cells[i].glyph)
        learned = learn
    return digits, learned, set(doubtful)


def sharpness(cells: list[Cell]) -> float:
    """How many edge widths tall the live digits are (median): some 20-50 on a phone's own
    screenshot, under 10 when it was shrunk to a thumbnail, blurred or blown up from one."""
    values = []
    for c in cells:
        if c.state != "live" or c.crop is None or min(c.crop.shape) < 3:
            continue
        crop = c.crop.astype(np.float32)
        gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8
        values.append(crop.shape[0] * float(np.percentile(np.hypot(gx, gy), 99)))
    return float(np.median(values)) if values else 0.0


def unlike_their_digit(cells: list[Cell], digits: list) -> list[int]:
    """Live glyphs that look as much like the board's glyphs of another digit as like the other
    glyphs of their own: on one screen a digit is drawn one way, so such a read is a guess (a
    first contact on a blurred or tiny image mixes up 5 and 6, 3 and 8)."""
    live = [k for k, (c, d) in enumerate(zip(cells, digits)) if d is not None and c.state == "live"]
    if len(live) < 2:
        return []
    g = np.stack([glyphs_.centred(cells[k].glyph) for k in live])
    labels = [digits[k] for k in live]
    sums = {d: g[[j for j, x in enumerate(labels) if x == d]].sum(axis=0) for d in set(labels)}
    counts = {d: labels.count(d) for d in sums}
    means = {d: v / max(1e-6, float(np.linalg.norm(v))) for d, v in sums.items()}
    odd = []
    for j, (k, d) in enumerate(zip(live, labels)):
        others = [float(g[j] @ m) for e, m in means.items() if e != d]
        if not others:
            continue
        if counts[d] > 1:  # its own digit without itself
            rest = sums[d] - g[j]
            own = float(g[j] @ rest) / max(1e-6, float(np.linalg.norm(rest)))
        else:
            continue  # a digit seen once has no look on this board to be judged against
        if max(others) > own - UNLIKE_MARGIN:
            odd.append(k)
    return odd


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
    drawn = drawn_font_read(parts)
    line = ocr_number(ink) if use_tesseract else None
    text = drawn if tiny_first and max(g.shape[0] for g in parts) < TINY and drawn else (line or drawn)
    if text is None:
        return None, False
    if len(text) != len(parts):
        # glyphs split otherwise than tesseract read them (an icon in the line, touching
        # digits): which digit is which glyph is a guess, and so is the number
        return None, False
    if use_tesseract and not confirmed(parts, text, sure, [line, drawn]):
        return None, False  # two ways of reading a glyph disagree, or only one read it
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


def confirmed(parts: list[np.ndarray], text: str, sure: list[bool], whole: list[str | None]) -> bool:
    """Whether each glyph no template is sure of reads as its digit in ``text`` in two ways at
    least and as no other digit in any: the whole line's reads (``whole``: tesseract's, the
    drawn fonts'), then, where those are not enough, tesseract on the glyph alone (the majority
    of two binarisations)."""
    ways = [r for r in whole if r is not None and len(r) == len(parts)]
    need = []
    for k, ok in enumerate(sure):
        seen = [r[k] for r in ways]
        if ok:
            continue
        if any(d != text[k] for d in seen):
            return False
        if len(seen) < 2:
            need.append(k)
    alone = glyphs_.read_strip([parts[k] for k in need], chars="0123456789") if need else []
    for k, reads in zip(need, alone):
        seen = [r[k] for r in ways] + ([vote] if (vote := glyphs_.vote(reads)) else [])
        if len(seen) < 2 or any(d != text[k] for d in seen):
            return False
    return True


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
    out = {"add_button": None, "adds_left": None, "stage": None, "score": None, "learned": False, "why": {}}
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
                                         tiny_first=True)
            out["adds_left"] = value
            out["learned"] |= learned
            if value is None:
                out["why"]["adds_left"] = "the badge's number did not read"
    # text between the status bar and the grid: stage on the grid's left, score centred
    top, limit = int(image.shape[0] * 0.02), int(lattice.top - 2)
    for name, pick in (("stage", stage_lines), ("score", score_lines)):
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
                value, learned = read_number(norm_line(t.ink), profile.font(name), use_tesseract)
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
    poor = []  # asked only on a read that needs tesseract: a template's match is judged on its own
    digits, learned, bootstrapped = read_digits(
        glyph_cells, font, use_tesseract, poor=lambda: poor.append(sharpness(glyph_cells) < POOR_SHARPNESS) or poor[0])
    profile.changed = profile.changed or learned

    last = max(i for i, c in enumerate(cells) if c.glyph is not None)
    base = first_row * COLUMNS
    board_cells, unsure, centres, selected, why = [], [], {}, None, {}
    digit_of = {id(c): d for c, d in zip(glyph_cells, digits)}
    # a template's match was judged against its learned spread; tesseract's reads against the board
    odd = {id(glyph_cells[k]) for k in unlike_their_digit(glyph_cells, digits) if k in bootstrapped} \
        if bootstrapped else set()
    # on a blurred or tiny image tesseract's first reads are guesses: unsure until a template
    # learned on a sharp screen agrees
    guessed = {id(glyph_cells[k]) for k in bootstrapped} if poor and poor[0] else set()
    for i, c in enumerate(cells[:last + 1]):
        d = digit_of.get(id(c))
        if c.state == "faded":
            board_cells.append(0)  # crossed out: which digit it was does not matter
        elif c.glyph is None or d is None or id(c) in odd or id(c) in guessed:
            unsure.append(base + i)
            why[base + i] = ("the digit did not read" if d is None else "looks like another digit's glyphs too"
                             if id(c) in odd else "read on first contact from a blurred or tiny image")
            board_cells.append(0)
        else:
            board_cells.append(int(d))
        x, y = c.centre
        centres[base + i] = (int(round(x)), int(round(y)))
        if c.selected and c.glyph is not None:
            selected = base + i
    # cells something is drawn over: unsure, and the board may go on under it
    covered = covered_cells(image, dist, lattice)
    for k in range(last + 1, max(covered, default=-1) + 1):
        board_cells.append(0)
        r, c = divmod(k, COLUMNS)
        centres[base + k] = (int(round((lattice.xs[c] + lattice.xs[c + 1]) / 2)),
                             int(round(lattice.rows[0][0] + (r + 0.5) * lattice.pitch)))
    # the board goes on below when its cells fill every row the grid shows
    more_below = (last + 1) % COLUMNS == 0 and (last + 1) // COLUMNS == len(lattice.rows)

    geometry_before = {k: list(v) if isinstance(v, list) else v for k, v in profile.geometry.items()}
    extras = read_extras(image, bg, lattice, profile, use_tesseract)
    profile.changed = profile.changed or extras.pop("learned") or geometry_before != profile.geometry
    if extras["add_button"] is None and extras["stage"] is None:
        # a grid of digits alone is not Number Match (a web game like TenPair draws one too)
        raise LandmarkError("no Number Match board found: a grid, but no \"+\" button and no stage above it")
    board = Board(board_cells, adds_left=extras["adds_left"], score=extras["score"], stage=extras["stage"])
    reading = Reading("numbermatch", "board", board=board, cells=centres, add_button=extras["add_button"],
                      selected=selected, unsure=unsure, theme=theme, pitch=lattice.pitch,
                      first_row=first_row, more_above=first_row > 0 or cut_above(lattice),
                      more_below=more_below,
                      rows_visible=(last // COLUMNS) + 1, profile=profile, profile_stale=stale)
    for i in unsure:
        reading.doubt(i, why[i])
    for key, why in extras["why"].items():
        reading.doubt(key, why)
    for why in check_rows(lattice):
        reading.doubt("rows", why)
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
    s = max(2, int(round(max(w, h * 0.45) / 270)))
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
        if xi - s - 1 < 0 or xi + s + 2 > w:
            seen.append(np.ones(len(rows), bool))
            continue
        near = dist[ya:yb:step, xi - 1:xi + 2]
        line = image[ya:yb:step, xi - 1:xi + 2].astype(np.int16)[rows, near.argmax(axis=1)]
        left = image[ya:yb:step, xi - s - 1].astype(np.int16)
        right = image[ya:yb:step, xi + s + 1].astype(np.int16)
        seen.append((np.abs(line - left).max(axis=1) > LINE_CONTRAST)
                    & (np.abs(line - right).max(axis=1) > LINE_CONTRAST))
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


read_board = read_numbermatch  # vision.read's entry for this game (solver.games finds the module)


def read_other_screen(image: np.ndarray, bg) -> Reading:
    """Number Match's screens between boards: stage complete, game over, an ad (vision.screens)."""
    from vision.screens import read_message_screen

    return read_message_screen(image, bg)
