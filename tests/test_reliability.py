"""Issue 13 as a user meets it: bad input of every kind ends in one line and an exit code,
profiles cannot mislead, and the installed package is whole."""

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import tapsolve

import vision
from calibration import schema, store

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "fixtures" / "1080x2400" / "light"


def one_line_error(run, code: int, words: str = "") -> None:
    """The run failed the way a person should see it: that exit code, one line, no traceback."""
    assert run.returncode == code, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert words.lower() in run.stderr.lower(), run.stderr


# -- the command line -------------------------------------------------------------------------

def test_no_command_prints_the_everyday_commands():
    run = tapsolve()
    assert run.returncode == 0 and run.stderr == ""
    for command in ("demo", "devices", "guide", "play", "read", "solve"):
        assert f"tapsolve {command}" in run.stdout


@pytest.mark.parametrize("args", [
    ("solve", "numbermatch", "123", "--adds", str(2 ** 63)),
    ("solve", "numbermatch", json.dumps({"game": "numbermatch", "cells": [1, 9], "adds_left": 2 ** 63})),
    ("solve", "numbermatch", json.dumps({"game": "numbermatch", "cells": [1, 9], "score": "x"})),
    ("solve", "numbermatch", json.dumps({"game": "numbermatch", "cells": [1, 9], "stage": [1]})),
    ("solve", "numbermatch", json.dumps({"game": "numbermatch", "cells": [1, 9], "score": 1e300})),
    ("phone", "--port", "99999"),
    ("phone", "--tap-latency", "nan"),
    ("phone", "--tap-latency", "inf"),
    ("demo", "--tap-latency", "nan"),
    ("bench", "numbermatch", "--size", "100000000"),
])
def test_out_of_range_numbers_are_bad_input(args):
    one_line_error(tapsolve(*args), 2)


def test_a_closed_pipe_ends_quietly():
    """`tapsolve solve ... | head -1`: the reader went away; no BrokenPipeError."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # gone before the first line is written: every write fails
    run = subprocess.run([sys.executable, "-m", "assistant", "solve", "flip9", "315927486"], cwd=ROOT,
                         stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60)
    os.close(write_end)
    assert run.returncode == 0 and run.stderr == "", run.stderr


# -- profiles ---------------------------------------------------------------------------------

@pytest.fixture
def config(tmp_path, monkeypatch):
    """A private profile folder for this test (and the processes it starts)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store._unwritable.clear()
    return tmp_path / "tapsolve" / "profiles"


def test_a_phone_that_played_one_game_can_play_the_other(config):
    """A stored Flip 9 profile must not make a Number Match screen unreadable, nor the reverse."""
    for name, game in [("flip9_buttons_fresh", "flip9"), ("numbermatch_fresh", "numbermatch"),
                       ("flip9_buttons_fresh", "flip9"), ("numbermatch_fresh", "numbermatch")]:
        run = tapsolve("read", str(SHOTS / f"{name}.png"), "--model", "Pixel 7", "--json")
        assert run.returncode == 0, run.stderr
        out, truth = json.loads(run.stdout), json.loads((SHOTS / f"{name}.json").read_text())
        assert out["game"] == game == truth["game"]
        assert (out["state"]["cards"] == truth["state"]["cards"] if game == "flip9"
                else out["board"]["cells"] == truth["board"]["cells"])
    assert sorted(p.name for p in config.iterdir()) == ["pixel-7_1080x2400_flip9_light.json",
                                                         "pixel-7_1080x2400_numbermatch_light.json"]


def stored_profile(config) -> tuple[Path, dict]:
    image = vision.load_image(SHOTS / "numbermatch_fresh.png")
    store.read(image, "Pixel 7", "numbermatch")
    path = config / "pixel-7_1080x2400_numbermatch_light.json"
    return path, json.loads(path.read_text())


def test_the_stored_profiles_pass_the_schema(config):
    path, data = stored_profile(config)
    assert schema.problem(data) is None
    data["points"] = {"touching": 1, "row_break": 2, "gap": 4, "row": 10, "clear": 150}
    assert schema.problem(data) is None  # the points table learned in play belongs in a profile


def _set(path: list, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def _swap_key(font: str, old: str, new: str):
    def change(data):
        data["fonts"][font][new] = data["fonts"][font].pop(old)
    return change


WRONG = {
    "pitch is text": _set(["geometry", "pitch"], "x"),
    "pitch is 0": _set(["geometry", "pitch"], 0),
    "width is a string": _set(["width"], "1080"),
    "a glyph under '12'": _swap_key("cell", "1", "12"),
    "a glyph under an Arabic-Indic 3": _swap_key("cell", "3", "٣"),
    "a glyph of the wrong size": lambda d: d["fonts"]["cell"]["5"].update(mean=[0.5] * 100),
    "a glyph's pixel out of range": lambda d: d["fonts"]["cell"]["5"]["mean"].__setitem__(3, 7.0),
    "an unknown key": _set(["shape"], "round"),
    "a points table with a negative": _set(["points"], {"gap": -4}),
    "a count of true": lambda d: d["fonts"]["cell"]["5"].update(count=True),
    "xs out of order": lambda d: d["geometry"]["xs"].reverse(),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_a_wrong_but_well_formed_profile_is_rebuilt_with_one_line(config, name):
    path, data = stored_profile(config)
    WRONG[name](data)
    path.write_text(json.dumps(data))
    assert schema.problem(data)
    run = tapsolve("read", str(SHOTS / "numbermatch_fresh.png"), "--model", "Pixel 7", "--json")
    assert run.returncode == 0, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "is wrong" in lines[0] and lines[0].endswith("rebuilding it"), run.stderr
    truth = json.loads((SHOTS / "numbermatch_fresh.json").read_text())
    assert json.loads(run.stdout)["board"]["cells"] == truth["board"]["cells"]
    assert schema.problem(json.loads(path.read_text())) is None  # the rebuilt one replaced it


def test_a_profile_of_binary_garbage_is_rebuilt(config):
    path, _ = stored_profile(config)
    path.write_bytes(bytes(range(256)) * 4)
    run = tapsolve("read", str(SHOTS / "numbermatch_fresh.png"), "--model", "Pixel 7")
    assert run.returncode == 0 and "corrupt (not JSON): rebuilding it" in run.stderr
    assert store.load(path) is not None


def test_a_config_folder_that_cannot_be_written(tmp_path, monkeypatch):
    """Reading goes on without storing, said once; calibrating (whose job is storing) fails."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))
    run = tapsolve("read", str(SHOTS / "numbermatch_fresh.png"), "--model", "Pixel 7")
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert run.stderr.count("going on without saving") == 1 and len(run.stderr.splitlines()) == 1
    one_line_error(tapsolve("calibrate", "--image", str(SHOTS / "numbermatch_fresh.png")), 1, "cannot store")


# -- the wheel -------------------------------------------------------------------------------

def test_the_wheel_takes_every_package():
    """Every folder with an __init__.py under a top-level package goes into the wheel (it once
    left phonesim.apps out: `tapsolve demo` crashed when installed with `pip install .`)."""
    from setuptools import find_packages

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    shipped = set(find_packages(str(ROOT), include=find["include"]))
    for top in ("assistant", "calibration", "phonesim", "solver", "vision"):
        for init in (ROOT / top).rglob("__init__.py"):
            package = ".".join(init.parent.relative_to(ROOT).parts)
            assert package in shipped, package
    assert not any(p.startswith(("tests", "benchmarks")) for p in shipped)
