"""A profile that is well formed but wrong (two digits' templates swapped, an 8 filed as 0, one
glyph under two digits, a template of noise) is not trusted: the read says so in one line and
reads those digits afresh; it never gives a board misread for sure."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import vision
from calibration import store
from helpers import tapsolve
from vision.glyphs import Templates
from vision.profile import Profile

ROOT = Path(__file__).resolve().parent.parent
PNG = ROOT / "fixtures" / "720x1600" / "light" / "numbermatch_fresh.png"  # shows 1, 3, 7 and 8


def swap(a, b):
    def apply(cell):
        cell[a], cell[b] = cell[b], cell[a]
    return apply


def eight_as_zero(cell):
    cell["0"] = cell.pop("8")


def eight_as_three_too(cell):
    cell["3"] = json.loads(json.dumps(cell["8"]))


def noise_for_five(cell):
    cell["5"]["mean"] = np.random.default_rng(1).random(len(cell["5"]["mean"])).round(3).tolist()


# how each profile is made wrong, and what the check says of it
TAMPERS = {
    "1 and 7 swapped": (swap("1", "7"), "the 1 template looks like a 7"),
    "8 filed as 0": (eight_as_zero, "the 0 template looks like an 8"),
    "3 and 8 swapped": (swap("3", "8"), "the 3 template looks like an 8"),
    "8 filed as 3 too": (eight_as_three_too, "the 3 and 8 templates are one glyph"),
    "5 of noise": (noise_for_five, "the 5 template looks like no digit"),
}


@pytest.fixture(scope="module")
def real():
    """The fixture's image, its truth and the profile a first read of it made (as stored)."""
    image = vision.load_image(PNG)
    truth = json.loads(PNG.with_suffix(".json").read_text())
    reading = vision.read(image)
    reading.learn()
    return image, truth, reading.profile.to_json()


def tampered(data: dict, how: str) -> Profile:
    data = json.loads(json.dumps(data))
    TAMPERS[how][0](data["fonts"]["cell"])
    return Profile.from_json(data)


def cells(reading) -> list[int]:
    return list(reading.board.cells)


def test_the_real_profile_is_trusted(real):
    image, truth, data = real
    profile = Profile.from_json(data)
    assert {name: font.problem() for name, font in profile.fonts.items()} == dict.fromkeys(profile.fonts)
    reading = vision.read(image, profile=profile, use_tesseract=False)  # its templates alone
    assert reading.sure and cells(reading) == truth["board"]["cells"]
    assert reading.refused() == "" and not any(line.startswith("profile:") for line in reading.text().splitlines())


@pytest.mark.parametrize("how", list(TAMPERS))
def test_a_wrong_template_is_not_trusted_and_its_digits_are_read_afresh(real, how):
    image, truth, data = real
    profile = tampered(data, how)
    why = TAMPERS[how][1]
    assert profile.fonts["cell"].problem() == why
    assert all(profile.fonts[name].problem() is None for name in profile.fonts if name != "cell")
    reading = vision.read(image, profile=profile)
    assert reading.sure and cells(reading) == truth["board"]["cells"]
    line = f"profile: its cell templates ({why}) not trusted: those digits read afresh"
    assert reading.text().splitlines().count(line) == 1
    # the read learned the cell digits again: taken in, they replace the wrong ones
    reading.learn()
    assert profile.changed and profile.fonts["cell"].problem() is None
    again = vision.read(image, profile=profile, use_tesseract=False)
    assert again.sure and cells(again) == truth["board"]["cells"] and again.refused() == ""


@pytest.mark.parametrize("how", ["1 and 7 swapped", "8 filed as 0", "3 and 8 swapped"])
def test_without_the_check_these_profiles_misread_for_sure(real, how, monkeypatch):
    """What the check prevents: a template is matched on its own, so a misfiled one is a
    confident misread (the tampered profiles above are worth testing)."""
    image, truth, data = real
    monkeypatch.setattr(Templates, "problem", lambda self: None)
    reading = vision.read(image, profile=tampered(data, how))
    assert reading.sure and cells(reading) != truth["board"]["cells"]


def test_without_tesseract_a_refused_font_leaves_its_digits_unsure(real):
    image, truth, data = real
    reading = vision.read(image, profile=tampered(data, "1 and 7 swapped"), use_tesseract=False)
    assert not reading.sure and reading.refused()
    assert all(c == want for k, (c, want) in enumerate(zip(cells(reading), truth["board"]["cells"]))
               if k not in reading.unsure)


def test_read_with_a_stored_wrong_profile_says_so_and_stores_a_sound_one(tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path))
    assert tapsolve("calibrate", "--image", str(PNG), "--model", "Galaxy A12", env=env).returncode == 0
    path = tmp_path / "tapsolve/profiles/galaxy-a12_720x1600_numbermatch_light.json"
    data = json.loads(path.read_text())
    swap("1", "7")(data["fonts"]["cell"])
    path.write_text(json.dumps(data))
    out = tapsolve("read", str(PNG), "--model", "Galaxy A12", env=env)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    lines = out.stdout.splitlines()
    truth = json.loads(PNG.with_suffix(".json").read_text())["board"]["cells"]
    rows = ["".join(str(c) for c in truth[k:k + 9]) for k in range(0, len(truth), 9)]
    assert lines[1:1 + len(rows)] == rows
    assert lines[1 + len(rows):] == [
        "profile: its cell templates (the 1 template looks like a 7) not trusted: those digits read afresh"]
    assert store.load(path).fonts["cell"].problem() is None  # stored again, learned afresh
