"""What is in front on the phone, asked of the phone itself: the game, an ad, another app, the lock
screen, or a screen that is off. One shell call (``ASK``), made when the screen is not the board
expected, never per move; ``classify`` is a pure function of its answer.

The formats are upstream's (frameworks/base, services/core/java/com/android/server/), in every
Android version's shape, and the vendors' where they differ:
- wm/DisplayContent.java dump() prints ``  mCurrentFocus=`` then the focused WindowState and
  ``  mFocusedApp=`` then the focused ActivityRecord (`dumpsys window displays`), one section per
  display (``Display: mDisplayId=N``): the game's is the default display, 0, whatever a
  foldable's or flip's cover display focuses;
- before Android 10 the focus is the policy's (policy/PhoneWindowManager.java dump():
  ``mFocusedWindow=`` and ``mFocusedApp=Token{.. ActivityRecord{..}}``, `dumpsys window policy`);
- wm/WindowState.java toString() is ``Window{HASH uUSER TITLE}`` (`` EXITING}`` while it leaves);
  Android 4.1 and older print no user and end ``paused=false}``
  (``Window{4330b6c0 com.android.settings/com.android.settings.SubSettings paused=false}``,
  appium/appium-adb test/unit/adb-commands-specs.js); an activity's window is titled
  ``package/full.ClassName``, a system window by its name (``NotificationShade`` holds the
  keyguard on Android 11+, ``StatusBar`` before, ``Keyguard`` on 4.x; a focused ``Bouncer``
  asks for the PIN);
- wm/ActivityRecord.java toString() is ``ActivityRecord{HASH uUSER package/.Class tTASK}``
  (no user before 4.2; some vendors add ``, isShadow:false``: appium-adb's samples);
- the lock screen: PhoneWindowManager's ``mShowingLockscreen=`` (before Android 10) and
  ``mDreamingLockscreen=``, or KeyguardServiceDelegate's ``KeyguardStateMonitor`` with
  ``mIsShowing=true`` and ``mInputRestricted=true`` (appium-adb lib/tools/lockmgmt.ts,
  isShowingLockscreen: shown but not restricting input is a keyguard already dismissed);
- the screen off: power/PowerManagerService.java dumpInternal() prints ``  mWakefulness=`` Awake,
  Asleep, Dreaming or Dozing (`dumpsys power`); Samsung prints ``getWakefulnessLocked()=``
  instead (flutter dev/devicelab/lib/framework/devices.dart, appium-adb lockmgmt.ts
  isInDozingMode): anything but Awake is a screen off; the policy's ``mAwake=false`` (google/gapid
  core/os/android/adb/adb_data_test.go) and the keyguard delegate's
  ``screenState=SCREEN_STATE_OFF`` (appium-adb test/unit/lockmgmt.spec.ts) say it too.

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
BOUNCER = "Bouncer"  # the keyguard's PIN, pattern or password window: locked whatever the flags say

GAME, AD, APP, LOCKED, OFF, UNKNOWN = "game", "ad", "app", "locked", "off", "unknown"
_WINDOW = re.compile(r"(?:mCurrentFocus|mFocusedWindow)=Window\{\S+(?: u\d+)? ([^}]*?)(?: EXITING| paused=\w+)?\}")
_RECORD = re.compile(r"mFocusedApp=.*?ActivityRecord\{\S+(?: u\d+)? ([^\s/}]+)/([^\s},]+)")
_DISPLAY = re.compile(r"^\s*Display: mDisplayId=(\d+)", re.MULTILINE)
_WAKEFULNESS = re.compile(r"(?:mWakefulness|getWakefulnessLocked\(\))=(\w+)")
_LOCK_FLAGS = re.compile(r"\b(mShowingLockscreen|mDreamingLockscreen)=(true|false)")
_KEYGUARD = re.compile(r"KeyguardStateMonitor\s+mIsShowing=(true|false)")
_INPUT_RESTRICTED = re.compile(r"\smInputRestricted=(true|false)")
_OFF = re.compile(r"\bmAwake=false\b|\bscreenState=SCREEN_STATE_OFF\b")
GAME_DISPLAY = 0  # Display.DEFAULT_DISPLAY: where the game runs (a cover screen is another)


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


def _game_display(text: str) -> str:
    """The section of the game's display in `dumpsys window displays`' answer, when it has
    several displays and the game's names a focus; else the whole answer."""
    marks = list(_DISPLAY.finditer(text))
    if len(marks) < 2:
        return text
    for here, after in zip(marks, marks[1:] + [None]):
        if int(here.group(1)) == GAME_DISPLAY:
            section = text[here.start():after.start() if after else len(text)]
            return section if _WINDOW.search(section) or _RECORD.search(section) else text
    return text


def focus(text: str) -> tuple[str, str]:
    """(package, full activity class) of the focused window, else of the focused app, on the
    game's display; ("", "") when neither names an activity. A window title "package/.Class" is
    made whole."""
    text = _game_display(text)
    window = _WINDOW.search(text)
    title = window.group(1) if window else ""
    if "/" not in title:
        record = _RECORD.search(text)
        if title or not record:
            return title, ""  # a system window (the keyguard's), or nothing focused
        title = f"{record.group(1)}/{record.group(2)}"
    package, activity = title.split("/", 1)
    return package, package + activity if activity.startswith(".") else activity


def locked(text: str, package: str, activity: str) -> bool:
    """Whether the lock screen shows: by the policy's flags or the keyguard delegate's state when
    the phone prints them, by the focused window's name when it prints neither."""
    flags = [value == "true" for _name, value in _LOCK_FLAGS.findall(text)]
    keyguard = _KEYGUARD.search(text)
    if keyguard:
        restricted = _INPUT_RESTRICTED.search(text[keyguard.end():])
        flags.append(keyguard.group(1) == "true" and bool(restricted) and restricted.group(1) == "true")
    if package.endswith(BOUNCER) or any(flags):
        return True
    return not flags and not activity and package in LOCK_WINDOWS


def classify(text: str, packages) -> Front:
    """What is in front, from the answer to ``ASK``; ``packages``: the game's app packages."""
    wakefulness = _WAKEFULNESS.search(text)
    if (wakefulness and wakefulness.group(1) != "Awake") or _OFF.search(text):
        return Front(OFF)
    package, activity = focus(text)
    if locked(text, package, activity):
        return Front(LOCKED, package, activity)
    if not activity:
        return Front(UNKNOWN, package)
    if activity.startswith(AD_SDKS):
        return Front(AD, package, activity)
    return Front(GAME if package in packages else APP, package, activity)


def ask(device, packages) -> Front:
    """Ask the phone (an assistant.phone.device.Device) what is in front: one shell call."""
    return classify(device.shell(ASK), packages)
