"""Number Match rules on hand-worked boards: seeing, pairing, rows removed, adds and points."""

import pytest

from solver.numbermatch import POINTS, Add, Board, BoardError, Pair, Rules, Wait, matches, parse_points


def board(text, adds=5, window=False):
    return Board.parse(text, adds_left=adds, rules=Rules(row_window=window))


# -- seeing along lines, at distance 1 and across crossed-out cells ---------------------------

@pytest.mark.parametrize("text, i, j, kind", [
    ("192345678", 0, 1, "touching"),                       # row, neighbours
    ("1..923456", 0, 3, "gap"),                            # row, across crossed-out cells
    ("134567822 934567822", 0, 9, "touching"),             # column, neighbours
    ("134567822 .34567822 934567822", 0, 18, "gap"),       # column, across a crossed-out cell
    ("134567822 394567822", 0, 10, "touching"),            # diagonal down-right
    ("134567822 3.4567822 349567822", 0, 20, "gap"),       # down-right across a crossed-out cell
    ("234567821 234567892", 8, 16, "touching"),            # diagonal down-left
    ("234567821 2345678.2 234567922", 8, 24, "gap"),       # down-left across a crossed-out cell
    ("234567821 934567822", 8, 9, "row_break"),            # reading order across a row break
    ("2345671.. ..9345678", 6, 11, "gap"),                 # reading order over crossed-out cells
])
def test_pairs_that_see_each_other(text, i, j, kind):
    b = board(text)
    assert b.is_pair(i, j)
    assert Pair(i, j) in b.legal_moves()
    assert b.pair_kind(i, j) == kind


@pytest.mark.parametrize("text, i, j", [
    ("1239.....", 0, 3),                                   # row: live 2 and 3 between
    ("134567822 534567822 934567822", 0, 18),              # column: live 5 between
    ("134567822 354567822 349567822", 0, 20),              # diagonal: live 5 between
    ("2345671.3 ..9345678", 6, 11),                        # reading order: live 3 between
    ("234567821 234567822 934567822", 8, 18),              # no wrap: down-right off the right edge
    ("134567829 234567822", 0, 8),                         # no wrap: down-left off the left edge
    ("934567822 345678231", 0, 17),                        # no wrap from the last cell to the first
    ("123456782", 0, 1),                                   # 1 and 2 neither equal nor ten
])
def test_pairs_that_do_not_see_or_match(text, i, j):
    b = board(text)
    assert not b.is_pair(i, j)
    assert Pair(i, j) not in b.legal_moves()
    with pytest.raises(BoardError):
        b.push(Pair(i, j))


def test_matches_is_equal_or_ten():
    assert matches(5, 5) and matches(3, 7) and matches(9, 1)
    assert not matches(4, 5) and not matches(0, 0) and not matches(0, 10)


# -- rows removed and the rows below moving up ------------------------------------------------

def test_emptied_row_is_removed_and_rows_below_move_up():
    b = board("234567822 19....... 834567822")
    assert not b.is_pair(0, 18)                            # 2 over 8 blocked by the live 1
    b.push(Pair(9, 10))
    assert b.format() == "234567822 834567822"
    assert b.score == POINTS["touching"] + POINTS["row"]
    assert b.is_pair(0, 9) and b.pair_kind(0, 9) == "touching"   # now neighbours in a column


def test_removed_row_changes_diagonal_neighbours():
    b = board("134567822 55....... 394567822")
    assert not b.is_pair(0, 19)
    b.push(Pair(9, 10))
    assert b.is_pair(0, 10) and b.pair_kind(0, 10) == "touching"


# -- the row-removal window (seed 004: "you can still choose pairs, which resets the animation
# timer"): an emptied row stays until the player waits, and pairs are played with it there ------

def test_in_the_row_window_an_emptied_row_stays_and_keeps_the_old_diagonals():
    b = board("134567822 55....... 394567822", window=True)
    b.push(Pair(9, 10))
    assert b.format() == "134567822 ......... 394567822"          # the row is still on the board
    assert b.score == POINTS["touching"] + POINTS["row"]          # its points with its pair
    assert not b.is_pair(0, 19)                                   # 1 and 9 are not on one line yet
    assert b.rows_waiting() == [1] and Add() not in b.legal_moves() and Wait() in b.legal_moves()
    b.push(Wait())                                                # no pair chosen: the row goes
    assert b.format() == "134567822 394567822" and b.is_pair(0, 10)
    assert b.rows_waiting() == [] and Wait() not in b.legal_moves() and Add() in b.legal_moves()


def test_a_pair_across_a_waiting_row_sees_the_board_as_it_stands():
    b = board("234567822 19....... 834567822", window=True)
    b.push(Pair(9, 10))
    assert b.is_pair(0, 18) and b.pair_kind(0, 18) == "gap"       # over the empty row: far apart
    b.push(Pair(0, 18))
    assert b.format() == ".34567822 ......... .34567822"
    assert b.score == POINTS["touching"] + POINTS["row"] + POINTS["gap"]


def test_rows_emptied_in_one_window_go_together_and_come_back_together():
    b = board("19....... 234567822 55.......", window=True)
    b.push(Pair(0, 1))
    b.push(Pair(18, 19))                                          # a second row joins the first
    assert b.rows_waiting() == [0, 2]
    b.push(Wait())
    assert b.format() == "234567822"
    b.pop()
    assert b.format() == "......... 234567822 ........."


def test_in_the_row_window_the_last_pair_clears_the_board():
    b = board("55....... 1.9", window=True)
    b.push(Pair(0, 1))
    assert not b.is_won() and b.format() == "......... 1.9"
    b.push(Pair(9, 11))                                           # the last numbers: every row goes
    assert b.is_won() and b.cells == []
    assert b.score == POINTS["touching"] + POINTS["gap"] + 2 * POINTS["row"] + POINTS["clear"]


def test_the_row_window_clears_a_board_that_needs_an_add_without_it():
    # 5 5 empties row 2; while it waits, 1 and 9 are on a diagonal through its empty cell, then
    # 2 and 8 see each other across the crossed-out cells: the window clears it with no add
    text, line = "12....... 55....... ..9....8.", [Pair(9, 10), Pair(0, 20), Pair(1, 25)]
    b = board(text, adds=0, window=True)
    for move in line:
        b.push(move)
    assert b.is_won()
    b = board(text, adds=0)
    b.push(Pair(9, 10))
    assert b.legal_moves() == []


def test_partial_last_row_removed_and_add_starts_a_new_row():
    b = board("234567822 19")
    b.push(Pair(9, 10))
    assert b.cells == [2, 3, 4, 5, 6, 7, 8, 2, 2]
    b.push(Add())
    # the copy starts on a fresh row at index 9, not after the vanished partial row
    assert b.format() == "234567822 234567822"
    assert b.adds_left == 4


def test_add_appends_after_trailing_crossed_out_cells():
    b = board("234567822 13..")
    b.push(Add())
    assert b.format() == "234567822 13..23456 782213"


def test_add_copies_only_live_numbers_in_reading_order():
    b = board("2.4.6.8.2 1")
    b.push(Add())
    assert b.cells[10:] == [2, 4, 6, 8, 2, 1]


def test_add_variant_appends_after_the_last_live_number():
    b = Board.parse("234567822 13..", adds_left=2, rules=Rules(add_after="live"))
    b.push(Add())
    assert b.format() == "234567822 132345678 2213"


def test_adds_refused_when_none_are_left():
    b = board("123456782", adds=0)
    assert Add() not in b.legal_moves()
    with pytest.raises(BoardError):
        b.push(Add())


# -- points --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, move, scored", [
    ("192345678 234567822", Pair(0, 1), {"touching": 1}),
    ("234567821 934567822", Pair(8, 9), {"row_break": 1}),
    ("1..923456 234567822", Pair(0, 3), {"gap": 1}),
    ("19....... 234567822", Pair(0, 1), {"touching": 1, "row": 1}),
    ("1........ 9........ 234567822", Pair(0, 9), {"touching": 1, "row": 2}),
    ("19", Pair(0, 1), {"touching": 1, "row": 1, "clear": 1}),
    ("1........ 9", Pair(0, 9), {"touching": 1, "row": 2, "clear": 1}),
])
def test_points_for_each_kind_of_move(text, move, scored):
    b = board(text)
    points = sum(POINTS[k] * n for k, n in scored.items())
    assert b.scored(move) == scored
    assert b.points(move) == points
    b.push(move)
    assert b.score == points


def test_board_cleared_when_no_cell_is_left():
    b = board("55....... 1.9")
    b.push(Pair(0, 1))
    assert not b.is_won()
    b.push(Pair(0, 2))
    assert b.is_won() and b.cells == []


# -- parse, format, JSON ---------------------------------------------------------------------

def test_board_text_ignores_spaces_slashes_and_newlines():
    assert Board.parse("467/956\n239 38.").cells == [4, 6, 7, 9, 5, 6, 2, 3, 9, 3, 8, 0]


@pytest.mark.parametrize("text, words", [
    ("1203", "'0'"), ("12a3", "'a'"), ("", "empty"), ("  / ", "empty")])
def test_bad_board_text_names_the_problem(text, words):
    with pytest.raises(BoardError, match=words):
        Board.parse(text)


def test_board_json_round_trip():
    b = Board.parse("467956239 38.1", adds_left=3)
    b.score, b.stage = 120, 4
    again = Board.from_json(b.to_json())
    assert (again.cells, again.adds_left, again.score, again.stage) == (b.cells, 3, 120, 4)
    assert Board.from_json('{"game": "numbermatch", "cells": [1, 9]}').adds_left == Rules().adds


@pytest.mark.parametrize("text", [
    '{"game": "flip9", "cells": [1]}', '{"cells": []}', '{"cells": [1, 10]}',
    '{"cells": [1], "adds_left": -1}', "{not json"])
def test_bad_board_json(text):
    with pytest.raises(BoardError):
        Board.from_json(text)


def test_a_learned_points_table_scores_the_board():
    rules = Rules().scoring({"gap": 3, "row": 20})
    assert rules.point_table == {**POINTS, "gap": 3, "row": 20}
    b = Board.parse("1..923456 234567822", rules=rules)
    assert b.points(Pair(0, 3)) == 3
    b = Board.parse("19....... 234567822", rules=rules)
    assert b.points(Pair(0, 1)) == POINTS["touching"] + 20


@pytest.mark.parametrize("text, message", [
    ("gap=x", "kind=number"), ("gapp=3", "no kind of points 'gapp'"), ("gap", "kind=number"),
    ("gap=-1", "kind=number"),
])
def test_a_bad_points_table_is_refused_in_one_line(text, message):
    with pytest.raises(BoardError, match=message):
        parse_points(text)


def test_a_points_table_parses():
    assert parse_points("gap=3, row=20") == {"gap": 3, "row": 20}
