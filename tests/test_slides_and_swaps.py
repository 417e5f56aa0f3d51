"""The 15-puzzle's slides and Flip 9's swaps on the virtual phone while they animate (a touch
meanwhile taken or ignored, as real apps do), and what each move changes on screen in place
(``in_place``: judged on an early frame, the next touch sent at once where it moves nothing
still moving), and what play keeps of an app that slides by swipe. End to end through adb:
tests/test_pipelined_games.py."""

import pytest

import vision
from assistant.games import Learned
from assistant.games.fifteen import Fifteen
from assistant.games.flip9 import Flip9
from phonesim import apps
from phonesim.phone import PRESETS, REALISM, Faults, Phone
from solver import flip9
from solver.fifteen import Board


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def animated(game, faults=None, **options):
    """A phone (answering at once) whose app plays the real profile's animations on a hand clock."""
    p = PRESETS["1080x2400"]
    app = apps.create(game, p, **options)
    app.clock = Clock()
    phone = Phone(p, app, faults or Faults(), realism=REALISM["real"].scaled(1e-4))
    app.animate(REALISM["real"].durations())
    return phone, app


def centre(rect):
    x, y, w, h = rect
    return x + w // 2, y + h // 2


def inside(point, box):
    x, y = point
    x0, y0, x1, y1 = box
    return x0 <= x < x1 and y0 <= y < y1


# -- the apps -----------------------------------------------------------------------------------

@pytest.mark.parametrize("ignoring", ["", "both", "tile"])
def test_a_fifteen_puzzle_takes_a_tap_on_a_still_tile_while_another_glides(ignoring):
    """italankin/15Puzzle (GameSurface.onTouchEvent, Tile.move) and AChep/15puzzle
    (lib/widgets/game/board.dart) take a tap while a tile glides: the board changes at once and
    each tile animates on its own. Only a tap on the cells the gliding tile goes from or into
    lands on it; a game that ignores taps meanwhile (--ignore-taps-while-animating) takes none."""
    phone, app = animated("fifteen", Faults(ignore_taps_while=ignoring), seed=3, width=4, slides=20)
    cells = app.cell_rects()
    board = app.board
    first = board.legal_moves()[0]
    source, gap = board.tiles.index(first), board.blank
    phone.tap(*centre(cells[source]))                 # glides for 0.2 s
    app.clock.t += 0.05
    assert app.motion() == "tile" and app.moving_cells() == {source, gap}
    # a tile that can slide into the cell the first one is leaving: taken (or ignored)
    second = next(t for t in board.legal_moves() if t != first)
    at = board.tiles.index(second)
    phone.tap(*centre(cells[at]))
    phone.tap(*centre(cells[gap]))                    # the gliding tile: never taken
    if ignoring:
        assert [t.target for t in phone.tap_log] == ["live", "ignored", "ignored"] and app.moves == 1
        return
    assert [t.target for t in phone.tap_log] == ["live", "live", "animating"] and app.moves == 2
    assert app.moving_cells() == {source, gap, at}
    middle = app.render()
    app.clock.t += 1
    assert app.motion() is None and not (middle == app.render()).all()
    assert vision.read(app.render(), "fifteen").board.tiles == app.board.tiles


@pytest.mark.parametrize("ignoring", ["", "both", "swap"])
def test_flip9_cards_swap_along_arcs_and_a_button_meanwhile_is_taken_unless_the_game_ignores_it(ignoring):
    """The cards layout swaps two cards in 0.4 s (CLS-CLS/Flip9's SwapAnimation.java); this app
    takes a button meanwhile, CLS-CLS/Flip9 ignores it (ApplicationMouseHandler.swapCards), as
    --ignore-taps-while-animating does. The line of digits (the inventor's app) is text: at once."""
    phone, app = animated("flip9", Faults(ignore_taps_while=ignoring), seed=4, layout="cards")
    buttons = app.truth()["buttons"]
    still = app.render()
    a, b = app.state.cards[0], app.state.cards[4]
    phone.tap(*centre(buttons[str(a)]))
    phone.tap(*centre(buttons[str(b)]))               # the first swap: 0.4 s of cards on their way
    app.clock.t += 0.1
    assert app.motion() == "swap" and app.moving_cards() == {a, b}
    assert not (app.render() == still).all()
    must = app.state.must
    other = next(c for c in range(1, 10) if c not in (a, b, must))
    phone.tap(*centre(buttons[str(other)]))           # a swap of two other cards, mid-swap
    assert phone.tap_log[-1].target == ("ignored" if ignoring else "button")
    assert app.moves == (1 if ignoring else 2)
    app.clock.t += 1
    assert app.motion() is None
    assert vision.read(app.render(), "flip9").state.cards == app.state.cards
    line = apps.create("flip9", PRESETS["1080x2400"], seed=4, layout="buttons")
    line.animate(REALISM["real"].durations())
    line.press(line.state.cards[0])
    line.press(line.state.cards[1])
    assert line.motion() is None


# -- what a move changes in place -----------------------------------------------------------------

def test_a_slide_changes_the_tile_and_the_gap_and_every_next_slide_waits_for_it():
    """A slide's parts are the tile's cell and the gap's; the next touch waits out the cells next
    to the one it leaves, where every next slide's tile is (with one tile a slide, each goes
    into the cell just left): so no slide is sent before the last one's animation ends."""
    phone, app = animated("fifteen", seed=5, width=4, slides=20)
    game = Fifteen()
    reading = vision.read(app.render(), "fifteen")
    board = game.position(reading)
    for move in board.legal_moves():
        change = game.in_place(board, move, reading)
        tile = reading.cells[board.tiles.index(move)]
        assert [inside(tile, change.parts[0]), inside(reading.cells[board.blank], change.parts[1])] == [True, True]
        assert change.shows == "moving" and change.reading.board.tiles == game.after(board, move).tiles
        after = game.after(board, move)
        for nxt in after.legal_moves():
            point = game.tap_points(nxt, change.reading)[0]
            assert any(inside(point, box) for box in change.reach + change.parts)
        still = [c for c in range(16) if c not in (board.blank, board.tiles.index(move))
                 and not any(abs(c - board.tiles.index(move)) == d for d in (1, 4))]
        assert not any(inside(reading.cells[c], box) for c in still for box in change.reach + change.parts)
    last = Board.goal(4)
    last.push(15)  # one slide from home
    # the slide that solves it changes in place too (its solved screen comes after the glide:
    # the loop judges it early only when no board follows)
    assert game.ends(game.after(last, 15)) and game.in_place(last, 15, reading).shows == "moving"


def test_a_swap_changes_its_two_cards_and_only_a_swap_of_a_card_on_its_way_waits():
    """A swap's parts are its two cards; the next touch waits out their buttons, and every
    button when the card that must move next is one of them: a swap of two other cards goes at
    once."""
    phone, app = animated("flip9", seed=4, layout="cards")
    game = Flip9()
    for a, b in ((app.state.cards[0], app.state.cards[4]),):
        app.press(a)
        app.press(b)
    app.clock.t += 1
    reading = vision.read(app.render(), "flip9")
    state = game.position(reading)
    assert state.must is not None
    for x in range(1, 10):
        if x == state.must:
            continue
        move = (state.must, x)
        after = game.after(state, move)
        change = game.in_place(state, move, reading)
        if after.is_won():
            assert change is None
            continue
        cards = [reading.cells[state.cards.index(c)] for c in move]
        assert all(inside(card, part) for card, part in zip(cards, change.parts))
        waiting = {c for c in range(1, 10) if any(inside(reading.buttons[str(c)], box) for box in change.reach)}
        assert waiting == (set(range(1, 10)) if after.must in move else set(move)), (move, after.must)
    assert flip9.forced_card(9, 4) == 4  # (a swap with 9 leaves the other card to move next: all wait)


# -- what a game keeps of its app -----------------------------------------------------------------

def test_an_app_that_slides_by_swipe_is_kept_as_the_profiles_touch_not_in_its_points():
    """What play learns of a 15-puzzle app that takes no tap is the profile's touch ("swipe"),
    stored and loaded as its own field; an older profile's points entry is read as it and moved."""
    from vision import schema
    from vision.profile import Profile

    game = Fifteen()
    assert game.recall({}, None) is None and game.touch() == "tap"
    assert game.recall({}, "swipe") == Learned(points={}, touch="swipe") and game.touch() == "swipe"
    older = Fifteen()
    assert older.recall({"slides_by_swipe": 1}) == Learned(points={}, touch="swipe") and older.touch() == "swipe"
    profile = Profile("fifteen", 1080, 2400, touch="swipe")
    assert Profile.from_json(profile.to_json()).touch == "swipe"
    assert "touch" not in Profile("fifteen", 1080, 2400).to_json()
    assert schema.problem(profile.to_json()) is None
    assert "touch" in schema.problem({**profile.to_json(), "touch": "pinch"})
