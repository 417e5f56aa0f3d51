"""`tapsolve solve` as a person runs it: answers, the Solution JSON, and one-line errors."""

import json

import pytest

from helpers import replayed, tapsolve

from solver.flip9 import State


def test_numbermatch_json_follows_the_contract_and_replays():
    run = tapsolve("solve", "numbermatch", "761541629 587238354 149416182", "--adds", "4", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert {"game", "board", "status", "moves", "seconds", "adds_used", "score", "optimal",
            "adds_optimal", "moves_optimal", "nodes"} <= set(out)
    assert out["optimal"] == (out["adds_optimal"] and out["moves_optimal"])
    assert out["status"] == "solved" and out["board"]["adds_left"] == 4
    board = replayed(out)
    assert board.is_won()
    assert board.score == out["score"]
    assert out["adds_used"] == sum(m["type"] == "add" for m in out["moves"])


def test_numbermatch_human_output_lists_steps_and_summary():
    run = tapsolve("solve", "numbermatch", "19 55")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "1 at (1,1) with 9 at (1,2)" in run.stdout
    assert lines[-1].startswith("Cleared with 0 adds")


def test_numbermatch_row_window_plays_pairs_with_the_emptied_row_still_there():
    # tests/test_numbermatch_rules.py: 1 and 9 meet on a diagonal through the row 5 5 empties
    # only while it waits; without the window the board is unsolvable with no add
    board = "12....... 55....... ..9....8."
    out = json.loads(tapsolve("solve", "numbermatch", board, "--adds", "0", "--row-window", "--json").stdout)
    assert out["status"] == "solved" and out["row_window"] is True
    assert {"type": "pair", "cells": [0, 20]} in out["moves"]
    assert replayed(out).is_won()
    run = tapsolve("solve", "numbermatch", board, "--adds", "0", "--row-window")
    assert run.returncode == 0, run.stderr
    assert "with 9 at (3,3)" in run.stdout and run.stdout.splitlines()[-1].startswith("Cleared with 0 adds")
    out = json.loads(tapsolve("solve", "numbermatch", board, "--adds", "0", "--json").stdout)
    assert out["status"] == "unsolvable" and out["row_window"] is False


def test_numbermatch_unsolvable_board_says_so():
    run = tapsolve("solve", "numbermatch", "12", "--adds", "0", "--json")
    assert json.loads(run.stdout)["status"] == "unsolvable"


def test_flip9_swaps_sort_the_cards():
    run = tapsolve("solve", "flip9", "3,1,5,9,2,7,4,8,6", "--json")
    out = json.loads(run.stdout)
    assert out["optimal"] is True and out["status"] == "solved"
    state = State.from_json(out["board"])
    for move in out["moves"]:
        state.push(tuple(move["swap"]))
    assert state.is_won()
    human = tapsolve("solve", "flip9", "315927486", "--must", "6")
    assert human.returncode == 0 and human.stdout.strip().endswith("(optimal)")
    assert human.stdout.splitlines()[1].split()[2] == "6"             # the first swap moves 6


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("args, words", [
    (("solve", "numbermatch", "1203"), "'0'"),
    (("solve", "numbermatch", "12x"), "'x'"),
    (("solve", "numbermatch", " "), "empty"),
    (("solve", "numbermatch", "19", "--adds", "-1"), "out of range: adds are 0 to 99"),
    (("solve", "flip9", "112345678"), "each of 1-9 once"),
    (("solve", "flip9", "123456789", "--must", "10"), "cards are 1-9"),
    (("solve", "flip9", "123456789", "--must", "0"), "cards are 1-9"),
    (("solve", "numbermatch", "nope.json"), "cannot read"),
])
def test_bad_input_is_one_line_exit_2(args, words):
    run = tapsolve(*args)
    assert run.returncode == 2
    assert words in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert "Traceback" not in run.stderr
