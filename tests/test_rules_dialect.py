"""Every game's position speaks one rules dialect (solver.rules.Position, after python-chess):
legal_moves, push, pop -> move, peek, is_won, copy, and a move_stack of moves."""

import random

import pytest

from solver import fifteen, flip9, numbermatch
from solver.rules import Position

STARTS = {
    "numbermatch": lambda: numbermatch.Board.parse("467956239 385113145 967616278", adds_left=2),
    "flip9": lambda: flip9.State.parse("315927486"),
    "fifteen": lambda: fifteen.Board.parse("5 1 2 3, 4 6 7 8, 9 10 11 12, 13 14 15 _"),
}
WON = {
    "numbermatch": lambda: numbermatch.Board([], 0),
    "flip9": lambda: flip9.State.parse("123456789"),
    "fifteen": lambda: fifteen.Board.goal(4),
}


@pytest.mark.parametrize("name", sorted(STARTS))
@pytest.mark.parametrize("seed", range(5))
def test_a_line_pushed_is_the_move_stack_and_pops_back_move_by_move(name, seed):
    rng = random.Random(seed)
    position = STARTS[name]()
    assert isinstance(position, Position) and position.move_stack == []
    seen, line = [position.to_json()], []
    for _ in range(12):
        moves = position.legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        position.push(move)
        line.append(move)
        seen.append(position.to_json())
        assert position.move_stack == line and position.peek() == move
    for k in range(len(line), 0, -1):
        # a copy with its stack steps back on its own; the position it was copied from stays
        before = position.copy(stack=True)
        assert before.pop() == line[k - 1] and before.to_json() == seen[k - 1]
        assert position.to_json() == seen[k] and position.move_stack == line[:k]
        assert position.pop() == line[k - 1] and position.to_json() == seen[k - 1]
    assert position.move_stack == [] and position.copy().move_stack == []


@pytest.mark.parametrize("name", sorted(STARTS))
def test_taking_back_or_peeking_with_no_move_played_is_the_games_own_error(name):
    position = STARTS[name]()
    with pytest.raises(position.Error, match="no move"):
        position.pop()
    with pytest.raises(position.Error, match="no move"):
        position.peek()


@pytest.mark.parametrize("name", sorted(STARTS))
def test_an_illegal_move_is_refused_and_leaves_the_position(name):
    position = STARTS[name]()
    illegal = {"numbermatch": numbermatch.Pair(0, 26), "flip9": (4, 4), "fifteen": 1}[name]
    assert illegal not in position.legal_moves()
    before = position.to_json()
    with pytest.raises(position.Error):
        position.push(illegal)
    assert position.to_json() == before and position.move_stack == []


@pytest.mark.parametrize("name", sorted(STARTS))
def test_is_won_is_each_games_own_end(name):
    assert WON[name]().is_won() and not STARTS[name]().is_won()
