"""Play past what stands in front of the game, known from the phone: an ad waited out and closed
with BACK (never tapped), another app left for the game, a locked phone waited for; each end of the
wait said in one line. The demo clears several stages through ads on the hardest profile."""

import json
import os

import pytest

from assistant import front_door
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from assistant.phone.device import connect
from helpers import centre, tapsolve
from phonesim import apps
from phonesim.apps.others import STORE
from phonesim.phone import PRESETS, Faults, Phone
from solver.errors import TapsolveError

PRESET = PRESETS["1080x2400"]


@pytest.fixture
def quick(monkeypatch):
    """The door's waits made short, so that the bounded tries run out in a second or two."""
    monkeypatch.setattr(front_door, "ASK_EVERY", 0.2)
    monkeypatch.setattr(front_door, "BACK_EVERY", 0.2)
    monkeypatch.setattr(front_door, "MAX_BACKS", 3)


def playing(harness, faults=None, **options):
    """(phone, loop, lines said) on a small Number Match board, the loop set for play."""
    phone = Phone(PRESET, apps.create("numbermatch", PRESET, seed=3, size=12, **options), faults or Faults())
    vp = harness.add(phone)
    said = []
    loop = Loop(Session(Link(connect(vp.serial, client=harness.client), say=said.append)), game="numbermatch",
                say=said.append, wait_unknown=3.0)
    loop.alone = True
    return phone, loop, said


def test_an_ad_that_never_becomes_closable_ends_play_in_one_line_with_no_tap(harness, quick):
    phone, loop, said = playing(harness)
    phone._start_ad(dict(seconds=600))
    with pytest.raises(TapsolveError, match=r"an ad \(com\.fyber.*did not close after 3 presses of BACK"):
        loop.look_until_known()
    assert phone.tap_log == [] and loop.link.keys == 3
    assert sum("airplane mode" in line for line in said) == 1


def test_an_ad_closes_with_back_once_its_countdown_is_over(harness, quick, monkeypatch):
    monkeypatch.setattr(front_door, "MAX_BACKS", 30)
    phone, loop, said = playing(harness)
    phone._start_ad(dict(seconds=1.0))
    assert loop.look_until_known().screen == "board"
    assert phone.tap_log == [] and loop.link.keys >= 1 and phone.front() is phone.app


def test_the_store_in_front_is_left_with_back_and_the_game_brought_back(harness, quick):
    phone, loop, said = playing(harness)
    phone.to_front(STORE[0])
    assert loop.look_until_known().screen == "board"
    assert phone.tap_log == [] and phone.front() is phone.app
    assert any("another app (com.android.vending) is in front: pressing BACK and bringing the game back" in line
               for line in said)


def test_without_dismiss_the_store_is_only_named_and_play_ends_in_one_line(harness, quick):
    phone, loop, said = playing(harness)
    loop.dismiss = False
    phone.to_front(STORE[0])
    with pytest.raises(TapsolveError, match=r"another app \(com\.android\.vending\) stayed in front .* 3 s"):
        loop.look_until_known()
    assert phone.tap_log == [] and loop.link.keys == 0
    assert said.count("another app (com.android.vending) is in front of the game: bring the game back on the "
                      "phone and I will go on") == 1


def test_a_locked_phone_is_waited_for_then_play_ends_in_one_line(harness, quick):
    phone, loop, said = playing(harness)
    phone.keyevent("KEYCODE_POWER")
    phone.keyevent("KEYCODE_WAKEUP")  # the lock screen shows
    with pytest.raises(TapsolveError, match="the phone stayed locked for 3 s: unlock it and run again"):
        loop.look_until_known()
    assert phone.tap_log == [] and loop.link.keys == 0 and phone.locked
    assert said.count("the phone is locked: unlock it and I will go on") == 1


def test_a_screen_off_is_waited_for_then_play_ends_in_one_line(harness, quick):
    phone, loop, said = playing(harness)
    phone.keyevent("KEYCODE_POWER")
    with pytest.raises(TapsolveError, match="the phone stayed off for 3 s: unlock it and run again"):
        loop.look_until_known()
    assert phone.tap_log == [] and loop.link.keys == 0
    assert said.count("the phone's screen is off: turn it on and unlock it, and I will go on") == 1


def test_a_screen_going_dark_right_after_a_move_is_waited_for_and_the_move_judged(harness, quick):
    """The screen times out just as a move is made: the capture that judges it is black. It is
    waited for as any dark screen is (README), not the end of play: every path that captures
    (the glance that judges a move, the early frame, a settled look) treats it alike."""
    import threading

    phone, loop, said = playing(harness)
    loop.wait_unknown = 20
    loop.start()
    move = loop.next_move
    loop.link.tap_all(loop.game.tap_points(move, loop.reading), kind=loop.game.animation(loop.position, move))
    phone.keyevent("KEYCODE_POWER")  # off (and locked) as the move lands
    woken = threading.Timer(1.0, lambda: (phone.keyevent("KEYCODE_WAKEUP"), phone.keyevent("KEYCODE_MENU")))
    woken.start()
    try:
        assert loop.judge(move) == "done"
    finally:
        woken.cancel()
    assert "the phone's screen is off: turn it on and unlock it, and I will go on" in said
    assert phone.tap_log and loop.position.cells == phone.app.truth()["board"]["cells"]


def test_a_secure_window_still_ends_in_the_black_screen_line(harness, quick):
    phone, loop, said = playing(harness, Faults(secure=True))
    with pytest.raises(TapsolveError, match="screenshot is all black: the screen is off or locked, or the app shows"):
        loop.look_until_known()
    assert phone.tap_log == []


def test_a_dialog_is_closed_through_its_not_now_button_only(harness, quick):
    phone, loop, said = playing(harness, Faults(dialog_dismiss="Not now"))
    loop.look_until_known()
    phone.show_dialog()
    dismiss = phone.dialog.dismiss
    assert loop.look_until_known().screen == "board" and loop.reading.sure and phone.dialog is None
    assert [(tap.x, tap.y, tap.target) for tap in phone.tap_log] == [(*centre(dismiss), "button")]
    assert 'closing a dialog of the game with its "not now" button' in said


@pytest.mark.parametrize("label, dismiss", [("", True), ("Not now", False)])
def test_a_dialog_with_no_dismiss_button_or_under_no_dismiss_is_left_to_the_player(harness, quick, label, dismiss):
    phone, loop, said = playing(harness, Faults(dialog_dismiss=label))
    loop.dismiss = dismiss
    loop.look_until_known()
    phone.show_dialog()
    with pytest.raises(TapsolveError, match="cannot read .* for sure for 3 s"):
        loop.look_until_known()
    assert phone.tap_log == [] and phone.dialog is not None
    if label == "":  # what is on screen is said, once
        assert sum("the game shows 'rate now', none of the buttons I close dialogs with" in line
                   for line in said) == 1


@pytest.mark.phone
@pytest.mark.parametrize("store", [False, True])
def test_demo_clears_three_stages_through_ads_on_the_real_profile(store, tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path))  # (no profile stored by another test)
    out = tapsolve("demo", "--realism", "real", "--time-scale", "0.25", "--stages", "3", "--size", "12", "--ads",
                   "--ad-seconds", "2", "--dialog-between-stages", *(["--ad-store"] if store else []),
                   "--json", "--no-window",
                   env=env, timeout=400)
    assert out.returncode == 0, out.stderr[-2000:]
    figures = json.loads(out.stdout)
    assert (figures["cleared_stages"], figures["wrong_taps"], figures["ad_taps"]) == (3, 0, 0)
    assert "pressing BACK on the ad" in out.stderr and "Traceback" not in out.stderr
    assert out.stderr.count('closing a dialog of the game with its "not now" button') == 2


def test_play_and_demo_take_no_dismiss():
    from assistant.cli import build_parser

    for command in ("play", "demo"):
        assert build_parser(command).parse_args([command, "--no-dismiss"]).no_dismiss


def test_the_guide_says_an_ad_is_in_front_instead_of_a_stale_move_and_goes_on_after_it(harness, quick):
    from assistant import guide

    phone, loop, said = playing(harness)
    loop.alone = False  # the guide's loop: the player is followed, nothing is pressed for them
    loop.start()
    assert guide.step_header(loop)[0].startswith("Step 1/")
    phone._start_ad(dict(seconds=600))
    assert guide.follow(loop) is None
    assert guide.step_header(loop)[0] == "an ad is showing: close it on the phone and I will go on"
    assert said.count("an ad is showing: close it on the phone and I will go on") == 1
    phone._finish(phone.front())  # the player closes it
    assert guide.follow(loop) is None and guide.step_header(loop)[0].startswith("Step 1/")
    assert phone.tap_log == [] and loop.link.keys == 0


# -- what a profile learns from: only the board read for sure, nothing over it ------------------

def stored_profiles(tmp_path) -> list:
    folder = tmp_path / "tapsolve" / "profiles"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_dialog_at_the_first_read_teaches_no_profile_and_the_board_reads_once_it_is_closed(
        harness, quick, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    phone, loop, said = playing(harness, Faults(dialog_dismiss="Not now"))
    loop.dismiss = False  # (the player closes it)
    phone.show_dialog()
    with pytest.raises(TapsolveError, match="cannot read .* for sure for 3 s"):
        loop.look_until_known()
    assert stored_profiles(tmp_path) == [] and loop.session.profile is None
    phone.dialog = None
    assert loop.look_until_known().screen == "board" and loop.reading.sure
    assert stored_profiles(tmp_path) == ["pixel-7_1080x2400_numbermatch_light.json"]
    assert not any("failed to read a clear board" in line for line in said)


def test_a_dialog_at_the_first_read_closed_by_play_leaves_a_profile_that_reads(harness, quick, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    phone, loop, said = playing(harness, Faults(dialog_dismiss="Not now"))
    phone.show_dialog()
    assert loop.look_until_known().screen == "board" and loop.reading.sure and phone.dialog is None
    assert 'closing a dialog of the game with its "not now" button' in said
    later = Loop(Session(Link(loop.link.device, say=said.append)), game="numbermatch", say=said.append)  # (a later run)
    for each in (loop, later):
        assert each.look().sure and each.reading.board.cells == phone.app.truth()["board"]["cells"]
    assert not any("failed to read a clear board" in line for line in said)


def test_a_stored_profile_taught_under_a_dialog_is_rebuilt_from_the_clear_board(harness, quick, tmp_path, monkeypatch):
    import vision
    from calibration import store

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    phone, loop, said = playing(harness)
    clear = phone.screen()
    phone.show_dialog()
    bad = vision.read(phone.screen(), "numbermatch").profile  # what earlier versions stored
    for _ in range(2):
        covered = vision.read(phone.screen(), "numbermatch", bad)
        covered.learn()
    path = store.profile_path("Pixel 7", 1080, 2400, "numbermatch", "light")
    bad.model = "Pixel 7"
    assert store.save(bad, path)
    phone.dialog = None
    assert loop.look_until_known().sure and loop.reading.board.cells == phone.app.truth()["board"]["cells"]
    # (the read's check of its templates, or else a fresh read that rebuilds it, mends it)
    assert vision.read(clear, "numbermatch", store.load(path)).sure


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_calibrate_refuses_a_board_with_a_dialog_over_it(tmp_path, monkeypatch):
    import cv2

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    phone = Phone(PRESET, apps.create("numbermatch", PRESET, seed=3, size=12), Faults())
    phone.show_dialog()
    png = tmp_path / "covered.png"
    cv2.imwrite(str(png), phone.screen()[..., ::-1])
    out = tapsolve("calibrate", "--image", str(png), "--model", "Pixel 7")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().startswith("tapsolve: error: the board is not read for sure (")
    assert stored_profiles(tmp_path) == []
