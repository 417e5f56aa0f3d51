"""The guide mirrors the phone: it opens at once on whatever the phone shows and waits for the
board without a time limit, shows the newest video frame with the move drawn over it (the last
screenshot when there is no video), and a click on its picture taps the phone there when asked."""

import threading
import time

import numpy as np
import pytest

from assistant import guide
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from assistant.phone.channel import Channel, ChannelUnavailable
from assistant.phone.device import connect
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone

PRESET = PRESETS["1080x2400"]


class FakeChannel(Channel):
    """The exec channel with a video feed that gives one frame, at a time the test sets (None: no video)."""

    def __init__(self, device, rgb=None):
        super().__init__(device)
        self.rgb, self.at = rgb, 1.0

    def frame(self):
        return None if self.rgb is None else (self.rgb, self.at)


def guide_loop(harness, ad_seconds: float = 0.0):
    """(phone, loop, lines said) for the guide on a small Number Match board, an ad in front if asked."""
    phone = Phone(PRESET, apps.create("numbermatch", PRESET, seed=3, size=12), Faults())
    if ad_seconds:
        phone._start_ad(dict(seconds=ad_seconds))
    vp = harness.add(phone)
    said = []
    device = connect(vp.serial, client=harness.client)
    device.channel = FakeChannel(device)
    return phone, Loop(Session(Link(device, say=said.append)), game="numbermatch", say=said.append, wait_unknown=1.0), said


AD_LINE = "an ad is showing: close it on the phone and I will go on"


def closes_the_ad(phone, said) -> threading.Thread:
    """The player, closing the ad once the guide has said it is showing."""
    def close():
        while AD_LINE not in said:
            time.sleep(0.05)
        phone._finish(phone.front())

    player = threading.Thread(target=close, daemon=True)
    player.start()
    return player


@pytest.fixture
def no_window(monkeypatch):
    """The window's calls made to record what it would show (no display needed)."""
    shown = []
    monkeypatch.setattr(guide, "has_display", lambda: True)
    monkeypatch.setattr(guide, "open_window", lambda: None)
    monkeypatch.setattr(guide, "show", shown.append)
    monkeypatch.setattr(guide.cv2, "setMouseCallback", lambda *a: None)
    monkeypatch.setattr(guide.cv2, "waitKey", lambda ms: -1)
    monkeypatch.setattr(guide.cv2, "getWindowProperty", lambda *a: 1.0)
    monkeypatch.setattr(guide.cv2, "destroyAllWindows", lambda: None)
    return shown


def test_the_guide_opens_at_once_over_an_ad_and_plans_when_the_board_comes(harness, no_window, monkeypatch):
    phone, loop, said = guide_loop(harness, ad_seconds=600)
    captures_at_show = []
    monkeypatch.setattr(guide, "show", lambda image: captures_at_show.append(loop.link.captures))
    # q once the plan is made (or after a minute): the wait for the board has no time limit of its own
    monkeypatch.setattr(guide.cv2, "waitKey", lambda ms: ord("q") if loop.plan is not None else -1)
    closed = closes_the_ad(phone, said)
    lines = []
    assert guide.run_window(loop, poll=0.1, say=lines.append, max_seconds=60) == 0  # (1 s wait_unknown: no end)
    closed.join(timeout=60)
    assert captures_at_show[0] == 0  # the window showed before the phone was first looked at
    assert said.count("an ad is showing: close it on the phone and I will go on") == 1
    assert lines[-1].startswith("guide closed at step 1/")  # the plan made once the board showed
    assert phone.tap_log == [] and loop.link.keys == 0


def test_without_a_window_the_guide_says_what_is_in_front_once_then_the_steps(harness, monkeypatch):
    phone, loop, said = guide_loop(harness, ad_seconds=600)
    closed = closes_the_ad(phone, said)
    lines = []

    def say(line):  # Ctrl-C once the first step is said
        lines.append(line)
        if line.startswith("Step 1/"):
            raise KeyboardInterrupt

    assert guide.run_text(loop, poll=0.1, say=say, max_seconds=60) == 0
    closed.join(timeout=60)
    assert said.count("an ad is showing: close it on the phone and I will go on") == 1
    assert lines[-1].startswith("guide closed at step 1/") and len(lines) == 2


def test_the_window_shows_the_newest_video_frame_with_the_move_over_it(harness):
    phone, loop, said = guide_loop(harness)
    loop.look_until_known()
    loop.replan(count=False)
    mirror = guide.Mirror(loop)
    mirror.view = guide.make_view(loop, False, mirror.keys)
    x, y, w, h = mirror.view.place
    plain = mirror.next_picture()  # no video: the screenshot read, with the move
    assert plain is not None and mirror.next_picture() is None  # (nothing new: not drawn again)
    assert (plain[y:y + h, x:x + w] == guide.overlay.HIGHLIGHT).all(axis=2).any()
    loop.link.device.channel.rgb = np.full((2400, 1080, 3), (200, 0, 0), np.uint8)  # a red frame
    live = mirror.next_picture()
    picture = live[y:y + h, x:x + w]
    red = (picture == (200, 0, 0)).all(axis=2)
    assert red.mean() > 0.9 and (picture[~red] == guide.overlay.HIGHLIGHT).all(axis=1).any()
    assert mirror.next_picture() is None  # the same frame
    loop.link.device.channel.at = 2.0
    assert mirror.next_picture() is not None and mirror.live == 2

    def ended():
        raise ChannelUnavailable("the scrcpy server stopped: its video stream ended")

    loop.link.device.channel.frame = ended  # the phone went: the last read is shown, no traceback
    after = mirror.next_picture()
    assert after is not None and (after[y:y + h, x:x + w] == guide.overlay.HIGHLIGHT).all(axis=2).any()
    assert mirror.live == 2


@pytest.mark.parametrize("on", [True, False])
def test_a_click_on_the_picture_taps_the_phone_there_only_when_asked(harness, on):
    phone, loop, said = guide_loop(harness)
    loop.look_until_known()
    loop.replan(count=False)
    mirror = guide.Mirror(loop, tap_on_click=on)
    mirror.view = guide.make_view(loop, False, mirror.keys)
    assert ("click: tap the phone there" in mirror.view.lines[2]) == on
    x, y, w, h = mirror.view.place
    mirror.click(guide.cv2.EVENT_LBUTTONDOWN, x + w // 2, y + h // 4, 0, None)
    mirror.click(guide.cv2.EVENT_LBUTTONDOWN, 2, 2, 0, None)  # the header: no tap
    mirror.click(guide.cv2.EVENT_MOUSEMOVE, x + 5, y + 5, 0, None)
    if not on:
        assert mirror.clicks == []
        return
    [(sx, sy)] = mirror.clicks
    assert abs(sx - 540) <= 1080 / w and abs(sy - 600) <= 2400 / h  # the screenshot's point under it
    mirror.paused = True  # (the reader thread taps, then stops)
    reader = threading.Thread(target=mirror.read_forever)
    reader.start()
    while mirror.clicks and not mirror.stop.is_set():
        pass
    mirror.stop.set()
    reader.join()
    assert [(t.x, t.y) for t in phone.tap_log] == [(sx, sy)]


def test_the_window_shows_at_once_and_the_phone_is_connected_to_behind_it(no_window):
    from solver.errors import TapsolveError

    shown_when_connecting = []

    def connect_to_the_phone():  # (a phone that takes seconds, then is not there)
        shown_when_connecting.append(len(no_window))
        raise TapsolveError("no phone is connected")

    with pytest.raises(TapsolveError, match="no phone is connected"):
        guide.run_window(connect_to_the_phone, max_seconds=30)
    assert shown_when_connecting == [1]  # the window's first frame came before the phone was asked
    assert guide.make_view(None, False, guide.KEYS).lines[0] == "connecting to the phone..."
