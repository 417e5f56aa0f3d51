"""Where a Number Match board stands on a screen, from readings alone (no phone, no link):
the placement the scroller acts on, checked in milliseconds."""

from assistant.games.numbermatch.placement import capacity, fits, looks_same, numbered, screen_rows, step
from solver.numbermatch import Board
from vision.profile import Profile
from vision.reading import Reading

ROWS = [tuple(range(1, 10)), tuple([5] * 9), tuple(range(9, 0, -1)), tuple([2] * 9)]


def on_screen(rows, first_row=0, profile=None):
    """A reading of the board rows ``rows`` as a screen shows them (cells from its top)."""
    cells = [c for row in rows for c in row]
    return Reading("numbermatch", "board", board=Board(cells), first_row=first_row, profile=profile,
                   cells={k: (50 + 100 * (k % 9), 300 + 100 * (k // 9)) for k in range(len(cells))}, pitch=100.0)


def test_a_screen_fits_where_its_rows_agree_with_the_known_board():
    assert fits(ROWS, on_screen(ROWS[1:3])) == [1]
    assert fits(ROWS, on_screen(ROWS[3:])) == [3]
    assert fits(ROWS, on_screen([ROWS[0], ROWS[2]])) == []  # rows that never stand together
    repeated = [ROWS[0], ROWS[1]] * 3  # an add repeats the rows: the content fits several places
    assert fits(repeated, on_screen(repeated[:2])) == [0, 2, 4]


def test_the_next_swipe_aims_at_a_place_that_looks_different_from_here():
    repeated = [ROWS[0], ROWS[1]] * 6
    # two rows on screen at row 0, target row 4: rows 2 and 4 look like row 0, so the swipe
    # aims at the nearest place in reach that does not (a dropped swipe is then told apart)
    assert looks_same(repeated, 0, 4, 2) and not looks_same(repeated, 0, 3, 2)
    assert step(repeated, 0, 4, 2, reach=4) in (3, 5)
    assert step(ROWS, 0, 3, 1, reach=2) == 2  # plain rows: as far as a swipe reaches


def test_a_reading_numbered_from_the_board_row_at_the_top_of_the_screen():
    reading = on_screen(ROWS[1:3])
    reading.selected = 4
    reading.doubt(3, "blurred")
    shown = numbered(reading, first_row=1)
    assert min(shown.cells) == 9 and shown.selected == 13 and shown.unsure == [12]
    assert shown.unsure_why == {"12": "blurred"} and shown.more_above
    assert reading.selected == 4 and min(reading.cells) == 0  # (a copy: the reading as it was)
    assert screen_rows(shown) == ROWS[1:3]


def test_the_rows_a_grid_holds_come_from_the_profile():
    profile = Profile("numbermatch", 1080, 2400, geometry={"top": 300, "bottom": 1300, "pitch": 100})
    assert capacity(on_screen(ROWS, profile=profile)) == 10
    assert capacity(on_screen(ROWS)) is None  # no profile: not known
