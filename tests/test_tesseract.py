"""vision/tesseract.py: every call goes through pytesseract, images sent together read as each
alone, a stopped reader starts no more calls; and a tesseract that is missing, cannot load its
language data, never answers, fails or answers garbage gives one line (or an unsure read with
its reason) from every command that reads a screen: never "no board", a hang, a traceback or a
confident board."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from helpers import tapsolve
import vision
from vision import tesseract

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "1080x2400" / "light"
REAL = ROOT.parent / "shared" / "realshots"


def line(text: str, width: int = 40) -> np.ndarray:
    """Black digits on white, padded, as tesseract is given a line."""
    img = np.full((72, 24 + width * len(text)), 255, np.uint8)
    cv2.putText(img, text, (12, 55), cv2.FONT_HERSHEY_SIMPLEX, 1.5, 0, 3)
    return img


DIGITS = tesseract.options(7, "0123456789")


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_several_images_go_as_pages_of_one_pytesseract_call_and_read_as_each_alone(monkeypatch):
    import pytesseract

    images = [line("407"), line("12"), line("9"), line("5318")]
    alone = [tesseract.run([image], DIGITS)[0].strip() for image in images]
    calls = []
    real = pytesseract.image_to_string
    monkeypatch.setattr(pytesseract, "image_to_string", lambda *a, **k: calls.append((a, k)) or real(*a, **k))
    together = [t.strip() for t in tesseract.run(images, DIGITS)]
    assert together == alone == ["407", "12", "9", "5318"]
    assert len(calls) == 1 and calls[0][1]["timeout"] == tesseract.CALL_SECONDS  # one process, bounded
    listing = Path(calls[0][0][0])  # a list of the pages' files, gone with them once read
    assert listing.suffix == ".txt" and not listing.parent.exists()
    boxes = tesseract.options(7, "0123456789", boxes=True)
    assert tesseract.run(images, boxes) == [tesseract.run([image], boxes)[0] for image in images]
    assert [len(b.splitlines()) for b in tesseract.run(images, boxes)] == [3, 2, 1, 4]
    assert all(len(b.split()) == 5 for b in tesseract.run(images, boxes)[3].splitlines())  # no page field


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_real_glyph_strips_read_as_pages_of_one_call_as_each_alone(monkeypatch):
    """What a first read sends tesseract (the cells' strip, the badge, stage and score lines, a
    Flip 9 comment), from fixtures and real screenshots, dark and light: all of one kind of call
    as pages of one call read as each in a call of its own, text and boxes alike."""
    sent = {}
    real = tesseract.call
    monkeypatch.setattr(tesseract, "call", lambda images, opts, stop=None: (
        sent.setdefault(opts, []).extend(images), real(images, opts, stop))[1])
    for path in (FIXTURES / "numbermatch_fresh.png", FIXTURES.parent / "dark" / "numbermatch_midgame.png",
                 FIXTURES / "flip9_cards_midgame.png", *sorted(REAL.glob("*.jpg"))):
        vision.read(vision.load_image(path))
    assert len(sent) >= 4 and sum(map(len, sent.values())) >= 15
    for opts, images in sent.items():
        for boxes in (False, True):  # each image read both ways: texts and boxes alike
            ask = (opts[0], boxes)
            assert real(images, ask) == [real([image], ask)[0] for image in images], ask
    assert any(real([image], opts)[0].strip() for opts, images in sent.items() for image in images)


def test_a_first_read_sends_its_numbers_together(monkeypatch):
    """A Number Match first read starts two tesseract processes: the cells' strip, and the badge,
    stage and score lines (their reads run side by side) as pages of one."""
    sent = []
    real = tesseract.call
    monkeypatch.setattr(tesseract, "call", lambda images, opts, stop=None: sent.append(len(images)) or
                        real(images, opts, stop))
    reading = vision.read(vision.load_image(FIXTURES / "numbermatch_fresh.png"))
    board = json.loads((FIXTURES / "numbermatch_fresh.json").read_text())["board"]
    assert (reading.board.adds_left, reading.board.stage, reading.board.score) == \
        (board["adds_left"], board["stage"], board["score"])
    assert sorted(sent) == [1, 3], sent


def test_gathered_parts_share_their_first_call_and_one_without_a_call_keeps_none_waiting():
    from concurrent.futures import ThreadPoolExecutor

    calls = []
    real = tesseract.call

    def counted(images, opts, stop=None):
        calls.append(len(images))
        return real(images, opts, stop)

    def two_reads(a, b):
        return [tesseract.run([line(a)], DIGITS)[0].strip(), tesseract.run([line(b)], DIGITS)[0].strip()]

    def fails():
        raise ValueError("no number here")

    gather = tesseract.Gather(3)
    with pytest.MonkeyPatch.context() as mp, ThreadPoolExecutor(max_workers=3) as pool:
        mp.setattr(tesseract, "call", counted)
        parts = [pool.submit(gather.part, two_reads, "12", "9"), pool.submit(gather.part, fails),
                 pool.submit(gather.part, lambda: tesseract.run([line("407")], DIGITS)[0].strip())]
        assert parts[0].result(timeout=60) == ["12", "9"] and parts[2].result(timeout=60) == "407"
        with pytest.raises(ValueError):
            parts[1].result()
    assert calls == [2, 1]  # the first calls together, the later one alone


def test_a_stopped_reader_starts_no_more_calls(monkeypatch):
    stop = tesseract.Stop()
    assert tesseract.run([line("7")], DIGITS, stop)[0].strip() == "7"
    stop.stop()
    monkeypatch.setattr(tesseract.pytesseract, "image_to_string", lambda *a, **k: pytest.fail("a call was started"))
    assert tesseract.run([line("7"), line("8")], DIGITS, stop) == ["", ""]


def fake_tesseract(folder: Path, body: str, python: bool = False) -> dict:
    """An environment whose PATH finds a ``tesseract`` running ``body`` (a shell script, or a
    Python one run by this Python: numpy and Pillow at hand) and no stored reading profile.
    pytesseract runs it as ``tesseract IMAGE OUTPUT_BASE [options]`` and reads OUTPUT_BASE.txt
    (or .box)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "tesseract"
    script.write_text(f"#!{sys.executable}\n{body}" if python else f"#!/bin/sh\n{body}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return dict(os.environ, PATH=f"{folder}{os.pathsep}{os.environ['PATH']}",
                XDG_CONFIG_HOME=str(folder.parent / "config"))


HANGS = "exec sleep 1000\n"
# reads every glyph as 7: the boxes of each run of inked columns, and "7" for any text; an input
# that is no image is a list of images, one page each (as tesseract takes it)
SEVENS = """import sys
import numpy as np
from PIL import Image
source, base = sys.argv[1], sys.argv[2]
try:
    Image.open(source)
    images = [source]
except OSError:
    images = open(source).read().split()
if "makebox" in sys.argv:
    boxes = []
    for page, image in enumerate(images):
        ink = np.asarray(Image.open(image).convert("L")) < 128
        cols = np.flatnonzero(np.diff(np.concatenate([[0], ink.any(axis=0).astype(int), [0]])))
        boxes += [f"7 {a} 0 {b} {ink.shape[0]} {page}" for a, b in zip(cols[::2], cols[1::2])]
    open(base + ".box", "w").write("\\n".join(boxes) + "\\n")
else:
    open(base + ".txt", "w").write("7\\n\\f" * len(images))
"""
# what tesseract 5 says (on stderr, exit status 1) when TESSDATA_PREFIX names a folder without eng.traineddata
NO_LANGUAGE = """echo "Error opening data file /nowhere/eng.traineddata" >&2
echo 'Please make sure the TESSDATA_PREFIX environment variable is set to your "tessdata" directory.' >&2
echo "Failed loading language 'eng'" >&2
echo "Tesseract couldn't load any languages!" >&2
echo "Could not initialize tesseract." >&2
exit 1
"""


@pytest.mark.parametrize("body, says", [
    (HANGS, "tesseract gave no answer in 1 s (it was stopped)"),
    (NO_LANGUAGE, "tesseract cannot load its language data (/nowhere/eng.traineddata): reinstall it"),
    ("echo 'Segmentation fault' >&2\nexit 139\n", "tesseract failed (exit status 139: Segmentation fault): reinstall"),
    ("exit 0\n", "tesseract gave no output (no "),
])
def test_a_broken_tesseract_is_one_line_of_its_own_not_a_read_error(monkeypatch, tmp_path, body, says):
    env = fake_tesseract(tmp_path / "bin", body)
    monkeypatch.setenv("PATH", env["PATH"])
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.setattr(tesseract, "CALL_SECONDS", 1)  # the hanging one is stopped sooner
    with pytest.raises(tesseract.TesseractTrouble) as caught:
        vision.read(vision.load_image(FIXTURES / "numbermatch_fresh.png"))
    assert not isinstance(caught.value, vision.ReadError)  # never "no board found"
    assert str(caught.value).startswith(says) and "\n" not in str(caught.value), caught.value


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_a_tesseract_that_never_answers_ends_the_read_with_one_line(tmp_path):
    """The whole `tapsolve read` process: the hanging tesseract is stopped, and the read ends in
    one line with exit 1 (CALL_SECONDS made 2 s in that process, so that the test need not wait
    out the real bound)."""
    env = fake_tesseract(tmp_path / "bin", HANGS)
    script = ("import sys; sys.argv[0] = 'tapsolve'; import vision.tesseract as t; t.CALL_SECONDS = 2; "
              "from assistant.cli import program; program()")
    run = subprocess.run([sys.executable, "-c", script, "read", str(FIXTURES / "numbermatch_fresh.png")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == ("tapsolve: error: tesseract gave no answer in 2 s (it was stopped): "
                          "it hangs or the computer is overloaded; reinstall it with `sudo apt install tesseract-ocr` "
                          "(in a checkout: `bash scripts/setup`)\n")


def without_language_data(tmp_path) -> dict:
    """The real tesseract with TESSDATA_PREFIX naming a folder without its language data."""
    (tmp_path / "tessdata").mkdir()
    return dict(os.environ, TESSDATA_PREFIX=str(tmp_path / "tessdata"), XDG_CONFIG_HOME=str(tmp_path / "config"))


def says_language_data_is_missing(run, tmp_path) -> bool:
    folder = tmp_path / "tessdata"
    # (a run that played on a phone names the recording of its last screens after it)
    return run.returncode == 1 and run.stderr.strip().splitlines()[-1].startswith(
        f"tapsolve: error: tesseract cannot load its language data ({folder}/eng.traineddata): TESSDATA_PREFIX "
        f"is {folder}: point it at the folder that holds eng.traineddata, or unset it")


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("command", [
    ["read", str(FIXTURES / "numbermatch_fresh.png")],
    ["read", str(FIXTURES / "flip9_cards_midgame.png")],
    ["demo", "--no-window"]])
def test_a_wrong_tessdata_prefix_is_named_not_read_as_no_board(tmp_path, command):
    run = tapsolve(*command, env=without_language_data(tmp_path))
    assert says_language_data_is_missing(run, tmp_path), run.stderr


def test_play_and_the_guide_name_a_wrong_tessdata_prefix(harness, tmp_path):
    from phonesim.phone import PRESETS, Phone
    from phonesim import apps

    vp = harness.add(Phone(PRESETS["1080x2400"], apps.create("numbermatch", PRESETS["1080x2400"], seed=3)))
    env = dict(without_language_data(tmp_path), ANDROID_ADB_SERVER_PORT=str(harness.adb_port))
    for command in (["play"], ["guide", "--export", str(tmp_path / "steps")]):
        run = tapsolve(*command, "--serial", vp.serial, env=env)
        assert says_language_data_is_missing(run, tmp_path), (command, run.stderr)


def test_a_tesseract_answering_7_to_everything_gives_an_unsure_read_with_the_reason(tmp_path):
    env = fake_tesseract(tmp_path / "bin", SEVENS, python=True)
    run = tapsolve("read", str(FIXTURES / "numbermatch_fresh.png"), env=env)
    truth = json.loads((FIXTURES / "numbermatch_fresh.json").read_text())["board"]["cells"]
    read = "".join(run.stdout.splitlines()[1:-1])  # the cells, row after row, "?" where unsure
    assert run.returncode == 0 and len(read) == len(truth), run.stdout + run.stderr
    # taken only where the phone-font digits agree: the board's real 7s; every other cell unsure, saying why
    assert [k for k, c in enumerate(read) if c != "?"] == [k for k, t in enumerate(truth) if t == 7] and "7" in read
    assert "(tesseract read 7 where the phone-font digits show 5)" in run.stdout.splitlines()[-1]
    # nor a 15-puzzle's: of its 15 tiles only the 7 is taken
    run = tapsolve("read", str(FIXTURES / "fifteen_tiles_fresh.png"), env=env)
    seven = json.loads((FIXTURES / "fifteen_tiles_fresh.json").read_text())["board"]["tiles"].index(7)
    assert run.returncode == 0 and run.stdout.startswith("15-puzzle 4x4: unsure") and run.stdout.count("(row") == 14
    assert f"cell {seven} (" not in run.stdout


def without_tesseract(tmp_path) -> dict:
    """The environment of a computer with no tesseract: an empty PATH (tapsolve runs its Python
    and the adbutils wheel's adb by their own paths) and no stored reading profile."""
    (tmp_path / "bin").mkdir()
    return dict(os.environ, PATH=str(tmp_path / "bin"), XDG_CONFIG_HOME=str(tmp_path / "config"))


def says_tesseract_is_missing(run) -> bool:
    lines = run.stderr.strip().splitlines()
    return run.returncode == 1 and lines[-1].startswith("tapsolve: error: tesseract is not installed: install it "
                                                        "with `sudo apt install tesseract-ocr`")


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
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
