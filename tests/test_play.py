"""Fast play on a tall board: the screen checked against the prediction instead of read whole
again, a difference off screen found when its row comes on screen, one capture a move once the
animation time is learned, and `tapsolve bench play`."""

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import pytest

from assistant import autoplay
from assistant.phone.device import connect
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from helpers import ROOT, sound_profile, tapsolve
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone
from test_scroll import quiet, sparse_tall_board, truth

# the game's play, not the channel's: in-process phones go by the kept-open shell (conftest)
pytestmark = pytest.mark.usefixtures("shell_by_default")

COLUMNS = 9


def tall_phone(harness, board, faults=None):
    p = PRESETS["720x1600"]
    app = apps.create("numbermatch", p)
    app.board = board
    phone = Phone(p, app, faults or Faults())
    vp = harness.add(phone)
    link = Link(connect(vp.serial, client=harness.client), say=quiet)
    return vp, phone, Loop(Session(link), game="numbermatch", objective="fast", budget=1.0, say=quiet)


def test_a_tall_board_is_played_with_a_bounded_number_of_swipes_per_move(harness):
    # 22 rows on a screen of about 12: before, every move read the board again from the top
    vp, phone, loop = tall_phone(harness, sparse_tall_board(22))
    swipes_at = []
    autoplay.play(loop, say=quiet, status=lambda _: swipes_at.append(loop.link.swipes))
    assert truth(vp)["screen"] == "stage_complete" and vp.wrong_taps == 0
    moves = loop.tally.moves
    assert moves == len(swipes_at) >= 20
    first_survey = swipes_at[0]
    # after the first survey: the pairs are one screen apart at most, so a move needs at most a
    # swipe or two to bring its cells on screen, and the board is never read again from the top
    assert swipes_at[-1] - first_survey <= moves
    assert max(b - a for a, b in zip(swipes_at, swipes_at[1:])) <= 2
    assert loop.tally.replans == 0


def test_a_row_changed_off_screen_is_found_when_it_comes_on_screen_before_any_tap_on_it(harness):
    board = sparse_tall_board(22)
    board.cells[4 * COLUMNS + 7], board.cells[4 * COLUMNS + 8] = 1, 9  # a second pair in row 4
    vp, phone, loop = tall_phone(harness, board)
    changed = []

    def change_once(_):
        # after the first move (which scrolls to the bottom), row 4's second pair is crossed out
        # on the phone behind the loop's back: tapping either cell now is a wrong tap
        if changed:
            return
        t = truth(vp)
        cells = phone.app.board.cells
        row = next(r for r in range(len(cells) // COLUMNS) if sum(map(bool, cells[r * COLUMNS:(r + 1) * COLUMNS])) == 4)
        assert row not in {int(k) // COLUMNS for k in t["cells"]}  # off screen
        cells[row * COLUMNS + 7] = cells[row * COLUMNS + 8] = 0
        changed.append(row)

    autoplay.play(loop, say=quiet, status=change_once)
    assert changed and truth(vp)["screen"] == "stage_complete"
    assert loop.tally.replans >= 1  # the difference was seen and the plan made again
    assert vp.wrong_taps == 0  # found before any tap on the changed row


@pytest.mark.phone
@pytest.mark.video  # (bench play on the channel a user gets)
def test_bench_play_prints_the_demo_summary_with_speed_figures():
    result = tapsolve("bench", "play", "--realism", "real", "--time-scale", "0.1", "--size", "12",
                      "--seed", "2", "--max-moves", "4", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)  # one JSON document: the progress lines went to stderr
    assert "stopped after 4 moves" in result.stderr
    assert {"cleared_stages", "moves", "taps", "wrong_taps", "repeats", "replans", "swipes", "captures",
            "score", "wall_s", "phone_floor_s", "wall_per_floor", "moves_per_min"} <= set(summary)
    assert summary["moves"] == 4 and summary["wrong_taps"] == 0
    # one floor on the run's channel, the game's animations plus the channel's own costs, and one ratio
    assert summary["channel"] in ("scrcpy", "shell")
    assert summary["floor_s"] == pytest.approx(summary["phone_floor_s"] + summary["breakdown_s"]["animations"], abs=0.002)
    assert summary["wall_per_floor"] == pytest.approx(summary["wall_s"] / summary["floor_s"], rel=0.01)
    assert "wall_per_floor_and_animations" not in summary
    if summary["channel"] == "scrcpy":  # looked by video: a frame's latency per look, not a screencap's
        assert summary["phone_floor_s"] > summary["breakdown_s"]["tap_charged"] + summary["breakdown_s"]["swipe_charged"]
        assert summary["channel_start_s"] > 0


def adb_server_pid(port: int) -> int | None:
    """The pid of the adb server process serving ``port`` (`adb -P PORT server nodaemon`), if running."""
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"server" in words and b"-P" in words and words[words.index(b"-P") + 1:][:1] == [str(port).encode()]:
            return int(entry.name)
    return None


@pytest.mark.phone
def test_bench_play_stopped_by_kill_stops_its_adb_server():
    """SIGTERM (`kill`) takes the way out Ctrl-C does: the private adb server it started is gone."""
    run = subprocess.Popen([sys.executable, "-m", "assistant", "bench", "play", "--size", "42", "--seed", "3"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = pid = None
        for line in run.stdout:
            found = re.search(r"private adb server at port (\d+)", line)
            if found:
                port = int(found.group(1))
                pid = adb_server_pid(port)
            if pid is not None and line.strip().startswith("[2/"):  # playing: a move or two made
                break
        assert pid is not None, run.stderr.read()
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
        assert run.returncode == 130 and "Traceback" not in err, err
        deadline = time.monotonic() + 10
        while pid_alive(pid):  # the server is reaped by its parent, which has exited
            assert time.monotonic() < deadline, f"adb server {pid} still running"
            time.sleep(0.05)
        assert adb_server_pid(port) is None
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()


def pid_alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_bench_play_rejects_a_bad_option_in_one_line():
    result = tapsolve("bench", "play", "--size", "1")
    assert result.returncode == 2 and "out of range" in result.stderr and "Traceback" not in result.stderr


def test_a_tall_board_is_cleared_when_the_phone_drops_half_the_taps_and_swipes(harness):
    # four dropped swipes in a row (one in 16 at half lost) no longer pass for a board that
    # does not scroll: where the board is known to go on, a swipe that changed nothing is sent again
    vp, phone, loop = tall_phone(harness, sparse_tall_board(22), faults=Faults(drop_taps=0.5, seed=4))
    autoplay.play(loop, say=quiet)
    assert truth(vp)["screen"] == "stage_complete" and vp.wrong_taps == 0
    assert phone.taps_dropped > 0 and loop.tally.repeats > 0


class AnimatedPhone:
    """A phone on a fake clock: every tap plays an animation of ``length`` seconds; a capture
    costs ``capture_s`` and shows the frame of the moment it is asked for."""

    screen = None  # (no Screen of a phone: captures only)
    serial = "animated"

    def __init__(self, clock, length=0.25, capture_s=0.4):
        self.clock, self.length, self.capture_s = clock, length, capture_s
        self.tapped_at, self.picture, self.frames = -10.0, 0, []
        self.late = 0.0  # seconds after the call returns the phone acts on its taps (a busy phone)

    def taps(self, points):
        self.clock.now += 0.45 * len(points)
        self.picture += 1  # the move changes the picture, which then animates
        self.tapped_at = self.clock.now + self.late

    def capture(self):
        moving = self.clock.now - self.tapped_at < self.length
        self.frames.append(moving)
        value = 255 if moving else 40 * (self.picture % 6)
        self.clock.now += self.capture_s
        frame = np.full((400, 200, 3), value, np.uint8)
        if moving:  # (no two frames of an animation alike)
            frame[100:300] = 60 * (len(self.frames) % 4)
        return frame


class Clock:
    def __init__(self):
        self.now = 100.0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += max(0.0, seconds)


def test_the_first_capture_after_a_move_waits_the_learned_animation_and_is_then_the_only_one(monkeypatch):
    import assistant.link as link_module

    clock = Clock()
    monkeypatch.setattr(link_module, "time", clock)
    phone = AnimatedPhone(clock)
    link = Link(phone, say=quiet)
    per_move = []
    for _ in range(20):
        link.tap_all([(1, 1), (2, 2)], kind="pair")
        before = link.captures
        image = link.glance()
        if image[0, 0, 0] != 255:  # the caller's prediction: the picture after the move
            link.accept(image)
        else:
            link.capture()
        per_move.append(link.captures - before)
        assert not phone.frames[-1]  # the frame taken as the screen never shows the animation
    # learned: one capture a move, but for a rare settled capture that narrows the wait further
    # (at most one such in 8 moves, of at most 3 frames: moving, still, still)
    assert sum(per_move[-8:]) <= 7 + 3 and per_move[-1] == 1, (per_move, link.clock.animation)
    moving, still_at = link.clock.animation["pair"]
    # narrowed while halving the gap saves more over the moves so far than a capture costs
    assert moving < 0.25 <= still_at + 1e-9 and still_at - moving <= 2 * phone.capture_s / 20 + 1e-9


def reading_with(link, profile) -> Session:
    """A session of ``link`` reading with ``profile``: its ``save`` starts the link's clock
    from the profile's times and takes what the clock learns into it (in memory only)."""
    session = Session(link)
    session.profile = profile
    session.save()
    return session


def play_moves(link, phone, moves: int) -> list[int]:
    """Captures each move took (tap, then a glance accepted when it shows the move's picture)."""
    per_move = []
    for _ in range(moves):
        link.tap_all([(1, 1), (2, 2)], kind="pair")
        before = link.captures
        image = link.glance()
        if image[0, 0, 0] != 255:
            link.accept(image)
        else:
            link.capture()
        per_move.append(link.captures - before)
        assert not phone.frames[-1]  # the frame taken as the screen never shows the animation
    return per_move


def test_the_animation_times_learned_are_kept_in_the_profile_for_the_next_game(monkeypatch):
    import assistant.link as link_module
    from vision.profile import Profile

    clock = Clock()
    monkeypatch.setattr(link_module, "time", clock)
    profile = Profile("numbermatch", 200, 400)
    first = Link(AnimatedPhone(clock), say=quiet)
    session = reading_with(first, profile)
    play_moves(first, first.device, 20)
    session.save()
    assert profile.changed and profile.timing("exec")[0]["pair"][1] >= 0.25
    phone = AnimatedPhone(clock)
    second = Link(phone, say=quiet)
    reading_with(second, profile)
    assert play_moves(second, phone, 3) == [1, 1, 1]  # no capture spent learning again


@pytest.mark.parametrize("judged_by", ["glance", "settled capture"])
def test_a_kind_of_touch_made_once_a_game_narrows_its_time_over_the_games(monkeypatch, judged_by):
    """An add, once a game: within one game a narrower time never pays a capture, but the
    profile counts the touches of earlier games, so over several it does; also for a move
    judged on a settled capture only (the last move of a board)."""
    import assistant.link as link_module
    from vision.profile import Profile

    clock = Clock()
    monkeypatch.setattr(link_module, "time", clock)
    profile = Profile("numbermatch", 200, 400)
    gaps, stored = [], []
    for _ in range(8):
        phone = AnimatedPhone(clock, length=0.3)
        link = Link(phone, say=quiet)
        session = reading_with(link, profile)
        link.capture()  # the board read before the move
        link.tap_all([(1, 1)], kind="add")
        if judged_by == "glance":
            image = link.glance()
            if image[0, 0, 0] != 255:
                link.accept(image)
            else:
                link.capture()
        else:
            link.capture()
        assert not phone.frames[-1]  # the frame taken as the screen never shows the animation
        session.save()
        animations, touches = profile.timing("exec")
        moving, still_at = animations["add"]
        gaps.append(still_at - moving)
        stored.append(touches["add"])
        assert still_at >= 0.3 - 1e-9
    assert gaps[-1] <= gaps[0] / 2, gaps
    assert stored == list(range(1, 9)) and profile.to_json()["channels"]["exec"]["touches"] == {"add": 8}


def test_touch_counts_are_stored_with_what_is_learned_or_at_exit_not_on_every_move(tmp_path, monkeypatch):
    import json

    from assistant import session
    from calibration import store

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    profile = sound_profile(model="Pixel 7", channels={"exec": {"animations": {"pair": [0.2, 0.25]}}})
    path = store.profile_path(profile.model, 200, 400, "numbermatch", "light")
    profile.channels["exec"]["touches"], profile.counted = {"pair": 5}, True
    session.save(profile)
    assert not path.exists()  # a move's count alone rewrites nothing
    session.save_counts()  # at exit
    assert json.loads(path.read_text())["channels"]["exec"]["touches"] == {"pair": 5} and not profile.counted
    profile.channels["exec"]["touches"], profile.counted = {"pair": 6}, True
    profile.channels["exec"]["animations"], profile.changed = {"pair": [0.2, 0.22]}, True
    session.save(profile)  # a time learned: stored at once, with the count
    assert json.loads(path.read_text())["channels"]["exec"]["touches"] == {"pair": 6} and not profile.counted


def test_a_touch_the_phone_took_late_does_not_widen_its_kinds_time_for_good(monkeypatch):
    """One touch acted on late (a busy phone; on scrcpy, a tap of a game with lost taps) shows
    its animation past the time its kind was learned still by: the time is learned again. Seen
    in the field: the latest frame seen moving, late, became the bracket's lower bound, every
    later first frame was asked for past it, and the kind kept a wait more than twice its
    animation in that game and every later one. Later moves narrow it back."""
    import assistant.link as link_module
    from vision.profile import Profile

    clock = Clock()
    monkeypatch.setattr(link_module, "time", clock)
    profile = Profile("numbermatch", 200, 400)
    phone = AnimatedPhone(clock, length=0.25, capture_s=0.05)
    link = Link(phone, say=quiet)
    session = reading_with(link, profile)
    play_moves(link, phone, 12)
    learned = link.clock.animation["pair"][1]
    phone.late = 0.5
    play_moves(link, phone, 1)
    assert link.clock.animation["pair"][1] > learned + 0.4  # (learned again, as it looked)
    phone.late = 0.0
    play_moves(link, phone, 12)
    session.save()
    moving, still_at = profile.timing("exec")[0]["pair"]
    assert 0.25 - 1e-9 <= still_at <= learned + 0.05, (learned, moving, still_at)


def test_taps_lost_everywhere_are_no_sign_of_a_game_that_ignores_taps_while_it_animates():
    """Seen in a game with a fifth of the taps dropped (phonesim --drop-taps 0.2): two moves
    sent while the last one animated lost taps, as many moves sent on a still screen did, and
    play took the game for one that ignores taps while it animates; kept in the profile now,
    that would slow every later game. Only losses where the taps went during an animation,
    far more often than elsewhere, say so."""
    def fared(pipelined_lost, pipelined_landed, still_lost, still_landed):
        return {True: {"lost": pipelined_lost, "landed": pipelined_landed},
                False: {"lost": still_lost, "landed": still_landed}}

    assert not autoplay.ignores_taps_while_animating(fared(2, 0, 8, 12))  # dropped everywhere
    # (seen early in such a game, 8 moves in: taken for a game that ignores taps, kept in the
    # profile, and the next game played without pipelining)
    assert not autoplay.ignores_taps_while_animating(fared(2, 0, 2, 4))
    assert autoplay.ignores_taps_while_animating(fared(4, 0, 2, 4))  # (4 in a row: under 1 %)
    assert autoplay.ignores_taps_while_animating(fared(2, 0, 0, 5))  # lost only while it animated
    assert autoplay.ignores_taps_while_animating(fared(2, 0, 0, 1))  # (a phone taken to lose few)
    assert autoplay.ignores_taps_while_animating(fared(3, 1, 1, 12))
    assert not autoplay.ignores_taps_while_animating(fared(1, 0, 0, 5))  # (one loss is no pattern)
    assert not autoplay.ignores_taps_while_animating(fared(3, 3, 0, 5))  # (as many landed)


def test_a_stored_animation_time_too_short_for_this_phone_is_learned_again(monkeypatch):
    import assistant.link as link_module
    from vision.profile import Profile

    clock = Clock()
    monkeypatch.setattr(link_module, "time", clock)
    profile = Profile("numbermatch", 200, 400, channels={"exec": {"animations": {"pair": [0.05, 0.1]}}})
    phone = AnimatedPhone(clock, length=0.5)
    link = Link(phone, say=quiet)
    reading_with(link, profile)
    per_move = play_moves(link, phone, 12)
    assert link.clock.animation["pair"][1] >= 0.5 and per_move[-1] == 1, (per_move, link.clock.animation)
