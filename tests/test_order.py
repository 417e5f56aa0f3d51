"""The plan ordered for the phone (assistant.games.numbermatch.order): pairs nearest the screen
first, the line still legal and still clearing the board, on random boards."""

from hypothesis import given, settings, strategies as st

from assistant.games.numbermatch.order import soonest_first
from solver.numbermatch import search
from solver.numbermatch import Add, Board, Pair, Rules, Wait


def test_a_later_pair_on_screen_is_played_first_with_its_cells_followed():
    # as planned, the first pair removes row 0 and the 5s of row 2 are then in row 1 (9, 10);
    # with only row 2 on screen they are played first, at their indices now (18, 19)
    board = Board.parse("11.......\n" "2.......3\n" "55.......", adds_left=0)
    line = [Pair(0, 1), Pair(9, 10)]
    assert soonest_first(board, line, shown=range(18, 27)) == [Pair(18, 19), Pair(0, 1)]
    assert soonest_first(board, line, shown=range(0, 18)) == line  # the next pair is on screen
    assert soonest_first(board, [Add(), *line], shown=range(18, 27)) == [Add(), *line]


def away(pair, shown) -> int:
    """Rows between the pair's farthest cell and the rows on screen."""
    lo, hi = min(shown) // 9, max(shown) // 9
    return max(max(lo - k // 9, k // 9 - hi, 0) for k in (pair.i, pair.j))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=18, max_size=36), st.integers(0, 3), st.integers(0, 10**6),
       st.booleans(), st.integers(0, 2))
def test_ordering_for_the_screen_keeps_the_line_legal_and_clears_the_board(numbers, adds, seed, window, moving):
    import random

    rng = random.Random(seed)
    board = Board(numbers, adds, rules=Rules(row_window=window))
    solution = search.solve(board, objective="fast", budget=0.3)
    if solution.status != "solved":
        return
    moves = list(solution.moves)
    position = board.copy()
    while moves:
        # a screen of 2 rows somewhere on the board, and a part of it still moving (from a row down)
        rows = -(-len(position.cells) // 9)
        top = rng.randrange(max(1, rows - 1))
        shown = range(top * 9, min(len(position.cells), (top + 2) * 9))
        below = rng.randrange(rows + 1)

        def ready(i, j):
            return not moving or max(i, j) < below * 9

        ordered = soonest_first(position, moves, shown, ready if moving else None)
        move = ordered[0]
        if ordered != moves:  # only ever a pair nearer the screen, or as near and not waiting
            assert isinstance(move, Pair) and isinstance(moves[0], Pair)
            assert (away(move, shown) < away(moves[0], shown)
                    or away(move, shown) == 0 == away(moves[0], shown) and ready(move.i, move.j)
                    and not ready(moves[0].i, moves[0].j))
        assert position.is_legal(move)
        position.push(move)
        moves = ordered[1:]
    assert position.is_won()


def test_a_later_pair_whose_taps_go_at_once_is_played_before_one_that_would_wait():
    # the 3 and 7 emptied row 2, and the 5s of row 3 moved up into it: while they move, the 4
    # and 6 of row 1, above them, go first (the 5s then move up again, to row 1)
    board = Board.parse("4.......6\n" "55.......", adds_left=0)
    line = [Pair(9, 10), Pair(0, 8)]

    def above_row_2(i, j):
        return max(i, j) < 9

    assert soonest_first(board, line, shown=range(18), ready=above_row_2) == [Pair(0, 8), Pair(0, 1)]
    assert soonest_first(board, line, shown=range(18)) == line  # nothing moving
    assert soonest_first(board, line, shown=range(18), ready=lambda i, j: True) == line


def test_the_game_plans_for_the_row_window_only_when_told_and_a_wait_is_no_touch():
    # tests/test_numbermatch_rules.py: this board clears with no add only in the row window
    from assistant.games.numbermatch import NumberMatch

    game = NumberMatch()
    assert not game.row_window and not game.rules.row_window
    board = Board.parse("12....... 55....... ..9....8.", adds_left=0)
    board.rules = game.rules
    assert game.plan(board).status == "unsolvable"
    game.row_window = True
    board.rules = game.rules
    plan = game.plan(board)
    assert plan.status == "solved" and Wait() in plan.moves
    assert game.tap_points(Wait(), reading=None) == [] and game.animation(board, Wait()) == "rows go"
    assert soonest_first(board, plan.moves, shown=range(18, 27))[-2:] == plan.moves[-2:]


def test_a_pair_below_rows_waiting_is_tapped_only_while_the_window_is_open():
    """The seed's row window (seed 004's blog, quoted in issue 40; phonesim --row-window): once
    it runs out the rows waiting go and the cells below them move up, so a pair below one is
    tapped only while enough of the window is left for its taps to land; else the board is read
    again (BoardChanged). A pair above the rows waiting moves in neither case."""
    import time
    from types import SimpleNamespace

    import pytest

    from assistant.games.numbermatch import NumberMatch
    from assistant.games.numbermatch.window import RowWindow
    from solver.errors import BoardChanged

    game = NumberMatch()
    game.row_window = True
    game.session = SimpleNamespace(link=SimpleNamespace(spent={"tap": 0.04}, taps=2))
    board = Board.parse("11.......\n.........\n5.......5", adds_left=0, rules=game.rules)
    reading = SimpleNamespace(board=board, selected=None, cells={k: (k, k) for k in range(27)})
    game.window = RowWindow(known=True, seconds=0.5, opened_at=time.monotonic() + 60)  # (just opened)
    assert game.tap_points(Pair(18, 26), reading) == [(18, 18), (26, 26)]
    game.window.opened_at = float("-inf")  # (long since run out)
    with pytest.raises(BoardChanged):
        game.tap_points(Pair(18, 26), reading)
    assert game.tap_points(Pair(0, 1), reading) == [(0, 0), (1, 1)]  # above it: nothing moves
