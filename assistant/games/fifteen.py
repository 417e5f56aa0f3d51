"""The 15-puzzle as the assistant plays it: plan the fewest slides, tap the tile (or swipe it,
on an app that wants swipes: learned in play and kept in the phone's profile), and draw the
next tile outlined with an arrow to the gap."""

from __future__ import annotations

import numpy as np

from dataclasses import replace

from assistant.games import Game, InPlace, Judgement, Learned, Plan
from solver import fifteen
from solver.errors import TapsolveError
from solver.words import count

TILE = (226, 230, 236)  # RGB: a tile's face on the diagram (the gap stays white)
# A swipe slides a tile this share of the way from its centre to the gap's, in this many ms: a
# drag that ends inside the tile's own cell on apps that follow the finger, and a fling on
# those that take the gesture's direction
SWIPE_REACH = 0.7
SWIPE_MS = 150
# Taps that change nothing in a row before a swipe is tried (a tap may just be lost)
TAPS_DOUBTED = 2
# An older profile's points entry for an app that slides tiles only by swipe (now its touch:
# Fifteen.recall moves it there)
SLIDES_BY_SWIPE = "slides_by_swipe"
# Swipes that change nothing in a row before a stored "swipe" is doubted (the app was updated,
# or another app plays the game on this phone) and taps are tried again
SWIPES_DOUBTED = 2


class Fifteen(Game):
    """The sliding puzzle (3x3 to 5x5 on screen): a position is a fifteen.Board; a move is the
    tile slid into the gap. The solver (numba, with tables for 4x4) loads on the first plan."""

    name = "fifteen"
    APP_PACKAGES = ("org.phonesim.fifteen",)  # the virtual phone's app (no one real app is known)
    moves_word = "slides"
    won_word = "solved"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # how the app slides a tile: "tap" (most apps), "swipe" (learned: taps changed nothing
        # and a swipe made the move, or kept in the profile by an earlier game), or None (not
        # known yet: taps, a swipe after TAPS_DOUBTED taps that changed nothing)
        self.slide: str | None = None
        self.taps_failed = 0  # taps in a row that changed nothing
        self.swipes_failed = 0  # swipes in a row that changed nothing
        self.learned_swipe = False  # learned in this run (said in the summary)

    def position(self, reading):
        return fifteen.Board(reading.board.tiles)

    def kept(self) -> Learned:
        """What the profile is to keep of this app: the touch it slides tiles by (the 15-puzzle
        scores no points: its table stays empty)."""
        return Learned(points={}, touch="swipe" if self.slide == "swipe" else "tap")

    def recall(self, points: dict, touch: str | None = None) -> Learned | None:
        if self.slide is None and (touch == "swipe" or points.get(SLIDES_BY_SWIPE) == 1):
            self.slide = "swipe"
        return self.kept() if self.slide == "swipe" or points else None

    def touch(self) -> str:
        """The touch the next move is made with, "tap" or "swipe" (a question: nothing changes)."""
        return self.slide or ("swipe" if self.taps_failed >= TAPS_DOUBTED else "tap")

    def learn(self, judgement: Judgement) -> Learned | None:
        """A touch that made the move says how the app slides; touches that changed nothing
        (seen as before) make the next touch the other kind (TAPS_DOUBTED taps: a tap may also
        just be lost; SWIPES_DOUBTED swipes doubt a kept "swipe"). What to keep, when it changed."""
        touch, seen = self.touch(), judgement.seen
        if judgement.before is None or judgement.move is None:
            return None  # (the next stage's first board: no touch judged)
        if seen.tiles == judgement.expected.tiles:
            self.taps_failed = self.swipes_failed = 0
            if touch == "swipe" and self.slide != "swipe":
                self.slide, self.learned_swipe = "swipe", True
                return self.kept()
            if touch == "tap":
                self.slide = "tap"
        elif seen.tiles == judgement.before.tiles:
            if touch == "tap" and self.slide != "tap":
                self.taps_failed += 1
            elif touch == "swipe":
                self.swipes_failed += 1
                self.taps_failed = 0  # taps again, then a swipe again
                if self.swipes_failed >= SWIPES_DOUBTED and self.slide == "swipe":
                    self.slide = None
                    return self.kept()  # (no longer kept)
        return None

    def summary(self) -> str:
        return "; this app slides tiles by swipe (kept for this phone)" if self.learned_swipe else ""

    def plan(self, board) -> Plan:
        solution = fifteen.solve(board)
        return Plan(solution.moves, solution.status, optimal=solution.optimal)

    @staticmethod
    def prepare() -> None:
        from solver import fifteen

        fifteen.solve(fifteen.Board.parse("1 2 3 4, 5 6 7 8, 9 10 11 12, 13 14 0 15"))  # the tables, the compiled search

    @staticmethod
    def add_bench_play_options(parser) -> None:
        from assistant.options import bounded_int, non_negative_int

        parser.add_argument("--skin", type=non_negative_int, default=None, metavar="SEED",
                            help="15-puzzle: the app's look drawn from this seed (as `tapsolve phone --skin`)")
        parser.add_argument("--width", type=bounded_int(3, 5, "15-puzzle widths"), default=None,
                            help="15-puzzle: tiles a side (default 4, or the skin's own)")

    def same(self, seen, expected) -> bool:
        return seen.tiles == expected.tiles

    def ends(self, board) -> bool:
        return board.is_won()  # the phone shows its solved screen (read as stage_complete)

    def in_place(self, board, move, reading) -> InPlace | None:
        """A slide changes two cells in place, the tile's and the gap's (the tile glides from one
        into the other, over the frame between them: aside), and maybe what is outside the board
        (the moves, a timer: aside). A next touch waits out the cells next to the one the tile
        leaves: their tiles would slide into it while it still shows the tile going (so, with one
        tile a slide, no next slide goes before the animation ends: only its judging is early).
        The slide that solves the board too (its solved screen comes after the glide)."""
        cells, n = reading.cells, board.width
        if reading.screen != "board" or reading.board is None or len(cells) != n * n or n < 2:
            return None
        after = self.after(board, move)
        wide, tall = (cells[n - 1][0] - cells[0][0]) / (n - 1), (cells[n * (n - 1)][1] - cells[0][1]) / (n - 1)

        def box(cell):
            x, y = cells[cell]
            return round(x - wide / 2), round(y - tall / 2), round(x + wide / 2), round(y + tall / 2)

        tile, gap = board.tiles.index(move), board.blank
        way = [min(box(tile)[0], box(gap)[0]), min(box(tile)[1], box(gap)[1]),
               max(box(tile)[2], box(gap)[2]), max(box(tile)[3], box(gap)[3])]
        top, bottom = box(0)[1], box(n * n - 1)[3]
        beside = [c for c in (tile - n, tile + n, tile - 1 if tile % n else -1, tile + 1 if (tile + 1) % n else -1)
                  if 0 <= c < n * n and c != gap]
        return InPlace([box(tile), box(gap)], [tuple(way), (0, 0, 1 << 20, top), (0, bottom, 1 << 20, 1 << 20)],
                       replace(reading, board=after), reach=[box(c) for c in beside], shows="moving")

    def tap_points(self, move, reading) -> list[tuple[int, int]]:
        """The tile's centre: tapping a tile next to the gap slides it in."""
        tiles = reading.board.tiles
        if move not in tiles:
            raise TapsolveError(f"tile {move} is not on the board on screen")
        return [reading.cells[tiles.index(move)]]

    def swipes(self, move, reading) -> list[tuple[int, int, int, int, int]]:
        """On an app that slides by swipe: from the tile's centre towards the gap's (x1, y1, x2,
        y2, ms); else none (the move is tapped)."""
        if self.touch() != "swipe":
            return []
        tiles = reading.board.tiles
        (x1, y1), (x2, y2) = reading.cells[tiles.index(move)], reading.cells[tiles.index(0)]
        return [(x1, y1, round(x1 + (x2 - x1) * SWIPE_REACH), round(y1 + (y2 - y1) * SWIPE_REACH), SWIPE_MS)]

    def planned_tap_points(self, move, board, reading) -> list[tuple[tuple[int, int], str]]:
        # the frame's cells stay put: the tile is tapped where it will be by then
        return [(reading.cells[board.tiles.index(move)], "")]

    def describe(self, board, move) -> str:
        return board.describe(move)

    def progress(self, board) -> str:
        # (the fewest slides move tiles out of place to bring others in: a count of tiles in
        # place goes down as often as up, so it is said as the board now, not as progress)
        home = sum(t == k + 1 for k, t in enumerate(board.tiles))
        return f"now {home} of {len(board.tiles) - 1} tiles in place (some leave it on the way)"

    def status(self, board) -> str:
        return ""  # (play's count of slides done, [k/n], is the progress)

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
