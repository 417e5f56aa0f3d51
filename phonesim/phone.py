"""The virtual phone's body: a device preset, the app on its screen, and the faults it fakes.

The ADB side (``phonesim.adb``) talks only to a ``Phone``: it asks for the screen, the
properties and sizes, and passes on taps, swipes and key events. The apps draw and play the
games; the phone adds the status bar's device, the latency and dropped taps, the secure
window, and a dialog popping up over the game (``phonesim.apps.dialog``).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class Preset:
    """A device model: its screen in pixels, its density, its names and its font."""

    name: str
    width: int
    height: int
    density: int
    model: str
    product: str
    device: str
    font: str  # a family phonesim.apps draws text with: "roboto" or "dejavu"
    status_bar: int  # height of the status bar in pixels
    # the Number Match build it runs: "current" (2026: coins, Numbers Cleared, best score) or
    # "2022" (an older build: a "Number Match" title bar, the score under a trophy, no best score)
    style: str = "current"


PRESETS = {
    p.name: p for p in (
        Preset("720x1600", 720, 1600, 320, "Galaxy A12", "a12nsxx", "a12", "roboto", 48),
        Preset("1080x2400", 1080, 2400, 420, "Pixel 7", "panther", "panther", "roboto", 72),
        Preset("1440x3200", 1440, 3200, 560, "Galaxy S21 Ultra", "p3sxx", "p3s", "dejavu", 96),
        Preset("tablet-1600x2560", 1600, 2560, 320, "Galaxy Tab S7", "gts7lwifi", "gts7l", "dejavu", 64),
        Preset("1080x2340-2022", 1080, 2340, 400, "Redmi Note 10 Pro", "sweet_eea", "sweet", "roboto", 66,
               style="2022"),
    )
}
DEFAULT_PRESET = "1080x2400"
BACK_KEYS = {"4", "KEYCODE_BACK", "BACK"}  # `input keyevent` names of Android's Back key


class App(Protocol):
    """What a game app on the virtual phone offers (phonesim.apps implements it)."""

    def render(self) -> np.ndarray:
        """The app's full screen (status bar included) as an H x W x 3 uint8 RGB image."""

    def tap(self, x: int, y: int) -> None: ...

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int) -> None: ...

    def keyevent(self, key: str) -> None: ...

    def truth(self) -> dict:
        """Ground truth of what is on screen (the fixtures' JSON)."""


@dataclass
class Faults:
    """Faults on request, for testing the assistant's checks."""

    tap_latency: float = 0.0  # seconds each `input tap` takes, like a real phone (~0.2)
    drop_taps: float = 0.0  # probability that a tap is lost
    secure: bool = False  # a secure window: screencap is all black
    seed: int = 0
    dialog_after: int = 0  # a "Rate us!" dialog over the board after this many moves (0: never)
    dialog_between_stages: bool = False  # the dialog over each new stage's board


@dataclass
class Phone:
    """A virtual phone: preset + app + faults. Thread-safe: every ADB stream may call it."""

    preset: Preset
    app: App
    faults: Faults = field(default_factory=Faults)
    serial: str = "phonesim"
    taps_dropped: int = 0
    taps_done: int = 0
    dialog: object | None = None  # the phonesim.apps.dialog.Dialog up on screen, if any
    dialogs_shown: int = 0
    taps_blocked: int = 0  # taps (and swipes) that met the dialog off its button: nothing happened
    moves: int = 0  # taps (landed) that changed the game's position

    def __post_init__(self):
        self._lock = threading.RLock()
        self._random = random.Random(self.faults.seed)
        self._seen = self._position()

    def _position(self):
        """What a move changes: the board or cards, and the screen (a new stage)."""
        truth = self.app.truth()
        return truth.get("board", truth.get("state")), truth.get("screen")

    def show_dialog(self) -> None:
        """Pop the dialog up over whatever the app shows."""
        from phonesim.apps.dialog import Dialog

        p = self.preset
        self.dialog = Dialog(p.width, p.height, getattr(getattr(self.app, "theme", None), "name", "light"), p.font)
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

    @property
    def size(self) -> tuple[int, int]:
        return self.preset.width, self.preset.height

    def properties(self) -> dict[str, str]:
        p = self.preset
        return {
            "ro.product.model": p.model, "ro.product.name": p.product, "ro.product.device": p.device,
            "ro.product.manufacturer": "phonesim", "ro.build.version.release": "14",
            "ro.build.version.sdk": "34", "ro.serialno": self.serial, "ro.sf.lcd_density": str(p.density),
        }

    def screen(self) -> np.ndarray:
        """The screen as RGB, or all black behind a secure window."""
        if self.faults.secure:
            return np.zeros((self.preset.height, self.preset.width, 3), np.uint8)
        with self._lock:
            screen = self.app.render()
            return screen if self.dialog is None else self.dialog.draw(screen)

    def _lost(self) -> bool:
        if self.faults.tap_latency:
            time.sleep(self.faults.tap_latency)
        return self.faults.drop_taps > 0 and self._random.random() < self.faults.drop_taps

    def tap(self, x: int, y: int) -> None:
        if self._lost():
            self.taps_dropped += 1
            return
        with self._lock:
            self.taps_done += 1
            if self.dialog is not None:  # the dialog takes every tap: its button closes it
                if self.dialog.closes(x, y):
                    self.dialog = None
                else:
                    self.taps_blocked += 1
                return
            self.app.tap(x, y)
            self._after_tap()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        if self._lost():
            return
        with self._lock:
            if self.dialog is not None:
                self.taps_blocked += 1
                return
            self.app.swipe(x1, y1, x2, y2, ms)

    def keyevent(self, key: str) -> None:
        with self._lock:
            if self.dialog is not None and str(key).upper() in BACK_KEYS:
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
            return truth
