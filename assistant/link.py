"""The assistant's hold on one phone: capture a settled screen and read it with its profile,
judge a move on one frame early in its animation, tap, and ride out a phone that drops off the
cable for a moment."""

from __future__ import annotations

import time

import cv2
import numpy as np

import vision
from assistant.phone.device import Device
from assistant.phone.server import AdbServerUnreachable, PhoneLost
from calibration import store
from solver.errors import TapsolveError

# A still screen: two captures at least SETTLE_INTERVAL apart whose compared region differs in at
# most STILL_PIXELS pixels (by more than PIXEL_NOISE in a channel) show no animation under way.
SETTLE_INTERVAL = 0.05
STILL_PIXELS = 16
PIXEL_NOISE = 10
# A game's animations last well under a second; a screen changing for longer is not settling.
SETTLE_TIMEOUT = 5.0
# After a touch, two equal frames show a still screen only this far apart: an animation that
# eases in (Android's AccelerateInterpolator: the square or the cube of the time) changes a
# digit's shade by less than PIXEL_NOISE over its first tenths of a second. A real phone's
# captures are this far apart anyway; one that answers sooner waits, until the kind of touch
# has been seen still by a time (learned so), after which nothing easing in goes unseen.
STILL_SPAN = 0.3
# A glance (one capture taken as the settled screen when it shows what was predicted) waits the
# phone's animation time for that kind of touch, learned from settled captures only: between the
# latest time after such a touch a frame was seen moving and the earliest one was seen still (so
# a glance never falls inside an animation seen before). The move's capture is instead a settled
# one started halfway between them, which halves the gap, while that pays: while half the gap
# times the touches of that kind so far on this phone, earlier games' included (a guess at those
# to come), exceeds a capture's time: the profile keeps that count (a kind touched once a game,
# like an add, is narrowed over several games).
# At most ANIMATION_MAX, so a stalled frame is not learned as an animation. A frame seen moving
# at (CLOCK_SLACK: give or take the clock's rounding) or after the time learned still means the
# time is wrong for this phone (a stored one, a slower phone): it is learned again.
ANIMATION_MAX = 1.5
CLOCK_SLACK = 1e-3
# The compared region leaves out the status bar (its clock ticks) and the band at the bottom
# where free games show a banner ad (a 50 dp banner is under 1/12 of a phone's height), whose
# pictures may move all the time.
STATUS_BAR_PART = 1 / 20
BANNER_PART = 1 / 12
# A move that changes parts of the screen in place (a pair fading) is judged on one frame taken
# early in its animation, EARLY_PART of the time it was learned still by: the frame must show
# each part changing as a fade does and nothing else changed. A frame too early to show it moves
# that part halfway to the still time, and past EARLY_LATEST no early frame pays (unless it came
# after that time, or is the first to pass EARLY_LATEST: the time is then taken to be wrong, a
# stored one learned with faster animations, and learned again); a kind whose early frames
# showed something else EARLY_MISSES times in a row (a game that draws more than a fade as a
# pair goes) is judged after its animation, as before.
EARLY_PART = 1 / 4
EARLY_LATEST = 0.9
EARLY_MISSES = 3
# The time a kind was learned still by runs from a touch's return to a frame's request, each a
# little off from when the phone acted: a touch after a move judged early waits this much more.
TOUCH_MARGIN = 0.05
# A fade, inside a part: the pixels at least MARK_CONTRAST from the part's ground (its median
# colour) are its marks (a digit). The ground stays as it was (but within MARK_HALO pixels of a
# mark: anti-aliasing), no mark gains contrast, and at least FADING_MARKS of them lose some.
MARK_CONTRAST = 60
MARK_HALO = 2
FADING_MARKS = 0.5


class ScreenNotSettling(TapsolveError):
    """The screen kept changing for longer than any animation of the game."""


def changed_pixels(a, b) -> int:
    """How many pixels differ by more than PIXEL_NOISE in some channel between two same-sized images."""
    # all in OpenCV and uint8: a quarter of the time of numpy's int16 difference, every look
    r, g, b_ = cv2.split(cv2.absdiff(np.ascontiguousarray(a), np.ascontiguousarray(b)))
    strongest = cv2.max(cv2.max(r, g), b_)
    return cv2.countNonZero(cv2.threshold(strongest, PIXEL_NOISE, 255, cv2.THRESH_BINARY)[1])


def still(a: np.ndarray, b: np.ndarray, ticking=()) -> bool:
    """Whether two captures show the same picture where the game draws (see BANNER_PART), but
    for the parts that change on their own (``Reading.ticking``: a clock)."""
    if a.shape != b.shape:
        return False
    if ticking:
        b = b.copy()
        for x0, y0, x1, y1 in ticking:
            b[y0:y1, x0:x1] = a[y0:y1, x0:x1]
    h = a.shape[0]
    y0, y1 = int(h * STATUS_BAR_PART), int(h * (1 - BANNER_PART))
    return changed_pixels(a[y0:y1], b[y0:y1]) <= STILL_PIXELS


def part_change(before, after, part) -> str:
    """How a part (x0, y0, x1, y1) of the screen changed between two frames: "unchanged" (or
    too little to tell), "fading" (its marks losing contrast on an unchanged ground, as a pair
    crossed out does; see MARK_CONTRAST) or "other" (the ground changed: a highlight, a flash;
    or a mark gained contrast)."""
    x0, y0, x1, y1 = part
    a = before[y0:y1, x0:x1].astype(np.int16)
    b = after[y0:y1, x0:x1].astype(np.int16)
    if a.size == 0 or a.shape != b.shape:
        return "other"
    changed = np.abs(a - b).max(axis=2) > PIXEL_NOISE
    if not changed.any():
        return "unchanged"
    ground = np.median(a.reshape(-1, 3), axis=0)
    contrast_a = np.abs(a - ground).max(axis=2)
    contrast_b = np.abs(b - ground).max(axis=2)
    marks = contrast_a >= MARK_CONTRAST
    if not marks.any():
        return "other"
    side = 2 * MARK_HALO + 1
    halo = cv2.dilate(marks.astype(np.uint8), np.ones((side, side), np.uint8)).astype(bool)
    if (changed & ~halo).any() or (contrast_b[marks] > contrast_a[marks] + PIXEL_NOISE).any():
        return "other"
    losing = (contrast_b[marks] < contrast_a[marks] - PIXEL_NOISE).mean()
    return "fading" if losing >= FADING_MARKS else "unchanged"


class Link:
    """One phone, its reading profile, and bounded reconnects when it goes away."""

    def __init__(self, device: Device, verbose: bool = False, say=print, reconnect_timeout: float = 30.0):
        self.device, self.say = device, say
        self.reconnect_timeout = reconnect_timeout
        self.profile = None
        self.reconnects = 0
        self.settle_timeout = SETTLE_TIMEOUT
        # what this link sent and took, for the run's summary
        self.taps = self.swipes = self.captures = 0
        self.unsettled = 0  # captures that showed the screen still changing (an animation)
        self.ticking = []  # the parts of the screen that change on their own, as last read
        self._still: np.ndarray | None = None  # the last settled screen ...
        self._touched = True  # ... unless a tap or swipe was sent since
        self._glanced = None  # (image, time) of a glance not accepted
        self._touched_at: float | None = None  # when the last tap or swipe returned ...
        self._kind = "tap"  # ... and what kind of touch it was
        # per kind of touch, seconds after it: [latest seen moving, earliest seen still (None: not yet)]
        self.animation: dict[str, list] = {}
        self.touches: dict[str, int] = {}  # taps and swipes sent, per kind
        # moves judged on an early frame (``early``): per kind, the part of its still time to
        # take it at and the misses in a row; the parts they changed since the last settled
        # screen; when the last one's animation ends (no touch lands before it); the verdict
        self.early_judged = 0
        self._early_part: dict[str, float] = {}
        self._early_misses: dict[str, int] = {}
        self._early_doubted: set[str] = set()  # kinds whose learned time early frames showed wrong
        self._changed_since: list[tuple[int, int, int, int]] = []
        self._animating_until = 0.0
        self._early_verdict: tuple[str, str, float] | None = None
        self._animations_from = None  # the profile whose stored animation times were taken ...
        self._touched_before: dict[str, int] = {}  # ... and its count of earlier games' touches
        # wall seconds spent waiting on the phone, per kind ("tap", "swipe", "capture", and
        # "wait": sleeping out an animation or a settle interval), for the run's breakdown
        self.spent = {"tap": 0.0, "swipe": 0.0, "capture": 0.0, "wait": 0.0}
        if verbose:
            w, h = device.size
            say(f"phone {device.serial}: {device.model}, {w}x{h}; {device.screen.describe()}")

    def _again(self, action):
        """Run action; if the phone is lost, wait (bounded) for it to come back and run it once more."""
        try:
            return action()
        except (PhoneLost, AdbServerUnreachable) as exc:
            self.say(f"{exc}; waiting up to {self.reconnect_timeout:g} s for it to come back")
            self.device.reconnect(timeout=self.reconnect_timeout)  # raises PhoneLost when it does not
            self.reconnects += 1
            self.say("the phone is back: going on from what its screen shows")
            return action()

    def _grab(self):
        """A capture and when it was asked for."""
        self.captures += 1
        at = time.monotonic()
        image = self._again(self.device.capture)
        self.spent["capture"] += time.monotonic() - at
        return image, at

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.spent["wait"] += seconds
            time.sleep(seconds)

    def glance(self):
        """One capture once this kind of touch's animation time has passed, not proved settled:
        for a caller that accepts it only when it shows just what was predicted (``accept``).
        Until that time is learned, a settled capture."""
        moving, seen_still = self._learned()
        if not self._touched or self._touched_at is None or seen_still is None:
            return self.capture()
        learning = self._learning_pays(moving, seen_still)
        self._sleep(((moving + seen_still) / 2 if learning else seen_still) - (time.monotonic() - self._touched_at))
        if learning:
            return self.capture(learning=True)
        image, at = self._grab()
        self._glanced = image, at  # the first frame of the settled capture that may follow
        return image

    def accept(self, image) -> None:
        """A glance showed the predicted screen: it stands for the settled one."""
        self._still, self._touched, self._glanced = image, False, None
        self._changed_since = []

    def early(self, changing, aside=()):
        """One frame early in the animation of a move that changes only the parts ``changing``
        of the screen (each x0, y0, x1, y1) in place, and maybe the parts ``aside`` (a score):
        the frame when it shows every part fading (``part_change``) and the rest as on the last
        settled screen (``still``: the parts of moves judged so since and what ticks left out
        too), else None: the move is then judged after its animation (``early_result`` says how
        that went). The next touch is held back so that it cannot land before the animation ends."""
        kind = self._kind
        seen_still = self._learned()[1]
        self._early_verdict = None
        share = self._early_part.setdefault(kind, EARLY_PART)
        if (not self._touched or self._touched_at is None or self._still is None or seen_still is None
                or share > EARLY_LATEST or self._early_misses.get(kind, 0) >= EARLY_MISSES):
            return None
        self._sleep(seen_still * share - (time.monotonic() - self._touched_at))
        image, at = self._grab()
        before = self._still
        verdicts = {part_change(before, image, part) for part in changing}
        if not still(before, image, [*changing, *aside, *self._changed_since, *self.ticking]):
            verdicts.add("other")
        if verdicts != {"fading"}:
            self._early_verdict = kind, "too soon" if verdicts == {"unchanged"} else "other", at - self._touched_at
            return None
        self.early_judged += 1
        self._early_misses[kind] = 0
        self._changed_since += list(changing)
        self._animating_until = self._touched_at + seen_still
        self._touched = False
        return image

    def early_result(self, made: bool) -> None:
        """How the move whose early frame was refused turned out: ``made`` (judged after its
        animation) means the frame missed it, and a frame that came too soon is taken later.
        A frame that showed nothing yet though it came after the time this kind was learned
        still by shows that time wrong (learned on this phone with its animations off, say):
        it is forgotten, to be learned again by the next settled capture. So is a time whose
        early frames came too soon until the next would pass EARLY_LATEST (learned with faster
        animations), once: if the time learned again does the same, no early frame pays."""
        if self._early_verdict is None or not made:
            return
        kind, verdict, after = self._early_verdict
        self._early_verdict = None
        if verdict == "too soon":
            bracket = self.animation[kind]
            share = (self._early_part[kind] + 1) / 2
            if after >= bracket[1] - CLOCK_SLACK or (share > EARLY_LATEST and kind not in self._early_doubted):
                self._early_doubted.add(kind)
                bracket[:] = [min(after, ANIMATION_MAX), None]
                self._early_part[kind] = EARLY_PART
            else:
                self._early_part[kind] = share
        else:
            self._early_misses[kind] = self._early_misses.get(kind, 0) + 1

    def capture(self, learning: bool = False):
        """The screen once it has stopped changing: captures until two in a row, a short
        interval apart, show the same picture. A capture taken during an animation (a pair
        fading, rows collapsing, an add writing its numbers, a screen sliding in) is never
        returned. When nothing was sent to the phone since the last settled screen, one capture
        equal to that screen is enough. After a touch whose kind's animation time is known, the
        first frame waits for it (a frame before it would most likely be wasted), or for half
        the bracket where narrowing it pays (as a glance does: an ending move is never glanced
        at), unless ``learning`` (the caller waited so already)."""
        glanced, self._glanced = self._glanced, None
        if glanced is not None and self._touched:
            # the glance is this capture's first frame
            previous, at = glanced
            image, at2 = self._grab()
            first, times = at, [at, at2]
            at = at2
        else:
            moving, seen_still = self._learned()
            if self._touched and self._touched_at is not None and seen_still is not None and not learning:
                first_at = (moving + seen_still) / 2 if self._learning_pays(moving, seen_still) else seen_still
                self._sleep(first_at - (time.monotonic() - self._touched_at))
            image, at = self._grab()
            first = at
            times = [at]
            previous = None if self._touched else self._still
        previous_at = times[-2] if len(times) > 1 else None
        while True:
            if previous is not None and still(previous, image, self.ticking):
                if (not self._touched or self._touched_at is None or at - previous_at >= STILL_SPAN
                        or self._seen_still_by(previous_at)):
                    break
                # too close together to rule out an animation that eases in: a later frame is
                # compared with the same earlier one (and stands in the times for this one)
                self._sleep(previous_at + STILL_SPAN - time.monotonic())
                image, at = self._grab()
                times[-1] = at
                continue
            if previous is not None:
                self.unsettled += 1
            # frames are taken when a capture is asked for: the screen changed across this span
            # (not the captures' own time, which a slow phone may stretch by seconds)
            if at - first > self.settle_timeout:
                raise ScreenNotSettling(
                    f"the phone's screen kept changing for {self.settle_timeout:g} s (an animation "
                    "that does not end, a video ad?): close what moves on the phone and run again")
            self._sleep(SETTLE_INTERVAL - (time.monotonic() - at))
            previous, previous_at = image, at
            image, at = self._grab()
            times.append(at)
        if self._touched and self._touched_at is not None and (
                len(times) > 2 or self._still is not None and not still(self._still, image, self.ticking)):
            # the last two frames show the still screen: it was still by the first of them, and
            # moving at the frame before (learned only from a touch that changed the screen: a
            # lost tap shows no animation's end)
            bracket = self.animation.setdefault(self._kind, [0.0, None])
            seen = min(ANIMATION_MAX, times[-2] - self._touched_at)
            moved = min(ANIMATION_MAX, times[-3] - self._touched_at) if len(times) > 2 else None
            if moved is not None and bracket[1] is not None and moved >= bracket[1] - CLOCK_SLACK:
                # still moving after the time it was learned still by (another phone's speed,
                # an update of the game): learned again from this capture
                bracket[:] = [moved, seen]
            bracket[1] = seen if bracket[1] is None else min(bracket[1], seen)
            if moved is not None:
                bracket[0] = max(bracket[0], min(moved, bracket[1]))
        self._still, self._touched = image, False
        self._changed_since = []
        return image

    def _seen_still_by(self, at: float) -> bool:
        """Whether a frame asked for at ``at`` comes after the time this kind of touch's
        animation was learned still by (so no animation easing in can still be unseen)."""
        seen_still = self._learned()[1]
        return seen_still is not None and at - self._touched_at >= seen_still

    def _learned(self) -> tuple[float, float | None]:
        """The last touch's kind as learned: (latest seen moving, earliest seen still or None)."""
        moving, seen_still = self.animation.get(self._kind, (0.0, None))  # stored as a list
        return moving, seen_still

    def look(self, game: str = "auto", glance: bool = False):
        """Capture and read the screen: (image, reading). The first read builds or loads the
        device's profile; later ones reuse it and store what they learn. ``glance``: one
        capture, maybe unsettled (see ``glance``)."""
        image = self.glance() if glance else self.capture()
        if self.profile is None or self.profile.game != (game if game != "auto" else self.profile.game):
            reading = store.read(image, self.device.model, game, note=self.say)
        else:
            reading = vision.read(image, game, self.profile)
            if reading.profile_stale:
                reading = store.read(image, self.device.model, game, rebuild=True, note=self.say)
            elif reading.profile is not None and reading.profile.game != self.profile.game:
                # the other game is on screen now: its own stored profile, not a blank one
                reading = store.read(image, self.device.model, reading.game, note=self.say)
        if reading.profile is not None:
            self.profile = reading.profile
        if reading.screen == "board" and reading.sure:
            self.ticking = reading.ticking
        if self.profile is not None:
            self._share_animations()
            store.remember(self.profile, self.say)  # what play taught it is there for the next game
        return image, reading

    def _learning_pays(self, moving: float, seen_still: float) -> bool:
        """Whether a first frame halfway through this kind's bracket pays (see ANIMATION_MAX)."""
        # (no capture timed yet: nothing to weigh the learning against, so not yet)
        capture_s = self.spent["capture"] / self.captures if self.captures else float("inf")
        return (seen_still - moving) / 2 * self._touches_on_phone(self._kind) > capture_s

    def _touches_on_phone(self, kind: str) -> int:
        """The touches of this kind made on this phone: this link's and earlier games' (the profile's)."""
        return self.touches.get(kind, 0) + self._touched_before.get(kind, 0)

    def _share_animations(self) -> None:
        """Start from the animation times the profile learned in earlier games (a game animates
        alike on one phone), and keep in it what this one learns, with the count of touches."""
        profile = self.profile
        if profile is not self._animations_from:
            self._animations_from = profile
            self._touched_before = dict(profile.touches)
            for kind, times in profile.animations.items():
                self.animation.setdefault(kind, list(times))
        learned = {kind: list(times) for kind, times in self.animation.items() if times[1] is not None}
        if learned != profile.animations:
            profile.animations, profile.changed = learned, True
        touches = {kind: self._touches_on_phone(kind) for kind in learned}
        if touches != profile.touches:  # stored with the next thing learned, or at exit
            profile.touches, profile.counted = touches, True

    def rebuild_profile(self, image, game: str) -> None:
        """Build this phone's profile for the game afresh from a screenshot, and store it."""
        self.profile = store.read(image, self.device.model, game, rebuild=True, note=self.say).profile

    def _touch(self, kind: str) -> None:
        """A tap or swipe of this kind is being sent: the settled screen is stale until captured again."""
        self._touched, self._kind = True, kind
        self.touches[kind] = self.touches.get(kind, 0) + 1

    def tap(self, x: float, y: float) -> None:
        self.tap_all([(x, y)])

    def tap_all(self, points, kind: str = "tap") -> None:
        """Several taps in one shell call. A lost phone is waited for, but the taps are not
        sent again: the screen, read next, tells whether they landed. The call returns once
        the phone has run every `input tap` (each costs a real phone 0.3-0.6 s), so a screen
        captured after it can judge whether they landed. ``kind`` names what the taps make
        the game do (its animation time is learned per kind)."""
        points = list(points)
        self.taps += len(points)
        self._hold_for_animation()
        self._touch(kind)
        start = time.monotonic()
        try:
            self.device.taps(points)
        except (PhoneLost, AdbServerUnreachable):
            self._again(lambda: None)
        self._touched_at = time.monotonic()
        self.spent["tap"] += self._touched_at - start

    def _hold_for_animation(self) -> None:
        """A move judged on an early frame may still be animating: no touch is sent before the
        time it was learned still by (with TOUCH_MARGIN). On a real phone the frame's capture
        alone outlasts a fade, so this waits only on a phone that answers at once."""
        self._sleep(self._animating_until + TOUCH_MARGIN - time.monotonic())
        self._animating_until = 0.0

    def swipe(self, x1, y1, x2, y2, ms: int = 400) -> None:
        self.swipes += 1
        self._hold_for_animation()
        self._touch("swipe")
        start = time.monotonic()
        self._again(lambda: self.device.swipe(x1, y1, x2, y2, ms))
        self._touched_at = time.monotonic()
        self.spent["swipe"] += self._touched_at - start
