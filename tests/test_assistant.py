"""The assistant on phonesim through the real adb server: autoplay, faults, the guide, exports."""

import json
import contextlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant import autoplay, guide
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from assistant.overlay import HIGHLIGHT
from assistant.phone.device import connect
from assistant.phone.server import PhoneLost
from helpers import centre
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone
from solver.errors import TapsolveError
from solver.numbermatch import POINTS, Pair

# the game's play, not the channel's: in-process phones go by the kept-open shell (conftest)
pytestmark = pytest.mark.usefixtures("shell_by_default")

ROOT = Path(__file__).resolve().parent.parent


def start(harness, game="numbermatch", preset="1080x2400", faults=None, objective="fast", **options):
    """A virtual phone on the harness's adb server and a loop that plays it; lines said go to .said."""
    p = PRESETS[preset]
    phone = Phone(p, apps.create(game, p, **options), faults or Faults())
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    loop = Loop(Session(link), game=game, objective=objective, budget=1.0, say=said.append, wait_unknown=5)
    loop.said = said
    return vp, phone, loop


def truth(phone) -> dict:
    return phone.app.truth()


# (the larger phone on scrcpy's video: three stages played on the channel a phone gets first)
@pytest.mark.parametrize("preset", [pytest.param("1080x2400", marks=pytest.mark.video), "720x1600"])
def test_autoplay_clears_three_stages_in_a_row(harness, preset):
    vp, phone, loop = start(harness, preset=preset, seed=5)
    assert autoplay.play(loop, stages=3, say=loop.said.append) == 0
    assert loop.tally.stages == 3
    shown = truth(phone)
    assert shown["screen"] == "stage_complete"
    assert shown["board"]["stage"] == 3                              # the third stage's screen
    assert loop.said[-1].startswith("done: ")
    vp.stop()


@pytest.mark.parametrize("layout", ["buttons", "cards"])
def test_autoplay_sorts_flip9(harness, layout):
    vp, phone, loop = start(harness, game="flip9", seed=4, layout=layout)
    autoplay.play(loop, say=loop.said.append)
    assert truth(phone)["state"]["cards"] == list(range(1, 10))
    assert loop.tally.moves == len(loop.plan.moves)                  # the optimal line, no detour
    vp.stop()


# The row-removal window, seed 004's blog (quoted in issue 40: "you can still choose pairs, which
# resets the animation timer"), as phonesim/apps/numbermatch.py's --row-window S models it.
@pytest.mark.parametrize("seconds", [0.5, 0.0])
def test_play_plans_with_the_row_window_only_on_a_phone_seen_to_keep_an_emptied_row(harness, seconds):
    """A pair that empties a row, followed by one above it, is the trial: on a phone whose game
    keeps the row (0.5 s) the second is tapped while it shows and is read played with it there;
    the window is said once, kept in the profile, and the plan uses it (a pair below a row
    waiting to go); never such a pair before. A phone without it never shows one: nothing said,
    nothing lost."""
    vp, phone, loop = start(harness, seed=SEED_WITH_TRIALS, size=36, row_window=seconds)
    app = phone.app
    taps, tap = [], app.tap

    def noting_waiting_rows(x, y):  # (the cell tapped, the rows waiting then, the lines said so far)
        app._close_window(app.clock())
        taps.append((app.cell_at(x, y), app.board.rows_waiting(), len(loop.said)))
        tap(x, y)

    app.tap = noting_waiting_rows
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert truth(phone)["screen"] == "stage_complete" and vp.wrong_taps == 0
    line = [k for k, said in enumerate(loop.said) if "keeps an emptied row" in said]
    # (the lines said by each tap on a cell while rows waited to go; below such a row: a pair
    # that only the window allows, or the row gone under it)
    needing = [said for cell, waiting, said in taps if cell is not None and waiting and cell // 9 > waiting[0]]
    if seconds:
        assert len(line) == 1 and loop.game.row_window
        # planned with the rule: rows let go by a wait, pairs chosen meanwhile
        assert any(said.startswith("wait: let the empty") for said in lines(loop.said[line[0]:]))
        assert all(said > line[0] for said in needing)  # none that needs the window before it was seen
        assert 0 < loop.session.profile.accepts["row_window"] <= seconds
    else:
        # (a pair above rows collapsing may be tapped as they go: pipelined, issue 40; none below)
        assert not line and not needing and not loop.game.row_window
        assert not loop.session.profile.accepts.get("row_window")
    vp.stop()


def lines(said: list[str]) -> list[str]:
    """The moves said in play, as their status lines name them ("[3/8] 9 at ...": "9 at ...")."""
    return [line.split("] ", 1)[1] for line in said if line.lstrip().startswith("[")]


SEED_WITH_TRIALS = 18  # (its board has pairs that empty a row, each followed by a pair above it)


def test_dropped_taps_are_repeated_and_counted(harness):
    faults = Faults(tap_latency=0.05, drop_taps=0.2, seed=11)
    vp, phone, loop = start(harness, faults=faults, seed=6)
    autoplay.play(loop, say=loop.said.append)
    assert truth(phone)["screen"] == "stage_complete"
    assert phone.taps_dropped > 0
    assert loop.tally.repeats > 0
    assert f"{loop.tally.repeats} repeated" in loop.said[-1]
    vp.stop()


def test_a_game_that_adds_after_the_last_live_number_is_followed_and_kept_for_the_next_game(
        harness, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # this test's profiles only
    # seed 2: the plan's first add comes when the last cell is crossed out, so the two rules differ
    p = PRESETS["1080x2400"]
    phone = Phone(p, apps.create("numbermatch", p, seed=2, add_rule="live"), Faults())
    vp, said = harness.add(phone), []

    def loop():
        link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
        return Loop(Session(link, keep=True), game="numbermatch", objective="fast", budget=1.0, say=said.append,
                    wait_unknown=5)

    first = loop()
    autoplay.play(first, say=said.append)
    assert any("after the last live number" in line for line in said)
    assert first.game.rules.add_after == "live"
    assert first.tally.replans >= 1
    assert truth(phone)["screen"] == "stage_complete"
    stored = list((tmp_path / "tapsolve" / "profiles").glob("*numbermatch*.json"))
    assert len(stored) == 1 and json.loads(stored[0].read_text())["accepts"]["adds_after_live"] is True

    # the next game on this phone plans by it from its first move: no add to learn it from again
    phone.app.new_game()
    again = loop()
    again.start()
    assert again.position.rules.add_after == "live" and again.game.rules.add_after == "live"
    vp.stop()


def test_guide_follows_the_player_and_replans_on_another_move(harness):
    vp, phone, loop = start(harness, seed=3)
    loop.start()
    planned = loop.next_move
    assert isinstance(planned, Pair)
    for k in (planned.i, planned.j):                                 # the player makes the move
        phone.tap(*loop.reading.cells[k])
    assert guide.follow(loop) is None
    assert loop.step == 1

    board = loop.position
    planned = loop.next_move
    other = next(m for m in board.legal_moves() if isinstance(m, Pair) and m != planned)
    for k in (other.i, other.j):                                     # now a move off the plan
        phone.tap(*loop.reading.cells[k])
    assert "another move" in guide.follow(loop)
    expected = board.copy()
    expected.push(other)
    assert loop.position.cells == expected.cells and loop.step == 0 and loop.tally.replans == 1
    vp.stop()


def test_export_writes_steps_and_an_index(harness, tmp_path):
    vp, phone, loop = start(harness, seed=3)
    guide.export(loop, tmp_path, say=loop.said.append)
    moves = loop.plan.moves
    pictures = sorted(tmp_path.glob("step-*.png"))
    assert len(pictures) == len(moves) + 1                           # every step, then the end
    pages = [tmp_path / "index.html"] + sorted(tmp_path.glob("step-*.html"))
    assert len(pages) == len(pictures)
    first = cv2.cvtColor(cv2.imread(str(pictures[0])), cv2.COLOR_BGR2RGB)
    assert first.shape[:2] == (phone.preset.height, phone.preset.width)  # the screen itself, no words over it
    assert magenta_pixels(first) > 100                               # the first move is drawn
    assert loop.said == [f"wrote {len(moves)} steps and the end to {tmp_path}: open {tmp_path / 'index.html'} "
                         "in a browser"]
    vp.stop()


def test_export_into_a_folder_whose_name_is_not_utf8(harness, tmp_path):
    """A folder name that is not UTF-8 (bytes Python holds as lone surrogates) crashed `guide
    --export` with SIGSEGV inside OpenCV's imwrite: the pictures are now encoded in memory and
    written by Python, and the folder is named with U+FFFD for its odd bytes."""
    from helpers import ROOT

    p = PRESETS["1080x2400"]
    vp = harness.add(Phone(p, apps.create("numbermatch", p, seed=3)))
    folder = os.fsencode(tmp_path) + b"/steps-\xff\xfe"
    run = subprocess.run([sys.executable, "-m", "assistant", "guide", "--serial", vp.serial, "--export",
                          os.fsdecode(folder)], cwd=ROOT, env=harness.env, capture_output=True, timeout=300)
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    names = [os.fsdecode(name) for name in os.listdir(folder)]
    assert "index.html" in names
    pictures = sorted(name for name in names if name.endswith(".png"))
    with open(os.path.join(folder, os.fsencode(pictures[0])), "rb") as file:
        first = cv2.imdecode(np.frombuffer(file.read(), np.uint8), cv2.IMREAD_COLOR)
    assert len(pictures) >= 3 and first.shape[1] == 1080  # (the phone's width, a caption above)
    assert f"to {tmp_path}/steps-\ufffd\ufffd: open ".encode() in run.stdout
    vp.stop()


def page_parts(path) -> dict:
    """An exported page's title, caption (h1), picture and links, as a browser finds them."""
    from html.parser import HTMLParser

    parts = {"links": {}, "text": {}}

    class Parser(HTMLParser):
        tag = None

        def handle_starttag(self, tag, attrs):
            attrs, self.tag = dict(attrs), tag
            if tag == "img":
                parts["img"] = attrs["src"]
            if tag == "a" and attrs.get("href"):
                parts["links"][attrs["id"]] = attrs["href"]
            if tag == "meta" and attrs.get("name") == "viewport":
                parts["viewport"] = attrs["content"]

        def handle_data(self, data):
            if self.tag in ("title", "h1", "span"):
                parts["text"][self.tag] = parts["text"].get(self.tag, "") + data

    Parser().feed(path.read_text())
    return parts


def test_each_exported_page_names_its_move_and_pages_on(harness, tmp_path):
    vp, phone, loop = start(harness, seed=3)
    guide.export(loop, tmp_path, say=loop.said.append)
    moves, board = loop.plan.moves, loop.position.copy()
    names = ["index.html"] + [f"step-{k:03d}.html" for k in range(2, len(moves) + 2)]
    captions = []
    for k, name in enumerate(names):
        parts = page_parts(tmp_path / name)
        assert parts["img"] == f"step-{k + 1:03d}.png" and "width=device-width" in parts["viewport"]
        assert parts["links"].get("ArrowLeft") == (names[k - 1] if k else None)  # prev/next links
        assert parts["links"].get("ArrowRight") == (names[k + 1] if k + 1 < len(names) else None)
        title, caption, counter = parts["text"]["title"], parts["text"]["h1"], parts["text"]["span"]
        assert title.startswith(f"{counter.capitalize()}: {caption}")  # one counter: the page's
        captions.append(caption)
        if k == len(names) - 1:
            assert (caption, counter) == ("Done: board cleared", "the end") and board.is_won()
            done = cv2.cvtColor(cv2.imread(str(tmp_path / parts["img"])), cv2.COLOR_BGR2RGB)
            assert magenta_pixels(done) == 0                         # the cleared board, no move on it
            continue
        move = moves[k]
        words = f"{board.cells[move.i]} at ({move.i // 9 + 1},{move.i % 9 + 1}) with {board.cells[move.j]} at " \
                f"({move.j // 9 + 1},{move.j % 9 + 1})" if isinstance(move, Pair) else "press +"
        assert caption.startswith(words) and "tep" not in caption, caption
        assert counter == f"step {k + 1} of {len(moves)}"
        board.push(move)
    assert captions[0] != captions[1]                                # the first move said once
    vp.stop()


def test_a_preview_header_counts_the_previewed_steps_position(harness):
    vp, phone, loop = start(harness, seed=3)
    loop.start()
    board = loop.position.copy()
    for move in loop.plan.moves[:2]:
        board.push(move)
    live, preview = guide.step_header(loop)[1], guide.step_header(loop, 2)[1]
    assert preview.startswith(f"{board.live_count()} numbers left, {board.adds_left} adds")
    assert f"score {board.score}" in preview and board.live_count() < loop.position.live_count()
    assert live.startswith(f"{loop.position.live_count()} numbers left")
    shown = guide.step_header(loop)[0].split(":")[0]                 # "Step 1/N", as the window counts
    assert guide.closing_line(loop) == f"guide closed at {shown.lower()}"
    vp.stop()


def magenta_pixels(image_rgb) -> int:
    return int(np.all(np.abs(image_rgb.astype(int) - HIGHLIGHT) < 30, axis=2).sum())


def test_phone_killed_mid_play_stops_with_a_message(harness):
    vp, phone, loop = start(harness, faults=Faults(tap_latency=0.1), seed=7)
    threading.Timer(2.0, vp.stop).start()
    with pytest.raises(PhoneLost, match="did not come back"):
        autoplay.play(loop, say=loop.said.append)
    assert any("waiting up to" in line for line in loop.said)


def test_phone_back_within_the_retry_window_resumes(harness):
    vp, phone, loop = start(harness, faults=Faults(tap_latency=0.1), seed=8)

    def unplug_and_replug():
        vp.stop()
        time.sleep(1.0)
        vp.restart()

    threading.Timer(2.0, unplug_and_replug).start()
    autoplay.play(loop, say=loop.said.append)
    assert loop.link.reconnects >= 1
    assert truth(phone)["screen"] == "stage_complete"
    vp.stop()


def test_unknown_screen_pauses_then_goes_on(harness):
    vp, phone, loop = start(harness, seed=9, ads=True, ad_seconds=1)
    loop.dismiss = False  # (--no-dismiss: the ad is left to the player)

    def person_closes_the_ad():
        deadline = time.monotonic() + 60
        while phone.front().kind != "ad" and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.5)                                              # long enough to be noticed
        phone.tap(*centre(phone.truth()["front"]["buttons"]["close"]))  # its countdown is over

    threading.Thread(target=person_closes_the_ad, daemon=True).start()
    autoplay.play(loop, stages=2, say=loop.said.append)
    assert "an ad is showing: close it on the phone and I will go on" in loop.said  # it paused on the ad
    assert loop.tally.stages == 2                                    # and went on after it
    vp.stop()


def test_a_dialog_over_the_board_mid_game_pauses_without_a_tap_then_goes_on(harness):
    vp, phone, loop = start(harness, seed=5, faults=Faults(dialog_after=3, dialog_dismiss=""))  # (no "Not now")
    loop.wait_unknown = 60
    seen = {}

    def person_closes_the_dialog():
        deadline = time.monotonic() + 60
        while phone.dialog is None and time.monotonic() < deadline:
            time.sleep(0.02)
        seen["at_dialog"] = phone.taps_done
        while not any(line.startswith("a dialog") for line in loop.said) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)                                              # the loop keeps looking meanwhile
        seen["taps"], seen["blocked"] = phone.taps_done, phone.taps_blocked
        button = phone.dialog.button
        phone.tap(button[0] + button[2] // 2, button[1] + button[3] // 2)

    threading.Thread(target=person_closes_the_dialog, daemon=True).start()
    autoplay.play(loop, say=loop.said.append)
    paused = [line for line in loop.said if line.startswith("a dialog")]
    assert paused == ['a dialog of the game is in front ("Rate now"), none of them a button I close dialogs with '
                      "(not now, later, no thanks, close, continue): close it on the phone and I will go on"]
    assert not any("cannot read" in line for line in loop.said)     # it named the dialog, not cells under it
    assert seen["blocked"] == 0 and seen["taps"] == seen["at_dialog"]  # and tapped nothing meanwhile
    assert phone.dialogs_shown == 1 and phone.taps_blocked == 0
    assert truth(phone)["screen"] == "stage_complete"                # then finished the board
    assert phone.moves > 3
    vp.stop()


def test_an_ad_nobody_closes_stops_with_a_message(harness):
    vp, phone, loop = start(harness, seed=9, ads=True)
    loop.wait_unknown, loop.dismiss = 2, False  # (--no-dismiss: the ad is left to the player)
    with pytest.raises(TapsolveError, match=r"an ad \(.*\) stayed in front of the game for 2 s"):
        autoplay.play(loop, stages=2, say=loop.said.append)
    assert phone.front().kind == "ad" and phone.ad_taps == 0         # never tapped outside the board
    vp.stop()


def test_window_under_xvfb_shows_the_highlighted_move(harness, tmp_path):
    from PIL import ImageGrab

    with xvfb() as display:
        vp, phone, _ = start(harness, seed=3)
        env = dict(harness.env, DISPLAY=display, XDG_CONFIG_HOME=os.environ["XDG_CONFIG_HOME"])
        # the guide's first plan loads the compiled solver: compiled here first, so that a fresh
        # clone's guide (its kernel cache empty, the other test worker busy) loads it cached
        from solver.numbermatch import search

        search.warm_up()
        run = subprocess.Popen([sys.executable, "-m", "assistant", "guide", "--serial", vp.serial],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        shot = None
        deadline = time.monotonic() + 120  # a guard against a hang, not the verdict
        while time.monotonic() < deadline:
            time.sleep(1)
            shot = np.asarray(ImageGrab.grab(xdisplay=display).convert("RGB"))
            if magenta_pixels(shot) > 200:
                break
        run.terminate()
        out, err = run.communicate(timeout=10)
        Image = __import__("PIL.Image", fromlist=["Image"])
        Image.fromarray(shot).save(tmp_path / "window.png")
        assert magenta_pixels(shot) > 200, err[-500:]
        ys, xs = np.nonzero(shot.any(axis=2))                       # the window (no window manager: at 0, 0)
        assert ys.max() < 700                                        # its bottom, the "+" ring's row, on screen
        assert first_glyph_height(shot[:60]) >= 16                   # "S" of "Step ...": read at a glance
        vp.stop()


def first_glyph_height(band) -> int:
    """The height in pixels of the leftmost dark glyph in a band of text on a light ground."""
    ink = (band.max(axis=2) < 128).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(ink)
    glyphs = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 10]
    return int(min(glyphs, key=lambda s: s[cv2.CC_STAT_LEFT])[cv2.CC_STAT_HEIGHT])


RESIZE = """
import cv2, numpy as np
from assistant import guide
guide.open_window()
guide.show(np.zeros((guide.WINDOW_SIZE[1], guide.WINDOW_SIZE[0], 3), np.uint8))
cv2.waitKey(100)
print(*cv2.getWindowImageRect(guide.WINDOW)[2:])
cv2.resizeWindow(guide.WINDOW, 400, 400)
for _ in range(100):  # until the window shows the new size (a guard, not the verdict)
    cv2.waitKey(50)
    if cv2.getWindowImageRect(guide.WINDOW)[3] == 400:
        break
print(*cv2.getWindowImageRect(guide.WINDOW)[2:])
"""


def test_the_window_can_be_resized_and_keeps_its_shape(tmp_path):
    with xvfb() as display:
        run = subprocess.run([sys.executable, "-c", RESIZE], cwd=ROOT, env=dict(os.environ, DISPLAY=display),
                             capture_output=True, text=True, timeout=60)
        (w0, h0), (w1, h1) = (map(int, line.split()) for line in run.stdout.split("\n")[:2])
        assert (w0, h0) == guide.WINDOW_SIZE and h0 <= 700, run.stderr[-500:]  # fits a 1366x768 laptop
        assert h1 == 400 and abs(w1 / h1 - w0 / h0) < 0.01                    # resized, its shape kept


@contextlib.contextmanager
def xvfb():
    """An Xvfb of a laptop's screen on a display number it picks itself (-displayfd: it writes
    the number once it takes connections), stopped after: two test workers that each picked the
    first free number they saw could start on the same one, and one test's window then went to
    the other's display, or none (a guide window black for two minutes in CI)."""
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read, "rb") as told:
            number = told.readline().strip()  # (empty: Xvfb ended without a display)
        if not number.isdigit():
            raise RuntimeError("Xvfb did not start")
        yield f":{number.decode()}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize("args, words", [
    (["play", "--serial", "nosuchphone"], "nosuchphone"),
    (["guide", "--stages", "2"], "unrecognized"),
])
def test_commands_explain_mistakes_in_one_line(harness, args, words):
    run = subprocess.run([sys.executable, "-m", "assistant", *args], cwd=ROOT, env=harness.env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert words in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_play_dry_run_prints_taps_without_sending(harness):
    vp, phone, _ = start(harness, seed=3)
    before = truth(phone)["board"]
    run = subprocess.run([sys.executable, "-m", "assistant", "play", "--serial", vp.serial, "--dry-run",
                          "--objective", "fast"], cwd=ROOT, env=harness.env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "taps (" in run.stdout
    assert truth(phone)["board"] == before                           # nothing was tapped
    first = run.stdout.splitlines()[1]
    cells = vp_cells(phone)
    # the first move's taps are the centres of its two cells on screen
    taps = [tuple(map(int, t.strip("()").split(","))) for t in first.split("taps ")[1].split()]
    assert all(any(inside(t, rect) for rect in cells.values()) for t in taps)
    vp.stop()


def vp_cells(phone):
    return truth(phone)["cells"]


def inside(point, rect):
    x, y = point
    rx, ry, w, h = rect
    return rx <= x < rx + w and ry <= y < ry + h


def test_ctrl_c_stops_after_the_move_with_a_summary(harness):
    import signal

    vp, phone, _ = start(harness, faults=Faults(tap_latency=0.1), seed=3)
    run = subprocess.Popen([sys.executable, "-m", "assistant", "play", "--serial", vp.serial,
                            "--objective", "fast"], cwd=ROOT, env=harness.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in run.stdout:                                          # wait for the first moves
        lines.append(line)
        if line.strip().startswith("[2/"):
            break
    run.send_signal(signal.SIGINT)
    out, err = run.communicate(timeout=60)
    lines += out.splitlines()
    assert run.returncode == 130
    assert "Traceback" not in err
    assert lines[-1].startswith("stopped: ")
    assert truth(phone)["screen"] == "board"                         # it did not play on
    vp.stop()


def test_demo_plays_flip9_in_the_terminal(tmp_path):
    run = subprocess.run([sys.executable, "-m", "assistant", "demo", "--game", "flip9", "--no-window",
                          "--tap-latency", "0"], cwd=ROOT, capture_output=True, text=True, timeout=180,
                         env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    assert "sorted" in run.stdout
    assert run.stdout.strip().splitlines()[-1].startswith("done: ")
    # the session (not the link) stored the profile with the animation times it learned
    [stored] = (tmp_path / "tapsolve" / "profiles").glob("*_flip9_*.json")
    learned = json.loads(stored.read_text())
    [kept] = learned["channels"].values()  # (the times of the one channel the demo played by)
    assert kept["animations"]["swap"][1] is not None and kept["touches"]["swap"] > 0


def test_the_points_the_phone_scores_are_learned_and_kept_for_the_next_game(harness, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # this test's profiles only
    table = {"touching": 2, "gap": 3, "row": 15}          # the rules say 1, 4 and 10
    vp, phone, loop = start(harness, seed=5, points=table)
    loop.session.keep = True  # (what play teaches the profile is stored, as the command line's play does)
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert truth(phone)["screen"] == "stage_complete"
    game = loop.game
    assert game.points.learned == table
    for kind in table:                                     # within the first moves of each kind
        assert 1 <= game.points.learned_after[kind] <= 3, (kind, game.points.learned_after)
        names = {"touching": "touching pairs 2, not 1", "gap": "pairs across gaps 3, not 4",
                 "row": "each removed row 15, not 10"}
        said = [line for line in loop.said if names[kind] in line]
        assert said == [f"this game scores {names[kind]}: learned"]          # said once
    assert loop.tally.replans == len(table)               # the plan made again with each entry
    assert loop.position.rules.point_table == {**POINTS, **table}
    assert "points learned: touching pairs 2, pairs across gaps 3, each removed row 15" in loop.said[-1]
    stored = list((tmp_path / "tapsolve" / "profiles").glob("*numbermatch*.json"))
    kept = json.loads(stored[0].read_text())["points"] if len(stored) == 1 else None
    assert {k: v for k, v in kept.items() if v != POINTS[k]} == table   # with the kinds borne out

    # the next game on this phone plays by the stored table from its first plan: nothing to learn
    phone.app.new_game()
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    again = Loop(Session(link, keep=True), game="numbermatch", objective="fast", budget=1.0, say=said.append,
                 wait_unknown=5)
    assert autoplay.play(again, say=said.append) == 0
    assert again.game.rules.point_table == {**POINTS, **table}
    assert not any("learned" in line for line in said[:-1]) and again.tally.replans == 0
    vp.stop()
