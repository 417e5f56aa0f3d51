"""The compiled search against the readable one, and the answers it gives on any position."""

import threading
import time

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from solver.numbermatch import search
from solver.numbermatch.search.reference import reference_lock_floor, reference_pairs_floor, reference_solve
from solver.errors import InputError
from solver.numbermatch import Add, Board, Rules

# seconds the pure-Python reference may search one drawn board: a board it gives up on is
# discarded and another drawn, so more only spends the suite's time (at 20 s, 8 of 150 draws gave
# up and took 160 s between them; the boards it proves take 0.01-2 s, a few up to 17 s)
REFERENCE_BUDGET = 4

small_cells = st.lists(st.sampled_from([0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), min_size=2, max_size=14)


@st.composite
def small_boards(draw):
    rules = Rules(add_after=draw(st.sampled_from(["cell", "live"])), row_window=draw(st.booleans()))
    board = Board(draw(small_cells), draw(st.integers(0, 2)), score=draw(st.integers(0, 99)),
                  stage=draw(st.integers(1, 5)), rules=rules)
    assume(board.live_count() > 0)
    return board


def assert_clears(solution):
    """The line replays legally with the reference rules and clears the board."""
    after = solution.replay()
    assert after.is_won()
    assert solution.to_json()["score"] == after.score - solution.start.score


# 150 boards, each also solved by the pure-Python reference: about 30 s, by the boards drawn (in
# the whole suite, not the fast set)
@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(small_boards())
# the row window: the fewest pairs (7) need a wait, and the last pass kept a line of 8 pairs and
# no wait as "as long" (it counted the wait as a pair)
@example(Board([2, 1, 7, 0, 7, 7, 7], 2, score=34, stage=2, rules=Rules(add_after="live", row_window=True)))
def test_fast_finds_the_fewest_adds_then_moves_the_reference_search_finds(board):
    reference = reference_solve(search.without_empty_rows(board), budget=REFERENCE_BUDGET)
    assume(reference.status != "gave_up")
    solution = search.solve(board, "fast", budget=20)
    assert solution.status == reference.status
    assert solution.adds_optimal and solution.moves_optimal and solution.optimal
    if solution.status == "solved":
        assert_clears(solution)
        assert solution.adds_used == reference.adds_used
        assert solution.pairs <= reference.pairs          # never more pairs than the reference
        assert solution.pairs == reference.pairs          # both proved: the same count
    else:
        assert solution.moves == []


# 50 boards: each needs a proved reference line with an add, the slowest kind of reference search
# (25-65 s by the boards drawn: in the whole suite, not the fast set)
@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(small_boards())
def test_the_floor_on_what_the_adds_copy_never_exceeds_the_reference_optimum(board):
    # the fewest-moves search prunes on this floor, so a floor above the optimum would "prove" a
    # line that is not the shortest
    start = search.without_empty_rows(board)
    reference = reference_solve(start, budget=REFERENCE_BUDGET)
    assume(reference.status == "solved" and reference.optimal and reference.adds_used > 0)
    kernel = search.Kernel(start, tt_bits=4)
    kernel.reset(reference.adds_used, kernel.K.MOVES)
    floor = kernel.cost_floor(reference.adds_used)
    assert floor <= search.add_cost(start, reference.pairs)


def test_the_reference_search_proves_the_fewest_pairs():
    reference = reference_solve(Board.parse("195519", adds_left=1))
    assert reference.status == "solved" and reference.optimal
    assert reference.replay().is_won()
    assert (reference.adds_used, reference.pairs) == (0, 3)                  # no add needed
    # "19551": 1-9 and 5-5 first leave the last 1 alone; "+" then copies only it, and the copy
    # pairs it (3 pairs); "+" pressed first would copy all five numbers (5 pairs)
    reference = reference_solve(Board.parse("19551", adds_left=1))
    assert (reference.adds_used, reference.pairs) == (1, 3)
    assert reference.replay().is_won()


@pytest.mark.parametrize("text, most_pairs", [
    ("323125399547866428345592974", 20),    # public solvers' lines with the same adds; ours had 26
    ("167814436137684876172751562", 15),    # 20
    ("244641852523789618644925852", 14),    # 18
])
def test_fast_presses_add_when_few_numbers_are_live(text, most_pairs):
    solution = search.solve(Board.parse(text, adds_left=4), "fast", budget=20)
    assert solution.status == "solved" and solution.optimal
    assert_clears(solution)
    assert solution.pairs <= most_pairs


# -- the floor on what pairs alone leave -----------------------------------------------------------

# up to four rows, half of the cells crossed out: rows between two numbers, for the diagonals
floor_boards = st.lists(st.sampled_from([0] * 9 + list(range(1, 10))), min_size=9, max_size=36).map(
    lambda cells: search.without_empty_rows(Board(cells, 1)))


def positions_pairs_reach(board: Board) -> set:
    """Every position pairs alone (and the row window's waits) reach from the board (the
    reference rules), the board too."""
    work, seen = board.copy(), set()

    def visit():
        key = tuple(work.cells)
        if key not in seen:
            seen.add(key)
            for pair in [m for m in work.legal_moves() if not isinstance(m, Add)]:
                work.push(pair)
                visit()
                work.pop()

    visit()
    return seen


def fewest_left_by_pairs(board: Board) -> int:
    """The fewest live numbers pairs alone can leave, by trying every line (the reference rules)."""
    return min(sum(1 for v in cells if v) for cells in positions_pairs_reach(board))


# seconds to over a minute of a core, by the boards drawn: every line of pairs is tried (in the whole
# suite, not the fast set)
@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(floor_boards)
def test_the_pairs_floor_never_exceeds_what_pairs_alone_can_leave(board):
    # the fewest-moves search proves a line on this floor: above the truth it would "prove" a line
    # that is not the shortest
    assert reference_pairs_floor(board) <= fewest_left_by_pairs(board)


# about 25 s: the readable floor tries every group of three and four classes (in the whole suite,
# not the fast set)
@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(floor_boards)
def test_the_compiled_pairs_floor_equals_the_readable_one(board):
    kernel = search.Kernel(board, tt_bits=4)
    assert kernel.pairs_floor(budget=10**7) == reference_pairs_floor(board)


@settings(max_examples=60, deadline=None)
@given(floor_boards, st.randoms(use_true_random=False))
def test_the_lock_floor_along_a_line_equals_the_readable_one_and_never_exceeds_what_pairs_leave(board, rnd):
    # the fewest-moves pass cuts every position before the first add whose lock floor leaves more
    # than its bound: above the truth, it would cut the line it must find. The kernel keeps the
    # start board's live numbers as bits move by move (rows gone too), and each position's
    # groups from its parent's: check both along a random line of pairs
    kernel = search.Kernel(board, tt_bits=4)
    K = kernel.K
    kernel.reset(board.adds_left, K.MOVES)
    a = kernel.arrays
    a.ctl[K.LOCK_BUDGET] = 10**7
    work, origin = board.copy(), list(range(len(board.cells)))  # origin: each cell's start index
    while True:
        live = frozenset(origin[k] for k, v in enumerate(work.cells) if v)
        bits = int(a.ctl[K.LMASK])
        assert {int(a.lg[K.LG_POS, b]) for b in range(int(a.lg[K.LG_SIZE, 2])) if bits >> b & 1} == live
        floor = K.lock_floor(a.lg, a.memo, a.gstack, a.gains, a.ctl, a.undo, 10**6)
        assert floor == reference_lock_floor(board, live)
        assert floor <= fewest_left_by_pairs(work)
        pairs = list(work.pairs())
        if not pairs:
            break
        pair = rnd.choice(pairs)
        cols = board.rules.columns
        crossed = [v if k not in (pair.i, pair.j) else 0 for k, v in enumerate(work.cells)]
        origin = [o for k, o in enumerate(origin) if any(crossed[k - k % cols:k - k % cols + cols])]
        work.push(pair)
        K.push_pair(a.cells, a.rl, a.ctl, a.undo, pair.i, pair.j, a.pts, a.zob, a.zn, a.lg)


@st.composite
def even_boards(draw):
    """Up to four rows, half of the cells crossed out, every pairing class even: with no add
    to press, a search only goes on from such a position."""
    numbers = [v for v in draw(st.lists(st.integers(1, 9), min_size=1, max_size=8))
               for v in (v, draw(st.sampled_from([v, 10 - v])))]
    cells = draw(st.permutations(numbers + [0] * draw(st.integers(0, 36 - 2 * len(numbers)))))
    return search.without_empty_rows(Board(list(cells), 0))


@settings(max_examples=200, deadline=None)
@given(even_boards(), st.booleans())
# 1 board in 300 drawn like these: asleep pairs not moved up with the rows below an emptied row
# hid 7 of its positions
@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@example(Board.parse("2.93..739 ..77.76.7 ..2...36. ..22...", adds_left=0), False)
@example(Board.parse("2.93..739 ..77.76.7 ..2...36. ..22...", adds_left=0), True)
def test_the_compiled_search_visits_every_position_pairs_alone_reach(board, window):
    # the search tries one order of pairs that commute (sleep sets), across emptied rows too: a
    # wrong skip would hide positions, and so the lines a proof must rule out; in the row window
    # a wait between pairs, too
    board.rules = Rules(row_window=window)
    kernel = search.Kernel(board, tt_bits=12)
    K = kernel.K
    kernel.reset(0, K.FAST)
    cells, ctl = kernel.arrays.cells, kernel.arrays.ctl
    visited = set()
    code = K.LIMIT
    while code != K.EXHAUSTED:                   # one position at a time, on past a clear
        code = kernel.run(time.perf_counter() + 60, node_cap=1)
        visited.add(tuple(cells[:ctl[K.N]].tolist()))
    assert visited == positions_pairs_reach(board)


@pytest.mark.parametrize("mode, asleep", [("FAST", [(12, 13)]), ("MOVES", [(12, 13)]), ("SCORE_MODE", [])])
def test_a_pair_tried_before_a_move_that_empties_a_row_sleeps_below_it_moved_up(mode, asleep):
    # row 0 holds cells 0 and 1, row 1 cell 9 alone, row 2 cells 20-22: the pair (21, 22) was
    # tried, then (0, 9) empties row 1. Either order reaches the same cells, so the pair sleeps
    # below, a row higher; not in SCORE, where its points depend on the rows above it
    K = search.Kernel(Board.parse("11", adds_left=0), tt_bits=4).K
    ctl = np.zeros(K.SLOTS, np.int64)
    ctl[K.COLS], ctl[K.MODE] = 9, getattr(K, mode)
    rl = np.array([2, 1, 3, 0], np.int64)
    mv = np.array([[21, 22], [0, 9]], np.int32)
    lvl, lsl, sl = np.array([[0, 2, 2]], np.int64), np.zeros((2, 2), np.int64), np.zeros((4, 2), np.int32)
    K.sleep_for_child(rl, ctl, mv, lvl, sl, lsl, 0, 1)
    assert [tuple(p) for p in sl[lsl[1, 0]:lsl[1, 1]].tolist()] == asleep


def test_two_classes_that_lock_each_other_are_seen():
    # 5 1 5 1 in reading order, nothing of theirs in a column or on a diagonal: pairs alone leave
    # all four, though each class is even
    board = Board.parse("51512", adds_left=1)
    assert reference_pairs_floor(board) == fewest_left_by_pairs(board) == 5
    assert search.Kernel(board, tt_bits=4).pairs_floor() == 5


@pytest.mark.parametrize("text, pairs", [
    # bench numbermatch --size 42 --adds 4 --seed 1, boards 85, 54 and 127: the fewest moves
    # went unproved within 30 s without the floor; pairs alone cannot leave fewer than 6, 6, 4
    ("363712528485156187776847752236677271742487", 24),
    ("532838382929668966986879434944161671666745", 24),
    ("418337131564744747713142153976333938283556", 23),
    # board 402 of the same bench: the classes {1,9} {3,7} {4,6} {5} lock 4 numbers where their odd
    # counts leave 2; no group of two or three shows it, and the proof took more than 10 s
    ("599662872198824478429691514283888427163212", 23),
])
def test_fewest_moves_are_proved_where_pairs_alone_lock_numbers(text, pairs):
    solution = search.solve(Board.parse(text, adds_left=4), "fast", budget=20)
    assert solution.status == "solved" and solution.moves_optimal
    assert solution.adds_used == 1 and solution.pairs == pairs
    assert_clears(solution)


def test_a_table_entry_is_one_word_that_keeps_the_most_room_known_for_its_own_position():
    # the fewest-moves pass and its racer thread write the same tables: an entry must be written
    # whole, and a probe must never take another position's entry in the same slot for its own
    K = search.Kernel(Board.parse("11", adds_left=0), tt_bits=4).K
    mt = np.zeros(16, np.int64)
    key, other = 0x5DEECE66D1F3A7B0 + 3, 0x5DEECE66D1F3A7B0 + 3 + (1 << 20)  # one slot, two positions
    K.moves_store(mt, key, 5)
    K.moves_store(mt, key, 3)                      # a smaller room known later keeps the larger
    assert K.moves_probe(mt, key, 5) and not K.moves_probe(mt, key, 6)
    assert not K.moves_probe(mt, other, 0)
    assert np.count_nonzero(mt) == 1
    memo = np.zeros(16, np.int64)
    K.memo_put(memo, key, 7)
    assert K.memo_get(memo, key) == 7 and K.memo_get(memo, other) == -1 and np.count_nonzero(memo) == 1


def test_the_fewest_moves_racer_thread_has_stopped_when_solve_returns():
    # it shares the search's stacks and tables: one left running would write them under the
    # next solve. Board 44 of the bench: the pass is raced before a line at the floor is found
    board = Board.parse("559954347149816672139234435216328341561284", adds_left=4)
    solution = search.solve(board, "fast", budget=0.3)
    assert solution.status == "solved" and solution.adds_used == 1
    assert_clears(solution)
    assert not [t for t in threading.enumerate() if t.name == "moves-racer"]


@settings(max_examples=40, deadline=None)
@given(small_boards())
def test_score_lines_clear_and_score_at_least_the_fast_line(board):
    fast = search.solve(board, "fast", budget=20)
    best = search.solve(board, "score", budget=0.02)
    # 20 ms can run out on a loaded machine before the adds are known, or before the anytime
    # search has passed the fast line's points: then the search gets the time it is meant to have
    if best.status == "gave_up" or (best.status == "solved" and best.score < fast.score):
        best = search.solve(board, "score", budget=2)
    assert best.status == fast.status
    if best.status == "solved":
        assert_clears(best)
        assert best.score >= fast.score


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("seed", range(4))
def test_lines_on_game_sized_boards_replay_and_clear(seed):
    import random

    rng = random.Random(seed)
    board = Board([rng.randint(1, 9) for _ in range(27 + 3 * seed)], 5)
    fast = search.solve(board, "fast", budget=5)
    assert fast.status == "solved" and fast.adds_optimal
    assert_clears(fast)
    best = search.solve(board, "score", budget=0.5)
    assert_clears(best)
    assert best.score > 3 * fast.score          # early adds make many more pairs and points


def test_the_row_window_clears_with_no_add_a_board_that_needs_one_without_it():
    # tests/test_numbermatch_rules.py: a pair chosen while an emptied row waits sees across it
    text = "12....... 55....... ..9....8."
    assert search.solve(Board.parse(text, adds_left=0), "fast").status == "unsolvable"
    solution = search.solve(Board.parse(text, adds_left=0, rules=Rules(row_window=True)), "fast")
    assert solution.status == "solved" and solution.optimal and solution.pairs == 3
    assert_clears(solution)


def test_a_mid_game_board_keeps_its_stage_score_and_adds():
    board = Board.parse("..7956.39 3.5113145 9676 ", adds_left=2, stage=3, score=480)
    solution = search.solve(board, "fast", budget=5)
    assert solution.start.stage == 3 and solution.start.score == 480
    assert solution.start.adds_left == 2
    assert_clears(solution)
    assert solution.replay().score > 480


def test_the_add_that_is_needed_is_pressed():
    solution = search.solve(Board.parse("112", adds_left=1), "fast", budget=5)
    assert solution.status == "solved" and solution.optimal and solution.adds_used == 1
    assert_clears(solution)


def test_a_board_that_no_add_can_save_is_unsolvable():
    solution = search.solve(Board.parse("12", adds_left=0), "fast", budget=5)
    assert (solution.status, solution.optimal, solution.moves) == ("unsolvable", True, [])
    # "1 2" copied twice is "12121212", still no pair: proved, not looped on
    solution = search.solve(Board.parse("12", adds_left=2), "score", budget=5)
    assert solution.status == "unsolvable"


def test_a_row_with_no_live_number_is_already_gone():
    solution = search.solve(Board.parse("......... 19"), "fast", budget=5)
    assert solution.start.cells == [1, 9]
    assert_clears(solution)


def test_the_add_after_live_rule_is_followed():
    rules = Rules(add_after="live")
    board = Board.parse("1.3...... 7.2......", adds_left=3, rules=rules)
    solution = search.solve(board, "fast", budget=5)
    assert solution.start.rules == rules
    assert solution.adds_used == reference_solve(board).adds_used == 2
    assert_clears(solution)


def test_out_of_time_gives_the_best_line_so_far():
    import random

    rng = random.Random(7)
    start = Board([rng.randint(1, 9) for _ in range(42)], 5)
    kernel = search.Kernel(start)
    kernel.chunk = 50
    solution = search.fewest_adds(kernel, start, time.perf_counter())
    assert solution.status == "gave_up" and not solution.optimal
    after = solution.replay()                                # legal, and closer to clearing
    assert 0 < after.live_count() <= start.live_count()


@pytest.mark.parametrize("board, objective, budget, message", [
    (Board.parse("19"), "fast", 0, "budget"),
    (Board.parse("19"), "score", -1, "budget"),
    (Board.parse("19"), "score", float("inf"), "budget"),
    (Board.parse("19"), "slow", 1, "objective"),
    (Board.parse("... ..."), "fast", 1, "no live number"),
    (Board([1] * 5000), "fast", 1, "no game board"),
])
def test_bad_input_is_refused_in_one_line(board, objective, budget, message):
    with pytest.raises(InputError, match=message):
        search.solve(board, objective, budget)


def test_one_board_gives_one_plan_whichever_equally_short_line_the_race_finds_first(monkeypatch):
    # the race's restarts (random orders, a thread on the second core) find one of several
    # equally short lines, which one the clock's choice: played with other random orders here
    import random

    from phonesim import apps
    from phonesim.phone import PRESETS
    from solver.numbermatch.search import racer

    board = apps.create("numbermatch", PRESETS["1080x2400"], seed=7).board
    plans, made = set(), random.Random
    for k in range(6):
        monkeypatch.setattr(racer.random, "Random", lambda *_, k=k: made(k))
        solution = search.solve(board, "fast", 1.0)
        assert solution.optimal and solution.replay().live_count() == 0
        plans.add(tuple(map(str, solution.moves)))
    assert len(plans) == 1
