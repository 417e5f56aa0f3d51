"""Small things a person meets at the edges of a run (issue 42, item 10): a second Ctrl-C while a
run stops, the table-build bar, `bench play`'s ratios."""

import io
import signal
import time

import pytest

from assistant import autoplay, cli
from solver import cache


@pytest.fixture
def sigint_restored():
    """Ctrl-C as Python sets it at start (another test in this process may have left it ignored,
    as a stopped command does on its way out), and as it was again after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_a_second_ctrl_c_while_play_stops_is_let_pass(sigint_restored):
    # `timeout` forwards the Ctrl-C it gets beside the terminal's own: two arrive together
    with pytest.raises(autoplay.Stopped), autoplay.StopAfterMove() as stop:
        signal.raise_signal(signal.SIGINT)  # (no move under way: stops at once)
    assert stop.asked and signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    signal.raise_signal(signal.SIGINT)  # the second: nothing happens, no traceback while the summary is said


def test_a_stop_the_window_asks_for_leaves_ctrl_c_as_it_was(sigint_restored):
    with autoplay.StopAfterMove() as stop:
        stop.asked = True  # (the demo's window closed: no signal)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_command_stopped_by_ctrl_c_ends_with_one_line_whatever_comes_after(sigint_restored, monkeypatch, capsys):
    def run(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "warm", run)
    assert cli.main(["warm"]) == 130
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # (the exit handlers run undisturbed)
    assert capsys.readouterr().err == "tapsolve: stopped\n"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_table_build_bar_moves_while_a_step_runs(monkeypatch):
    terminal = Terminal()
    monkeypatch.setattr(cache.sys, "stderr", terminal)
    monkeypatch.setattr(cache, "TICK", 0.01)
    progress = cache.Progress("building the tables", [1, 1])
    deadline = time.monotonic() + 30
    while terminal.getvalue().count("\r") < 4 and time.monotonic() < deadline:
        time.sleep(0.01)  # (one long step: no step() meanwhile)
    drawn = terminal.getvalue().split("\r")[1:]
    assert len(drawn) >= 4 and len(set(drawn)) >= 3  # redrawn, changing: the elapsed time goes on
    assert all(line.endswith("] 0%") and len(line) < 80 for line in drawn[:3])
    progress.step()
    progress.step()
    settled = terminal.getvalue()
    time.sleep(0.1)
    assert terminal.getvalue() == settled and settled.endswith("100%\n")  # stopped when done


def test_bench_play_says_no_ratio_rather_than_none(monkeypatch, capsys):
    from argparse import Namespace

    from assistant import bench, demo

    figures = {"moves": 0, "wall_s": 0.0, "breakdown_s": {"animations": 0.0, "tap": 0.0}, "phone_floor_s": 0.0,
               "channel_start_s": 0.0, "channel": "exec", "taps": 0, "swipes": 0, "captures": 1, "wrong_taps": 0,
               "pipelined": 0}
    monkeypatch.setattr(demo, "play_virtual", lambda *a, **k: (0, dict(figures)))
    bench.play(Namespace(size=27, adds=5, skin=None, width=None, layout="buttons", max_moves=None, json=False))
    out = capsys.readouterr().out
    assert "None" not in out and "no wall / floor" in out


def test_the_time_breakdown_leaves_out_what_the_screen_decoded_before_the_clock():
    from types import SimpleNamespace

    from assistant import demo

    # connecting timed both screenshot methods (0.12 s of decoding a PNG) before the run; the
    # run itself decoded 0.01 s of its 0.5 s of captures
    screen = SimpleNamespace(decode_s=0.13)
    link = SimpleNamespace(device=SimpleNamespace(screen=screen),
                           spent={"tap": 0.2, "swipe": 0.0, "capture": 0.5, "wait": 0.1})
    phone = SimpleNamespace(charged={"tap": [0.05], "swipe": [], "capture": []}, animation_s=lambda: 3.0)
    out = demo.time_breakdown(link, phone, 1.0, decoded_before=0.12)
    assert out["decode"] == 0.01 and out["capture"] == 0.49
    assert out["own"] == 0.2 and out["animations"] == 3.0
