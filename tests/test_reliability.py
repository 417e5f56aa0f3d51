"""Issue 13 as a user meets it: bad input of every kind ends in one line and an exit code,
profiles cannot mislead, and the installed package is whole."""

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from helpers import tapsolve

import vision
from assistant import session
from calibration import store
from vision import schema

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
@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
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


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_a_phone_that_played_one_game_can_play_the_other(config):
    """A stored Flip 9 profile must not make a Number Match screen unreadable, nor the reverse."""
    for name, game in [("flip9_buttons_fresh", "flip9"), ("numbermatch_fresh", "numbermatch"),
                       ("flip9_buttons_fresh", "flip9")]:
        run = tapsolve("read", str(SHOTS / f"{name}.png"), "--model", "Pixel 7", "--json")
        assert run.returncode == 0, run.stderr
        out, truth = json.loads(run.stdout), json.loads((SHOTS / f"{name}.json").read_text())
        assert out["game"] == game == truth["game"]
        assert (out["board"]["cards"] == truth["state"]["cards"] if game == "flip9"
                else out["board"]["cells"] == truth["board"]["cells"])
    assert sorted(p.name for p in config.iterdir()) == ["pixel-7_1080x2400_flip9_light.json",
                                                         "pixel-7_1080x2400_numbermatch_light.json"]


@pytest.fixture(scope="module")
def good_profile(tmp_path_factory) -> dict:
    """The profile JSON a read of numbermatch_fresh.png stores (built once: tesseract is slow)."""
    with pytest.MonkeyPatch.context() as mp:
        folder = tmp_path_factory.mktemp("config")
        mp.setenv("XDG_CONFIG_HOME", str(folder))
        session.read(vision.load_image(SHOTS / "numbermatch_fresh.png"), "Pixel 7", "numbermatch")
        return json.loads((folder / "tapsolve/profiles/pixel-7_1080x2400_numbermatch_light.json").read_text())


@pytest.fixture
def stored(config, good_profile) -> tuple[Path, dict]:
    """That profile stored in this test's folder, and a copy of its JSON to change."""
    path = config / "pixel-7_1080x2400_numbermatch_light.json"
    config.mkdir(parents=True)
    path.write_text(json.dumps(good_profile))
    return path, json.loads(json.dumps(good_profile))


def test_the_stored_profiles_pass_the_schema(stored):
    path, data = stored
    assert schema.problem(data) is None
    data["points"] = {"touching": 1, "row_break": 2, "gap": 4, "row": 10, "clear": 150}
    assert schema.problem(data) is None  # the points table learned in play belongs in a profile
    kept = {"animations": {"pair": [0.21, 0.25], "add": [0.0, 0.59]}}
    data["channels"] = {"scrcpy": kept}
    assert schema.problem(data) is None  # so do the animation times, per channel
    assert store.Profile.from_json(data).timing("scrcpy") == (kept["animations"], {})
    kept["touches"] = {"pair": 40, "add": 2}
    assert schema.problem(data) is None  # and how many touches they were learned over
    assert store.Profile.from_json(data).timing("scrcpy") == (kept["animations"], kept["touches"])


def test_a_glyph_with_one_value_not_a_plain_number_in_range_is_refused_by_name(stored):
    """A glyph's hundreds of values are checked in one pass (a first game saves its profile
    some 8 times); one that is NaN, infinite, true, text or out of 0-1 is still refused, named."""
    _, data = stored
    name, font = next(iter(data["fonts"].items()))
    digit, glyph = next(iter(font.items()))
    for wrong, said in ((float("nan"), "nan, not a number"), (float("inf"), "inf, not a number"),
                        (True, "True, not a number"), ("0.5", "'0.5', not a number"), (1.5, "1.5, outside 0-1")):
        mean = list(glyph["mean"])
        mean[len(mean) // 2] = wrong
        glyph_now = {**glyph, "mean": mean}
        problem = schema.problem({**data, "fonts": {**data["fonts"], name: {**font, digit: glyph_now}}})
        assert problem is not None and f".{digit}.mean is {said}" in problem
    assert schema.problem(data) is None


def test_a_profile_stored_before_times_were_kept_per_channel_still_loads(stored):
    """Its times at the top ("animations", "touches") were learned on a channel no longer
    known: the profile loads (nothing else it learned is lost) and they start no clock."""
    path, data = stored
    data["animations"], data["touches"] = {"pair": [0.21, 0.25]}, {"pair": 40}
    path.write_text(json.dumps(data))
    profile = store.load(path)
    assert profile is not None and profile.fonts and profile.channels == {} and profile.timing("scrcpy") == ({}, {})
    data["accepts"] = {"taps_while_animating": False, "row_window": 0.48}
    assert schema.problem(data) is None  # what play saw the phone's game accept
    assert store.Profile.from_json(data).accepts == data["accepts"]
    for wrong in ({"row_window": -1}, {"row_window": "half a second"}, {"row_window": 11.0}):
        assert "accepts.row_window" in schema.problem({**data, "accepts": wrong})
    assert "channels.scrcpy" in schema.problem({**data, "channels": {"scrcpy": {"animations": {"pair": [0.3, 0.2]}}}})
    assert "unknown keys" in schema.problem({**data, "channels": {"scrcpy": {"times": {}}}})


def test_the_schema_asks_each_game_what_points_it_keeps(stored):
    """Number Match's kinds of points belong to its reader: a Flip 9 profile keeps none."""
    _, data = stored
    data["points"] = {"row": 10}
    assert schema.problem(data) is None
    data["points"] = {"combo": 5}
    assert "combo" in schema.problem(data)
    flip9 = {**data, "game": "flip9", "geometry": {}, "fonts": {}, "points": {"row": 10}}
    assert "points" in schema.problem(flip9)
    del flip9["points"]
    assert schema.problem(flip9) is None


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
    "a kind of points the game does not have": _set(["points"], {"combo": 5}),
    "a count of true": lambda d: d["fonts"]["cell"]["5"].update(count=True),
    "a spread wider than correlations go": lambda d: d["fonts"]["cell"]["5"].update(spread=1e6),
    "xs out of order": lambda d: d["geometry"]["xs"].reverse(),
    "an animation seen still before it was seen moving": _set(["animations"], {"pair": [0.3, 0.2]}),
    "an animation of a minute": _set(["animations"], {"add": [0.0, 60.0]}),
    "a touch count of a half": _set(["touches"], {"pair": 0.5}),
    "a negative touch count": _set(["touches"], {"add": -3}),
}


@pytest.mark.parametrize("name", list(WRONG))
def test_a_wrong_but_well_formed_profile_fails_the_check_on_load(stored, name):
    path, data = stored
    WRONG[name](data)
    path.write_text(json.dumps(data))
    with pytest.raises(store.ProfileError, match="is wrong"):
        store.load(path)


def test_a_wrong_profile_is_rebuilt_with_one_line(stored):
    """A pitch of "x" (or 0) crashed read and play; now the profile is rebuilt, and said."""
    path, data = stored
    data["geometry"]["pitch"] = "x"
    path.write_text(json.dumps(data))
    run = tapsolve("read", str(SHOTS / "numbermatch_fresh.png"), "--model", "Pixel 7", "--json")
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip() == (f"tapsolve: the stored profile {path} is wrong (geometry.pitch is 'x', "
                                  "not a number): rebuilt it")
    truth = json.loads((SHOTS / "numbermatch_fresh.json").read_text())
    assert json.loads(run.stdout)["board"]["cells"] == truth["board"]["cells"]
    assert schema.problem(json.loads(path.read_text())) is None  # the rebuilt one replaced it


def test_a_profile_of_binary_garbage_is_rebuilt(stored):
    path, _ = stored
    path.write_bytes(bytes(range(256)) * 4)
    run = tapsolve("read", str(SHOTS / "numbermatch_fresh.png"), "--model", "Pixel 7")
    assert run.returncode == 0 and "corrupt (not JSON): rebuilt it" in run.stderr
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

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    shipped = set(packages) if isinstance(packages, list) else \
        set(find_packages(str(ROOT), include=packages["find"]["include"]))
    for top in ("assistant", "calibration", "phonesim", "solver", "vision"):
        for init in (ROOT / top).rglob("__init__.py"):
            package = ".".join(init.parent.relative_to(ROOT).parts)
            assert package in shipped, package
    assert not any(p.startswith(("tests", "benchmarks")) for p in shipped)


def test_the_schema_example_holds():
    import doctest

    result = doctest.testmod(schema)
    assert result.attempted > 0 and result.failed == 0


# -- caches and the virtual phone -------------------------------------------------------------

def test_an_all_zero_flip9_table_is_rebuilt(tmp_path):
    """It made `solve flip9` answer "0 swaps (optimal)" for any cards."""
    import numpy as np

    from solver import _flip9_kernel as kernel

    cache = tmp_path / "tapsolve"
    cache.mkdir()
    path = cache / f"flip9-distances-v{kernel.TABLE_VERSION}.npy"
    np.save(path, np.zeros(kernel.STATES, np.uint8))
    run = tapsolve("solve", "flip9", "315927486", env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "6 swaps (optimal)"
    from solver.flip9 import table_is_sound

    assert table_is_sound(np.load(path))  # the rebuilt table replaced the wrong one


def test_a_wrong_flip9_table_fails_the_check():
    import numpy as np

    from solver import flip9

    table = flip9.distance_table()
    assert flip9.table_is_sound(table)
    assert not flip9.table_is_sound(table[:-10])
    assert not flip9.table_is_sound(np.zeros_like(table))
    off_by_one = table.copy()
    off_by_one[10:] += 1
    assert not flip9.table_is_sound(off_by_one)


def test_phonesim_caps_its_clients():
    import socket

    from phonesim import adb
    from phonesim.apps import create
    from phonesim.phone import PRESETS, Phone

    preset = PRESETS["720x1600"]
    with adb.AdbServer(Phone(preset, create("flip9", preset))) as server:
        socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(adb.MAX_CLIENTS + 4)]
        try:
            # past the cap, the silent ones that came first are closed by the phone to make room:
            # they read end of stream at once (test_phonesim_adb: idle clients, busy ones)
            dropped = 0
            for s in socks[:4]:
                s.settimeout(10)
                dropped += s.recv(1) == b""
            assert dropped == 4 and server.clients == adb.MAX_CLIENTS
        finally:
            for s in socks:
                s.close()


def test_phonesim_sets_nothing_aside_for_a_payload_that_does_not_come():
    """A header may promise 1 MiB; memory is taken only as bytes arrive."""
    import socket
    import tracemalloc

    from phonesim import adb

    ours, theirs = socket.socketpair()
    connection = adb.Connection(server=None, sock=theirs, address="test")
    ours.sendall(b"x" * 1000)
    ours.close()
    tracemalloc.start()
    try:
        with pytest.raises(EOFError):
            connection._read_exact(adb.MAX_PAYLOAD)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        theirs.close()
    assert peak < adb.MAX_PAYLOAD // 4


# -- play on the virtual phone ----------------------------------------------------------------

def start_play(harness, faults=None, model_profile=None, **options):
    """A phone on the harness's adb server and a loop that plays Number Match on it."""
    from assistant.phone.device import connect
    from assistant.link import Link
    from assistant.loop import Loop
    from assistant.session import Session
    from phonesim import apps
    from phonesim.phone import PRESETS, Faults, Phone

    preset = PRESETS["1080x2400"]
    phone = Phone(preset, apps.create("numbermatch", preset, **options), faults or Faults())
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    loop = Loop(Session(link), game="numbermatch", objective="fast", say=said.append, wait_unknown=5)
    return vp, phone, loop, said


def test_a_phone_that_drops_half_the_taps_is_not_ignoring_them(harness, config):
    """--drop-taps 0.5 on seed 1 stopped with "phone ignores taps" after 11 taps had landed."""
    from assistant import autoplay
    from phonesim.phone import Faults

    vp, phone, loop, said = start_play(harness, Faults(drop_taps=0.5, seed=1), seed=1)
    assert autoplay.play(loop, say=said.append) == 0
    assert phone.app.truth()["screen"] == "stage_complete"
    assert phone.taps_dropped > 10 and loop.tally.repeats > 10
    vp.stop()


def test_a_phone_that_drops_every_tap_ignores_taps_and_says_how_many(harness, config):
    from assistant import autoplay
    from phonesim.phone import Faults
    from solver.errors import TapsolveError

    vp, phone, loop, said = start_play(harness, Faults(drop_taps=1.0), seed=1)
    with pytest.raises(TapsolveError, match=r"ignores taps \(6 in a row, none landed\)"):
        autoplay.play(loop, say=said.append)
    assert phone.taps_done == 0
    vp.stop()


def test_a_profile_with_two_templates_swapped_is_caught_in_play(harness, config):
    """A profile with two templates swapped is caught, by the read's check of its templates
    against the drawn digits (or else by the game refusing a pair the profile called legal):
    the profile is mended and play goes on, without a wrong tap (not "phone ignores taps")."""
    from assistant import autoplay

    vp, phone, loop, said = start_play(harness, seed=1)
    loop.look()  # builds and stores the phone's profile
    path = next(config.glob("*_numbermatch_light.json"))
    data = json.loads(path.read_text())
    cell = data["fonts"]["cell"]
    cell["2"], cell["3"] = cell["3"], cell["2"]  # (1 and 9, or 4 and 5 here, keep every pair a pair)
    path.write_text(json.dumps(data))
    assert schema.problem(data) is None  # well formed: only the digits can tell
    vp.stop()

    vp, phone, loop, said = start_play(harness, seed=1)
    assert autoplay.play(loop, say=said.append) == 0
    assert phone.app.truth()["screen"] == "stage_complete" and phone.wrong_taps == 0
    from calibration import store

    assert store.load(path).fonts["cell"].problem() is None  # stored mended
    vp.stop()


@pytest.mark.phone
def test_an_adb_server_that_dies_mid_play_is_restarted_quietly_and_left_running(tmp_path):
    """adbutils used to start a new server itself: "daemon started successfully" in our output.
    Now tapsolve starts it, says so with its process id, and leaves it running as adb does (its
    network phones stay connected); the test stops it by that id."""
    import re
    import signal
    import time

    from phonesim import apps
    from phonesim.harness import Harness, _reachable
    from phonesim.phone import PRESETS, Faults, Phone

    preset = PRESETS["1080x2400"]
    with Harness() as h:
        vp = h.add(Phone(preset, apps.create("numbermatch", preset, seed=1), Faults(tap_latency=0.1)))
        env = dict(h.env, XDG_CONFIG_HOME=str(tmp_path), ADB_LIBUSB="0", ADB_MDNS_AUTO_CONNECT="0",
                   PYTHONUNBUFFERED="1")
        play = subprocess.Popen([sys.executable, "-m", "assistant", "play", "--serial", vp.serial,
                                 "--objective", "fast"], cwd=ROOT, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out = []
            for line in play.stdout:  # play is under way once a move has landed
                out.append(line)
                if "[1/" in line:
                    break
            os.kill(h.pid, signal.SIGKILL)  # the user's server dies under tapsolve
            h._process.wait(timeout=10)
            rest, err = play.communicate(timeout=300)
        finally:
            if play.poll() is None:
                play.kill()
        out = "".join(out) + rest
        assert play.returncode == 0, err
        assert "daemon" not in out + err and "Traceback" not in err
        started = re.search(rf"started an adb server on port {h.adb_port} \(process (\d+);", err)
        assert started, err
        assert "done: " in out
        left_running = _reachable(h.adb_port)
        os.kill(int(started[1]), signal.SIGTERM)  # the test's to stop, by its process id
        deadline = time.monotonic() + 10
        while _reachable(h.adb_port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert left_running and "keeps running after tapsolve" in err


# -- the sweep: bad input over every command -----------------------------------------------------

def run_main(argv, capsys):
    """`tapsolve ARGV` in this process (a sweep of subprocesses would cost a minute): (exit
    code, stdout, stderr). An exception escaping main is the traceback a user would see."""
    from assistant.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def sweep_cases(tmp: Path):
    """(argv, exit code) for bad input (2) and a failed device (1), over every command; the
    files they name are made by make_sweep_files."""
    text, board_json, a_file = tmp / "notes.png", tmp / "board.json", tmp / "a-file"
    png = str(SHOTS / "numbermatch_fresh.png")
    bad = [
        ("solve",), ("solve", "chess", "123"), ("solve", "numbermatch", "12a"),
        ("solve", "numbermatch", "123", "--adds", "-1"), ("solve", "numbermatch", "123", "--adds", str(2 ** 63)),
        ("solve", "numbermatch", "123", "--budget", "nan"), ("solve", "numbermatch", "123", "--budget", "0"),
        ("solve", "numbermatch", "{not json"), ("solve", "numbermatch", str(tmp / "missing.json")),
        ("solve", "numbermatch", str(board_json)), ("solve", "numbermatch", '{"cells": [1, 9], "adds_left": true}'),
        ("solve", "numbermatch", '{"cells": [1, 9], "score": -3}'), ("solve", "numbermatch", "[1, 9]"),
        ("solve", "flip9", "12345678"), ("solve", "flip9", "3159274869"), ("solve", "flip9", "x"),
        ("solve", "flip9", "315927486", "--must", "10"), ("solve", "flip9", "315927486", "--must", "1e99"),
        ("read",), ("read", str(tmp / "missing.png")), ("read", str(text)), ("read", str(tmp)),
        ("read", png, "--serial", "x"), ("read", png, "--first-row", "-1"), ("read", png, "--game", "chess"),
        ("calibrate", "--image", str(tmp / "missing.png")), ("calibrate", "--image", str(text)),
        ("calibrate", "--game", "chess"),
        ("play", "--dry-run", "--budget", "0"), ("play", "--dry-run", "--budget", "inf"),
        ("play", "--dry-run", "--stages", "0"), ("play", "--dry-run", "--game", "chess"),
        ("guide", "--export", str(a_file / "steps")), ("guide", "--budget", "-1", "--export", str(tmp)),
        ("phone", "--port", "99999"), ("phone", "--port", "5560"), ("phone", "--preset", "nokia"),
        ("phone", "--drop-taps", "2"), ("phone", "--drop-taps", "nan"), ("phone", "--tap-latency", "inf"),
        ("phone", "--size", "1"), ("phone", "--adds", "100"), ("phone", "--seed", "-1"),
        ("bench",), ("bench", "numbermatch", "--boards", "0"), ("bench", "numbermatch", "--size", "1"),
        ("bench", "numbermatch", "--adds", "1000"), ("bench", "numbermatch", "--budget", "-1"),
        ("bench", "numbermatch", "--seed", "x"), ("nonsense",),
        ("connect",), ("connect", "host:99999"), ("disconnect", "x:y"),
        ("pair", "192.168.1.20:37000"), ("pair", "192.168.1.20:37000", "12a456"),
    ]
    device = [
        ("read", "--serial", "emulator-5554"), ("calibrate",), ("play", "--dry-run"), ("play",),
        ("guide", "--export", str(tmp / "steps")), ("devices",), ("devices", "--scan"),
        ("connect", "127.0.0.1:5555"), ("connect", "192.168.1.20"), ("disconnect",),
        ("pair", "127.0.0.1:37000", "123456"),
    ]
    return [(argv, 2) for argv in bad] + [(argv, 1) for argv in device]


def make_sweep_files(tmp: Path) -> None:
    (tmp / "notes.png").write_text("not an image")
    (tmp / "board.json").write_text('{"game": "numbermatch", "cells": [1, 9], "stage": "two"}')
    (tmp / "a-file").write_text("")


SWEEP = sweep_cases(Path("TMP"))  # for the ids; each test makes its cases in its own folder


@pytest.mark.parametrize("index", range(len(SWEEP)), ids=[" ".join(a[:4]).replace(str(SHOTS), "SHOTS") for a, _ in SWEEP])
def test_bad_input_sweep(index, tmp_path, monkeypatch, capsys):
    """No traceback, one line on stderr, exit 2 for bad input and 1 for a failed device (here:
    no adb server where ANDROID_ADB_SERVER_HOST and _PORT point, a host that is not this
    computer's own name, where tapsolve starts none)."""
    from phonesim.harness import free_port

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.2")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    make_sweep_files(tmp_path)
    argv, expected = sweep_cases(tmp_path)[index]
    code, out, err = run_main(argv, capsys)
    assert code == expected, (code, err)
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("tapsolve") and "Traceback" not in err


def test_an_export_folder_that_cannot_be_written_is_said_before_the_phone_is_looked_for(tmp_path, capsys, monkeypatch):
    """A folder that exists but takes no new file (/sys: not even root may create one there; a
    read-only folder or file system likewise) was found out only at the first picture, after
    the phone was read: now it is the one line, naming the folder, before any phone is looked for
    (here there is no adb server at all)."""
    from phonesim.harness import free_port

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))
    code, out, err = run_main(["guide", "--export", "/sys", "--serial", "127.0.0.1:5555"], capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["tapsolve: error: cannot write the export to /sys: Permission denied; "
                                        "give a folder you can write"]


def test_an_adb_server_port_where_none_runs_gets_one_as_adb_does(tmp_path):
    """ANDROID_ADB_SERVER_PORT set and no server there: adb starts one on that port (adb
    client/adb_client.cpp, adb_connect -> launch_server); tapsolve said it could not reach it."""
    import re
    import signal

    from phonesim.harness import _reachable, free_port

    port = free_port()
    run = tapsolve("devices", port=port, env=dict(os.environ, ADB_LIBUSB="0", ADB_MDNS_AUTO_CONNECT="0"))
    started = re.search(rf"started an adb server on port {port} \(process (\d+);", run.stderr)
    try:
        assert started, run.stderr
        assert _reachable(port) and "no phone found" in run.stderr and "Traceback" not in run.stderr
    finally:
        if started:
            os.kill(int(started[1]), signal.SIGTERM)  # the test's to stop, by its process id


def test_play_goes_on_when_profiles_cannot_be_stored(harness, tmp_path, monkeypatch):
    """A config folder that cannot be written crashed play before any tap."""
    from assistant import autoplay

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))
    store._unwritable.clear()
    vp, phone, loop, said = start_play(harness, seed=2)
    assert autoplay.play(loop, say=said.append) == 0
    assert phone.app.truth()["screen"] == "stage_complete"
    assert sum("going on without saving" in line for line in said) == 1
    vp.stop()


def test_a_server_the_user_had_running_is_left_alone(harness):
    from phonesim.harness import _reachable

    run = tapsolve("devices", port=harness.adb_port)
    assert "started an adb server" not in run.stderr and "Traceback" not in run.stderr
    assert _reachable(harness.adb_port) and harness._process.poll() is None


# -- the phone comes back different --------------------------------------------------------------

def swap_phone(vp, preset_name: str, seed: int):
    """Another phone on ``vp``'s address (as another device taking the Wi-Fi address, or the same
    one after `wm size`): the adb server loses the old one and reconnects to this one by itself."""
    from phonesim import apps
    from phonesim.adb import AdbServer
    from phonesim.phone import PRESETS, Phone

    preset = PRESETS[preset_name]
    other = Phone(preset, apps.create("numbermatch", preset, seed=seed))
    port, host = vp.server.port, vp.server.host
    vp.server.stop()
    vp.phone, vp.server = other, AdbServer(other, port=port, host=host).start()
    return other


def test_the_input_size_is_asked_again_when_the_screen_changes():
    """`wm size 720x1600` on a 1080x2400 phone, with no reconnect: screenshots shrink, and taps
    must no longer be scaled by the size read at connect."""
    from assistant.phone.device import Device
    from assistant.phone.server import Client

    device = Device(Client("127.0.0.1", 1), "x")
    answers = iter(["Physical size: 1080x2400\n", "", "Physical size: 1080x2400\nOverride size: 720x1600\n", ""])
    asked = []
    device.shell = lambda command, timeout=None: asked.append(command) or next(answers)
    device.screen.size = (1080, 2400)
    # (the display's rotation is asked with it: `dumpsys display`, here naming no viewport)
    assert device.input_size() == device.input_size() == (1080, 2400) and asked == ["wm size", "dumpsys display"]
    device.screen.size = (720, 1600)  # the next screenshot, after the override
    assert device.input_size() == (720, 1600) and len(asked) == 4
    assert device._to_input(360, 800) == (360, 800)  # not scaled by 1.5 into nothing


def test_a_phone_that_comes_back_with_another_screen_is_read_again(harness, config):
    """Play went on scaling taps by the old screen's size (24 taps into nothing), then blamed the
    phone ("drops taps"). Now the screen's size and the board are read again before the next
    tap, and the game is played out on the phone that came back, without a wrong tap."""
    from assistant import autoplay

    vp, phone, loop, said = start_play(harness, seed=1)
    swapped = []

    def swap_after_three_moves(loop):
        if loop.tally.moves >= 3 and not swapped:
            swapped.append(swap_phone(vp, "720x1600", seed=2))
        return True

    assert autoplay.play(loop, say=said.append, show=swap_after_three_moves) == 0
    (other,) = swapped
    assert other.app.truth()["screen"] == "stage_complete"
    assert other.wrong_taps == 0 and other.taps_done > 0 and phone.wrong_taps == 0
    assert loop.link.device.input_size() == (720, 1600)
    assert any("came back" in line for line in said), said
    assert not any("drops taps" in line or "ignores taps" in line for line in said)
    vp.stop()


def test_taps_that_met_a_resized_screen_are_not_blamed_on_the_phone(harness, config):
    """The screen changes size under play without a reconnect (as `wm size` does) while taps are
    on their way: the board shows unchanged, and the taps are not counted lost and sent again
    by the old size; the screen is read again and the game played out on it."""
    from assistant import autoplay
    from phonesim import apps
    from phonesim.phone import PRESETS, Phone
    from phonesim.shell import Shell

    vp, phone, loop, said = start_play(harness, seed=1)
    device, swapped = loop.link.device, []
    device.use_channel("exec")  # (a scrcpy server would stay with the phone swapped out)
    send = device.taps

    def taps(points):
        if loop.tally.moves >= 3 and not swapped:
            preset = PRESETS["720x1600"]
            other = Phone(preset, apps.create("numbermatch", preset, seed=1))
            other.app.board = phone.app.board.copy()  # the same game on a smaller screen
            vp.server.phone, vp.server.shell = other, Shell(other)
            swapped.append(other)
            return  # (these taps reached neither screen: the next read shows the board unchanged)
        send(points)

    device.taps = taps
    assert autoplay.play(loop, say=said.append) == 0
    (other,) = swapped
    assert other.app.truth()["screen"] == "stage_complete" and other.wrong_taps == 0
    assert any("screen changed size" in line for line in said), said
    assert loop.tally.repeats == 0 and not any("drops taps" in line for line in said)
    vp.stop()
