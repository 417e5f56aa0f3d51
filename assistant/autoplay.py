"""`tapsolve play`: taps the plan's moves on the phone, checking the screen after every one."""

from __future__ import annotations

import math
import signal
import sys
import time

from solver.errors import TapsolveError
from solver import words
from assistant.games import BoardChanged
from assistant.in_front import DIALOG, STAGE_COMPLETE, InFront
from assistant.link import PhoneCameBack
from assistant.loop import Loop
from assistant.phone import lock
from assistant.session import IGNORES_TAPS, TAKES_TAPS, TAPS_WHILE_ANIMATING

# Taps lost in a row (the screen unchanged after them): this many with none ever landed means
# the phone ignores taps (a setting); once taps have landed, a phone that drops some is not
# ignoring them, and only a far longer run stops play (one in 16 million at half the taps lost).
MAX_IGNORED_TAPS = 6
MAX_LOST_TAPS = 24
# A move whose taps landed (the selection went where they went) but that the game refused this
# many times is taken as a reading problem first (Loop.reading_is_doubtful); refused as often
# again after the reading was confirmed, it stops play.
REFUSALS_BEFORE_RECHECK = 2
# On a channel whose taps may act after they were sent (scrcpy's), a move whose screen shows
# nothing of it is watched before its taps go again (a tap sent again behind one still on its way
# lands twice): the first time for LATE_TAP_FIRST_WAIT, longer than a tap takes on any phone we
# know of (FIELD.md: `input tap` 0.3-1 s with its Java VM; the slowest phone tried, 7 s); once taps
# were seen lost for good, for LATE_TAP_WAIT, or twice the latest a tap was seen to land.
LATE_TAP_FIRST_WAIT = 10.0
LATE_TAP_WAIT = 1.0
# Taps seen to act this late or later are a slow phone's: said once, and played at its pace.
SLOW_TAP = 1.5
# Moves sent while the last one animated (pipelined: Link.overlap) whose taps were lost this
# many times, more often than such moves landed, and so often that taps lost at random, at the
# rate the moves sent on a still screen lose them, would lose that many less than once in
# 1 / OVERLAP_CHANCE games (a phone that drops taps anywhere, a bad cable, loses those too: its
# pipelined losses say little of the game; seen with a fifth of the taps dropped: 2 pipelined
# moves lost, against 2 of 6 on a still screen): the game ignores taps while it animates, and
# every move waits for the last one's animation from then on, in later games on the phone too
# (kept in its profile: ``Session.accepted``). The still screen's rate starts from
# STILL_LOSS_PRIOR (lost, sent): a phone is taken to lose few taps until its moves show more.
OVERLAP_LOSSES = 2
OVERLAP_CHANCE = 0.01
STILL_LOSS_PRIOR = (0.5, 5)


class Pace:
    """How late this phone's taps may act (a channel that only hands them over), learned in play."""

    def __init__(self, say):
        self.say = say
        self.slowest = 0.0  # the latest a tap was seen to act after it was sent, in seconds
        self.lost = False  # taps were seen lost for good (watched for as long as they may land)

    @property
    def patience(self) -> float:
        """How long a move's screen unchanged after its taps is watched before they go again."""
        if self.slowest:
            return max(LATE_TAP_WAIT, 2 * self.slowest)
        return LATE_TAP_WAIT if self.lost else LATE_TAP_FIRST_WAIT

    @property
    def overlapped_patience(self) -> float:
        """How long a pipelined move's unchanged screen is watched: a fast phone's game that
        ignored the taps shows nothing soon; a slow phone's acts on them late, as ``patience``."""
        return max(LATE_TAP_WAIT, 2 * self.slowest)

    def learn(self, sent: float, landed: float | None) -> None:
        """A move's taps sent at ``sent`` were seen to act at ``landed`` (None: they never did)."""
        if landed is None:
            self.lost = True
            return
        late = landed - sent
        if late >= SLOW_TAP > self.slowest:
            self.say(f"the phone acts on taps about {late:.0f} s after they are sent: playing at its pace")
        self.slowest = max(self.slowest, late)


class StatusLine:
    """The run's progress: one line that rewrites itself on a terminal, plain lines elsewhere."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.tty = self.stream.isatty()
        self.width = 0

    def __call__(self, text: str) -> None:
        if not self.tty:
            print(text, file=self.stream, flush=True)
            return
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def say(self, text: str) -> None:
        """A message of its own, below the status line."""
        if self.tty and self.width:
            self.stream.write("\n")
            self.width = 0
        print(text, file=self.stream, flush=True)


class Stopped(Exception):
    """Ctrl-C: the run ends here, with its summary."""


class StopAfterMove:
    """Ctrl-C stops the run at once, with its summary; during a move (its taps and their check)
    it stops once the move is checked, and a second Ctrl-C stops at once."""

    def __init__(self):
        self.asked = False
        self.moving = False
        self.signalled = False  # a Ctrl-C came (not a stop the window asked for)

    def __enter__(self):
        self._old = signal.signal(signal.SIGINT, self._ask)
        return self

    def _ask(self, *_):
        self.signalled = True
        if self.asked or not self.moving:  # (a wait for the screen or a scroll: no move half made)
            self.asked = True
            raise Stopped
        self.asked = True
        print("\nstopping after this move (Ctrl-C again to stop now)", file=sys.stderr)

    def __exit__(self, *exc):
        # a run stopping ends quietly: another Ctrl-C (`timeout` forwards one beside the
        # terminal's) while the summary is said and the profile stored is let pass
        signal.signal(signal.SIGINT, signal.SIG_IGN if self.signalled else self._old)


def dry_run(loop: Loop, say=print) -> int:
    """Print the taps of the whole plan without sending any (on a stage's end: what play does there)."""
    reading = loop.look()
    if reading.screen in (STAGE_COMPLETE, DIALOG):  # (what play does there: nothing is tapped)
        say(InFront.of(reading).line(dry=True))
        return 0
    reading = loop.start()
    if reading.screen != "board":
        raise TapsolveError("no board on screen to plan for")
    position = loop.position
    say(f"plan: {words.count(len(loop.plan.moves), 'moves')} ({loop.plan.status})")
    for step, move in enumerate(loop.plan.moves, 1):
        taps = loop.game.planned_tap_points(move, position, reading)
        say(f"{step:3d}. {loop.game.describe(position, move):40s} taps "
            + " ".join(f"({x},{y}){note}" for (x, y), note in taps))
        position = loop.game.after(position, move)
    return 0


def play(loop: Loop, stages: int = 1, say=print, show=None, status=None, max_moves: int | None = None) -> int:
    """Play until the board is won (`stages` boards, for a game that goes on to the next).

    ``show(loop)``, when given, is called after every read (the demo's window); returning False
    stops the play like Ctrl-C. ``status`` shows progress after each move (default: say).
    ``max_moves``: stop (code 0) once that many moves are made."""
    link, tally = loop.link, loop.tally
    status = status or say
    loop.alone = True  # nobody scrolls the board but the loop: fewer checking swipes
    # one tapsolve taps a phone at a time: a second play refuses here, before any tap
    with lock.hold(link.device), StopAfterMove() as stop:
        try:
            reading = loop.start()
            if next_stage(loop, reading):  # (run on a stage's end: the person wants the next stage played)
                say(InFront.of(reading).line(act=True))
                link.tap(*reading.buttons["continue"])
                loop.start()
            lost_in_a_row, landed, refusals = 0, False, 0
            # a game kept as one that ignores taps while it animates by a game that lost taps on
            # a still screen too (a lossy phone: its pipelined losses may be bad luck) is put to
            # one move sent so again in each game, so such a phone is not kept from pipelined
            # play for good; a verdict of a phone that lost no other tap is sure
            rechecking = not link.overlap and isinstance(loop.session.accepts(TAPS_WHILE_ANIMATING), float)
            pace = Pace(say)
            # moves sent pipelined (True) and on a still screen (False), by how their taps fared
            fared = {True: {"landed": 0, "lost": 0}, False: {"landed": 0, "lost": 0}}
            while not stop.asked:
                if max_moves is not None and tally.moves >= max_moves:
                    say(f"stopped after {words.count(tally.moves, 'moves')}, as asked")
                    break
                if show is not None and not show(loop):
                    stop.asked = True
                    break
                if loop.came_back():  # (lost while its screen was read: what came back may differ)
                    say("the phone came back: reading its screen and board again")
                    loop.survey_again()
                    lost_in_a_row = 0
                    continue
                reading = loop.reading
                if loop.finished():
                    tally.stages += 1
                    say(loop.game.won(tally.stages, stages))
                    if not loop.game.more_stages or tally.stages >= stages:
                        break
                    if "continue" not in reading.buttons:
                        raise TapsolveError("the stage is over but no Continue button is on screen")
                    link.tap(*reading.buttons["continue"])
                    loop.start()
                    continue
                loop.order_for_screen()
                loop.last_board = not loop.game.more_stages or tally.stages + 1 >= stages
                move = loop.next_move
                if move is None:
                    raise TapsolveError(f"the solver found no line that finishes this board ({loop.plan.status})")
                said = loop.game.describe(loop.position, move)  # (the move in words, as the board stands before it)
                try:
                    loop.show(move, select=True)
                    if loop.came_back():  # (lost during a scroll's capture: never a tap planned before)
                        raise PhoneCameBack("the phone came back")
                    taps = loop.game.tap_points(move, loop.reading)
                    swipes = loop.game.swipes(move, loop.reading)  # (an app that wants a swipe)
                    kind = loop.game.animation(loop.position, move)
                    stop.moving = True
                    link.overlap = link.overlap or rechecking
                    if swipes:
                        for x1, y1, x2, y2, ms in swipes:
                            link.swipe(x1, y1, x2, y2, ms)
                    else:
                        link.tap_all(taps, kind=kind)
                    sent = time.monotonic()
                    # (the recheck's move: sent during the last one's animation; until one is, none)
                    on_trial = rechecking and link.last_overlapped
                    if rechecking:
                        link.overlap, rechecking = on_trial, not on_trial
                except BoardChanged as exc:
                    stop.moving = False
                    say(f"{exc}: reading it again and re-planning")
                    loop.survey_again()
                    lost_in_a_row = 0 if isinstance(exc, PhoneCameBack) else lost_in_a_row
                    continue
                overlapped = link.last_overlapped
                following = loop.plan.moves[loop.step + 1] if loop.step + 1 < len(loop.plan.moves) else None
                # (the game may try what the phone accepts meanwhile: the move judged there)
                tried = loop.game.meanwhile(loop, move, following)
                outcome = tried if tried is not None else loop.judge(move)
                if outcome == "same" and link.touches_land_later and not loop.came_back():
                    # (never sent again too soon: a tap still on its way would land twice)
                    outcome, late = loop.landed_late(move, pace.overlapped_patience if overlapped else pace.patience)
                    if not overlapped:  # (a game that ignores taps while it animates says nothing of the phone)
                        pace.learn(sent, late)
                if outcome == "same":  # (taps lost, or part of them: its frames timed something else)
                    link.clock.unlearn()
                if on_trial:
                    if outcome == "same":
                        link.overlap = False  # (ignored again: this game waits, as the last did)
                    else:
                        say(TAKES_TAPS)
                        loop.session.accepted(TAPS_WHILE_ANIMATING, True)
                if link.overlap:
                    fared[overlapped]["lost" if outcome == "same" else "landed"] += 1
                    if ignores_taps_while_animating(fared):
                        link.overlap = False
                        say(IGNORES_TAPS)
                        # (the next game starts so; with the share of the other moves lost, if any)
                        still = fared[False]
                        loss = round(still["lost"] / max(1, still["lost"] + still["landed"]), 3)
                        loop.session.accepted(TAPS_WHILE_ANIMATING, loss or False)
                stop.moving = False
                if loop.came_back():
                    # lost during the move: its taps went to a phone that left, so none is
                    # counted lost (nor sent again); the screen that came back is read whole
                    say("the phone came back during the move: reading its screen and board again")
                    loop.survey_again()
                    lost_in_a_row = 0
                    continue
                if outcome == "same":
                    selected = loop.reading.selected
                    moved = selected is not None and selected != reading.selected
                    if not moved and link.resized():  # (taps scaled by the old size: neither lost nor repeated)
                        say("the phone's screen changed size: reading its screen and board again")
                        loop.survey_again()
                        continue
                    tally.repeats += 1
                    if moved:
                        landed, lost_in_a_row = True, 0  # the selection moved: a tap landed
                        refusals += bool(taps) and loop.reading.cells.get(selected) == tuple(taps[-1])
                        if refusals == REFUSALS_BEFORE_RECHECK and loop.reading_is_doubtful():
                            refusals = 0
                        elif refusals >= 2 * REFUSALS_BEFORE_RECHECK:
                            raise TapsolveError(
                                f"the game refuses {loop.game.describe(loop.position, move)} ({refusals} times) though "
                                "the board reads the same without the stored profile: it may play a rule "
                                "otherwise than tapsolve knows; please report the screenshot")
                        continue
                    lost_in_a_row += len(taps)
                    if lost_in_a_row >= (MAX_LOST_TAPS if landed else MAX_IGNORED_TAPS):
                        raise TapsolveError(lost_taps(lost_in_a_row, tally.moves, landed))
                    continue
                lost_in_a_row, landed, refusals = 0, True, 0
                if outcome == "done":  # moves done / planned, the move, and where the game stands
                    stands = loop.game.status(loop.position)
                    status(f"  [{loop.step}/{len(loop.plan.moves)}] {said}" + (f" - {stands}" if stands else ""))
        except Stopped:
            pass
        except TapsolveError:
            if not stop.asked:  # (a wait that ran out after Ctrl-C: the summary, not the error)
                raise
    if loop.game is None:
        say("stopped before the first move")
        return 130
    say(("stopped: " if stop.asked else "done: ") + tally.summary(loop.game) + loop.game.summary())
    return 130 if stop.asked else 0  # the shell's code for a run ended by Ctrl-C


def ignores_taps_while_animating(fared: dict) -> bool:
    """Whether the moves sent while the last one animated (``fared[True]``: landed and lost)
    show a game that ignores taps then: lost OVERLAP_LOSSES times, more often than landed, and
    too often for taps lost at random at the rate of the moves sent on a still screen
    (``fared[False]``; see OVERLAP_CHANCE). A question: nothing changes."""
    pipelined, still = fared[True], fared[False]
    lost, sent = pipelined["lost"], pipelined["lost"] + pipelined["landed"]
    rate = (still["lost"] + STILL_LOSS_PRIOR[0]) / (still["lost"] + still["landed"] + STILL_LOSS_PRIOR[1])
    chance = sum(math.comb(sent, k) * rate ** k * (1 - rate) ** (sent - k) for k in range(lost, sent + 1))
    return lost >= OVERLAP_LOSSES and lost > pipelined["landed"] and chance < OVERLAP_CHANCE


def next_stage(loop: Loop, reading) -> bool:
    """Whether the screen play starts on is a stage's end with the next stage a Continue away."""
    return (loop.game is not None and loop.game.more_stages and reading.screen == "stage_complete"
            and "continue" in reading.buttons)


def lost_taps(count: int, moves: int, landed: bool) -> str:
    """Why play stops when taps keep getting lost, with how many."""
    if not landed:
        return (f"the phone ignores taps ({count} in a row, none landed): on some phones enable "
                "\"USB debugging (security settings)\" in the developer options")
    return (f"{count} taps in a row were lost after {words.count(moves, 'moves')} landed: the "
            "phone drops taps; check the cable or Wi-Fi and that nothing covers the game, then run again")
