"""Reading a Lights Out screen: the nine lamps are the large near-square shapes off the
background, on a 3x3 lattice; a lamp is lit when it is yellow. No digits, so no OCR and no fonts."""

from __future__ import annotations

import cv2
import numpy as np

from tests.lightsout.rules import CELLS, SIDE, Board
from vision.image import ReadError, theme
from vision.profile import Profile
from vision.reader import Reader
from vision.reading import Reading

OFF_BACKGROUND = 12  # a lamp's pixel differs from the background by more than this
LAMP_MIN = 1 / 6  # a lamp spans at least this share of the screen's width (letters are narrower)
SQUARE = 0.1  # how far from 1 a lamp's width / height may be
SIZES = 0.1  # how far the lamps' widths may stray from their median, as a share of it
YELLOW = 100  # red + green - 2 x blue of a lit lamp is above this; grey lamps are near 0


class LightsOutReading(Reading):
    """A Lights Out board read: the lights row by row, # lit and . out."""

    def lines(self) -> list[str]:
        return ["Lights Out" + (", all out" if self.screen == "stage_complete" else ""), *self.board.format().split()]

    def cell_words(self, i: int) -> str:
        return f"row {i // SIDE + 1} column {i % SIDE + 1}"


class LightsOutReader(Reader):
    """No fonts, no tesseract, no geometry stored, no points, no screen but the board: Reader's
    defaults, but for the board itself."""

    game = "lightsout"

    def read_board(self, image: np.ndarray, bg, dist: np.ndarray, profile: Profile | None,
                   use_tesseract: bool = True, first_row: int = 0, expect=None) -> Reading:
        return read_board(image, dist, bg, profile)


def read_board(image: np.ndarray, dist: np.ndarray, bg, profile: Profile | None) -> Reading:
    H, W = dist.shape
    mask = (dist > OFF_BACKGROUND).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    lamps = [tuple(int(v) for v in stats[i][:4]) for i in range(1, n)
             if stats[i][2] >= W * LAMP_MIN and abs(stats[i][2] / stats[i][3] - 1) <= SQUARE]
    median = float(np.median([w for _, _, w, _ in lamps])) if lamps else 0.0
    lamps = [box for box in lamps if abs(box[2] - median) <= SIZES * median]
    if len(lamps) != CELLS:
        raise ReadError(f"no Lights Out board found: {len(lamps)} lamps, not {CELLS}")
    lamps.sort(key=lambda b: b[1])
    rows = [sorted(lamps[r * SIDE:(r + 1) * SIDE]) for r in range(SIDE)]
    lamps = [box for row in rows for box in row]
    if any(abs(row[0][1] - row[-1][1]) > median / 4 for row in rows):
        raise ReadError("no Lights Out board found: the lamps are not in three rows")
    lights, cells = [], {}
    for k, (x, y, w, h) in enumerate(lamps):
        r, g, b = image[y + h // 4:y + 3 * h // 4, x + w // 4:x + 3 * w // 4].reshape(-1, 3).mean(axis=0)
        lights.append(int(r + g - 2 * b > YELLOW))
        cells[k] = (x + w // 2, y + h // 2)
    board = Board(lights)
    look = theme(bg)
    return LightsOutReading("lightsout", "stage_complete" if board.is_won() else "board", board=board,
                            cells=cells, pitch=median, rows_visible=SIDE, theme=look,
                            profile=profile or Profile("lightsout", W, H, look))


READER = LightsOutReader()
