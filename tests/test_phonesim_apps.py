"""The virtual phone's game apps play by the rules, draw what their truth says, and match the fixtures."""

import json
import os
import random
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import centre, tapsolve
from phonesim.apps import create
from phonesim.apps.numbermatch import NumberMatchApp, play_pairs, start_cells
from phonesim.phone import PRESETS, Phone
from solver.errors import InputError
from solver.flip9 import State
from solver.numbermatch import Add, Board, Pair

SMALL = PRESETS["720x1600"]
ROOT = Path(__file__).resolve().parent.parent


def numbermatch(text=None, adds=5, **options):
    app = create("numbermatch", SMALL, seed=7, adds=adds, **options)
    if text is not None:
        app.board = Board.parse(text, adds_left=adds, rules=app.rules)
    return app


def tap_cell(app, index):
    app.tap_on_cell(index)


def dark_pixels(image, rect, inset=0.15):
    """How many clearly dark pixels lie inside the middle of rect (digits, not grid lines)."""
    x, y, w, h = rect
    dx, dy = int(w * inset), int(h * inset)
    return int((image[y + dy:y + h - dy, x + dx:x + w - dx].max(axis=2) < 100).sum())


# -- Number Match --------------------------------------------------------------------------

def test_a_legal_pair_is_crossed_out_and_scored_as_the_rules_say():
    app = numbermatch("467956239 385113145 967616278")
    expected = app.board.copy()
    expected.push(Pair(0, 1))
    tap_cell(app, 0)
    assert app.truth()["selected"] == 0
    tap_cell(app, 1)
    truth = app.truth()
    assert truth["board"]["cells"] == expected.cells
    assert truth["board"]["score"] == expected.score == 1
    assert truth["selected"] is None
    image = app.render()
    assert dark_pixels(image, truth["cells"]["0"]) == 0  # faded, not black
    assert dark_pixels(image, truth["cells"]["2"]) > 0


def test_a_non_matching_tap_moves_the_selection_and_a_second_tap_clears_it():
    app = numbermatch("467956239 385113145 967616278")
    tap_cell(app, 0)
    tap_cell(app, 2)  # 4 and 7 do not pair
    assert app.truth()["selected"] == 2
    assert app.board.live_count() == 27
    tap_cell(app, 2)
    assert app.truth()["selected"] is None


def test_a_matching_value_that_is_not_in_sight_only_moves_the_selection():
    app = numbermatch("123456789 111111111")
    tap_cell(app, 0)
    tap_cell(app, 8)  # 1 and 9 sum to ten but numbers lie between them
    assert app.selected == 8 and app.board.live_count() == 18


def test_a_crossed_out_cell_ignores_taps():
    app = numbermatch("1.9456782")
    tap_cell(app, 1)
    assert app.selected is None


def test_the_selection_is_drawn():
    app = numbermatch("467956239 385113145 967616278")
    before = app.render()
    tap_cell(app, 4)
    after = app.render()
    x, y, w, h = app.truth()["cells"]["4"]
    changed = np.any(before != after, axis=2)
    assert changed[y:y + h, x:x + w].sum() > 0.3 * w * h
    changed[y:y + h, x:x + w] = False
    assert not changed.any()  # nothing else moved


def test_plus_adds_as_the_rules_say_and_the_badge_counts_down():
    app = numbermatch("467956239 385113145 96761627")
    tap_cell(app, 0)
    tap_cell(app, 1)
    expected = app.board.copy()
    expected.push(Add())
    before = app.render()
    app.tap(*centre(app.truth()["add_button"]))
    truth = app.truth()
    assert truth["board"]["cells"] == expected.cells
    assert truth["board"]["adds_left"] == 4
    x, y, w, h = truth["add_button"]
    assert np.any(before[y - h:y + h, x:x + 2 * w] != app.render()[y - h:y + h, x:x + 2 * w])  # the badge


def test_the_live_add_rule_appends_after_the_last_live_number():
    cells = "123456789 ..3...... ........."
    real, variant = numbermatch(cells), numbermatch(cells, add_rule="live")
    for app in (real, variant):
        app.press_add()
    live = [1, 2, 3, 4, 5, 6, 7, 8, 9, 3]
    assert real.board.cells[27:] == live
    assert variant.board.cells[:12] == Board.parse("123456789 ..3").cells
    assert variant.board.cells[12:] == live


def test_an_emptied_row_disappears_and_the_rows_below_move_up():
    app = numbermatch("19....... 3.7")
    ghost_below = app.ghost[9:]
    tap_cell(app, 0)
    tap_cell(app, 1)
    assert app.board.cells == [3, 0, 7] and app.board.score == 1 + 10
    assert app.ghost == ghost_below  # the faded digit moved up with its row
    truth, image = app.truth(), app.render()
    assert set(truth["cells"]) == {"0", "1", "2"}
    assert dark_pixels(image, truth["cells"]["0"]) > 0 and dark_pixels(image, truth["cells"]["1"]) == 0


# -- the row-removal window (seed 004's blog, quoted in issue 40: "you can still choose pairs,
# which resets the animation timer"): phonesim/apps/numbermatch.py's --row-window -------------

class HandClock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def windowed(text, seconds=0.5, adds=5, **durations):
    app = numbermatch(text, adds=adds, row_window=seconds)
    app.clock = HandClock()
    app.animate(durations)
    return app


def test_with_the_row_window_an_emptied_row_stays_until_its_seconds_run_out():
    app = windowed("19....... 3.7", fade=0.2, collapse=0.3)
    tap_cell(app, 0)
    tap_cell(app, 1)
    app.clock.t += 0.2 + 0.49                          # the fade, and all but the end of the window
    truth = app.truth()
    assert truth["board"]["cells"] == [0] * 9 + [3, 0, 7] and truth["board"]["score"] == 1 + 10
    assert app.motion() is None                        # the row waits: nothing moves
    app.clock.t += 0.02
    assert app.truth()["board"]["cells"] == [3, 0, 7]  # gone, as the rules remove it
    assert app.motion() == "collapse"                  # its collapse plays from the window's end
    app.clock.t += 0.3
    assert app.motion() is None and set(app.truth()["cells"]) == {"0", "1", "2"}


def test_a_pair_chosen_in_the_row_window_is_played_with_the_row_there_and_restarts_it():
    # 2 over 8 across the emptied row, as the board stands: far apart (a gap), where once the row
    # went they would touch
    app = windowed("234567822 19....... 834567822", fade=0.1)
    tap_cell(app, 9)
    tap_cell(app, 10)
    app.clock.t += 0.1 + 0.4
    assert app.landed(*centre(app.truth()["cells"]["18"])) == "live"  # below the waiting row, where it stands
    tap_cell(app, 0)
    tap_cell(app, 18)
    expected = Board.parse("234567822 19....... 834567822", rules=app.rules)
    expected.push(Pair(9, 10))
    expected.push(Pair(0, 18))
    assert app.truth()["board"]["cells"] == expected.cells and app.board.score == expected.score
    assert app.board.score == 1 + 10 + 4               # the pair across the row scored a gap
    app.clock.t += 0.1 + 0.45                          # past the first window: restarted by the pair
    assert app.board.rows == 3
    app.clock.t += 0.1
    assert app.truth()["board"]["cells"] == [0, 3, 4, 5, 6, 7, 8, 2, 2, 0, 3, 4, 5, 6, 7, 8, 2, 2]


def test_rows_emptied_in_one_window_go_together_and_plus_lets_them_go_first():
    app = windowed("19....... 234567822 55.......", seconds=0.5)
    tap_cell(app, 0)
    tap_cell(app, 1)
    app.clock.t += 0.3
    tap_cell(app, 18)
    tap_cell(app, 19)
    app.clock.t += 0.3                                 # the first row's seconds ran out, restarted
    assert app.board.rows_waiting() == [0, 2]
    app.tap_rect(app.truth()["add_button"])            # "+": the rows go, then the numbers copy
    assert app.board.cells == [2, 3, 4, 5, 6, 7, 8, 2, 2] * 2 and app.board.adds_left == 4


def test_without_the_row_window_the_row_goes_with_its_pair_and_bad_seconds_are_refused():
    app = windowed("19....... 3.7", seconds=0)
    tap_cell(app, 0)
    tap_cell(app, 1)
    assert app.board.cells == [3, 0, 7]
    with pytest.raises(InputError, match="row window must be 0"):
        create("numbermatch", SMALL, row_window=-1)


@pytest.mark.phone
def test_the_demo_clears_a_stage_with_the_row_window_on_and_no_wrong_tap(tmp_path):
    """tapsolve does not plan for the window: an emptied row lingering on screen is read as a
    moment on the way to the board it waits for (a row of crossed-out numbers is caught moving),
    never as the board (the old reader's reading of it ended this game on an illegal move)."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    out = tapsolve("demo", "--no-window", "--row-window", "0.5", "--realism", "real", "--size", "42", "--seed",
                   "309", "--json", "--no-record", env=env, timeout=400)
    assert out.returncode == 0, out.stderr[-2000:]
    figures = json.loads(out.stdout)
    assert (figures["cleared_stages"], figures["wrong_taps"]) == (1, 0)
    assert "Traceback" not in out.stderr


def test_clearing_the_board_shows_stage_complete_then_continue_starts_the_next_stage():
    app = numbermatch("55", adds=4)
    app.board.adds_left = 1
    tap_cell(app, 0)
    tap_cell(app, 1)
    truth = app.truth()
    assert truth["screen"] == "stage_complete" and truth["cells"] == {}
    assert truth["board"]["score"] == 1 + 10 + 150
    app.tap(*centre(truth["buttons"]["continue"]))
    truth = app.truth()
    assert truth["screen"] == "board"
    assert truth["board"]["stage"] == 2 and truth["board"]["adds_left"] == 4
    assert truth["board"]["score"] == 161
    assert truth["board"]["cells"] == start_cells(7, 2, 27)


def ad_over_stage_two(seconds=0.0, **options):
    """A phone whose Number Match just went on to stage 2 with ``ads``: (phone, its clock)."""
    clock = [0.0]
    phone = Phone(SMALL, numbermatch("55", ads=True, ad_seconds=seconds, **options), clock=lambda: clock[0])
    tap_cell(phone.app, 0)
    tap_cell(phone.app, 1)
    phone.tap(*centre(phone.app.truth()["buttons"]["continue"]))
    return phone, clock


def test_with_ads_an_interstitial_activity_comes_between_stages_and_closes():
    phone, _ = ad_over_stage_two()
    front = phone.truth()["front"]
    assert front["kind"] == "ad" and set(front["buttons"]) == {"close"}
    assert front["package"] == phone.app.PACKAGE and front["activity"].startswith("com.fyber.")
    assert phone.app.truth()["screen"] == "board" and phone.app.board.stage == 2  # under the ad
    phone.tap(10, SMALL.height // 2)  # the ad itself does nothing
    assert phone.front().kind == "ad"
    phone.tap(*centre(front["buttons"]["close"]))
    assert phone.front() is phone.app and "front" not in phone.truth()


def test_the_hint_button_shows_a_legal_pair_until_the_next_tap():
    app = numbermatch("467956239 385113145 967616278")
    before = app.render()
    app.tap(*centre(app.truth()["hint_button"]))
    i, j = app.hinted
    assert app.board.is_pair(i, j)
    changed = np.any(before != app.render(), axis=2)
    for index in (i, j):
        x, y, w, h = app.truth()["cells"][str(index)]
        assert changed[y:y + h, x:x + w].sum() > 0.3 * w * h
    tap_cell(app, 5)
    assert app.hinted is None


def test_the_back_key_closes_the_ad_only_once_its_countdown_is_over():
    phone, clock = ad_over_stage_two(seconds=5)
    clock[0] = 4.9
    phone.keyevent("KEYCODE_BACK")
    assert phone.front().kind == "ad" and phone.truth()["front"]["seconds_left"] == 1
    clock[0] = 5.0
    phone.keyevent("KEYCODE_BACK")
    assert phone.front() is phone.app and phone.app.board.stage == 2


def test_no_pair_and_no_add_left_is_game_over_and_new_game_starts_again():
    app = numbermatch("19 2", adds=0)
    tap_cell(app, 0)
    tap_cell(app, 1)
    truth = app.truth()
    assert truth["screen"] == "game_over" and truth["add_button"] is None
    app.tap(*centre(truth["buttons"]["new_game"]))
    assert app.truth()["screen"] == "board" and app.board.stage == 1 and app.board.score == 0
    assert app.board.cells == start_cells(7, 1, 27)


def test_vertical_swipes_scroll_a_tall_board_and_stop_at_its_ends():
    app = numbermatch(" ".join(["123456789"] * 30))
    fit = app.layout.rows_fit
    truth = app.truth()
    assert truth["first_row"] == 0 and truth["rows_visible"] == fit
    assert not truth["more_above"] and truth["more_below"]
    c = app.layout.cell
    app.swipe(300, 1000, 300, 1000 - 3 * c, 300)  # finger up: later rows
    truth = app.truth()
    assert truth["first_row"] == 3 and truth["more_above"]
    assert min(map(int, truth["cells"])) == 27
    tap_cell(app, 27)
    assert app.selected == 27
    app.swipe(300, 400, 300, 400 + 50 * c, 300)
    assert app.truth()["first_row"] == 0
    app.swipe(300, 1200, 300, 1200 - 50 * c, 300)
    truth = app.truth()
    assert truth["first_row"] == 30 - fit and not truth["more_below"]
    app.swipe(100, 1000, 600, 1000 - c // 2, 300)  # sideways: no scroll
    assert app.truth()["first_row"] == 30 - fit


def test_free_scrolling_cuts_rows_and_truth_keeps_only_whole_cells():
    app = numbermatch(" ".join(["123456789", "987654321"] * 15))
    app.snap_rows = False
    L = app.layout
    app.swipe(300, 1000, 300, 1000 - 2 * L.cell - L.cell // 3, 300)
    assert app.offset == 2 * L.cell + L.cell // 3
    truth = app.truth()
    assert truth["first_row"] == 3 and truth["more_above"] and truth["more_below"]
    for x, y, w, h in truth["cells"].values():
        assert L.grid_top <= y and y + h <= L.fade_start
    assert len(truth["cells"]) == 9 * truth["rows_visible"]
    # a finger on the cut row just under the top border still hits row 2's cell
    app.tap(L.grid_x + L.cell // 2, L.grid_top + L.cell // 3)
    assert app.selected == 18
    image = app.render()
    x, y, w, h = truth["cells"]["27"]
    assert dark_pixels(image, [x, y, w, h]) > 0
    app.swipe(300, 1000, 300, 1000 - 100 * L.cell, 300)  # the last row stops above the fade
    assert app.row_top(app.board.rows) <= L.fade_start and not app.truth()["more_below"]


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_live_cell_rect_holds_its_digit(name, theme):
    app = create("numbermatch", PRESETS[name], seed=3, theme=theme, size=35)
    play_pairs(app, 3, random.Random(0))
    tap_cell(app, next(i for i, v in enumerate(app.board.cells) if v))
    image = app.render().astype(int)
    background = np.array(app.theme.rgb("background"))
    text = np.array(app.theme.rgb("text"))
    truth = app.truth()
    assert truth["cells"]
    for index, (x, y, w, h) in truth["cells"].items():
        middle = image[y + h // 5:y + h - h // 5, x + w // 5:x + w - w // 5]
        near_text = (np.abs(middle - text).sum(axis=2) < 90).sum()
        if app.board.cells[int(index)]:
            assert near_text > 0.02 * w * h, index
        else:
            assert near_text == 0, index
            assert (np.abs(middle - background).sum(axis=2) > 30).sum() > 0, index  # a faded digit
    # below the board the grid is empty
    x, y, w, h = app.layout.cell_rect(app.layout.rows_fit - 1, 8)
    assert (np.abs(image[y + 5:y + h - 5, x + 5:x + w - 5] - background).sum(axis=2) < 30).all()


def test_bad_options_are_clear_errors():
    with pytest.raises(InputError, match="game must be one of"):
        create("sudoku", SMALL)
    with pytest.raises(InputError, match="theme"):
        create("numbermatch", SMALL, theme="pink")
    with pytest.raises(InputError, match="add rule"):
        create("numbermatch", SMALL, add_rule="end")
    with pytest.raises(InputError, match="size"):
        create("numbermatch", SMALL, size=0)
    with pytest.raises(InputError, match="layout"):
        create("flip9", SMALL, layout="grid")


def test_start_boards_come_from_the_seed():
    a, b = numbermatch(), numbermatch()
    assert a.board.cells == b.board.cells and len(a.board.cells) == 27
    c = create("numbermatch", SMALL, seed=8, size=42)
    assert c.board.cells != a.board.cells and len(c.board.cells) == 42


# -- Flip 9 --------------------------------------------------------------------------------

def flip9(layout="buttons", cards=None):
    app = create("flip9", SMALL, seed=5, layout=layout)
    app.clock = lambda: 100.0
    app.new_deal()
    if cards:
        app.state = State.parse(cards)
    return app


def press(app, name):
    app.tap(*centre(app.truth()["buttons"][str(name)]))


@pytest.mark.parametrize("layout", ["buttons", "cards"])
def test_flip9_taps_swap_by_the_rules(layout):
    app = flip9(layout, "315927486")
    press(app, 3)
    assert app.truth()["comment"] == "card 1: 3" and app.moves == 0
    press(app, 3)
    assert app.truth()["comment"] == "3 not valid."
    press(app, 1)
    expected = State.parse("315927486")
    expected.push((3, 1))
    truth = app.truth()
    assert truth["state"] == expected.to_json() and truth["moves"] == 1
    assert truth["comment"] == f"card 1: {expected.must}"
    press(app, expected.must)
    assert app.truth()["comment"] == f"{expected.must} not valid."
    press(app, 9)
    expected.push((expected.must, 9))
    assert app.truth()["state"] == expected.to_json() and app.moves == 2


@pytest.mark.parametrize("layout", ["buttons", "cards"])
def test_flip9_winner_stops_the_clock_and_new_deals_again(layout):
    app = flip9(layout, "213456789")
    press(app, 2)
    app.clock = lambda: 163.0
    press(app, 1)
    assert app.truth()["comment"] == "Winner!" and app.state.is_won()
    app.clock = lambda: 500.0
    assert app.elapsed() == 63
    press(app, 5)
    assert app.truth()["comment"] == "Winner!"
    press(app, "new")
    truth = app.truth()
    assert truth["moves"] == 0 and truth["comment"] == "" and not app.state.is_won()
    assert truth["state"]["must"] is None


@pytest.mark.parametrize("layout", ["buttons", "cards"])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_flip9_card_rects_hold_the_cards(layout, theme):
    app = create("flip9", PRESETS["1080x2400"], seed=2, layout=layout, theme=theme)
    image = app.render().astype(int)
    text = np.array(app.theme.rgb("text"))
    rects = app.truth()["cards"]
    assert sorted(rects, key=int) == [str(k) for k in range(9)]
    xs = [rects[str(k)][0] for k in range(9)]
    assert xs == sorted(xs)  # left to right in card order
    for x, y, w, h in rects.values():
        assert (np.abs(image[y:y + h, x:x + w] - text).sum(axis=2) < 90).sum() > 0.02 * w * h


# -- fixtures ------------------------------------------------------------------------------

def test_committed_fixtures_are_what_the_generator_draws_now():
    index = json.loads((ROOT / "fixtures" / "index.json").read_text())
    presets, states = {e["preset"] for e in index}, {e["state"] for e in index}
    assert presets == {name for name, p in PRESETS.items() if not p.emulator and not p.quirks}
    assert {"fresh", "midgame", "after_adds", "tall_scrolled", "stage_complete", "buttons_fresh",
            "cards_midgame"} <= states
    preset = PRESETS["720x1600"]
    for state, app in NumberMatchApp.fixture_states(preset, "dark", 2):
        if state == "midgame":
            break
    truth = json.loads((ROOT / "fixtures/720x1600/dark/numbermatch_midgame.json").read_text())
    assert truth == json.loads(json.dumps(app.truth()))
    png = cv2.imread(str(ROOT / "fixtures/720x1600/dark/numbermatch_midgame.png"))
    assert np.array_equal(png[..., ::-1], app.render())


# -- robustness ----------------------------------------------------------------------------

EVENTS = st.lists(st.one_of(
    st.tuples(st.just("tap"), st.integers(-50, 800), st.integers(-50, 1700)),
    st.tuples(st.just("cell"), st.integers(0, 400), st.just(0)),
    st.tuples(st.just("swipe"), st.integers(-900, 900), st.just(0)),
    st.tuples(st.just("add"), st.just(0), st.just(0)),
    st.tuples(st.just("key"), st.just(0), st.just(0)),
), max_size=40)


@settings(max_examples=25, deadline=None)
@given(events=EVENTS, seed=st.integers(0, 5), free=st.booleans())
def test_any_pokes_keep_the_app_consistent(events, seed, free):
    app = create("numbermatch", SMALL, seed=seed, size=18, adds=2, ads=True)
    app.snap_rows = not free
    for kind, a, b in events:
        before = app.board.copy()
        if kind == "tap":
            app.tap(a, b)
        elif kind == "cell" and app.screen == "board":
            index = a % len(app.board.cells)
            if str(index) in app.truth()["cells"]:
                tap_cell(app, index)
        elif kind == "swipe":
            app.swipe(300, 800, 300, 800 - a, 200)
        elif kind == "add" and app.screen == "board":
            app.tap(*centre(app.truth()["add_button"]))
        elif kind == "key":
            app.keyevent("KEYCODE_BACK")
        truth = json.loads(json.dumps(app.truth()))
        board = app.board
        assert truth["screen"] in ("board", "stage_complete", "game_over", "ad")
        if truth["board"]["stage"] == before.stage and truth["board"]["cells"] != before.cells:
            # whatever changed on this stage was one legal move of the rules
            assert any(_after(before, m) == board.cells for m in before.legal_moves())
        assert len(app.ghost) == len(board.cells)
        if truth["selected"] is not None:
            assert board.cells[truth["selected"]] and str(truth["selected"]) in truth["cells"]
        for x, y, w, h in truth["cells"].values():
            assert 0 <= x and x + w <= SMALL.width and app.layout.grid_top <= y and y + h <= app.layout.fade_start
    assert app.render().shape == (SMALL.height, SMALL.width, 3)


def _after(board, move):
    b = board.copy()
    b.push(move)
    return b.cells
