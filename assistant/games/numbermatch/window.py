"""The row-removal window in play: found out on the phone, kept in its profile, and a pair that
needs it tapped only while it is open.

The seed's blog (seed 004, quoted in issue 40: "you can still choose pairs, which resets the
animation timer") says the real game keeps a row a pair empties on screen about half a second,
and plays a pair chosen meanwhile on the board as it stands, the empty row still there, starting
the seconds again; today's game is unconfirmed (phonesim models it as ``--row-window S``). So
the rule (``Rules.row_window``) is planned with only on a phone where it was seen to work:

- a pair that empties a row, followed in the plan by a pair lying wholly above that row (legal
  with or without the window, its cells moving in neither case), is the trial. One frame is
  taken once the first pair's time has passed and compared with the screen before it (no read:
  a read takes a good part of half a second on a busy computer): a game without the window
  shows the rows below moved (the row gone or going), and the pair is judged as always;
- a frame that shows the first pair's cells crossed out and nothing else changed (no tap of it
  lost, nothing selected: the row still there) gets the second pair's taps at once. Frames
  follow until the screen moves: a game with the window shows the second pair crossed out too
  with the row still there past that pair's fade, longer than it had stood before the second
  pair (its seconds started again): the window, its seconds learned (about: from
  the second pair's taps to the last frame that showed the row, less a pair's fade), kept in
  the profile, said once, and the plan made again with the rule on. Either way the screen is
  then read once known and both pairs judged; nothing is lost on a game without the window.
  A pair that needs the row there is never tapped before the window is seen;
- any other pair that empties a row is looked at on one frame just past a pair's fade
  (``peek``): the rows below already on their way up count as a trial without the window, so a
  game whose plans offer no trial still comes to be known to keep none.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from assistant.games import Judgement
from assistant.animation import part_change
from assistant.settle import still
from solver.errors import BoardChanged
from solver.numbermatch import Pair

# its key in what the phone's game accepts (``Profile.accepts``): seconds an emptied row stays
# for pairs chosen meanwhile, 0 when looked for and never seen
ROW_WINDOW = "row_window"
# trials (or looks, ``peek``) whose frame showed the emptied row gone or going: the game keeps
# none (said 0 in the profile, so later games try no more)
TRIALS_WITHOUT = 3
# at most this long a trial watches the emptied row stay (phonesim's longest window is 5 s)
WATCH_AT_MOST = 6.0
# a pair that needs the window is tapped only while this much of it is left after its taps (a
# frame's time, a tap's jitter), else the rows are let go first and the plan made again
WINDOW_SLACK = 0.1
# a frame this long past a pair's fade tells a row that goes at once (the rows below on their
# way up) from one that stays: a window shorter is no use to plan with (a pair's taps and
# WINDOW_SLACK take as long), and a real phone's pause between a fade and its collapse is shorter
PEEK_PAST_FADE = 0.15


@dataclass
class RowWindow:
    """What play knows of this phone's row window: unknown, absent, or open ``seconds``."""

    known: bool = False  # seen to work (``seconds``) or looked for long enough and never seen
    seconds: float = 0.0
    trials: int = 0  # trials that found the emptied row gone
    opened_at: float = float("-inf")  # when the last pair's taps went (the window's seconds start after)

    def recall(self, accepts: dict) -> bool:
        """Start from what the profile kept (``Profile.accepts``): whether the window is on."""
        seconds = accepts.get(ROW_WINDOW)
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            self.known, self.seconds = True, float(seconds)
        return self.seconds > 0

    def trial(self, game, board, move, following) -> bool:
        """Whether ``move`` and ``following`` (the plan's next) make the trial: the window not
        known, ``move`` a pair that empties a row, ``following`` a pair wholly above that row."""
        if self.known or game.row_window or not isinstance(following, Pair) or not empties_a_row(game, board, move):
            return False
        top = emptied_top(board, move)
        return (max(following.i, following.j) // board.rules.columns < top
                and game.after(board, move).is_pair(following.i, following.j))

    def try_it(self, game, loop, move, following) -> str | None:
        """The trial (``trial`` said yes; ``move``'s taps just went): the outcome of ``move`` as
        ``Game.meanwhile`` gives it, None when the window did not show (judged as always).

        Frames are compared with the screen settled before ``move`` (``screen_shows``), not
        read: a read takes a good part of the window's half second on a busy computer."""
        link, reading = loop.link, loop.reading
        before_image, first_sent = link.settler.screen, link.clock.touched_at
        if first_sent is None or not comparable(link, reading, (move.i, move.j, following.i, following.j)):
            return None
        pairs = [cell_insides(reading, pair, game.CELL_INSIDE) for pair in ((move.i, move.j), (following.i, following.j))]
        rest = [*link.settler.changed, *link.ticking, header(reading)]  # (a score counts up there)
        first = link.glance()
        shown = screen_shows(before_image, first, pairs[0], rest)
        if shown != "made, the rest as it was":
            if shown == "made, the rest moved":  # (the row gone or going: no window seen)
                self.missed(game)
            return None
        before = loop.position
        waiting = windowed(before).copy()
        waiting.push(move)  # (``move`` made with its row still there)
        link.tap_all(game.tap_points(following, reading), kind=game.animation(waiting, following))
        sent = time.monotonic()
        seen_from = None  # the latest frame that showed both pairs made, the row still there
        while time.monotonic() < sent + WATCH_AT_MOST:
            began = time.monotonic()  # (a glance's frame is taken as it begins, its wait passed)
            frame = link.glance()
            # (the second pair made, against the screen before it; the rest, the row among it,
            # against the first frame: parts changed since the screen before hide nothing then)
            if (screen_shows(before_image, frame, pairs[1], rest) == "not made"
                    or not still(first, frame, [*pairs[0], *pairs[1], *link.ticking, header(reading)])):
                break
            seen_from = began
        fade = (link.clock.animation.get("pair") or [0.0, 0.0])[1] or 0.0
        if time.monotonic() >= sent + WATCH_AT_MOST:  # (never seen to go: no window told)
            self.missed(game)
            return judge_both(game, loop, before, move, following, replan=False)
        seconds = round(seen_from - sent - fade, 2) if seen_from is not None else 0.0
        # played with the row there, which stayed on past the pair's fade longer than it had
        # stood before it (from the first pair's fade on): its seconds started again (a game
        # that only pauses between a fade and the collapse, as a real phone does a moment, would
        # have let it go by then)
        if seconds > max(sent - first_sent - fade, 0.0):
            self.known, self.seconds = True, seconds
            game.row_window = True
            game.session.accepted(ROW_WINDOW, seconds)
            loop.tell(f"this game keeps an emptied row for {seconds:.1f} s: pairs across it are planned")
        else:
            self.missed(game)  # (a phone's pause between a fade and its collapse: no window either)
        return judge_both(game, loop, before, move, following, replan=game.row_window)

    def peek(self, game, loop, move) -> None:
        """While the window is not known, a pair that empties a row and is no trial (its
        taps just went) is looked at on one frame, PEEK_PAST_FADE past a pair's fade, against
        the screen settled before it: the rows below it moved (the row gone at once) counts as a
        trial that saw no window (``missed``); the rest as it was tells nothing (a window, or a
        pause). So a game whose plans give no trial still comes to be known to keep no window,
        and its rows going to be judged early. The move is judged as always after."""
        link, reading, board = loop.link, loop.reading, loop.position
        fade = (link.clock.animation.get("pair") or [0.0, None])[1]
        sent = link.clock.touched_at
        if (self.known or game.row_window or fade is None or sent is None or not empties_a_row(game, board, move)
                or not comparable(link, reading, (move.i, move.j))):
            return
        before = link.settler.screen
        frame = link.frame_at(sent + fade + PEEK_PAST_FADE)
        if frame is None:
            return
        parts = cell_insides(reading, (move.i, move.j), game.CELL_INSIDE)
        row = emptied_top(board, move)
        y = min(reading.cells[k][1] for k in (move.i, move.j) if k // board.rules.columns == row)
        above = (0, 0, 1 << 20, y - round(reading.pitch / 2))  # (the emptied row's top and up)
        # (its taps taken, and the screen changed from the emptied row down: its cells cover the
        # row below moving up)
        if (any(part_change(before, frame, part) != "unchanged" for part in parts)
                and not still(before, frame, [above, *link.settler.changed, *link.ticking])):
            self.missed(game)

    def missed(self, game) -> None:
        """A trial saw no window: after TRIALS_WITHOUT such, the game keeps none (kept: no more trials)."""
        self.trials += 1
        if self.trials >= TRIALS_WITHOUT:
            self.known = True
            game.session.accepted(ROW_WINDOW, 0.0)

    def judge_waiting(self, game, loop, move, expected) -> str | None:
        """With the window on, a pair whose rows wait on the board (``expected``; its taps just
        went) is judged on one frame against the screen settled before it: its cells crossed
        out and nothing else changed, the rows still there. A settled read would wait for them
        to go (a row crossed out reads as caught moving), past the time the plan's next pairs
        need them. "done", or None: judged as always (the rows gone: planned again)."""
        link, reading = loop.link, loop.reading
        before_image = link.settler.screen
        if not comparable(link, reading, (move.i, move.j)):
            return None
        parts = cell_insides(reading, (move.i, move.j), game.CELL_INSIDE)
        rest = [*link.settler.changed, *link.ticking, header(reading)]  # (before a capture settles anew)
        image = link.glance()
        if screen_shows(before_image, image, parts, rest) != "made, the rest as it was":
            return None
        link.settler.changed += parts  # (they may fade on: the next frames compare the rest)
        loop.judged(Judgement(loop.position, move, expected, expected, "early"))
        loop.image, loop.reading = image, replace(reading, board=expected)
        loop.advance(expected)
        return "done"

    def opened(self) -> None:
        """A pair's taps go now: rows waiting on the board stay ``seconds`` from about then."""
        self.opened_at = time.monotonic()

    def check(self, board, move, taps_s: float) -> None:
        """Before the taps of pair ``move`` on ``board`` (the window's rules), a question: with
        rows waiting above one of its cells, the taps must land (``taps_s`` from now) inside
        the window, WINDOW_SLACK to spare; else the rows may go under them, moving the cells
        below: BoardChanged (the screen read again, the plan made again)."""
        waiting = board.rows_waiting()
        if (waiting and max(move.i, move.j) // board.rules.columns > waiting[0]
                and time.monotonic() - self.opened_at + taps_s + WINDOW_SLACK > self.seconds):
            raise BoardChanged("the emptied rows may go before the next pair's taps land")


def empties_a_row(game, board, move) -> bool:
    """``move`` is a pair that empties a row of ``board`` and leaves numbers on it."""
    if not isinstance(move, Pair):
        return False
    after = game.after(board, move)
    return len(after.cells) != len(board.cells) and not game.ends(after)


def comparable(link, reading, cells) -> bool:
    """Whether a frame can be compared with the screen settled before, at ``cells``: one was
    settled, no rows moved since (what moves below a row emptied would go unseen), and the board
    ``reading`` shows is wholly on screen, nothing selected, with those cells on it."""
    return not (link.settler.screen is None or link.shifted or reading is None or reading.screen != "board"
                or reading.selected is not None or reading.more_above or reading.more_below
                or not reading.pitch) and all(k in reading.cells for k in cells)


def emptied_top(board, move) -> int:
    """The top row the pair ``move`` empties on ``board`` (it empties one)."""
    crossed = board.copy()
    crossed.cells[move.i] = crossed.cells[move.j] = 0
    return min(crossed.emptied_rows(move.i, move.j))


def cell_insides(reading, cells, inside: float) -> list[tuple[int, int, int, int]]:
    """The middle of each of ``cells`` on screen (``inside`` of the pitch: clear of the grid's lines)."""
    half = round(reading.pitch * inside / 2)
    return [(x - half, y - half, x + half, y + half) for x, y in (reading.cells[k] for k in cells)]


def header(reading) -> tuple[int, int, int, int]:
    """The screen above the board's grid (its score, the stage)."""
    return 0, 0, 1 << 20, min(y for _, y in reading.cells.values()) - round(reading.pitch / 2)


def screen_shows(before, image, parts, rest) -> str:
    """What a frame shows against the screen settled ``before``: "made, the rest as it was"
    (every part of ``parts`` crossed out or fading and nothing else changed but ``rest``),
    "made, the rest moved", or "not made" (a part unchanged or changed otherwise: a tap lost,
    a cell left selected)."""
    if any(part_change(before, image, part) != "fading" for part in parts):
        return "not made"
    return "made, the rest as it was" if still(before, image, [*parts, *rest]) else "made, the rest moved"


def windowed(board):
    """``board`` under the same rules with the row window on."""
    out = board.copy()
    out.rules = replace(board.rules, row_window=True)
    return out


def judge_both(game, loop, before, move, following, replan: bool) -> str:
    """The screen once known after a trial's two pairs: each one seen made moves the loop on
    (the second judged from the first's position: its score teaches the points table), the
    plan made again when the rules changed (``replan``) or the screen shows otherwise."""
    first = game.after(before, move)
    second = game.after(first, following)
    reading = loop.look_until_known(expected=second, before=first)
    seen = game.position(reading) if reading.screen == "board" else None
    if seen is not None and game.same(seen, second):
        loop.advance(first)
        loop.judged(Judgement(first, following, second, seen, "settled"))
        loop.advance(seen)
        outcome = "done"
    elif seen is not None and game.same(seen, first):
        loop.advance(seen)  # (the second pair's taps lost: tapped again as the plan's next move)
        outcome = "done"
    elif seen is not None and game.same(seen, before):
        return "same"
    else:
        loop.replan()
        return "other"
    if replan:
        loop.replan(count=False)
    return outcome
