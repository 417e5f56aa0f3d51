"""Reading a Flip 9 screen: the nine cards, the card that must be swapped next, the buttons.

Both layouts are built from boxes (rounded rectangles off the background): keys labelled 1-9
and "New", and in the cards layout nine outlined cards. The inventor's layout writes the cards
as a line of text ("[3, 1, 5, ...]"). The comment line says which card must move ("card 1: 6",
"6 not valid."); the cards layout also outlines that card in the accent colour. The cards are a
permutation of 1-9, which settles a doubtful digit.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import cv2
import numpy as np

from solver.flip9 import State
from vision import glyphs as glyphs_, tesseract
from vision.cells import normalise
from vision.digits import read_single_glyphs
from vision.image import ReadError, background, distance, theme as screen_theme
from vision.profile import Profile
from vision.reader import Reader
from vision.reading import Reading
from vision.shapes import fill_holes, split_glyphs
from vision.text import read_texts, text_lines


FONTS = {"card"}  # the glyph templates this reader learns (a stored profile holds no others)


# Half the height of the band (a share of a box's shorter side) averaged along each side to
# find its edge colour: wide enough to average out camera noise, narrow beside rounded corners.
EDGE_BAND = 0.1
# A cards layout with cards hidden must show at least this many of them over their keys.
CARDS_SEEN = 3
# A pixel this far (0-255, any channel) from the background is part of a box.
OFF_BACKGROUND = 12


@dataclass
class Box:
    x: int
    y: int
    w: int
    h: int
    outlined: bool  # its edge differs from its inside (a card), or not (a key)
    accent: bool  # its edge is coloured (the card that must move)
    glyphs: list  # ink crops (0-1) of the glyphs inside
    text: str | None = None

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.w // 2, self.y + self.h // 2


@dataclass
class Flip9Reading(Reading):
    """A Flip 9 read: its text is the cards in a line, and the card that must be swapped. When a
    card is not read for sure, ``state`` is None, ``cards`` holds the cards read (None where
    unsure) and ``unsure`` the unsure cards' positions (0-8), each with its reason; the
    assistant acts on none of it."""

    cards: list = field(default_factory=list)
    LISTED = 9  # every card unsure is named
    PART_WORDS = {"must": "the card that must move"}
    CELL = "card"
    NOT_READ = "not read"

    def cell_words(self, i: int) -> str:
        return f"card {i + 1}"

    def to_json(self) -> dict:
        out = super().to_json()
        if self.state is None and self.cards:
            out["board"] = {"game": "flip9", "cards": list(self.cards), "must": None}
        return out

    def lines(self) -> list[str]:
        if self.state is None:
            if self.cards:
                return ["Flip 9: cards " + "".join("?" if c is None else str(c) for c in self.cards)]
            return super().lines()
        s = self.state
        return [f"Flip 9: cards {s.format()}" + (f", must swap {s.must}" if s.must else "")]


def find_boxes(image: np.ndarray, dist: np.ndarray) -> list[Box]:
    """Filled or outlined rectangles off the background, each with the glyphs drawn inside."""
    H, W = dist.shape
    # a 3x3 median first: camera or JPEG noise must not break a box's edge into specks
    mask = (cv2.medianBlur(dist, 3) > OFF_BACKGROUND).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    boxes = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if not (W * 0.05 <= w <= W * 0.6 and H * 0.02 <= h <= H * 0.2 and 0.3 <= w / h <= 4):
            continue
        if x == 0 or y == 0 or x + w == W or y + h == H:
            continue  # cut by the screenshot's edge: not a whole box, nor a whole digit in it
        comp = labels[y:y + h, x:x + w] == i
        solid = fill_holes(comp)
        if solid.mean() < 0.85:
            continue
        crop = image[y:y + h, x:x + w]
        m = max(2, int(min(w, h) * 0.22))
        inner = crop[m:h - m, m:w - m]
        ring = np.concatenate([inner[0], inner[-1], inner[:, 0], inner[:, -1]])
        fill = np.median(ring, axis=0)
        # the edge: along each side's inward profile, the pixel farthest from the fill (a
        # border a few pixels deep survives antialiasing and JPEG that way). Each profile is the
        # mean of a band across the side's middle, so that noise is not taken for a border.
        e = max(2, int(min(w, h) * 0.12))
        k = max(1, int(min(w, h) * EDGE_BAND))
        # Pixels of the background (a noisy one joins the box's outline) are no edge.
        picks = []
        for part in (crop.astype(np.float32), dist[y:y + h, x:x + w].astype(np.float32)[..., None]):
            picks.append([part[h // 2 - k:h // 2 + k, :e].mean(axis=0),
                          part[h // 2 - k:h // 2 + k, w - e:].mean(axis=0)[::-1],
                          part[:e, w // 2 - k:w // 2 + k].mean(axis=1),
                          part[h - e:, w // 2 - k:w // 2 + k].mean(axis=1)[::-1]])
        picks = [side[int(np.where(off[:, 0] > OFF_BACKGROUND, np.abs(side - fill).max(axis=1), -1).argmax())]
                 for side, off in zip(*picks)]
        edge_col = np.median(np.array(picks, np.float32), axis=0)
        outlined = float(np.abs(edge_col - fill).max()) > 25
        accent = outlined and float(edge_col.max() - edge_col.min()) > 80
        ink = distance(inner, fill).astype(np.float32)
        top = float(np.percentile(ink, 99.5))
        if top < 40:
            continue
        ink = np.clip(ink / top, 0, 1)
        parts = split_glyphs(ink)
        parts = [p for p in parts if p.shape[0] >= 0.25 * inner.shape[0]]
        boxes.append(Box(int(x), int(y), int(w), int(h), outlined, accent, parts))
    return boxes


def same_size(boxes: list[Box]) -> list[Box]:
    """The nine boxes of one size (keys, or cards) among boxes, in reading order; else []."""
    for b in boxes:
        alike = [o for o in boxes if abs(o.w - b.w) <= 0.1 * b.w and abs(o.h - b.h) <= 0.1 * b.h]
        if len(alike) == 9:
            return sorted(alike, key=lambda o: (round(o.y / o.h), o.x))
    return []


def settle_permutation(digits: list[str | None], crops: list[np.ndarray], font: glyphs_.Templates) -> list[int] | None:
    """Nine digits that must be 1-9 once each: fill one missing or fix one clash by templates."""
    if len(digits) != 9:
        return None
    values = [int(d) if d else 0 for d in digits]
    if sorted(values) == list(range(1, 10)):
        return values
    missing = [v for v in range(1, 10) if v not in values]
    if len(missing) == 1:
        # the doubtful one: a blank, or of a clashing pair the one its template likes less
        blanks = [i for i, v in enumerate(values) if v == 0]
        if blanks:
            values[blanks[0]] = missing[0]
        else:
            dup = [v for v in set(values) if values.count(v) == 2][0]
            idx = [i for i, v in enumerate(values) if v == dup]
            scores = [font.match([normalise(crops[i])])[0][1] for i in idx]
            values[idx[int(np.argmin(scores))]] = missing[0]
        if sorted(values) == list(range(1, 10)):
            return values
    return None


def cards_over_keys(outlined: list[Box], keys: list[Box]) -> list[Box | None]:
    """The cards layout with some cards hidden: nine slots, one over each key (the keys of that
    layout stand in one row under the cards), each the card seen there or None; [] when fewer
    than CARDS_SEEN cards of one size stand in one row over the keys (no cards layout)."""
    if len(keys) != 9 or max(b.y for b in keys) - min(b.y for b in keys) > keys[0].h * 0.2:
        return []
    size = np.median([b.h for b in outlined]) if outlined else 0
    row = [b for b in outlined if abs(b.h - size) <= 0.1 * size]
    if len(row) < CARDS_SEEN or max(b.y for b in row) - min(b.y for b in row) > size * 0.2 \
            or max(b.y for b in row) > min(b.y for b in keys):
        return []
    slots: list[Box | None] = []
    for key in sorted(keys, key=lambda b: b.x):
        over = [b for b in row if abs(b.centre[0] - key.centre[0]) < key.w / 2]
        slots.append(over[0] if len(over) == 1 else None)
    return slots if sum(b is not None for b in slots) == len(row) else []


def doubtful_cards(digits: list[str | None]) -> dict[int, str]:
    """The cards (positions) of a read that is not a permutation of 1-9, each with why it is
    unsure: not read, or read as the same digit as another card (one of them is wrong)."""
    out = {}
    for k, d in enumerate(digits):
        if d is None:
            out[k] = "the digit did not read"
        elif digits.count(d) > 1:
            out[k] = f"read as {d}, like another card"
    return out


def read_line_digits(image, bg, box_bottom: int, top: int):
    """The inventor's card line "[3, 1, 5, ...]": nine digits and each one's centre (the widest
    line that has that shape: a notification over the top of the screen is a wide line too)."""
    lines = [t for t in text_lines(image, bg, top, box_bottom, min_contrast=60) if t.x1 - t.x0 > image.shape[1] * 0.3]
    for line in sorted(lines, key=lambda t: t.x0 - t.x1):
        crops, centres = card_line(line)
        if crops is not None:
            return crops, centres
    return None, None


def card_line(line):
    """A text line's nine digit crops and centres when it reads as "[d, d, ..., d]", else None."""
    mask = (line.ink > 0.45).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    comps = sorted((stats[i] for i in range(1, n) if stats[i][4] > 2), key=lambda s: s[0])
    if len(comps) < 11:
        return None, None
    tall = max(s[3] for s in comps)
    # brackets are the tallest, commas the smallest: digits are the tall ones between
    inner = comps[1:-1]
    digits = [s for s in inner if s[3] >= 0.55 * tall]
    if len(digits) != 9:
        return None, None
    crops = [line.ink[s[1]:s[1] + s[3], s[0]:s[0] + s[2]] for s in digits]
    centres = [(line.x0 + int(s[0] + s[2] / 2), line.y0 + int(s[1] + s[3] / 2)) for s in digits]
    return crops, centres


NUMBER = re.compile(r"(\d)")
# A line of ink under this part of the tallest line's height near the comment is a speck or an
# icon's edge, not text: it is not given to tesseract (each call costs a tenth of a second or more).
SPECK_PART = 0.5
# How far left of the time as read its line may reach as the time grows ("9:59" to "10:00"),
# in line heights: a digit and its colon are each under one.
CLOCK_GROWTH = 2


def read_comment(image, bg, y0: int, y1: int, profile: Profile, use_tesseract: bool,
                 stop: tesseract.Stop | None = None) -> tuple[str, int | None, int | None, list]:
    """The comment line's kind ("card", "not_valid", "winner", "" for none, "unread" for a centred
    line that did not read as any of them) and its number, the moves, and where the time is
    (``Reading.ticking``).

    Only two lines are read: the centred one (the comment) and the one at the left edge (the
    moves); the time on the right changes every second and says nothing about the cards. Reads
    are remembered by the line's pixels, so an unchanged line is not read again. ``stop``: the
    caller no longer needs the comment (its reads are then not remembered).
    """
    W = image.shape[1]
    cache = profile.texts
    kind, number, moves = "", None, None
    lines = {}  # the lines to read, by their pixels
    centred_lines = set()  # ... those of them in the middle: the comment's place
    ticking = []
    found = text_lines(image, bg, y0, y1, min_contrast=60)
    tallest = max((t.y1 - t.y0 for t in found), default=0)
    for t in found:
        centred = abs(t.centre_x - W / 2) < W * 0.08
        left = t.x0 < W * 0.3 and t.x1 < W * 0.6
        if not (centred or left):
            if t.x0 > W / 2:  # the time, right-aligned: it grows leftwards as the minutes pass
                h = t.y1 - t.y0
                ticking.append((max(0, t.x0 - CLOCK_GROWTH * h), max(0, t.y0 - h // 2), W, t.y1 + h // 2))
        elif t.y1 - t.y0 >= SPECK_PART * tallest:
            key = (t.x0 // 4, t.y0 // 4, t.x1 // 4, t.y1 // 4, hash((t.ink > 0.5).tobytes()))
            lines[key] = t
            if centred:
                centred_lines.add(key)
    unread = [key for key in lines if key not in cache] if use_tesseract else []
    # the lines not read before, all at once
    texts = read_texts([np.clip(lines[key].ink * 1.5, 0, 1) for key in unread], stop=stop)
    if stop is not None and stop.stopped:
        return "", None, None, ticking
    cache.update(zip(unread, texts))
    for key in lines:
        low = (cache.get(key) or "").lower().replace(" ", "")  # a line not read says nothing either
        if key in centred_lines and not (low.startswith("card") or "valid" in low or "winner" in low):
            kind = kind or "unread"  # a comment it cannot make out may name the card that must move
        if low.startswith("moves"):
            m = re.findall(r"\d+", low)
            moves = int(m[0]) if m else None
        elif low.startswith("card"):
            m = NUMBER.findall(low[5:] if low.startswith("card1") else low[4:])
            kind, number = "card", int(m[-1]) if m else None
        elif "valid" in low:
            m = NUMBER.findall(low)
            kind, number = "not_valid", int(m[0]) if m else None
        elif "winner" in low:
            kind = "winner"
    return kind, number, moves, ticking


def read_flip9(image, bg, dist, profile: Profile | None, use_tesseract: bool = True, first_row: int = 0,
              expect=None) -> Reading:
    """Read a Flip 9 screen (raises ReadError when there is none): cards, must, buttons. The cards
    never scroll (``first_row`` stays 0)."""
    H, W = dist.shape
    theme = screen_theme(bg)
    stale = profile is not None and not profile.suits("flip9", image, theme)
    if profile is None or stale:
        profile = Profile("flip9", W, H, theme, changed=True)
    boxes = find_boxes(image, dist)
    singles = [b for b in boxes if len(b.glyphs) == 1]
    keys = same_size([b for b in singles if not b.outlined])
    if len(singles) < 9 or not keys:
        raise ReadError("no Flip 9 board found")
    key_top = min(b.y for b in keys)
    key_bottom = max(b.y + b.h for b in keys)
    new = [b for b in boxes if b.y > key_bottom and len(b.glyphs) >= 2 and not b.outlined]
    new_button = min(new, key=lambda b: b.y).centre if new else None
    # the comment line under the keys is read (by tesseract, on first sight) while the digits are
    stop = tesseract.Stop()
    with ThreadPoolExecutor(max_workers=1) as pool:
        comment = pool.submit(read_comment, image, bg, key_bottom, new_button[1] - 10 if new_button else H,
                              profile, use_tesseract, stop)
        try:
            return _read_cards(image, bg, profile, use_tesseract, theme, stale, singles, keys, key_top,
                               new_button, comment)
        finally:
            stop.stop()  # the comment not waited for (an unsure read, no board): no more of its tesseract calls


def _read_cards(image, bg, profile: Profile, use_tesseract: bool, theme: str, stale: bool, singles, keys,
                key_top: int, new_button, comment) -> Reading:
    """read_flip9 once the boxes are found: the keys' and cards' digits, and the comment's
    (``comment``: the future of read_comment) forced card."""
    H = image.shape[0]
    font = profile.font("card")
    digits = read_single_glyphs([b.glyphs[0] for b in singles], font, use_tesseract)
    for b, d in zip(singles, digits):
        b.text = d
    cards = same_size([b for b in singles if b.outlined])
    key_values = settle_permutation([b.text for b in keys], [b.glyphs[0] for b in keys], font)
    if key_values is None:
        raise ReadError("no Flip 9 board found")
    buttons = {str(v): b.centre for v, b in sorted(zip(key_values, keys))}  # "1" to "9" (a permutation)
    if new_button is not None:
        buttons["new"] = new_button
    must_box = None
    covered: list[int] = []
    if len(cards) != 9:  # some cards hidden (a notification over them)? Their keys still show where
        cards = cards_over_keys([b for b in singles if b.outlined], keys)
        covered = [k for k, b in enumerate(cards) if b is None]
    if cards:
        if not covered:
            cards = sorted(cards, key=lambda b: (b.y // max(1, b.h), b.x))
        digits = [b.text if b else None for b in cards]
        # a covered card is never settled by the permutation: the screen is not all there
        values = None if covered else settle_permutation(digits, [b.glyphs[0] for b in cards], font)
        seen = [b for b in cards if b]
        row_y = int(np.median([b.centre[1] for b in seen]))
        positions = {k: b.centre if b else (keys[k].centre[0], row_y) for k, b in enumerate(cards)}
        highlighted = [b for b in seen if b.accent]
        must_box = highlighted[0] if len(highlighted) == 1 else None
    else:
        crops, centres = read_line_digits(image, bg, key_top, int(H * 0.04))
        if crops is None:
            raise ReadError("no Flip 9 board found: the line of cards did not read")
        digits = read_single_glyphs(crops, font, use_tesseract)
        values = settle_permutation(digits, crops, font)
        positions = dict(enumerate(centres))
    if values is None:  # the cards read for sure are named; the others, and so the state, unsure
        unsure = doubtful_cards(digits)
        unsure.update(dict.fromkeys(covered, "covered"))
        reading = Flip9Reading("flip9", "board", cells=positions, buttons=buttons, theme=theme, profile=profile,
                               profile_stale=stale, cards=[None if k in unsure else int(d) for k, d in enumerate(digits)])
        for k in sorted(unsure):
            reading.doubt(k, unsure[k])
        reading.doubt("must", "not every card read")
        if covered:
            reading.doubt("screen", "something is drawn over the cards (a notification?)")
        return reading
    kind, number, moves, ticking = comment.result()
    must = None
    chosen = number if kind in ("card", "not_valid") else None
    if must_box is not None:
        chosen = values[cards.index(must_box)]  # the outlined card, as the permutation read it
    if chosen is not None and moves is not None and moves > 0:
        must = chosen  # before the first swap the chosen card is only picked, not forced
    reading = Flip9Reading("flip9", "board", state=State(tuple(values), must), cells=positions, buttons=buttons, theme=theme,
                           profile=profile, profile_stale=stale, ticking=ticking)
    if kind == "unread" and must_box is None:
        reading.doubt("must", "the comment line did not read")
    elif kind in ("card", "not_valid") and number is None and must_box is None:
        reading.doubt("must", "the comment's card did not read")
    elif chosen is not None and moves is None:
        reading.doubt("must", "the moves line did not read")  # no swap yet: the chosen card is free
    if kind == "winner":
        reading.notes.append("sorted: Winner!")
    return reading


class Flip9Reader(Reader):
    """vision.read's reader of Flip 9 (it has no screen between boards that tapsolve reads)."""

    game = "flip9"
    FONTS = FONTS
    CELL_BENCHMARK = True
    read_board = staticmethod(read_flip9)

    def trust_case(self, truth: dict) -> dict:
        """The cards, the card that must move, and where the first row of cards (or keys) is."""
        s = truth["state"]
        rows = truth["cards"] or {k: v for k, v in truth["buttons"].items() if k.isdigit()}
        # sorted: the card the last swap forced is drawn nowhere (and no longer matters)
        must = None if s["cards"] == list(range(1, 10)) else s["must"]
        return dict(values={"cards": s["cards"], "must": must},
                    first_row_y=min(r[1] + r[3] / 2 for r in rows.values()))

    def trust_outcome(self, case, perturbation: str, reading: Reading) -> str:
        s = reading.state
        if s is None:  # some cards unsure: every card it did claim must be right
            claimed = [c for k, c in enumerate(reading.cards) if k not in reading.unsure]
            truth = [c for k, c in enumerate(case.values["cards"]) if k not in reading.unsure]
            return "unsure" if claimed == truth and reading.unsure else "misread"
        claimed = {"cards": list(s.cards), "must": s.must if case.values["must"] is not None else None}
        if reading.unsure_why:  # the must (or the screen) unsure: the cards it claims must be right
            return "unsure" if "cards" in reading.unsure_why or claimed["cards"] == case.values["cards"] else "misread"
        return "exact" if claimed == case.values else "misread"

    def trust_words(self, reading: Reading) -> str:
        if reading.state is not None:
            return f"read {reading.state.format()} must {reading.state.must}"
        return f"read {reading.cards} unsure {reading.unsure}"

    def truth_cells(self, truth: dict) -> list[int]:
        """The cards."""
        return list(truth["state"]["cards"])

    def reading_cells(self, reading: Reading) -> list[int]:
        return list(reading.state.cards)

    def tesseract_cells(self, image: np.ndarray) -> list[int]:
        bg = background(image)
        boxes = find_boxes(image, distance(image, bg))
        cards = same_size([b for b in boxes if b.outlined and len(b.glyphs) == 1])
        keys = same_size([b for b in boxes if not b.outlined and len(b.glyphs) == 1])
        if cards:
            crops = [b.glyphs[0] for b in cards]
        else:
            crops, _ = read_line_digits(image, bg, min(b.y for b in keys), int(image.shape[0] * 0.04))
        reads = glyphs_.read_strip(crops or [])
        return [int(r[0]) if r else 0 for r in reads]


READER = Flip9Reader()
