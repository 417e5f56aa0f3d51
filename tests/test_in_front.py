"""What is in front, named one way by every command: phonesim's stage-complete screen and its
"Rate us!" dialog (phonesim.apps.dialog), read from a screenshot and from the phone, through
`read`, `calibrate`, `play`, `play --dry-run` and the guide (issue 42, items 1 and 2)."""

import cv2
import pytest

import vision
from assistant import guide
from assistant.in_front import InFront
from assistant.link import Link
from assistant.loop import Loop
from assistant.phone.device import connect
from assistant.session import Session
from helpers import tapsolve
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone
from solver.numbermatch import Board

PRESET = PRESETS["1080x2400"]
DIALOG = 'a dialog of the game is in front ("Not now", "Rate now")'
STAGE_GUIDE = "stage complete: press Continue on the phone for the next stage and I will guide it"


def on_screen(which: str, dialog: bool = False) -> Phone:
    """A phone showing a 3-row board (27 numbers) or the stage-complete screen, a dialog over it if asked."""
    app = apps.create("numbermatch", PRESET, seed=5, size=27)
    if which == "stage":
        app.board = Board.parse("19.", adds_left=2, rules=app.rules, score=app.board.score, stage=3)
        app.tap_on_cell(0)
        app.tap_on_cell(1)
    phone = Phone(PRESET, app, Faults())
    if dialog:
        phone.show_dialog()
    return phone


@pytest.mark.parametrize("which", ["board", "stage"])
def test_a_dialog_on_a_screenshot_is_named_with_its_buttons_never_read_as_a_board(which, tmp_path):
    phone = on_screen(which, dialog=True)
    reading = vision.read(phone.screen(log=False))
    assert (reading.screen, reading.board, reading.sure) == ("dialog", None, True)
    assert sorted(reading.buttons) == ["not_now", "rate_now"]  # (the Continue under it is not the dialog's)
    png = tmp_path / "dialog.png"
    cv2.imwrite(str(png), phone.screen(log=False)[..., ::-1])
    out = tapsolve("read", str(png))
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout == f'Number Match: {DIALOG}: close it with "Not now" on the phone and run again\n'


def test_the_stage_complete_screen_is_named_with_what_to_do_by_read_and_calibrate(tmp_path):
    png = tmp_path / "stage.png"
    cv2.imwrite(str(png), on_screen("stage").screen(log=False)[..., ::-1])
    out = tapsolve("read", str(png))
    assert out.stdout == ("Number Match: stage complete: press Continue on the phone for the next stage, "
                          "then run again\n")
    out = tapsolve("calibrate", "--image", str(png), "--model", "Pixel 7")
    assert out.returncode == 1 and out.stderr == ("tapsolve: error: no board on the screen to calibrate from: stage "
                                                  "complete: press Continue on the phone for the next stage, then "
                                                  "run again\n")


def test_read_play_and_dry_run_on_the_phone_at_a_stage_end_press_continue_and_play_the_next_stage(harness):
    phone = on_screen("stage")
    vp = harness.add(phone)
    out = tapsolve("read", "--serial", vp.serial, port=harness.adb_port)
    assert out.stdout.endswith("Number Match: stage complete: press Continue on the phone for the next stage, "
                               "then run again\n")
    out = tapsolve("play", "--dry-run", "--serial", vp.serial, port=harness.adb_port)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == ("stage complete: play presses Continue and plays the next stage "
                                           "(a dry run taps nothing)")
    assert phone.tap_log == []
    out = tapsolve("play", "--serial", vp.serial, port=harness.adb_port)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "stage complete: pressing Continue for the next stage" in lines
    assert lines[-1].startswith("done: ") and "1 stage cleared" in lines[-1] and not lines[-1].startswith("done: 0 moves")
    shown = phone.app.truth()
    assert (shown["screen"], shown["board"]["stage"]) == ("stage_complete", 4)  # the next stage, played through
    vp.stop()


def guide_loop(harness, phone):
    vp = harness.add(phone)
    said = []
    loop = Loop(Session(Link(connect(vp.serial, client=harness.client), say=said.append)), game="numbermatch",
                say=said.append, wait_unknown=1.0)
    return vp, loop, said


def test_the_guide_names_the_stage_end_and_a_dialog_as_play_does_without_cells_or_a_stale_step(harness):
    phone = on_screen("board")
    vp, loop, said = guide_loop(harness, phone)
    loop.start()
    assert guide.step_header(loop)[0].startswith("Step 1/")
    with_board = guide.make_view(loop, False, "keys").place
    phone.show_dialog()
    assert guide.follow(loop) is None
    lines = guide.header(loop, 0, False)
    # what is in front and what to do, no step finished or to come, no cell under the dialog named
    assert lines[:2] == [f'{DIALOG}: close it with "Not now" on the phone and I will go on', ""] and len(lines) == 3
    assert said == [lines[0]]
    # (the picture keeps most of its height: a line wraps, no list of cells pushes it down)
    assert guide.make_view(loop, False, "keys").place[3] >= 0.8 * with_board[3]
    phone.dialog = None
    phone.app.board = Board.parse("19.", adds_left=2, rules=phone.app.rules, stage=3)
    phone.app.tap_on_cell(0)
    phone.app.tap_on_cell(1)
    lines = []
    assert guide.run_text(loop, poll=0.1, say=lines.append, max_seconds=1.5) == 0
    assert lines[0] == STAGE_GUIDE and lines.count(STAGE_GUIDE) == 1
    assert phone.tap_log == []
    vp.stop()


def test_the_guide_started_on_a_stage_end_says_so_at_once(harness):
    vp, loop, said = guide_loop(harness, on_screen("stage"))
    lines = []
    assert guide.run_text(loop, poll=0.1, say=lines.append, max_seconds=1.0) == 0
    assert lines[0] == STAGE_GUIDE
    vp.stop()


def test_play_closes_a_dialog_over_the_stage_end_then_presses_continue(harness):
    phone = on_screen("stage", dialog=True)
    vp = harness.add(phone)
    out = tapsolve("play", "--serial", vp.serial, port=harness.adb_port)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    said = lines.index(f'{DIALOG}: closing it with "Not now"')
    assert lines[said + 1] == "stage complete: pressing Continue for the next stage"
    assert phone.app.truth()["board"]["stage"] == 4 and phone.taps_blocked == 0
    vp.stop()


def test_each_kind_in_front_has_its_line_with_what_to_do():
    from assistant.phone.front import AD, APP, LOCKED, OFF, Front

    assert InFront.of(None, Front(LOCKED)).line() == "the phone is locked: unlock it and I will go on"
    assert InFront.of(None, Front(OFF)).line().startswith("the phone's screen is off: turn it on")
    assert InFront.of(None, Front(APP, "com.android.vending", "x.Y")).line() == (
        "another app (com.android.vending) is in front of the game: bring the game back on the phone and I will go on")
    assert InFront.of(None, Front(AD, "p", "com.applovin.Ad")).line(act=True) == \
        "an ad (com.applovin.Ad) is showing: waiting until BACK closes it"
    # what the phone names wins over a picture that looks like a dialog (a store's "Install" button)
    covered = vision.Reading("numbermatch", "dialog", buttons={"install": (1, 1)})
    assert InFront.of(covered, Front(APP, "com.android.vending", "x.Y")).kind == APP
