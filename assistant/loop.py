"""The closed loop shared by the guide and autoplay: capture, read, compare, decide.

The phone is the truth. After every move the screen is read again and compared with what the
rules predict: the same board means the move landed; the old board means a tap was lost (it is
repeated); anything else (the player chose another move, the game plays a rule otherwise) means
a new plan from the board on screen. A move that changes only some parts of the screen in place
(a pair fading) is judged instead on one frame early in its animation, compared pixel by pixel
with the last screen read: those parts fading and nothing else changed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from assistant.front_door import FrontDoor
from assistant.games import Judgement, Plan, kind, warming
from assistant.link import PhoneCameBack
from assistant.phone.front import AD, APP, LOCKED, OFF
from assistant.phone.screen import BlackScreen
from solver.errors import NotABoardNow
from solver import games as registry
from vision import CAUGHT_MOVING, Reading
from solver.errors import TapsolveError


# A move's screen looked at again this often while its taps may yet land (``Loop.landed_late``).
LATE_LOOK_EVERY = 0.2


@dataclass
class Tally:
    """What a run did, for its summary line."""

    moves: int = 0
    repeats: int = 0  # moves whose taps were lost and sent again
    replans: int = 0  # plans made again from the board on screen
    stages: int = 0
    score: int = 0
    notes: list = field(default_factory=list)

    def summary(self, game) -> str:
        """The line of counts, the game's own words first (``game``: an assistant.games.Game)."""
        return f"{game.results(self)}, {self.repeats} repeated, {self.replans} re-solved"


class Loop:
    """One phone and one game: look at the screen, keep a plan, judge what happened."""

    def __init__(self, session, game: str = "auto", objective: str = "fast", budget: float = 1.0,
                 say=print, wait_unknown: float = 30.0, dismiss: bool = True):
        # session: an assistant.session.Session, whose reads the loop judges; its link taps
        self.session, self.link, self.game_name, self.say = session, session.link, game, say
        self.objective, self.budget = objective, budget
        self.wait_unknown = wait_unknown
        self.dismiss = dismiss  # play gets past ads and other apps (FrontDoor); False: waits for the player
        self._door = None
        self.black = ""  # why the last screenshot was black, when it was
        self.game = None
        self.image = self.reading = None  # the last screen captured (RGB) and its reading
        self.position = None
        self.plan: Plan | None = None
        self.step = 0
        self.tally = Tally()
        self.alone = False  # nobody but the loop touches the phone (autoplay sets it before start)
        self.read_at = None  # the link's reconnects when the board was last read whole (start)
        # no board is played after this one (autoplay sets it): the move that ends it is judged
        # on its first frame like any other, the won screen never waited for (``won_early``)
        self.last_board = False
        self.won_early = False  # the board's last move was judged so: it is won
        self._recalled = None  # the profile whose kept lessons the game started from

    # -- seeing ------------------------------------------------------------------------------

    def look(self, tries: int = 3, expected=None, before=None):
        """Capture and read the screen, and the whole board as the game sees it (``Game.look``:
        ``expected``, then ``before``, the positions thought possible). A screen with no board
        reads as "unknown"; a reading not sure of everything is read again from a new capture,
        and returned unsure (never guessed) if it stays so: the caller pauses on it."""
        game = self.game_name if self.game is None else self.game.name
        lost = None
        for _ in range(tries):
            scrolling = False
            try:
                self.image, self.reading = self.session.look(game, expect=self.numbers(expected, before))
                self.recall()
                sure = self.reading.sure
                if sure and self.reading.screen == "board":
                    scrolling = True
                    self.image, self.reading = self.made(self.reading.game).look(
                        self.image, self.reading, expected, before)
            except NotABoardNow as exc:  # (a black screen: off, locked, or a secure window; or unreadable)
                self.black = str(exc) if isinstance(exc, BlackScreen) else ""
                self.link.recorder.unread(str(exc) or "nothing known on screen", captured=not self.black)
                self.image, self.reading = self.session.last_image, Reading(game, "unknown")  # (the guide shows it)
                if scrolling:
                    self.game.forget_place()  # (a scroll cut short by it: the board is read whole next)
                return self.reading
            except PhoneCameBack as exc:  # (lost during a scroll: the screen is read again whole)
                self.game.forget_place()
                lost = exc
                continue
            if sure:
                return self.reading
            lost = None
        if lost is not None:
            raise lost  # (lost at every try: never a board read in part taken for the whole)
        return self.reading

    def numbers(self, *positions) -> dict[str, set[int]] | None:
        """The numbers around the board the screen may show, by name, when it shows one of
        ``positions`` (the game's predictions): what a read confirms without tesseract."""
        if self.game is None:
            return None
        out: dict[str, set[int]] = {}
        for position in positions:
            if position is not None:
                for name, value in self.game.numbers(position).items():
                    out.setdefault(name, set()).add(value)
        return out

    def made(self, name: str):
        """The game played, made on the first screen of it read."""
        if self.game is None:
            self.game = kind(name)(self.objective, self.budget)
            self.game.attach(self.session, self.alone)
            self.recall()
        return self.game

    def recall(self) -> None:
        """A profile new to the game (the first, or one rebuilt): the game starts from what it
        kept of earlier games, and what this game learned so far is kept in it."""
        profile = self.session.profile
        if self.game is not None and profile is not None and profile is not self._recalled:
            self._recalled = profile
            self.session.take(self.game.recall(dict(profile.points), profile.touch))

    def show(self, move, select: bool = False):
        """Bring ``move`` on screen when the board hides it (``Game.show``: a tall board scrolls):
        the guide draws it over the live screenshot, autoplay taps it (``select``)."""
        if self.game is None or move is None or self.reading is None or self.reading.screen != "board":
            return
        try:
            shown = self.game.show(move, self.reading, select)
        except PhoneCameBack:
            if select:
                raise  # (autoplay reads the board again and plans again)
            self.game.forget_place()  # the guide: its next look reads the board whole
            return
        if shown is not None:
            self.image, self.reading = shown

    def look_until_known(self, ending: bool = False, expected=None, before=None):
        """Read until the screen is a board read for sure or a stage-complete screen; pause on
        anything else (and on a board not read for sure: nothing is tapped on a guess).

        ``ending``: the move just made clears the board, so a screen with no board is most likely
        the game between its emptied grid and the stage-complete screen: waited for quietly."""
        reading = self.look(expected=expected, before=before)
        deadline = time.monotonic() + self.wait_unknown
        told = False
        while reading.screen not in ("board", "stage_complete") or not reading.sure:
            if reading.screen == "game_over":
                raise TapsolveError("the game is over on the phone (no pair and no add left): start a new game")
            # (a screen caught mid-animation, say a board whose last pair is fading: looked at again)
            moving = reading.screen == "board" and CAUGHT_MOVING in reading.unsure_why
            if (moving or ending and reading.screen == "unknown") and time.monotonic() < deadline:
                time.sleep(0.1)
                reading = self.look(expected=expected, before=before)
                continue
            unsure = reading.describe_unsure() if reading.screen == "board" else ""
            if unsure and not told:
                self.say(f"paused: I cannot read {unsure} for sure; close anything over the board and "
                         "I will go on")
            door = self.door()  # the phone says what is in front, and play gets past it
            try:
                front = door.tend(reading, first=not told, named=bool(unsure))
            except PhoneCameBack:
                front = None  # (the phone came back under the door: what is in front is looked at again)
            if front is not None and front.kind in (AD, APP) and door.act:
                deadline = time.monotonic() + self.wait_unknown  # (the door's own tries are bounded)
            told = True
            if time.monotonic() > deadline:
                raise TapsolveError(f"cannot read {unsure} for sure for {self.wait_unknown:g} s: close what "
                                    "covers the board, or run `tapsolve calibrate` with the board on screen"
                                    if unsure else self.black if self.black and door.front and door.front.kind
                                    not in (LOCKED, OFF) else door.timed_out(self.wait_unknown))
            time.sleep(0.5)
            reading = self.look(expected=expected, before=before)
        return reading

    def door(self) -> FrontDoor:
        """What is in front of the game, asked of the phone while no board shows: play (``alone``,
        ``dismiss``) gets past it, the guide only says what it is."""
        names = (self.game.name,) if self.game else registry.NAMES if self.game_name == "auto" else (self.game_name,)
        packages = tuple(package for name in names for package in kind(name).APP_PACKAGES)
        if self._door is None:
            self._door = FrontDoor(self.link, packages, self.say)
        self._door.packages, self._door.act = packages, self.alone and self.dismiss
        if len(packages) == 1:  # (the game now known: its app is the one to bring back)
            self._door.game_package = packages[0]
        return self._door

    # -- planning ----------------------------------------------------------------------------

    def start(self):
        """Read the board and make the first plan. A game named in advance loads its solver
        meanwhile (``warming``: begun already by a command that connected to the phone)."""
        warm = None
        self.read_at = self.link.reconnects
        if self.game is None and self.game_name != "auto":
            warm = warming(self.game_name)  # (started already by a command that named the game)
        reading = self.look_until_known()
        if warm is not None:
            warm.join()
        self.made(reading.game)
        if reading.screen == "board":
            self.replan(count=False)
        return reading

    def replan(self, count: bool = True):
        won = self.position if self.position is not None and self.game.ends(self.position) else None
        self.position = self.game.position(self.reading)
        if won is not None:  # the next stage's board, after the last move of a stage
            self.tell(self.judged(Judgement(None, None, won, self.position, "stage")))
        self.plan = self.game.plan(self.position)
        self.step = 0
        if count:
            self.tally.replans += 1
        if self.plan.status == "unsolvable":
            raise TapsolveError("this board cannot be cleared with the adds left")

    def survey_again(self):
        """A row that came on screen is not the board the plan knows, or the phone came back:
        forget where the board was placed, read it whole again and plan from it."""
        self.read_at = self.link.reconnects
        self.game.forget_place()
        if self.look_until_known().screen == "board":
            self.replan()  # (a stage-complete screen that came back: play goes on from it)

    def came_back(self) -> bool:
        """The phone was lost and came back since the board was last read whole: what came back
        may show another screen (resized, another device on the address), so nothing is tapped
        before it is read again (``survey_again``). A question: nothing changes."""
        return self.read_at is not None and self.link.reconnects != self.read_at

    def order_for_screen(self):
        """Play next the pair of the plan nearest the screen (on it, or the fewest rows away),
        and one whose taps go at once before one that would wait for the last move's animation
        (``Link.waits``), where the line allows (``Game.order_for_screen``): fewer scrolls on a
        tall board, and pairs tapped while rows collapse elsewhere."""
        if (self.plan is None or self.reading is None
                or self.reading.screen != "board" or self.reading.selected is not None):
            return  # (a selection made belongs to the move planned)
        position, reading = self.position, self.reading

        def ready(move) -> bool:
            return not self.link.waits([at for at, _ in self.game.planned_tap_points(move, position, reading)])

        rest = self.plan.moves[self.step:]
        self.plan.moves[self.step:] = self.game.order_for_screen(position, rest, reading, ready)

    def finished(self) -> bool:
        """The board is won: its won screen is on, or its last move was judged early (``won_early``)."""
        return self.won_early or self.game.finished(self.position, self.reading)

    @property
    def next_move(self):
        if self.plan is None or self.step >= len(self.plan.moves):
            return None
        return self.plan.moves[self.step]

    # -- judging what happened ---------------------------------------------------------------

    def judge(self, move, reading=None) -> str:
        """After `move` was (or should have been) made, classify the screen (read now unless
        given): "done" (as predicted), "same" (nothing happened), "other" (re-planned)."""
        before = self.position
        expected = self.game.after(before, move)
        ending = self.game.ends(expected)
        # (a move that ends a board before another is judged on the won screen: it has the next
        # board's button)
        early = self.game.in_place(before, move, self.reading) if reading is None and (
            self.last_board or not ending) else None
        if early is not None:
            try:
                image = self.link.early(early.parts, early.aside, early.reach, early.shows, early.shifted,
                                        last=ending)
            except NotABoardNow:
                image = None  # (a screen gone dark as the move was made: judged on a settled one)
            if image is not None:
                self.image, self.reading = image, early.reading
                self.judged(Judgement(before, move, expected, expected, "early"))
                self.advance(expected)
                self.won_early = ending
                return "done"
        outcome = self._judge_read(move, before, expected, ending, reading)
        if early is not None:
            self.link.early_result(outcome == "done")
        return outcome

    def _judge_read(self, move, before, expected, ending: bool, reading) -> str:
        """``judge`` on a screen read: a glance when it shows the prediction, else a settled one."""
        # (a glance that would settle anyway is a settled capture read once, and judged as one)
        if reading is None and not ending and not self.link.glance_settles():
            seen = self.glance(move, before, expected)
            if seen is not None:
                self.advance(seen)
                return "done"
        # (the prediction helps the game place a board the screen alone cannot: still compared below)
        if reading is None:
            reading = self.look_until_known(ending, expected, before)
            if not self._foreseen(reading, expected, before, ending) and self.link.settle_in_full():
                # taken as still on the learned time of a move that did other than predicted
                # (maybe still animating: a row going that was not foreseen): settled in full.
                # (A screen as before it, a lost tap, is not: the tap is sent again.)
                reading = self.look_until_known(ending, expected, before)
        if reading.screen == "stage_complete":
            if ending:
                self.advance(expected)
                return "done"
            raise TapsolveError("the stage ended before the plan did: the game plays otherwise than predicted")
        seen = self.game.position(reading)
        note = self.judged(Judgement(before, move, expected, seen, "settled"))
        if note is None and self.game.same(seen, expected):
            self.advance(seen)
            return "done"
        if note is None and self.game.same(seen, before):
            return "same"
        self.tell(note)  # (a rule or table entry learned: the plan is made again with it)
        self.replan()
        return "other"

    def landed_late(self, move, patience: float) -> tuple[str, float | None]:
        """After ``move`` was judged "same" (the screen as before it) on a channel whose touches
        may act after they were sent (``Link.touches_land_later``): the screen looked at until it
        shows the move made, changes otherwise, or stays as it is for ``patience`` s since it last
        changed (a pair's second tap may land seconds after its first: a selection shown is
        waited on). The outcome judged on the last screen ("done", "other", or "same": the taps
        lost, or part of them landed), and when the screen was last seen to change (None: never)."""
        before, selected = self.position, self.reading.selected
        expected = self.game.after(before, move)
        quiet_from, landed = time.monotonic(), None
        while time.monotonic() - quiet_from < patience:
            time.sleep(LATE_LOOK_EVERY)
            reading = self.look(expected=expected, before=before)
            if reading.screen != "board" or not reading.sure or not self.game.same(self.game.position(reading), before):
                landed = time.monotonic()  # (the move, or something else: judged below)
                break
            if reading.selected != selected:  # a tap of the move landed: the rest may yet
                landed = quiet_from = time.monotonic()
                selected = reading.selected
        if self.reading.screen != "board" or not self.reading.sure:
            self.look_until_known(self.game.ends(expected), expected, before)
        return self.judge(move, self.reading), landed

    def _foreseen(self, reading, expected, before, ending: bool) -> bool:
        """Whether a settled screen shows the move as predicted or as not made (a lost tap): the
        stage's end after an ending move, else the board predicted or the one before it."""
        if reading.screen != "board":
            return ending and reading.screen == "stage_complete"
        seen = self.game.position(reading)
        return self.game.same(seen, before) or not ending and self.game.same(seen, expected)

    def judged(self, judgement: Judgement) -> str | None:
        """The one place a judgement is made known: the game learns from it, the session keeps
        what it learned; the line to say, if any (the caller plans again)."""
        self.link.recorder.judged(self.game, judgement)
        learned = self.game.learn(judgement)
        self.session.take(learned)
        return learned.note if learned is not None else None

    def tell(self, note: str | None) -> None:
        """Say what the game learned from the phone (None: nothing), and keep it for the summary."""
        if note:
            self.say(note)
            self.tally.notes.append(note)

    def glance(self, move, before, expected):
        """One capture once the animation time learned for this kind of move has passed
        (``Link.glance``): the position when it shows just the predicted board (rows off screen
        taken from the prediction), else None and the move is judged on a settled screen."""
        try:
            image, reading = self.session.look(self.game.name, glance=True, expect=self.numbers(expected, before))
        except NotABoardNow:  # (unreadable or dark: judged on a settled screen, which waits for it)
            return None
        if reading.screen != "board" or not reading.sure:
            return None
        confirmed = self.game.look(image, reading, expected, glance=True)
        if confirmed is None:
            return None
        image, reading = confirmed
        seen = self.game.position(reading)
        if not self.game.shows(seen, expected):
            return None
        self.judged(Judgement(before, move, expected, seen, "glance"))
        self.link.accept(image)
        self.image, self.reading = image, reading
        return seen

    def reading_is_doubtful(self) -> bool:
        """A move the game refuses, that the reading said was legal, is first a reading problem:
        read the same screenshot again without the stored profile (tesseract alone). When the
        two disagree the profile misled: it is rebuilt, the board read again and the plan made
        again (True). When they agree the reading stands (False)."""
        if not self.session.misled(self.image, self.game.name):
            return False
        self.say("the stored reading profile misread the board (a fresh read differs): rebuilt it")
        self.look_until_known()
        self.replan()
        return True

    def advance(self, position):
        """The planned move happened: the plan moves one step on."""
        self.position = position
        self.step += 1
        self.tally.moves += 1
        score = self.game.score(position)
        if score is not None:
            self.tally.score = score  # the phone's own count, read off its screen
