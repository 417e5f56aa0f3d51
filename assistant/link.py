"""The assistant's hold on one phone: capture a settled screen (or one frame early in a move's
animation), tap and swipe, hold the phone's lock, and ride out a phone that drops off the cable
for a moment. Settling (``assistant.settle``) and animation times (``assistant.animation``) are
its parts; reading what it captures is the session's (``assistant.session``)."""

from __future__ import annotations

import functools
import time

from assistant.animation import EARLY_POLL, AnimationClock, part_change, part_moved
from assistant.phone import lock
from assistant.phone.channel import Channel, ChannelUnavailable
from assistant.phone.server import AdbServerUnreachable, PhoneLost
from assistant.record import Recorder
from assistant.settle import Settler, still
from solver.errors import BoardChanged


def overlap(part, others) -> bool:
    """Whether the box ``part`` (x0, y0, x1, y1) shares pixels with any of the boxes ``others``."""
    x0, y0, x1, y1 = part
    return any(x0 < u1 and u0 < x1 and y0 < v1 and v0 < y1 for u0, v0, u1, v1 in others)


# A still screen's video frame comes again every 100 ms (scrcpy's SurfaceEncoder), then its
# latency: a frame newer than a screencap is waited for up to STILL_FRAME_WAIT (its frame times
# are on this clock: see Channel.frame)
STILL_FRAME_WAIT = 0.3


class PhoneCameBack(BoardChanged):
    """The phone was lost and came back (maybe resized, maybe another device on its address):
    a touch planned on the screen read before is not sent; the board is read again first."""


class Link:
    """One phone: its captures, its touches, and bounded reconnects when it goes away."""

    def __init__(self, device, say=print, reconnect_timeout: float = 30.0, recorder: Recorder | None = None):
        # device: an assistant.phone.device.Device (or anything with its capture, taps and swipe)
        self.device, self.say = device, say
        # the run's recording (assistant.record), which the session and the loop report to as well
        self.recorder = recorder or Recorder(on=False)
        # its Screen (assistant.phone.screen) and channel; None for a stand-in that only captures:
        # no video to mind, and its times as far off as an input call's
        self.screen = device.screen
        # a lossless capture, not a compressed video frame: for the read that builds the phone's
        # profile, and after a read that was not sure (the session's choice: quality)
        self.lossless = True
        self.reconnect_timeout = reconnect_timeout
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
        # pipelined play: the parts of the screen still animating after moves judged early, each
        # with when its animation ends and the kind of touch it follows; a touch none of whose
        # points lies in one goes at once (the game takes a tap on a cell that is not itself
        # moving) while ``overlap`` holds (play turns it off on a phone that loses such touches)
        self._moving: list[tuple[tuple[int, int, int, int], float, str]] = []
        # the parts of the settled screen that moves judged early moved since (rows collapsing):
        # no reference for an early frame there until a frame of the screen still is taken
        self._shifted: list[tuple[tuple[int, int, int, int], float]] = []  # (each with when it stops)
        # ... once they were seen still by then, on video: the next touch is sent first, and
        # the frame it found taken after (``_found_by``), so far due; then its time while it
        # stands, provisional, for an early frame to take a later one (``_refined``)
        self._reference_due = False
        self._provisional: float | None = None
        self._reference_video = False  # the settled screen was a video frame
        self.overlap = True
        self.overlapped = 0  # touches sent while an animation played elsewhere on the screen
        self.last_overlapped = False  # the last touch was one ...
        self._overlap_until = 0.0  # ... and when the animations it was sent during end
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
            self._wait_back(exc)
            if touch:
                raise PhoneCameBack("the phone came back before the touch was sure to land") from None
            return action()

    def _wait_back(self, exc: Exception) -> None:
        """The phone was lost (``exc``): wait, bounded, for it to come back (PhoneLost if not)."""
        self.recorder.fault(f"lost the phone: {exc}")
        self.say(f"{exc}; waiting up to {self.reconnect_timeout:g} s for it to come back")
        self.device.reconnect(timeout=self.reconnect_timeout)  # raises PhoneLost when it does not
        self.reconnects += 1  # (the session's next read takes the profile of what came back)
        self.stale = True
        self.recorder.recovered(f"the phone came back (reconnect {self.reconnects})")
        self.say("the phone is back: going on from what its screen shows")

    def _grab(self, not_before: float | None = None, still: bool = False):
        """A capture and when it showed the screen: a video frame's own time (one that showed it
        from ``not_before`` on, or with ``still`` stood for it then: see ``Device.capture``),
        else when the screencap was asked for."""
        self.captures += 1
        at = time.monotonic()
        if self.screen is None:
            image = self._again(self.device.capture)
        else:
            image = self._again(lambda: self.device.capture(not_before, self.lossless, still))
        self.stale, self.shot = False, image.shape[:2]
        self.spent["capture"] += time.monotonic() - at
        if self.from_video:
            at = self.device.shown_at
        return image, at

    def _wait_until(self, at: float) -> None:
        seconds = at - time.monotonic()
        if seconds > 0:
            self.spent["wait"] += seconds
            time.sleep(seconds)

    @property
    def touch_margin(self) -> float:
        """How far this link's channel's times may be off from the phone's (``Channel.touch_margin``)."""
        return (self._channel() or Channel).touch_margin

    @property
    def channel_name(self) -> str:
        """The name of the channel the touches go by and the screen is timed on ("scrcpy",
        "shell", "exec"): the animation times learned are this channel's (``Session.save``)."""
        return (self._channel() or Channel).name

    def _channel(self):
        """The phone's channel (``assistant.phone.channel``), when it is a phone with a screen of its own."""
        return self.device.channel if self.screen is not None else None

    @property
    def touches_land_later(self) -> bool:
        """Whether a touch sent may act on the phone after the call returned (``Channel.acts_before_returning``)."""
        return not (self._channel() or Channel).acts_before_returning

    @property
    def shifted(self) -> list:
        """The parts of the settled screen that moves judged early moved since (rows collapsing):
        a frame compared with that screen there says nothing until a still one is taken."""
        return [part for part, _ in self._shifted]

    @property
    def from_video(self) -> bool:
        """The last capture was a (compressed) video frame, not a lossless screencap."""
        return self.screen is not None and self.device.shown_at is not None

    @property
    def video_capture(self) -> bool:
        """Captures come from the phone's video (not asked lossless, and a video there): each
        next one waits for the next frame, which a still screen's video sends again (see
        ``Channel.settled_since``)."""
        return not self.lossless and self.live_frame() is not None

    @property
    def video_size(self) -> tuple[int, int] | None:
        """(width, height) of the phone's screen as captured, when it has a video to capture from."""
        return self.screen.size if self.screen is not None else None

    def live_frame(self, shown_from: float | None = None, wait: float = 0.0):
        """(RGB frame, monotonic time) newest from the phone's video channel, or None (no video,
        or a stream that ended: the next capture hands over to the next channel, in one line);
        ``shown_from``: one that showed the screen from then on, waited for up to ``wait`` s."""
        channel = self._channel()
        if channel is None:
            return None
        try:
            return channel.frame() if shown_from is None else channel.frame_since(shown_from, wait)
        except (ChannelUnavailable, ConnectionError):
            return None

    def quality(self, lossless: bool) -> None:
        """Capture from now on by lossless screencap (True) or by the channel's video when it has
        one (False): the session's choice (``assistant.session``), as what it reads needs."""
        self.lossless = lossless

    @property
    def capture_s(self) -> float:
        """This link's mean seconds a capture (none timed yet: infinite, so nothing is narrowed)."""
        return self.spent["capture"] / self.captures if self.captures else float("inf")

    def _first_frame(self):
        """``AnimationClock.first_frame`` at this link's capture time."""
        return self.clock.first_frame(self.capture_s)

    def glance_settles(self) -> bool:
        """Whether a glance now would be a settled capture (its kind of touch has no time learned
        yet, or one a settle narrows): the caller may as well capture settled. A question."""
        first = self._first_frame()
        return first is None or first[1]

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

    def frame_at(self, at: float):
        """One frame of the screen as it shows at ``at`` (time.monotonic, waited for), not
        proved settled, for a caller that compares it with the settled screen: None when it is
        not of that screen's kind (a video frame against a screencap: their noise differs)."""
        self._wait_until(at)
        image = self._grab(not_before=at)[0]
        return image if self.from_video == self._reference_video else None

    def accept(self, image) -> None:
        """``image`` stands for the settled screen: a settled capture, or a glance that showed
        the predicted screen."""
        self._glanced = None
        self._shifted, self._provisional, self._reference_due = [], None, False
        self._reference_video = self.from_video
        self.settler.settled(image)
        self.clock.settled()

    def early(self, changing, aside=(), reach=(), shows="fading", shifted=(), last=False):
        """The first frame of the animation of a move that changes the parts ``changing`` of the
        screen (each x0, y0, x1, y1) in place, and maybe the parts ``aside`` (a score), and once
        they have changed moves the parts ``shifted`` (rows collapsing below a row emptied):
        frames from the touch on (``AnimationClock.early_window``) until one shows every part as
        ``shows`` says (fading: ``part_change``; moving: ``part_moved``) and the rest as on the
        last settled screen (``still``: the parts of moves judged so since and what ticks left
        out too). That frame, or None: a frame showed something else, or nothing came in time,
        and the move is judged after its animation (``early_result`` says how that went). A part
        of the screen shifted since that screen has no reference to compare with: None; nor has
        a move whose every part a move judged so since changed too (a card swapped again: its
        change is no sign of this move). A next touch in a moving part, or in ``reach``, is held
        back until the move's animation ends. ``last``: no touch follows this one (the board's
        last move, no board after it): its frames may be timed by the animation it begins as."""
        window = self.clock.early_window(self.capture_s, self.touch_margin, self.from_video, last)
        before = self.settler.screen
        # (a video frame and a screencap differ by the video's noise: no verdict between them;
        # frames come by video when the screen is not asked for lossless and video came before)
        video = self.from_video and not self.lossless
        if (window is None or before is None or video != self._reference_video
                or all(overlap(part, self.settler.changed) for part in changing)
                or any(overlap(part, self.shifted) for part in changing)):
            return None
        asked, last = window
        self._wait_until(asked)
        others = [*changing, *aside, *self.settler.changed, *self.ticking]
        shown = part_change if shows == "fading" else part_moved
        # (compared with the screen before the touch, a fade's first faint frame counts)
        against_before = functools.partial(part_change, faint=True) if shows == "fading" else part_moved
        while True:
            image, at = self._grab(not_before=asked)
            if self.from_video != self._reference_video:
                return None  # (no video frame came in time: a screencap)
            verdicts = {against_before(before, image, part) for part in changing}
            # (one part changed and not yet the other, on a frame caught as the touches land: a
            # cell selected by the first tap before the second shows; the next. The rest of the
            # screen, a whole frame's comparison, only on the frame judged, or against a
            # provisional reference that may be the rows' picture before their last)
            judged = verdicts == {shows} or at >= last
            provisional = self._provisional is not None
            if judged or provisional and "other" in verdicts:
                if not still(before, image, others):
                    verdicts.add("other")
                if provisional and "other" in verdicts:
                    found = self._refined(image, at, changing, others, against_before, shows)
                    if found is not None:
                        before, verdicts, judged = found, {shows}, True
                if judged:
                    break
            asked = None  # (a video's next frame: see Device.capture)
            if not self.from_video:
                if at + EARLY_POLL > last:
                    break  # (nothing seen by the last time a capture may be asked for)
                self._wait_until(at + EARLY_POLL)
        if verdicts == {shows} and self.clock.seen_still_by(at):
            # a frame after the time this kind was learned still by shows no more than a change
            # ended, or one still under way: the time too short (learned with faster
            # animations), which would let a touch land on what still moves. The next frame tells.
            again = self._grab()[0]
            if any(shown(image, again, part) != "unchanged" for part in changing):
                verdicts = {shows, "late"}
        if not self.clock.judge_early(verdicts, at, shows, last):
            return None
        self.settler.changed += [*changing, *aside, *shifted]
        ends = self.clock.quiet_from(0.0)
        self._shifted += [(part, ends) for part in shifted]
        self._moving += [(part, ends, self.clock.kind) for part in (*changing, *reach, *shifted)]
        self.recorder.screen(image, "early")
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
        if self.lossless and touched_at is None and self.settler.screen is None:
            image = self._still_on_video_around()
            if image is not None:
                self.accept(image)
                return image
        in_full, self._in_full = self._in_full, False
        if glanced is None or touched_at is None:
            glanced = None  # the glance is this capture's first frame only after a touch
            first = None if learning or in_full else self._first_frame()
            if first is not None:
                self._wait_until(first[0])
        image, times = self.settler.settle(self.ticking, glanced, touched_at,
                                           None if in_full else self.clock.seen_still_by,
                                           None if in_full or not self.video_capture else self._video_settled_since)
        before = self.settler.screen
        if (touched_at is not None and not in_full and times[0] >= self._overlap_until
                and (len(times) > 2 or before is not None and not still(before, image, self.ticking))):
            # (a touch sent while another animation played teaches only by frames after it ended:
            # before, they show both animations, not its kind's time)
            self.clock.learn(times)
        self._settled_touch = touched_at if self.settler.by_time else None
        self.accept(image)
        return image

    def _video_settled_since(self, at: float) -> float | None:
        """``Channel.settled_since`` for the last capture, asked for at ``at``, when it was a
        video frame (its own time); else None."""
        channel = self._channel()
        return channel.settled_since(at) if channel is not None and self.from_video else None

    def _still_on_video_around(self):
        """One lossless capture of a screen the video shows still on both sides of it (its
        newest frame before, and the first shown once the capture was done, equal), where a
        settle would take two lossless captures (a PNG screencap costs 0.3-0.55 s on a real
        phone): the first read of a phone with video. None: no video, or the screen changed.
        The encoder sends a still screen's frame again only ten times (``_looked_so_since``):
        a screen still for longer sends nothing, and its newest frame, such a repeat, stands
        for both."""
        before = self.live_frame()
        if before is None:
            return None
        image = self._grab()[0]  # (lossless: a screencap)
        after = self.live_frame(shown_from=time.monotonic(), wait=STILL_FRAME_WAIT)
        if self._looked_so_since(self.live_frame(), before[1]):  # (the newest: after, or the repeat it stands for)
            return image
        return image if after is not None and still(before[0], after[0], self.ticking) else None

    def _looked_so_since(self, frame, shown: float) -> bool:
        """Whether ``frame`` (a video frame and its time) is an encoder's repeat of a screen that
        looked so since the frame shown at ``shown`` (``Channel.settled_since``), so that the
        screen drew nothing between: the encoder sends every frame the screen draws, and a still
        screen's last one again every 100 ms, ten times, each sharper (so the last ones may
        drift from the first frame by more than the noise ``still`` allows), then nothing
        (AOSP GraphicBufferSource.cpp, repeatLatestBuffer_l: kRepeatLastFrameCount). A stream
        that stalled sends nothing either, but its repeats show it was flowing, and a stall of
        the phone's connection holds a screencap taken meanwhile too."""
        channel = self._channel()
        if frame is None or channel is None:
            return False
        since = channel.settled_since(frame[1])
        return since is not None and since <= shown

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

    def _hold(self) -> None:
        """Touching the phone takes its lock (``assistant.phone.lock``) for the rest of the run,
        so a guide that scrolls and a play never touch one phone together (play takes it first)."""
        lock.keep(self.device)

    def _pipelined(self, points, now: float) -> tuple[float, bool]:
        """For a touch at ``points`` (None: not a tap) sent at ``now``: when every animation
        running ends (the channel's margin on), and whether the touch goes at once, during them
        (pipelined: none of its points in a part still moving, where ``overlap`` holds). A question."""
        running = [(part, ends) for part, ends, _ in self._moving if ends + self.touch_margin > now]
        # (a row collapsing after an earlier move may outlast the last move's fade)
        quiet = max([self.clock.quiet_from(self.touch_margin)] + [ends + self.touch_margin for _, ends in running])
        at_once = (self.overlap and points is not None and quiet > now and bool(running)
                   and not any(overlap((x, y, x + 1, y + 1), [part for part, _ in running]) for x, y in points))
        return quiet, at_once

    def waits(self, points) -> bool:
        """Whether taps at ``points`` sent now would first wait for an animation to end (see
        ``_touch``). A question: nothing changes."""
        now = time.monotonic()
        quiet, at_once = self._pipelined(points, now)
        return quiet > now and not at_once

    def _touch(self, kind: str, points=None) -> None:
        """A tap or swipe of this kind is being sent: at once when its ``points`` lie outside
        every part still animating after moves judged early (pipelined: the game takes a tap on
        a cell that is not itself moving), else once their animation has ended. The settled
        screen is stale until captured again."""
        self._hold()
        if self.stale:  # (what was read to plan this touch was read on the phone that left)
            raise PhoneCameBack("the phone came back: its screen is read again before the next touch")
        now = time.monotonic()
        self._provisional = None  # (a reference taken for the last touch's early frames only)
        self._moving = [m for m in self._moving if m[1] + self.touch_margin > now]
        quiet, self.last_overlapped = self._pipelined(points, now)
        self._overlap_until = max((ends for _, ends, _ in self._moving), default=0.0) if self.last_overlapped else 0.0
        if self.last_overlapped:
            self.overlapped += 1
        else:
            if self._moving and quiet > now:
                # held by the animation that ends last: the kind whose time, narrowed, would speed it
                self.clock.held(max(self._moving, key=lambda m: m[1])[2])
            self._wait_until(quiet)
            self._moving = []
            if self._shifted:
                # every animation is over: a frame of the screen still (shown once the rows
                # were seen still by their kind's time) is the reference the next move's early
                # frame is compared with. On video, the frame the touch found (``_found_by``):
                # the rows' last frame may still be on its way (35-70 ms), and the touch need
                # not wait for it; elsewhere a capture now
                if self.from_video and not self.lossless:
                    self._glanced, self._shifted, self._reference_due = None, [], True
                    self.clock.settled()
                else:
                    ended = max(ends for _, ends in self._shifted) + self.touch_margin
                    self.accept(self._grab(not_before=ended, still=True)[0])
        self.clock.touch(kind)
        self._settled_touch = None

    def _found_by(self, sent: float) -> None:
        """After a touch sent at ``sent`` once rows moved by moves judged early ended by their
        time (``_touch``, on video): the newest frame shown by then, caught before the touch
        acted, is the settled screen its early frames are compared with, provisionally. Frames
        come 35-70 ms after the phone shows them, and a learned time is good to a frame: the
        rows' last picture may come after it (``_refined``). Waiting for it before the touch
        held every touch below a row gone by up to 70 ms. No frame: no reference (judged settled)."""
        if not self._reference_due:
            return
        self._reference_due = False
        got = None if self.stale else self.device.found_by(sent)
        self.settler.settled(got[0] if got is not None else None)
        self._reference_video = got is not None
        self._provisional = got[1] if got is not None else None

    def _refined(self, image, at: float, changing, others, against_before, shows):
        """For an early frame ``image`` shown at ``at`` that the provisional reference (see
        ``_found_by``) refused: a later frame shown before it, the newest first, that shows
        every part of ``changing`` against it as ``shows`` (``against_before``) and the rest
        (all but ``others``) as it does: the rows' last picture, come after the touch was sent
        (or the touch's own first frame, a fade's first faint shade), taken as the settled
        screen; None: none does (the rows still moved there: judged as always)."""
        for candidate, _ in self.device.frames_between(self._provisional, at):
            if ({against_before(candidate, image, part) for part in changing} == {shows}
                    and still(candidate, image, others)):
                self.settler.settled(candidate)
                return candidate
        return None

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
        self._touch(kind, points)
        self.recorder.touch("tap", points, kind)
        start = time.monotonic()
        try:
            self.device.taps(points)
        except (PhoneLost, AdbServerUnreachable) as exc:
            self._wait_back(exc)  # (not sent again: the screen read next tells what landed; ``stale`` says so)
        self.clock.touched_at = time.monotonic()
        self.spent["tap"] += self.clock.touched_at - start
        self._found_by(start)

    def resized(self) -> bool:
        """Whether the screen captured since the last taps is of another size than the one they
        were planned on: taps that seem lost may have gone to the wrong place on a screen
        resized under us (`wm size`, a rotation; the device asks its input size again for a
        screenshot of another size), and are then not sent again before the board is read again."""
        return self.tapped_on is not None and self.shot != self.tapped_on

    def swipe(self, x1, y1, x2, y2, ms: int = 400) -> None:
        self.swipes += 1
        self._touch("swipe")
        self.recorder.touch("swipe", [(x1, y1), (x2, y2)], f"{ms} ms")
        start = time.monotonic()
        self._again(lambda: self.device.swipe(x1, y1, x2, y2, ms), touch=True)
        self.clock.touched_at = time.monotonic()
        self.spent["swipe"] += self.clock.touched_at - start
        self._found_by(start)

    def key(self, code: str) -> None:
        """Press a system key (``KEYCODE_BACK``...): `input keyevent`, never a tap on the screen."""
        self.keys += 1
        self._hold()
        self.recorder.key(code)
        try:
            self._again(lambda: self.device.key(code), touch=True)
        except PhoneCameBack:
            pass  # (not pressed again: whoever pressed it looks at what is in front next)

    def shell(self, command: str) -> str:
        """A shell command's output (what is in front, bringing the game back)."""
        return self._again(lambda: self.device.shell(command))
