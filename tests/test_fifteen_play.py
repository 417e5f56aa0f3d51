"""The 15-puzzle end to end on phonesim through the real adb server: autoplay with dropped taps
and with tiles that glide, the guide following a player who slides another tile, and
`tapsolve demo --game fifteen`; random app skins on the real profile, an app that slides by
swipe learned and kept, and `bench play --game fifteen`."""

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant import autoplay, guide
from assistant.overlay import HIGHLIGHT, LINK
from assistant.phone.device import connect
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from phonesim import apps
from phonesim.phone import PRESETS, REALISM, Faults, Phone
from solver import fifteen

ROOT = Path(__file__).resolve().parent.parent


def start(harness, preset, faults=None, realism="fast", **options):
    p = PRESETS[preset]
    phone = Phone(p, apps.create("fifteen", p, **options), faults or Faults(), realism=REALISM[realism])
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    loop = Loop(Session(link), game="auto", budget=1.0, say=said.append, wait_unknown=5)
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
    assert phone.app.board.is_won() and phone.app.truth()["screen"] == "stage_complete"
    assert phone.app.moves == shortest == loop.tally.moves  # the optimal line, every slide once
    assert phone.taps_dropped > 0 and loop.tally.repeats == phone.taps_dropped
    assert loop.tally.replans == 0
    assert loop.said[-1] == f"done: {shortest} slides, solved, {phone.taps_dropped} repeated, 0 re-solved"
    assert guide.step_header(loop)[0] == "Solved!"
    assert vp.wrong_taps == 0
    vp.stop()


def test_autoplay_waits_out_every_glide_and_taps_no_tile_while_one_moves(harness, tmp_path, monkeypatch):
    """A glide of 0.6 s on a phone that answers at once: the first capture after each slide falls
    inside it. Only still frames are judged, and no tap lands while a tile moves."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no glide time learned by an earlier test
    vp, phone, loop = start(harness, "1080x2400", seed=8, look="tiles", width=3, slides=12)
    phone.app.animate({"tile": 0.6})
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert phone.app.board.is_won()
    assert "tile" in {motion for _, motion in phone.capture_log}
    assert loop.link.settler.unsettled > 0 and loop.link.clock.animation["move"][0] > 0  # it saw tiles moving ...
    assert loop.tally.repeats == 0 and loop.tally.replans == 0  # ... and judged none of them
    assert vp.wrong_taps == 0 and [t.target for t in phone.tap_log] == ["live"] * loop.tally.moves
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
    assert line.is_won()
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
    # each slide said as it is made, counted up: no count of tiles home that goes down on the way
    assert re.search(r"^  \[1/\d+\] slide \d+ (up|down|left|right)$", run.stdout, re.MULTILINE)
    assert "tiles home" not in run.stdout


def colour_pixels(image_rgb, colour) -> np.ndarray:
    """(x, y) of the pixels drawn in ``colour`` (the overlay's own, which no game uses)."""
    ys, xs = np.nonzero(np.all(np.abs(image_rgb.astype(int) - colour) < 30, axis=2))
    return np.stack([xs, ys], axis=1)


def test_export_outlines_the_next_tile_with_an_arrow_to_the_gap(harness, tmp_path):
    vp, phone, loop = start(harness, "1080x2400", seed=8, look="tiles", width=4, slides=10)
    before = list(phone.app.board.tiles)
    guide.export(loop, tmp_path, say=loop.said.append)
    moves = loop.plan.moves
    pictures = sorted(tmp_path.glob("step-*.png"))
    assert len(pictures) == len(moves) + 1 and phone.app.board.tiles == before  # nothing tapped
    first = cv2.cvtColor(cv2.imread(str(pictures[0])), cv2.COLOR_BGR2RGB)
    panel = first.shape[0] - phone.preset.height  # (no caption over the screenshot: 0)
    rects = phone.app.cell_rects()
    x, y, w, h = rects[before.index(moves[0])]
    outline = colour_pixels(first, HIGHLIGHT)
    assert len(outline) > 100
    assert np.all(np.abs(outline.mean(axis=0) - (x + w / 2, y + h / 2 + panel)) < w / 4)  # on the tile
    gx, gy, gw, gh = rects[before.index(0)]
    arrow = colour_pixels(first, LINK)
    tip = arrow[np.argmin(np.hypot(*(arrow - (gx + gw / 2, gy + gh / 2 + panel)).T))]
    assert np.hypot(*(tip - (gx + gw / 2, gy + gh / 2 + panel))) < gw / 2  # the arrow reaches the gap
    step = cv2.cvtColor(cv2.imread(str(pictures[1])), cv2.COLOR_BGR2RGB)
    assert len(colour_pixels(step, HIGHLIGHT)) > 100 and len(colour_pixels(step, LINK)) > 20
    done = cv2.cvtColor(cv2.imread(str(pictures[-1])), cv2.COLOR_BGR2RGB)
    assert len(colour_pixels(done, HIGHLIGHT)) == 0  # the solved board marks no move
    # the guide window: the export's first picture (the live screen), then a planned step
    assert np.array_equal(guide.picture(loop, 0), first[panel:])
    preview = guide.frame(loop, 1, False)
    assert len(colour_pixels(preview, HIGHLIGHT)) > 100 and len(colour_pixels(preview, LINK)) > 20
    vp.stop()


def test_dry_run_taps_each_tile_where_it_will_be(harness):
    vp, phone, _ = start(harness, "720x1600", seed=9, theme="dark", look="grid", width=3)
    before = list(phone.app.board.tiles)
    runs = [subprocess.run([sys.executable, "-m", "assistant", "play", "--serial", vp.serial, "--dry-run"],
                           cwd=ROOT, env=harness.env, capture_output=True, text=True, timeout=120) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    assert phone.app.board.tiles == before  # nothing was tapped
    # the second run reads with the profile the first stored, and takes it as it is
    assert runs[1].stdout == runs[0].stdout and runs[1].returncode == 0
    lines = runs[0].stdout.splitlines()
    board = fifteen.Board(before)
    steps = [line for line in lines[1:] if " taps (" in line]
    assert lines[0] == f"plan: {len(fifteen.solve(board).moves)} moves (solved)" and len(steps) > 0
    rects = phone.app.cell_rects()
    for line in steps:
        tile = int(line.split()[2])  # "  1. slide 5 up   taps (x,y)"
        (tap,) = [tuple(map(int, t.strip("()").split(","))) for t in line.split("taps ")[1].split()]
        x, y, w, h = rects[board.tiles.index(tile)]
        assert x <= tap[0] < x + w and y <= tap[1] < y + h, line
        board.push(tile)
    assert board.is_won()
    vp.stop()


# -- any app's look and feel: phonesim's skins -------------------------------------------------------

from phonesim.apps.fifteen import Skin  # noqa: E402


def skin_where(first: int, **want) -> int:
    """The first skin seed from ``first`` whose drawn parameters are ``want``."""
    return next(k for k in range(first, first + 10_000) if all(getattr(Skin.draw(k), a) == v for a, v in want.items()))


def test_autoplay_learns_that_an_app_slides_by_swipe_and_keeps_it_in_the_profile(harness, tmp_path, monkeypatch):
    """italankin/15Puzzle moves tiles by gesture (docs/how-to-play.markdown): on a skin that only
    swipes, two taps change nothing, a swipe makes the move, and every later move is a swipe; the
    next game on the phone swipes from its first move, from the stored profile."""
    from calibration import store

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    skin = skin_where(50_000, slide="swipe", width=3)
    vp, phone, loop = start(harness, "1080x2400", seed=11, skin=skin, slides=14)
    loop.session.keep = True  # (as play and the demo do: what play teaches the profile is stored)
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert phone.app.board.is_won() and vp.wrong_taps == 0
    assert loop.link.taps == 2 and loop.link.swipes == loop.tally.moves  # (the two taps changed nothing)
    assert [t.target for t in phone.tap_log] == ["live", "live"]
    assert loop.said[-1].endswith("; this app slides tiles by swipe (kept for this phone)")
    stored = store.load(store.profile_path(phone.preset.model, phone.preset.width, phone.preset.height, "fifteen",
                                           loop.session.profile.theme))
    assert stored is not None and stored.touch == "swipe" and stored.points == {}
    phone.app.new_deal()
    link = Link(connect(vp.serial, client=harness.client), say=loop.said.append, reconnect_timeout=4)
    again = Loop(Session(link, keep=True), game="auto", budget=1.0, say=loop.said.append, wait_unknown=5)
    assert autoplay.play(again, say=loop.said.append) == 0
    assert phone.app.board.is_won() and link.taps == 0 and link.swipes == again.tally.moves > 0
    vp.stop()


@pytest.mark.parametrize("skin, preset", [(k, p) for k, p in zip(random.Random(38).sample(range(60_000, 70_000), 3),
                                                                  ("720x1600", "1080x2400", "1440x3200"))])
def test_autoplay_clears_random_skins_on_the_real_profile_without_a_wrong_tap(harness, tmp_path, monkeypatch, skin,
                                                                              preset):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, preset, realism="real", seed=skin, skin=skin, slides=12)
    phone.realism = phone.realism.scaled(0.1)
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert phone.app.board.is_won() and vp.wrong_taps == 0
    assert loop.tally.replans == 0
    vp.stop()


def test_a_swiping_app_takes_a_swipe_from_a_tile_towards_the_gap_and_nothing_else():
    p = PRESETS["1080x2400"]
    app = apps.create("fifteen", p, seed=1, skin=skin_where(50_000, slide="swipe", width=4))
    tile = app.board.legal_moves()[0]
    (x, y, w, h), (gx, gy, _, _) = app.cell_rects()[app.board.tiles.index(tile)], app.cell_rects()[app.board.blank]
    before = list(app.board.tiles)
    app.tap(x + w // 2, y + h // 2)
    assert app.board.tiles == before  # a tap changes nothing ...
    app.swipe(x + w // 2, y + h // 2, x + w // 2 - (gx - x), y + h // 2 - (gy - y))
    assert app.board.tiles == before  # ... nor a swipe away from the gap
    app.swipe(x + w // 2, y + h // 2, gx + w // 2, gy + h // 2)
    assert app.board.tiles != before and app.board.blank == before.index(tile)
    tapper = apps.create("fifteen", p, seed=1, skin=skin_where(50_000, slide="tap", width=4))
    tile = tapper.board.legal_moves()[0]
    (x, y, w, h), (gx, gy, _, _) = tapper.cell_rects()[tapper.board.tiles.index(tile)], tapper.cell_rects()[tapper.board.blank]
    before = list(tapper.board.tiles)
    tapper.swipe(x + w // 2, y + h // 2, gx + w // 2, gy + h // 2)
    assert tapper.board.tiles == before  # a tapping app takes no swipe


def test_skins_draw_every_kind_of_look_and_each_seed_always_the_same():
    skins = [Skin.draw(k) for k in range(300)]
    assert Skin.draw(7) == Skin.draw(7)
    for part, kinds in (("palette", {"light", "dark", "colourful", "correct"}), ("gap", {"hole", "filled", "blank"}),
                        ("slide", {"tap", "swipe"}), ("width", {3, 4, 5}), ("tall", {1.0, 1.15, 1.3}),
                        ("weight", {"thin", "light", "regular", "medium", "bold", "black"}),
                        ("header", {True, False}), ("buttons", {True, False})):
        assert {getattr(k, part) for k in skins} == kinds, part
    assert {k.spacing == 0 for k in skins} == {True, False} and {k.frame is None for k in skins} == {True, False}


def test_a_bad_skin_option_is_one_line():
    run = subprocess.run([sys.executable, "-m", "assistant", "phone", "--game", "fifteen", "--skin", "-3"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr and "-3" in run.stderr
    assert len(run.stderr.strip().splitlines()) <= 3  # (argparse's usage line, then the one error line)


@pytest.mark.phone
def test_bench_play_fifteen_clears_a_skin_with_no_wrong_tap():
    run = subprocess.run([sys.executable, "-m", "assistant", "bench", "play", "--game", "fifteen", "--skin", "5",
                          "--width", "3", "--realism", "real", "--time-scale", "0.1", "--seed", "3", "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["cleared_stages"] == 1 and summary["wrong_taps"] == 0 and summary["moves"] > 0


def test_a_timer_ticking_before_any_read_does_not_keep_the_first_capture_from_settling():
    """An app's header timer changes on every capture (a phone whose captures take a second,
    a timer in tenths: italankin/15Puzzle shows 0:10.0); before a read has said where it is, a
    small part changing on its own for over a second is left out, and the screen is still."""
    from assistant.link import Link

    class Ticking:
        screen = None  # (no Screen of a phone: captures only)
        serial = "ticking"

        def __init__(self):
            self.n = 0

        def capture(self):
            self.n += 1
            frame = np.full((2400, 1080, 3), 240, np.uint8)
            frame[600:1500, 60:1020] = (30, 120, 200)  # the board, still
            frame[300:360, 800:800 + 20 * (self.n % 7 + 1)] = 0  # the timer's digits, every capture anew
            return frame

    link = Link(Ticking(), say=lambda _: None)
    image = link.capture()
    assert image[700, 500].tolist() == [30, 120, 200] and link.settler.unsettled > 0
