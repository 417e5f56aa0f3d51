"""Digits from glyphs, for every game's reader: the device's templates (vision.glyphs) first,
tesseract on one strip for the glyphs they are unsure of, each group of look-alike glyphs voting;
and whole numbers from a line of ink (a score, a badge), checked two ways before they are learned.
"""

from __future__ import annotations

from collections.abc import Collection

import cv2
import numpy as np

from vision import glyphs as glyphs_
from vision.cells import Cell, normalise
from vision.shapes import split_glyphs
from vision.text import read_text
from vision.thresholds import (CLEARLY_MORE_LIKE, DRAWN_MARGIN, DRAWN_SCORE, INK_LEVELS, LOOK_ALIKE, OTHER_SHAPE,
                               SEPARATOR, TINY, UNLIKE_MARGIN)

LOOKALIKE = str.maketrans({"O": "0", "o": "0", "D": "0", "Q": "0", "l": "1", "I": "1", "|": "1", "i": "1",
                           "Z": "2", "z": "2", "S": "5", "s": "5", "B": "8", "g": "9", "q": "9", "A": "4"})


def clusters(glyphs: list[np.ndarray], level: float = LOOK_ALIKE) -> list[list[int]]:
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
    return any(float(look @ v) > own + CLEARLY_MORE_LIKE for k, v in heads.items() if k != digit)


def read_digits(cells: list[Cell], font: glyphs_.Templates, use_tesseract: bool = True,
                poor=lambda: False) -> tuple[list, bool, set, dict]:
    """A digit (or None when unsure) for each glyph cell, whether the font learned something,
    which cells tesseract read (the templates were not sure of them), and why tesseract's read of
    a cell was not taken where its answers were disputed (``disputes``). ``poor()`` (asked only
    when tesseract is needed) says the image is too poor to learn templates from.

    Glyphs the templates are sure of are taken; the others are grouped by look and read by
    tesseract in one strip, each group taking its members' majority (so a glyph whose reads
    split is outvoted); a group with no majority is read alone, and stays unsure if that fails
    too. A member read at every ink level as one other digit stays unsure: on a noisy or small
    screen an 8 can look enough like the 3s to join their group, and tesseract was right.
    """
    matches = font.match([c.glyph for c in cells])
    digits: list[str | None] = [d if font.sure(d, best, margin) else None for d, best, margin in matches]
    doubtful = [i for i, d in enumerate(digits) if d is None]
    learned, why = False, {}
    if not doubtful or not use_tesseract:
        return digits, learned, set(), why
    learn = not poor()
    reads = glyphs_.read_strip([cells[i].crop for i in doubtful])
    votes = dict(zip(doubtful, reads))
    groups = sorted(([doubtful[k] for k in g] for g in clusters([cells[i].glyph for i in doubtful])),
                    key=len, reverse=True)
    heads: dict[str, np.ndarray] = {}  # the biggest group's look of each digit
    known = {k: glyphs_.centred(v) for k, v in font.sums.items()}  # learned on earlier reads
    labelled = []  # (members, digit, look, crop) of each group tesseract's read is taken for
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
        labelled.append((members, digit, look, cells[members[0]].crop))
    disputed = disputes([(digit, look, crop) for _, digit, look, crop in labelled])
    for k, (members, digit, _, _) in enumerate(labelled):
        if k in disputed:
            for i in members:
                why[i] = disputed[k]
            continue  # tesseract's answer contradicts itself or the drawn digits: nothing learned
        for i in members:
            own = set(votes[i])
            if len(votes[i]) == len(INK_LEVELS) and len(own) == 1 and own.pop() in glyphs_.DIGITS.replace(digit, ""):
                continue  # read at every ink level as one other digit: not outvoted, unsure
            digits[i] = digit
            if learn:
                font.add(digit, cells[i].glyph)
        learned = learn
    return digits, learned, set(doubtful), why


def disputes(labelled: list[tuple[str, np.ndarray, np.ndarray]]) -> dict[int, str]:
    """Of the glyph groups tesseract labelled, each (digit, look, ink crop), those its label is
    not to be taken for, with why: one the digits drawn in phone fonts (vision.fontmatch) clearly
    read as another digit, or, unless they clearly read it as its label, a label tesseract also
    gave to a group of clearly different shape (one digit is drawn one way on a board). A tesseract answering garbage (one digit for every glyph)
    makes an unsure read, never a confident board."""
    from vision import fontmatch

    out = {}
    for k, (digit, look, crop) in enumerate(labelled):
        drawn, score, margin = fontmatch.match(crop)
        clear = score >= DRAWN_SCORE and margin >= DRAWN_MARGIN
        if clear and drawn != digit:
            out[k] = f"tesseract read {digit} where the phone-font digits show {drawn}"
        elif not clear and any(d == digit and float(look @ other) < OTHER_SHAPE for d, other, _ in labelled):
            # which of the shapes is the digit, only the drawn digits could say (a glyph they
            # clearly read as its label keeps it)
            out[k] = f"tesseract read glyphs of clearly different shapes all as {digit}"
    return out


def read_single_glyphs(crops: list[np.ndarray], font: glyphs_.Templates, use_tesseract: bool,
                       chars: str = glyphs_.DIGITS) -> list[str | None]:
    """Digits of single glyphs: templates first, the rest by look-alike groups on one strip
    (``chars``: the digits the glyphs can be; the 15-puzzle's tiles have 0s too)."""
    norm = [normalise(c) for c in crops]
    matches = font.match(norm)
    out = [d if font.sure(d, b, m) else None for d, b, m in matches]
    doubtful = [i for i, d in enumerate(out) if d is None]
    if doubtful and use_tesseract:
        reads = glyphs_.read_strip([crops[i] for i in doubtful], chars)
        labelled = []
        for group in clusters([norm[i] for i in doubtful]):
            members = [doubtful[k] for k in group]
            digit = glyphs_.vote([r for k in group for r in reads[k]])
            if digit is not None:
                labelled.append((members, digit, glyphs_.centred(norm[members[0]]), crops[members[0]]))
        disputed = disputes([(digit, look, crop) for _, digit, look, crop in labelled])
        for k, (members, digit, _, _) in enumerate(labelled):
            if k in disputed:
                continue  # tesseract's answer contradicts itself or the drawn digits: unsure
            for i in members:
                out[i] = digit
                font.add(digit, norm[i])
    return out


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
    means = {d: v / max(1e-6, float(np.linalg.norm(v))) for d, v in sums.items()}
    odd = []
    for j, (k, d) in enumerate(zip(live, labels)):
        others = [float(g[j] @ m) for e, m in means.items() if e != d]
        if not others or labels.count(d) < 2:
            continue  # no other digit, or a digit seen once: no look on this board to judge it against
        rest = sums[d] - g[j]  # its own digit without itself
        own = float(g[j] @ rest) / max(1e-6, float(np.linalg.norm(rest)))
        if max(others) > own - UNLIKE_MARGIN:
            odd.append(k)
    return odd


def drawn_agree(cells: list[Cell], digits: list, which) -> set[int]:
    """Of the cells ``which`` (indices), those whose glyph the phone fonts drawn at its size
    (vision.fontmatch) read as its digit in ``digits``, clearly ahead of every other digit:
    tesseract's read and the drawn digits agreeing is evidence enough on a small or soft image,
    where the board's own glyphs are too alike to judge a read by."""
    from vision import fontmatch

    out = set()
    for k in which:
        if digits[k] is None or cells[k].crop is None:
            continue
        d, score, margin = fontmatch.match(cells[k].crop)
        if d == digits[k] and score >= DRAWN_SCORE and margin >= DRAWN_MARGIN:
            out.add(k)
    return out


def digit_parts(ink: np.ndarray) -> list[np.ndarray]:
    """The glyphs of a number's line, without separators: a thousands comma (or dot) is far
    shorter than the digits, and tesseract drops it, so it must not count as a digit."""
    parts = split_glyphs(ink)
    tall = max((g.shape[0] for g in parts), default=0)
    return [g for g in parts if g.shape[0] >= SEPARATOR * tall]


def read_number(ink: np.ndarray, font: glyphs_.Templates, use_tesseract: bool = True,
                tiny_first: bool = False, expect: Collection[int] = ()) -> tuple[int | None, bool]:
    """A whole number from a line of ink: templates when they are sure, else tesseract (learning).

    A digit the templates are sure of wins over tesseract's read of it (they were learned from
    agreeing reads); only the glyphs they are unsure of are learned from tesseract, and only
    when tesseract gave one digit per glyph and agreed with every sure one (a misread learned
    would misread that digit on every later screen).
    ``tiny_first``: a glyph too small for tesseract (a badge) is matched with drawn fonts first.
    ``expect``: the numbers the screen is predicted to show here (the move just made's score):
    when the drawn fonts read one of them, the prediction is the second way of reading the line
    and tesseract (a tenth of a second) is not asked; a number other than predicted still is.
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
    predicted = drawn is not None and drawn in {str(v) for v in expect}  # (as drawn: no leading 0)
    line = drawn if predicted else ocr_number(ink) if use_tesseract else None
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
        vote = glyphs_.vote(reads)
        if vote is None and reads:
            # its two binarisations split (a blurred 5 read once as a 6): tesseract on the glyph
            # alone decides, as for a cell (read_digits), when the drawn digits' best is its digit too
            vote = glyphs_.read_one(parts[k], "0123456789")
            if vote is not None and drawn_best(parts[k]) not in (None, vote):
                return False
        seen = [r[k] for r in ways] + ([vote] if vote else [])
        if len(seen) < 2 or any(d != text[k] for d in seen):
            return False
    return True


def drawn_best(glyph: np.ndarray) -> str | None:
    """The digit drawn in phone fonts a glyph looks most like (however narrowly), or None."""
    from vision import fontmatch

    return fontmatch.match(glyph)[0]


def drawn_font_read(parts: list[np.ndarray]) -> str | None:
    """Digits of glyph crops by drawn fonts, when every one is clearly ahead of the rest."""
    from vision import fontmatch

    out = ""
    for g in parts:
        d, score, margin = fontmatch.match(g)
        if d is None or score < DRAWN_SCORE or margin < DRAWN_MARGIN:
            return None
        out += d
    return out


def ocr_number(ink: np.ndarray) -> str | None:
    """Tesseract on a line that should be a number; tries the page modes that suit short lines
    (a lone "0" often comes back empty in line mode) and maps look-alike letters to digits."""
    for psm, chars in ((7, "0123456789"), (6, "0123456789"), (7, None)):
        text = read_text(ink, chars, psm=psm).replace(" ", "").replace(",", "").replace(".", "")
        text = text.translate(LOOKALIKE)
        if text.isdigit():
            return text
    return None
