"""Number Match boards taller than the screen: reading the whole board by scrolling, and
bringing the rows of a move on screen (behind the game's ``look`` and ``show``: the
one game whose board scrolls; its rules give the row width).

The screen does not say how far the board is scrolled, so a ``BoardView`` keeps count: it
starts from the top (swiping down until the picture stops changing), reads screen by screen
downwards, and places each screen twice over: by the distance its swipe moved the board, and by
the rows it shares with the screens already read. Rows repeat after an add, so the content alone
is ambiguous; the distance alone is wrong when the board hits its end (or a real phone's scroll
runs short or on). A screen whose two placements disagree is read again; what still disagrees
is settled by the content, nearest to the distance, or the survey starts again from the top.
The board's end shows as an empty row under the fade; where rows repeated by adds leave several
places at the end, the board autoplay expects chooses. Swipes in a known board aim at places
that look different from the screen they leave, so a board that moved never passes for a
dropped swipe. After a move the loop predicted, the screen is only compared with the predicted
board where it stands (``confirm``): the rows off screen are the prediction's, and the board is
read whole again only when the screen disagrees.

Every swipe starts and ends on cell centres of the grid (never on a button), and nothing here taps.
"""

from __future__ import annotations



from assistant.games import BoardChanged
from assistant.games.numbermatch.placement import (COLUMNS, capacity, fits, goes_on_below, looks_same, numbered,
                                                   screen_rows, step)
from assistant.settle import STILL_PIXELS, changed_pixels
from solver.errors import TapsolveError
from solver.numbermatch import Board
from solver.errors import NotABoardNow
from vision import Reading
MAX_SWIPES = 40  # per survey or show: a board needing more is not behaving like a list
SPEED = 1.0  # finger speed in px/ms: a drag this slow stops about where the finger stops
MIN_MS = 300
# swipes that must leave the picture unchanged before the board counts as at its end (one
# dropped swipe must not pass for the end of the board)
UNCHANGED = 2
# unchanged swipes in a row where the board is known to go on (digits below the fade, or rows of
# the known board still to come): only dropped swipes, retried up to this many (one in 16
# million at half the swipes lost) before the phone is taken to ignore swipes
MAX_DROPPED_SWIPES = 24


class ScrollError(TapsolveError):
    """The board would not scroll as a list does, or could not be placed."""


class _Misplaced(Exception):
    """A screen's rows fit nowhere in what was read before: start the survey again."""


class Budget:
    """A bound on the swipes of one survey or show."""

    def __init__(self, limit: int):
        self.limit, self.used = limit, 0

    def spend(self):
        self.used += 1
        if self.used > self.limit:
            raise ScrollError(f"the board did not settle after {self.limit} swipes: is something "
                              "else scrolling it? Leave the phone alone while the board is read")


class BoardView:
    """Where the Number Match board stands on the phone's screen, and the whole board last read.

    ``first_row`` is the board row at the top of the grid (None when unknown); ``row0_y`` the
    screen y where board row 0's top edge would be, which is the scroll in pixels.
    """

    def __init__(self, unchanged: int = UNCHANGED, max_swipes: int = MAX_SWIPES, alone: bool = False):
        self.unchanged, self.max_swipes = unchanged, max_swipes
        # True when nobody but this view scrolls the board (autoplay); a person may (the guide)
        self.alone = alone
        self.first_row: int | None = None
        self.row0_y: float | None = None
        self.board: Board | None = None
        self.rows: list[tuple[int, ...]] = []  # the whole board's rows as last surveyed
        self.selected: int | None = None
        self.image = None  # the last screenshot
        self.left = None  # the screenshot of the screen as the last survey or show left it
        self.raw: Reading | None = None  # the last reading as vision gave it (indices from the screen's top)
        self.reading: Reading | None = None  # the last reading, absolute indices
        self.swipes = 0
        self.looks = 0
        self.say = lambda text: None  # progress while scrolling takes long (the session's, once attached)

    # -- looking ---------------------------------------------------------------------------

    @staticmethod
    def _ends(image, reading: Reading) -> Reading:
        """The reading, told that the board ends on screen when the row cut by the fade is empty."""
        if reading.screen == "board" and reading.more_below and goes_on_below(image, reading) is False:
            reading.more_below = False
        return reading

    def _look(self, session, tries: int = 3):
        """Capture and read; cells read with low confidence are read again from a new capture."""
        for _ in range(tries):
            self.looks += 1
            try:
                image, reading = session.look("numbermatch")
            except NotABoardNow:
                return None, Reading("numbermatch", "unknown")
            self.image = image
            if reading.screen != "board" or reading.sure:
                return image, self._ends(image, reading)
        raise TapsolveError(f"cannot read {reading.describe_unsure()} for sure (counted from the top of the "
                            "screen): run `tapsolve calibrate` with the board on screen, or report the screenshot")

    def _read(self, session, image):
        """Read a screenshot just captured with the session's profile (a look when that fails)."""
        reading = session.reread(image, "numbermatch")
        if reading is None:
            return self._look(session)
        self.looks += 1
        self.image = image
        return image, self._ends(image, reading)

    @staticmethod
    def _top_y(reading: Reading) -> float:
        """Screen y of the top edge of the first whole row on screen."""
        return min(y for _, y in reading.cells.values()) - reading.pitch / 2

    @staticmethod
    def _same_picture(a, b, reading: Reading) -> bool:
        """The grid looks the same on two screenshots (the status bar's clock may change).

        Pixels are counted, not averaged: on a board of repeated rows two screens may differ
        by one crossed-out pair alone, a change too small to move a mean over the grid."""
        if a is None or b is None or a.shape != b.shape:
            return False
        xs, ys = zip(*reading.cells.values())
        h = reading.pitch / 2
        grid = slice(max(0, int(min(ys) - h)), int(max(ys) + h)), slice(max(0, int(min(xs) - h)), int(max(xs) + h))
        return changed_pixels(a[grid], b[grid]) <= STILL_PIXELS

    def _unchanged(self, image) -> bool:
        """The screen is exactly as this view left it (below the status bar, whose clock ticks)."""
        last = self.left
        if self.reading is None or self.first_row is None or last is None or image is None \
                or last.shape != image.shape:
            return False
        y = image.shape[0] // 20
        return changed_pixels(last[y:], image[y:]) <= STILL_PIXELS

    def _swipe(self, session, reading: Reading, rows: int, budget: Budget) -> float:
        """Swipe the board by ``rows`` (positive shows later rows) between cell centres of the grid
        on screen; returns the finger's travel in pixels (positive: moved up)."""
        centres = sorted({y for _, y in reading.cells.values()})
        n = max(1, min(abs(rows), len(centres) - 1))
        x = sorted(x for x, _ in reading.cells.values())[len(reading.cells) // 2]
        if rows > 0:  # the finger moves up: from the last row shown
            y1, y2 = centres[-1], centres[-1 - n]
        else:
            y1, y2 = centres[0], centres[n]
        budget.spend()
        self.swipes += 1
        self.left = None
        session.link.swipe(x, y1, x, y2, max(MIN_MS, int(abs(y2 - y1) / SPEED)))
        return float(y1 - y2)

    def _settle(self, image, reading: Reading, first_row: int) -> Reading:
        """Take note of where the board stands; the reading with absolute indices."""
        self.image, self.raw = image, reading
        self.first_row = first_row
        self.row0_y = self._top_y(reading) - first_row * reading.pitch
        shown = numbered(reading, first_row)
        on_screen = range(first_row * COLUMNS, first_row * COLUMNS + len(reading.board.cells))
        if shown.selected is not None or self.selected in on_screen:
            self.selected = shown.selected
        return shown

    def _whole(self, shown: Reading, board: Board) -> Reading:
        """The reading as the loop wants it: the whole board, the selection wherever it is."""
        shown.board = board
        shown.selected = self.selected
        shown.more_below = shown.first_row + -(-len(shown.cells) // COLUMNS) < len(self.rows)
        self.reading, self.left = shown, self.image
        return shown

    # -- the whole board -------------------------------------------------------------------

    def survey(self, session, first=None, expect: Board | None = None,
               before: Board | None = None) -> tuple[Board | None, Reading]:
        """The whole board and a reading of the screen as it is left (absolute indices, the whole
        board in ``reading.board``). ``first``: an (image, reading) just taken, to save a look.
        ``expect``: the board the loop expects after its move (autoplay), to choose among places
        on a board of repeated rows that the screen alone cannot tell apart; ``before``: the board
        before that move (a screen that still shows it, a lost tap, needs no survey).
        On a screen that is not a board: (None, that reading)."""
        budget = Budget(self.max_swipes)
        for _ in range(3):
            image, reading = first if first is not None else self._look(session)
            if first is not None:
                self._ends(image, reading)
            first = None
            if reading.screen != "board":
                self.first_row = None
                return None, reading
            if self._unchanged(image):
                return self.board, self.reading  # nothing moved since the last look: no swipes
            confirmed = self.confirm(image, reading, expect, before)
            if confirmed is not None:
                return confirmed
            room = capacity(reading)
            if not reading.more_below and (self.first_row == 0 or (room and reading.rows_visible < room)):
                # the whole board is on screen: from the top, or shorter than the grid
                self.selected = None
                shown = self._settle(image, reading, 0)
                self.rows = screen_rows(reading)
                self.board = reading.board.copy()
                return self.board, self._whole(shown, self.board)
            try:
                return self._read_down(session, image, reading, budget, expect)
            except _Misplaced:
                self.first_row = None
                continue
        raise ScrollError("the board kept changing while it was read: leave the phone alone "
                          "while the board is read, and run again")

    def _to_top(self, session, image, reading: Reading, budget: Budget):
        """Swipe down until the picture stops changing: the board's first row is at the top.

        When nobody else scrolls the board (``alone``), where this view left it is known: one
        swipe that covers that way back (or changes nothing from the top) is enough."""
        known = self.first_row if self.alone else None
        span = len(screen_rows(reading)) - 1  # rows one swipe moves the board
        # left lower down with more below, an unchanged picture is most likely a swipe the phone
        # dropped (the game scrolls up by itself only as rows go, showing the board's end): two
        # more before believing it
        need = self.unchanged + (2 if known and reading.more_below else 0)
        still, moved = 0, False
        while still < need:
            # after an unchanged picture, one row less: rows repeated by adds (3 rows over and
            # over) look unchanged after a swipe of 12 rows that moved, not after 12 and then 11
            self._swipe(session, reading, -(span - still % 2 if span > 1 else span), budget)
            after = session.capture()
            same = self._same_picture(image, after, reading)
            image = after
            if same:
                still += 1
                if known == 0:
                    break
            else:
                still, moved = 0, True
                if known is not None and known < span:  # a row to spare for a short scroll
                    break
        return self._read(session, image) if moved else (image, reading)

    def confirm(self, image, reading: Reading, expect: Board | None = None, before: Board | None = None):
        """The whole board without a swipe, when the screen agrees with a board the loop thinks
        possible (``expect``, the one it predicts, then ``before``, the one before its move): the rows on screen and the
        header match that board at some place, the nearest to where the board stood. The rows
        off screen are that board's. None when the screen agrees with neither: survey again."""
        if self.first_row is None or not reading.cells or reading.screen != "board":
            return None
        self._ends(image, reading)
        for board in (expect, before):
            if board is None or board.adds_left != reading.board.adds_left \
                    or None not in (board.stage, reading.board.stage) and board.stage != reading.board.stage:
                continue
            rows = [tuple(board.cells[k:k + COLUMNS]) for k in range(0, len(board.cells), COLUMNS)]
            seen = screen_rows(reading)
            fits = [f for f in range(len(rows)) if rows[f:f + len(seen)] == seen
                    and (reading.more_below or f + len(seen) == len(rows))]
            if not fits:
                continue
            # a move leaves the board where it stood, pulled back as far as a shorter board's end
            stand = min(self.first_row, max(0, len(rows) - len(seen)))
            if (board is expect and stand not in fits
                    and seen == self.rows[self.first_row:self.first_row + len(seen)]):
                # the screen still shows the board read last, where it stood (a frame from before
                # the move's animation): on rows repeated by adds, the prediction fits it farther
                # on, a place the board never went to
                continue
            at = stand if stand in fits else min(fits, key=lambda f: (abs(f - self.first_row), f))
            if board is expect:
                self.selected = None  # a move made leaves nothing selected but what the screen shows
            self.rows = rows
            self.board = Board(list(board.cells), adds_left=reading.board.adds_left,
                               score=reading.board.score, stage=reading.board.stage)
            return self.board, self._whole(self._settle(image, reading, at), self.board)
        return None

    def _read_down(self, session, image, reading: Reading, budget: Budget, expect: Board | None):
        self.say("reading the whole board: it is taller than the screen, scrolling through it...")
        image, reading = self._to_top(session, image, reading, budget)
        if reading.screen != "board":
            self.first_row = None
            return None, reading
        self.selected = None
        shown = self._settle(image, reading, 0)
        rows = screen_rows(reading)
        still = 0
        # the board ends where the row cut by the fade is empty (see goes_on_below); where that
        # cannot be seen, where it stops short of the finger, or where swiping no longer changes
        # the picture (a few times: a dropped swipe must not cut the board short)
        while reading.more_below and still < (MAX_DROPPED_SWIPES if goes_on_below(image, reading)
                                              else self.unchanged + 2):
            travel = self._swipe(session, reading, len(screen_rows(reading)) - 2, budget)
            after, new = self._look(session)
            if new.screen != "board":
                self.first_row = None
                return None, new
            # (rows repeated by adds may look unchanged after a swipe that stopped short at the
            # board's end: the row cut by the fade, now empty, tells it moved)
            if self._same_picture(image, after, reading) and new.more_below == reading.more_below:
                still += 1  # the end of the board, or a swipe the phone dropped: try again
                continue
            still = 0
            at = self._place(session, rows, after, new, travel, forward=True, expect=expect)
            if at is None:
                raise _Misplaced
            at, after, new = at
            moved = at - self.first_row
            shown = self._settle(after, new, at)
            rows[at:at + len(screen_rows(new))] = screen_rows(new)
            image, reading = after, new
            if 0 < moved < travel / new.pitch - 0.5:
                break  # the board stopped short of the finger: its end is on screen
        self.rows = rows
        last = reading.board
        self.board = Board([c for row in rows for c in row], adds_left=last.adds_left,
                           score=last.score, stage=last.stage)
        return self.board, self._whole(shown, self.board)

    def _place(self, session, rows, image, reading: Reading, travel: float, forward: bool | None,
               expect: Board | None = None):
        """The board row at the top of a screen read after a swipe: (row, image, reading) or None
        (``expect``: the board the loop expects, whose end chooses among places at the board's end).

        The distance says where the board should be; the rows already known must agree. When
        they do not, the screen is read again (the board may still have been moving); then the
        content decides, taking the place nearest to the distance among those it allows."""
        for attempt in range(2):
            predicted = round((self._top_y(reading) - (self.row0_y - travel)) / reading.pitch)
            places = [f for f in fits(rows, reading) if forward is None
                    or (f >= self.first_row if forward else f <= self.first_row)]
            if forward and not reading.more_below and expect is not None:
                # at the board's end a swipe may stop short by any amount, and rows repeated by
                # adds fit at several places short of the distance (the distance's own among
                # them): the screen cannot choose, the board the loop expects can, when its end
                # is one of them
                end = -(-len(expect.cells) // COLUMNS) - len(screen_rows(reading))
                if end in places and end <= predicted:
                    return end, image, reading
            if predicted in places:
                return predicted, image, reading
            # A slow swipe does not carry the board further than the finger went, but the
            # board's end can stop it short: a place short of the distance is the board's end
            # (taken at once when the screen shows the end), a place beyond it only the content
            # repeating itself (taken last, when nothing else fits a second read).
            if forward is None:
                short = []
            elif forward:
                short = sorted((f for f in places if f < predicted), reverse=True)
            else:
                short = sorted(f for f in places if f > predicted)
            at_end = (forward and not reading.more_below) or (forward is False and predicted < 0)
            if short and (at_end or attempt == 1):
                return short[0], image, reading
            if places and attempt == 1:
                return min(places, key=lambda f: (abs(f - predicted), f)), image, reading
            if attempt == 0:
                image, reading = self._look(session)
                if reading.screen != "board":
                    return None
        return None

    # -- bringing rows on screen -----------------------------------------------------------

    def show(self, session, rows) -> Reading:
        """Scroll as little as needed for the board rows ``rows`` to be on screen (the first of
        them when they do not fit on one screen); the fresh reading, with absolute indices."""
        rows = sorted(set(int(r) for r in rows))
        first, last = rows[0], rows[-1]
        if self.board is None or self.first_row is None:
            self.survey(session)
        placed = None
        image = session.capture()
        if self._unchanged(image):  # just as the last survey left it: no need to read it again
            placed = self.first_row, image, self.raw
        for _ in range(0 if placed else 2):  # where the board stands now; read it again if it changed
            image, reading = self._look(session)
            if reading.screen != "board":
                raise ScrollError("the board left the screen while it was being scrolled")
            placed = self._place(session, self.rows, image, reading, 0.0, None)
            if placed is not None:
                break
            self.survey(session)
        if placed is None:
            raise ScrollError("the board on screen does not match the board read a moment ago: run again")
        at, image, reading = placed
        shown = self._settle(image, reading, at)
        budget = Budget(self.max_swipes)
        still, told = 0, False
        while True:
            k, top = len(screen_rows(reading)), self.first_row
            if top <= first and last < top + k:
                break  # all on screen
            if last - first + 1 > k and top <= first < top + k:
                break  # they do not fit together: the first is on screen
            if last - first + 1 <= k:
                target = first if first < top else last - k + 1
            else:
                target = first if first < top else first - k + 1
            target = max(0, min(target, len(self.rows) - k))
            if target == top:
                break  # as far as the board goes
            if still > MAX_DROPPED_SWIPES:  # the known board goes on: an unchanged screen is a drop
                raise ScrollError("the board does not scroll: are swipes reaching the phone?")
            reach = len({y for _, y in reading.cells.values()}) - 1
            if abs(target - top) > reach and not told:  # more than one swipe away
                self.say(f"scrolling to row{f's {first + 1}-' if last > first else ' '}{last + 1} "
                         f"of {len(self.rows)}...")
                told = True
            aim = step(self.rows, top, target, k, reach)
            travel = self._swipe(session, reading, aim - top, budget)
            after, new = self._look(session)
            if new.screen != "board":
                raise ScrollError("the board left the screen while it was being scrolled")
            if self._same_picture(image, after, reading):
                if looks_same(self.rows, top, aim, k):
                    # every place in reach looks like this one: only the distance can tell
                    shown = self._settle(after, new, aim)
                    image, reading = after, new
                    continue
                still += 1  # a swipe the phone dropped
                if still == UNCHANGED + 1:
                    self.say(f"the board did not move for {still} swipes: swiping again "
                             "(are swipes reaching the phone?)")
                continue
            still = 0
            placed = self._place(session, self.rows, after, new, travel, aim > top)
            if placed is None:
                raise BoardChanged("rows brought on screen differ from the board read before")
            at, image, reading = placed
            shown = self._settle(image, reading, at)
        return self._whole(shown, self.board)
