"""The games on phonesim, played through the real adb server: pairs, adds, a stage, Flip 9, `tapsolve phone`."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from assistant.phone import device, server
from helpers import centre, truth
from phonesim.phone import PRESETS, Phone
from solver import flip9
from solver.numbermatch import search
from solver.numbermatch import Add, Board, Pair

from phonesim import apps

ROOT = Path(__file__).resolve().parent.parent


def changed(before, after, rect) -> bool:
    x, y, w, h = rect
    return not np.array_equal(before[y:y + h, x:x + w], after[y:y + h, x:x + w])


def numbermatch(harness, preset="1080x2400", **options):
    p = PRESETS[preset]
    vp = harness.add(Phone(p, apps.create("numbermatch", p, **options)))
    return vp, device.connect(vp.serial, client=harness.client)


def test_taps_play_a_legal_pair_and_the_picture_follows(harness):
    vp, link = numbermatch(harness, seed=3)
    start = truth(vp)
    board = Board.from_json(start["board"])
    pair = next(m for m in board.legal_moves() if isinstance(m, Pair))
    before = link.capture()

    link.tap(*centre(start["cells"][str(pair.i)]))
    selected = truth(vp)
    assert selected["selected"] == pair.i
    highlighted = link.capture()
    assert changed(before, highlighted, start["cells"][str(pair.i)])
    assert not changed(before, highlighted, start["cells"][str(pair.j)])

    link.tap(*centre(start["cells"][str(pair.j)]))
    expected = board.copy()
    expected.push(pair)
    played = truth(vp)
    assert played["board"]["cells"] == expected.cells
    assert played["board"]["score"] == expected.score > 0
    assert played["selected"] is None
    after = link.capture()
    assert changed(before, after, start["cells"][str(pair.i)])
    assert changed(before, after, start["cells"][str(pair.j)])
    untouched = next(k for k in start["cells"] if int(k) not in (pair.i, pair.j)
                     and abs(int(k) - pair.i) > 10 and abs(int(k) - pair.j) > 10)
    assert not changed(before, after, start["cells"][untouched])


def test_an_add_appends_the_live_numbers(harness):
    vp, link = numbermatch(harness, preset="720x1600", seed=5)
    start = truth(vp)
    board = Board.from_json(start["board"])
    before = link.capture()
    link.tap(*centre(start["add_button"]))
    expected = board.copy()
    expected.push(Add())
    after_truth = truth(vp)
    assert after_truth["board"]["cells"] == expected.cells
    assert after_truth["board"]["adds_left"] == board.adds_left - 1
    new_cell = after_truth["cells"][str(len(board.cells))]  # the first appended number
    assert changed(before, link.capture(), new_cell)


def test_a_stage_is_completed_and_continue_deals_the_next(harness):
    vp, link = numbermatch(harness, seed=2, size=12)
    board = Board.from_json(truth(vp)["board"])
    solution = search.solve(board, budget=10)
    assert solution.status == "solved"
    for move in solution.moves:
        now = truth(vp)
        if isinstance(move, Add):
            link.tap(*centre(now["add_button"]))
        else:
            link.taps([centre(now["cells"][str(move.i)]), centre(now["cells"][str(move.j)])])
    done = truth(vp)
    assert done["screen"] == "stage_complete"
    link.tap(*centre(done["buttons"]["continue"]))
    following = truth(vp)
    assert following["screen"] == "board" and following["board"]["stage"] == 2
    assert following["board"]["score"] == solution.score


def test_flip9_buttons_swap_cards_by_the_rules(harness):
    p = PRESETS["1080x2400"]
    vp = harness.add(Phone(p, apps.create("flip9", p, seed=4)))
    link = device.connect(vp.serial, client=harness.client)
    start = truth(vp)
    state = flip9.State.parse("".join(map(str, start["state"]["cards"])))
    a, b = state.cards[0], state.cards[1]
    link.taps([centre(start["buttons"][str(a)]), centre(start["buttons"][str(b)])])
    state.push((a, b))
    after = truth(vp)
    assert after["state"]["cards"] == list(state.cards) and after["state"]["must"] == state.must
    assert after["moves"] == 1


def test_tapsolve_phone_runs_in_the_foreground_until_ctrl_c(harness):
    # (faulthandler: a phone that does not stop is made to print where each thread is)
    proc = subprocess.Popen([sys.executable, "-m", "assistant", "phone", "--preset", "720x1600",
                             "--seed", "7", "--theme", "dark"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        serial = lines[1].split()[-1]
        assert lines[1] == f"serial: {serial}\n" and lines[2] == f"connect: tapsolve connect {serial}\n"
        assert "connected" in harness.client.connect(serial, timeout=10)
        deadline = time.monotonic() + 10
        while not any(i.serial == serial and i.state == "device" for i in harness.client.list()):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        link = device.connect(serial, client=harness.client)
        assert link.capture().shape == (1600, 720, 3)
        proc.send_signal(signal.SIGINT)
        # generous: a loaded CI machine was seen to take over 10 s to wind the server down, and
        # once over 30 s (the threads' stacks are shown if it happens again)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            err = proc.communicate(timeout=10)[1]
            pytest.fail(f"the phone did not stop within 30 s of Ctrl-C; its threads:\n{err[-4000:]}")
        assert proc.returncode == 0, err
        assert "stopped" in out and "Traceback" not in err
        with pytest.raises(server.PhoneLost):
            link.capture()
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
