"""How long the game animates after each kind of touch on this phone, learned from settled
captures, and when to take a frame: the first after a touch, or one early in a move's fade."""

from __future__ import annotations

import cv2
import numpy as np

from assistant.settle import PIXEL_NOISE

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
# A move that changes parts of the screen in place (a pair fading) is judged on its first frame
# that shows it: frames are taken from the touch on (on video each new one, a frame within one of
# the move's first change; by screencap, which costs more than a fade, first at EARLY_PART of the
# time its kind was learned still by, then every EARLY_POLL) until one shows each part changing as
# a fade does and nothing else changed, or shows something else, or EARLY_LATEST of that time has
# passed with nothing seen (then the time is taken to be wrong, a stored one learned with faster
# animations, and learned again, once; or the taps were lost): the move is then judged after its
# animation. A kind whose early frames showed something else EARLY_MISSES times in a row (a game
# that draws more than a fade as a pair goes) is judged after its animation, as before.
EARLY_PART = 1 / 4
EARLY_POLL = 0.05
EARLY_LATEST = 0.9
EARLY_MISSES = 3
# A move judged early holds the next touch until its kind's still time, which only a settled
# capture narrows: one touch in EARLY_PROBE_EVERY of a kind judged early is judged settled
# instead, while narrowing pays and the gap is wider than the margin the touch waits anyway.
# Else a time learned again from one late frame (a touch the phone took late) would hold every
# later touch that much too long, in every later game. Narrowing pays when half the gap, over
# the touches of the kind on this phone that it would speed, outweighs what the probe itself
# costs: the kind's whole time and a capture, where its first frame would have judged it. It
# speeds only a touch that waits for the kind's animation to end (``held``): in pipelined play
# a pair's next pair, elsewhere on the board, waits for nothing, a row's collapse holds the
# cells below it; so of the kind's touches on the phone, the share that held one in this link.
EARLY_PROBE_EVERY = 8
# A fade, inside a part: the pixels at least MARK_CONTRAST from the part's ground (its median
# colour) are its marks (a digit). The ground stays as it was (but within MARK_HALO pixels of a
# mark: anti-aliasing), no mark gains contrast, and at least FADING_MARKS of them lose some.
MARK_CONTRAST = 60
MARK_HALO = 2
FADING_MARKS = 0.5
# A fade's first frame, as its ease-in begins, takes a few levels off every mark at once, less
# than one pixel's noise (PIXEL_NOISE): at least FAINT_MARKS of the marks losing more than
# FAINT_LOSS levels tell it (``faint``), where a still part's compressed frames show that on 2 %
# of them at most, and an encoder's blur takes contrast from a stroke's edges, not its core.
# Measured on phonesim's real profile (H.264, 30 fps, a 0.25 s eased fade): of 22 pairs, 13 had
# a first frame after their taps that PIXEL_NOISE alone refused; it showed 52-99 % of the marks
# losing over 3 levels (11 of them over 83 %), a still live cell 0-2 %: judged on it, a pair goes
# a frame (33 ms) sooner.
FAINT_LOSS = 3
FAINT_MARKS = 0.8
# A part whose whole picture moves (a tile sliding, a card swapping) is seen on its way once at
# least MOVED_PIXELS of its pixels changed: a tile or card on its way changes a band of its box
# at once; a compressed video frame's noise, scattered pixels.
MOVED_PIXELS = 0.05


def part_change(before, after, part, faint: bool = False) -> str:
    """How a part (x0, y0, x1, y1) of the screen changed between two frames: "unchanged" (or
    too little to tell), "fading" (its marks losing contrast on an unchanged ground, as a pair
    crossed out does; see MARK_CONTRAST) or "other" (the ground changed: a highlight, a flash;
    or a mark gained contrast). ``faint``: a fade's first, faint frame counts (FAINT_MARKS),
    for a frame compared with the screen before the touch; not for two frames of a fade that
    may be ending, whose last eased steps are faint too."""
    a, b, changed = part_pixels(before, after, part)
    if changed is None:
        return "other"
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
    loss = contrast_a[marks] - contrast_b[marks]  # (each mark's, in levels)
    if (changed & ~halo).any() or (loss < -PIXEL_NOISE).any():
        return "other"
    fading = ((loss > PIXEL_NOISE).mean() >= FADING_MARKS
              or faint and (loss > FAINT_LOSS).mean() >= FAINT_MARKS)
    return "fading" if fading else "unchanged"


def part_moved(before, after, part) -> str:
    """How a part (x0, y0, x1, y1) of the screen changed between two frames, its whole picture:
    "moving" (a tile or a card on its way: its ground changes as much as its marks; see
    MOVED_PIXELS) or "unchanged" (too little to tell)."""
    changed = part_pixels(before, after, part)[2]
    return "other" if changed is None else "moving" if changed.mean() >= MOVED_PIXELS else "unchanged"


def part_pixels(before, after, part):
    """A part's pixels in two frames (int16) and which of them changed past PIXEL_NOISE (None
    for a part off either frame)."""
    x0, y0, x1, y1 = part
    a = before[y0:y1, x0:x1].astype(np.int16)
    b = after[y0:y1, x0:x1].astype(np.int16)
    if a.size == 0 or a.shape != b.shape:
        return a, b, None
    return a, b, np.abs(a - b).max(axis=2) > PIXEL_NOISE


class AnimationClock:
    """The touches sent and the animation times learned per kind of touch; every time it gives
    is on the caller's clock (``time.monotonic``), which it never reads itself."""

    def __init__(self):
        self.kind = "tap"  # the last touch's kind ...
        self.touched_at: float | None = None  # ... and when it returned (None: the screen settled since)
        # per kind of touch, seconds after it: [latest seen moving, earliest seen still (None: not yet)]
        self.animation: dict[str, list] = {}
        self.touches: dict[str, int] = {}  # taps and swipes sent, per kind
        # per kind, the touches sent (in this link) that waited for an animation of it to end:
        # what narrowing its time would speed up (a pipelined touch elsewhere waits for nothing)
        self._held: dict[str, int] = {}
        # moves judged on an early frame: per kind, the misses in a row; the kinds whose learned
        # time early frames showed wrong; when the last one's animation ends (no touch lands
        # before it); the verdict on the last refused
        self.early_judged = 0
        self._early_misses: dict[str, int] = {}
        self._early_doubted: set[str] = set()
        self._animating_until = 0.0
        self._early_verdict: tuple[str, str, float] | None = None
        self._touched_before: dict[str, int] = {}  # the touches of earlier games on this phone, per kind
        self._unlearned: tuple[str, list] | None = None  # the last touch's kind and its time before it taught it

    # -- touches -------------------------------------------------------------------------------
    def quiet_from(self, margin: float) -> float:
        """When a touch may be sent: after the animation of a move judged early (a real phone's
        capture of the frame alone outlasts a fade: this holds back one that answers at once),
        and ``margin`` more: how far off the channel's times are from when the phone acted
        (``Channel.touch_margin``)."""
        return self._animating_until + margin

    def touch(self, kind: str) -> None:
        """A tap or swipe of this kind is being sent (``touched_at`` is set when it returns)."""
        self.kind, self._animating_until, self._unlearned = kind, 0.0, None
        self.touches[kind] = self.touches.get(kind, 0) + 1

    def held(self, kind: str) -> None:
        """A touch waited for the animation of a move of this kind, judged early, to end."""
        self._held[kind] = self._held.get(kind, 0) + 1

    def settled(self) -> None:
        """The screen was seen (or taken to be) still since the last touch."""
        self.touched_at = None

    # -- the first frame after a touch -------------------------------------------------------
    def learned(self) -> tuple[float, float | None]:
        """The last touch's kind as learned: (latest seen moving, earliest seen still or None)."""
        return tuple(self.animation.get(self.kind, (0.0, None)))  # (stored as a list)

    def timed(self, last: bool = False) -> tuple[float, float | None]:
        """``learned``; for the ``last`` touch (none follows it, so its end matters to nothing)
        of a kind not timed yet, the time of the kind it begins as ("A, B" begins as "A": a pair
        that clears the board fades as a pair does), which times its first frames."""
        moving, seen_still = self.learned()
        if seen_still is None and last and "," in self.kind:
            return tuple(self.animation.get(self.kind.split(",")[0], (0.0, None)))
        return moving, seen_still

    def seen_still_by(self, at: float) -> bool:
        """Whether a frame asked for at ``at`` comes after the time this kind of touch's
        animation was learned still by (so no animation easing in can still be unseen)."""
        seen_still = self.learned()[1]
        return seen_still is not None and at - self.touched_at >= seen_still

    def first_frame(self, capture_s: float) -> tuple[float, bool] | None:
        """When to ask for the first frame after the last touch, and whether it narrows this
        kind's time: halfway through its bracket where that pays (a capture costing
        ``capture_s``), else once it was seen still; None with no touch since the screen
        settled or no time learned for its kind."""
        moving, seen_still = self.learned()
        if self.touched_at is None or seen_still is None:
            return None
        # while half the gap, over the touches of this kind on this phone, outweighs a capture
        narrowing = (seen_still - moving) / 2 * self.touches_on_phone(self.kind) > capture_s
        return self.touched_at + ((moving + seen_still) / 2 if narrowing else seen_still), narrowing

    def touches_on_phone(self, kind: str) -> int:
        """The touches of this kind made on this phone: this link's and earlier games' (the profile's)."""
        return self.touches.get(kind, 0) + self._touched_before.get(kind, 0)

    def learn(self, times: list[float]) -> None:
        """A settled capture after the last touch, whose frames were asked for at ``times``:
        the last two showed the still screen, so it was still by the first of them, and moving
        at the frame before (learned only from a touch that changed the screen: a lost tap shows
        no animation's end)."""
        bracket = self.animation.setdefault(self.kind, [0.0, None])
        self._unlearned = self.kind, list(bracket)
        seen = min(ANIMATION_MAX, times[-2] - self.touched_at)
        moved = min(ANIMATION_MAX, times[-3] - self.touched_at) if len(times) > 2 else None
        if moved is not None and bracket[1] is not None and moved >= bracket[1] - CLOCK_SLACK:
            # still moving after the time it was learned still by: another phone's speed, an
            # update of the game, or a touch the phone acted on late (a busy phone, a lost tap's
            # partner). Learned again, still by this capture's time, but from the latest time
            # seen moving before: this one, taken as the bound, would stay for good when late
            # (every later first frame is asked for past it, so none could bring it down)
            bracket[1] = seen
        else:
            bracket[1] = seen if bracket[1] is None else min(bracket[1], seen)
            if moved is not None:
                bracket[0] = max(bracket[0], min(moved, bracket[1]))
        # never moving after it was seen still: a time forgotten (``early_result``) keeps the
        # frame seen moving, and a settle as short as two frames may then see it still sooner
        bracket[0] = min(bracket[0], bracket[1])

    def unlearn(self) -> None:
        """The last touch's taps were not all taken as sent (lost, or part of them: a cell left
        selected): what its settled capture taught its kind is undone. Its frames timed another
        thing (a highlight's short animation, a partner tap acting late), and a game with lost
        taps would otherwise leave its times wrong for the next."""
        if self._unlearned is not None:
            kind, bracket = self._unlearned
            self.animation[kind] = bracket
            self._unlearned = None

    # -- an early frame ----------------------------------------------------------------------
    def early_window(self, capture_s: float, margin: float, video: bool, last: bool = False) -> tuple[float, float] | None:
        """When to take the first frame early in the last touch's animation (on ``video``: at
        once, the channel's own latency apart; else at EARLY_PART of its kind's time), and the
        last time one may be taken (EARLY_LATEST of it); None when none pays (no touch since the
        screen settled, no time learned, too many misses) or this touch is a probe that narrows
        the kind's time (EARLY_PROBE_EVERY; a capture costing ``capture_s``, a touch waiting
        ``margin`` past the time: see ``quiet_from``). ``last``: no touch follows (``timed``),
        so none waits on a time a probe would narrow."""
        kind = self.kind
        moving, seen_still = self.timed(last)
        # (timed as the kind it begins as: that kind's misses count too)
        misses = max(self._early_misses.get(kind, 0), self._early_misses.get(kind.split(",")[0], 0) if last else 0)
        self._early_verdict = None
        if self.touched_at is None or seen_still is None or misses >= EARLY_MISSES:
            return None
        # (a probe narrows the time a next touch waits: the last touch has none; the share of
        # this kind's touches that held the next one says how many later ones it would speed)
        touches = self.touches.get(kind, 0)
        holding = self._held.get(kind, 0) / max(1, touches)
        if (not last and touches % EARLY_PROBE_EVERY == 0 and seen_still - moving > margin
                and (seen_still - moving) / 2 * holding * self.touches_on_phone(kind) > seen_still + capture_s):
            return None
        first = self.touched_at + (0.0 if video else seen_still * EARLY_PART)
        return first, self.touched_at + seen_still * EARLY_LATEST

    def judge_early(self, verdicts: set[str], at: float, shows: str = "fading", last: bool = False) -> bool:
        """Whether the last early frame, asked for at ``at``, whose parts changed as ``verdicts``
        say (``part_change`` or ``part_moved``, "other" for a change elsewhere, "late" for a fade
        still under way past the kind's time), judges the move: every part as it ``shows``
        ("fading", "moving"). Then the move's animation is taken as under way until its time
        (``quiet_from``)."""
        kind = self.kind
        if verdicts != {shows}:
            # (nothing yet, or still changing past the kind's time: "late", both show it wrong)
            self._early_verdict = kind, "other" if "other" in verdicts else "too soon", at - self.touched_at
            return False
        self.early_judged += 1
        self._early_misses[kind] = 0
        self._animating_until = self.touched_at + self.timed(last)[1]
        self.touched_at = None
        return True

    def early_result(self, made: bool) -> None:
        """How the move whose early frames were refused turned out: ``made`` (judged after its
        animation) means they missed it. Frames that showed nothing of a move made until
        EARLY_LATEST of its kind's time, or a fade still under way past it, show that time wrong (learned on this phone with its
        animations off or faster, say): it is forgotten, once, to be learned again by the next
        settled capture; if the time learned again does the same, or the frames showed
        something else, that counts a miss (EARLY_MISSES)."""
        if self._early_verdict is None or not made:
            return
        kind, verdict, after = self._early_verdict
        self._early_verdict = None
        if verdict == "too soon" and kind not in self._early_doubted:
            self._early_doubted.add(kind)
            self.animation[kind][:] = [min(after, ANIMATION_MAX), None]
        else:
            self._early_misses[kind] = self._early_misses.get(kind, 0) + 1

    # -- what the profile keeps ------------------------------------------------------------
    def start_from(self, animations: dict, touches: dict) -> None:
        """Start from the animation times and touch counts a profile kept from earlier games on
        this phone and channel (a game animates alike on one phone)."""
        self._touched_before = dict(touches)
        for kind, times in animations.items():
            self.animation.setdefault(kind, list(times))

    def forget(self) -> None:
        """Drop every time learned and touch counted: they were another channel's (a video
        frame's time is not a screencap's, nor a touch handed over one run before returning)."""
        self.animation, self.touches, self._touched_before, self._held = {}, {}, {}, {}
        self.early_part, self._early_misses, self._early_doubted = {}, {}, set()
        self._unlearned = None

    def known(self) -> tuple[dict[str, list], dict[str, int]]:
        """What a profile keeps, as values: each kind's time learned still by, as
        [latest seen moving, earliest seen still], and the touches of those kinds on this phone."""
        learned = {kind: list(times) for kind, times in self.animation.items() if times[1] is not None}
        return learned, {kind: self.touches_on_phone(kind) for kind in learned}
