"""What stands in front of the game, known from the phone (assistant.phone.front), and play getting
past it: an ad is waited out and closed with BACK, another app is left with BACK and the game brought
back by its package, a locked phone is waited for. Never a tap outside the game; the guide (and
`--no-dismiss`) only says what is in front and waits for the player."""

from __future__ import annotations

import time

from assistant.in_front import DIALOG, InFront
from assistant.phone.front import AD, APP, GAME, LOCKED, OFF, UNKNOWN, ask
from solver.errors import TapsolveError

ASK_EVERY = 2.0  # seconds between two questions to the phone while the board is away (never per move)
BACK_EVERY = 3.0  # seconds between two BACKs on an ad: one before its countdown ends does nothing
MAX_BACKS = 20  # BACKs on one ad before play gives up: 60 s, past the longest countdowns (30 s)
MAX_RETURNS = 3  # times another app is left for the game before play gives up
ADS_HINT = "airplane mode or Wi-Fi off usually stops these ads (the game plays offline)"


class FrontDoor:
    """One phone's front, asked while the board is away; ``act``: get past it (play), else only
    say what it is (the guide, `--no-dismiss`)."""

    def __init__(self, link, packages, say=print, act: bool = True):
        self.link, self.packages, self.say, self.act = link, tuple(packages), say, act
        self.front = None  # the last answer
        self.asked_at = self.backed_at = float("-inf")
        self.backs = self.returns = 0
        self.hinted = False
        self.labels = None  # the dialog last named
        self.game_package = self.packages[0] if len(self.packages) == 1 else ""

    def tend(self, reading, first: bool = False, named: bool = False):
        """Ask the phone what is in front (on the ``first`` look of a pause, then at most every
        ASK_EVERY s: None between) and, with ``act``, get past it: a dialog of the game the
        ``reading`` shows (None: no screen read) only through a dismiss button. A TapsolveError
        when the bounded tries run out. ``named``: the pause was said already (a board not read
        for sure)."""
        now = time.monotonic()
        if first:
            self.front = self.labels = None  # (each pause says what is in front once)
        elif now - self.asked_at < ASK_EVERY:
            return None
        self.asked_at = now
        front = ask(self.link, self.packages)
        new, self.front = front != self.front, front
        if front.kind in (GAME, AD) and front.package in self.packages:
            self.game_package = front.package  # (an ad runs in the game's own app)
        if front.kind != AD:
            self.backs = 0
        if front.kind == GAME:
            self.returns = 0
        if front.kind == AD:
            self._ad(front, new, now)
        elif front.kind == APP and self.act:
            self._leave(front)
        elif reading is not None and reading.screen == DIALOG and front.kind in (GAME, UNKNOWN):
            self._dialog(InFront.of(reading, front))
        elif new and not (named and front.kind in (GAME, UNKNOWN)):  # (a board not read for sure: said)
            self.say(self.waiting(front, reading))
        return front

    def _dialog(self, shown: InFront) -> None:
        """Say the game's dialog (once) and, with ``act``, close it through a button read for
        sure as a dismiss word; else wait for the player."""
        dismiss = shown.dismiss if self.act else None
        if dismiss is not None:
            self.say(shown.line(act=True))
            self.link.tap(*dismiss[1])
        elif shown.buttons != self.labels:
            self.say(shown.line())
        self.labels = shown.buttons

    def waiting(self, front, reading=None) -> str:
        """The line for what is in front (``front`` None: not asked yet; ``reading``: the screen
        read, if any) while the player is waited for."""
        return InFront.of(reading, front).line()

    def _ad(self, front, new: bool, now: float) -> None:
        if new:
            self.say(f"{front} is showing: waiting until BACK closes it" if self.act else self.waiting(front))
        if not self.hinted:
            self.say(ADS_HINT)
            self.hinted = True
        if not self.act or now - self.backed_at < BACK_EVERY:
            return
        if self.backs >= MAX_BACKS:
            raise TapsolveError(f"{front} did not close after {MAX_BACKS} presses of BACK: close it on the phone "
                                "and run again")
        self.backs += 1
        self.backed_at = now
        self.say(f"pressing BACK on the ad ({self.backs}/{MAX_BACKS})")
        self.link.key("KEYCODE_BACK")

    def _leave(self, front) -> None:
        if not self.game_package or self.returns >= MAX_RETURNS:
            raise TapsolveError(f"{front} stays in front of the game: bring the game back on the phone and run again")
        self.returns += 1
        self.say(f"{front} is in front: pressing BACK and bringing the game back ({self.game_package})")
        self.link.key("KEYCODE_BACK")
        self.link.shell(f"monkey -p {self.game_package} -c android.intent.category.LAUNCHER 1")

    def timed_out(self, seconds: float) -> str:
        """The line play ends with when the board stayed away ``seconds``."""
        kind = self.front.kind if self.front else ""
        if self.labels and kind in (GAME, UNKNOWN):
            return f"a dialog of the game stayed in front for {seconds:g} s: close it on the phone and run again"
        if kind in (LOCKED, OFF):
            state = "locked" if kind == LOCKED else "off"
            return f"the phone stayed {state} for {seconds:g} s: unlock it and run again"
        if kind in (AD, APP):
            return f"{self.front} stayed in front of the game for {seconds:g} s: bring the game back and run again"
        return f"no board on the phone for {seconds:g} s: open the game and run again"
