"""Reading a 15-puzzle screen (also 3x3 and 5x5): the square frame, each tile's number, the gap.

The frame is the large square off the background (its cells or tiles are holes in it, filled).
Inside it, the tiles are the near-square patches that differ from the frame's own colour: in the
"tiles" look rounded tiles on a frame, in the "grid" look cells between lines (whose gap may be
shaded, then it is a patch with no number). There are N*N - 1 or N*N patches on an N x N
lattice; the slot with no patch, or the patch with no ink, is the gap. Numbers are read glyph by
glyph with the device's templates (tesseract for doubtful glyphs); the tiles must be 1..N*N-1
once each: a tile whose glyphs are doubtful, or whose number clashes with another's, is unsure.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from solver.fifteen import Board, BoardError
from vision.digits import read_single_glyphs
from vision.image import ReadError, distance, theme as screen_theme
from vision.profile import Profile
from vision.reader import Reader
from vision.reading import Reading
from vision.shapes import fill_holes, split_glyphs

WIDTHS = {8: 3, 9: 3, 15: 4, 16: 4, 24: 5, 25: 5}  # patches seen (gap drawn or not) -> tiles a side
OFF_BACKGROUND = 12  # a frame pixel differs from the screen's background by more than this
OFF_FRAME = 40  # a tile's face differs from the frame's colour by more than this
INK = 40  # a glyph differs from its tile's face by more than this (less: an empty patch, the gap)
FRAME_MIN = 0.5  # the frame spans at least this share of the screen's width
SQUARE = 0.1  # how far from 1 a frame's or a tile's width / height may be
SOLID = 0.85  # share of a patch's box it fills (a tile, with its digits' holes filled)
DIGITS_0_9 = "0123456789"
FONTS = {"tile"}  # the glyph templates this reader learns (a stored profile holds no others)
COARSE = 360  # shapes are found on a screen shrunk to about this many pixels across: enough for tiles


@dataclass
class Patch:
    """A near-square patch inside the frame: a tile, or a shaded gap."""

    x: int
    y: int
    w: int
    h: int
    glyphs: list  # ink crops (0-1) of its number's glyphs, left to right; [] for the gap

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


class FifteenReading(Reading):
    """A 15-puzzle read: the board (None when a tile is unsure) and each cell's centre."""

    def text(self) -> str:
        if self.board is None:
            cells = ", ".join(f"cell {c} (row {c // self.size + 1}, column {c % self.size + 1})" for c in self.unsure)
            return f"15-puzzle {self.size}x{self.size}: unsure {cells}"
        head = f"15-puzzle {self.size}x{self.size}" + (", solved" if self.board.is_won() else "")
        return "\n".join([head, *self.board.format().split(", ")])

    def cell_words(self, i: int) -> str:
        return f"row {i // self.size + 1} column {i % self.size + 1}"

    @property
    def size(self) -> int:
        return int(round(len(self.cells) ** 0.5)) or 4


def find_frame(dist: np.ndarray) -> tuple[int, int, int, int]:
    """The board's square frame (x, y, w, h): the widest near-square solid shape off the background.

    Found on every STEP-th pixel (a frame is hundreds of pixels wide), then its edges are put
    back on the full screen along the middle of each side (past the rounded corners)."""
    H, W = dist.shape
    step = max(1, min(H, W) // COARSE)
    # a 3x3 median first: camera noise must not join specks of the background to the frame
    small = (cv2.medianBlur(np.ascontiguousarray(dist[::step, ::step]), 3) > OFF_BACKGROUND).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=4)
    best = None
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        if w * step < W * FRAME_MIN or abs(w / h - 1) > SQUARE:
            continue
        if fill_holes(labels[y:y + h, x:x + w] == i).mean() < SOLID:
            continue
        if best is None or w > best[2]:
            best = (int(x), int(y), int(w), int(h))
    if best is None:
        raise ReadError("no 15-puzzle board found: no square frame of tiles")
    x, y, w, h = best
    x0, y0 = max(0, (x - 1) * step), max(0, (y - 1) * step)
    x1, y1 = min(W, (x + w + 1) * step), min(H, (y + h + 1) * step)
    region = cv2.medianBlur(np.ascontiguousarray(dist[y0:y1, x0:x1]), 3) > OFF_BACKGROUND
    rh, rw = region.shape
    rows = np.flatnonzero(region[:, rw // 4:3 * rw // 4].any(axis=1))
    cols = np.flatnonzero(region[rh // 4:3 * rh // 4].any(axis=0))
    return x0 + int(cols[0]), y0 + int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def frame_colour(crop: np.ndarray) -> np.ndarray:
    """The frame's colour: the median along its four sides, a few pixels in (past antialiasing),
    away from the rounded corners."""
    h, w = crop.shape[:2]
    k = max(2, min(h, w) // 200)
    a, b = h // 4, 3 * h // 4
    sides = np.concatenate([crop[k, a:b], crop[h - 1 - k, a:b], crop[a:b, k], crop[a:b, w - 1 - k]])
    return np.median(sides, axis=0)


def find_patches(crop: np.ndarray, frame: np.ndarray) -> list[Patch]:
    """The near-square patches of one size off the frame's colour, each with its glyphs
    (found on every few pixels, their glyphs cut from the full picture)."""
    side = crop.shape[1]
    step = max(1, side // COARSE)
    mask = (distance(crop[::step, ::step], frame) > OFF_FRAME).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    found = []
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        if not (side / 6.5 <= w * step <= side / 2.5) or abs(w / h - 1) > SQUARE:
            continue
        if fill_holes(labels[y:y + h, x:x + w] == i).mean() < SOLID:
            continue
        x, y, w, h = (int(v) * step for v in (x, y, w, h))
        found.append(Patch(x, y, w, h, glyphs_of(crop[y:y + h, x:x + w])))
    if not found:
        return []
    size = np.median([p.w for p in found])
    return [p for p in found if abs(p.w - size) <= 0.1 * size]


def glyphs_of(tile: np.ndarray) -> list[np.ndarray]:
    """A tile's number as glyph ink crops (0-1), measured against the tile's own face colour."""
    h, w = tile.shape[:2]
    m = max(2, int(min(h, w) * 0.12))  # inside the rounded corners
    inner = tile[m:h - m, m:w - m]
    ring = np.concatenate([inner[0], inner[-1], inner[:, 0], inner[:, -1]])
    ink = distance(inner, np.median(ring, axis=0)).astype(np.float32)
    top = float(np.percentile(ink[::2, ::2], 99.5))  # the glyph's strong ink, past a stray pixel
    if top < INK:
        return []
    ink = np.clip(ink / top, 0, 1)
    return [g for g in split_glyphs(ink) if g.shape[0] >= 0.2 * inner.shape[0]]


def place(patches: list[Patch], n: int) -> dict[int, Patch] | None:
    """Each patch's cell on the n x n lattice their centres span (None when they do not sit on one)."""
    xs = [p.centre[0] for p in patches]
    ys = [p.centre[1] for p in patches]
    x0, y0 = min(xs), min(ys)
    pitch_x = (max(xs) - x0) / (n - 1)
    pitch_y = (max(ys) - y0) / (n - 1)
    if pitch_x <= 0 or abs(pitch_x / pitch_y - 1) > SQUARE:
        return None
    cells = {}
    for p, x, y in zip(patches, xs, ys):
        c, r = (x - x0) / pitch_x, (y - y0) / pitch_y
        if abs(c - round(c)) > 0.2 or abs(r - round(r)) > 0.2:
            return None
        cell = int(round(r)) * n + int(round(c))
        if cell in cells:
            return None
        cells[cell] = p
    return cells


def read_fifteen(image, bg, dist, profile: Profile | None, use_tesseract: bool = True, first_row: int = 0) -> Reading:
    """Read a 15-puzzle screen (raises ReadError when there is none): tiles, centres, unsure tiles.
    The frame never scrolls (``first_row`` stays 0)."""
    H, W = dist.shape
    theme = screen_theme(bg)
    stale = False
    if profile is None or not profile.suits("fifteen", image, theme):
        stale = profile is not None and profile.game == "fifteen"  # another game's is not stale
        profile = Profile("fifteen", W, H, theme, changed=True)
    fx, fy, fw, fh = find_frame(dist)
    crop = image[fy:fy + fh, fx:fx + fw]
    patches = find_patches(crop, frame_colour(crop))
    n = WIDTHS.get(len(patches))
    cells = place(patches, n) if n else None
    if cells is None:
        raise ReadError("no 15-puzzle board found: the frame's tiles do not form a square lattice")
    gaps = [c for c in range(n * n) if c not in cells] + [c for c, p in cells.items() if not p.glyphs]
    if len(gaps) != 1:
        raise ReadError(f"no 15-puzzle board found: {len(gaps)} gaps in the frame, not one")
    tiled = [c for c in sorted(cells) if c != gaps[0]]
    crops = [g for c in tiled for g in cells[c].glyphs]
    digits = iter(read_single_glyphs(crops, profile.font("tile"), use_tesseract, DIGITS_0_9))
    values: dict[int, int | None] = {}
    for c in tiled:
        read = [next(digits) for _ in cells[c].glyphs]
        values[c] = int("".join(read)) if all(read) and read[0] != "0" else None
    unsure = unsure_tiles(values, n)
    x0, y0 = (min(p.centre[k] for p in cells.values()) for k in (0, 1))
    pitch = (max(p.centre[0] for p in cells.values()) - x0) / (n - 1)
    centres = {c: (int(round(fx + x0 + (c % n) * pitch)), int(round(fy + y0 + (c // n) * pitch)))
               for c in range(n * n)}
    board = None
    notes = []
    if not unsure:
        try:
            board = Board([values.get(c, 0) for c in range(n * n)])
        except BoardError as exc:  # a permutation the rules cannot reach: some tile misread
            unsure = tiled
            notes.append(f"the tiles read cannot be a real board ({exc}): not trusted")
    screen = "stage_complete" if board is not None and board.is_won() else "board"
    return FifteenReading("fifteen", screen, board=board, cells=centres, unsure=unsure, theme=theme,
                          pitch=float(pitch), rows_visible=n, profile=profile, profile_stale=stale, notes=notes)


def unsure_tiles(values: dict[int, int | None], n: int) -> list[int]:
    """Cells whose number was not read for sure, is not a tile of this size, or clashes with another."""
    return sorted(c for c, v in values.items()
                  if v is None or not 1 <= v < n * n or sum(w == v for w in values.values()) > 1)


class FifteenReader(Reader):
    """vision.read's reader of the 15-puzzle (its solved screen is its board, read as stage_complete)."""

    game = "fifteen"
    FONTS = FONTS
    read_board = staticmethod(read_fifteen)

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
