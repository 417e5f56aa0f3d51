"""assistant.phone.front: what is in front, from the phone's own dumpsys. The samples are shaped as
upstream prints them (frameworks/base: wm/DisplayContent.java's dump, WindowState's and
ActivityRecord's toString, policy/PhoneWindowManager.java's dump, power/PowerManagerService.java's
dumpInternal), not as phonesim does; then end to end against phonesim through adb."""

import pytest

from assistant.games import kind
from assistant.phone.device import connect
from assistant.phone.front import AD, APP, GAME, LOCKED, OFF, UNKNOWN, Front, ask, classify
from helpers import centre
from phonesim import apps
from phonesim.phone import PRESETS, Phone
from solver import games as registry
from solver.numbermatch import Board

GAME_PACKAGE = "com.easybrain.number.puzzle.game"
PACKAGES = (GAME_PACKAGE,)


def displays(window: str, record: str) -> str:
    """`dumpsys window displays` around a focused window and app (DisplayContent.dump's lines)."""
    return ("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            "  Display: mDisplayId=0 rootTasks=4\n    init=1080x2400 420dpi cur=1080x2400 app=1080x2274\n"
            "  mLayoutSeq=412\n"
            f"  mCurrentFocus={window}\n"
            f"  mFocusedApp={record}\n"
            "  mHoldScreenWindow=null\n")


def policy(lockscreen: bool) -> str:
    return ("WINDOW MANAGER POLICY STATE (dumpsys window policy)\n"
            "    mSafeMode=false mSystemReady=true mSystemBooted=true\n"
            f"    mShowingDream=false mDreamingLockscreen={str(lockscreen).lower()} mDreamingSleepToken=null\n")


def power(wakefulness: str = "Awake") -> str:
    return ("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n"
            f"  mWakefulness={wakefulness}\n  mWakefulnessChanging=false\n  mIsPowered=true\n")


def answer(window, record, lockscreen=False, wakefulness="Awake"):
    return displays(window, record) + "\n" + policy(lockscreen) + power(wakefulness)


FYBER = "com.fyber.inneractive.sdk.activities.InneractiveFullscreenAdActivity"
UNITY = "com.unity3d.player.UnityPlayerActivity"
STORE = "com.android.vending/com.google.android.finsky.activities.MainActivity"


@pytest.mark.parametrize("text, expected", [
    (answer(f"Window{{9d3c2e1 u0 {GAME_PACKAGE}/{UNITY}}}",
            f"ActivityRecord{{6a1b0f2 u0 {GAME_PACKAGE}/{UNITY} t37}}"),
     Front(GAME, GAME_PACKAGE, UNITY)),
    (answer(f"Window{{4be01a7 u0 {GAME_PACKAGE}/{FYBER}}}",
            f"ActivityRecord{{c1f3a09 u0 {GAME_PACKAGE}/{FYBER} t37}}"),
     Front(AD, GAME_PACKAGE, FYBER)),
    (answer(f"Window{{4be01a7 u0 {GAME_PACKAGE}/com.google.android.gms.ads.AdActivity}}",
            f"ActivityRecord{{c1f3a09 u0 {GAME_PACKAGE}/com.google.android.gms.ads.AdActivity t37}}"),
     Front(AD, GAME_PACKAGE, "com.google.android.gms.ads.AdActivity")),
    (answer(f"Window{{77aa012 u0 {STORE}}}", "ActivityRecord{5d0e3b1 u0 com.android.vending/"
                                             "com.google.android.finsky.activities.MainActivity t41}"),
     Front(APP, "com.android.vending", "com.google.android.finsky.activities.MainActivity")),
    # a window on its way out: still the browser
    (answer("Window{1e2d3c4 u0 com.android.chrome/com.google.android.apps.chrome.Main EXITING}",
            "ActivityRecord{2f3e4d5 u0 com.android.chrome/com.google.android.apps.chrome.Main t44}"),
     Front(APP, "com.android.chrome", "com.google.android.apps.chrome.Main")),
    # no window focused mid-transition: the focused app's record, its class in short form
    (answer("null", f"ActivityRecord{{6a1b0f2 u0 {GAME_PACKAGE}/.MainActivity t37}}"),
     Front(GAME, GAME_PACKAGE, f"{GAME_PACKAGE}.MainActivity")),
    # Android 9's token around the record
    (answer("null", f"AppWindowToken{{8c7b6a5 token=Token{{1a2b3c4 ActivityRecord{{5e6f7a8 u0 "
                    f"com.google.android.apps.nexuslauncher/.NexusLauncherActivity t2}}}}}}"),
     Front(APP, "com.google.android.apps.nexuslauncher",
           "com.google.android.apps.nexuslauncher.NexusLauncherActivity")),
    (answer("Window{3c4d5e6 u0 NotificationShade}", f"ActivityRecord{{6a1b0f2 u0 {GAME_PACKAGE}/{UNITY} t37}}",
            lockscreen=True),
     Front(LOCKED, "NotificationShade")),
    (answer(f"Window{{9d3c2e1 u0 {GAME_PACKAGE}/{UNITY}}}", f"ActivityRecord{{6a1b0f2 u0 {GAME_PACKAGE}/{UNITY} t37}}",
            lockscreen=True, wakefulness="Asleep"),
     Front(OFF)),
    # the keyguard's window before Android 11, on a phone whose policy dump says nothing of it
    (displays("Window{3c4d5e6 u0 StatusBar}", "null") + power(), Front(LOCKED, "StatusBar")),
    (answer("Window{3c4d5e6 u0 StatusBar}", "null"), Front(UNKNOWN, "StatusBar")),  # the shade, pulled down
    (answer("null", "null"), Front(UNKNOWN)),
])
def test_what_upstreams_dumpsys_says_is_in_front(text, expected):
    assert classify(text, PACKAGES) == expected


def test_dozing_and_dreaming_are_a_screen_that_is_off_and_each_kind_has_words():
    game = f"Window{{9d3c2e1 u0 {GAME_PACKAGE}/{UNITY}}}"
    assert classify(answer(game, "null", wakefulness="Dozing"), PACKAGES).kind == OFF
    assert classify(answer(game, "null", wakefulness="Dreaming"), PACKAGES).kind == OFF
    assert classify(answer(game, "null"), ()).kind == APP  # another game's package: not this game
    assert str(Front(AD, GAME_PACKAGE, FYBER)) == f"an ad ({FYBER})"
    assert str(Front(APP, "com.android.vending")) == "another app (com.android.vending)"


def test_every_game_declares_the_packages_of_its_app_on_the_virtual_phone():
    for name in registry.NAMES:
        assert apps.app_class(name).PACKAGE in kind(name).APP_PACKAGES


@pytest.fixture
def played(harness):
    """Number Match with ads on phonesim behind adb, at its stage-complete screen, and a Device."""
    p = PRESETS["1080x2400"]
    app = apps.create("numbermatch", p, seed=3, ads=True, ad_seconds=30, ad_store=True)
    app.board = Board.parse("55", adds_left=2, rules=app.rules)
    phone = Phone(p, app)
    vp = harness.add(phone)
    app.tap_on_cell(0)
    app.tap_on_cell(1)
    yield phone, connect(vp.serial, client=harness.client)
    vp.stop()


def test_the_phone_says_what_is_in_front_through_adb(played):
    phone, device = played
    packages = kind("numbermatch").APP_PACKAGES
    assert ask(device, packages).kind == GAME
    device.tap(*centre(phone.app.truth()["buttons"]["continue"]))
    front = ask(device, packages)
    assert front.kind == AD and front.package == GAME_PACKAGE and front.activity == FYBER
    device.shell("input keyevent 4")  # a countdown of 30 s: BACK does not close it yet
    assert ask(device, packages).kind == AD
    device.tap(540, 1200)  # the ad's click-through
    assert ask(device, packages) == Front(APP, "com.android.vending",
                                          "com.google.android.finsky.activities.MainActivity")
    device.shell("input keyevent 3")
    assert ask(device, packages).package == "com.google.android.apps.nexuslauncher"
    device.shell("input keyevent 26")
    assert ask(device, packages).kind == OFF
    device.shell("input keyevent 224")
    assert ask(device, packages).kind == LOCKED
    device.swipe(540, 2200, 540, 400, 200)
    device.shell(f"monkey -p {GAME_PACKAGE} -c android.intent.category.LAUNCHER 1")
    assert ask(device, packages).kind == AD  # the game's task, its ad still on top
    assert phone.ad_taps == 1  # only the tap the test made on the ad
