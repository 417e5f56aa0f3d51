"""A game that lives only in tests plays end to end: Lights Out (tests/lightsout/: its rules, its
reader, its phonesim app, its assistant class) is registered from here, and the generic loop,
phonesim over the real adb server, `read`, `guide --export` and `play` play it to the end. No
file outside tests/ names it: a fourth game is new modules only."""

import json
import os
import subprocess

import pytest

from assistant import autoplay
from assistant.phone.device import connect
from assistant.games import kind
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from helpers import ROOT, tapsolve
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone
from solver import games as registry
from tests import lightsout
from tests.lightsout.app import deal
from tests.lightsout.rules import CELLS, Board, solve


@pytest.fixture
def registered():
    """Lights Out known to this process for one test, then forgotten (other tests see three games)."""
    registry.register(lightsout.GAME)
    yield lightsout.GAME
    registry.unregister(lightsout.GAME.name)


def test_the_rules_speak_the_common_dialect_and_every_board_is_solved_in_fewest_presses():
    board = Board([1, 1, 0, 1, 0, 0, 0, 0, 0])
    copy = board.copy()
    copy.push(0)  # the corner and its two neighbours go out
    assert copy.is_won() and copy.peek() == 0 and copy.move_stack == [0] and board.move_stack == []
    assert copy.legal_moves() == [] and board.legal_moves() == list(range(CELLS))
    assert copy.pop() == 0 and copy == board
    for key in range(1, 2 ** CELLS):
        start = Board([key >> k & 1 for k in range(CELLS)])
        line = start.copy()
        for cell in solve(start):
            line.push(cell)
        assert line.is_won() and len(set(line.move_stack)) == len(line.move_stack) <= CELLS
    assert len(solve(Board([1] * CELLS))) == 5  # the corners and the centre


def test_registered_at_run_time_it_is_found_in_every_layer_and_forgotten_after(registered):
    for layer in registry.LAYERS:
        assert registry.module(layer, "lightsout").__name__.startswith("tests.lightsout.")
    assert kind("lightsout")().name == "lightsout" and registry.titles().endswith("15-puzzle or Lights Out")
    registry.unregister("lightsout")
    assert "lightsout" not in registry.NAMES
    with pytest.raises(registry.UnknownGame):
        registry.module("vision", "lightsout")
    registry.register(registered)


def test_a_registered_game_names_its_module_for_every_layer():
    with pytest.raises(ValueError, match="names no module for vision"):
        registry.register(registry.Game("half", "Half a game", modules={"solver": "x", "phonesim.apps": "y",
                                                                         "assistant.games": "z"}))
    assert "half" not in registry.NAMES


@pytest.mark.parametrize("preset, theme", [("1080x2400", "light"), ("720x1600", "dark"),
                                           ("tablet-1600x2560", "light")])
def test_the_reader_finds_the_board_among_every_game_on_any_screen(registered, preset, theme):
    import vision

    app = apps.create("lightsout", PRESETS[preset], seed=4, theme=theme)
    reading = vision.read(app.render())  # auto: the three other readers find no board of theirs
    assert (reading.game, reading.screen, reading.theme) == ("lightsout", "board", theme)
    assert reading.board == app.board and reading.sure
    for cell, (x, y, w, h) in app.cell_rects().items():
        cx, cy = reading.cells[cell]
        assert x <= cx < x + w and y <= cy < y + h


def start(harness, seed: int, faults=None):
    p = PRESETS["1080x2400"]
    phone = Phone(p, apps.create("lightsout", p, seed=seed), faults or Faults())
    return harness.add(phone), phone


def test_the_generic_loop_plays_it_to_the_end_over_adb_with_dropped_taps(registered, harness):
    vp, phone = start(harness, seed=5, faults=Faults(drop_taps=0.3, seed=2))
    fewest = len(solve(phone.app.board))
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append)
    loop = Loop(Session(link), game="auto", say=said.append)
    assert autoplay.play(loop, say=said.append) == 0
    assert phone.app.board.is_won() and phone.app.truth()["screen"] == "stage_complete"
    assert loop.tally.moves == fewest == phone.app.presses and loop.tally.replans == 0
    assert phone.taps_dropped > 0 and loop.tally.repeats == phone.taps_dropped
    assert said[-2:] == ["all out", f"done: {fewest} presses, all out, {phone.taps_dropped} repeated, 0 re-solved"]
    assert vp.wrong_taps == 0
    vp.stop()


def test_tapsolve_reads_exports_and_plays_it_in_a_process_of_its_own(registered, harness, tmp_path):
    """The commands a person runs, each a new process that knows the game from TAPSOLVE_GAMES."""
    vp, phone = start(harness, seed=7)
    start_board = phone.app.board.copy()
    env = dict(harness.env, TAPSOLVE_GAMES=lightsout.ENTRY, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))

    read = tapsolve("read", "--serial", vp.serial, "--json", env=env)
    assert read.returncode == 0, read.stderr
    shown = json.loads(read.stdout)
    assert (shown["game"], shown["screen"], shown["board"]) == ("lightsout", "board", start_board.to_json())

    export = tapsolve("guide", "--serial", vp.serial, "--export", str(tmp_path), env=env)
    assert export.returncode == 0, export.stderr
    presses = solve(start_board)
    assert len(sorted(tmp_path.glob("step-*.png"))) == len(presses) + 1  # each press, done
    assert phone.app.board == start_board  # a guide taps nothing

    play = tapsolve("play", "--serial", vp.serial, env=env)
    assert play.returncode == 0, play.stderr
    assert phone.app.board.is_won() and phone.app.presses == len(presses)
    assert play.stdout.strip().splitlines()[-1] == f"done: {len(presses)} presses, all out, 0 repeated, 0 re-solved"

    solved = tapsolve("solve", "lightsout", "".join(map(str, start_board.lights)), env=env)
    assert solved.returncode == 0 and solved.stdout.count("press row") == len(presses)
    vp.stop()


@pytest.mark.phone
def test_bench_play_plays_it_though_it_gives_no_bench_hook_of_its_own():
    """The Game base's bench hooks add nothing: `bench play --game lightsout` plays and times it as
    any game, and no `bench lightsout` command appears (the test's game defines neither hook)."""
    env = dict(os.environ, TAPSOLVE_GAMES=lightsout.ENTRY, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    run = tapsolve("bench", "play", "--game", "lightsout", "--seed", "5", "--json", env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["moves"] == len(solve(Board(deal(5)))) and summary["wrong_taps"] == 0
    assert summary["cleared_stages"] == 1
    none = tapsolve("bench", "lightsout", env=env)
    assert none.returncode == 2 and "invalid choice: 'lightsout'" in none.stderr


def test_without_the_entry_a_new_process_does_not_know_it():
    run = subprocess.run([os.sys.executable, "-m", "assistant", "solve", "lightsout", "111000000"], cwd=ROOT,
                         env={k: v for k, v in os.environ.items() if k != "TAPSOLVE_GAMES"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "invalid choice: 'lightsout'" in run.stderr
