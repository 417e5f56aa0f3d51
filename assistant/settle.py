"""Capturing the phone's screen until it is still: two frames alike show no animation under way."""

from __future__ import annotations

import threading

import cv2
import numpy as np

from solver.errors import TapsolveError

# A still screen: two captures at least SETTLE_INTERVAL apart whose compared region differs in at
# most STILL_PIXELS pixels (by more than PIXEL_NOISE in a channel) show no animation under way.
SETTLE_INTERVAL = 0.05
STILL_PIXELS = 16
PIXEL_NOISE = 10
# A game's animations last well under a second; a screen seen changing for longer is not settling.
SETTLE_TIMEOUT = 5.0
# Two captures farther apart than this say nothing of the time between them but that the screen
# changed once: the link stalled (a USB stall froze the adb server, and the video held back came
# in a burst), not a screen moving all along. Such a span counts as this much of changing.
STALL_GAP = 1.0
# After a touch, two equal frames show a still screen only this far apart: an animation that
# eases in (Android's AccelerateInterpolator: the square or the cube of the time) changes a
# digit's shade by less than PIXEL_NOISE over its first tenths of a second. A real phone's
# captures are this far apart anyway; one that answers sooner waits, until the kind of touch
# has been seen still by a time (learned so), after which nothing easing in goes unseen.
STILL_SPAN = 0.3
# The compared region leaves out the status bar (its clock ticks) and the band at the bottom
# where free games show a banner ad (a 50 dp banner is under 1/12 of a phone's height), whose
# pictures may move all the time.
STATUS_BAR_PART = 1 / 20
BANNER_PART = 1 / 12
# A part that changes on its own (a game's timer in its header, before a read has said where it
# is): with nothing sent since, frames that kept changing for TICKING_AFTER seconds, the last
# TICKING_FRAMES changes all inside one box of at most TICKING_AREA of the compared screen, are
# still but for that box (no animation of a game lasts that long, and a video or an ad changes
# far more of the screen; after a touch, a move's animation could look so on a loaded computer,
# and the read's own ticking parts are known by then).
TICKING_AFTER = 1.0
TICKING_FRAMES = 3
TICKING_AREA = 0.06
# the scratch images a thread keeps (``difference``): of a frame's band, a grid's, a cell's
SCRATCH_SHAPES = 12


class _Scratch(threading.local):
    """Each thread's scratch images (``difference``), by role and shape."""

    def __init__(self):
        self.images: dict[tuple, np.ndarray] = {}


_scratch = _Scratch()


class ScreenNotSettling(TapsolveError):
    """The screen kept changing for longer than any animation of the game."""


def difference(a, b) -> np.ndarray:
    """|a - b| of two same-sized uint8 images, per channel: a scratch image of this thread's,
    overwritten by its next difference of that shape (``within_noise`` among them)."""
    # kept per thread and shape: a fresh frame-sized array each comparison cost its page faults
    # (numpy asks the kernel for huge pages on large arrays), 5-10 ms a 1080x2400 frame on a
    # loaded computer against 2-3 for the comparison itself, on every early frame, every
    # settle's look and every repeat the video decodes
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return cv2.absdiff(a, b, dst=_scratch_image("difference", a.shape))


def within_noise(a, b) -> np.ndarray:
    """255 where two same-sized images differ by at most PIXEL_NOISE in every channel, else 0
    (a scratch image, as ``difference``'s)."""
    diff = difference(a, b)
    channels = diff.shape[2] if diff.ndim == 3 else 1
    # (one pass for the three channels at once: splitting them took 11 ms a frame, this 2)
    return cv2.inRange(diff, (0,) * channels, (PIXEL_NOISE,) * channels, dst=_scratch_image("within", diff.shape[:2]))


def _scratch_image(role: str, shape: tuple) -> np.ndarray:
    """This thread's uint8 image of that role and shape, made on first use (SCRATCH_SHAPES kept)."""
    kept = _scratch.images
    key = role, shape
    if key not in kept:
        if len(kept) >= SCRATCH_SHAPES:
            del kept[next(iter(kept))]  # (the one kept longest)
        kept[key] = np.empty(shape, np.uint8)
    return kept[key]


def changed_mask(a, b):
    """255 where two same-sized images differ by more than PIXEL_NOISE in some channel, else 0."""
    return cv2.bitwise_not(within_noise(a, b))


def changed_pixels(a, b) -> int:
    """How many pixels differ by more than PIXEL_NOISE in some channel between two same-sized images."""
    within = within_noise(a, b)
    return within.size - cv2.countNonZero(within)


def changed_box(a, b) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1) around the pixels that differ between two captures where the game
    draws (see still), None when none does."""
    h = a.shape[0]
    y0, y1 = int(h * STATUS_BAR_PART), int(h * (1 - BANNER_PART))
    points = cv2.findNonZero(changed_mask(a[y0:y1], b[y0:y1]))
    if points is None:
        return None
    x, y, w, bh = cv2.boundingRect(points)
    return x, y0 + y, x + w, y0 + y + bh


def ticking_box(boxes: list, shape) -> tuple[int, int, int, int] | None:
    """The one small box the last TICKING_FRAMES changes all fell in (a part changing on its
    own), or None."""
    recent = boxes[-TICKING_FRAMES:]
    if len(recent) < TICKING_FRAMES or any(b is None for b in recent):
        return None
    x0, y0 = min(b[0] for b in recent), min(b[1] for b in recent)
    x1, y1 = max(b[2] for b in recent), max(b[3] for b in recent)
    h, w = shape[:2]
    if (x1 - x0) * (y1 - y0) > TICKING_AREA * w * h * (1 - STATUS_BAR_PART - BANNER_PART):
        return None
    return max(0, x0 - 2), max(0, y0 - 2), min(w, x1 + 2), min(h, y1 + 2)


def still(a: np.ndarray, b: np.ndarray, ticking=()) -> bool:
    """Whether two captures show the same picture where the game draws (see BANNER_PART), but
    for the parts that change on their own (``Reading.ticking``: a clock)."""
    if a.shape != b.shape:
        return False
    h = a.shape[0]
    y0, y1 = int(h * STATUS_BAR_PART), int(h * (1 - BANNER_PART))
    within = within_noise(a[y0:y1], b[y0:y1])
    for x0, top, x1, bottom in ticking:  # (counted within the noise: no copy of the frame)
        within[max(0, top - y0):max(0, bottom - y0), max(0, x0):max(0, x1)] = 255
    return within.size - cv2.countNonZero(within) <= STILL_PIXELS


class Settler:
    """Captures until two frames in a row show the same picture, and keeps the last such screen."""

    def __init__(self, grab, wait_until):
        # grab() -> (image, when it was asked for); wait_until(t): sleep until the clock reads t
        self.grab, self.wait_until = grab, wait_until
        self.timeout = SETTLE_TIMEOUT
        self.screen: np.ndarray | None = None  # the last settled screen
        # the parts of it that moves judged on an early frame changed since (see Link.early)
        self.changed: list[tuple[int, int, int, int]] = []
        self.unsettled = 0  # captures that showed the screen still changing (an animation)
        # the last settle took two frames closer than STILL_SPAN as still on the touch's learned
        # time alone (``seen_still_by``): right only for a move that animated as that kind does
        self.by_time = False

    def settle(self, ticking=(), first=None, touched_at: float | None = None, seen_still_by=None,
               settled_since=None):
        """The still screen and when each frame was asked for (the last two show it still). With
        nothing sent since the settled screen (``touched_at`` None) one frame equal to it does;
        after a touch two equal frames count STILL_SPAN apart, or once ``seen_still_by`` the
        first's time (None: only STILL_SPAN apart), or one frame does that ``settled_since`` its
        time gives a time for: a video that saw the screen change after the touch and then stay
        (``Channel.settled_since``), which stands in the times as the first seen still (with no
        touch, any such repeat: the first look of a game takes one frame).
        ``first``: a frame (image, when asked) taken since the touch."""
        image, at = self.grab()
        if first is not None:
            previous, previous_at = first
            times = [previous_at, at]
        else:
            previous, previous_at = (None if touched_at is not None else self.screen), None
            times = [at]
        moving = 0.0  # seconds the screen was seen changing (see STALL_GAP)
        boxes = []  # where each pair of frames in a row differed
        while True:
            # (with nothing sent since the screen settled, a first look included, the encoder's
            # repeat shows it still just as well: a second frame would be waited for in vain)
            since = settled_since(at) if settled_since is not None else None
            if since is not None:
                # (after a touch, as on a learned time: a pause inside a move would look so too)
                self.by_time = touched_at is not None
                return image, [t for t in times[:-1] if t < since] + [since, at]
            if touched_at is None and previous is not None and not still(previous, image, ticking):
                boxes.append(changed_box(previous, image))
                found = ticking_box(boxes, image.shape) if moving >= TICKING_AFTER else None
                if found is not None:  # a clock ticking where no read has said yet: left out
                    ticking = [*ticking, found]
            if previous is not None and still(previous, image, ticking):
                if (touched_at is None or at - previous_at >= STILL_SPAN
                        or seen_still_by is not None and seen_still_by(previous_at)):
                    self.by_time = touched_at is not None and at - previous_at < STILL_SPAN
                    return image, times
                # too close together to rule out an animation that eases in: a later frame is
                # compared with the same earlier one (and stands in the times for this one); on
                # video, the next frame, which may show the screen settled (``settled_since``)
                if settled_since is None:
                    self.wait_until(previous_at + STILL_SPAN)
                image, at = self.grab()
                times[-1] = at
                continue
            if previous is not None:
                self.unsettled += 1
                # frames are taken when a capture is asked for: the screen changed across this
                # span (not the captures' own time, which a slow phone may stretch by seconds)
                moving += min(at - previous_at, STALL_GAP) if previous_at is not None else 0.0
            if moving > self.timeout:
                raise ScreenNotSettling(
                    f"the phone's screen kept changing for {self.timeout:g} s (an animation "
                    "that does not end, a video ad?): close what moves on the phone and run again")
            self.wait_until(at + SETTLE_INTERVAL)
            previous, previous_at = image, at
            image, at = self.grab()
            times.append(at)

    def settled(self, image) -> None:
        """``image`` is the screen now (settled, or a glance that showed what was predicted)."""
        self.screen, self.changed = image, []
