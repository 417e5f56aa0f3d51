"""phonesim's real-phone profile (costs, flings, animations, the tap log) and the loop that judges
only a settled screen; the end-to-end tests play through the real adb server."""

import bisect
import json
import time
from dataclasses import replace

import numpy as np
import pytest

from assistant import autoplay
import assistant.animation as animation_module
from assistant.animation import part_change
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import TAPS_WHILE_ANIMATING, Session
from assistant.phone.device import connect
from assistant.settle import ScreenNotSettling
from calibration import store
from helpers import tapsolve
from phonesim import apps
from phonesim.phone import PNG_S, PRESETS, REALISM, SHELL_CALL_S, TAP_S, Faults, Phone
from solver.numbermatch import Board

# animations long enough that the first capture after a move is sure to fall inside one
LONG = {"select": 0.6, "fade": 0.6, "collapse": 0.6, "add": 0.6, "slide": 0.6}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def app_with_clock(board=None, durations=None, preset="1080x2400"):
    app = apps.create("numbermatch", PRESETS[preset], seed=1)
    app.clock = Clock()
    app.animate(durations if durations is not None else REALISM["real"].durations(), banner=True)
    if board is not None:
        app.board = board
    return app


def centre(app, index):
    x, y, w, h = app.layout.cell_rect(index // 9 - app.first_row, index % 9)
    return x + w // 2, y + h // 2


def grid(app, frame):
    L = app.layout
    return frame[L.grid_top:L.fade_start, L.grid_x:L.grid_x + 9 * L.cell]


# -- the profile, without a phone ------------------------------------------------------------

def test_real_costs_fall_in_the_published_ranges_and_repeat_under_a_seed():
    def costs(seed):
        p = PRESETS["1080x2400"]
        phone = Phone(p, apps.create("numbermatch", p), Faults(seed=seed), realism=REALISM["real"].scaled(1e-4),
                      android="11")
        for _ in range(30):
            phone.tap(1, 1)
        pngs = [phone.capture_cost(2_000_000, as_png=True) for _ in range(200)]
        raws = [phone.capture_cost(1080 * 2400 * 4 + 16, as_png=False) for _ in range(200)]
        return [c / 1e-4 for c in phone.charged["tap"]], pngs, raws

    taps, pngs, raws = costs(3)
    # a tap on a running shell: the published one-shot range less the call's own start
    assert all(TAP_S[0] - SHELL_CALL_S[0] <= t <= TAP_S[1] - SHELL_CALL_S[1] for t in taps)
    # most frames cost 0.3-0.55 s; an occasional one stalls 1-2 s more
    assert sum(PNG_S[0] <= c <= PNG_S[1] for c in pngs) >= 180
    assert any(c >= PNG_S[0] + 1.0 for c in pngs)
    assert all(c <= PNG_S[1] + 2.0 for c in pngs)
    assert min(raws) > 0.5  # ~10 MB over the cable
    assert costs(3) == (taps, pngs, raws)
    assert costs(4)[0] != taps


def test_a_png_capture_costs_more_on_a_larger_screen_and_no_less_on_a_smaller_one():
    no_stalls = replace(REALISM["real"], slow_frame=0.0)  # (a stalled frame's delay is the phone's own)

    def mean_png(preset):
        p = PRESETS[preset]
        phone = Phone(p, apps.create("numbermatch", p), Faults(seed=3), realism=no_stalls)
        return sum(phone.capture_cost(2_000_000, as_png=True) for _ in range(200)) / 200

    base = mean_png("1080x2400")
    assert mean_png("720x1600") == base  # the same seed draws the same costs
    assert mean_png("1440x3200") == pytest.approx(base * 1440 * 3200 / (1080 * 2400))


def test_a_fast_swipe_flings_past_the_finger_and_a_slow_one_stops_with_it():
    p = PRESETS["1080x2400"]
    rows = Board.parse("123456789" * 40, adds_left=0)

    def travel(ms, realism="real"):
        app = apps.create("numbermatch", p)
        app.board = rows.copy()
        phone = Phone(p, app, realism=REALISM[realism].scaled(1e-4))
        phone.swipe(540, 1500, 540, 1500 - 3 * app.layout.cell, ms)
        return app.offset // app.layout.cell

    assert travel(336) == 3            # 1 px/ms: where the finger stopped
    assert travel(60) > 3              # 5.6 px/ms: it flings on
    assert travel(60, "fast") == 3     # the fast profile never flings


def test_the_tap_log_names_what_each_tap_landed_on_and_counts_the_wrong_ones():
    p = PRESETS["1080x2400"]
    app = app_with_clock(Board.parse("19....... 345678223 5", adds_left=3))
    phone = Phone(p, app, realism=REALISM["fast"])  # costs nothing, and ...
    app.animate(REALISM["real"].durations(), banner=True)  # ... animates on the test's clock
    L = app.layout
    phone.tap(*centre(app, 2))                        # a crossed-out cell
    phone.tap(*centre(app, 25))                       # the grid past the board's last cell
    phone.tap(*L.hint_center)
    x, y, w, h = L.banner_rect()
    phone.tap(x + w // 2, y + h // 2)                 # the banner ad
    phone.tap(5, L.status_bar + 5)                    # nothing
    phone.tap(*centre(app, 0))                        # 1: selected
    app.clock.t += 0.05
    phone.tap(*centre(app, 0))                        # while its highlight still fills in
    app.clock.t += 1
    phone.tap(*centre(app, 0))                        # selected again
    app.clock.t += 1
    phone.tap(*centre(app, 1))                        # 1 + 9: the pair fades, its row collapses
    app.clock.t += 0.1
    phone.tap(*centre(app, 3))                        # a live cell of a row sliding up
    app.clock.t += 2
    phone.tap(*L.add_center)
    assert [t.target for t in phone.tap_log] == ["crossed", "empty", "button", "ad", "nothing", "live",
                                                  "animating", "live", "live", "animating", "add"]
    assert phone.wrong_taps == 6


@pytest.mark.parametrize("kind", ["select", "fade", "collapse", "add", "slide"])
def test_a_frame_mid_animation_is_neither_the_board_before_nor_after(kind):
    """Each animation renders its progress at the capture's time, and ends on the still board."""
    board = Board.parse("19....... 345678223 5", adds_left=2) if kind != "slide" else Board.parse("55", adds_left=2)
    app = app_with_clock(board)
    before = grid(app, app.render())
    if kind == "add":
        app.tap(*app.layout.add_center)
    else:
        app.tap(*centre(app, 0))
        if kind != "select":
            app.clock.t += 1
            app.tap(*centre(app, 1))
    d = app.durations
    at = {"select": 0.5 * d["select"], "fade": 0.5 * d["fade"], "collapse": d["fade"] + 0.5 * d["collapse"],
          "add": 0.5 * d["add"], "slide": d["fade"] + d["collapse"] + 0.5 * d["slide"]}[kind]
    app.clock.t += at
    assert app.motion() == kind
    middle = app.render()
    app.clock.t += 5
    assert app.motion() is None
    after = app.render()
    still = app_with_clock(app.board.copy() if kind != "slide" else None, durations={})
    if kind == "slide":
        assert not np.array_equal(middle, after)
        still.board, still.screen = app.board, "stage_complete"
    else:
        assert not np.array_equal(grid(app, middle), before)
        assert not np.array_equal(grid(app, middle), grid(app, after))
        still.board, still.selected = app.board, app.selected
        still.ghost = app.ghost
    assert np.array_equal(after, still.render())  # the animation ends on the still picture


def fifteen_gliding(look="tiles", preset="1080x2400", seed=3):
    """A 15-puzzle on a clock moved by hand, with the real profile's glide, and a tile that can slide."""
    app = apps.create("fifteen", PRESETS[preset], seed=seed, look=look, slides=20)
    app.clock = Clock()
    app.animate(REALISM["real"].durations())
    tile = app.board.legal_moves()[seed % 2]
    x, y, w, h = app.cell_rects()[app.board.tiles.index(tile)]
    return app, (x + w // 2, y + h // 2)


def test_a_fifteen_puzzle_tap_is_judged_by_what_it_lands_on():
    p = PRESETS["1080x2400"]
    app, movable = fifteen_gliding()
    phone = Phone(p, app, realism=REALISM["real"].scaled(1e-4))  # commands cost next to nothing ...
    app.animate(REALISM["real"].durations())  # ... but the tile glides for its real time
    cells = app.cell_rects()
    stuck = next(c for c, t in enumerate(app.board.tiles) if t and t not in app.board.legal_moves())

    def at(cell):
        x, y, w, h = cells[cell]
        return x + w // 2, y + h // 2

    phone.tap(*at(stuck))                             # a tile that cannot slide
    phone.tap(*at(app.board.blank))                   # the gap
    phone.tap(*movable)                               # slides: glides for 0.2 s
    app.clock.t += 0.1
    phone.tap(*at(app.board.blank))                   # while the tile glides
    app.clock.t += 1
    phone.tap(5, p.status_bar + 5)                    # nothing
    assert [t.target for t in phone.tap_log] == ["nothing", "empty", "live", "animating", "nothing"]
    assert phone.wrong_taps == 4 and app.moves == 1


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("look", ["tiles", "grid"])
def test_a_fifteen_puzzle_tile_glides_and_no_frame_of_it_reads_as_another_board(look):
    """Mid-glide the tile is between its cells; a read of any frame of the glide is the board
    before, the board after, or no board: never a third board read for sure."""
    import vision

    app, movable = fifteen_gliding(look)
    before, still = list(app.board.tiles), app.render()
    app.tap(*movable)
    after = list(app.board.tiles)
    frames = []
    for step in range(11):
        assert app.motion() == "tile"
        frames.append(app.render())
        app.clock.t += app.glide / 11
    app.clock.t += 1
    assert app.motion() is None
    assert not any(np.array_equal(f, still) for f in frames[1:])
    assert vision.read(app.render(), "fifteen").board.tiles == after
    for frame in frames:
        try:
            reading = vision.read(frame, "fifteen")
        except vision.ReadError:
            continue
        assert not reading.sure or reading.board.tiles in (before, after)


def test_a_screen_that_never_settles_stops_with_a_clear_message():
    class Flicker:
        screen = None  # (no Screen of a phone: captures only)
        serial = "flicker"

        def __init__(self):
            self.n = 0

        def capture(self):
            self.n += 1
            return np.full((200, 100, 3), self.n % 2 * 200, np.uint8)

    link = Link(Flicker(), say=lambda _: None)
    link.settler.timeout = 0.3
    with pytest.raises(ScreenNotSettling, match="kept changing"):
        link.capture()


def test_a_stalled_link_is_waited_out_not_taken_for_a_screen_that_keeps_changing():
    """A USB stall freezes the adb server (SIGSTOP, then SIGCONT, as the last round's sweep did
    on scrcpy): one capture takes 10 s and the next shows the screen the move left. Two frames
    that far apart say the screen changed once, not that it moved all along: the settle goes on."""
    from assistant.settle import Settler

    now = [0.0]
    frames = iter([(np.full((200, 100, 3), 10, np.uint8), 0.0), (np.full((200, 100, 3), 90, np.uint8), 10.0),
                   (np.full((200, 100, 3), 90, np.uint8), 10.4)])

    def grab():
        image, now[0] = next(frames)
        return image, now[0]

    settler = Settler(grab, lambda at: None)
    image, times = settler.settle(touched_at=-0.1)
    assert image[0, 0, 0] == 90 and times == [0.0, 10.0, 10.4]


def test_a_settled_screen_needs_two_equal_captures_and_one_when_nothing_was_sent():
    frames = [np.full((200, 100, 3), v, np.uint8) for v in (10, 90, 90, 90)]

    class Settling:
        screen = None  # (no Screen of a phone: captures only)
        serial = "settling"

        def capture(self):
            return frames.pop(0)

    link = Link(Settling(), say=lambda _: None)
    assert link.capture()[0, 0, 0] == 90 and link.captures == 3 and link.settler.unsettled == 1
    assert link.capture()[0, 0, 0] == 90 and link.captures == 4


def test_a_screen_taken_as_still_on_a_learned_time_alone_is_settled_in_full_when_asked():
    """Two equal frames closer than STILL_SPAN count as still once the touch's kind was learned
    still by then: where the move did other than predicted (a fade's end is still for a moment
    before a row collapses), ``settle_in_full`` has the next capture wait for two equal frames
    STILL_SPAN apart, teaching the kind nothing. Once settled so, there is nothing to redo."""
    faded, collapsed = (np.full((200, 100, 3), v, np.uint8) for v in (40, 160))
    frames = [faded, faded, faded, collapsed, collapsed, collapsed]

    class Collapsing:
        screen = None  # (no Screen of a phone: captures only)
        serial = "collapsing"

        def capture(self):
            return frames.pop(0)

        def taps(self, points):
            pass

    link = Link(Collapsing(), say=lambda _: None)
    link.clock.animation["pair"] = [0.0, 0.01]  # (learned on a phone that animates faster)
    link.tap_all([(10, 10)], kind="pair")
    assert link.capture() is faded and link.settler.by_time  # on the learned time alone
    assert link.settle_in_full()
    # the frame before the change, two equal ones too close, and one more STILL_SPAN on
    assert link.capture() is collapsed and frames == [] and not link.settler.by_time
    assert link.clock.animation["pair"] == [0.0, 0.01] and not link.settle_in_full()


def test_a_settle_on_video_ends_on_the_frame_that_shows_the_screen_drew_nothing_since_its_change():
    """After a touch, two equal frames count as still only STILL_SPAN apart (an animation that
    eases in looks still at first), but a video that saw the screen change after the touch and
    then draw nothing new for a repeat's time (``Channel.settled_since``) settles it on that
    frame: the move's time is learned from the run's first frame, no STILL_SPAN waited."""
    from assistant.settle import STILL_SPAN, Settler

    moving, still = (np.full((200, 100, 3), v, np.uint8) for v in (40, 160))
    frames = [(moving, 10.1), (still, 10.2), (still, 10.3)]  # (the last one the encoder's repeat)
    waited = []
    settler = Settler(lambda: frames.pop(0), waited.append)
    runs = {10.3: 10.2}  # the video's word: the frame at 10.3 shows a picture drawn at 10.2, none since
    image, times = settler.settle(touched_at=10.0, settled_since=runs.get)
    assert image is still and times == [10.1, 10.2, 10.3] and frames == [] and settler.by_time
    assert 10.2 + STILL_SPAN not in waited
    # no such run seen (a screen drawn anew every frame): the video's next frames, till STILL_SPAN
    frames[:] = [(moving, 10.1), (still, 10.2), (still, 10.3), (still, 10.2 + STILL_SPAN)]
    image, times = settler.settle(touched_at=10.0, settled_since={}.get)
    assert image is still and times == [10.1, 10.2, 10.2 + STILL_SPAN] and frames == []
    assert 10.2 + STILL_SPAN not in waited and not settler.by_time
    # no video (screencaps): the next capture waits for STILL_SPAN
    frames[:] = [(moving, 10.1), (still, 10.2), (still, 10.3), (still, 10.2 + STILL_SPAN)]
    image, times = settler.settle(touched_at=10.0)
    assert image is still and times == [10.1, 10.2, 10.2 + STILL_SPAN] and 10.2 + STILL_SPAN in waited
    # nothing sent yet (a game's first look): a repeat settles on itself, as after a touch (before,
    # a second frame was waited for, 0.1 s at the start of every game on video)
    fresh = Settler(lambda: frames.pop(0), waited.append)
    frames[:] = [(still, 10.3), (moving, 10.4)]
    image, times = fresh.settle(settled_since=runs.get)
    assert image is still and times == [10.2, 10.3] and frames == [(moving, 10.4)] and not fresh.by_time


def flip9_with_clock(layout="buttons", clock=None):
    app = apps.create("flip9", PRESETS["1080x2400"], seed=3, layout=layout)
    app.clock = clock or Clock()
    app.started = app.clock()
    return app


@pytest.mark.parametrize("layout", ["buttons", "cards"])
def test_a_clock_on_the_screen_is_not_an_animation_but_a_swap_is(layout):
    """Flip 9 shows the time played, which changes every second: the reading says where it is,
    and the link's stillness test leaves it out, even once the time has grown a digit."""
    from assistant.settle import still
    import vision

    app = flip9_with_clock(layout)
    app.clock.t += 7
    before = app.render()
    reading = vision.read(before, "flip9")
    assert reading.sure and len(reading.ticking) == 1
    app.clock.t += 593  # "0:07" to "10:00"
    ticked = app.render()
    assert not still(before, ticked) and still(before, ticked, reading.ticking)
    app.press(app.state.cards[0])
    app.press(app.state.cards[1])  # the first swap
    assert not still(before, app.render(), reading.ticking)


class Ticking:
    """A clock ``step`` seconds later every time it is read (``step`` 1: every frame shows
    another time)."""

    def __init__(self):
        self.t, self.step = 0.0, 0.0

    def __call__(self):
        self.t += self.step
        return self.t


def test_a_clock_ticking_between_every_two_captures_is_not_waited_for(harness):
    """Through adb, a Flip 9 game whose time changes on every frame once its board was read
    settles at once after each swap: no capture is taken for a moving screen, and no animation
    time is learned from the clock for later moves to wait."""
    p = PRESETS["1080x2400"]
    clock = Ticking()
    phone = Phone(p, flip9_with_clock(clock=clock), Faults(seed=3))
    vp = harness.add(phone)
    said = []
    # (by screencap, each frame asked for when taken: the clock's ticks between two of them)
    link = Link(connect(vp.serial, client=harness.client, channel="shell"), say=said.append)
    loop = Loop(Session(link), game="flip9", budget=1.0, say=said.append, wait_unknown=5)
    loop.start()
    clock.step = 1.0
    assert autoplay.play(loop, say=said.append) == 0
    assert loop.tally.stages == 1 and phone.app.state.is_won() and clock.t >= loop.tally.moves
    assert link.clock.animation["swap"][0] == 0.0 and link.settler.unsettled == 0
    vp.stop()


# -- end to end, through the real adb server -----------------------------------------------------

def start(harness, preset="1080x2400", realism="real", scale=1.0, faults=None, seed=5, channel=None, **options):
    p = PRESETS[preset]
    phone = Phone(p, apps.create("numbermatch", p, seed=seed, **options), faults or Faults(seed=seed),
                  realism=REALISM[realism].scaled(scale))
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client, channel=channel), say=said.append)
    loop = Loop(Session(link, keep=True), game="numbermatch", objective="fast", budget=1.0, say=said.append, wait_unknown=5)
    loop.said = said
    phone.clear_log()
    return vp, phone, loop



def planned(harness, board: str, plan, channel=None, faults=None):
    """A phone on the real profile's way of playing with animations of LONG, showing ``board``
    (stage 1, no adds), and a loop whose game plans ``plan`` (the moves, or a function of the
    position giving them): the board's moves in an order a test chooses."""
    from assistant.games import Plan

    vp, phone, loop = start(harness, realism="fast", size=18, seed=3, channel=channel,
                            faults=faults or Faults(seed=3))
    phone.app.animate(LONG)
    shown = Board.parse(board, adds_left=0)
    shown.rules, shown.stage = phone.app.rules, 1
    phone.app.board = shown
    loop.made("numbermatch")
    loop.game.plan = lambda position: Plan(list(plan(position) if callable(plan) else plan), "solved")
    return vp, phone, loop

@pytest.mark.slow
def test_the_first_read_of_a_phone_with_video_takes_one_screencap_seen_still_on_the_video(harness, tmp_path,
                                                                                       monkeypatch):
    """A phone read for the first time (no stored profile) is read from a lossless screencap,
    settled: on a channel with video, the frames before and after it show the screen still, so
    one screencap does where a settle took two (0.3-0.55 s each on a real phone)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, channel="scrcpy")
    reading = loop.start()
    link = loop.link
    assert reading.screen == "board" and reading.board.cells == phone.app.board.cells
    assert link.captures - link.screen.frames == 1, (link.captures, link.screen.frames)  # one screencap
    vp.stop()


@pytest.mark.slow
def test_a_screen_still_past_the_encoders_repeats_is_read_first_from_one_screencap(harness, tmp_path, monkeypatch):
    """A real encoder sends a still screen's frame again every 100 ms only ten times, then
    nothing until the screen changes (AOSP frameworks/av/media/libstagefright/bqhelper/
    GraphicBufferSource.cpp, repeatLatestBuffer_l: kRepeatLastFrameCount). A phone left still
    that long sends no frame around the first read's screencap: its newest frame, such a
    repeat, shows the screen still, and one screencap does, as on a screen just drawn (before,
    no frame after it meant a settle of two screencaps more: 0.6-1.1 s on a real phone)."""
    from phonesim import scrcpy as sim_scrcpy

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, channel="scrcpy")
    sent = video_gone_quiet(phone)
    pictures = [picture for _, _, picture in sent]
    assert pictures.count(pictures[-1]) == 1 + sim_scrcpy.REPEATS  # (drawn once, then the repeats)
    gaps = np.diff([pts for pts, _, picture in sent if picture == pictures[-1]]) / 1e6
    # (each at phonesim's look nearest 100 ms, never sooner: repeat_due; how much later is the
    # computer's load, no verdict: a CI run once saw one 290 ms on)
    assert all(sim_scrcpy.REPEAT_S - 0.5 / sim_scrcpy.MAX_FPS - 1e-3 <= gap for gap in gaps), gaps
    reading = loop.start()
    link = loop.link
    assert reading.screen == "board" and reading.board.cells == phone.app.board.cells
    assert sim_scrcpy.video_log(phone) == sent  # (nothing sent around the screencap)
    assert link.captures - link.screen.frames == 1, (link.captures, link.screen.frames)  # one screencap
    vp.stop()


def video_gone_quiet(phone) -> list:
    """Waits until phonesim's scrcpy server has sent nothing for 0.4 s (a still screen past
    its encoder's repeats) and gives what it sent (``video_log``)."""
    import time

    from phonesim import scrcpy as sim_scrcpy

    deadline, sent = time.monotonic() + 10, []
    while time.monotonic() < deadline:
        sent = sim_scrcpy.video_log(phone)
        time.sleep(0.4)
        if sent and sim_scrcpy.video_log(phone) == sent:
            return sent
    raise AssertionError("the phone's video never went quiet")


@pytest.mark.slow
def test_a_look_at_a_screen_still_past_the_encoders_repeats_takes_its_last_video_frame(harness):
    """A screen still for longer than the encoder's ten repeats sends nothing (AOSP
    GraphicBufferSource.cpp, kRepeatLastFrameCount): a look then takes the last repeat, which
    stands for the screen, where it waited half a second for a frame and took a screencap
    (0.3-0.55 s more on a real phone; a guide looks every 0.3 s while the player thinks).
    A screen that changed meanwhile sends that change, which is what the next look takes."""
    vp, phone, loop = start(harness, channel="scrcpy")
    loop.start()
    link = loop.link
    for k in range(2):
        video_gone_quiet(phone)
        captures, frames = link.captures, link.screen.frames
        reading = loop.look()
        assert reading.screen == "board" and reading.board.cells == phone.app.board.cells
        assert link.captures - captures == link.screen.frames - frames >= 1  # (video frames: no screencap)
    shown = Board.parse("123456789", adds_left=phone.app.board.adds_left)
    shown.rules, shown.stage, shown.score = phone.app.rules, phone.app.board.stage, phone.app.board.score
    phone.app.board = shown  # (drawn at once: the video sends it, and a look after its latency takes it)
    looks = [loop.look() for _ in range(5)]
    assert any(reading.board.cells == shown.cells for reading in looks if reading.screen == "board")
    assert link.from_video
    vp.stop()


@pytest.mark.slow
def test_a_first_move_on_video_is_read_once_settled_where_the_video_shows_its_animation_ended(harness, tmp_path,
                                                                                          monkeypatch):
    """A fresh profile knows no animation time: the first pair is judged on a settled capture,
    read once (a glance would settle anyway: not a glance and then a settled read), and settled
    where scrcpy's video saw the fade drawn and then nothing for a repeat's 100 ms (its encoder
    sends a still screen's frame again then: SurfaceEncoder.java, REPEAT_FRAME_DELAY_US), not
    STILL_SPAN after: the time is learned from the run's first frame."""
    from assistant.settle import STILL_SPAN

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, channel="scrcpy")
    link, session = loop.link, loop.session
    looks, learned = [], []
    look, learn = session.look, link.clock.learn
    monkeypatch.setattr(session, "look", lambda *a, **k: looks.append(k.get("glance", False)) or look(*a, **k))
    monkeypatch.setattr(link.clock, "learn", lambda times: learned.append(list(times)) or learn(times))
    assert autoplay.play(loop, say=loop.said.append, max_moves=1) == 0
    assert looks == [False, False], looks  # the board's first read, then the move's settled one
    (times,) = learned
    assert times[-1] - times[-2] < STILL_SPAN and link.settler.by_time, times
    assert times[-2] == link.device.channel.video.still_since(times[-1])  # the run's first frame
    fade = dict(REALISM["real"].animations)["fade"]
    assert link.clock.animation["pair"][1] > fade - 0.05  # (no shorter than the fade, but its eased tail)
    assert vp.wrong_taps == 0 and loop.tally.moves == 1
    vp.stop()


def played_over_a_collapse(harness, plan, channel=None, faults=None):
    """``planned`` on a board whose row 3 a pair empties, with pairs above it and below, its
    points and no row window kept from earlier games and its times learned; played through,
    each tap noted as (cell, what moved then, what it landed on)."""
    from solver.numbermatch import POINTS

    vp, phone, loop = planned(harness, "28......4 ........6 37....... 55.......", plan, channel, faults)
    app = phone.app
    loop.game.points.recall(POINTS)  # (kept from earlier games: each pair's score borne out)
    loop.game.window.recall({"row_window": 0.0})  # (kept: this game has no row window, so no trial of it)
    long = LONG["fade"] + LONG["collapse"]
    loop.link.clock.animation.update({"pair": [LONG["fade"] - 0.05, LONG["fade"] + 0.05],
                                      "pair, rows go": [long - 0.05, long + 0.05]})
    taps, tap = [], app.tap

    def tap_noting_motion(x, y):
        now = app.clock()
        taps.append((app.cell_at(x, y), app.motion(now), app.landed(x, y)))
        tap(x, y)

    app.tap = tap_noting_motion
    assert autoplay.play(loop, say=loop.said.append) == 0
    return vp, phone, loop, taps


@pytest.mark.slow
@pytest.mark.parametrize("preset, scale, channel", [("1080x2400", 1.0, "scrcpy"), ("720x1600", 0.3, None)])
def test_autoplay_clears_two_stages_on_a_real_phone_without_a_wrong_tap(harness, preset, scale, channel):
    """On the real profile at full time by the channel a user gets (scrcpy), and at a third of
    it by the suite's plain one (exec)."""
    vp, phone, loop = start(harness, preset, scale=scale, channel=channel)
    assert autoplay.play(loop, stages=2, say=loop.said.append) == 0
    assert loop.tally.stages == 2 and phone.app.board.stage == 2
    assert vp.wrong_taps == 0
    assert len(phone.tap_log) == loop.link.taps
    assert loop.tally.repeats == 0 and loop.tally.replans == 0
    assert loop.link.clock.early_judged > 0  # pairs judged early in their fade, among the rest
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("preset, channel", [("1080x2400", "scrcpy"), ("720x1600", None)])
def test_dropped_taps_on_a_real_phone_are_repeated_without_a_wrong_tap(harness, preset, channel):
    vp, phone, loop = start(harness, preset, scale=0.3, faults=Faults(drop_taps=0.2, seed=11), seed=6,
                            channel=channel)
    assert autoplay.play(loop, stages=2, say=loop.said.append) == 0
    assert loop.tally.stages == 2
    assert phone.taps_dropped > 0 and loop.tally.repeats > 0
    assert vp.wrong_taps == 0 and loop.tally.replans == 0  # no lost tap was taken for a pair made
    assert loop.link.clock.early_judged > 0
    vp.stop()


def test_captures_during_every_animation_are_waited_out_never_judged(harness, tmp_path, monkeypatch):
    """Animations of 0.6 s on a phone that answers at once: the first captures after each move fall
    inside them. The loop reads only the settled frame: its moves all land as predicted. (By
    screencap, whose every frame the phone logs; by video: the test below.)"""
    # a phone whose animation times no earlier test stored in its profile
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, realism="fast", size=10, seed=0, channel="exec")
    phone.app.animate(LONG)
    link = loop.link
    grabbed, returned = [], []
    grab, settled = link.device.capture, link.capture

    def counting_grab(*args, **options):
        grabbed.append(len(phone.capture_log))
        return grab(*args, **options)

    def recording_capture(**options):
        image = settled(**options)
        returned.append(len(phone.capture_log) - 1)  # the phone's log entry of the frame returned
        return image

    link.device.capture, link.capture = counting_grab, recording_capture
    # the selection's highlight: one tap, a look, and the tap again to drop the selection
    loop.start()
    first = loop.next_move
    link.tap(*loop.reading.cells[first.i])
    loop.look()
    assert phone.app.selected == first.i
    link.tap(*loop.reading.cells[first.i])
    # (two boards: the first one's won screen slides in, and is read, before the next board)
    assert autoplay.play(loop, stages=2, say=loop.said.append) == 0
    caught = {motion for _, motion in phone.capture_log}
    assert {"select", "fade", "collapse", "add", "slide"} <= caught
    assert link.settler.unsettled > 0
    read_moving = [(k, phone.capture_log[k - 1:k + 1]) for k in returned if phone.capture_log[k][1]]
    assert not read_moving  # only settled frames were read
    assert loop.tally.replans == 0 and loop.tally.repeats == 0        # nothing half-drawn was judged
    assert vp.wrong_taps == 0
    vp.stop()


def test_a_tap_on_a_crossed_out_cell_through_adb_is_counted_wrong(harness):
    vp, phone, _ = start(harness, realism="real", scale=0.05)
    phone.app.board = Board.parse("19.456783 5", adds_left=3)
    x, y = centre(phone.app, 2)
    vp.device.shell(f"input tap {x} {y}")
    assert [t.target for t in phone.tap_log] == ["crossed"]
    assert vp.wrong_taps == 1
    vp.device.shell("input tap {} {}".format(*centre(phone.app, 0)))
    assert vp.wrong_taps == 1
    vp.stop()


@pytest.mark.phone
def test_demo_json_prints_the_run_summary_alone_on_stdout():
    result = tapsolve("demo", "--no-window", "--json", "--realism", "real", "--time-scale", "0.1",
                      "--seed", "3", "--drop-taps", "0.1", timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)  # one JSON document: the progress lines went to stderr
    assert "virtual phone" in result.stderr and "done:" in result.stderr
    assert set(summary) == {"cleared_stages", "moves", "taps", "wrong_taps", "ad_taps", "repeats", "replans",
                            "swipes", "captures", "score", "wall_s", "phone_floor_s", "pipelined"}
    assert summary["cleared_stages"] == 1 and summary["wrong_taps"] == summary["ad_taps"] == 0
    assert summary["taps"] >= 2 * (summary["moves"] - 5) and summary["captures"] >= summary["moves"]
    assert summary["phone_floor_s"] > 0 and summary["score"] > 0


def test_demo_rejects_a_bad_fault_option_in_one_line():
    result = tapsolve("demo", "--no-window", "--drop-taps", "2")
    assert result.returncode == 2 and "not a probability" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_an_animation_that_eases_in_is_not_taken_for_a_still_screen(harness, tmp_path, monkeypatch):
    """A fade that starts slowly (the cube of the time) on a phone whose captures come at once:
    two frames just after the touch look alike. Judged on them, the pair would look not made and
    be tapped again, onto crossed-out cells. (Moves judged on a read screen only, here.)"""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setattr(animation_module, "EARLY_MISSES", 0)
    vp, phone, loop = start(harness, realism="fast", size=18, seed=3)
    phone.app.animate(LONG)
    mix = phone.app._mix
    phone.app._mix = lambda a, b, progress: mix(a, b, progress ** 3)
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert loop.link.clock.early_judged == 0
    assert loop.tally.repeats == 0 and loop.tally.replans == 0 and vp.wrong_taps == 0
    vp.stop()


# -- a pair judged on one frame early in its fade ---------------------------------------------

def cell_inside(app, index):
    x, y = centre(app, index)
    half = round(app.layout.cell * 0.8 / 2)
    return x - half, y - half, x + half, y + half


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_fading_pair_is_told_from_a_highlight_a_still_cell_and_a_frame_too_soon(theme):
    app = apps.create("numbermatch", PRESETS["1080x2400"], seed=1, theme=theme)
    app.clock = Clock()
    app.animate(REALISM["real"].durations(), banner=True)
    app.board = Board.parse("193.4.... 345678223 5", adds_left=2)  # no row goes with the pair
    first, second = cell_inside(app, 0), cell_inside(app, 1)
    before = app.render()
    app.tap(*centre(app, 0))
    app.clock.t += 1
    highlighted = app.render()
    assert part_change(before, highlighted, first) == "other"  # its ground changed
    assert part_change(before, highlighted, second) == "unchanged"
    app.tap(*centre(app, 1))
    fade = app.durations["fade"]
    assert part_change(before, app.render(), first) == "unchanged"  # the fade has not begun
    app.clock.t += fade / 4
    quarter = app.render()
    assert app.motion() == "fade"
    assert part_change(before, quarter, first) == part_change(before, quarter, second) == "fading"
    app.clock.t += fade
    assert part_change(before, app.render(), second) == "fading"  # crossed out: as far as it goes
    # a digit that gains contrast is no fade: the pair taken back
    assert part_change(quarter, before, first) == "other"


def through_the_video(frames: list) -> list:
    """``frames`` (RGB screens) as a client gets them over phonesim's scrcpy video: encoded by
    its H.264 encoder, at 30 a second, and decoded."""
    import av

    from phonesim.scrcpy import MAX_FPS, open_encoder, video_frame

    h, w = frames[0].shape[:2]
    encoder, decoder = open_encoder(w, h), av.CodecContext.create("h264", "r")
    out, config = [], bytes(encoder.extradata)
    for k, screen in enumerate(frames):
        frame = video_frame(screen, w, h)
        frame.pts = round(k * 1_000_000 / MAX_FPS)
        for packet in encoder.encode(frame):
            out += [f.to_ndarray(format="rgb24") for f in decoder.decode(av.Packet(config + bytes(packet)))]
            config = b""
    assert len(out) == len(frames)  # (zerolatency: a frame out for each frame in)
    return out


def test_a_fade_is_told_on_its_first_faint_frame_through_the_video_and_a_still_cell_is_not():
    """A fade eases in (Android's AccelerateDecelerateInterpolator): its first frame takes a few
    levels off every mark of the pair's cells, less than one pixel's noise. Compared with the
    screen before the touch (``faint``), most marks losing a little tell it a frame sooner (33
    ms at 30 fps): measured on phonesim's real profile, 11 of 13 pairs whose first frame was
    refused. A still cell's compressed frames, and the encoder's repeat of the screen before,
    show no such thing; the first tap's highlight is still no fade."""
    app = app_with_clock(Board.parse("193.4.... 345678223 5", adds_left=2))
    first, second, still_cell = cell_inside(app, 0), cell_inside(app, 1), cell_inside(app, 11)
    before = app.render()
    app.tap(*centre(app, 0))
    app.clock.t += 1
    highlighted = app.render()
    app.tap(*centre(app, 1))
    begun = app.clock.t
    screens = [before, before, highlighted]
    for ms in (33, 45):
        app.clock.t = begun + ms / 1000
        screens.append(app.render())
    shown, repeat, selected, faint, plain = through_the_video(screens)
    for part in (first, second):
        assert part_change(shown, faint, part) == "unchanged"  # under one pixel's noise
        assert part_change(shown, faint, part, faint=True) == "fading"
        assert part_change(shown, plain, part) == part_change(shown, plain, part, faint=True) == "fading"
        assert part_change(shown, repeat, part, faint=True) == "unchanged"
    assert part_change(shown, faint, still_cell, faint=True) == "unchanged"
    assert part_change(shown, selected, first, faint=True) == "other"  # (its ground changed)


def test_an_early_frame_that_caught_the_first_tap_alone_is_followed_by_the_next():
    """Frames are taken from the touch on: one may show the pair's first cell selected before
    the second tap shows (its ground changed: "other"). That is no verdict yet: the next frame,
    both cells fading, judges the pair (before, the highlight refused the pair's early frames
    and it was judged after its animation)."""
    import time
    from types import SimpleNamespace

    app = app_with_clock(Board.parse("193.4.... 345678223 5", adds_left=2))
    first, second = cell_inside(app, 0), cell_inside(app, 1)
    before = app.render()
    app.tap(*centre(app, 0))
    app.clock.t += 1
    highlighted = app.render()
    app.tap(*centre(app, 1))
    app.clock.t += app.durations["fade"] / 4
    fading = app.render()
    frames = [highlighted, fading]
    link = Link(SimpleNamespace(screen=None, capture=lambda: frames.pop(0)))
    link.accept(before)
    link.clock.animation["pair"] = [0.2, 0.3]
    link.clock.touch("pair")
    link.clock.touched_at = time.monotonic()
    header = (0, 0, 1 << 20, app.layout.grid_top)  # (the score: read with the next screen read)
    assert link.early([first, second], aside=[header]) is fading and not frames


def test_the_screen_after_rows_collapsed_is_taken_no_sooner_than_a_touch_may_land_in_them(monkeypatch):
    """The frame a next pair's early frames are compared with, once rows judged early to go
    have collapsed, shows the screen from their learned end plus the channel's margin, as late
    as a touch into those rows goes: a frame from their end alone may be one of their last,
    eased pixels off (before, such a frame refused the next pair's early frame, and the
    board's last pair then waited 1.5 s for the won screen)."""
    import time
    from types import SimpleNamespace

    from assistant.phone import lock

    monkeypatch.setattr(lock, "keep", lambda device: None)
    asked = []
    image = np.zeros((2400, 1080, 3), np.uint8)
    device = SimpleNamespace(screen=object(), shown_at=None, taps=lambda points: None,
                             channel=SimpleNamespace(touch_margin=0.02, acts_before_returning=True),
                             capture=lambda not_before, lossless, still=False: asked.append((not_before, still)) or image)
    link = Link(device)
    ended = time.monotonic() - 1.0
    link._shifted = [((0, 500, 1080, 2400), ended)]
    link.tap_all([(100, 600)], kind="pair")
    # (taken as still from then: on video the newest frame stands for it, repeat or not)
    assert asked == [(ended + 0.02, True)] and not link.shifted


class VideoPhone:
    """A phone whose captures are video frames, each with the time it showed the screen: the
    screen a touch found (``found_by``) and the frames shown between two times from ``shown``,
    the next captures from ``coming``; the taps' times and the captures asked for are kept."""

    def __init__(self, shown: list, coming: list):
        from types import SimpleNamespace

        self.shown, self.coming, self.sent, self.asked = shown, coming, [], []
        self.screen, self.shown_at = object(), 0.0
        self.channel = SimpleNamespace(touch_margin=0.02, acts_before_returning=True)

    def taps(self, points) -> None:
        self.sent.append(time.monotonic())

    def capture(self, not_before=None, lossless=True, still=False):
        self.asked.append(not_before)
        image, self.shown_at = self.coming.pop(0)
        return image

    def found_by(self, sent: float):
        return max((frame for frame in self.shown if frame[1] <= sent), key=lambda frame: frame[1], default=None)

    def frames_between(self, after: float, before: float):
        return sorted((frame for frame in self.shown if after < frame[1] < before), key=lambda frame: -frame[1])


def test_a_pair_below_a_row_gone_is_tapped_at_the_rows_learned_end_and_its_reference_is_the_frame_it_found(
        monkeypatch):
    """On video, a pair below a row that went is tapped as soon as the rows' learned time is
    over: no frame of the screen still is waited for first (it comes 35-70 ms after the phone
    shows it, and the encoder sends none for a still screen until its repeat, 100 ms on: the
    touch waited up to 70 ms). Its early frames are compared with the newest frame shown by
    the time it was sent (caught before it acted). A learned time is good to a frame: that one
    may be the rows' picture before their last, eased pixels off; then a frame after it, come
    since (the rows' last picture), that shows the pair fading and the rest as the early
    frame does is the reference. None that does: judged as always."""
    from assistant.phone import lock

    monkeypatch.setattr(lock, "keep", lambda device: None)
    app = app_with_clock(Board.parse("19....... 345678223 5", adds_left=2))
    app.tap(*centre(app, 0))
    app.clock.t += 1
    app.tap(*centre(app, 1))  # (1 and 9 empty the first row: the rows below go up)
    d, went = app.durations, app.clock.t
    app.clock.t = went + d["fade"] + 0.95 * d["collapse"]
    last_but_one = app.render()  # (the rows' eased end: under a pixel from their place)
    app.clock.t = went + d["fade"] + d["collapse"] + 0.01
    collapsed = app.render()
    first, second = cell_inside(app, 6), cell_inside(app, 7)  # (the 2s, now on the first row)
    app.tap(*centre(app, 6))
    app.clock.t += 0.02
    app.tap(*centre(app, 7))
    app.clock.t += d["fade"] / 3
    fading = app.render()
    header = (0, 0, 1 << 20, app.layout.grid_top)

    def follow(shown_after_sent):
        """The pair tapped once the rows judged early were seen still by their time; the rows'
        last but one frame shown before the touch, ``shown_after_sent`` after it, then ``fading``."""
        now = time.monotonic()
        phone = VideoPhone([(last_but_one, now - 0.05)], [])
        link = Link(phone)
        link.quality(lossless=False)  # (frames by video)
        link.accept(np.zeros_like(collapsed))
        link._shifted = [((0, 500, 1 << 20, 1 << 20), now - 0.02)]
        link.clock.animation["pair"] = [0.2, 0.3]
        link.tap_all([(100, 600)], kind="pair")
        assert phone.asked == [] and len(phone.sent) == 1  # (no capture before the touch)
        assert link.settler.screen is last_but_one and not link.shifted
        phone.shown += [(image, phone.sent[0] + 0.01) for image in shown_after_sent]
        phone.coming += [(fading, phone.sent[0] + 0.08), (fading, phone.sent[0] + 1.0)]  # (the last: past its time)
        return link, link.early([first, second], aside=[header])

    link, judged = follow([collapsed])
    assert judged is fading and link.settler.screen is collapsed
    link, judged = follow([])  # (the rows' last picture never came: no reference for the rest)
    assert judged is None


def test_a_touch_waits_only_where_a_move_judged_early_still_moves():
    """``Link.waits``: taps outside every part still moving go at once (pipelined), taps in one
    wait for its end, and every tap waits on a game that ignores taps while it animates."""
    import time
    from types import SimpleNamespace

    link = Link(SimpleNamespace(screen=None))
    assert not link.waits([(100, 600)])  # nothing moving
    link._moving = [((0, 500, 1080, 2400), time.monotonic() + 60, "pair, rows go")]  # rows from y 500 down
    assert not link.waits([(100, 400), (300, 420)]) and link.waits([(100, 400), (100, 600)])
    link.overlap = False
    assert link.waits([(100, 400)])


def test_a_touch_that_waits_for_an_animation_is_counted_against_the_kind_that_ended_last(monkeypatch):
    """What narrowing a kind's time would speed (the probes' worth, ``AnimationClock.held``):
    a touch sent at once elsewhere on the board waited for nothing; one in a part still moving
    waited for the animation ending last, the kind of touch it followed."""
    import time
    from types import SimpleNamespace

    from assistant.phone import lock

    monkeypatch.setattr(lock, "keep", lambda device: None)
    device = SimpleNamespace(screen=object(), shown_at=None, taps=lambda points: None,
                             channel=SimpleNamespace(touch_margin=0.02, acts_before_returning=True))
    link = Link(device)
    soon = time.monotonic() + 0.05
    link._moving = [((100, 100, 200, 200), soon, "pair"), ((0, 500, 1080, 2400), soon + 0.05, "pair, rows go")]
    link.tap_all([(150, 300), (400, 300)], kind="pair")  # above both: at once
    assert link.last_overlapped and link.clock._held == {}
    link._moving = [((100, 100, 200, 200), soon, "pair"), ((0, 500, 1080, 2400), soon + 0.05, "pair, rows go")]
    link.tap_all([(150, 300), (400, 600)], kind="pair")  # one cell in the rows going: waits for them
    assert not link.last_overlapped and link.clock._held == {"pair, rows go": 1}
    assert time.monotonic() >= soon + 0.05


@pytest.mark.slow
@pytest.mark.parametrize("channel, ignoring", [(None, ""), ("scrcpy", ""), ("scrcpy", "both")])
def test_autoplay_judges_pairs_on_early_frames_and_taps_no_cell_while_it_moves(harness, tmp_path, monkeypatch,
                                                                              channel, ignoring):
    """A phone that answers at once with animations of 0.6 s: a pair that takes no row is judged
    on one frame early in its fade, and the next move's taps go at once when none of its cells
    is moving (pipelined: the game takes a tap on a cell that is not itself moving), else after
    the fade (give or take its eased tail: past 90 % of its time the picture is within 2.5 % of
    its end). No tap ever lands on a cell that moves. A game that ignores every tap while it
    animates (phonesim's --ignore-taps-while-animating) is found out in the first moves sent so,
    and every later move waits for the last one's animation; it loses nothing but those taps."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, realism="fast", size=18, seed=3, channel=channel,
                            faults=Faults(seed=3, ignore_taps_while=ignoring))
    app = phone.app
    app.animate(LONG)
    landed_during = []
    tap = app.tap

    def tap_noting_motion(x, y):
        now = app.clock()
        m = app._moving(now)
        gone = (now - m["t0"]) / (m["fade"] + m["collapse"] + m["write"]) if m else 1.0
        landed_during.append((app.motion(now), round(gone, 2), app.landed(x, y), loop.link.overlap))
        tap(x, y)

    app.tap = tap_noting_motion
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert loop.link.clock.early_judged >= 3
    assert not [t for t in landed_during if t[2] == "animating"], landed_during  # never a cell that moves
    assert loop.tally.replans == 0 and vp.wrong_taps == 0
    if not ignoring:
        assert loop.link.overlapped >= 3 and loop.tally.repeats == 0  # pipelined, and every one landed
    else:
        assert not loop.link.overlap and loop.link.overlapped == autoplay.OVERLAP_LOSSES
        # (no tap lost on a still screen: the verdict is sure, never put to a move again)
        assert loop.session.accepts(TAPS_WHILE_ANIMATING) is False
        assert loop.said.count("this game ignores taps while it animates: each move now waits for the "
                               "last one's") == 1
        # once found out, a pair's second tap lands as the first one's highlight grows (one
        # call); every other tap after the last move's animation, but for its tail
        late = [(motion, gone) for motion, gone, _, overlap in landed_during
                if not overlap and motion not in (None, "select") and gone < 0.9]
        assert not late, landed_during
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("channel, ignoring", [(None, ""), ("scrcpy", ""), ("scrcpy", "fade")])
def test_a_pair_above_rows_going_is_tapped_during_their_collapse_and_one_below_after_it(harness, tmp_path,
                                                                                      monkeypatch, channel,
                                                                                      ignoring):
    """A pair that empties a row is judged on its first frame that shows it fading; the rows
    below it then collapse (phonesim: every cell from the emptied row down moves). The next pair,
    whose cells lie above that row, is tapped during the collapse (before, it waited for the
    first pair's animation to end and a glance); a pair in the rows that moved up waits for the
    collapse and is tapped where its cells came to rest. No tap lands on a moving cell, and the
    plan's pairs are played in its order. A game that ignores taps while a pair fades (phonesim's
    --ignore-taps-while-animating) loses the taps sent so: they go again, and no other pair is
    made of them."""
    from solver.numbermatch import Pair

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    # row 1's first pair (on video: a frame to compare the next ones with), row 3's pair (rows
    # go), the pair of rows 1 and 2 above it (rows go), and row 4's, moved up to the top
    vp, phone, loop, taps = played_over_a_collapse(harness, [Pair(0, 1), Pair(18, 19), Pair(8, 17), Pair(0, 1)],
                                                   channel, Faults(seed=3, ignore_taps_while=ignoring))
    assert loop.tally.stages == 1 and loop.tally.replans == 0
    assert vp.wrong_taps == 0 and not [t for t in taps if t[2] == "animating"], taps  # never a moving cell
    assert [cell for cell, _, _ in taps] == [0, 1, 18, 19, 8, 17, 0, 1], taps  # the plan's cells, in order
    if ignoring:  # (the taps the game ignored never reached a cell: sent again, as they were)
        assert [t.target for t in phone.tap_log].count("ignored") >= 2 and loop.tally.repeats >= 1
        vp.stop()
        return
    assert loop.tally.repeats == 0
    # the pair of rows 1 and 2 went while row 3's pair played its animation; row 4's pair, by
    # then in the rows that moved up, once the collapses were over (its second tap as its
    # first one's highlight grows)
    going = ("fade", "collapse")
    assert taps[4][1] in going and taps[5][1] in going, taps
    assert taps[6][1] is None and taps[7][1] in (None, "select"), taps
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("ignoring, kept", [("", 0.38), ("both", 0.38), ("", False)])
def test_a_game_kept_as_ignoring_taps_while_it_animates_is_put_to_one_pipelined_move_again(harness, tmp_path,
                                                                                          monkeypatch, ignoring,
                                                                                          kept):
    """An earlier game on the phone took its game for one that ignores taps while it animates
    (kept in the profile), on a phone that lost taps on a still screen too (kept: the share): a
    phone that drops taps anywhere can lose pipelined moves by bad luck (seen with phonesim
    --drop-taps 0.2, whose next game then played without pipelining, slower than a first game).
    Each game sends one move during the last one's animation again: taken, play pipelines again
    and the profile keeps that; lost (a game that does ignore them), the game waits as before,
    that pair's taps sent again, and the verdict stays. A verdict of a phone that lost no other
    tap (kept: False) is sure: no move is sent so."""
    from assistant.session import TAKES_TAPS, TAPS_WHILE_ANIMATING

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, realism="fast", size=18, seed=3,
                            faults=Faults(seed=3, ignore_taps_while=ignoring))
    phone.app.animate(LONG)
    start_accepting = loop.session._start_accepting

    def kept_ignoring(profile):
        profile.accepts.setdefault(TAPS_WHILE_ANIMATING, kept)  # (as an earlier game left it)
        start_accepting(profile)

    loop.session._start_accepting = kept_ignoring
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert vp.wrong_taps == 0 and loop.tally.replans == 0
    ignored = [t.target for t in phone.tap_log].count("ignored")
    if kept is False:
        assert loop.link.overlapped == 0 and TAKES_TAPS not in loop.said
        assert loop.session.profile.accepts[TAPS_WHILE_ANIMATING] is False
    elif not ignoring:
        assert loop.said.count(TAKES_TAPS) == 1 and loop.link.overlap and loop.link.overlapped >= 3
        assert loop.session.profile.accepts[TAPS_WHILE_ANIMATING] is True and ignored == 0
    else:
        assert TAKES_TAPS not in loop.said and not loop.link.overlap and loop.link.overlapped == 1
        assert loop.session.profile.accepts[TAPS_WHILE_ANIMATING] == kept
        assert ignored >= 2  # (the trial's pair, sent again)
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("channel", [None, "scrcpy"])
def test_a_later_pair_above_rows_going_is_played_during_their_collapse_before_one_that_waits(harness, tmp_path,
                                                                                           monkeypatch, channel):
    """The plan's next pair lies in the rows that move up after a pair empties a row, and a
    later one lies above them: the later pair goes first, tapped during the collapse, where the
    line stays legal and clears the board as planned (before, the collapse was waited out and
    the later pair played after). No tap lands on a moving cell."""
    from solver.numbermatch import Pair

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    # row 1's first pair; row 3's pair (rows go); row 4's, moved up into row 3 (it waits); the
    # pair of rows 1 and 2, above the collapse
    vp, phone, loop, taps = played_over_a_collapse(harness, [Pair(0, 1), Pair(18, 19), Pair(18, 19), Pair(8, 17)],
                                                   channel)
    assert loop.tally.stages == 1 and loop.tally.replans == 0 and loop.tally.repeats == 0
    assert vp.wrong_taps == 0 and not [t for t in taps if t[2] == "animating"], taps  # never a moving cell
    # the pair of rows 1 and 2 during row 3's collapse, then the 5s, moved up to the top
    assert [cell for cell, _, _ in taps] == [0, 1, 18, 19, 8, 17, 0, 1], taps
    assert taps[4][1] in ("fade", "collapse") and taps[5][1] in ("fade", "collapse"), taps
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("channel, cleared_timed", [(None, True), ("scrcpy", True), ("scrcpy", False)])
def test_the_last_board_ends_on_its_last_pair_seen_fading_not_on_the_won_screen(harness, tmp_path, monkeypatch,
                                                                                channel, cleared_timed):
    """When no board is played after this one, its last pair is judged on its first frame that
    shows it fading, as any pair is: the won screen, which slides in once the board's animation
    is over (about 1.5 s on the real profile), is not waited for. The board is won all the same.
    In a first game, before a board was ever cleared, its frames are timed as a pair's fade."""
    from solver.numbermatch import POINTS, Pair

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    # row 1's pair, then the last
    vp, phone, loop = planned(harness, "19....... 55.......", [Pair(0, 1), Pair(0, 1)], channel)
    app = phone.app
    # (kept from earlier games: each pair's score borne out, but for the cleared board's bonus,
    # learned only on a next board's header: a player who plays one board at a time never has it)
    loop.game.points.recall({kind: points for kind, points in POINTS.items() if kind != "clear"})
    loop.game.window.recall({"row_window": 0.0})
    long = LONG["fade"] + LONG["collapse"]  # (learned in earlier games)
    loop.link.clock.animation.update({"pair": [LONG["fade"] - 0.05, LONG["fade"] + 0.05],
                                      "pair, rows go": [long - 0.05, long + 0.05]})
    if cleared_timed:
        loop.link.clock.animation["pair, board cleared"] = [long - 0.05, long + 0.05]
    hows, judged = [], loop.judged
    loop.judged = lambda judgement: hows.append(judgement.how) or judged(judgement)
    screens = []
    look = loop.session.look
    loop.session.look = lambda *a, **k: screens.append(look(*a, **k)) or screens[-1]
    assert autoplay.play(loop, stages=1, say=loop.said.append) == 0
    assert loop.tally.stages == 1 and loop.tally.moves == 2 and app.board.is_won()
    # (the first pair, on scrcpy: a video frame is never compared with the screencap read)
    assert len(hows) == 2 and hows[-1] == "early", hows  # (before: the last on the won screen read)
    assert not [r for _, r in screens if r.screen == "stage_complete"]  # never waited for
    assert vp.wrong_taps == 0 and loop.tally.repeats == 0
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("channel", [None, "scrcpy"])
def test_a_game_whose_rows_go_at_once_is_known_to_keep_no_window_though_no_trial_came(harness, tmp_path,
                                                                                     monkeypatch, channel):
    """Pairs that empty a row, each next pair in the rows that move up (so no trial of the row
    window), are each looked at on one frame past a pair's fade: the rows below are on their way
    up, three times, and the phone is known to keep no window (kept in its profile, nothing
    said), so its rows going may be judged early from then on. (On a game that keeps the row
    the look counts nothing: test_assistant's row-window test plays one.)"""
    from solver.numbermatch import POINTS, Pair

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = planned(harness, "19....... 28....... 37....... 46....... 55.......",
                              lambda position: [Pair(0, 1)] * (len(position.cells) // 9), channel)  # the top row's
    app = phone.app
    loop.game.points.recall(POINTS)  # (kept from earlier games: each pair's score borne out)
    long = LONG["fade"] + LONG["collapse"]  # (learned in earlier games; not the window)
    loop.link.clock.animation.update({"pair": [LONG["fade"] - 0.05, LONG["fade"] + 0.05],
                                      "pair, rows go": [long - 0.05, long + 0.05]})
    hows, judged = [], loop.judged
    loop.judged = lambda judgement: hows.append(judgement.how) or judged(judgement)
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert loop.tally.moves == 5 and app.board.is_won() and vp.wrong_taps == 0 and loop.tally.repeats == 0
    assert loop.game.window.known and loop.session.profile.accepts.get("row_window") == 0.0
    assert not [said for said in loop.said if "emptied row" in said]
    # (rows going, judged after their animation, on a glance or settled, until the window is known absent)
    assert len(hows) == 5 and "early" not in hows[:3], hows
    vp.stop()


@pytest.mark.slow
def test_a_game_whose_crossing_out_changes_more_than_a_fade_is_judged_after_its_animation(harness, tmp_path,
                                                                                         monkeypatch):
    """A pair whose cells flash a colour as they go is not a fade: the early frame is refused,
    the move judged on a read screen, and after EARLY_MISSES such moves no early frame is taken."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, realism="fast", size=18, seed=3)
    phone.app.animate(LONG)
    app = phone.app
    mix = app._mix

    def flashing(a, b, progress):
        tile = mix(a, b, progress)
        tile[:4] = (250, 60, 60)  # a red edge while the pair goes
        return tile

    app._mix = flashing
    early = loop.link.early
    frames = []

    def early_noting(*args, **options):
        before = loop.link.captures
        image = early(*args, **options)
        frames.append(loop.link.captures - before)
        return image

    loop.link.early = early_noting
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert loop.link.clock.early_judged == 0
    assert frames.count(1) == animation_module.EARLY_MISSES and frames[-1] == 0  # then none taken
    assert loop.tally.replans == 0 and loop.tally.repeats == 0 and vp.wrong_taps == 0
    vp.stop()


@pytest.mark.slow
@pytest.mark.parametrize("realism, scale, scale_now", [("fast", 1.0, 0.3), ("real", 0.05, 0.5)],
                         ids=["animations off", "animations ten times faster"])
def test_animation_times_learned_with_faster_animations_are_learned_again(harness, tmp_path, monkeypatch,
                                                                          realism, scale, scale_now):
    """A game played with the phone's animations off (or faster) stores times too short for the
    next game: its early frames come too soon, after that time or until the next would pass
    EARLY_LATEST. The time is then learned again, and the later pairs are judged early (before,
    three such frames moved the early frame past EARLY_LATEST and none was taken for the rest of
    the game: the glance after each, taken once the fade had ended, learned nothing)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    fade = REALISM["real"].durations()["fade"] * scale_now
    # by screencap: a video frame counts only from VIDEO_LATENCY past a touch, so no time shorter
    # than that is learned on video (animations off or not)
    vp, phone, loop = start(harness, "720x1600", realism=realism, scale=scale, channel="exec")
    assert autoplay.play(loop, stages=1, say=loop.said.append) == 0
    assert loop.link.clock.animation["pair"][1] < fade / 2
    vp.stop()
    vp, phone, loop = start(harness, "720x1600", scale=scale_now, channel="exec")
    assert loop.link.clock.animation == {}  # (taken from the stored profile at the first read)
    assert autoplay.play(loop, stages=1, say=loop.said.append) == 0
    link = loop.link
    assert link.clock.animation["pair"][1] > fade / 2
    assert link.clock.early_judged > 0
    assert loop.tally.replans == 0 and loop.tally.repeats == 0 and vp.wrong_taps == 0
    vp.stop()


@pytest.mark.slow
def test_a_slow_starting_fade_is_judged_on_its_first_frame_that_shows_it(harness, tmp_path, monkeypatch):
    """A fade that starts slowly (ease-in) shows nothing in its first frames: frames are taken
    on until one shows it (before, one frame at a quarter of the learned time was refused and
    the move judged after its animation), and every pair is judged early."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, realism="fast", size=18, seed=3)
    phone.app.animate(LONG)
    app = phone.app
    mix = app._mix
    app._mix = lambda a, b, progress: mix(a, b, progress ** 3)  # AccelerateInterpolator(1.5)
    early, frames = loop.link.early, []

    def early_noting(*args, **options):
        before = loop.link.captures
        image = early(*args, **options)
        frames.append((loop.link.captures - before, image is not None))
        return image

    loop.link.early = early_noting
    assert autoplay.play(loop, say=loop.said.append) == 0
    judged = [taken for taken, made in frames if made]
    assert len(judged) >= 2 and max(judged) > 1, frames  # a frame that showed nothing yet, then the next
    assert [made for taken, made in frames if taken] == [True] * len(judged), frames  # none refused
    assert loop.tally.replans == 0 and loop.tally.repeats == 0 and vp.wrong_taps == 0
    vp.stop()


@pytest.mark.phone
def test_video_frames_during_every_animation_are_never_judged(harness, tmp_path, monkeypatch):
    """On the scrcpy channel the screen comes as video frames, streamed while it changes: the
    frames during the animations reach the assistant, but no frame it takes as the screen
    (a settled capture or a glance accepted) caught one. Frames are matched to what the phone
    sent by their pts."""
    from phonesim import scrcpy as sim_scrcpy

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, realism="fast", size=10, seed=0, channel="scrcpy")
    phone.app.animate(LONG)
    link = loop.link
    grabbed, judged = {}, []
    grab, accept = link._grab, link.accept

    def recording_grab(*args, **options):
        image, at = grab(*args, **options)
        # the frame's pts: its time less the channel's clock offset (which only ever shrinks)
        pts = (at - link.device.channel.video._pts_offset) * 1e6  # (at: the frame's time, when from video)
        grabbed[id(image)] = image, link.from_video, pts
        return image, at

    def recording_accept(image):
        judged.append(grabbed.get(id(image), (image, False, None)))
        return accept(image)

    link._grab = link.settler.grab = recording_grab
    link.accept = recording_accept
    # (two boards: the first one's won screen slides in, and is read, before the next board)
    assert autoplay.play(loop, stages=2, say=loop.said.append) == 0
    sent = sim_scrcpy.video_log(phone)
    # streamed (a pair's highlight only when a frame falls between its two taps, sent together)
    assert {"fade", "collapse", "add", "slide"} <= {motion for _, motion, _ in sent}
    on_video = [(image, pts) for image, from_video, pts in judged if from_video]
    assert len(on_video) > len(judged) / 2  # (the first read, and unsure ones, are screencaps)
    sent_pts = [pts for pts, _, _ in sent]

    def sent_at(pts):
        """What the phone sent at pts (pts, motion, picture), and where in its log."""
        i = bisect.bisect_right(sent_pts, pts + 1) - 1
        return sent[i], i

    # each picture the phone sent, as the assistant decoded it (the first frame of it it took)
    decoded = {}
    for image, from_video, pts in grabbed.values():
        if from_video:
            decoded.setdefault(sent_at(pts)[0][2], image)

    def caught(image, pts):
        """The animation the frame sent at pts caught, unless its picture is already the still
        screen that followed: drawn pixel for pixel (an eased animation's last frames), or
        decoded as that still screen was, but for the video's noise (at most 16 pixels more
        than 10 shades off: an eased end a shade or two from its last state)."""
        (_, motion, picture), i = sent_at(pts)
        still_after = next((p for _, m, p in sent[i:] if m is None), None)
        if motion is None or picture == still_after:
            return None
        if still_after in decoded:
            off = np.abs(image.astype(np.int16) - decoded[still_after].astype(np.int16)).max(axis=2)
            if np.count_nonzero(off > 10) <= 16:
                return None
        return motion

    assert [caught(*frame) for frame in on_video] == [None] * len(on_video)  # each showed a still screen
    assert loop.tally.replans == 0 and loop.tally.repeats == 0 and vp.wrong_taps == 0
    vp.stop()


def test_a_kind_judged_early_is_probed_by_a_settled_capture_while_its_time_is_wide():
    """Only a settled capture narrows a kind's time, and a move judged early takes none: one
    touch in EARLY_PROBE_EVERY is judged settled instead while the time is wider than the
    touch's margin and narrowing pays (a time learned again after one late frame): half the gap,
    over the touches so far that it would speed, against the probe's own cost (the kind's time
    and a capture, where its first frame would have judged it). It speeds only the touches that
    wait for the kind's animation to end (``held``): in pipelined play a pair's next pair goes
    at once elsewhere on the board, and a probe of the pair's time bought nothing but its cost
    (0.3-0.45 s twice a 23-move game, measured on phonesim's real profile)."""
    clock = animation_module.AnimationClock()
    every = animation_module.EARLY_PROBE_EVERY

    def probes(bracket, capture_s=0.05, margin=0.02, touches=3 * every, last=False, holding=1):
        clock.animation["pair"], clock.touches, clock._held = list(bracket), {}, {}
        taken = []
        for n in range(1, touches + 1):
            if n > 1 and (n - 1) % holding == 0:
                clock.held("pair")  # (the touch now sent waited for the last one's animation)
            clock.touch("pair")
            clock.touched_at = 10.0 * n
            window = clock.early_window(capture_s, margin, video=False, last=last)
            taken.append(window is None)
            assert window is None or window[0] == clock.touched_at + bracket[1] * animation_module.EARLY_PART
            clock.settled()
        return [n for n, probe in enumerate(taken, 1) if probe]

    assert probes([0.26, 0.40]) == [every, 2 * every, 3 * every]
    assert probes([0.26, 0.27]) == []  # within the margin: the touch waits that anyway
    assert probes([0.26, 0.40], capture_s=5.0) == []  # a capture costs more than narrowing saves
    # a first game's pair, 3 ms wider than the margin: 24 touches before narrowing outweighs a
    # 0.29 s probe (before: probed at 8 and 16 as well, 0.3-0.6 s lost each)
    assert probes([0.26, 0.29]) == [3 * every]
    assert probes([0.26, 0.40], last=True) == []  # no touch follows: none waits on the time
    # no touch waited for a pair's fade (the next pairs went at once elsewhere): never probed
    assert probes([0.26, 0.40], holding=10 ** 6) == []
    # every other touch held: by the 8th touch three held, 0.21 s to gain against a 0.45 s
    # probe; by the 16th seven, 0.49 s
    assert probes([0.26, 0.40], holding=2) == [2 * every, 3 * every]


def test_the_changed_mask_marks_the_pixels_whose_strongest_channel_differs_past_the_noise():
    """settle.changed_mask (every early frame's and every settle's comparison) by its
    definition, in numpy: a pixel changed when one of its channels differs by more than
    PIXEL_NOISE, a difference of exactly PIXEL_NOISE being none."""
    from assistant.settle import PIXEL_NOISE, changed_mask

    rng = np.random.default_rng(7)
    a = rng.integers(0, 256, (240, 108, 3), dtype=np.uint8)
    step = rng.integers(-2 * PIXEL_NOISE, 2 * PIXEL_NOISE + 1, a.shape)
    step[0, :3] = [[PIXEL_NOISE, 0, 0], [0, -PIXEL_NOISE - 1, 0], [0, 0, PIXEL_NOISE + 1]]
    b = np.clip(a.astype(int) + step, 0, 255).astype(np.uint8)
    truth = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > PIXEL_NOISE
    mask = changed_mask(a, b)
    assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 255}
    assert np.array_equal(mask == 255, truth) and truth.any() and not truth.all()
    assert list(mask[0, :3]) == [0, 255, 255]


def test_comparing_frames_allocates_no_frame_sized_array_after_the_first_comparison_of_its_size():
    """Every early frame and every settle's look compares whole frames (``settle.still``,
    ``changed_pixels``): a fresh 8 MB difference and mask each time cost their page faults (numpy
    asks for huge pages on large arrays), 5-10 ms a frame in the bench against 2-3 for the
    comparison itself. Each thread keeps its scratch images per shape instead; the verdicts stay
    the definition's (a ticking part left out too)."""
    import tracemalloc

    from assistant.settle import PIXEL_NOISE, STATUS_BAR_PART, changed_pixels, still

    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (2400, 1080, 3), dtype=np.uint8)
    y = int(2400 * STATUS_BAR_PART) + 500
    a[y:y + 5, 100:110, 1] = 0
    b = a.copy()
    b[y:y + 5, 100:110, 1] = PIXEL_NOISE + 1  # 50 pixels changed where the game draws, in one channel
    assert changed_pixels(a, b) == 50 and not still(a, b) and still(a, a)
    assert still(a, b, ticking=[(100, y, 110, y + 5)])  # (left out: a clock)
    tracemalloc.start()
    try:
        verdicts = still(a, b), still(a, b, ticking=[(100, y, 110, y + 5)]), changed_pixels(a, b)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert verdicts == (False, True, 50)
    assert peak < a.nbytes // 100  # (no frame-sized array: numpy reports its arrays' data to tracemalloc)
