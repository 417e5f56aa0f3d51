"""The virtual phone's activities that are not the game: interstitial ads, the store, the home
screen, a browser, and the lock screen. Each draws a full screen of its own, says what a tap on
it does, and names its package and activity as Android's dumpsys does (phonesim.shell).

An interstitial runs inside the game's own app (the ad SDK is compiled into the game), so its
window is the game's package with the SDK's activity class: the class tells an ad from the game.

>>> from phonesim.app import PRESETS
>>> ad = Interstitial(PRESETS["720x1600"], seconds=5, shown_at=0.0)
>>> ad.closable(4.9), ad.closable(5.0), ad.tap(*ad.close[:2], now=1.0), ad.tap(*ad.close[:2], now=6.0)
(False, True, None, 'close')
"""

from __future__ import annotations

import numpy as np

from phonesim.apps import draw
from phonesim.apps.draw import cap_size

# Interstitial activities of the usual ad SDKs, the class each starts (read from the SDKs'
# classes in public apps): Fyber/DT Exchange (seen over the real Number Match), AdMob,
# AppLovin, Unity Ads, ironSource. Shown in turn, the first one first.
AD_ACTIVITIES = (
    "com.fyber.inneractive.sdk.activities.InneractiveFullscreenAdActivity",
    "com.google.android.gms.ads.AdActivity",
    "com.applovin.adview.AppLovinFullscreenActivity",
    "com.unity3d.services.ads.adunit.AdUnitActivity",
    "com.ironsource.sdk.controller.ControllerActivity",
)
STORE = ("com.android.vending", "com.google.android.finsky.activities.MainActivity")
LAUNCHER = ("com.google.android.apps.nexuslauncher", "com.google.android.apps.nexuslauncher.NexusLauncherActivity")
BROWSER = ("com.android.chrome", "com.google.android.apps.chrome.Main")
# the lock screen's window, as Android 11+ names it (the notification shade holds the keyguard)
KEYGUARD = ("com.android.systemui", "NotificationShade")


def unit_of(preset) -> int:
    """A tenth-of-a-cell-ish unit of length for a screen: about 112 px across a 1080-wide phone."""
    return round(preset.width * 0.104) if preset.height / preset.width >= 2 else round(preset.height * 0.045)


class Screen:
    """A full-screen activity of another app: its package, activity class, and what it draws."""

    kind = "app"  # what a tap on it lands on (phonesim.app.TAP_TARGETS)
    title = ""
    COMPONENT = ("", "")  # its package and activity class

    def __init__(self, preset, package: str = "", activity: str = ""):
        self.preset, self._frame = preset, None
        self.package, self.activity = package or self.COMPONENT[0], activity or self.COMPONENT[1]

    def closable(self, now: float) -> bool:
        """Whether BACK closes it now."""
        return True

    def tap(self, x: int, y: int, now: float) -> str | None:
        """What a tap does: None (nothing), "close" (it finishes) or "store" (the store opens)."""
        return None

    def render(self, now: float = 0.0) -> np.ndarray:
        if self._frame is None:
            self._frame = self.draw()
        return self._frame.copy()

    def draw(self) -> np.ndarray:
        raise NotImplementedError

    def truth(self, now: float) -> dict:
        return {"kind": self.kind, "package": self.package, "activity": self.activity, "title": self.title}

    def _page(self, bar: tuple, title: str, background=(255, 255, 255)) -> np.ndarray:
        """A plain app page: a coloured title bar under the status bar."""
        p, u = self.preset, unit_of(self.preset)
        screen = draw.blank(p, draw.THEMES["light"], background=background)
        draw.fill_rect(screen, 0, p.status_bar, p.width, round(1.3 * u), bar)
        draw.put_text(screen, p.font, "medium", cap_size(p.font, 0.3 * u), title, round(0.5 * u),
                      p.status_bar + round(0.65 * u), (255, 255, 255), valign="middle")
        return screen


class Interstitial(Screen):
    """A full-screen ad of an ad SDK, in the game's task: a countdown, then a close button; BACK
    closes it only once the countdown is over. A tap on the ad itself opens the store (with
    ``store``), as a click-through does."""

    kind = "ad"
    title = "SUPER GAME"

    def __init__(self, preset, package: str = "", activity: str = AD_ACTIVITIES[0], *, seconds: float = 5.0,
                 shown_at: float = 0.0, store: bool = False, unit: int | None = None):
        super().__init__(preset, package, activity)
        self.seconds, self.shown_at, self.store = seconds, shown_at, store
        self.unit = unit or unit_of(preset)
        r = round(0.4 * self.unit)
        self.close = [preset.width - round(0.35 * self.unit) - 2 * r, preset.status_bar + round(0.35 * self.unit),
                      2 * r, 2 * r]

    def closable(self, now: float) -> bool:
        # BACK before the countdown ends is swallowed, as in each SDK's activity (decompiled
        # classes in public apps, read for issue 28): AdMob's AdActivity.onBackPressed returns
        # unless its overlay allows it; AppLovinFullscreenActivity.onBackPressed only tells its
        # presenter (super only in AppLovin's test environment); Fyber's
        # InneractiveFullscreenAdActivity.onBackPressed lets the renderer consume it; Unity's
        # AdUnitActivity.onKeyDown hands listed keys to the ad's web app and returns true;
        # ironSource's ControllerActivity.onKeyDown gives BACK to its web controller first. None
        # of them closes on an early BACK, and none punishes it: BACK closes once the ad allows.
        return now - self.shown_at >= self.seconds

    def left(self, now: float) -> int:
        """Whole seconds of the countdown still to go (0: it can be closed)."""
        return max(0, int(np.ceil(self.seconds - (now - self.shown_at) - 1e-9)))

    def tap(self, x: int, y: int, now: float) -> str | None:
        cx, cy, w, h = self.close
        if cx <= x < cx + w and cy <= y < cy + h:
            return "close" if self.closable(now) else None
        return "store" if self.store else None

    def render(self, now: float = 0.0) -> np.ndarray:
        frame = super().render()
        x, y, w, h = self.close
        family = self.preset.font
        draw.put_circle(frame, x + w // 2, y + h // 2, w // 2, (80, 84, 96))
        left = self.left(now)
        if left:  # the countdown where the close button will be
            draw.put_text_centered(frame, family, "bold", cap_size(family, 0.35 * w), str(left), x + w // 2,
                                   y + h // 2, (255, 255, 255))
        else:
            s = round(w * 0.4)
            cross = draw.polyline_mask(s, s, [(0, 0), (s, s)], max(2, w * 0.07))
            draw.blend(frame, x + (w - s) // 2, y + (h - s) // 2, np.maximum(cross, cross[:, ::-1]), (255, 255, 255))
        return frame

    def draw(self) -> np.ndarray:
        p, c = self.preset, self.unit
        W, H, family = p.width, p.height, p.font
        screen = draw.blank(p, draw.THEMES["dark"], background=(32, 36, 48))
        draw.put_rounded_rect(screen, c, round(H * 0.25), W - 2 * c, round(H * 0.35), round(0.3 * c), (250, 170, 40))
        draw.put_text_centered(screen, family, "bold", cap_size(family, 0.6 * c), self.title, W // 2, round(H * 0.38),
                               (255, 255, 255))
        draw.put_text_centered(screen, family, "regular", cap_size(family, 0.25 * c), "Install now - it's free",
                               W // 2, round(H * 0.47), (40, 30, 20))
        draw.put_text(screen, family, "regular", cap_size(family, 0.16 * c), "Ad", round(0.3 * c),
                      p.status_bar + round(0.55 * c), (200, 200, 200), valign="middle")
        return screen

    def truth(self, now: float) -> dict:
        return dict(super().truth(now), closable=self.closable(now), seconds_left=self.left(now),
                    buttons={"close": list(self.close)} if self.closable(now) else {})


class Store(Screen):
    """The Play Store on the advertised game's page."""

    title = "Google Play"
    COMPONENT = STORE

    def draw(self) -> np.ndarray:
        p, u = self.preset, unit_of(self.preset)
        screen = self._page((1, 135, 95), self.title)
        top = p.status_bar + round(2.0 * u)
        draw.put_rounded_rect(screen, round(0.5 * u), top, round(2.2 * u), round(2.2 * u), round(0.4 * u), (250, 170, 40))
        draw.put_text(screen, p.font, "bold", cap_size(p.font, 0.35 * u), "Solitaire Kings", round(3.1 * u),
                      top + round(0.8 * u), (32, 33, 36))
        draw.put_text(screen, p.font, "regular", cap_size(p.font, 0.2 * u), "Contains ads - In-app purchases",
                      round(3.1 * u), top + round(1.5 * u), (95, 99, 104))
        y = top + round(3.0 * u)
        draw.put_rounded_rect(screen, round(0.5 * u), y, p.width - u, round(0.9 * u), round(0.45 * u), (1, 135, 95))
        draw.put_text_centered(screen, p.font, "medium", cap_size(p.font, 0.25 * u), "Install", p.width // 2,
                               y + round(0.45 * u), (255, 255, 255))
        return screen


class Launcher(Screen):
    """The home screen: a wallpaper and a grid of app icons."""

    title = "Home"
    COMPONENT = LAUNCHER

    def closable(self, now: float) -> bool:
        return False  # BACK on the home screen stays there

    def draw(self) -> np.ndarray:
        p, u = self.preset, unit_of(self.preset)
        screen = draw.blank(p, draw.THEMES["dark"], background=(40, 60, 110))
        shade = np.linspace(0, 1, p.height, dtype=np.float32)[:, None, None]
        screen[p.status_bar:] = np.round(screen[p.status_bar:] * (1 - 0.5 * shade[p.status_bar:])
                                         + np.float32((120, 60, 140)) * 0.5 * shade[p.status_bar:])
        colours = [(66, 133, 244), (234, 67, 53), (251, 188, 5), (52, 168, 83), (255, 255, 255)]
        r = round(0.55 * u)
        for k in range(20):
            cx = round(p.width * (k % 4 + 0.5) / 4)
            cy = round(p.height * 0.55) + (k // 4) * round(1.9 * u)
            draw.put_circle(screen, cx, cy, r, colours[k % len(colours)])
        draw.put_text_centered(screen, p.font, "regular", cap_size(p.font, 1.0 * u), "12:30", p.width // 2,
                               round(p.height * 0.2), (255, 255, 255))
        return screen


class Browser(Screen):
    """Another app in front: a browser on a page."""

    title = "Chrome"
    COMPONENT = BROWSER

    def draw(self) -> np.ndarray:
        p, u = self.preset, unit_of(self.preset)
        screen = self._page((60, 64, 67), "solitaire-kings.example")
        for k in range(8):
            draw.fill_rect(screen, round(0.5 * u), p.status_bar + round((2.2 + 0.8 * k) * u),
                           p.width - u - (k % 3) * u, round(0.3 * u), (218, 220, 224))
        return screen


class LockScreen(Screen):
    """The keyguard: the clock and "Swipe up to unlock" (a swipe up unlocks, there is no PIN)."""

    title = "Lock screen"
    COMPONENT = KEYGUARD

    def draw(self) -> np.ndarray:
        p, u = self.preset, unit_of(self.preset)
        screen = draw.blank(p, draw.THEMES["dark"], background=(20, 24, 34))
        draw.put_text_centered(screen, p.font, "regular", cap_size(p.font, 1.3 * u), "12:30", p.width // 2,
                               round(p.height * 0.25), (235, 235, 240))
        draw.put_text_centered(screen, p.font, "regular", cap_size(p.font, 0.25 * u), "Swipe up to unlock",
                               p.width // 2, round(p.height * 0.9), (200, 200, 210))
        return screen


# the apps `am start` / `monkey` can open by package besides the game
APPS = {STORE[0]: Store, LAUNCHER[0]: Launcher, BROWSER[0]: Browser}
