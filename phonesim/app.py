"""What every app of the virtual phone is, below the phone that runs it: the ``App`` base each
game's app gives, the device ``Preset`` it is drawn for (and ``PRESETS``), and the words for
what a tap lands on. The phone (``phonesim.phone``) imports the apps; the apps import only this."""

from __future__ import annotations

from dataclasses import dataclass

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
    emulator: bool = False  # an emulator's usual screen: played on, left out of fixtures/
    # What a real device does beyond its formats (issue 37); a preset with any is left out of
    # fixtures/ too (its screens are another preset's):
    maker: str = "google"  # ro.product.manufacturer: "samsung" prints its own `dumpsys power` line
    # a second physical display (a flip's or foldable's cover screen), (width, height): `screencap`
    # untold takes the first SurfaceFlinger lists, this one, and warns (cmds/screencap/screencap.cpp)
    cover: tuple[int, int] | None = None
    # the display's rotation (Surface.ROTATION_*) while the game shows: 1 on a display whose
    # natural orientation is landscape (BlueStacks, LDPlayer, MuMu as a tablet) turned for a
    # portrait game; `wm size` prints the natural size, the screen is width x height
    rotation: int = 0
    # the largest video side the phone's H.264 encoder takes (0: any): a larger stream fails to
    # configure and scrcpy's server retries smaller (video/SurfaceEncoder.java, downsize on error)
    encoder_max: int = 0
    android: str = ""  # the Android version it runs (a key of ANDROID); "": the phone's option decides

    @property
    def quirks(self) -> bool:
        return bool(self.cover or self.rotation or self.encoder_max or self.android)

    @property
    def natural(self) -> tuple[int, int]:
        """The display's natural (unrotated) size, what `wm size` prints."""
        return (self.height, self.width) if self.rotation % 2 else (self.width, self.height)


PRESETS = {
    p.name: p for p in (
        Preset("720x1600", 720, 1600, 320, "Galaxy A12", "a12nsxx", "a12", "roboto", 48, maker="samsung"),
        Preset("1080x2400", 1080, 2400, 420, "Pixel 7", "panther", "panther", "roboto", 72),
        Preset("1440x3200", 1440, 3200, 560, "Galaxy S21 Ultra", "p3sxx", "p3s", "dejavu", 96, maker="samsung"),
        Preset("tablet-1600x2560", 1600, 2560, 320, "Galaxy Tab S7", "gts7lwifi", "gts7l", "dejavu", 64),
        Preset("1080x2340-2022", 1080, 2340, 400, "Redmi Note 10 Pro", "sweet_eea", "sweet", "roboto", 66,
               style="2022"),
        # the screens emulators (BlueStacks, MuMu, LDPlayer, Nox, MEmu) are usually set to, portrait
        Preset("720x1280", 720, 1280, 320, "Emulator 720x1280", "emu720", "emu720", "roboto", 48, emulator=True),
        Preset("900x1600", 900, 1600, 240, "Emulator 900x1600", "emu900", "emu900", "roboto", 36, emulator=True),
        Preset("1080x1920", 1080, 1920, 480, "Emulator 1080x1920", "emu1080", "emu1080", "roboto", 72,
               emulator=True),
        # what real devices do (issue 37): a flip phone with its cover screen (two physical
        # displays); a tablet-mode emulator, natural landscape, turned for the portrait game; a
        # 1440p phone whose encoder refuses the full size (scrcpy retries at 1920); an Android
        # 4.4 phone (no `exec:`, the shell's PTY)
        Preset("flip-1080x2640", 1080, 2640, 425, "Galaxy Z Flip5", "b5qxxx", "b5q", "roboto", 72,
               maker="samsung", cover=(720, 748)),
        Preset("tablet-landscape-1080x1920", 1080, 1920, 240, "BlueStacks tablet", "bst", "bst", "roboto", 54,
               emulator=True, rotation=1, android="11"),
        Preset("1440x3200-encoder-1920", 1440, 3200, 560, "Galaxy S21 Ultra (small encoder)", "p3sxx", "p3s",
               "dejavu", 96, maker="samsung", encoder_max=1920),
        Preset("android4.4-1080x1920", 1080, 1920, 480, "Nexus 5", "hammerhead", "hammerhead", "roboto", 72,
               android="4.4"),
    )
}
def inside(rect, x: int, y: int) -> bool:
    """Whether (x, y) lies in ``rect`` (x, y, w, h)."""
    return rect[0] <= x < rect[0] + rect[2] and rect[1] <= y < rect[1] + rect[3]


class App:
    """A game app on the virtual phone (each game's app module gives one as ``APP``). Each gives
    its screen, its taps and its truth; the rest has defaults: an app with no options of its own
    and no fixtures, that plays no animation, ignores swipes and keys, and cannot say what lies
    under a finger (its taps are logged "unknown", never wrong)."""

    theme = None  # the app's colours, a phonesim.apps.draw.Theme (None: the light theme)
    # the app's package and main activity, as dumpsys names them (a game's real ones if known)
    PACKAGE = "com.phonesim.game"
    ACTIVITY = "com.phonesim.game.GameActivity"
    kind = "game"  # what is in front (the other activities are "ad" or "app")
    animated_s = 0.0  # the length of every animation the app played so far, in seconds
    # the game's own options (phonesim.apps.create's keywords, `tapsolve phone`'s flags): defaults
    OPTIONS: dict = {}
    # what the fixtures of the game show, for fixtures/README.md ("" when it has none)
    FIXTURES = ""

    @classmethod
    def create(cls, preset: Preset, seed: int, theme: str, options: dict) -> "App":
        """The app for ``preset``, with the game's ``options`` (every one of OPTIONS) checked."""
        return cls(preset, seed=seed, theme=theme, **options)

    @classmethod
    def add_options(cls, parser, types) -> None:
        """Add the game's options to `tapsolve phone` (``types``: the command line's value types,
        assistant.options); default: it has none."""

    @classmethod
    def fixture_states(cls, preset: Preset, theme: str, seed: int):
        """(state name, app) for each screen the fixtures show of the game (default: none)."""
        return iter(())

    def tap_rect(self, rect) -> None:
        """Tap the middle of ``rect`` (x, y, w, h), as a finger would."""
        x, y, w, h = rect
        self.tap(x + w // 2, y + h // 2)

    def tap_on_cell(self, index: int) -> None:
        """Tap the middle of cell ``index`` of the truth's cells as a finger would (it must be on screen)."""
        self.tap_rect(self.truth()["cells"][str(index)])

    def render(self) -> np.ndarray:
        """The app's full screen (status bar included) as an H x W x 3 uint8 RGB image."""
        raise NotImplementedError

    def tap(self, x: int, y: int) -> None:
        raise NotImplementedError

    def truth(self) -> dict:
        """Ground truth of what is on screen (the fixtures' JSON)."""
        raise NotImplementedError

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        """A swipe (default: nothing moves)."""

    def keyevent(self, key: str) -> None:
        """A key event (default: nothing happens)."""

    def landed(self, x: int, y: int) -> str:
        """What a tap at (x, y) would land on now, one of the TAP_TARGETS."""
        return "unknown"

    def animate(self, durations: dict[str, float], banner: bool = False) -> None:
        """Play the animations for these lengths (by name), with a banner ad or not."""

    def motion(self) -> str | None:
        """The animation playing now, None when the screen is still."""
        return None

    def take_ad(self) -> dict | None:
        """An interstitial ad the app starts now, once: Interstitial's keywords (seconds, store,
        unit); default: the app shows none."""
        return None

    @property
    def package(self) -> str:
        return self.PACKAGE

    @property
    def activity(self) -> str:
        return self.ACTIVITY


# What a tap can land on (the tap log's words). A tap on anything but a live cell, "+" or a
# known button, or on a cell while it animates, is a wrong tap.
TAP_TARGETS = ("live", "crossed", "empty", "animating", "add", "button", "ad", "app", "nothing", "dropped",
               "ignored", "unknown")
RIGHT_TAPS = {"live", "add", "button"}
# taps off the game: on an ad (a banner, an interstitial), or on another app, the store, the
# home screen, the lock screen or a screen off ("app")
OUTSIDE_TAPS = {"ad", "app"}
# neither right nor wrong: a "dropped" tap never reached the app (the phone lost it); an
# "ignored" one reached a game that ignores taps while it animates (Faults.ignore_taps_while);
# an "unknown" one reached an app that cannot say what lies under a finger
UNJUDGED_TAPS = {"dropped", "ignored", "unknown"}
