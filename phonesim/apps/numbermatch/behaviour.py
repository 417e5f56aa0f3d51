"""Number Match's behaviour: the game on screen, what taps, swipes and "+" do, the animations' timeline."""

from __future__ import annotations

import random
import time

import numpy as np

from phonesim.apps import AppOptionError, choose, draw
from phonesim.apps.numbermatch.drawing import Painter, mix_tiles
from phonesim.apps.numbermatch.layout import COLUMNS, Layout
from phonesim.apps.others import Interstitial
from phonesim.app import App, Preset, inside
from solver.numbermatch import MAX_ADDS, Add, Board, Pair, Rules, Wait, parse_points, points_from

# The animations the real game plays, by the names a realism profile gives their lengths:
ANIMATIONS = {
    "select": "a tapped number's highlight grows out from the cell's centre",
    "fade": "a pair's two numbers fade from live to crossed out",
    "collapse": "after the fade (and the row window, when on), rows left with no number shrink away and the rows"
                " below slide up",
    "add": 'after "+", the copied numbers are written in one after another',
    "slide": "after the last pair's animation, the stage-complete screen slides in from below",
}
# The row-removal window (seed 004's blog, quoted in issue 40: "you can still choose pairs, which
# resets the animation timer"; not confirmed on today's game, so off by default): a row a pair
# empties stays on the board, its numbers crossed out, for ``row_window`` seconds after the
# pair's fade; a pair chosen then is played on the board as it stands (``Rules.row_window``) and
# starts the seconds again; when they run out, every row waiting goes together (``Wait``).
MAX_ROW_WINDOW = 5.0  # seconds: the blog's window is about half a second


def start_cells(seed: int, stage: int, size: int) -> list[int]:
    """A stage's start board, derived from the seed; redrawn until it has a pair to play."""
    rng = random.Random(f"numbermatch:{seed}:{stage}")
    while True:
        cells = [rng.randint(1, 9) for _ in range(size)]
        if any(Board(cells).pairs()):
            return cells


class NumberMatchApp(App):
    """Number Match on the virtual phone. ``board`` is the live game; tests may set it."""

    # the real game's package, so that the assistant knows phonesim's game as it knows the real
    # one; the activity is a Unity game's usual main one (the real game is a Unity app)
    PACKAGE = "com.easybrain.number.puzzle.game"
    ACTIVITY = "com.unity3d.player.UnityPlayerActivity"
    _mix = staticmethod(mix_tiles)  # how a tile goes from one look to another as the game animates

    def __init__(self, preset: Preset, *, seed: int = 0, theme: str = "light", size: int = 27,
                 adds: int = 5, add_rule: str = "cell", ads: bool = False, points: dict | None = None,
                 ad_seconds: float = 5.0, ad_store: bool = False, row_window: float = 0.0):
        self.preset, self.seed, self.size, self.ads = preset, seed, size, ads
        self.ad_seconds, self.ad_store = ad_seconds, ad_store
        self._ad_due = False
        self.theme = draw.THEMES[theme]
        # another points table plays a game whose scoring differs from the rules' reconstruction
        self.rules = Rules(columns=COLUMNS, adds=adds, add_after=add_rule, points=points_from(points or {}),
                           row_window=row_window > 0)
        self.row_window = row_window
        self._window_ends: float | None = None  # when the rows waiting on the board go
        self.layout = Layout.of(preset)
        self.best = random.Random(f"best:{seed}").randint(1000, 9999)
        self.screen = "board"
        self.offset = 0  # how far the board is scrolled, in pixels
        # the real board scrolls freely; by default a swipe moves whole rows (predictable for tests)
        self.snap_rows = True
        self.selected: int | None = None
        self.hinted: tuple[int, int] | None = None
        self.new_game()
        self.painter = Painter(preset, self.theme, self.layout, random.Random(f"coins:{seed}").randint(50, 999))
        self.clock = time.monotonic
        self.durations: dict[str, float] = {}  # no animation: the fast profile
        self.banner = False
        self._motion: dict | None = None  # the last move's animation (see _animate_move)
        self._selected_at = 0.0
        self._ended_at = 0.0  # when the stage-complete screen starts sliding in

    def animate(self, durations: dict[str, float], banner: bool = False) -> None:
        """Play the ANIMATIONS for these lengths (seconds; missing or 0: none), with a banner ad
        under the board or not (a realism profile's)."""
        self.durations = {name: float(durations.get(name, 0.0)) for name in ANIMATIONS}
        self.banner = banner

    # -- the game --------------------------------------------------------------------------

    def new_game(self) -> None:
        self.start_stage(1, score=0)

    @property
    def board(self) -> Board:
        return self._board

    @board.setter
    def board(self, board: Board) -> None:
        """Put a board on screen; crossed-out cells of unknown value get a stand-in faded digit."""
        self._board = board
        self.ghost = [v or 1 + (7 * k) % 9 for k, v in enumerate(board.cells)]
        self.selected, self.hinted = None, None
        self._motion = None
        self._window_ends = None
        self.scroll_pixels(0)  # back inside the board

    def start_stage(self, stage: int, score: int) -> None:
        self.offset = 0
        self.board = Board(start_cells(self.seed, stage, self.size), self.rules.adds, score=score,
                           stage=stage, rules=self.rules)
        self.screen = "board"

    def _after_move(self) -> None:
        self.selected, self.hinted = None, None
        self.best = max(self.best, self.board.score)
        self.scroll_pixels(0)  # back inside the board
        self.check_end()

    def _animate_move(self, before, pair=(), removed=(), added=0, at: float | None = None) -> None:
        """Start the picture's way from the board ``before`` (cells, ghost digits, scroll) to the
        board now (from time ``at``, default now): a pair fades (then its empty rows collapse),
        or an add writes its numbers, or (the row window's end) the rows waiting collapse."""
        d = self.durations
        fade = d.get("fade", 0.0) if pair else 0.0
        collapse = d.get("collapse", 0.0) if removed else 0.0
        write = d.get("add", 0.0) if added else 0.0
        if fade + collapse + write <= 0:
            self._motion = None
            return
        cells, ghost, offset = before
        self.animated_s += fade + collapse + write
        self._motion = {"t0": self.clock() if at is None else at, "fade": fade, "collapse": collapse, "write": write,
                        "cells": cells, "ghost": ghost, "offset": offset, "pair": tuple(pair),
                        "removed": sorted(removed), "added": added}

    def _moving(self, now: float) -> dict | None:
        """The last move's animation while it plays, else None."""
        m = self._motion
        if m is not None and now - m["t0"] >= m["fade"] + m["collapse"] + m["write"]:
            self._motion = m = None
        return m

    def _slide(self, now: float) -> float | None:
        """How far the stage-complete screen has slid in (0..1), None once it is in place."""
        seconds = self.durations.get("slide", 0.0)
        if self.screen != "stage_complete" or seconds <= 0 or now >= self._ended_at + seconds:
            return None
        return draw.eased((now - self._ended_at) / seconds)

    def _close_window(self, now: float) -> None:
        """The rows waiting on the board go once the row window's seconds have run out with no
        pair chosen: the board as the game stands from then on, their collapse playing from the
        window's end."""
        ends = self._window_ends
        if ends is None or now < ends:
            return
        self._window_ends = None
        self._let_rows_go(ends)

    def _let_rows_go(self, at: float | None) -> None:
        """Every row waiting on the board goes (``Wait``), its collapse starting at ``at`` (None:
        at once, unseen: an add's numbers are written next)."""
        board = self.board
        waiting = board.rows_waiting()
        if not waiting:
            return
        before = (list(board.cells), list(self.ghost), self.offset)
        for r in reversed(waiting):
            del self.ghost[r * COLUMNS:(r + 1) * COLUMNS]
        if self.selected is not None:  # the selected number moves up with its row
            self.selected -= COLUMNS * sum(r < self.selected // COLUMNS for r in waiting)
        board.push(Wait())
        if at is not None:
            self._animate_move(before, removed=waiting, at=at)
        self.hinted = None
        self.scroll_pixels(0)
        self.check_end()

    def motion(self, now: float | None = None) -> str | None:
        """The animation playing now (a name from ANIMATIONS), None when the screen is still
        (also while emptied rows wait in the row window: nothing moves then)."""
        now = self.clock() if now is None else now
        self._close_window(now)
        m = self._moving(now)
        if m is None and self.screen == "stage_complete" and self._slide(now) is not None:
            return "slide"
        if m is not None:
            t = now - m["t0"]
            return "add" if m["added"] else "fade" if t < m["fade"] else "collapse"
        if (self.screen == "board" and self.selected is not None
                and now - self._selected_at < self.durations.get("select", 0.0)):
            return "select"
        return None

    def animating(self, index: int, now: float) -> bool:
        """Whether board cell ``index`` (as the game stands) is moving or changing its look at ``now``."""
        self._close_window(now)
        if index == self.selected and now - self._selected_at < self.durations.get("select", 0.0):
            return True
        m = self._moving(now)
        if m is None:
            return False
        if m["added"]:
            return index >= len(m["cells"])
        return index in m["pair"] or bool(m["removed"]) and index >= m["removed"][0] * COLUMNS

    def landed(self, x: int, y: int) -> str:
        """What a tap at (x, y) lands on now (phonesim.app.TAP_TARGETS)."""
        now = self.clock()
        self._close_window(now)
        if self.screen == "board":
            L = self.layout
            index = self.cell_at(x, y)
            if index is not None:
                if self.animating(index, now):
                    return "animating"
                return "live" if self.board.cells[index] else "crossed"
            if L.on_grid(x, y):
                return "empty"  # the grid past the board's last cell
            if inside(L.button_rect(L.add_center), x, y):
                return "add"
            if inside(L.button_rect(L.hint_center), x, y):
                return "button"
            if self.banner and inside(L.banner_rect(), x, y):
                return "ad"
            return "nothing"
        if any(inside(rect, x, y) for rect in self.buttons().values()):
            return "animating" if self.screen == "stage_complete" and self._slide(now) is not None else "button"
        return "nothing"

    def check_end(self) -> None:
        """Show stage complete when the board is cleared, game over when nothing can be played."""
        if self.board.is_won():
            self.screen = "stage_complete"
            m = self._motion  # the screen slides in once the last pair's animation is over
            self._ended_at = m["t0"] + m["fade"] + m["collapse"] + m["write"] if m else self.clock()
            self.animated_s += self.durations.get("slide", 0.0)
        elif not any(self.board.pairs()) and not self.board.can_add() and not self.board.rows_waiting():
            self.screen = "game_over"  # (rows waiting in the row window go first: "+" may follow)

    def tap_cell(self, index: int) -> None:
        """What tapping cell ``index`` does: select, cross out a pair, move or drop the selection."""
        board = self.board
        if not board.cells[index]:
            return  # a crossed-out cell does nothing
        self.hinted = None
        if self.selected is None:
            self.selected = index
            self._selected_at = self.clock()
        elif self.selected == index:
            self.selected = None
        else:
            i, j = sorted((self.selected, index))
            if board.is_pair(i, j):
                # the digits stay on screen, faded, until their row goes: follow the rows removed
                crossed = board.copy()
                crossed.cells[i] = crossed.cells[j] = 0
                before = (list(board.cells), list(self.ghost), self.offset)
                removed = crossed.emptied_rows(i, j)
                if self.row_window:
                    # the rows stay while pairs keep coming; the last number takes every row
                    removed = [] if any(crossed.cells) else list(range(board.rows))
                for r in reversed(removed):
                    del self.ghost[r * COLUMNS:(r + 1) * COLUMNS]
                board.push(Pair(i, j))
                self._animate_move(before, pair=(i, j), removed=removed)
                if board.rows_waiting():  # a pair chosen in the window starts its seconds again
                    self._window_ends = self.clock() + self.durations.get("fade", 0.0) + self.row_window
                self._after_move()
            else:
                self.selected = index
                self._selected_at = self.clock()

    def press_add(self) -> None:
        if self.board.rows_waiting() and self.board.adds_left and self.board.live_count():
            self._window_ends = None  # "+" lets the rows waiting go at once, then adds
            self._let_rows_go(None)
        if self.board.can_add():
            before = (list(self.board.cells), list(self.ghost), self.offset)
            self.board.push(Add())
            self._animate_move(before, added=len(self.board.cells) - len(before[0]))
            cells = self.board.cells
            self.ghost = [cells[k] or (self.ghost[k] if k < len(self.ghost) else 0) for k in range(len(cells))]
            self._after_move()

    def scroll_pixels(self, dy: int) -> None:
        """Scroll by ``dy`` pixels (whole rows when ``snap_rows``), so the last row stays above the fade."""
        L = self.layout
        if self.snap_rows:
            rows = round((self.offset + dy) / L.cell)
            self.offset = min(max(rows, 0), max(0, self.board.rows - L.rows_fit)) * L.cell
        else:
            bottom = max(0, self.board.rows * L.cell - (L.fade_start - L.grid_top))
            self.offset = min(max(self.offset + dy, 0), bottom)

    @property
    def first_row(self) -> int:
        """The first board row shown whole at the top of the grid."""
        return -(-self.offset // self.layout.cell)

    def row_top(self, row: int) -> int:
        """Screen y of board row ``row``'s top edge."""
        return self.layout.grid_top + row * self.layout.cell - self.offset

    # -- the phone's events ----------------------------------------------------------------

    def visible_cells(self) -> dict[int, list[int]]:
        """Screen rect of every board cell shown whole (between the top border and the fade), by index."""
        L, out = self.layout, {}
        for index in range(self.first_row * COLUMNS, len(self.board.cells)):
            y = self.row_top(index // COLUMNS)
            if y + L.cell > L.fade_start:
                break
            out[index] = [L.grid_x + index % COLUMNS * L.cell, y, L.cell, L.cell]
        return out

    def cell_at(self, x: int, y: int) -> int | None:
        """The board cell under a finger at (x, y), also a row cut by the top border or the fade."""
        L = self.layout
        if not L.on_grid(x, y):
            return None
        index = ((y - L.grid_top + self.offset) // L.cell) * COLUMNS + (x - L.grid_x) // L.cell
        return index if index < len(self.board.cells) else None

    def tap(self, x: int, y: int) -> None:
        self._close_window(self.clock())
        if self.screen == "board":
            L = self.layout
            index = self.cell_at(x, y)
            if index is not None:
                self.tap_cell(index)
            elif inside(L.button_rect(L.add_center), x, y):
                self.press_add()
            elif inside(L.button_rect(L.hint_center), x, y):
                self.hinted = next(((p.i, p.j) for p in self.board.pairs()), None)
            return
        buttons = self.buttons()
        if self.screen == "stage_complete" and self._slide(self.clock()) is not None:
            return  # the screen is still sliding in: the button is not where it will be
        if self.screen == "stage_complete" and inside(buttons["continue"], x, y):
            self.start_stage(self.board.stage + 1, self.board.score)
            self._ad_due = self.ads  # the next stage's board comes up under an interstitial
        elif self.screen == "game_over" and inside(buttons["new_game"], x, y):
            self.new_game()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        """A vertical swipe scrolls the board: the finger moving up shows later rows."""
        self._close_window(self.clock())
        if self.screen != "board" or abs(y1 - y2) < abs(x1 - x2):
            return
        self.scroll_pixels(y1 - y2)

    def take_ad(self) -> dict | None:
        due, self._ad_due = self._ad_due, False
        return dict(seconds=self.ad_seconds, store=self.ad_store, unit=self.layout.cell) if due else None

    # -- what is on screen -----------------------------------------------------------------

    def buttons(self) -> dict[str, list[int]]:
        if self.screen in ("stage_complete", "game_over"):
            return {"continue" if self.screen == "stage_complete" else "new_game": self.layout.message_button()}
        return {}

    def truth(self) -> dict:
        """What the screen shows: the board as the game stands (in the row window, with the
        emptied rows still on it)."""
        self._close_window(self.clock())
        L = self.layout
        on_board = self.screen == "board"
        cells = self.visible_cells() if on_board else {}
        shown = len({(i // COLUMNS) for i in cells})
        return {
            "game": "numbermatch", "preset": self.preset.name, "theme": self.theme.name,
            "screen": self.screen, "board": self.board.to_json(),
            "first_row": self.first_row, "rows_visible": shown,
            "more_above": on_board and self.offset > 0,
            "more_below": on_board and self.row_top(self.board.rows) > L.fade_start,
            "cells": {str(i): r for i, r in cells.items()},
            "selected": self.selected if on_board else None,
            "add_button": L.button_rect(L.add_center) if on_board else None,
            "hint_button": L.button_rect(L.hint_center) if on_board else None,
            "buttons": self.buttons(),
        }

    # -- the picture at a moment (its pixels: drawing.Painter) -----------------------------

    def render(self) -> np.ndarray:
        now = self.clock()
        self._close_window(now)
        if self.screen == "board":
            return self._render_board(now)
        slide = self._slide(now)  # (the stage-complete screen sliding in over the board)
        return self.painter.message(self.screen, self.board, self.banner,
                                    None if slide is None else self._render_board(now), slide)

    def _render_board(self, now: float) -> np.ndarray:
        """The board screen at ``now``, mid-animation included."""
        select = self.durations.get("select", 0.0)
        lit = draw.eased((now - self._selected_at) / select) if select else 1.0
        return self.painter.board(self.board, self._frame_cells(now), self.selected, self.hinted, lit, self.best,
                                  self.banner, self._mix)

    def _frame_cells(self, now: float):
        """What the grid shows at ``now``: cells, ghost digits, scroll (px), each row's extra lift
        (px), how many cells are written, the pair fading and how far, the rows fading away and
        how far (the last move's animation playing, or the game as it stands)."""
        board, m = self.board, self._moving(now)
        if m is None:
            return board.cells, self.ghost, self.offset, None, len(board.cells), (), 1.0, {}
        t = now - m["t0"]
        if m["added"]:  # (a fraction: the number being written fades in)
            written = len(m["cells"]) + m["added"] * draw.eased(t / m["write"])
            return board.cells, self.ghost, self.offset, None, written, (), 1.0, {}
        faded = draw.eased(t / m["fade"]) if m["fade"] else 1.0
        collapsed = draw.eased((t - m["fade"]) / m["collapse"]) if m["collapse"] else 0.0
        offset = round(m["offset"] + (self.offset - m["offset"]) * collapsed)
        removed, c = m["removed"], self.layout.cell
        lift = [collapsed * c * sum(r < row for r in removed) for row in range(-(-len(m["cells"]) // COLUMNS))]
        # rows going away shrink as the rows below slide over them
        vanish = {r: collapsed for r in removed}
        return m["cells"], m["ghost"], offset, lift, len(m["cells"]), m["pair"], faded, vanish

    # -- options and fixtures ----------------------------------------------------------------

    OPTIONS = {"size": 27, "adds": 5, "add_rule": "cell", "ads": False, "points": None, "ad_seconds": 5.0,
               "ad_store": False, "row_window": 0.0}
    FIXTURES = """Number Match states: `fresh`, `midgame` (crossed-out cells, one cell selected), `after_adds`,
`tall_scrolled` (a board taller than the grid, scrolled by whole rows to the middle),
`tall_partial` (the same scrolled a third of a row further: the top row is cut by the border and
the bottom row by the fade; `cells` holds only whole cells), `stage_complete`, `ad`, `game_over`."""

    @classmethod
    def create(cls, preset, seed: int, theme: str, options: dict) -> "NumberMatchApp":
        size, adds, add_rule, points = options["size"], options["adds"], options["add_rule"], options["points"]
        choose("add rule", add_rule, ADD_RULES)
        if not isinstance(size, int) or not 2 <= size <= 9 * 40:
            raise AppOptionError(f"the start size must be 2 to 360 numbers, not {size!r}")
        if not isinstance(adds, int) or not 0 <= adds <= 99:
            raise AppOptionError(f"adds must be 0 to 99, not {adds!r}")
        if not isinstance(options["ad_seconds"], (int, float)) or not 0 <= options["ad_seconds"] <= MAX_AD_SECONDS:
            raise AppOptionError(f"an ad's countdown must be 0 to {MAX_AD_SECONDS} seconds, not {options['ad_seconds']!r}")
        window = options["row_window"]
        if (not isinstance(window, (int, float)) or isinstance(window, bool)
                or not 0 <= window <= MAX_ROW_WINDOW):
            raise AppOptionError(f"the row window must be 0 (off) to {MAX_ROW_WINDOW:g} seconds, not {window!r}")
        return cls(preset, seed=seed, theme=theme, size=size, adds=adds, add_rule=add_rule, ads=options["ads"],
                   points=parse_points(points) if isinstance(points, str) else points,
                   ad_seconds=options["ad_seconds"], ad_store=options["ad_store"], row_window=float(window))

    @classmethod
    def add_options(cls, parser, types) -> None:
        o = cls.OPTIONS
        parser.add_argument("--size", type=types.non_negative_int, default=o["size"],
                            help=f"Number Match start numbers (default {o['size']})")
        parser.add_argument("--adds", type=types.bounded_int(0, MAX_ADDS, "adds"), default=o["adds"],
                            help=f"Number Match adds (default {o['adds']})")
        parser.add_argument("--add-rule", choices=ADD_RULES, default=o["add_rule"],
                            help='"live": adds go after the last live number (a rule variant)')
        parser.add_argument("--points", metavar="KIND=N,...", default=o["points"],
                            help="Number Match: score some kinds otherwise, e.g. gap=3,row=20 (kinds: touching, "
                                 "row_break, gap, row, clear)")
        parser.add_argument("--ads", action="store_true",
                            help="an interstitial ad (an ad SDK's activity) after each stage; BACK closes it "
                                 "once its countdown is over")
        parser.add_argument("--ad-seconds", type=types.finite_seconds, default=o["ad_seconds"], metavar="S",
                            help=f"the ads' countdown before BACK closes them (default {o['ad_seconds']:g})")
        parser.add_argument("--ad-store", action="store_true",
                            help="a tap on an ad opens the store in front, as a click-through does")
        parser.add_argument("--row-window", type=types.finite_seconds, default=o["row_window"], metavar="S",
                            help="Number Match: a row a pair empties stays S seconds after its fade, and a pair "
                                 "chosen then is played with it there (the seed's row-removal window; default 0: off)")

    @classmethod
    def fixture_states(cls, preset, theme: str, seed: int):
        options = dict(cls.OPTIONS, size=FIXTURE_SIZES[preset.name], adds=FIXTURE_ADDS[preset.name])

        app = cls.create(preset, seed, theme, options)
        yield "fresh", app

        app = cls.create(preset, seed, theme, options)
        play_pairs(app, 6, random.Random(seed))
        live = [int(k) for k in app.truth()["cells"] if app.board.cells[int(k)]]
        app.tap_on_cell(live[len(live) // 2])
        yield "midgame", app

        app = cls.create(preset, seed, theme, options)
        play_pairs(app, 3, random.Random(seed + 1))
        app.tap_rect(app.truth()["add_button"])
        play_pairs(app, 2, random.Random(seed + 2))
        app.tap_rect(app.truth()["add_button"])
        yield "after_adds", app

        app = cls.create(preset, seed, theme, options)
        play_pairs(app, 2, random.Random(seed + 3))
        while app.board.rows <= app.layout.rows_fit * 2:
            app.tap_rect(app.truth()["add_button"])
        middle = (app.board.rows - app.layout.rows_fit) // 2
        cx, cy = preset.width // 2, preset.height // 2
        app.swipe(cx, cy + middle * app.layout.cell // 2, cx, cy - middle * app.layout.cell // 2, 300)
        yield "tall_scrolled", app

        # the real board scrolls freely: stop a third of a row into a row, cut by the top border
        app.snap_rows = False
        app.swipe(cx, cy, cx, cy - app.layout.cell // 3, 200)
        yield "tall_partial", app

        app = cls.create(preset, seed, theme, options)
        app.board = Board.parse("19.", adds_left=2, rules=app.rules, score=app.board.score, stage=3)
        app.tap_on_cell(0)
        app.tap_on_cell(1)
        yield "stage_complete", app

        app = cls.create(preset, seed, theme, options)
        app.board = Board.parse("55", adds_left=1, rules=app.rules, stage=4, score=2480)
        app.tap_on_cell(0)
        app.tap_on_cell(1)
        yield "ad", AdShown(app, Interstitial(preset, cls.PACKAGE, seconds=0, unit=app.layout.cell))

        app = cls.create(preset, seed, theme, options)
        app.board = Board.parse("123 456 78", adds_left=0, rules=app.rules, stage=2, score=1234)
        app.check_end()  # no add left and no pair: the game is over
        yield "game_over", app


# the fixtures' start size per preset, as it differs between versions of the real game
FIXTURE_SIZES = {"720x1600": 27, "1080x2400": 35, "1440x3200": 42, "tablet-1600x2560": 27, "1080x2340-2022": 27}
FIXTURE_ADDS = {"720x1600": 4, "1080x2400": 5, "1440x3200": 5, "tablet-1600x2560": 5, "1080x2340-2022": 4}


def play_pairs(app: NumberMatchApp, count: int, rng: random.Random) -> None:
    """Play ``count`` legal pairs picked by ``rng`` among those on screen, as a finger would."""
    for _ in range(count):
        on_screen = {int(k) for k in app.truth()["cells"]}
        pairs = [p for p in app.board.pairs() if p.i in on_screen and p.j in on_screen]
        if not pairs:
            return
        pair = rng.choice(pairs)
        app.tap_on_cell(pair.i)
        app.tap_on_cell(pair.j)


class AdShown:
    """The fixtures' "ad": an interstitial, closable, over the stage just completed (its truth
    is the game's, its screen "ad" with the ad's close button)."""

    def __init__(self, app: NumberMatchApp, ad: Interstitial):
        self.app, self.ad = app, ad

    def render(self) -> np.ndarray:
        return self.ad.render(0.0)

    def truth(self) -> dict:
        return dict(self.app.truth(), screen="ad", buttons={"close": list(self.ad.close)})


ADD_RULES = ("cell", "live")
MAX_AD_SECONDS = 60
APP = NumberMatchApp
