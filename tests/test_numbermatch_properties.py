"""Property tests of the Number Match rules on random boards (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.numbermatch import Add, Board, Pair, Rules, Wait, matches

COLS = 9
cells_strategy = st.lists(st.integers(0, 9), min_size=1, max_size=60)


def boards(min_live=0, window=False):
    return st.builds(lambda cells, adds: Board(cells, adds, rules=Rules(row_window=window)), cells_strategy,
                     st.integers(0, 5)).filter(lambda b: b.live_count() >= min_live)


def sees_by_definition(cells, i, j):
    """The rule written from the definition, independently of Board: cells i < j see each
    other when every cell strictly between them on some line is crossed out."""
    def clear(indices):
        return all(cells[k] == 0 for k in indices)

    if clear(range(i + 1, j)):                                # reading order (and rows)
        return True
    (ri, ci), (rj, cj) = divmod(i, COLS), divmod(j, COLS)
    dr, dc = rj - ri, cj - ci
    if ri == rj:
        return clear(range(i + 1, j))
    if dc == 0:
        return clear(range(i + COLS, j, COLS))
    if abs(dc) == dr:
        step = COLS + (1 if dc > 0 else -1)
        return clear(range(i + step, j, step))
    return False


@given(cells_strategy)
def test_format_parse_round_trip(cells):
    b = Board(cells)
    assert Board.parse(b.format()).cells == cells
    assert Board.parse(b.format()).format() == b.format()


def empty_rows(cells):
    return [r for r in range(-(-len(cells) // COLS)) if not any(cells[r * COLS:(r + 1) * COLS])]


@given(st.one_of(boards(), boards(window=True)))
def test_listed_pairs_are_exactly_the_pairs_of_the_definition(b):
    listed = {(m.i, m.j) for m in b.legal_moves() if isinstance(m, Pair)}
    defined = {(i, j) for i in range(len(b.cells)) for j in range(i + 1, len(b.cells))
               if matches(b.cells[i], b.cells[j]) and sees_by_definition(b.cells, i, j)}
    assert listed == defined
    waiting = b.rules.row_window and bool(empty_rows(b.cells))   # a wholly crossed-out row waits to go
    assert (Add() in b.legal_moves()) == (b.adds_left > 0 and b.live_count() > 0 and not waiting)
    assert (Wait() in b.legal_moves()) == waiting


@settings(max_examples=60)
@given(st.one_of(boards(min_live=1), boards(min_live=1, window=True)))
def test_push_then_pop_restores_the_board(b):
    before = (list(b.cells), b.adds_left, b.score)
    for move in b.legal_moves():
        b.push(move)
        assert b.pop() == move
        assert (b.cells, b.adds_left, b.score) == before


@settings(max_examples=60)
@given(boards(min_live=1))
def test_after_any_move_no_row_is_wholly_crossed_out(b):
    starts_clean = all(any(b.cells[r * COLS:(r + 1) * COLS]) for r in range(b.rows))
    for move in b.legal_moves():
        b.push(move)
        if starts_clean:
            assert all(any(b.cells[r * COLS:(r + 1) * COLS]) for r in range(b.rows))
        b.pop()


@settings(max_examples=60)
@given(boards(min_live=1, window=True))
def test_in_the_row_window_a_pair_moves_no_cell_and_a_wait_removes_the_empty_rows(b):
    for move in b.legal_moves():
        before = list(b.cells)
        b.push(move)
        if isinstance(move, Pair):
            crossed = [0 if k in (move.i, move.j) else v for k, v in enumerate(before)]
            # the board as it stands, the emptied rows still there; gone with the last number
            assert b.cells == (crossed if any(crossed) else [])
        elif isinstance(move, Wait):
            gone = empty_rows(before)
            assert gone and b.cells == [v for k, v in enumerate(before) if k // COLS not in gone]
            assert not empty_rows(b.cells)
        b.pop()
