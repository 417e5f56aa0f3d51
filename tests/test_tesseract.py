"""vision/tesseract.py: images sent together read as each alone, a gathered read makes one
process for its parts' first calls, a stopped call ends its process, warm processes are taken,
a loop's repeated calls find spares, a read of an unknown game starts just the processes it
uses, and every command that reads a screen says in one line that tesseract is missing."""

import os
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from helpers import tapsolve
from vision import tesseract

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "1080x2400" / "light"


def line(text: str, width: int = 40) -> np.ndarray:
    """Black digits on white, padded, as tesseract is given a line."""
    img = np.full((72, 24 + width * len(text)), 255, np.uint8)
    cv2.putText(img, text, (12, 55), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 3)
    return img


DIGITS = tesseract.options(7, "0123456789")


def counted(monkeypatch):
    calls = []
    real = tesseract._run

    def run(images, opts, stop=None):
        calls.append(len(images))
        return real(images, opts, stop)

    monkeypatch.setattr(tesseract, "_run", run)
    return calls


def test_several_images_in_one_process_read_as_each_alone():
    images = [line("407"), line("12"), line("9"), line("5318")]
    alone = [tesseract.run([image], DIGITS)[0].strip() for image in images]
    together = [t.strip() for t in tesseract.run(images, DIGITS)]
    assert together == alone and alone[0] == "407" and alone[3] == "5318"
    boxes = tesseract.options(7, "0123456789", boxes=True)
    assert tesseract.run(images, boxes) == [tesseract.run([image], boxes)[0] for image in images]
    assert [len(b.splitlines()) for b in tesseract.run(images, boxes)] == [3, 2, 1, 4]


def test_a_gathered_read_sends_its_parts_first_calls_in_one_process(monkeypatch):
    calls = counted(monkeypatch)
    gather = tesseract.Gather(3)
    out = {}

    def part(name, texts):  # each part's first call is gathered, a second goes alone
        out[name] = [tesseract.run([line(t)], DIGITS)[0].strip() for t in texts]

    threads = [threading.Thread(target=gather.part, args=(part, *a))
               for a in (("a", ["31", "8"]), ("b", ["64"]), ("c", []))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert out == {"a": ["31", "8"], "b": ["64"], "c": []}
    assert calls == [2, 1]  # "31" and "64" together; "8" after them


def started_processes(monkeypatch) -> list:
    """The tesseract processes started from now on, in order."""
    started = []
    real = tesseract.start

    def start(opts):
        started.append(real(opts))
        return started[-1]

    monkeypatch.setattr(tesseract, "start", start)
    return started


def test_a_stopped_call_ends_its_process_and_later_ones_start_none(monkeypatch):
    stop = tesseract.Stop()
    started = started_processes(monkeypatch)
    done = []
    t = threading.Thread(target=lambda: done.append(tesseract.run([line("7" * 400, width=40)], DIGITS, stop)))
    t.start()
    while not started:
        threading.Event().wait(0.01)
    stop.stop()
    t.join(60)
    assert done == [[""]] and started[0].poll() is not None
    assert tesseract.run([line("7")], DIGITS, stop) == [""] and len(started) == 1


def test_a_warm_process_is_taken_by_the_call_with_its_options(monkeypatch):
    tesseract.warm(DIGITS)
    warm = list(tesseract._warm[DIGITS])
    assert tesseract.run([line("26")], DIGITS)[0].strip() == "26"
    assert warm[0].returncode == 0 and warm[0] not in tesseract._warm.get(DIGITS, [])
    tesseract.warm(DIGITS)
    left = tesseract._warm[DIGITS][0]
    tesseract.shutdown()  # at exit: the ones no call took are ended
    assert left.returncode is not None and not tesseract._warm


def test_a_loop_finds_a_spare_process_for_a_call_it_makes_again_and_a_single_read_keeps_none(monkeypatch):
    started = started_processes(monkeypatch)
    try:
        for text in ("31", "42"):
            assert tesseract.run([line(text)], DIGITS)[0].strip() == text
        assert len(started) == 2 and not tesseract._warm  # a single read's calls: no spare
        tesseract.keep_spares()
        assert tesseract.run([line("53")], DIGITS)[0].strip() == "53"
        spare = started[3]
        assert len(started) == 4 and tesseract._warm[DIGITS] == [spare]  # started once the call was done
        assert tesseract.run([line("64")], DIGITS)[0].strip() == "64"
        assert spare.returncode == 0  # the next call took it ...
        assert len(started) == 5 and tesseract._warm[DIGITS] == [started[4]]  # ... and left one more
    finally:
        tesseract.shutdown()


@pytest.mark.parametrize("fixture, game", [("numbermatch_fresh.png", "numbermatch"), ("flip9_cards_midgame.png", "flip9")])
def test_a_read_of_an_unknown_game_starts_only_the_processes_it_uses(monkeypatch, fixture, game):
    import vision
    from solver import games as registry

    started = []
    real = tesseract.start

    def start(opts):
        started.append(opts)
        return real(opts)

    monkeypatch.setattr(tesseract, "start", start)
    try:
        vision.warm("auto")
        shared = list(started)
        assert shared and all(sum(c in registry.module("vision", g).FIRST_READ for g in registry.NAMES) > 1
                              for c in shared)
        reading = vision.read(vision.load_image(FIXTURES / fixture), "auto")
        assert reading.game == game and reading.sure
        own = registry.module("vision", game).FIRST_READ
        # every process started was one this game's first read makes, each started once, and
        # none was left waiting unused
        assert sorted(started) == sorted(set(own)) and not any(tesseract._warm.values())
    finally:
        tesseract.shutdown()


def without_tesseract(tmp_path) -> dict:
    """The environment of a computer with no tesseract: an empty PATH (tapsolve runs its Python
    and the adbutils wheel's adb by their own paths) and no stored reading profile."""
    (tmp_path / "bin").mkdir()
    return dict(os.environ, PATH=str(tmp_path / "bin"), XDG_CONFIG_HOME=str(tmp_path / "config"))


def says_tesseract_is_missing(run) -> bool:
    lines = run.stderr.strip().splitlines()
    return run.returncode == 1 and lines[-1].startswith("tapsolve: error: tesseract is not installed: install it "
                                                        "with `sudo apt install tesseract-ocr`")


@pytest.mark.parametrize("command", [
    ["read", str(FIXTURES / "numbermatch_fresh.png")],
    ["read", "--game", "fifteen", str(FIXTURES / "fifteen_tiles_fresh.png")],
    ["calibrate", "--image", str(FIXTURES / "flip9_buttons_fresh.png")],
    ["bench", "trust", "--sample", "50", "--only", "jpeg90", "--mode", "fresh"],
    ["demo", "--no-window"],  # a phone that shows a board it cannot read is no ad: no 30 s wait
    ["demo", "--no-window", "--game", "flip9"],
    ["bench", "play", "--max-moves", "3"]])
def test_a_command_that_needs_tesseract_says_it_is_missing(tmp_path, command):
    assert says_tesseract_is_missing(tapsolve(*command, env=without_tesseract(tmp_path)))


def test_the_phone_commands_say_tesseract_is_missing_and_a_profile_needs_none(harness, tmp_path):
    from phonesim.phone import PRESETS, Phone
    from phonesim import apps

    vp = harness.add(Phone(PRESETS["1080x2400"], apps.create("numbermatch", PRESETS["1080x2400"], seed=3)))
    env = dict(without_tesseract(tmp_path), ANDROID_ADB_SERVER_PORT=str(harness.adb_port))
    for command in (["play"], ["play", "--dry-run"], ["guide", "--export", str(tmp_path / "steps")]):
        assert says_tesseract_is_missing(tapsolve(*command, "--serial", vp.serial, env=env))
    # a read with the phone's stored profile (glyphs learned with tesseract) needs no tesseract
    assert tapsolve("calibrate", "--serial", vp.serial, env=dict(env, PATH=os.environ["PATH"])).returncode == 0
    dry = tapsolve("play", "--dry-run", "--serial", vp.serial, env=env)
    assert dry.returncode == 0 and "plan: " in dry.stdout, dry.stderr
