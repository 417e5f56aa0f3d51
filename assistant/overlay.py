"""Drawing a plan's step: on the live screenshot, or on a clean board diagram for exports."""

from __future__ import annotations

import cv2
import numpy as np

from solver.numbermatch import Add, Board

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


def caption(image: np.ndarray, lines: list[str]) -> np.ndarray:
    """The image with a panel of text lines above it."""
    h, w = image.shape[:2]
    scale = max(0.6, w / 900)
    line_h = int(34 * scale)
    panel = np.full((line_h * len(lines) + line_h // 2, w, 3), PANEL, np.uint8)
    for k, text in enumerate(lines):
        cv2.putText(panel, text, (int(12 * scale), line_h * (k + 1)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.8 * scale, INK, max(1, int(2 * scale)), cv2.LINE_AA)
    return np.vstack([panel, image])


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


def draw_on_screen(image: np.ndarray, reading, move, game, header: list[str]) -> np.ndarray:
    """The screenshot with the move to make drawn over it, and a header panel."""
    if game.name == "numbermatch":
        size = reading.pitch or cell_pitch(reading.cells)
        if isinstance(move, Add):
            marked = mark_button(image, reading.add_button, size, "+")
        else:
            # a pair farther apart than the screen is tall shows only its cell on screen
            marked = mark_points(image, [reading.cells[k] for k in (move.i, move.j) if k in reading.cells],
                                 size, True)
    else:
        buttons = reading.buttons
        size = cell_pitch({k: v for k, v in buttons.items() if k.isdigit()})
        points = [buttons[str(c)] for c in move] if move else []
        marked = mark_points(image, points, size, False)
    return caption(marked, header)


def board_diagram(board: Board, move=None, cell: int = 56) -> np.ndarray:
    """A clean drawing of a Number Match board with `move` highlighted (for exported steps)."""
    cols = board.rules.columns
    rows = max(1, board.rows)
    image = np.full((rows * cell + 2 * cell, cols * cell + cell, 3), 255, np.uint8)
    ox, oy = cell // 2, cell // 2
    for k, value in enumerate(board.cells):
        r, c = divmod(k, cols)
        x0, y0 = ox + c * cell, oy + r * cell
        cv2.rectangle(image, (x0, y0), (x0 + cell, y0 + cell), (220, 224, 230), 1)
        if value:
            colour = INK
        else:
            colour = (200, 205, 214)
        text = str(value) if value else "."
        cv2.putText(image, text, (x0 + cell // 3, y0 + int(cell * 0.72)), cv2.FONT_HERSHEY_SIMPLEX,
                    cell / 40, colour, 2, cv2.LINE_AA)
    centre = {k: (ox + (k % cols) * cell + cell // 2, oy + (k // cols) * cell + cell // 2)
              for k in range(len(board.cells))}
    plus = (ox + cols * cell // 2, oy + rows * cell + cell // 2 + 4)
    cv2.circle(image, plus, cell // 3, (46, 133, 236), 2, cv2.LINE_AA)
    cv2.putText(image, f"+ {board.adds_left}", (plus[0] - cell // 4, plus[1] + cell // 8),
                cv2.FONT_HERSHEY_SIMPLEX, cell / 90, (46, 133, 236), 2, cv2.LINE_AA)
    if isinstance(move, Add):
        image = mark_button(image, plus, cell)
    elif move is not None:
        image = mark_points(image, [centre[move.i], centre[move.j]], cell, True)
    return image


def cards_diagram(state, move=None, cell: int = 64) -> np.ndarray:
    """A clean drawing of the nine Flip 9 cards with the swap's cards highlighted."""
    image = np.full((cell * 2, cell * 10, 3), 255, np.uint8)
    centres = {}
    for k, value in enumerate(state.cards):
        x0, y0 = cell // 2 + k * cell, cell // 2
        cv2.rectangle(image, (x0 + 3, y0), (x0 + cell - 3, y0 + cell), (180, 190, 205), 2)
        cv2.putText(image, str(value), (x0 + cell // 3, y0 + int(cell * 0.7)), cv2.FONT_HERSHEY_SIMPLEX,
                    cell / 40, INK, 2, cv2.LINE_AA)
        centres[value] = (x0 + cell // 2, y0 + cell // 2)
    if move:
        image = mark_points(image, [centres[c] for c in move], cell, True)
    return image
