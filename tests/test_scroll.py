"""Boards taller than the screen, through the real adb server: the whole board read by scrolling,
rows brought on screen, a pair split across screens, and autoplay clearing a tall board."""

import numpy as np
import pytest

from assistant import autoplay
from assistant.phone.device import connect
from assistant.games.numbermatch import NumberMatch
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from assistant.games.numbermatch.scroll import BoardView, ScrollError
from helpers import centre, truth
from phonesim import apps
from phonesim.phone import PRESETS, REALISM, Faults, Phone
from solver.numbermatch import Add, Board, Pair

COLUMNS = 9


def quiet(*_):
    pass


def phone_with(harness, preset="720x1600", board=None, snap_rows=True, faults=None, realism=None, **options):
    p = PRESETS[preset]
    app = apps.create("numbermatch", p, **options)
    app.snap_rows = snap_rows
    if board is not None:
        app.board = board
    vp = harness.add(Phone(p, app, faults or Faults(), realism=realism or REALISM["fast"]))
    return vp, Session(Link(connect(vp.serial, client=harness.client), say=quiet))


def swipe_rows(vp, rows: int, pitch: int, x: int = 360, y: int = 900):
    """A person's own scrolling: ``rows`` rows up (positive) or down."""
    vp.device.shell(f"input swipe {x} {y} {x} {y - rows * pitch} 500")


def sparse_tall_board(rows: int = 15) -> Board:
    """A board of ``rows`` rows, mostly crossed out: a 1 at the top left and a 9 at the bottom
    left that see each other down the first column, and one pair in each row between."""
    cells = [0] * (rows * COLUMNS)
    cells[0], cells[(rows - 1) * COLUMNS] = 1, 9
    for r in range(1, rows - 1):
        d = 2 + r % 4  # 2..5, each row's pair sums to ten
        a, b = 2 + r % 3, 5 + r % 4
        cells[r * COLUMNS + a], cells[r * COLUMNS + b] = d, 10 - d
    return Board(cells, adds_left=5)


def check_screen(reading, t):
    """The reading's absolute cell indices are exactly the cells the phone shows."""
    assert reading.first_row == t["first_row"]
    assert set(reading.cells) == {int(k) for k in t["cells"]}
    for k, (x, y) in reading.cells.items():
        rx, ry, rw, rh = t["cells"][str(k)]
        assert rx <= x < rx + rw and ry <= y < ry + rh


def test_survey_reads_a_tall_board_whole_from_the_top(harness):
    vp, session = phone_with(harness, seed=3, size=150)
    start = truth(vp)
    assert start["more_below"]  # taller than the screen
    view = BoardView()
    board, reading = view.survey(session)
    t = truth(vp)
    assert board.cells == t["board"]["cells"]
    assert (board.adds_left, board.stage, board.score) == (5, 1, 0)
    assert reading.board.cells == board.cells
    check_screen(reading, t)
    assert t["first_row"] > 0 and not reading.more_below  # read down to the last row


def test_survey_after_adds_with_repeated_rows(harness):
    # adds copy the live numbers: the rows repeat, so only the swipe distance tells them apart
    vp, session = phone_with(harness, seed=5, size=27)
    for _ in range(3):
        session.link.tap(*centre(truth(vp)["add_button"]))
    t = truth(vp)
    cells = t["board"]["cells"]
    rows = [tuple(cells[k:k + COLUMNS]) for k in range(0, len(cells), COLUMNS)]
    assert len(rows) > 20 and len(set(rows)) < len(rows)
    board, reading = BoardView().survey(session)
    t = truth(vp)
    assert board.cells == t["board"]["cells"] and board.adds_left == 2
    check_screen(reading, t)


@pytest.mark.parametrize("snap_rows", [True, False])
def test_survey_from_a_board_a_person_left_scrolled_to_the_middle(harness, snap_rows):
    vp, session = phone_with(harness, seed=4, size=200, snap_rows=snap_rows)
    pitch = truth(vp)["cells"]["0"][3]
    swipe_rows(vp, 5, pitch)
    if not snap_rows:
        vp.device.shell(f"input swipe 360 900 360 {900 - pitch // 3} 300")  # part of a row too
    middle = truth(vp)
    assert middle["more_above"] and middle["more_below"]
    view = BoardView()
    board, reading = view.survey(session)
    t = truth(vp)
    assert board.cells == t["board"]["cells"]
    check_screen(reading, t)


def test_show_brings_far_rows_on_screen_scrolling_no_more_than_needed(harness):
    vp, session = phone_with(harness, seed=6, size=200)
    view = BoardView()
    board, _ = view.survey(session)
    last = (len(board.cells) - 1) // COLUMNS
    reading = view.show(session, [0])
    t = truth(vp)
    assert t["first_row"] == 0
    check_screen(reading, t)
    swipes = view.swipes
    reading = view.show(session, [3, 7])  # already on screen: no swipe
    assert view.swipes == swipes and truth(vp)["first_row"] == 0
    reading = view.show(session, [last])
    t = truth(vp)
    check_screen(reading, t)
    assert last * COLUMNS in reading.cells and not t["more_below"]
    reading = view.show(session, [10, 12])
    t = truth(vp)
    check_screen(reading, t)
    assert {10 * COLUMNS, 12 * COLUMNS + 8} <= set(reading.cells)
    assert reading.board.cells == board.cells  # the whole board rides along


def tap(game, session, move, reading):
    """Bring ``move`` on screen and tap it, as autoplay does."""
    shown = game.show(move, reading, select=True)
    session.link.tap_all(game.tap_points(move, reading if shown is None else shown[1]))


def test_a_pair_split_across_screens_is_tapped_first_scrolled_then_second(harness):
    board = sparse_tall_board(16)
    vp, session = phone_with(harness, board=board.copy())
    far = Pair(0, 15 * COLUMNS)
    assert board.is_pair(far.i, far.j)
    game = NumberMatch()
    game.attach(session)
    _, reading = game.view.survey(session)
    assert far.j not in reading.cells or far.i not in reading.cells
    tap(game, session, far, reading)
    expected = board.copy()
    expected.push(far)
    assert truth(vp)["board"]["cells"] == expected.cells


def test_taps_drop_an_off_screen_selection_first(harness):
    board = sparse_tall_board(16)
    vp, session = phone_with(harness, board=board.copy())
    far = 15 * COLUMNS
    pitch = truth(vp)["cells"]["0"][3]
    swipe_rows(vp, 5, pitch)
    session.link.tap(*centre(truth(vp)["cells"][str(far)]))  # a person selected the 9 at the bottom
    assert truth(vp)["selected"] == far
    swipe_rows(vp, -5, pitch)
    game = NumberMatch()
    game.attach(session)
    _, reading = game.view.survey(session)
    assert reading.selected == far
    pair = Pair(COLUMNS + 3, COLUMNS + 6)  # the pair of the second row
    assert board.is_pair(pair.i, pair.j)
    tap(game, session, pair, reading)
    expected = board.copy()
    expected.push(pair)
    assert truth(vp)["board"]["cells"] == expected.cells


def test_autoplay_clears_a_board_taller_than_the_screen(harness):
    vp, session = phone_with(harness, board=sparse_tall_board(17))
    assert truth(vp)["more_below"]
    loop = Loop(session, game="numbermatch", objective="fast", budget=1.0, say=quiet)
    autoplay.play(loop, stages=1, say=quiet)
    assert truth(vp)["screen"] == "stage_complete"
    assert loop.tally.stages == 1 and loop.game.view.swipes > 0


def test_autoplay_clears_a_tall_board_when_the_phone_drops_taps_and_swipes(harness):
    vp, session = phone_with(harness, board=sparse_tall_board(16), faults=Faults(drop_taps=0.2, seed=2))
    loop = Loop(session, game="numbermatch", objective="fast", budget=1.0, say=quiet)
    autoplay.play(loop, stages=1, say=quiet)
    assert truth(vp)["screen"] == "stage_complete"
    assert loop.tally.repeats > 0


def test_the_guide_scrolls_the_next_move_on_screen_and_then_keeps_still(harness):
    from assistant import guide

    board = sparse_tall_board(17)
    vp, session = phone_with(harness, board=board)
    loop = Loop(session, game="numbermatch", objective="fast", budget=1.0, say=quiet)
    loop.start()
    assert loop.position.cells == board.cells  # planned from the whole board
    loop.show(loop.next_move)
    move = loop.next_move
    t = truth(vp)
    assert {str(move.i), str(move.j)} & set(t["cells"])
    for k in (move.i, move.j):
        if str(k) in t["cells"]:
            assert k in loop.reading.cells
    swipes = loop.game.view.swipes
    assert guide.follow(loop) is None  # nothing changed on the phone: no swipe, same plan
    loop.show(loop.next_move)
    assert loop.game.view.swipes == swipes and truth(vp)["first_row"] == t["first_row"]


class Restless:
    """A session whose grid never looks the same twice (an animation nobody stops)."""

    def __init__(self, session):
        self.session, self.link, self.noise = session, session.link, 0

    def look(self, game, expect=None):
        return self.session.look(game, expect=expect)

    def reread(self, image, game):
        return self.session.reread(image, game)

    def capture(self):
        image = self.session.capture().copy()
        self.noise += 1
        image[600:900, 100:600] ^= np.uint8(self.noise % 2 * 40)
        return image



def test_a_board_that_never_settles_stops_with_a_clear_error_after_bounded_swipes(harness):
    vp, session = phone_with(harness, seed=3, size=150)
    view = BoardView()
    with pytest.raises(ScrollError, match="did not settle after 40 swipes"):
        view.survey(Restless(session))
    assert view.swipes <= 40


def test_pairs_on_a_board_of_repeated_rows_are_scrolled_to_and_tapped(harness):
    # 27 numbers added to three times, no move yet: 216 numbers, 24 rows that are the same 3 rows
    # over and over, so a swipe of 3, 6, 9... rows leaves the very same picture on screen (the
    # score plan's start, where the view took a board that moved for a swipe the phone dropped)
    vp, session = phone_with(harness, seed=5, size=27)
    for _ in range(3):
        session.link.tap(*centre(truth(vp)["add_button"]))
    game = NumberMatch()
    game.attach(session, alone=True)
    board, reading = game.view.survey(session)
    assert len(board.cells) == 216 and truth(vp)["first_row"] == 11
    rows = [tuple(board.cells[k:k + COLUMNS]) for k in range(0, 216, COLUMNS)]
    assert rows[5:18] == rows[11:24]  # row 5 at the top looks just like the bottom of the board
    up = next(p for p in board.pairs() if p.i // COLUMNS == p.j // COLUMNS == 5)
    tap(game, session, up, reading)
    expected = board.copy()
    expected.push(up)
    assert truth(vp)["board"]["cells"] == expected.cells
    # and back down from the top to a pair near the bottom, 9 rows further: the same picture again
    board, _ = game.view.survey(session)
    reading = game.view.show(session, [0])
    assert truth(vp)["first_row"] == 0
    down = next(p for p in board.pairs() if p.i // COLUMNS == p.j // COLUMNS == 21)
    tap(game, session, down, reading)
    expected = board.copy()
    expected.push(down)
    assert truth(vp)["board"]["cells"] == expected.cells
    game.view.survey(session)  # the board changed: read again, as the loop does after every move
    check_screen(game.view.show(session, [21]), truth(vp))


def test_survey_places_the_end_of_a_board_of_repeated_rows_after_each_add(harness):
    # the score plan's opening: five adds in a row, 27 -> 864 numbers, 3 rows over and over;
    # the last swipe of each survey stops short at the board's end by a multiple of 3 rows, which
    # the rows alone cannot tell: the empty row under the fade and the expected board can
    vp, session = phone_with(harness, seed=5, size=27)
    view = BoardView(alone=True)
    for adds in range(1, 6):
        t = truth(vp)
        session.link.tap(*centre(t["add_button"]))
        expect = Board(t["board"]["cells"], adds_left=t["board"]["adds_left"])
        expect.push(Add())
        board, reading = view.survey(session, expect=expect)
        t = truth(vp)
        assert board.cells == t["board"]["cells"] and board.adds_left == 5 - adds
        check_screen(reading, t)
        if adds == 1:
            swipes = view.swipes
    assert len(board.cells) == 864
    # after the first survey, each add's screen agrees with the expected board where it stands:
    # the rows off screen are the prediction's, and nothing is swiped to read them
    assert view.swipes == swipes


def test_a_screen_from_before_the_move_is_not_the_predicted_board_farther_on(harness):
    # rows repeated by adds: with a pair of rows 3-5 crossed out in the prediction, the screen as
    # it was before the move (a glance taken before the animation showed) fits the prediction 6
    # rows further on, where the board never went; taken there, the view swiped a board at its top
    # for a minute and gave up ("the board does not scroll")
    vp, session = phone_with(harness, seed=5, size=27)
    for _ in range(3):
        session.link.tap(*centre(truth(vp)["add_button"]))
    view = BoardView(alone=True)
    board, _ = view.survey(session)
    view.show(session, [0])
    assert truth(vp)["first_row"] == view.first_row == 0
    pair = next(p for p in board.pairs() if 3 <= p.i // COLUMNS and p.j // COLUMNS <= 5)
    expected = board.copy()
    expected.push(pair)
    image, reading = session.look("numbermatch")
    assert view.confirm(image, reading, expected) is None  # not the predicted board: look again
    confirmed, shown = view.confirm(image, reading, expected, board)  # the board before the move, where it stood
    assert confirmed.cells == board.cells and view.first_row == 0
    session.link.tap_all([shown.cells[pair.i], shown.cells[pair.j]])
    image, reading = session.look("numbermatch")
    confirmed, shown = view.confirm(image, reading, expected, board)
    assert confirmed.cells == expected.cells == truth(vp)["board"]["cells"]
    check_screen(shown, truth(vp))


def test_ctrl_c_while_the_board_will_not_scroll_ends_with_the_summary(harness):
    # after the first move the phone stops answering swipes: show() would swipe on for a
    # minute and end with "the board does not scroll"; Ctrl-C in that wait ends the run at once,
    # with the summary of what was played
    import os
    import signal

    vp, session = phone_with(harness, seed=3, size=300)
    loop = Loop(session, game="numbermatch", objective="fast", budget=1.0, say=quiet)
    send, ignored = session.link.swipe, []

    def swipe(*args):
        if loop.tally.moves == 0:
            return send(*args)
        ignored.append(args)  # the phone ignores it
        if len(ignored) == 3:
            os.kill(os.getpid(), signal.SIGINT)

    session.link.swipe = swipe
    said = []
    code = autoplay.play(loop, stages=1, say=said.append)
    assert code == 130 and len(ignored) == 3
    assert said[-1].startswith(f"stopped: {loop.tally.moves} move") and loop.tally.moves >= 1
    assert truth(vp)["screen"] == "board"


def test_most_points_on_a_board_of_96_rows_plays_over_the_scroll_point_on_the_real_profile(harness):
    # the score line's opening: five adds, 864 numbers, 3 rows over and over; its first pairs
    # lie 48 rows down, the screen's first, then ever farther apart, scrolled to on the real-phone
    # profile (timed swipes, animations, a banner ad), its costs shrunk to keep the test short
    vp, session = phone_with(harness, seed=0, realism=REALISM["real"].scaled(0.2))
    said = []
    session.say = said.append
    loop = Loop(session, game="numbermatch", objective="score", budget=1.0, say=said.append)
    assert autoplay.play(loop, stages=1, say=quiet, max_moves=36) == 0
    t = truth(vp)
    assert loop.tally.moves == 36 and vp.phone.wrong_taps == 0
    assert loop.position.cells == t["board"]["cells"] and len(t["board"]["cells"]) > 800
    assert loop.game.view.first_row == t["first_row"]
    assert loop.game.view.swipes > 3  # over the scroll point, move after move
    assert any(line.startswith("scrolling to row") for line in said)  # not silence while it scrolls
