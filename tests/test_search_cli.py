"""`tapsolve solve numbermatch --objective` and `tapsolve bench numbermatch` as a person runs them."""

import json

import pytest

from helpers import replayed, tapsolve


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_score_objective_clears_with_more_points_than_fast():
    text = "467956239 385113145 967616278"
    fast = json.loads(tapsolve("solve", "numbermatch", text, "--json").stdout)
    best = json.loads(tapsolve("solve", "numbermatch", text, "--objective", "score",
                               "--budget", "0.5", "--json").stdout)
    for out in (fast, best):
        board = replayed(out)
        assert out["status"] == "solved" and board.is_won() and board.score == out["score"]
    assert fast["optimal"] and fast["adds_used"] == 1
    assert best["score"] > 3 * fast["score"]


def test_human_output_says_when_to_press_plus():
    run = tapsolve("solve", "numbermatch", "112", "--adds", "1")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[2:] == ["  1. 1 at (1,1) with 1 at (1,2)  +1",
                         "  2. press +  (0 left after)",
                         "  3. 2 at (1,3) with 2 at (1,4)  +161",
                         "Cleared with 1 add, score 162, 3 moves (fewest adds and fewest moves, proved)."]


@pytest.mark.parametrize("args, message", [
    (("solve", "numbermatch", "19", "--budget", "0"), "must be more than 0"),
    (("solve", "numbermatch", "19", "--objective", "slow"), "invalid choice"),
    (("solve", "numbermatch", "... ..."), "no live number"),
    (("bench", "numbermatch", "--size", "1"), "board sizes are 2 to 360"),
    (("bench", "numbermatch", "--budget", "-1"), "must be more than 0"),
    (("bench", "numbermatch", "--boards", "0"), "boards are 1 to 100000"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    run = tapsolve(*args)
    assert run.returncode == 2
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_bench_compares_with_the_baseline_on_the_same_boards():
    run = tapsolve("bench", "numbermatch", "--boards", "4", "--size", "18", "--adds", "3",
                   "--seed", "3", "--budget", "0.05", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["boards"] == 4 and report["size"] == 18
    assert set(report["figures"]) == {"fast", "score", "baseline"}
    fast, base = report["figures"]["fast"], report["figures"]["baseline"]
    assert fast["solved %"] + fast["proved unsolvable %"] + fast["gave up %"] == pytest.approx(100)
    assert base["proved unsolvable %"] == 0                  # playouts never prove anything
    assert report["baseline clears, we do not"] == 0
    table = tapsolve("bench", "numbermatch", "--boards", "2", "--size", "9", "--budget", "0.05",
                     "--objective", "fast")
    assert "fast/base" in table.stdout and "mean score" in table.stdout
