"""The assistant's hold on one phone: capture a settled screen and read it with its profile,
judge a move on one frame early in its animation, tap, and ride out a phone that drops off the
cable for a moment. Settling (``assistant.settle``) and animation times (``assistant.animation``)
are its parts; storing the profile is its owner's (``keep``)."""

from __future__ import annotations

import time

import vision
from assistant.animation import AnimationClock, part_change
from assistant.games import BoardChanged
from assistant.phone import lock
from assistant.phone.channel import Channel
from assistant.phone.device import Device
from assistant.phone.server import AdbServerUnreachable, PhoneLost
from assistant.settle import Settler, still
from calibration import store

# seconds between two fresh reads of a board its profile did not read for sure (``store.recheck``):
# a dialog over the board fails both for as long as it stays, a profile that misleads only its own
RECHECK_EVERY = 3.0


class PhoneCameBack(BoardChanged):
    """The phone was lost and came back (maybe resized, maybe another device on its address):
    a touch planned on the screen read before is not sent; the board is read again first."""


class Link:
    """One phone, its reading profile, and bounded reconnects when it goes away."""

    def __init__(self, device, say=print, reconnect_timeout: float = 30.0, keep=None):
        # device: an assistant.phone.device.Device (or anything with its capture, taps and swipe)
        self.device, self.say = device, say
        # its Screen, when it is a phone's Device (a stand-in in tests has no video to mind)
        self.screen = device.screen if isinstance(device, Device) else None
        # keep(profile): what the session's owner does with the profile after each read (store it
        # for the next game: calibration.store.remember); None keeps it in memory only
        self.keep = keep
        self.reconnect_timeout = reconnect_timeout
        self.profile = None
        self.reconnects = 0
        self.stale = False  # the phone came back and its screen has not been captured since
        self.shot = self.tapped_on = None  # the last capture's size, and the one the last taps were planned on
        # what this link sent and took, for the run's summary
        self.taps = self.swipes = self.captures = self.keys = 0
        self.ticking = []  # the parts of the screen that change on their own, as last read
        self.settler = Settler(self._grab, self._wait_until)
        self.clock = AnimationClock()
        self._glanced = None  # (image, time) of a glance not accepted
        # the touch a capture settled on its learned time alone came after, and whether the next
        # capture settles in full instead (see settle_in_full)
        self._settled_touch: float | None = None
        self._in_full = False
        self._first_by_video: bool | None = None  # the first read tried on a video frame (None: not yet decided)
        self._rechecked = float("-inf")  # when a board read unsure with the profile was last read afresh
        self.last_image = None
        # wall seconds spent waiting on the phone, per kind ("tap", "swipe", "capture", and
        # "wait": sleeping out an animation or a settle interval), for the run's breakdown
        self.spent = {"tap": 0.0, "swipe": 0.0, "capture": 0.0, "wait": 0.0}

    def _again(self, action, touch: bool = False):
        """Run action; if the phone is lost, wait (bounded) for it to come back and run it once
        more, unless it is a ``touch``: what came back may show another screen (resized, another
        device on its address), so a touch is never sent again blind (PhoneCameBack: the caller
        reads the board again)."""
        try:
            return action()
        except (PhoneLost, AdbServerUnreachable) as exc:
            self.say(f"{exc}; waiting up to {self.reconnect_timeout:g} s for it to come back")
            self.device.reconnect(timeout=self.reconnect_timeout)  # raises PhoneLost when it does not
            self.reconnects += 1
            self.stale = True
            self.profile = None  # (the next read takes the profile of what came back: maybe another phone)
            self.say("the phone is back: going on from what its screen shows")
            if touch:
                raise PhoneCameBack("the phone came back before the touch was sure to land") from None
            return action()

    def _grab(self, not_before: float | None = None):
        """A capture and when it showed the screen: a video frame's own time (one that showed it
        from ``not_before`` on: see ``Screen.video``), else when the screencap was asked for."""
        self.captures += 1
        at = time.monotonic()
        if self.screen is None:
            image = self._again(self.device.capture)
        else:
            image = self._again(lambda: self.screen.capture(not_before))
        self.stale, self.shot = False, image.shape[:2]
        self.spent["capture"] += time.monotonic() - at
        if self.screen is not None and self.screen.from_video:
            at = self.screen.shown_at
        return image, at

    def _wait_until(self, at: float) -> None:
        seconds = at - time.monotonic()
        if seconds > 0:
            self.spent["wait"] += seconds
            time.sleep(seconds)

    @property
    def touch_margin(self) -> float:
        """How far this link's channel's times may be off from the phone's (``Channel.touch_margin``)."""
        return (self.device.channel if isinstance(self.device, Device) else Channel).touch_margin

    @property
    def capture_s(self) -> float:
        """This link's mean seconds a capture (none timed yet: infinite, so nothing is narrowed)."""
        return self.spent["capture"] / self.captures if self.captures else float("inf")

    def _first_frame(self):
        """``AnimationClock.first_frame`` at this link's capture time."""
        return self.clock.first_frame(self.capture_s)

    def glance(self):
        """One capture once this kind of touch's animation time has passed, not proved settled:
        for a caller that accepts it only when it shows just what was predicted (``accept``).
        Until that time is learned, a settled capture."""
        first = self._first_frame()
        if first is None:
            return self.capture()
        at, narrowing = first
        self._wait_until(at)
        if narrowing:
            return self.capture(learning=True)
        image, at = self._grab(not_before=at)  # (a video frame that showed the screen by then)
        self._glanced = image, at  # the first frame of the settled capture that may follow
        return image

    def accept(self, image) -> None:
        """``image`` stands for the settled screen: a settled capture, or a glance that showed
        the predicted screen."""
        self._glanced = None
        self.settler.settled(image)
        self.clock.settled()

    def early(self, changing, aside=()):
        """One frame early in the animation of a move that changes only the parts ``changing``
        of the screen (each x0, y0, x1, y1) in place, and maybe the parts ``aside`` (a score):
        the frame when it shows every part fading (``part_change``) and the rest as on the last
        settled screen (``still``: the parts of moves judged so since and what ticks left out
        too), else None: the move is then judged after its animation (``early_result`` says how
        that went). The next touch is held back so that it cannot land before the animation ends."""
        at = self.clock.early_at(self.capture_s, self.touch_margin)
        before = self.settler.screen
        if at is None or before is None:
            return None
        self._wait_until(at)
        image, at = self._grab(not_before=at)
        verdicts = {part_change(before, image, part) for part in changing}
        if not still(before, image, [*changing, *aside, *self.settler.changed, *self.ticking]):
            verdicts.add("other")
        if not self.clock.judge_early(verdicts, at):
            return None
        self.settler.changed += list(changing)
        return image

    def early_result(self, made: bool) -> None:
        """How the move whose early frame was refused turned out (see ``AnimationClock.early_result``)."""
        self.clock.early_result(made)

    def capture(self, learning: bool = False):
        """The screen once it has stopped changing (``Settler.settle``). After a touch whose
        kind's animation time is known, the first frame waits for it (a frame before it would
        most likely be wasted), or for half the bracket where narrowing it pays (as a glance
        does: an ending move is never glanced at), unless ``learning`` (the caller waited so
        already); the frames' times teach the clock that kind's time."""
        glanced, self._glanced = self._glanced, None
        touched_at = self.clock.touched_at
        in_full, self._in_full = self._in_full, False
        if glanced is None or touched_at is None:
            glanced = None  # the glance is this capture's first frame only after a touch
            first = None if learning or in_full else self._first_frame()
            if first is not None:
                self._wait_until(first[0])
        image, times = self.settler.settle(self.ticking, glanced, touched_at,
                                           None if in_full else self.clock.seen_still_by)
        before = self.settler.screen
        if (touched_at is not None and not in_full
                and (len(times) > 2 or before is not None and not still(before, image, self.ticking))):
            self.clock.learn(times)
        self._settled_touch = touched_at if self.settler.by_time else None
        self.accept(image)
        return image

    def settle_in_full(self) -> bool:
        """The last capture was taken as still on its kind of touch's learned time alone and
        showed other than the caller predicted: the phone may be animating more than that kind
        does (a row going that was not foreseen, a touch taken late), so the next capture
        settles in full, two frames STILL_SPAN apart, and teaches that kind nothing. False when
        the last capture was settled so already (nothing to do again)."""
        if self._settled_touch is None:
            return False
        self.clock.touched_at, self._settled_touch, self._in_full = self._settled_touch, None, True
        return True

    def look(self, game: str = "auto", glance: bool = False):
        """Capture and read the screen: (image, reading). The first read builds or loads the
        device's profile; later ones reuse it, and ``keep`` is given it with what they learned.
        ``glance``: one capture, maybe unsettled (see ``glance``)."""
        if self.profile is None and self._first_by_video is None and self.screen is not None and self.screen.size:
            # a phone with a stored profile needs no lossless screenshot to start from: its
            # first read may be a video frame, read with that profile for sure
            self._first_by_video = store.stored_for(self.device.model, *self.screen.size)
            self.screen.lossless = not self._first_by_video
        image = self.glance() if glance else self.capture()
        self.last_image = image  # (what the screen showed, even when it reads as nothing known)
        video = self.screen is not None and self.screen.from_video
        if self.profile is None or self.profile.game != (game if game != "auto" else self.profile.game):
            reading = store.read(image, self.device.model, game, note=self.say, stored_only=video)
            if reading is None:  # (a video frame no stored profile read for sure: never built on)
                self.screen.lossless, self._first_by_video = True, False
                return self.look(game, glance)
        else:
            try:
                reading = vision.read(image, game, self.profile)
            except vision.ReadError:
                if not video:
                    raise
                reading = None
            if video and (reading is None or not reading.sure or reading.screen == "unknown"):
                # a compressed video frame not read for sure is never judged nor learned from:
                # the screen is captured again by a lossless screencap and read from that
                self.screen.lossless = True
                return self.look(game, glance)
            if store.trusted(reading):
                reading.learn()  # into the profile in use (stored below, with what play taught it)
            if reading.profile_stale:
                reading = store.read(image, self.device.model, game, rebuild=True, note=self.say)
            elif reading.profile is not None and reading.profile.game != self.profile.game:
                # the other game is on screen now: its own stored profile, not a blank one
                reading = store.read(image, self.device.model, reading.game, note=self.say)
            elif not glance and time.monotonic() - self._rechecked >= RECHECK_EVERY:
                # (a glance may catch an animation: only a settled screen is worth a fresh read)
                checked = store.recheck(image, reading, self.device.model, note=self.say)
                if checked is not reading or not reading.sure:
                    self._rechecked = time.monotonic()
                reading = checked
        if reading.profile is not None and store.trusted(reading):
            self.profile = reading.profile  # (a profile built under a dialog or an ad is never kept)
        if self.screen is not None:
            # video frames (compressed) once the profile is built on a lossless screencap, and
            # while what is on screen reads for sure
            self.screen.lossless = self.profile is None or not reading.sure or reading.screen == "unknown"
        if reading.screen == "board" and reading.sure:
            self.ticking = reading.ticking
        if self.profile is not None:
            self.clock.share(self.profile)
            if self.keep is not None:
                self.keep(self.profile)  # what play taught it is there for the next game
        return image, reading

    def rebuild_profile(self, image, game: str) -> None:
        """Build this phone's profile for the game afresh from a screenshot, and store it."""
        self.profile = store.read(image, self.device.model, game, rebuild=True, note=self.say).profile

    def _hold(self) -> None:
        """Touching the phone takes its lock (``assistant.phone.lock``) for the rest of the run,
        so a guide that scrolls and a play never touch one phone together (play takes it first)."""
        lock.keep(self.device.serial)

    def _touch(self, kind: str) -> None:
        """A tap or swipe of this kind is being sent, once the animation of a move judged early
        has ended: the settled screen is stale until captured again."""
        self._hold()
        if self.stale:  # (what was read to plan this touch was read on the phone that left)
            raise PhoneCameBack("the phone came back: its screen is read again before the next touch")
        self._wait_until(self.clock.quiet_from(self.touch_margin))
        self.clock.touch(kind)
        self._settled_touch = None

    def tap(self, x: float, y: float) -> None:
        self.tap_all([(x, y)])

    def tap_all(self, points, kind: str = "tap") -> None:
        """Several taps in one shell call, returning once the phone has run every `input tap`
        (0.3-0.6 s each on a real phone): the screen read next tells whether they landed, so a
        lost phone is waited for but the taps are not sent again. ``kind``: what the taps make
        the game do (its animation time is learned per kind)."""
        points = list(points)
        self.taps += len(points)
        self.tapped_on = self.shot  # (see resized)
        self._touch(kind)
        start = time.monotonic()
        try:
            self.device.taps(points)
        except (PhoneLost, AdbServerUnreachable):
            self._again(lambda: None)  # (not sent again: the screen read next tells what landed)
        self.clock.touched_at = time.monotonic()
        self.spent["tap"] += self.clock.touched_at - start

    def resized(self) -> bool:
        """Whether the screen captured since the last taps is of another size than the one they
        were planned on: taps that seem lost may have gone to the wrong place on a screen
        resized under us (`wm size`, a rotation; the device asks its input size again for a
        screenshot of another size), and are then not sent again before the board is read again."""
        return self.tapped_on is not None and self.shot != self.tapped_on

    def swipe(self, x1, y1, x2, y2, ms: int = 400) -> None:
        self.swipes += 1
        self._touch("swipe")
        start = time.monotonic()
        self._again(lambda: self.device.swipe(x1, y1, x2, y2, ms), touch=True)
        self.clock.touched_at = time.monotonic()
        self.spent["swipe"] += self.clock.touched_at - start

    def key(self, code: str) -> None:
        """Press a system key (``KEYCODE_BACK``...): `input keyevent`, never a tap on the screen."""
        self.keys += 1
        self._hold()
        try:
            self._again(lambda: self.device.key(code), touch=True)
        except PhoneCameBack:
            pass  # (not pressed again: whoever pressed it looks at what is in front next)

    def shell(self, command: str) -> str:
        """A shell command's output (what is in front, bringing the game back)."""
        return self._again(lambda: self.device.shell(command))
