"""The Number Match app of the virtual phone: draws the board like the real game and plays taps.

The rules are ``solver.numbermatch.Board``'s; this module only decides what a tap means (select,
cross out, move the selection, add) and draws the screens: the board, stage complete, game over
and, with ``ads``, an interstitial ad (an ad SDK's activity, phonesim.apps.others) after each
stage complete. Under a real-phone profile the game animates as the real one does
(``ANIMATIONS``): the game's state changes at once, the picture follows over the animation's
time, and a screenshot shows the frame of that moment.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import cv2
import numpy as np

from phonesim.apps import AppOptionError, choose, draw
from phonesim.apps.draw import cap_size
from phonesim.apps.others import Interstitial
from phonesim.app import App, Preset, inside
from solver.numbermatch import MAX_ADDS, Add, Board, Pair, Rules, Wait, parse_points, points_from

COLUMNS = 9
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
SEED_SQUARE = 0.3  # the selection's highlight starts as a square this part of the cell, and grows
BANNER_DP = 50  # a standard banner ad is 320x50 dp


@dataclass(frozen=True)
class Layout:
    """Where everything sits on one preset's screen, in pixels (measured off the real game,
    in units of the cell: about 112 px on a 1080-wide phone)."""

    width: int
    height: int
    status_bar: int
    cell: int
    line: int  # grid line thickness
    border: int  # border thickness
    grid_x: int  # left border's centre; column k spans grid_x + k*cell .. + cell
    grid_top: int  # top border's centre; screen row k spans grid_top + k*cell .. + cell
    fade_start: int
    fade_end: int
    rows_fit: int  # whole rows between the top border and the fade
    toolbar_y: int  # centre line of the back arrow, coins and gear
    score_y: int  # baselines of the score, the header labels and their values
    label_y: int
    value_y: int
    panel_top: int | None  # a tablet shows a grey panel under the game card
    style: str  # the build's look: "current" or "2022" (see phonesim.app.Preset)
    add_center: tuple[int, int]
    hint_center: tuple[int, int]
    button_radius: int

    @classmethod
    def of(cls, preset: Preset) -> "Layout":
        W, H, sb = preset.width, preset.height, preset.status_bar
        # phones are tall enough for the width to set the cell; a tablet's height sets it
        cell = round(W * 0.104) if H / W >= 2 else round(H * 0.045)
        grid_x = (W - COLUMNS * cell) // 2
        tablet = H / W < 2
        panel_top = H - round(2.1 * cell) if tablet else None
        if preset.style == "2022":
            # measured off realshots/phone_216x475_stage10.jpg: a title bar, then the trophy score
            grid_top = sb + round(3.0 * cell)
            button_y = H - round(3.37 * cell)
            fade_end = button_y - round(1.25 * cell)
            look = dict(toolbar_y=sb + round(0.9 * cell), score_y=grid_top - round(1.15 * cell),
                        label_y=grid_top - round(0.8 * cell), value_y=grid_top - round(0.38 * cell),
                        panel_top=None, style="2022", hint_center=(W // 2 + round(2.9 * cell), button_y),
                        button_radius=round(0.72 * cell))
        else:
            grid_top = sb + round(2.6 * cell)
            button_y = panel_top - round(0.84 * cell) if tablet else H - round(3.2 * cell)
            fade_end = button_y - round(1.45 * cell)
            look = dict(toolbar_y=sb + round(0.28 * cell), score_y=grid_top - round(1.13 * cell),
                        label_y=grid_top - round(0.53 * cell), value_y=grid_top - round(0.23 * cell),
                        panel_top=panel_top, style="current", hint_center=(W // 2 + 2 * cell, button_y),
                        button_radius=round(0.54 * cell))
        fade_start = fade_end - round(0.42 * cell)
        return cls(
            width=W, height=H, status_bar=sb, cell=cell,
            line=max(1, round(cell / 40)), border=max(2, round(cell / 24)),
            grid_x=grid_x, grid_top=grid_top, fade_start=fade_start, fade_end=fade_end,
            rows_fit=(fade_start - grid_top) // cell, add_center=(W // 2, button_y), **look,
        )

    def cell_rect(self, screen_row: int, column: int) -> list[int]:
        return [self.grid_x + column * self.cell, self.grid_top + screen_row * self.cell, self.cell, self.cell]

    def button_rect(self, center) -> list[int]:
        r = self.button_radius
        return [center[0] - r, center[1] - r, 2 * r, 2 * r]


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
        self.coins = random.Random(f"coins:{seed}").randint(50, 999)
        self.screen = "board"
        self.offset = 0  # how far the board is scrolled, in pixels
        # the real board scrolls freely; by default a swipe moves whole rows (predictable for tests)
        self.snap_rows = True
        self.selected: int | None = None
        self.hinted: tuple[int, int] | None = None
        self.new_game()
        self._static: dict[str, np.ndarray] = {}
        self._tiles: dict[tuple[int, str], np.ndarray] = {}
        self._fade = np.linspace(0, 1, self.layout.fade_end - self.layout.fade_start, dtype=np.float32)[:, None, None]
        self._fade_to = self._fade * np.float32(self.theme.rgb("background"))
        self._message_key: tuple | None = None
        self._message: np.ndarray | None = None
        self.digit_size = cap_size(preset.font, 0.59 * self.layout.cell)  # digits 0.59 of a cell tall
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
        if banner != self.banner:
            self.banner = banner
            self._static.pop("board", None)

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
            if L.grid_x <= x < L.grid_x + COLUMNS * L.cell and L.grid_top <= y < L.fade_end:
                return "empty"  # the grid past the board's last cell
            if inside(L.button_rect(L.add_center), x, y):
                return "add"
            if inside(L.button_rect(L.hint_center), x, y):
                return "button"
            if self.banner and inside(self.banner_rect(), x, y):
                return "ad"
            return "nothing"
        if any(inside(rect, x, y) for rect in self.buttons().values()):
            return "animating" if self.screen == "stage_complete" and self._slide(now) is not None else "button"
        return "nothing"

    def banner_rect(self) -> list[int]:
        L = self.layout
        h = round(BANNER_DP * self.preset.density / 160)
        return [0, L.height - h, L.width, h]

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
        if not (L.grid_x <= x < L.grid_x + COLUMNS * L.cell and L.grid_top <= y < L.fade_end):
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
        L = self.layout
        W, H, c = L.width, L.height, L.cell
        if self.screen in ("stage_complete", "game_over"):
            bw, bh = round(5.5 * c), round(1.05 * c)
            name = "continue" if self.screen == "stage_complete" else "new_game"
            return {name: [(W - bw) // 2, round(H * 0.72), bw, bh]}
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

    # -- drawing ---------------------------------------------------------------------------

    def render(self) -> np.ndarray:
        now = self.clock()
        self._close_window(now)
        if self.screen == "board":
            return self._render_board(now)
        # the other screens change only with the stage and score: keep the last one drawn
        key = (self.screen, self.board.stage, self.board.score)
        if self._message_key != key:
            self._message = self._render_message()
            if self.banner:
                self._banner(self._message)
            self._message_key = key
        slide = self._slide(now)
        if slide is not None:
            # the board as its last pair leaves it, the stage-complete sheet sliding up over it
            # (its top edge casts a shadow; a banner ad stays on top)
            frame, sb, H = self._render_board(now), self.layout.status_bar, self.layout.height
            shift = round((1 - slide) * (H - sb))
            frame[sb + shift:] = self._message[sb:H - shift]
            shadow = max(2, round(0.12 * self.layout.cell))
            edge = frame[max(sb, sb + shift - shadow):sb + shift]
            edge[...] = (edge * np.float32(0.8)).astype(np.uint8)
            if self.banner:
                x, y, w, h = self.banner_rect()
                frame[y:y + h] = self._board_static()[y:y + h]
            return frame
        return self._message.copy()

    def _board_static(self) -> np.ndarray:
        """Everything on the board screen that no move changes, drawn once."""
        if "board" in self._static:
            return self._static["board"]
        L, t, family = self.layout, self.theme, self.preset.font
        c = L.cell
        screen = draw.blank(self.preset, t)
        accent = t.rgb("accent")
        if L.panel_top is not None:
            # a tablet shows the game on a card over a grey panel, with a soft shadow at its edge
            draw.fill_rect(screen, 0, L.panel_top, L.width, L.height - L.panel_top, t.rgb("panel"))
            shade = round(0.08 * c)
            for k in range(shade):
                mix = 0.25 * (1 - k / shade)
                row = np.float32(t.rgb("panel")) * (1 - mix) + np.float32((120, 130, 150)) * mix
                screen[L.panel_top + k] = np.round(row)
        if self.banner:
            self._banner(screen)
        # toolbar: back arrow, then coins (current) or the title (2022), settings gear
        k = 1.35 if L.style == "2022" else 1.0  # that build's icons are larger
        s = round(0.36 * c * k)
        arrow = draw.polyline_mask(s, s, [(s * 0.68, s * 0.08), (s * 0.25, s * 0.5), (s * 0.68, s * 0.92)], c * 0.04 * k)
        draw.blend(screen, round(0.32 * c), L.toolbar_y - s // 2, arrow, accent)
        self._gear(screen, L.width - round(0.54 * c * k), L.toolbar_y, round(0.22 * c * k), c * 0.032 * k, accent)
        label = cap_size(family, 0.16 * c)
        muted = t.rgb("muted")
        right = L.grid_x + COLUMNS * c
        if L.style == "2022":
            draw.put_text(screen, family, "medium", cap_size(family, 0.27 * c), "Number Match", L.width // 2,
                          L.toolbar_y, t.rgb("title"), align="center", valign="middle")
            draw.put_text(screen, family, "regular", cap_size(family, 0.14 * c), "Stage:", L.grid_x, L.label_y,
                          muted, valign="middle")
        else:
            pw, ph = round(1.34 * c), round(0.62 * c)
            px, py = L.width // 2 - pw // 2, L.toolbar_y - ph // 2
            draw.put_rounded_rect(screen, px - 2, py - 1, pw + 4, ph + 4, ph // 2 + 2, t.rgb("grid"))
            draw.put_rounded_rect(screen, px, py, pw, ph, ph // 2, t.rgb("background"))
            draw.put_coin(screen, px + round(0.28 * c), L.toolbar_y, round(0.19 * c))
            draw.put_text(screen, family, "medium", cap_size(family, 0.21 * c), str(self.coins),
                          px + round(0.53 * c), L.toolbar_y, t.rgb("text"), valign="middle")
            draw.put_text(screen, family, "regular", label, "Stage", L.grid_x, L.label_y, muted)
            draw.put_text(screen, family, "regular", label, "Numbers Cleared", L.width // 2, L.label_y, muted,
                          align="center")
            draw.put_text(screen, family, "regular", label, "This Month", right, L.label_y, muted, align="right")
        # the grid's top border; the lattice under it scrolls and is drawn per frame
        b = L.border
        draw.fill_rect(screen, L.grid_x - b // 2, L.grid_top - b // 2, COLUMNS * c + b, b, t.rgb("border"))
        # the "+" and hint buttons (the adds badge is drawn per frame)
        r = L.button_radius
        for center in (L.add_center, L.hint_center):
            draw.put_circle(screen, center[0], center[1], r, t.rgb("button"))
        ax, ay = L.add_center
        arm = round(0.5 * r)
        plus = draw.polyline_mask(2 * arm, 2 * arm, [(arm, 0), (arm, 2 * arm)], 0.083 * r)
        draw.blend(screen, ax - arm, ay - arm, np.maximum(plus, plus.T), accent)
        self._bulb(screen, *L.hint_center, round(r / 0.54), accent)
        if L.style != "2022":  # that build's hint button has no coin price
            hx, hy = L.hint_center
            bx, by, br = hx + round(0.45 * c), hy - round(0.37 * c), round(0.2 * c)
            draw.put_rounded_rect(screen, bx - br, by - br, round(3.2 * br), 2 * br, br, t.rgb("badge"))
            draw.put_coin(screen, bx, by, round(0.8 * br))
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.15 * c), "3",
                                   bx + round(1.35 * br), by, t.rgb("badge_text"))
        screen.setflags(write=False)
        self._static["board"] = screen
        return screen

    def _banner(self, screen) -> None:
        """A banner ad across the bottom of the screen, as free games show under the board."""
        x, y, w, h = self.banner_rect()
        family = self.preset.font
        draw.fill_rect(screen, x, y, w, h, (236, 240, 246))
        draw.fill_rect(screen, x, y, w, max(1, h // 60), (200, 206, 216))
        tag = round(0.22 * h)
        draw.fill_rect(screen, x + 4, y + 4, round(1.4 * tag), tag, (250, 190, 40))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.4 * tag), "Ad",
                               x + 4 + round(0.7 * tag), y + 4 + tag // 2, (60, 40, 0))
        draw.put_text(screen, family, "medium", cap_size(family, 0.2 * h), "Solitaire Kings - play free",
                      x + round(0.5 * h), y + h // 2, (40, 50, 70), valign="middle")
        bw = round(1.6 * h)
        draw.put_rounded_rect(screen, x + w - bw - round(0.2 * h), y + round(0.22 * h), bw, round(0.56 * h),
                              round(0.28 * h), (26, 115, 232))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.17 * h), "INSTALL",
                               x + w - bw // 2 - round(0.2 * h), y + h // 2, (255, 255, 255))

    def _gear(self, screen, cx, cy, r, stroke, color) -> None:
        """The settings gear: an outlined wheel of eight teeth around an outlined hole."""
        size = 2 * r + 4
        m = size / 2
        points = []
        for k in range(8):
            for da, radius in ((-0.2, 0.78), (-0.12, 1.0), (0.12, 1.0), (0.2, 0.78)):
                a = (k + 0.5 + da * 2) * np.pi / 4
                points.append((m + (r - stroke) * radius * np.cos(a), m + (r - stroke) * radius * np.sin(a)))
        wheel = draw.polyline_mask(size, size, points, stroke, closed=True)
        hole = draw.polyline_mask(size, size, [(m + r * 0.3 * np.cos(a), m + r * 0.3 * np.sin(a))
                                              for a in np.linspace(0, 2 * np.pi, 24)], stroke, closed=True)
        draw.blend(screen, cx - size // 2, cy - size // 2, np.maximum(wheel, hole), color)

    def _trophy(self, screen, right, baseline, height, color) -> None:
        """A small trophy whose right edge is at ``right``, standing on ``baseline``."""
        w = round(height * 0.9)
        h = round(height)
        mask = np.zeros((h, w), np.uint8)
        cup = draw.rounded_rect_mask(round(w * 0.64), round(h * 0.62), max(1, round(w * 0.3)))
        mask[:cup.shape[0], (w - cup.shape[1]) // 2:(w - cup.shape[1]) // 2 + cup.shape[1]] = cup
        handles = draw.polyline_mask(w, h, [(w * 0.22, h * 0.12), (w * 0.05, h * 0.15), (w * 0.08, h * 0.35),
                                            (w * 0.25, h * 0.42)], max(1, h * 0.1))
        mask = np.maximum(mask, np.maximum(handles, handles[:, ::-1]))
        mask[round(h * 0.6):round(h * 0.85), round(w * 0.44):round(w * 0.56)] = 255
        mask[round(h * 0.82):, round(w * 0.25):round(w * 0.75)] = 255
        draw.blend(screen, right - w, baseline - h, mask, color)

    def _bulb(self, screen, cx, cy, c, color) -> None:
        size = round(0.5 * c)
        r = size * 0.28
        pts = [(size / 2 + r * np.cos(a), size * 0.38 + r * np.sin(a)) for a in np.linspace(0.75 * np.pi, 2.25 * np.pi, 30)]
        pts += [(size / 2 + r * 0.45, size * 0.78), (size / 2 - r * 0.45, size * 0.78), pts[0]]
        mask = draw.polyline_mask(size, size, pts, c * 0.035)
        foot = draw.polyline_mask(size, size, [(size / 2 - r * 0.4, size * 0.92), (size / 2 + r * 0.4, size * 0.92)], c * 0.035)
        draw.blend(screen, cx - size // 2, cy - size // 2, np.maximum(mask, foot), color)

    def _tile(self, value: int, state: str) -> np.ndarray:
        """A cell's inside (between its lines) with its digit: live, crossed, selected or hinted."""
        key = (value, state)
        tile = self._tiles.get(key)
        if tile is None:
            L, t = self.layout, self.theme
            inner = L.cell - 2 * L.border
            fill = {"selected": "selected", "hint": "hint"}.get(state, "background")
            tile = np.empty((inner, inner, 3), np.uint8)
            tile[...] = t.rgb(fill)
            if value:
                m = draw.text_mask(self.preset.font, "regular", self.digit_size, str(value))
                color = t.rgb("crossed" if state == "crossed" else "text")
                draw.blend(tile, round((inner - m.width) / 2), round((inner - m.height) / 2), m.alpha, color)
            self._tiles[key] = tile
        return tile

    def _grid_span(self) -> tuple[int, int, int, int]:
        """The scrolling part of the grid: x0, y0 (just under the top border), x1, y1 (the fade's end)."""
        L, b = self.layout, self.layout.border
        return (L.grid_x - b // 2, L.grid_top - b // 2 + b,
                L.grid_x + COLUMNS * L.cell - b // 2 + b, L.fade_end)

    def _lattice(self, phase: int) -> np.ndarray:
        """The empty grid (lines and side borders) scrolled ``phase`` pixels into a row, cached."""
        key = f"lattice:{phase}"
        if key not in self._static:
            L, t, c = self.layout, self.theme, self.layout.cell
            x0, y0, x1, y1 = self._grid_span()
            lattice = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
            lattice[...] = t.rgb("background")
            grid = t.rgb("grid")
            for k in range(1, COLUMNS):
                draw.fill_rect(lattice, L.grid_x + k * c - L.line // 2 - x0, 0, L.line, y1 - y0, grid)
            for j in range(0, (y1 - y0) // c + 3):
                y = L.grid_top + j * c - phase - L.line // 2 - y0
                if -L.line < y < y1 - y0:
                    lattice[max(y, 0):y + L.line, L.grid_x - x0:L.grid_x + COLUMNS * c - x0] = grid
            b = L.border
            lattice[:, :b] = t.rgb("border")
            lattice[:, x1 - x0 - b:] = t.rgb("border")
            lattice.setflags(write=False)
            self._static[key] = lattice
        return self._static[key]

    @staticmethod
    def _mix(a: np.ndarray, b: np.ndarray, progress: float) -> np.ndarray:
        """A tile on its way from looking like ``a`` to looking like ``b``."""
        return np.round(a * np.float32(1 - progress) + b * np.float32(progress)).astype(np.uint8)

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

    def _render_board(self, now: float) -> np.ndarray:
        L, t, family, board = self.layout, self.theme, self.preset.font, self.board
        c = L.cell
        cells, ghost, offset, lift, written, pair, faded, vanish = self._frame_cells(now)
        screen = self._board_static().copy()
        x0, y0, x1, y1 = self._grid_span()
        screen[y0:y1, x0:x1] = self._lattice(offset % c)
        hinted = set(self.hinted or ())
        select = self.durations.get("select", 0.0)
        lit = draw.eased((now - self._selected_at) / select) if select else 1.0
        n = min(len(cells), int(np.ceil(written)))
        for row in range(offset // c, -(-n // COLUMNS)):
            top = L.grid_top + row * c - offset - round(lift[row] if lift else 0) + L.border
            if top >= y1:
                break
            for col in range(COLUMNS):
                index = row * COLUMNS + col
                if index >= n:
                    break
                value = cells[index]
                state = ("selected" if index == self.selected else "hint" if index in hinted
                         else "live" if value else "crossed")
                tile = self._tile(value or ghost[index], state)
                if index in pair:
                    crossed = self._tile(value, "crossed")
                    tile = self._mix(self._tile(value, "live"), crossed, faded) if faded < 1 else crossed
                elif state == "selected" and lit < 1:
                    # the highlight grows out from a small square at the cell's centre
                    grown, inner = self._tile(value, "live").copy(), tile.shape[0]
                    margin = round(inner * (1 - SEED_SQUARE) * (1 - lit) / 2)
                    a, z = margin, inner - margin
                    grown[a:z, a:z] = tile[a:z, a:z]
                    tile = grown
                if index + 1 > written:  # being written in
                    tile = self._mix(self._tile(0, "live"), tile, written - index)
                if row in vanish:  # squashed towards its top edge as the rows below slide up
                    tall = max(1, round(tile.shape[0] * (1 - vanish[row])))
                    squashed = self._tile(0, "live").copy()
                    squashed[:tall] = cv2.resize(tile, (tile.shape[1], tall), interpolation=cv2.INTER_AREA)
                    tile = squashed
                inner = tile.shape[0]
                a, z = max(top, y0), min(top + inner, y1)  # rows cut by the top border or the fade's end
                if a < z:
                    x = L.grid_x + col * c + L.border
                    screen[a:z, x:x + inner] = tile[a - top:z - top]
        # the grid fades out towards the buttons, over whatever is drawn there
        region = screen[L.fade_start:L.fade_end, x0:x1].astype(np.float32)
        screen[L.fade_start:L.fade_end, x0:x1] = np.round(region * (1 - self._fade) + self._fade_to)
        text, muted = t.rgb("text"), t.rgb("muted")
        if L.style == "2022":
            size = cap_size(family, 0.36 * c)
            box = draw.put_text(screen, family, "bold", size, f"{board.score:,}", L.width // 2 + round(0.25 * c),
                                L.score_y, text, align="center", valign="middle")
            self._trophy(screen, box[0] - round(0.1 * c), box[1] + box[3], 0.4 * c, (240, 180, 40))
            draw.put_text(screen, family, "regular", cap_size(family, 0.17 * c), str(board.stage), L.grid_x,
                          L.value_y, muted, valign="middle")
        else:
            draw.put_text(screen, family, "bold", cap_size(family, 0.27 * c), f"{board.score:,}",
                          L.width // 2, L.score_y, text, align="center")
            value = cap_size(family, 0.19 * c)
            draw.put_text(screen, family, "regular", value, str(board.stage), L.grid_x, L.value_y, muted)
            box = draw.put_text(screen, family, "regular", value, f"{self.best:,}", L.grid_x + COLUMNS * c,
                                L.value_y, muted, align="right")
            self._trophy(screen, box[0] - round(0.06 * c), L.value_y, 0.19 * c, muted)
            # numbers cleared: the digits no longer on the board are faded
            present = set(board.cells)
            step = round(0.285 * c)
            for d in range(1, 10):
                draw.put_text(screen, family, "medium", value, str(d), L.width // 2 + (d - 5) * step, L.value_y,
                              t.rgb("header" if d in present else "crossed"), align="center")
        if board.adds_left:
            ax, ay = L.add_center
            R = L.button_radius
            bx, by, br = ax + round(0.83 * R), ay - round(0.69 * R), round(0.37 * R)
            draw.put_circle(screen, bx, by, br, t.rgb("badge"))
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.28 * R), str(board.adds_left),
                                   bx, by, t.rgb("badge_text"))
        return screen

    def _render_message(self) -> np.ndarray:
        """The stage-complete and game-over screens."""
        L, t, family = self.layout, self.theme, self.preset.font
        c, W = L.cell, L.width
        screen = draw.blank(self.preset, t)
        won = self.screen == "stage_complete"
        title = "Well done!" if won else "No more moves"
        sub = f"Stage {self.board.stage} complete" if won else f"Stage {self.board.stage}"
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.45 * c), title, W // 2, round(L.height * 0.3), t.rgb("text"))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.24 * c), sub, W // 2, round(L.height * 0.3 + 1.0 * c), t.rgb("muted"))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.2 * c), "Score", W // 2, round(L.height * 0.45), t.rgb("muted"))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.4 * c), f"{self.board.score:,}", W // 2, round(L.height * 0.45 + 0.8 * c), t.rgb("text"))
        (name, (x, y, w, h)), = self.buttons().items()
        draw.put_rounded_rect(screen, x, y, w, h, h // 2, t.rgb("badge"))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.24 * c), "Continue" if won else "New game",
                               x + w // 2, y + h // 2, t.rgb("badge_text"))
        return screen

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
