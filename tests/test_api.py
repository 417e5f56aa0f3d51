"""`import tapsolve`: read, solve and connect as the README and docs/json.md show them, each answer
checked against the fixture's or the phone's own truth, and every bad call a TapsolveError."""

import json
import re
from pathlib import Path

import cv2
import pytest

import tapsolve
from helpers import ROOT, replayed

FIXTURES = ROOT / "fixtures"
SHOT = FIXTURES / "1080x2400/light/numbermatch_midgame.png"


def truth(png: Path) -> dict:
    return json.loads(png.with_suffix(".json").read_text())


def test_read_takes_a_path_or_an_opencv_image_and_gives_the_read_json():
    by_path, by_array = tapsolve.read(SHOT), tapsolve.read(cv2.imread(str(SHOT)))
    want = truth(SHOT)["board"]
    for reading in (by_path, by_array):
        assert reading["game"] == "numbermatch" and reading["screen"] == "board"
        assert reading["board"] == want | {"cells": want["cells"][:len(reading["board"]["cells"])]}
        assert reading["selected"] == truth(SHOT)["selected"]


def test_a_reading_solves_and_its_moves_clear_the_board():
    reading = tapsolve.read(SHOT)
    line = tapsolve.solve(reading)  # the whole reading, or its board
    assert line["status"] == "solved" and line["board"] == reading["board"]
    assert replayed(line).live_count() == 0
    assert tapsolve.solve(reading["board"], objective="score", budget=0.2)["status"] == "solved"


@pytest.mark.parametrize("png, game", [("flip9_cards_midgame.png", "flip9"), ("fifteen_grid_midgame.png", "fifteen")])
def test_every_games_reading_solves(png, game):
    shot = FIXTURES / "1080x2400/light" / png
    reading = tapsolve.read(shot)
    assert reading["game"] == game
    line = tapsolve.solve(reading["board"])
    assert line["status"] == "solved" and line["game"] == game and line["moves"]
    if game == "flip9":
        cards = list(truth(shot)["state"]["cards"])
        for move in line["moves"]:
            a, b = (cards.index(v) for v in move["swap"])
            cards[a], cards[b] = cards[b], cards[a]
        assert cards == list(range(1, 10))


def test_board_text_solves_with_its_game():
    assert tapsolve.solve("1357 2468", game="numbermatch")["adds_used"] == 1
    assert tapsolve.solve("1 2 3, 4 5 6, _ 7 8", game="fifteen")["moves"] == [{"tile": 7}, {"tile": 8}]


BAD_CALLS = {
    "no file": lambda: tapsolve.read("no-such-screenshot.png"),
    "not an image": lambda: tapsolve.read(42),
    "a cut image": lambda: tapsolve.read(cv2.imread(str(SHOT))[:20]),
    "an unknown game to read": lambda: tapsolve.read(SHOT, game="chess"),
    "text without its game": lambda: tapsolve.solve("1357 2468"),
    "an unknown game": lambda: tapsolve.solve("12", game="chess"),
    "a list": lambda: tapsolve.solve([1, 9]),
    "a reading without a board": lambda: tapsolve.solve({"game": "numbermatch", "screen": "stage_complete"}),
    "a cell not read for sure": lambda: tapsolve.solve({"game": "numbermatch", "cells": [1, None, 9]}),
    "a card not read for sure": lambda: tapsolve.solve({"game": "flip9", "cards": [3, None, 5, 9, 2, 7, 4, 8, 6]}),
    "tiles not a list": lambda: tapsolve.solve({"game": "fifteen", "tiles": "1 2 3"}),
    "a bad objective": lambda: tapsolve.solve("19", game="numbermatch", objective="most"),
    "a bad budget": lambda: tapsolve.solve("19", game="numbermatch", budget=0),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_a_bad_call_raises_a_tapsolve_error_of_one_line(call):
    with pytest.raises(tapsolve.TapsolveError) as caught:
        call()
    assert str(caught.value) and "\n" not in str(caught.value)


BAD_ARGUMENTS = {  # each escaped as AttributeError, TypeError, ReadError or a hang
    "a reading whose board is null": lambda: tapsolve.solve({"board": None}),
    "a game that is not text": lambda: tapsolve.solve({"cells": [1, 9]}, game=3),
    "a budget of an age": lambda: tapsolve.solve("19", game="numbermatch", budget=1e12),
    "a budget not a number": lambda: tapsolve.solve("19", game="numbermatch", budget="1"),
    "a port for a serial": lambda: tapsolve.connect(5555),
    "bytes for a serial": lambda: tapsolve.connect(b"127.0.0.1:5555"),
    "an empty serial": lambda: tapsolve.connect(""),
    "an unknown game to read (as the README promises)": lambda: tapsolve.read(SHOT, game="chess"),
    "a game to play that is not one": lambda: tapsolve.play(game="chess"),
    "stages not a count": lambda: tapsolve.play(stages=0),
}


@pytest.mark.parametrize("call", BAD_ARGUMENTS.values(), ids=BAD_ARGUMENTS.keys())
def test_a_bad_argument_is_an_input_error_before_anything_is_done(call):
    with pytest.raises(tapsolve.InputError) as caught:
        call()
    assert str(caught.value) and "\n" not in str(caught.value)


def test_the_version_is_the_projects():
    import tomllib

    assert tapsolve.__version__ == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.parametrize("page, title", [("README.md", "### From Python"), ("docs/json.md", "## From Python")])
def test_the_pages_first_example_runs_as_written(page, title, monkeypatch):
    text = (ROOT / page).read_text()
    code = re.search(r"```python\n(.+?)\n```", text[text.index(title):], re.S)[1]
    monkeypatch.chdir(ROOT)  # the example reads a fixture, as from a checkout
    exec(compile(code, page, "exec"), {})


@pytest.mark.phone
def test_connect_reads_and_taps_a_phone(harness, monkeypatch):
    from phonesim import apps
    from phonesim.phone import PRESETS, Phone

    preset = PRESETS["1080x2400"]
    app = apps.create("numbermatch", preset, seed=3)
    vp = harness.add(Phone(preset, app))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(harness.adb_port))
    phone = tapsolve.connect(vp.serial)
    assert phone.serial == vp.serial and phone.model == preset.model
    shot = phone.screenshot()
    assert shot.shape == (preset.height, preset.width, 3)
    assert tapsolve.read(shot)["board"] == app.truth()["board"]  # BGR in, as OpenCV's
    reading = phone.read()
    assert reading["board"] == app.truth()["board"]
    phone.tap(*reading["cells"]["4"])
    assert app.selected == 4
    with pytest.raises(tapsolve.TapsolveError, match="no-such-phone"):
        tapsolve.connect("no-such-phone")
    vp.stop()


@pytest.mark.phone
def test_a_phone_from_python_as_a_uiautomator2_user_expects(harness, monkeypatch, capfd):
    """Keys, shell, close and a context manager; every bad argument an InputError (no NaN, no
    point off the screen, no swipe of days); a tap on a phone that went away waits for it and
    raises PhoneCameBack, never returns as if it had tapped; nothing printed, all logged."""
    import math
    import threading

    from phonesim import apps
    from phonesim.phone import PRESETS, Phone

    preset = PRESETS["1080x2400"]
    app = apps.create("numbermatch", preset, seed=3)
    vp = harness.add(Phone(preset, app))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(harness.adb_port))
    other = f"localhost:{vp.server.port}"  # not connected yet: connect says so (logged, never printed)
    capfd.readouterr()
    with tapsolve.connect(other) as phone:
        assert phone.shell("getprop ro.product.model") == preset.model + "\n"
        for x, y in ((math.nan, 5), (5, math.inf), (1e10, 5), (-1, 5), ("3", 5), (True, 5)):
            with pytest.raises(tapsolve.InputError):
                phone.tap(x, y)
        for ms in (10 ** 9, -1, math.nan, "400"):
            with pytest.raises(tapsolve.InputError):
                phone.swipe(10, 10, 10, 900, ms=ms)
        for name in ("FOO", 4, None):
            with pytest.raises(tapsolve.InputError):
                phone.key(name)
        with pytest.raises(tapsolve.InputError):
            phone.shell(None)
        assert app.selected is None and not phone.closed
        reading = phone.read()
        phone.back()  # (BACK on the game's board: nothing to close, the board stays)
        vp.stop()
        threading.Timer(1.0, vp.restart).start()
        with pytest.raises(tapsolve.PhoneCameBack, match="look again"):
            phone.tap(*reading["cells"]["4"])  # waited for the phone: the tap is not sent blind
        assert app.selected is None
        phone.tap(*phone.read()["cells"]["4"])  # looked again: the tap lands
        assert app.selected == 4
    assert phone.closed and "closed" in repr(phone)
    with pytest.raises(tapsolve.TapsolveError, match="was closed"):
        phone.tap(5, 5)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    harness.client.disconnect(other)
    vp.stop()


@pytest.mark.phone
def test_play_from_python_clears_the_stage_and_says_what_it_did(harness, monkeypatch, capfd):
    from phonesim import apps
    from phonesim.phone import PRESETS, Phone

    preset = PRESETS["1080x2400"]
    app = apps.create("numbermatch", preset, seed=3)
    vp = harness.add(Phone(preset, app))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(harness.adb_port))
    capfd.readouterr()
    done = tapsolve.play(vp.serial, game="numbermatch")
    assert done["game"] == "numbermatch" and done["stages"] == 1 and done["moves"] > 0 and not done["stopped"]
    assert app.truth()["screen"] == "stage_complete" and vp.wrong_taps == 0
    assert capfd.readouterr() == ("", "")
    vp.stop()
