"""The sliding puzzle: rules, the compiled search against the readable one and a breadth-first
search, the pattern tables and their cache, and `tapsolve solve fifteen`."""

import json
import random
from collections import deque

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from helpers import tapsolve
from solver import _fifteen_kernel as kernel
from solver import fifteen
from solver.fifteen import Board, BoardError
from solver.fifteen import scramble


@st.composite
def solvable_boards(draw, widths=(3, 4, 5)):
    """Any solvable board: a shuffle, with two tiles swapped back when its parity is wrong."""
    width = draw(st.sampled_from(widths))
    tiles = draw(st.permutations(list(range(width * width))))
    if not fifteen.parity_solvable(tiles, width):
        a, b = [k for k, t in enumerate(tiles) if t][:2]
        tiles[a], tiles[b] = tiles[b], tiles[a]
    return Board(tiles)


def replays_to_goal(board: Board, line: list[int]) -> bool:
    work = board.copy()
    for tile in line:
        work.push(tile)  # raises on a tile that does not touch the blank
    return work.is_won()


# -- rules --------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(solvable_boards())
def test_format_and_parse_round_trip(board):
    assert Board.parse(board.format()).tiles == board.tiles
    assert Board.from_json(board.to_json()).tiles == board.tiles


def test_parse_accepts_spaces_commas_zero_and_underscore():
    assert Board.parse("1,2,3,4,5,6,7,0,8").tiles == Board.parse("1 2 3\n4 5 6\n7 _ 8").tiles


def test_legal_moves_push_and_pop():
    board = Board.parse("1 2 3 4, 5 6 7 8, 9 10 _ 11, 13 14 15 12")
    assert board.legal_moves() == [7, 10, 11, 15]
    board.push(11)
    assert board.format() == "1 2 3 4, 5 6 7 8, 9 10 11 _, 13 14 15 12"
    assert board.describe(12) == "slide 12 up"
    board.push(12)
    assert board.is_won()
    assert board.pop() == 12 and board.pop() == 11
    assert board.format() == "1 2 3 4, 5 6 7 8, 9 10 _ 11, 13 14 15 12"
    with pytest.raises(BoardError, match="does not touch the blank"):
        board.push(1)


@pytest.mark.parametrize("text, words", [
    ("1 2 3 4 5 6 7 8", "9, 16, 25, 36 or 49 tiles"),
    ("1 2 3 4 5 6 7 8 8", "tile 8 appears twice"),
    ("1 2 3 4 5 6 7 0 _", "two blanks"),
    ("1 2 x 4 5 6 7 8 0", "'x'"),
    ("1 2 3 4 5 6 7 8 9", "tile 9 does not fit"),
    ("2 1 3 4 5 6 7 8 _", "cannot be solved"),
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 _", "cannot be solved"),
])
def test_bad_boards_are_named(text, words):
    with pytest.raises(BoardError, match=words):
        Board.parse(text)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([3, 4, 5]), st.randoms(use_true_random=False))
def test_parity_rule_agrees_with_reachability(width, rng):
    """Boards reached by slides are solvable; the same with two tiles swapped never is."""
    board = scramble(width, rng.randint(0, 60), rng)
    assert fifteen.parity_solvable(board.tiles, width)
    tiles = list(board.tiles)
    a, b = [k for k, t in enumerate(tiles) if t][:2]
    tiles[a], tiles[b] = tiles[b], tiles[a]
    assert not fifteen.parity_solvable(tiles, width)


# -- the kernel against the rules ----------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(solvable_boards())
def test_kernel_moves_equal_the_rules_moves(board):
    """The kernel's slide table (``neighbours``) gives the blank the rules' neighbours."""
    nbr, count = kernel.neighbours(board.width)
    blank = board.tiles.index(0)
    listed = sorted(board.tiles[nbr[blank * 4 + k]] for k in range(count[blank]))
    assert listed == board.legal_moves()


@settings(max_examples=150, deadline=None)
@given(solvable_boards(widths=(3,)))
def test_every_3x3_line_replays_to_the_goal(board):
    line, _, found = fifteen.search(board)
    assert found and replays_to_goal(board, line)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_4x4_lines_replay_and_equal_plain_ida_star(seed):
    """The table search's length is the readable Manhattan IDA*'s on boards it can finish."""
    board = scramble(4, 22, random.Random(seed))
    solution = fifteen.solve(board)
    plain = fifteen.solve_plain(board, node_budget=300_000)
    assert solution.optimal and replays_to_goal(board, solution.moves)
    assert plain is not None and replays_to_goal(board, plain)
    assert len(solution.moves) == len(plain)


PLAIN_NODES = 50_000_000


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10**6))
@example(667)  # (past the 5 M positions this test once gave Manhattan alone)
def test_4x4_manhattan_kernel_equals_the_table_kernel(seed):
    board = scramble(4, 40, random.Random(seed))
    with_tables, _, found = fifteen.search(board)
    assert found
    # Manhattan alone needs up to tens of millions of positions on a 40-slide board (seed 667:
    # 7.3 M, 0.8 s); a board past this budget says nothing of either kernel and is drawn again
    plain, _, plain_found = fifteen.search(board, tables=False, node_budget=PLAIN_NODES)
    assume(plain_found)
    assert replays_to_goal(board, with_tables) and replays_to_goal(board, plain)
    assert len(plain) == len(with_tables)


def test_5x5_gets_a_line_marked_not_proved_when_the_proof_budget_runs_out():
    board = scramble(5, 80, random.Random(5))
    solution = fifteen.solve(board, proof_nodes=1000)
    assert solution.status == "solved" and not solution.optimal
    assert replays_to_goal(board, solution.moves)
    easy = scramble(5, 12, random.Random(6))
    proved = fifteen.solve(easy)
    assert proved.optimal and len(proved.moves) <= 12 and replays_to_goal(easy, proved.moves)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([5, 6, 7]), st.randoms(use_true_random=False))
def test_boards_wider_than_4_get_a_line_in_stages_marked_not_proved(width, rng):
    """A random 5x5 to 7x7 board (far past any proof budget) gets a line that solves it, said
    not to be proved shortest: the search never gives up on a solvable board."""
    tiles = list(range(width * width))
    rng.shuffle(tiles)
    if not fifteen.parity_solvable(tiles, width):
        a, b = [k for k, t in enumerate(tiles) if t][:2]
        tiles[a], tiles[b] = tiles[b], tiles[a]
    board = Board(tiles)
    solution = fifteen.solve(board)
    assert solution.status == "solved" and not solution.optimal
    assert replays_to_goal(board, solution.moves)


def locked_walk(width: int, locked: set, slides: int, rng) -> Board:
    """The goal after random slides that never move the blank into a ``locked`` cell."""
    board = Board.goal(width)
    last = None
    for _ in range(slides):
        tile = rng.choice([t for t in board.legal_moves() if t != last and board.tiles.index(t) not in locked])
        board.push(tile)
        last = tile
    return Board(board.tiles)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([3, 4]), st.integers(0, 10**6), st.booleans())
def test_a_stage_search_equals_the_readable_one(width, seed, lock_top_row):
    """The compiled search towards some tiles' cells, the blank kept out of locked cells, finds
    lines as short as the readable twin's (weight 1: shortest), and they reach those cells."""
    rng = random.Random(seed)
    locked = set(range(width)) if lock_top_row else set()
    board = locked_walk(width, locked, 30, rng)
    first = width if lock_top_row else 0  # a stage's cells: the first column below the locked row
    cells = [c for c in range(first, width * width, width)][:2]
    targets = {c + 1: c for c in cells} | ({1: 0} if not lock_top_row else {})
    line, _, found = fifteen.search(board, targets=targets, locked=locked)
    plain = fifteen.solve_plain(board, node_budget=2_000_000, targets=targets, locked=locked)
    assume(plain is not None)
    assert found and len(line) == len(plain)
    work = board.copy()
    for tile in line:
        assert work.tiles.index(tile) not in locked
        work.push(tile)
    assert all(work.tiles[c] == t for t, c in targets.items())


# -- against a breadth-first search on 3x3 -------------------------------------------------------

@pytest.fixture(scope="module")
def distances_3x3():
    """Fewest slides to the goal from every solvable 3x3 board: a plain BFS over the rules."""
    goal = tuple(Board.goal(3).tiles)
    dist = {goal: 0}
    queue = deque([goal])
    neighbours = [Board.goal(3).neighbours(c) for c in range(9)]
    while queue:
        tiles = queue.popleft()
        blank = tiles.index(0)
        for c in neighbours[blank]:
            t = list(tiles)
            t[blank], t[c] = t[c], 0
            t = tuple(t)
            if t not in dist:
                dist[t] = dist[tiles] + 1
                queue.append(t)
    return dist


def test_bfs_reaches_every_solvable_3x3_board(distances_3x3):
    assert len(distances_3x3) == 181_440 and max(distances_3x3.values()) == 31


def test_3x3_lengths_equal_bfs_on_a_sample(distances_3x3):
    boards = random.Random(3).sample(sorted(distances_3x3), 400)
    hardest = [t for t, d in distances_3x3.items() if d == 31]
    for tiles in boards + hardest:
        line, _, found = fifteen.search(Board(list(tiles)))
        assert found and len(line) == distances_3x3[tiles]


def wrong_lengths(boards: list[tuple[tuple[int, ...], int]]) -> list[tuple[int, ...]]:
    """The boards among (tiles, fewest slides) whose compiled line is missing or not that long."""
    wrong = []
    for tiles, length in boards:
        line, _, found = fifteen.search(Board(list(tiles)))
        if not (found and len(line) == length):
            wrong.append(tiles)
    return wrong


@pytest.mark.slow
def test_3x3_lengths_equal_bfs_on_every_board(distances_3x3):
    import os
    from concurrent.futures import ProcessPoolExecutor

    # 181,440 searches: one process a core (each loads the cached kernel once)
    workers = max(1, min(8, os.cpu_count() or 1))
    items = sorted(distances_3x3.items())
    chunks = [items[k::workers * 4] for k in range(workers * 4)]
    with ProcessPoolExecutor(workers) as pool:
        wrong = [t for part in pool.map(wrong_lengths, chunks) for t in part]
    assert sum(map(len, chunks)) == 181_440
    assert wrong == []


# -- the pattern tables ----------------------------------------------------------------------------

def test_pattern_table_equals_a_plain_breadth_first_search():
    """The 3-tile group's table from the kernel against a Python 0-1 BFS over the rules."""
    tiles = (13, 14, 15)
    table = kernel.build_pattern_table(np.array(tiles, np.int64))
    start = (12, 13, 14, 15)  # the group's cells, then the blank's
    cost = {start: 0}
    queue = deque([start])
    neighbours = [Board.goal(4).neighbours(c) for c in range(16)]
    while queue:
        state = queue.popleft()
        *places, blank = state
        for c in neighbours[blank]:
            moved = [blank if p == c else p for p in places]
            step = 1 if c in places else 0
            nxt = (*moved, c)
            if nxt not in cost or cost[state] + step < cost[nxt]:
                cost[nxt] = cost[state] + step
                (queue.append if step else queue.appendleft)(nxt)
    best = {}
    for (*places, _), c in cost.items():
        key = sum(p << (4 * i) for i, p in enumerate(places))
        best[key] = min(best.get(key, 99), c)
    assert len(best) == 16 * 15 * 14
    assert all(table[k] == v for k, v in best.items())


def test_tables_are_checked_when_loaded_and_built_again_when_wrong(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(fifteen, "GROUPS", ((13, 14, 15), (1, 2, 3)))
    monkeypatch.setattr(fifteen, "_TABLES", None)
    built = []
    real_build = fifteen.build_tables
    monkeypatch.setattr(fifteen, "build_tables", lambda: built.append(1) or real_build())
    first = fifteen.pattern_tables()["pdb"].copy()
    assert len(built) == 1 and fifteen.table_path().exists()
    monkeypatch.setattr(fifteen, "_TABLES", None)
    fifteen.pattern_tables()
    assert len(built) == 1  # loaded from the cache, not built
    # a flipped byte under the old checksum, then a truncated file: both are built again
    harmed = first.copy()
    harmed[100] ^= 1
    np.savez(fifteen.table_path(), table=harmed, sha256=np.array(fifteen.checksum(first)))
    monkeypatch.setattr(fifteen, "_TABLES", None)
    assert np.array_equal(fifteen.pattern_tables()["pdb"], first) and len(built) == 2
    fifteen.table_path().write_bytes(fifteen.table_path().read_bytes()[:1000])
    monkeypatch.setattr(fifteen, "_TABLES", None)
    assert np.array_equal(fifteen.pattern_tables()["pdb"], first) and len(built) == 3
    monkeypatch.setattr(fifteen, "_TABLES", None)


# -- the command line ------------------------------------------------------------------------------

def test_solve_fifteen_json_follows_the_contract_and_replays():
    run = tapsolve("solve", "fifteen", "1 2 3 4, 5 6 7 8, 9 10 11 12, 13 _ 14 15", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert set(out) == {"game", "board", "status", "moves", "length", "optimal", "seconds", "nodes"}
    assert out["game"] == "fifteen" and out["status"] == "solved" and out["optimal"] is True
    assert out["moves"] == [{"tile": 14}, {"tile": 15}] and out["length"] == 2
    assert replays_to_goal(Board.from_json(out["board"]), [m["tile"] for m in out["moves"]])


def test_solve_fifteen_human_output():
    run = tapsolve("solve", "fifteen", "1,2,3,4,5,6,0,7,8")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[:4] == ["Board (3x3):", "1 2 3", "4 5 6", "_ 7 8"]
    assert lines[4:] == ["  1. slide 7 left", "  2. slide 8 left", "2 moves (optimal)"]


@pytest.mark.parametrize("json_out", [[], ["--json"]])
def test_solve_fifteen_that_finds_no_line_in_its_budget_says_so_in_one_line_exit_1(monkeypatch, capsys, json_out):
    from assistant import cli

    monkeypatch.setattr(fifteen, "PROOF_NODES", {5: 100})
    monkeypatch.setattr(fifteen, "STAGE_NODES", 1)  # no stage finds its line either
    board = scramble(5, 80, random.Random(5)).format()
    assert cli.main(["solve", "fifteen", board, *json_out]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tapsolve: error: no line found within the search's budget (")
    assert err.endswith("nodes): slide a few tiles home by hand and solve the board again\n")


@pytest.mark.parametrize("tiles, words", [
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", "not 15"),
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 14 _", "appears twice"),
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 fifteen _", "'fifteen'"),
    ("1 2 3 4 5 6 7 8 9 10 11 12 13 15 14 _", "cannot be solved"),
])
def test_solve_fifteen_bad_boards_are_one_line_exit_2(tiles, words):
    run = tapsolve("solve", "fifteen", tiles)
    assert run.returncode == 2
    assert words in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert "Traceback" not in run.stderr
