"""What is in front on the phone, asked of the phone itself: the game, an ad, another app, the lock
screen, or a screen that is off. One shell call (``ASK``), made when the screen is not the board
expected, never per move; ``classify`` is a pure function of its answer.

The formats are upstream's (frameworks/base, services/core/java/com/android/server/):
- wm/DisplayContent.java dump() prints ``  mCurrentFocus=`` then the focused WindowState and
  ``  mFocusedApp=`` then the focused ActivityRecord (`dumpsys window displays`);
- wm/WindowState.java toString() is ``Window{HASH uUSER TITLE}`` (`` EXITING}`` while it leaves);
  an activity's window is titled ``package/full.ClassName``, a system window by its name
  (``NotificationShade`` holds the keyguard on Android 11+, ``StatusBar`` before);
- wm/ActivityRecord.java toString() is ``ActivityRecord{HASH uUSER package/.Class tTASK}``;
- policy/PhoneWindowManager.java dump() prints ``mShowingDream=.. mDreamingLockscreen=true|false``
  (`dumpsys window policy`): true while the lock screen shows;
- power/PowerManagerService.java dumpInternal() prints ``  mWakefulness=`` Awake, Asleep,
  Dreaming or Dozing (`dumpsys power`): anything but Awake is a screen off.

>>> classify("  mCurrentFocus=Window{1f2e u0 com.android.vending/com.android.vending.AssetBrowserActivity}",
...          ("com.example.game",)).kind
'app'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ASK = "dumpsys window displays; dumpsys window policy; dumpsys power"

# Java packages of the usual ad SDKs' activities: an interstitial runs in the game's own app
# (the SDK is compiled into it), so the window names the game's package and the SDK's class
AD_SDKS = ("com.fyber.inneractive.sdk.", "com.google.android.gms.ads.", "com.applovin.", "com.unity3d.ads.",
           "com.unity3d.services.ads.", "com.ironsource.", "com.vungle.", "com.mbridge.msdk.",
           "com.bytedance.sdk.openadsdk.", "com.facebook.ads.", "com.inmobi.", "com.chartboost.")
LOCK_WINDOWS = ("NotificationShade", "StatusBar", "Keyguard")  # system windows over a lock screen

GAME, AD, APP, LOCKED, OFF, UNKNOWN = "game", "ad", "app", "locked", "off", "unknown"
_WINDOW = re.compile(r"mCurrentFocus=Window\{\S+ u\d+ ([^}]*?)(?: EXITING)?\}")
_RECORD = re.compile(r"mFocusedApp=.*?ActivityRecord\{\S+ u\d+ ([^\s/}]+)/([^\s}]+)")


@dataclass(frozen=True)
class Front:
    """What is in front: ``kind`` one of GAME, AD, APP, LOCKED, OFF, UNKNOWN, and the activity's
    package and full class name when one has the focus."""

    kind: str
    package: str = ""
    activity: str = ""

    def __str__(self) -> str:
        return {GAME: "the game", AD: f"an ad ({self.activity})", APP: f"another app ({self.package})",
                LOCKED: "the lock screen", OFF: "the screen is off",
                UNKNOWN: "nothing the phone names"}[self.kind]


def focus(text: str) -> tuple[str, str]:
    """(package, full activity class) of the focused window, else of the focused app; ("", "")
    when neither names an activity. A window title "package/.Class" is made whole."""
    window = _WINDOW.search(text)
    title = window.group(1) if window else ""
    if "/" not in title:
        record = _RECORD.search(text)
        if title or not record:
            return title, ""  # a system window (the keyguard's), or nothing focused
        title = f"{record.group(1)}/{record.group(2)}"
    package, activity = title.split("/", 1)
    return package, package + activity if activity.startswith(".") else activity


def classify(text: str, packages) -> Front:
    """What is in front, from the answer to ``ASK``; ``packages``: the game's app packages."""
    wakefulness = re.search(r"mWakefulness=(\w+)", text)
    if wakefulness and wakefulness.group(1) != "Awake":
        return Front(OFF)
    package, activity = focus(text)
    lockscreen = re.search(r"mDreamingLockscreen=(true|false)", text)  # (a phone may not print it)
    if lockscreen.group(1) == "true" if lockscreen else not activity and package in LOCK_WINDOWS:
        return Front(LOCKED, package, activity)
    if not activity:
        return Front(UNKNOWN, package)
    if activity.startswith(AD_SDKS):
        return Front(AD, package, activity)
    return Front(GAME if package in packages else APP, package, activity)


def ask(device, packages) -> Front:
    """Ask the phone (an assistant.phone.device.Device) what is in front: one shell call."""
    return classify(device.shell(ASK), packages)
