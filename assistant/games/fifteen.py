"""The 15-puzzle as the assistant plays it: plan the fewest slides, tap the tile, and draw the
next tile outlined with an arrow to the gap."""

from __future__ import annotations

import numpy as np

from assistant.games import Game, Plan
from solver import fifteen
from solver.errors import TapsolveError
from solver.words import count

TILE = (226, 230, 236)  # RGB: a tile's face on the diagram (the gap stays white)


class Fifteen(Game):
    """The sliding puzzle (3x3 to 5x5 on screen): a position is a fifteen.Board; a move is the
    tile slid into the gap. The solver (numba, with tables for 4x4) loads on the first plan."""

    name = "fifteen"
    APP_PACKAGES = ("org.phonesim.fifteen",)  # the virtual phone's app (no one real app is known)
    moves_word = "slides"
    won_word = "solved"

    def position(self, reading):
        return fifteen.Board(reading.board.tiles)

    def plan(self, board) -> Plan:
        solution = fifteen.solve(board)
        return Plan(solution.moves, solution.status, optimal=solution.optimal)

    @staticmethod
    def prepare() -> None:
        from solver import fifteen

        fifteen.solve(fifteen.Board.parse("1 2 3 4, 5 6 7 8, 9 10 11 12, 13 14 0 15"))  # the tables, the compiled search

    def same(self, seen, expected) -> bool:
        return seen.tiles == expected.tiles

    def ends(self, board) -> bool:
        return board.is_won()  # the phone shows its solved screen (read as stage_complete)

    def taps(self, move, reading) -> list[tuple[int, int]]:
        """The tile's centre: tapping a tile next to the gap slides it in."""
        tiles = reading.board.tiles
        if move not in tiles:
            raise TapsolveError(f"tile {move} is not on the board on screen")
        return [reading.cells[tiles.index(move)]]

    def planned_taps(self, move, board, reading) -> list[tuple[tuple[int, int], str]]:
        # the frame's cells stay put: the tile is tapped where it will be by then
        return [(reading.cells[board.tiles.index(move)], "")]

    def describe(self, board, move) -> str:
        return board.describe(move)

    def progress(self, board) -> str:
        home = sum(t == k + 1 for k, t in enumerate(board.tiles))
        return f"{home}/{len(board.tiles) - 1} tiles home"

    def where(self, cell: int, reading) -> str:
        n = reading.rows_visible
        return f"row {cell // n + 1} column {cell % n + 1}"

    def draw_next(self, image: np.ndarray, reading, move) -> np.ndarray:
        from assistant import overlay

        tiles = reading.board.tiles
        size = reading.pitch or overlay.cell_pitch(reading.cells)
        return mark_slide(image, reading.cells[tiles.index(move)], reading.cells[tiles.index(0)], size)

    def diagram(self, board, move, cell: int = 72) -> np.ndarray:
        """The tiles in their frame; the next tile outlined with an arrow to the gap."""
        import cv2
        from assistant import overlay

        n = board.width
        image = np.full((n * cell + cell, n * cell + cell, 3), 255, np.uint8)
        centre = {}
        for k, tile in enumerate(board.tiles):
            x0, y0 = cell // 2 + (k % n) * cell, cell // 2 + (k // n) * cell
            centre[k] = (x0 + cell // 2, y0 + cell // 2)
            if tile:
                cv2.rectangle(image, (x0 + 3, y0 + 3), (x0 + cell - 3, y0 + cell - 3), TILE, -1)
                text = str(tile)
                (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, cell / 56, 2)
                cv2.putText(image, text, (x0 + (cell - w) // 2, y0 + (cell + h) // 2), cv2.FONT_HERSHEY_SIMPLEX,
                            cell / 56, overlay.INK, 2, cv2.LINE_AA)
        cv2.rectangle(image, (cell // 2, cell // 2), (cell // 2 + n * cell, cell // 2 + n * cell), (180, 190, 205), 2)
        if move is None:
            return image
        return mark_slide(image, centre[board.tiles.index(move)], centre[board.blank], cell)


def mark_slide(image: np.ndarray, tile, gap, size: float) -> np.ndarray:
    """The tile to tap outlined, and an arrow from it to the gap it slides into."""
    import cv2
    from assistant import overlay

    out = overlay.mark_points(image, [tile], size, False)
    (x0, y0), (x1, y1) = tile, gap
    # from the tile's edge to just short of the gap's centre, so both ends stay readable
    start = (int(x0 + (x1 - x0) * 0.3), int(y0 + (y1 - y0) * 0.3))
    end = (int(x0 + (x1 - x0) * 0.85), int(y0 + (y1 - y0) * 0.85))
    cv2.arrowedLine(out, start, end, overlay.LINK, max(3, int(size / 10)), cv2.LINE_AA, tipLength=0.4)
    return out


# -- `tapsolve solve fifteen` -------------------------------------------------------------------

def add_solve_command(games) -> None:
    """Register `tapsolve solve fifteen` on the `solve` command's games."""
    ff = games.add_parser(Fifteen.name, help="15-puzzle (3x3 to 7x7): slide the tiles home in the fewest moves")
    ff.add_argument("tiles", help='the tiles row by row, 0 or _ the blank: "1 2 3 4, 5 6 7 8, ..., 13 14 _ 15"')
    ff.add_argument("--json", action="store_true", help="print the Solution JSON")
    ff.set_defaults(run=solve_fifteen)


def solve_json(board: str | dict, objective: str = "fast", budget: float = 1.0) -> dict:
    """The Solution JSON `tapsolve solve fifteen --json` prints (docs/json.md), for tiles as text
    or board JSON: ``tapsolve.solve``'s (every line is the fewest moves the search finds)."""
    return fifteen.solve(fifteen.Board.from_json(board) if isinstance(board, dict) else fifteen.Board.parse(board)).to_json()


def solve_fifteen(args) -> int:
    from assistant.options import print_json

    board = fifteen.Board.parse(args.tiles)
    solution = fifteen.solve(board)
    if solution.status != "solved":  # (a board past 4x4: a stage's budget ran out before any line)
        raise TapsolveError(f"no line found within the search's budget ({solution.nodes:,} nodes): slide a few "
                            "tiles home by hand and solve the board again")
    if args.json:
        print_json(args, solution.to_json())
        return 0
    print(f"Board ({board.width}x{board.width}):")
    print("\n".join(board.format().split(", ")))
    replay = board.copy()
    for step, tile in enumerate(solution.moves, 1):
        print(f"{step:3d}. {replay.describe(tile)}")
        replay.push(tile)
    if solution.optimal:
        print(f"{count(len(solution.moves), 'moves')} (optimal)")
    else:
        print(f"{count(len(solution.moves), 'moves')} (not proved shortest: solved row by row and column by "
              "column, the shortest line is too costly to prove on a board this large)")
    return 0


GAME = Fifteen
