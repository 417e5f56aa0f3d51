"""phonesim's activities beside the game: interstitial ads with a countdown, the store a tap on an
ad opens, the home screen, another app, the lock screen; the shell's answers about them (dumpsys,
input keyevent, monkey, am start) and the taps counted off the game (``ad_taps``)."""

import re

import numpy as np
import pytest

import vision
from helpers import centre
from phonesim import apps
from phonesim.apps.others import AD_ACTIVITIES
from phonesim.phone import PRESETS, Phone
from phonesim.shell import Shell
from solver.numbermatch import Board
from vision import ReadError

SMALL = PRESETS["720x1600"]
GAME = "com.easybrain.number.puzzle.game"


def run(phone, line):
    out = bytearray()
    status = Shell(phone).run(line, out.extend)
    return status, out.decode()


def focus(phone) -> str:
    """The focused window's title, as `dumpsys window` prints it."""
    return re.search(r"mCurrentFocus=Window\{\w+ u0 ([^}]*)\}", run(phone, "dumpsys window")[1]).group(1)


def phone_between_stages(seconds=5.0, **options):
    """A Number Match phone with ads, at its stage-complete screen: (phone, its clock)."""
    clock = [0.0]
    app = apps.create("numbermatch", SMALL, seed=7, ads=True, ad_seconds=seconds, **options)
    app.board = Board.parse("55", adds_left=2, rules=app.rules)
    phone = Phone(SMALL, app, clock=lambda: clock[0])
    app.tap_on_cell(0)
    app.tap_on_cell(1)
    return phone, clock


def press_continue(phone):
    phone.tap(*centre(phone.app.truth()["buttons"]["continue"]))


def test_the_game_is_in_front_with_its_package_and_activity():
    phone, _ = phone_between_stages()
    assert focus(phone) == f"{GAME}/com.unity3d.player.UnityPlayerActivity"
    status, out = run(phone, "dumpsys activity activities")
    assert status == 0 and f"ResumedActivity: ActivityRecord{{" in out and f"u0 {GAME}/com.unity3d" in out
    assert "getWakefulnessLocked()=Awake" in run(phone, "dumpsys power")[1]  # (a Samsung's)
    assert "mDreamingLockscreen=false" in run(phone, "dumpsys window policy")[1]


def test_each_stage_ends_in_an_ad_of_the_next_sdk_inside_the_games_task():
    phone, clock = phone_between_stages(seconds=0)
    press_continue(phone)
    assert focus(phone) == f"{GAME}/{AD_ACTIVITIES[0]}"  # the game's package, Fyber's class
    record = re.search(r"mFocusedApp=(.*)", run(phone, "dumpsys window displays")[1]).group(1)
    assert record.startswith("ActivityRecord{") and f"u0 {GAME}/{AD_ACTIVITIES[0]} t11}}" in record
    phone.keyevent("KEYCODE_BACK")
    assert phone.front() is phone.app and phone.app.board.stage == 2
    phone.app.board = Board.parse("55", adds_left=2, rules=phone.app.rules, stage=2)
    phone.app.tap_on_cell(0)
    phone.app.tap_on_cell(1)
    press_continue(phone)
    assert phone.front().activity == AD_ACTIVITIES[1] and phone.ads_shown == 2


def test_back_closes_the_ad_only_after_its_countdown_and_taps_on_it_are_counted():
    phone, clock = phone_between_stages(seconds=12)
    press_continue(phone)
    ad = phone.front()
    clock[0] = 11.5
    run(phone, "input keyevent 4")
    phone.tap(*centre(ad.close))  # the countdown still shows where the close button will be
    assert phone.front() is ad and phone.truth()["front"]["seconds_left"] == 1
    assert phone.ad_taps == 1 and phone.wrong_taps == 1
    clock[0] = 12.0
    run(phone, "input keyevent KEYCODE_BACK")
    assert phone.front() is phone.app
    assert [t.target for t in phone.tap_log] == ["button", "ad"]  # Continue, then the ad


def test_a_tap_on_an_ad_opens_the_store_and_back_returns_to_the_ad():
    phone, clock = phone_between_stages(seconds=5, ad_store=True)
    press_continue(phone)
    phone.tap(SMALL.width // 2, SMALL.height // 2)
    assert focus(phone) == "com.android.vending/com.google.android.finsky.activities.MainActivity"
    phone.tap(SMALL.width // 2, SMALL.height // 2)  # a tap on the store counts too
    assert phone.ad_taps == 2
    run(phone, "input keyevent 4")
    assert phone.front().kind == "ad"  # the store's task is gone: the game's, with its ad, is back


def test_home_then_monkey_brings_the_game_back_as_it_was_left():
    phone, clock = phone_between_stages(seconds=0)
    press_continue(phone)
    run(phone, "input keyevent 3")
    assert focus(phone).startswith("com.google.android.apps.nexuslauncher/")
    run(phone, "input keyevent 4")  # BACK on the home screen stays there
    assert phone.front().package == "com.google.android.apps.nexuslauncher"
    status, out = run(phone, f"monkey -p {GAME} -c android.intent.category.LAUNCHER 1")
    assert status == 0 and "Events injected: 1" in out
    assert phone.front().kind == "ad"  # the game's task comes back with its ad on top
    status, out = run(phone, "monkey -p com.nosuch.app -c android.intent.category.LAUNCHER 1")
    assert "No activities found to run, monkey aborted." in out and phone.front().kind == "ad"


def test_am_start_opens_another_app_and_refuses_one_the_phone_lacks():
    phone, _ = phone_between_stages()
    status, out = run(phone, "am start -n com.android.chrome/com.google.android.apps.chrome.Main")
    assert status == 0 and out.startswith("Starting: Intent { cmp=com.android.chrome/")
    assert focus(phone) == "com.android.chrome/com.google.android.apps.chrome.Main"
    phone.tap(100, 500)
    assert phone.ad_taps == 1 and phone.tap_log[-1].target == "app"
    status, out = run(phone, f"am start -n {GAME}/com.unity3d.player.UnityPlayerActivity")
    assert status == 0 and phone.front() is phone.app
    status, out = run(phone, "am start -n com.nosuch.app/.Main")
    assert status == 1 and "Error: Activity class {com.nosuch.app/.Main} does not exist." in out


def test_power_off_locks_and_the_screen_is_black_until_woken_then_a_swipe_unlocks():
    phone, _ = phone_between_stages()
    run(phone, "input keyevent 26")
    assert "getWakefulnessLocked()=Asleep" in run(phone, "dumpsys power")[1]
    assert not phone.screen().any()
    phone.tap(100, 500)
    assert phone.ad_taps == 1  # a tap on a screen that is off is no tap on the game
    run(phone, "input keyevent 224")
    assert "getWakefulnessLocked()=Awake" in run(phone, "dumpsys power")[1]  # (a Samsung's)
    assert "mDreamingLockscreen=true" in run(phone, "dumpsys window policy")[1]
    assert focus(phone) == "NotificationShade"
    run(phone, "input keyevent 4; input keyevent 3")  # neither unlocks
    assert phone.locked
    phone.swipe(SMALL.width // 2, SMALL.height - 100, SMALL.width // 2, 200, 200)
    assert not phone.locked and phone.front() is phone.app


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("show", ["ad", "store", "home", "browser", "locked"])
def test_each_screen_is_a_full_screen_of_its_own_not_the_game(show):
    phone, clock = phone_between_stages(seconds=0, ad_store=True)
    press_continue(phone)
    game = phone.app.render()  # the next stage's board, under what shows
    if show == "store":
        phone.tap(SMALL.width // 2, SMALL.height // 2)
    elif show == "home":
        phone.keyevent("KEYCODE_HOME")
    elif show == "browser":
        phone.to_front("com.android.chrome")
    elif show == "locked":
        phone.keyevent("KEYCODE_SLEEP")
        phone.keyevent("KEYCODE_WAKEUP")
    frame = phone.screen()
    below = slice(SMALL.status_bar, None)
    changed = np.any(frame[below] != game[below], axis=2).mean()
    assert changed > 0.15 and len(np.unique(frame[below].reshape(-1, 3), axis=0)) > 8
    assert vision.read(game, "numbermatch").screen == "board"
    try:  # the reader finds no board on it (at most the ad's close button, or labelled buttons
        # that are not the game's own: the store's "Install", read as a dialog's; the phone's
        # own word on what is in front decides what play does there)
        screen = vision.read(frame, "numbermatch").screen
    except ReadError:
        screen = None
    assert screen in (("ad",) if show == "ad" else (None, "dialog"))
