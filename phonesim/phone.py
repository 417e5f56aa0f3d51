"""The virtual phone's body: a device preset, the app on its screen, and the faults it fakes.

The ADB side (``phonesim.adb``) talks only to a ``Phone``: it asks for the screen, the
properties and sizes, and passes on taps, swipes and key events. The apps draw and play the
games; the phone adds the status bar's device, the latency and dropped taps, the secure
window, what every command costs under a realism profile (``REALISM``), the tap log that
counts wrong taps and taps off the game, a dialog popping up over the game
(``phonesim.apps.dialog``), and the activities in front of it as Android stacks them: the ads
the game starts, the store, the home screen, another app, the lock screen
(``phonesim.apps.others``; HOME, BACK, POWER and `monkey`/`am start` move between them).
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field, replace

import numpy as np

# the apps' side of the phone lives below it (every app imports it; the phone imports the apps)
from phonesim.app import (OUTSIDE_TAPS, PRESETS, RIGHT_TAPS, TAP_TARGETS, UNJUDGED_TAPS, App, Preset,  # noqa: F401
                          inside)


BACK_KEYS = {"4", "KEYCODE_BACK", "BACK"}  # `input keyevent` names of Android's Back key


@dataclass(frozen=True)
class Realism:
    """What the phone's commands cost and how its apps animate: a named profile.

    Costs are seconds, drawn per command from the phone's seeded random stream, and slept for
    real (times ``scale``, which shrinks every cost and animation alike, for short tests)."""

    name: str
    tap: tuple[float, float] = (0.0, 0.0)  # `input tap` (also the start cost of a swipe, a key)
    png: tuple[float, float] = (0.0, 0.0)  # `screencap -p` at 1080x2400, encoding included
    raw_start: float = 0.0  # plain `screencap` before its bytes flow
    usb_bytes_per_s: float = 0.0  # the cable's rate for raw screencap's bytes (0: unbounded)
    slow_frame: float = 0.0  # probability that a capture stalls ...
    slow_frame_s: tuple[float, float] = (0.0, 0.0)  # ... this much longer
    fling_speed: float = 0.0  # px/ms: a swipe faster than this flings on (0: never flings)
    fling_ms: float = 0.0  # ms the board keeps its release speed for, past the finger's end
    timed_swipes: bool = False  # a swipe takes its duration (the fast profile answers at once)
    shell_call: tuple[float, float] = (0.0, 0.0)  # a one-shot `adb shell` call's start, before its `input` runs
    by_android: bool = False  # `input`'s cost follows the phone's Android version (for_android)
    # the apps' animations, seconds (each app's ANIMATIONS says what each looks like)
    animations: tuple[tuple[str, float], ...] = ()
    banner: bool = False  # a banner ad strip under the board
    scale: float = 1.0

    def scaled(self, scale: float) -> "Realism":
        return replace(self, scale=scale)

    def for_android(self, version: str) -> "Realism":
        """The profile on a phone of this Android version: `input` with or without a JVM."""
        if not self.by_android:
            return self
        return replace(self, tap=INPUT_JVM_S if ANDROID[version].jvm_input else CMD_INPUT_S, shell_call=SHELL_CALL_S)

    def durations(self) -> dict[str, float]:
        """The apps' animation lengths, scaled."""
        return {name: seconds * self.scale for name, seconds in self.animations}


# Sources of the "real" figures (a mid-range phone over USB 2). The ranges are DESIGN.md's
# ("What a real phone costs", gathered from ALAS, MAA and uiautomator2), checked against:
# - `input tap` starts a Java VM per call (Genymobile/scrcpy issue #231); 300-400 ms measured
#   on a phone (quamotion/madb issue #56): 0.3-0.6 s.
# - `screencap -p`: "0.3 to 0.5 seconds" even on an accelerated emulator (Appium Pro, edition
#   83); 0.66-3 s at 1440x3120 (elliotgao2.github.io/handsets, "Why adb screencap is slow"):
#   0.3-0.55 s at 1080x2400, and now and then (SLOW_FRAME, our guess) a frame 1-2 s late. The
#   encoding's time grows with the pixels, so a larger screen costs that much more (PNG_PIXELS);
#   a smaller one no less, as it comes on a cheaper phone with a slower processor.
# - raw `screencap` is bound by moving its ~10 MB (1080x2400x4) over the cable: 17.5 MB took
#   ~675 ms (the same handsets page), about 26 MB/s.
# - a swipe's start costs a tap's Java VM, then the finger moves for its duration. A list
#   released at speed flings on; the threshold and the carry (FLING_*) are our choice, above the
#   1 px/ms that Number Match's scroller (assistant.games.numbermatch.scroll) drags at so that its swipes stop with the finger.
# - the animations' lengths are issue 11's (~0.25 s fade, ~0.3 s collapse, ~0.5 s add); the
#   highlight's 0.12 s and the stage-complete slide's 0.4 s are our guesses, and so is the
#   15-puzzle tile's glide: 0.2 s, Android's standard short animation (config_shortAnimTime).
#   A Flip 9 swap takes CLS-CLS/Flip9's 0.4 s (ui/animation/SwapAnimation.java: Duration.millis(400)).
TAP_S = (0.3, 0.6)
# - a one-shot `adb shell input tap` pays the host's connection, the server forwarding it and
#   adbd forking a shell (scrcpy issue #231, steps 1-4) before `input` runs; a shell kept open
#   pays that once. Our split of the figures: SHELL_CALL_S of each call, the rest `input` itself.
#   On Android 11 and older `input` starts a JVM (TAP_S less the call: INPUT_JVM_S); from 12 it
#   is `cmd input` (FIELD.md: AOSP InputShellCommand.java), no JVM: a one-shot call measured
#   226 ms on a phone (mobile-next/mobilecli PR #412, citing #286), SHELL_CALL_S of it the call,
#   CMD_INPUT_S the command (it still waits for the app to take the event).
SHELL_CALL_S = (0.15, 0.2)
INPUT_JVM_S = (TAP_S[0] - SHELL_CALL_S[0], TAP_S[1] - SHELL_CALL_S[1])
CMD_INPUT_S = (0.03, 0.06)
PNG_S = (0.3, 0.55)
PNG_PIXELS = 1080 * 2400  # the screen PNG_S was measured at
RAW_START_S = 0.15
USB_BYTES_PER_S = 26e6
SLOW_FRAME = 0.03
SLOW_FRAME_S = (1.0, 2.0)
FLING_SPEED = 1.5
FLING_MS = 100.0
REAL_ANIMATIONS = (("select", 0.12), ("fade", 0.25), ("collapse", 0.3), ("add", 0.5), ("slide", 0.4), ("tile", 0.2),
                   ("swap", 0.4))

# the animations of a move a game may ignore taps during (Faults.ignore_taps_while)
MOVE_ANIMATIONS = ("fade", "collapse", "tile", "swap")

REALISM = {
    "fast": Realism("fast"),
    "real": Realism("real", tap=TAP_S, png=PNG_S, raw_start=RAW_START_S, usb_bytes_per_s=USB_BYTES_PER_S,
                    slow_frame=SLOW_FRAME, slow_frame_s=SLOW_FRAME_S, fling_speed=FLING_SPEED,
                    fling_ms=FLING_MS, timed_swipes=True, animations=REAL_ANIMATIONS, banner=True,
                    by_android=True),
}


@dataclass(frozen=True)
class Android:
    """An Android version as the phone reports it (`getprop`) and what it changes for tapsolve."""

    release: str  # ro.build.version.release
    sdk: int  # ro.build.version.sdk
    jvm_input: bool  # `input` starts a JVM per call (Android 11 and older; 12+ is `cmd input`)


# 4.4 is the "old phone": scrcpy's server needs Android 5.0, API 21 (scrcpy README, "Prerequisites")
ANDROID = {"4.4": Android("4.4", 19, True), "11": Android("11", 30, True), "14": Android("14", 34, False)}
DEFAULT_ANDROID = "14"
DEFAULT_REALISM = "fast"


@dataclass(frozen=True)
class Tap:
    """One tap in the phone's log: when (monotonic seconds), where, and what it landed on."""

    t: float
    x: int
    y: int
    target: str

    @property
    def wrong(self) -> bool:
        return self.target not in RIGHT_TAPS | UNJUDGED_TAPS


@dataclass
class Faults:
    """Faults on request, for testing the assistant's checks."""

    tap_latency: float = 0.0  # seconds each `input tap` takes, like a real phone (~0.2)
    drop_taps: float = 0.0  # probability that a tap is lost
    secure: bool = False  # a secure window: screencap is all black
    seed: int = 0
    dialog_after: int = 0  # a "Rate us!" dialog over the board after this many moves (0: never)
    dialog_between_stages: bool = False  # the dialog over each new stage's board
    dialog_dismiss: str = "Not now"  # the dialog's second button, that only closes it ("": none)
    # injected input refused, as on Xiaomi's MIUI until "USB debugging (Security settings)" is on
    refuse_input: bool = False
    # a game that ignores every tap while a move animates, as some do (issue 40): "" (none),
    # "fade" (a pair crossed out), "collapse" (its emptied rows going), "tile" (a 15-puzzle
    # tile gliding), "swap" (two Flip 9 cards: CLS-CLS/Flip9's ApplicationMouseHandler.swapCards)
    # or "both" (every one of them)
    ignore_taps_while: str = ""


@dataclass
class Phone:
    """A virtual phone: preset + app + faults. Thread-safe: every ADB stream may call it."""

    preset: Preset
    app: App
    faults: Faults = field(default_factory=Faults)
    realism: Realism = REALISM[DEFAULT_REALISM]
    serial: str = "phonesim"
    taps_dropped: int = 0
    taps_done: int = 0
    dialog: object | None = None  # the phonesim.apps.dialog.Dialog up on screen, if any
    dialogs_shown: int = 0
    taps_blocked: int = 0  # taps (and swipes) that met the dialog off its button: nothing happened
    moves: int = 0  # taps (landed) that changed the game's position
    awake: bool = True  # the screen is on (`input keyevent POWER` turns it off and locks)
    locked: bool = False  # the lock screen shows (a swipe up, or MENU, unlocks: no PIN)
    ads_shown: int = 0
    clock: object = time.monotonic  # the ads' countdowns run on it (tests may set their own)
    android: str = DEFAULT_ANDROID  # a key of ANDROID
    # the display turned a quarter from the game's orientation (a landscape ad, a rotation): the
    # screen is shown sideways at height x width, and touches come in that turned space
    turned: bool = False
    # the kernel's id of this boot (/proc/sys/kernel/random/boot_id, a random UUID each boot:
    # Linux drivers/char/random.c, proc_do_uuid): the same under every serial the phone is reached by
    boot_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def __post_init__(self):
        self.android = self.preset.android or self.android  # a preset's own Android wins over the option
        self.realism = self.realism.for_android(self.android)
        self._lock = threading.RLock()
        self._random = random.Random(self.faults.seed)
        # costs draw from their own stream, so a profile does not change which taps are dropped
        self._costs = random.Random(f"realism:{self.faults.seed}")
        self._costs_lock = threading.Lock()
        self.tap_log: list[Tap] = []
        self.capture_log: list[tuple[float, str | None]] = []
        self.last_motion: str | None = None  # the animation the last screen() caught
        # seconds charged per kind of command ("tap", "swipe", "capture"), as slept (scaled), and
        # per video frame sent ("video": its latency, phonesim.scrcpy)
        self.charged: dict[str, list[float]] = {"tap": [], "swipe": [], "capture": [], "video": []}
        self._animated_before = 0.0  # the app's animation seconds before the log was cleared
        self.app.animate(self.realism.durations(), banner=self.realism.banner)
        self._seen = self._position()
        # the tasks, the front one last, each its activities bottom to top: the game's task
        # (the game, an ad over it), then the store, the home screen, another app as opened
        self.tasks: list[list] = [[self.app]]
        from phonesim.apps import others  # (it imports phonesim.apps, which imports this module)

        self._others = others
        self.lockscreen = others.LockScreen(self.preset)

    # -- what commands cost ------------------------------------------------------------------
    def _draw(self, span: tuple[float, float]) -> float:
        with self._costs_lock:
            return self._costs.uniform(*span) if span[1] > 0 else 0.0

    def _charge(self, kind: str, seconds: float, spent: float = 0.0) -> None:
        """Note a command's cost (``seconds`` of the profile, scaled) and sleep what of it is
        not already ``spent``."""
        cost = seconds * self.realism.scale
        with self._costs_lock:
            self.charged[kind].append(cost)
        if cost - spent > 0:
            time.sleep(cost - spent)

    def charge_shell_call(self) -> None:
        """A one-shot shell call that runs `input` started: what a kept-open shell saves."""
        self._charge("tap", self._draw(self.realism.shell_call))

    def capture_cost(self, nbytes: int, as_png: bool) -> float:
        """What one screencap costs under the profile (drawn now): PNG encoding (by the screen's
        pixels) or the cable (by the bytes)."""
        r = self.realism
        if as_png:
            cost = self._draw(r.png) * max(1.0, self.preset.width * self.preset.height / PNG_PIXELS)
        else:
            cost = (r.raw_start + nbytes / r.usb_bytes_per_s) if r.usb_bytes_per_s else 0.0
        with self._costs_lock:
            stalls = r.slow_frame > 0 and self._costs.random() < r.slow_frame
        return cost + (self._draw(r.slow_frame_s) if stalls else 0.0)

    def charge_frame(self, latency: float) -> None:
        """A video frame was sent ``latency`` seconds (scaled) after its capture (the channel sleeps it)."""
        with self._costs_lock:
            self.charged["video"].append(latency)

    def charge_capture(self, nbytes: int, as_png: bool, spent: float) -> None:
        """A screencap of ``nbytes`` was made in ``spent`` seconds: wait out the rest of its cost."""
        self._charge("capture", self.capture_cost(nbytes, as_png), spent)

    def clear_log(self) -> None:
        """Forget the taps and charges so far (a run's counts start here)."""
        with self._costs_lock:
            self.tap_log.clear()
            self.capture_log.clear()
            for charges in self.charged.values():
                charges.clear()
            self._animated_before = self.app.animated_s

    @property
    def wrong_taps(self) -> int:
        with self._costs_lock:
            return sum(tap.wrong for tap in self.tap_log)

    @property
    def ad_taps(self) -> int:
        """Taps that landed off the game: on an ad, another app, the lock screen."""
        with self._costs_lock:
            return sum(tap.target in OUTSIDE_TAPS for tap in self.tap_log)

    # -- the activities --------------------------------------------------------------------
    def front(self):
        """The activity in front: the app, or another (phonesim.apps.others.Screen)."""
        return self.tasks[-1][-1]

    def to_front(self, package: str) -> bool:
        """Bring the task of ``package`` to the front as it was left (an ad over the game stays
        over it), or start the app when none runs: what `monkey -p` and `am start` do. False
        for a package the phone does not have."""
        with self._lock:
            task = next((t for t in self.tasks if t[0].package == package), None)
            if task is None:
                if package not in self._others.APPS:
                    return False
                task = [self._others.APPS[package](self.preset)]
            else:
                self.tasks.remove(task)
            self.tasks.append(task)
            return True

    def _finish(self, activity) -> None:
        """``activity`` closes: the one under it (or the task behind) comes to the front."""
        for task in self.tasks:
            if activity in task:
                task.remove(activity)
        self.tasks = [t for t in self.tasks if t]

    def _start_ad(self, ad: dict) -> None:
        """The app starts an interstitial: an activity of the next ad SDK in the game's task."""
        self.ads_shown += 1
        sdks = self._others.AD_ACTIVITIES
        activity = sdks[(self.ads_shown - 1) % len(sdks)]
        task = next(t for t in self.tasks if t[0] is self.app)
        ad = dict(ad, seconds=ad.get("seconds", 5.0) * self.realism.scale)  # a countdown scales as time does
        task.append(self._others.Interstitial(self.preset, self.app.package, activity, shown_at=self.clock(), **ad))

    def floor_s(self, moves: int, screencaps: bool = True) -> float:
        """The phone's own unavoidable costs of a run: every command charged (taps, swipes, and
        whatever else a channel charges), plus one look per move at the run's mean charge for
        one: a screencap's, or (``screencaps`` False: the run looked by video) a frame's latency."""
        with self._costs_lock:
            looks = self.charged["capture" if screencaps else "video"]
            mean = sum(looks) / len(looks) if looks else 0.0
            return sum(sum(costs) for kind, costs in self.charged.items()
                       if kind not in ("capture", "video")) + moves * mean

    def animation_s(self) -> float:
        """The length of every animation the app played for a move (and the slide to the
        stage-complete screen) since it started: what a judged frame waits out beyond the floor."""
        return self.app.animated_s - self._animated_before

    def _position(self):
        """What a move changes: the board or cards, and the screen (a new stage)."""
        truth = self.app.truth()
        return truth.get("board", truth.get("state")), truth.get("screen")

    def show_dialog(self) -> None:
        """Pop the dialog up over whatever the app shows."""
        from phonesim.apps.dialog import Dialog

        p = self.preset
        self.dialog = Dialog(p.width, p.height, self.app.theme.name if self.app.theme else "light", p.font,
                             dismiss=self.faults.dialog_dismiss)
        self.dialogs_shown += 1

    def _after_tap(self) -> None:
        """Count moves and raise the dialog when a fault asks for it."""
        before, self._seen = self._seen, self._position()
        (position, screen), (old_position, old_screen) = self._seen, before
        f = self.faults
        if screen == "board" and old_screen == "board" and position != old_position:
            self.moves += 1
            if f.dialog_after and self.moves == f.dialog_after:
                self.show_dialog()
        elif f.dialog_between_stages and screen == "board" and old_screen != "board":
            self.show_dialog()
        ad = self.app.take_ad()
        if ad is not None:
            self._start_ad(ad)

    def properties(self) -> dict[str, str]:
        p = self.preset
        return {
            "ro.product.model": p.model, "ro.product.name": p.product, "ro.product.device": p.device,
            "ro.product.manufacturer": p.maker,
            "ro.build.version.release": ANDROID[self.android].release, "ro.build.version.sdk": str(ANDROID[self.android].sdk), "ro.serialno": self.serial, "ro.sf.lcd_density": str(p.density),
        }

    def screen(self, log: bool = True) -> np.ndarray:
        """The screen as RGB, or all black behind a secure window. Each frame is logged with the
        animation it caught (``capture_log``: (monotonic time, animation name or None)), unless
        ``log`` is off (a video stream's looks, phonesim.scrcpy)."""
        if self.faults.secure or not self.awake:
            self.last_motion = None
            width, height = self.screen_size()
            return np.zeros((height, width, 3), np.uint8)
        with self._lock:
            top, motion = self.front(), None
            if self.locked:
                frame = self.lockscreen.render()
            elif top is not self.app:
                frame = top.render(self.clock())
            else:
                motion = self.app.motion()
                frame = self.app.render()
                if self.dialog is not None:
                    frame = self.dialog.draw(frame)
            self.last_motion = motion  # (read under the lock by a video stream, with its frame)
            if self.turned:
                frame = np.ascontiguousarray(np.rot90(frame))
        if log:
            with self._costs_lock:
                self.capture_log.append((time.monotonic(), motion))
        return frame

    def _lost(self, kind: str = "tap", extra: float = 0.0, cost=None) -> bool:
        """Charge a command's start (a Java VM: the tap cost, or the span ``cost``, plus
        ``extra``), then say whether the phone loses it."""
        self._charge(kind, self._draw(self.realism.tap if cost is None else cost) + extra)
        if self.faults.tap_latency:  # a fault on top of the profile, in plain seconds
            with self._costs_lock:
                self.charged[kind][-1] += self.faults.tap_latency
            time.sleep(self.faults.tap_latency)
        return self.faults.drop_taps > 0 and self._random.random() < self.faults.drop_taps

    def _log(self, x: int, y: int, target: str) -> None:
        with self._costs_lock:
            self.tap_log.append(Tap(time.monotonic(), x, y, target))

    def screen_size(self) -> tuple[int, int]:
        """The screen's (width, height) as shown now: the preset's, swapped while turned."""
        p = self.preset
        return (p.height, p.width) if self.turned else (p.width, p.height)

    def tap(self, x: int, y: int, cost=None) -> None:
        """A tap; ``cost``: the span its start costs instead of `input tap`'s (phonesim.scrcpy)."""
        if self.turned:  # back into the game's orientation (the inverse of screen()'s np.rot90)
            x, y = self.preset.width - 1 - y, x
        if self._lost(cost=cost):
            self.taps_dropped += 1
            self._log(x, y, "dropped")
            return
        with self._lock:
            self.taps_done += 1
            top = self.front()
            if self.locked or not self.awake:
                self._log(x, y, "app")
                return
            if top is not self.app:
                self._log(x, y, top.kind)
                what = top.tap(x, y, self.clock())
                if what == "close":
                    self._finish(top)
                elif what == "store":  # a click-through: the store opens in a task of its own
                    self.tasks.append([self._others.Store(self.preset)])
                return
            if self.dialog is not None:  # the dialog takes every tap: its button closes it
                if self.dialog.closes(x, y):
                    self.dialog = None
                    self._log(x, y, "button")
                else:
                    self.taps_blocked += 1
                    self._log(x, y, "nothing")
                return
            ignoring = self.faults.ignore_taps_while
            motion = self.app.motion() if ignoring else None
            if motion in MOVE_ANIMATIONS and ignoring in ("both", motion):
                self._log(x, y, "ignored")  # (the game took the tap and did nothing with it)
                return
            self._log(x, y, self.app.landed(x, y))
            self.app.tap(x, y)
            self._after_tap()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300, cost=None) -> None:
        # with a ``cost`` (phonesim.scrcpy) the finger's moves already took their time
        timed = self.realism.timed_swipes and cost is None
        if self._lost("swipe", max(ms, 0) / 1000 if timed else 0.0, cost):
            return
        r = self.realism
        distance = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
        if r.fling_speed and ms > 0 and distance / ms > r.fling_speed:
            # released at speed: the board carries on at that speed for fling_ms
            on = r.fling_ms / ms
            x2, y2 = round(x2 + (x2 - x1) * on), round(y2 + (y2 - y1) * on)
        with self._lock:
            if self.locked:
                self.locked = not (self.awake and y1 - y2 > self.preset.height // 4)  # swiped up
                return
            if self.front() is not self.app:
                return
            if self.dialog is not None:
                self.taps_blocked += 1
                return
            self.app.swipe(x1, y1, x2, y2, ms)

    def keyevent(self, key: str, cost=None) -> None:
        self._charge("tap", self._draw(self.realism.tap if cost is None else cost))
        name = str(key).upper()
        with self._lock:
            if name in ("KEYCODE_POWER", "KEYCODE_SLEEP", "KEYCODE_WAKEUP"):
                self.awake = name == "KEYCODE_WAKEUP" or (name == "KEYCODE_POWER" and not self.awake)
                self.locked = self.locked or not self.awake  # off is locked; on shows the lock screen
                return
            if not self.awake or self.locked:
                self.locked = self.locked and not (self.awake and name == "KEYCODE_MENU")  # no PIN
                return
            if name == "KEYCODE_HOME":
                self.to_front(self._others.LAUNCHER[0])
                return
            top = self.front()
            if top is not self.app:
                if name in BACK_KEYS and top.closable(self.clock()):
                    self._finish(top)
                return
            if self.dialog is not None and name in BACK_KEYS:
                self.dialog = None  # Back dismisses a dialog, as on Android
                return
            self.app.keyevent(key)
            self._after_tap()

    def truth(self) -> dict:
        """The app's ground truth of what is on screen (with the dialog over it, if up)."""
        with self._lock:
            truth = self.app.truth()
            if self.dialog is not None:
                truth["dialog"] = self.dialog.truth()
            top = self.front()
            if top is not self.app:
                truth["front"] = top.truth(self.clock())
            if self.locked or not self.awake:
                truth["front"] = dict(self.lockscreen.truth(0.0), awake=self.awake)
            return truth
