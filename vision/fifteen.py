"""Reading a numbered sliding board (the 15-puzzle, 3x3 to 5x5) on any app's screen: its tiles, each number, the gap.

No app's colours are known beforehand. The screen is cut into flat patches (pixels whose colour
barely differs from their neighbours'): a tile's face is one, whatever its colour, its digits
holes in it. Tiles are patches of one size (square or tall, rounded or not) sitting on an
N x N lattice (N = 3, 4 or 5) with nothing of their size next to it; the lattice's one cell
with no patch (a hole showing the frame) or with a patch bearing no ink (a filled cell, a blank
tile) is the gap. Numbers are read glyph by glyph, tesseract first, then the app's own glyphs
learned into its profile once a read is sure: a read is sure only when its tiles are 1..N*N-1
once each, and a tile read otherwise is unsure with why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from solver.fifteen import Board, BoardError
from vision import tesseract
from vision.cells import normalise
from vision.digits import drawn_font_read, read_single_glyphs
from vision.glyphs import PAD, Templates, ocr_image
from vision.image import ReadError, distance, theme as screen_theme
from vision.profile import Profile
from vision.reader import Reader
from vision.reading import Reading
from vision.schema import Wrong, check_int, check_keys, check_numbers
from vision.shapes import fill_holes, split_glyphs
from vision.thresholds import STROKE

SIZES = (5, 4, 3)  # tiles a side, the largest tried first (a 3x3 window of a 5x5 board is not alone)
WORK_WIDTH = 720  # patches are found on the screen shrunk to at most this wide: tiles stay 40+ px
FLAT = 14  # a face pixel's colour differs from its 3x3 neighbours' by at most this (JPEG noise, shading)
TILE_MIN, TILE_MAX = 1 / 16, 1 / 2.2  # a tile's width against the screen's (a store image's screen is smaller)
TALL = (0.7, 1.6)  # a tile's height / width: square or tall
SOLID = 0.75  # share of its box a tile's face fills, digits' holes filled (rounded corners lose some)
SAME_SIZE = 0.12  # tiles of one board differ in width and height by at most this share
ALIGNED = 0.3  # a tile's centre lies within this share of a tile from its row's and column's
EVEN = 0.12  # a lattice's steps differ by at most this share of their mean
INK = 40  # a glyph differs from its tile's face by more than this (less: a blank face, the gap)
REGULAR_STROKE = 0.09  # a regular digit's stroke is about this share of its height (a thin one's: a third)
GLYPH_MIN = 0.15  # a digit is at least this share of the tile's height ...
GLYPH_SHARE = 0.5  # ... and of its tallest glyph (smaller ink: a shadow, a speck)
DIGITS_0_9 = "0123456789"
FONTS = {"tile"}  # the glyph templates this reader learns (a stored profile holds no others)
SECOND_READ_MODES = (7, 8)  # tesseract's page modes a doubtful tile's number is read whole in (a line, a word)
MARGIN = 0.15  # a stored board's box is searched first, grown by this share of its side
SAME_PLACE = 0.05  # a board found there is the stored one when its box's sides are within this share of it


@dataclass
class Patch:
    """A flat patch of one colour on the shrunk screen: a tile's face, or a gap drawn filled."""

    x: int
    y: int
    w: int
    h: int
    glyphs: list | None = field(default=None, repr=False)  # its number's ink crops once cut (0-1)

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


class FifteenReading(Reading):
    """A 15-puzzle read: the board (None when a tile is unsure) and each cell's centre."""

    NOT_READ = "not read"

    def text(self) -> str:
        if self.board is None:
            cells = ", ".join(f"cell {c} (row {c // self.size + 1}, column {c % self.size + 1}"
                              + (f": {self.unsure_why[str(c)]}" if str(c) in self.unsure_why else "") + ")"
                              for c in self.unsure)
            return f"15-puzzle {self.size}x{self.size}: unsure {cells}"
        head = f"15-puzzle {self.size}x{self.size}" + (", solved" if self.board.is_won() else "")
        return "\n".join([head, *self.board.format().split(", ")])

    def cell_words(self, i: int) -> str:
        return f"row {i // self.size + 1} column {i % self.size + 1}"

    @property
    def size(self) -> int:
        return int(round(len(self.cells) ** 0.5)) or 4


def flat_patches(image: np.ndarray) -> tuple[list[Patch], float]:
    """The solid patches of one colour that could be tiles, on the screen shrunk by the returned
    factor (each pixel of a patch differs from its neighbours by at most FLAT)."""
    H, W = image.shape[:2]
    f = max(1.0, W / WORK_WIDTH)
    small = cv2.resize(image, (round(W / f), round(H / f)), interpolation=cv2.INTER_AREA) if f > 1 else image
    # smoothed first: a JPEG's ringing around digits must not cut a face apart (a 1-pixel line
    # between touching tiles keeps half its contrast)
    smooth = cv2.GaussianBlur(small, (3, 3), 0)
    grad = cv2.morphologyEx(smooth, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    edge = cv2.max(cv2.max(grad[..., 0], grad[..., 1]), grad[..., 2])
    n, labels, stats, _ = cv2.connectedComponentsWithStats((edge <= FLAT).astype(np.uint8), connectivity=4)
    sw = small.shape[1]
    found = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if not (sw * TILE_MIN <= w <= sw * TILE_MAX) or not TALL[0] <= h / w <= TALL[1]:
            continue
        if area < SOLID * w * h * 0.5 or fill_holes(labels[y:y + h, x:x + w] == i).mean() < SOLID:
            continue
        found.append(Patch(x, y, w, h))
    return found, f


def size_groups(patches: list[Patch]) -> list[list[Patch]]:
    """Patches grouped by size (each group: those within SAME_SIZE of one patch), largest first."""
    out, seen = [], set()
    for p in sorted(patches, key=lambda p: -p.w * p.h):
        group = [q for q in patches if abs(q.w - p.w) <= SAME_SIZE * p.w and abs(q.h - p.h) <= SAME_SIZE * p.h]
        key = frozenset(map(id, group))
        if len(group) >= 8 and key not in seen:
            seen.add(key)
            out.append(group)
    return out


def clusters_1d(values: list[float], tolerance: float) -> list[float]:
    """The means of runs of sorted values no more than ``tolerance`` apart."""
    runs: list[list[float]] = []
    for v in sorted(values):
        if runs and v - runs[-1][-1] <= tolerance:
            runs[-1].append(v)
        else:
            runs.append([v])
    return [sum(r) / len(r) for r in runs]


def even(centres: list[float], low: float, high: float) -> float | None:
    """The step of evenly spaced centres (None when uneven or not between low and high)."""
    steps = np.diff(centres)
    mean = float(steps.mean())
    if not low <= mean <= high or float(np.abs(steps - mean).max()) > EVEN * mean:
        return None
    return mean


def lattice(group: list[Patch], n: int) -> tuple[dict[int, Patch], list[float], list[float]] | None:
    """An n x n lattice of this group's patches alone on screen: each cell's patch (n*n - 1 or
    n*n of them), the columns' and the rows' centres; None when none is found."""
    w = float(np.median([p.w for p in group]))
    h = float(np.median([p.h for p in group]))
    cols = clusters_1d([p.centre[0] for p in group], ALIGNED * w)
    rows = clusters_1d([p.centre[1] for p in group], ALIGNED * h)
    for r0 in range(len(rows) - n + 1):
        ys = rows[r0:r0 + n]
        py = even(ys, 0.95 * h, 1.7 * h)
        if py is None:
            continue
        for c0 in range(len(cols) - n + 1):
            xs = cols[c0:c0 + n]
            px = even(xs, 0.95 * w, 1.7 * w)
            if px is None:
                continue
            cells: dict[int, Patch] = {}
            alone = True
            for p in group:
                c = (p.centre[0] - xs[0]) / px
                r = (p.centre[1] - ys[0]) / py
                if abs(c - round(c)) > ALIGNED or abs(r - round(r)) > ALIGNED:
                    continue
                c, r = int(round(c)), int(round(r))
                if 0 <= c < n and 0 <= r < n:
                    if r * n + c in cells:
                        alone = False
                    cells[r * n + c] = p
                elif -1 <= c <= n and -1 <= r <= n:
                    alone = False  # a patch of a tile's size just beside it: part of a larger grid
            if alone and len(cells) >= n * n - 1:
                return cells, xs, ys
    return None


def glyphs_of(tile: np.ndarray) -> list[np.ndarray]:
    """A tile's number as glyph ink crops (0-1), measured against the tile's own face colour."""
    h, w = tile.shape[:2]
    m = max(2, int(min(h, w) * 0.1))  # inside the rounded corners
    inner = tile[m:h - m, m:w - m]
    ring = np.concatenate([inner[0], inner[-1], inner[:, 0], inner[:, -1]])
    ink = distance(inner, np.median(ring, axis=0)).astype(np.float32)
    # the glyph's strong ink, past a stray pixel (every pixel: a thin 1 is a column or two wide)
    top = float(np.percentile(ink, 99.7))
    if top < INK:
        return []
    ink = np.clip(ink / top, 0, 1)
    glyphs = [g for g in split_glyphs(ink) if g.shape[0] >= GLYPH_MIN * inner.shape[0]]
    tallest = max((g.shape[0] for g in glyphs), default=0)
    return [bolder(g) for g in glyphs if g.shape[0] >= GLYPH_SHARE * tallest]


def bolder(glyph: np.ndarray) -> np.ndarray:
    """A glyph of thin strokes (an app's thin font) thickened to a regular weight: shrunk to
    tesseract's size its strokes would thin away. A glyph of regular or heavy strokes is kept."""
    h = glyph.shape[0]
    solid = (glyph > STROKE).astype(np.uint8)
    stroke = 2 * float(cv2.distanceTransform(np.pad(solid, 1), cv2.DIST_L2, 3).max())
    grow = int(round(REGULAR_STROKE * h - stroke))
    if grow < 1:
        return glyph
    padded = np.pad(glyph, grow)
    return cv2.dilate(padded, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (grow + 1, grow + 1)))


def find_board(image: np.ndarray, box=None) -> tuple[dict[int, Patch], int, list[float], list[float], int]:
    """The board on screen (in ``box`` = x, y, w, h of the full screen when given): each cell's
    patch (full-screen pixels, glyphs cut), its size, its columns' and rows' centres, and the
    gap's cell; ReadError when none is there."""
    x0 = y0 = 0
    if box is not None:
        x0, y0, bw, bh = box
        image = image[y0:y0 + bh, x0:x0 + bw]
    patches, f = flat_patches(image)
    reason = "no tiles of one size on a square lattice"
    for group in size_groups(patches):
        for n in SIZES:
            found = lattice(group, n)
            if found is None:
                continue
            cells, xs, ys = found
            for c, p in cells.items():  # in full-screen pixels, with the number's glyphs
                x, y, w, h = (int(round(v * f)) for v in (p.x, p.y, p.w, p.h))
                cells[c] = Patch(x + x0, y + y0, w, h, glyphs_of(image[y:y + h, x:x + w]))
            gaps = [c for c in range(n * n) if c not in cells or not cells[c].glyphs]
            if len(gaps) != 1:
                reason = f"a {n}x{n} lattice of tiles with {len(gaps)} blank cells, not one gap"
                break
            return cells, n, [x * f + x0 for x in xs], [y * f + y0 for y in ys], gaps[0]
    raise ReadError(f"no 15-puzzle board found: {reason}")


def read_fifteen(image, bg, dist, profile: Profile | None, use_tesseract: bool = True, first_row: int = 0,
                expect=None) -> Reading:
    """Read a 15-puzzle screen (raises ReadError when there is none): tiles, centres, unsure tiles.
    The board never scrolls (``first_row`` stays 0)."""
    H, W = image.shape[:2]
    theme = screen_theme(bg)
    stale = False
    if profile is None or not profile.suits("fifteen", image, theme):
        stale = profile is not None and profile.game == "fifteen"  # another game's is not stale
        profile = Profile("fifteen", W, H, theme, changed=True)
    found = None
    box = profile.geometry.get("board")
    if box is not None:  # where the board was: a small part of the screen to cut into patches
        bx, by, bw, bh = box
        gx, gy = int(bw * MARGIN), int(bh * MARGIN)
        x0, y0 = max(0, bx - gx), max(0, by - gy)
        try:
            found = find_board(image, (x0, y0, min(W, bx + bw + gx) - x0, min(H, by + bh + gy) - y0))
        except ReadError:
            found = None  # moved, or not there: the whole screen
        # only the stored board itself: a lattice cut out of something larger (another game's
        # grid) looks alone in the part searched, and is judged on the whole screen instead
        if found is not None and (found[1] != profile.geometry.get("size")
                                  or any(abs(a - b) > SAME_PLACE * bw for a, b in zip(board_box(found[0]), box))):
            found = None
    cells, n, xs, ys, gap = found or find_board(image)
    tiled = [c for c in sorted(cells) if c != gap]
    crops = [g for c in tiled for g in cells[c].glyphs]
    font = (profile.fonts.get("tile") or Templates()).copy()  # into the profile only once the read is sure
    digits = iter(read_single_glyphs(crops, font, use_tesseract, DIGITS_0_9))
    values: dict[int, int | None] = {}
    for c in tiled:
        read = [next(digits) for _ in cells[c].glyphs]
        values[c] = int("".join(read)) if all(read) and read[0] != "0" else None
    why = unsure_tiles(values, n)
    read_whole = sorted(why) if use_tesseract else []
    if read_whole:  # a second way: each doubtful tile's number read whole
        values = second_reads(values, why, {c: cells[c].glyphs for c in why}, n)
        why = unsure_tiles(values, n)
    centres = {c: (int(round(xs[c % n])), int(round(ys[c // n]))) for c in range(n * n)}
    pitch = float((xs[-1] - xs[0]) / (n - 1))
    board = None
    notes = []
    if not why:
        try:
            board = Board([values.get(c, 0) for c in range(n * n)])
        except BoardError as exc:  # a permutation the rules cannot reach: some tile misread
            why = dict.fromkeys(tiled, "the board read cannot be reached by slides")
            notes.append(f"the tiles read cannot be a real board ({exc}): not trusted")
    if board is not None:
        for c in read_whole:  # the sure board bears out their numbers: their glyphs are learned too
            digits = str(values[c])
            if len(digits) == len(cells[c].glyphs):
                for d, glyph in zip(digits, cells[c].glyphs):
                    font.add(d, normalise(glyph))
        geometry = {"board": board_box(cells), "size": n}
        if profile.geometry != geometry or font.counts != getattr(profile.fonts.get("tile"), "counts", {}):
            profile.geometry, profile.fonts["tile"], profile.changed = geometry, font, True
    screen = "stage_complete" if board is not None and board.is_won() else "board"
    top = int(min(p.y for p in cells.values()))
    bottom = int(max(p.y + p.h for p in cells.values()))
    # a header's moves and timer, buttons under the board: all but the board changes on its own
    ticking = [(0, 0, W, max(0, top - 2)), (0, min(H, bottom + 2), W, H)]
    reading = FifteenReading("fifteen", screen, board=board, cells=centres, theme=theme, pitch=pitch,
                             rows_visible=n, profile=profile, profile_stale=stale, notes=notes, ticking=ticking)
    for c, reason in why.items():
        reading.doubt(c, reason)
    return reading


def board_box(cells: dict[int, Patch]) -> list[int]:
    """The box (x, y, w, h) around a board's patches."""
    left, top = min(p.x for p in cells.values()), min(p.y for p in cells.values())
    right, bottom = max(p.x + p.w for p in cells.values()), max(p.y + p.h for p in cells.values())
    return [left, top, right - left, bottom - top]


def number_image(glyphs: list[np.ndarray]) -> np.ndarray:
    """A tile's glyphs side by side, black on white, for tesseract to read as one number."""
    parts = [ocr_image(g) for g in glyphs]
    space = np.full((parts[0].shape[0], PAD // 2), 255, np.uint8)
    line = np.hstack([p for g in parts for p in (g, space)][:-1])
    return cv2.copyMakeBorder(line, PAD, PAD, PAD, PAD, cv2.BORDER_CONSTANT, value=255)


def second_reads(values: dict[int, int | None], why: dict[int, str], glyphs: dict[int, list], n: int) -> dict:
    """The tiles read glyph by glyph, each doubtful one then read whole, several ways: tesseract
    in line and word mode (one call each, a page a tile), the digits drawn in phone fonts, and
    its glyph read. A doubtful tile takes a number two of them agree on that no sure tile has;
    the last doubtful tile takes the one number still missing if one of them read it so. The
    board is sure only if every tile is then 1..n*n-1 once (``unsure_tiles``)."""
    doubtful = sorted(why)
    images = [number_image(glyphs[c]) for c in doubtful]
    reads: dict[int, list[int]] = {c: [] if values[c] is None else [values[c]] for c in doubtful}
    for psm in SECOND_READ_MODES:
        for c, text in zip(doubtful, tesseract.run(images, tesseract.options(psm, DIGITS_0_9))):
            if text.strip().isdigit() and text.strip()[0] != "0":
                reads[c].append(int(text.strip()))
    for c in doubtful:
        drawn = drawn_font_read(glyphs[c])
        if drawn and drawn[0] != "0":
            reads[c].append(int(drawn))
    out = dict(values)
    taken = {v for c, v in values.items() if c not in why}
    for c in doubtful:
        ranked = Counter(v for v in reads[c] if 1 <= v < n * n and v not in taken).most_common(2)
        agreed = ranked and ranked[0][1] >= 2 and (len(ranked) == 1 or ranked[0][1] > ranked[1][1])
        out[c] = ranked[0][0] if agreed else None
    left = [c for c in doubtful if out[c] is None]
    missing = set(range(1, n * n)) - set(out.values())
    if len(left) == 1 and len(missing) == 1 and missing <= set(reads[left[0]]):
        out[left[0]] = missing.pop()
    return out


def unsure_tiles(values: dict[int, int | None], n: int) -> dict[int, str]:
    """Cells whose number was not read for sure, is not a tile of this size, or clashes with
    another, each with why."""
    out = {}
    for c, v in values.items():
        if v is None:
            out[c] = "not read"
        elif not 1 <= v < n * n:
            out[c] = f"read {v}, not a tile of a {n}x{n} board"
        elif sum(w == v for w in values.values()) > 1:
            out[c] = f"{v} read on two tiles"
    return out


class FifteenReader(Reader):
    """vision.read's reader of the 15-puzzle (its solved screen is its board, read as stage_complete)."""

    game = "fifteen"
    FONTS = FONTS
    read_board = staticmethod(read_fifteen)

    def check_geometry(self, geo: dict, w: int, h: int) -> None:
        """Where the board was (x, y, w, h on the screen) and its tiles a side."""
        if not geo:
            return
        check_keys("geometry", geo, {"board", "size"}, set())
        x, y, bw, bh = check_numbers("geometry.board", geo["board"], 4, 0, max(w, h))
        if x + bw > w or y + bh > h or bw < 1 or bh < 1:
            raise Wrong(f"geometry.board {geo['board']!r} is not inside the {w}x{h} screen")
        check_int("geometry.size", geo["size"], 3, 5)

    def check_points(self, points: dict) -> None:
        """The 15-puzzle scores no points: its table is empty, or holds an older profile's
        ``slides_by_swipe`` 1 (a tap slides no tile: now the profile's ``touch``, and play moves
        it there: assistant.games.fifteen)."""
        if set(points) - {"slides_by_swipe"} or points.get("slides_by_swipe", 1) != 1:
            raise ValueError('a fifteen profile\'s points table holds only "slides_by_swipe": 1')

    def trust_case(self, truth: dict) -> dict:
        """The tiles, and where the first row is."""
        return dict(values={"tiles": truth["board"]["tiles"]},
                    first_row_y=min(r[1] + r[3] / 2 for r in truth["cells"].values()))

    def trust_outcome(self, case, perturbation: str, reading: Reading) -> str:
        if reading.board is None or reading.unsure:  # a tile not read for sure leaves no board
            return "unsure"
        return "exact" if list(reading.board.tiles) == case.values["tiles"] else "misread"

    def trust_words(self, reading: Reading) -> str:
        return super().trust_words(reading) if reading.board is None else f"read {reading.board.format()}"


READER = FifteenReader()
