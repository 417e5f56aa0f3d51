"""Flip 9 and the 15-puzzle played pipelined through the real adb server (issue 40): each move
judged on one frame early in its animation, the next touch sent at once where it moves nothing
still moving, else once the animation has ended; on a game that ignores taps while it animates
(CLS-CLS/Flip9's ApplicationMouseHandler.swapCards; phonesim's --ignore-taps-while-animating),
still no wrong tap. The order of touches and animations is the phone's own log, never a time."""

import pytest

from assistant import autoplay
from assistant.link import Link
from assistant.loop import Loop
from assistant.phone.device import connect
from assistant.session import Session
from phonesim import apps
from phonesim.phone import PRESETS, REALISM, Faults, Phone

# animations long enough that a phone answering at once shows several frames of each
LONG = 0.6
IGNORES = "this game ignores taps while it animates: each move now waits for the last one's"


def start(harness, game, faults, **options):
    p = PRESETS["1080x2400"]
    phone = Phone(p, apps.create(game, p, **options), faults, realism=REALISM["fast"])
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    loop = Loop(Session(link), game=game, budget=1.0, say=said.append, wait_unknown=5)
    loop.said = said
    return vp, phone, loop


@pytest.mark.parametrize("ignoring", ["", "both"])
def test_flip9_sends_a_swap_of_two_other_cards_while_the_last_swap_plays(harness, tmp_path, monkeypatch, ignoring):
    """Cards that swap for 0.6 s (CLS-CLS/Flip9 draws them along arcs): once the swap's time is
    learned, swaps are judged on an early frame, and a swap of two cards the last swap did not
    move is tapped while it still plays; a swap that moves one of them waits for it. The app's
    own log: presses taken while a swap played, none of them moving a card of the last swap.
    A game that ignores every tap meanwhile is found out, and loses nothing but those taps."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no swap time learned by an earlier test
    vp, phone, loop = start(harness, "flip9", Faults(seed=4, ignore_taps_while=ignoring), seed=4, layout="cards")
    app = phone.app
    app.animate({"swap": LONG})
    presses = []  # (the cards it swaps, the last swap's, a swap playing, sent while the link knew one played)
    last = [set()]
    press = app.press

    def press_noting(value):
        first = app.state.must or app.picked
        if first is not None:
            presses.append(({first, value}, last[0], app.motion() == "swap", loop.link.last_overlapped))
            last[0] = {first, value}
        press(value)

    app.press = press_noting
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert app.state.is_won() and loop.tally.moves == app.moves
    assert loop.link.clock.early_judged >= 3
    assert not [p for p in presses if p[3] and p[0] & p[1]], presses  # never a card of the swap playing
    assert loop.tally.replans == 0 and vp.wrong_taps == 0
    ignored = [t for t in phone.tap_log if t.target == "ignored"]
    if not ignoring:
        assert len([p for p in presses if p[2] and p[3]]) >= 2, presses  # pipelined: sent before it ended
        assert loop.tally.repeats == 0 and not ignored
    else:
        # (a tap sent once the swap's time learned had passed may still meet its eased tail)
        assert not loop.link.overlap and min(len(ignored), loop.link.overlapped) >= autoplay.OVERLAP_LOSSES
        assert loop.said.count(IGNORES) == 1
    vp.stop()


@pytest.mark.parametrize("ignoring", ["", "both"])
def test_the_fifteen_puzzle_judges_slides_early_and_sends_no_slide_into_a_tile_on_its_way(harness, tmp_path,
                                                                                         monkeypatch, ignoring):
    """Tiles that glide for 0.6 s: once the glide's time is learned, slides are judged on an
    early frame (no screen read), and the next tap is never sent while the last glide plays as
    far as play knows (its time learned), since with one tile a slide every next tile slides into
    the cell just left. The phone's log: every tap on a tile that slides, none on a moving one;
    on a game that ignores taps meanwhile, no wrong tap either."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, phone, loop = start(harness, "fifteen", Faults(seed=8, ignore_taps_while=ignoring), seed=8, look="tiles",
                            width=3, slides=16)
    phone.app.animate({"tile": LONG})
    assert autoplay.play(loop, say=loop.said.append) == 0
    assert phone.app.board.is_won() and loop.tally.moves == phone.app.moves
    assert loop.link.clock.early_judged >= 3 and loop.link.overlapped == 0
    assert {t.target for t in phone.tap_log} <= {"live", "ignored"} and vp.wrong_taps == 0
    assert loop.tally.replans == 0
    vp.stop()
