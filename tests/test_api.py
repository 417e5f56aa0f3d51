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
