"""The 15-puzzle end to end on phonesim through the real adb server: autoplay with dropped taps,
the guide following a player who slides another tile, and `tapsolve demo --game fifteen`."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assistant import autoplay, guide
from assistant.device import connect
from assistant.link import Link
from assistant.loop import Loop
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone
from solver import fifteen

ROOT = Path(__file__).resolve().parent.parent


def start(harness, preset, faults=None, **options):
    p = PRESETS[preset]
    phone = Phone(p, apps.create("fifteen", p, **options), faults or Faults())
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    loop = Loop(link, game="auto", budget=1.0, say=said.append, wait_unknown=5)
    loop.said = said
    return vp, phone, loop


@pytest.mark.parametrize("preset, options", [
    ("1080x2400", dict(seed=3, theme="light", look="tiles", width=4, slides=40)),
    ("720x1600", dict(seed=4, theme="dark", look="grid", width=3)),
])
def test_autoplay_solves_with_dropped_taps(harness, preset, options):
    faults = Faults(tap_latency=0.02, drop_taps=0.25, seed=5)
    vp, phone, loop = start(harness, preset, faults, **options)
    first = fifteen.Board(phone.app.board.tiles)
    shortest = len(fifteen.solve(first).moves)
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert phone.app.board.is_solved() and phone.app.truth()["screen"] == "stage_complete"
    assert phone.app.moves == shortest == loop.tally.moves  # the optimal line, every slide once
    assert phone.taps_dropped > 0 and loop.tally.repeats == phone.taps_dropped
    assert loop.tally.replans == 0
    vp.stop()


def test_guide_follows_a_player_who_slides_another_tile(harness):
    vp, phone, loop = start(harness, "1080x2400", seed=6, look="grid", width=4, slides=30)
    loop.start()
    planned = loop.next_move
    other = next(t for t in phone.app.board.legal_moves() if t != planned)
    cell = phone.app.board.tiles.index(other)
    x, y, w, h = phone.app.cell_rects()[cell]
    phone.app.tap(x + w // 2, y + h // 2)  # the player's own finger, not the plan's tile
    assert guide.follow(loop) == "you made another move: plan made again from the board on screen"
    assert loop.position.tiles == phone.app.board.tiles and loop.step == 0
    assert loop.tally.replans == 1
    line = fifteen.Board(loop.position.tiles)
    for tile in loop.plan.moves:
        line.push(tile)
    assert line.is_solved()
    # the player now follows the plan's first tile: the guide moves one step on
    tile = loop.next_move
    x, y, w, h = phone.app.cell_rects()[phone.app.board.tiles.index(tile)]
    phone.app.tap(x + w // 2, y + h // 2)
    assert guide.follow(loop) is None and loop.step == 1
    vp.stop()


@pytest.mark.phone
def test_demo_plays_fifteen_in_the_terminal():
    run = subprocess.run([sys.executable, "-m", "assistant", "demo", "--game", "fifteen", "--no-window",
                          "--tap-latency", "0", "--seed", "2"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1].startswith("done: ")
    assert "tiles home" in run.stdout
