"""The channels taps go by (assistant.phone.channel): the kept-open shell against phonesim, the
choosing order and the fall-backs, captures on a video channel, `devices -v`, and phonesim's
Android versions."""

import json
import os
import sys
import time

import cv2
import numpy as np
import pytest

import assistant.phone as phone_package
from helpers import standin_phone, tapsolve

from assistant import autoplay
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from assistant.phone import device as devices
from assistant.phone import choice
from assistant.phone.channel import Channel, ChannelLost, ChannelUnavailable, ShellChannel
from assistant.phone.scrcpy import ScrcpyChannel
from assistant.phone.scrcpy.video import Video
from assistant.phone.choice import ChannelRefused
from assistant.phone.server import PhoneNotReady
from calibration import store
from phonesim import apps
from phonesim.phone import CMD_INPUT_S, INPUT_JVM_S, PRESETS, REALISM, SHELL_CALL_S, Faults, Phone


def taps(vp):
    return [(t.x, t.y) for t in vp.phone.tap_log]


def close_streams(vp):
    """The phone drops every open adb stream (the kept-open shell among them), as a phone whose
    shell was killed does; the adb server closes our end."""
    for connection in list(vp.server._connections):
        for stream in list(connection.streams.values()):
            stream.close()


# -- the kept-open shell against phonesim ----------------------------------------------------

def test_shell_channel_taps_land_in_order_over_one_stream(harness, monkeypatch):
    vp = harness.add(standin_phone())
    link = devices.connect(vp.serial, client=harness.client, channel="shell")
    assert isinstance(link.channel, ShellChannel)
    link.input_size()  # (asked once, by a shell call of its own)
    opened = []
    monkeypatch.setattr(link, "open", lambda *a, **k: opened.append(a) or pytest.fail("a stream per tap"))
    link.taps([(10, 500), (20, 600), (30, 700)])
    link.tap(40, 800)
    link.swipe(100, 900, 100, 400, 50)
    link.key("KEYCODE_VOLUME_UP")
    assert taps(vp) == [(10, 500), (20, 600), (30, 700), (40, 800)]
    assert opened == []
    link.close()


def test_shell_channel_sees_the_security_exception_and_stays_in_step(harness):
    vp = harness.add(standin_phone(refuse_input=True))
    link = devices.connect(vp.serial, client=harness.client, channel="shell")
    assert link.channel.name == "shell"
    with pytest.raises(PhoneNotReady, match="refuses taps.*USB debugging \\(security settings\\)"):
        link.taps([(10, 500), (20, 600)])
    vp.phone.faults.refuse_input = False
    link.tap(30, 700)  # the next batch's marker is its own: the refusal's output was all read
    assert taps(vp) == [(30, 700)]
    link.close()


def test_a_dropped_shell_is_started_again_with_one_line(harness, capsys):
    """The channel chosen at connect is started again once when it breaks (a phone that
    restarted under it killed it); one that breaks again before a send went through gives way
    to the next (test_a_channel_breaking_mid_play_gives_way_to_the_next)."""
    vp = harness.add(standin_phone())
    link = devices.connect(vp.serial, client=harness.client, channel="shell")
    link.tap(10, 500)
    capsys.readouterr()
    close_streams(vp)
    time.sleep(0.3)  # (the adb server passes the close on)
    link.taps([(20, 600), (30, 700)])  # never sent on the dropped shell: sent again on a new one
    link.tap(40, 800)
    err = capsys.readouterr().err  # (the chosen channel is started again once: a phone restarted under it)
    assert link.channel.name == "shell"
    assert "Traceback" not in err
    assert taps(vp) == [(10, 500), (20, 600), (30, 700), (40, 800)]


def test_tapsolve_devices_verbose_says_each_phones_channel(harness):
    one, two = harness.add(standin_phone()), harness.add(standin_phone("720x1600"))
    auto = {k: v for k, v in os.environ.items() if k != "TAPSOLVE_CHANNEL"}  # (the suite's is exec)
    result = tapsolve("devices", "-v", port=harness.adb_port, env=auto)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for vp in (one, two):
        said = [line for line in lines if line.startswith(f"{vp.serial}: channel ")]
        assert len(said) == 1 and "channel scrcpy: scrcpy server 3.3.4" in said[0]
    assert "Traceback" not in result.stderr
    one.stop()
    two.stop()


def test_play_verbose_says_the_channel_and_a_forced_one_that_cannot_start_is_one_line(harness):
    vp = harness.add(standin_phone())
    said = []
    link = devices.connect(vp.serial, client=harness.client, log=said.append, channel="exec")
    assert link.channel.name == "exec"
    assert any(line.startswith(f"phone {vp.serial}: channel exec") and "--channel" in line for line in said)
    link.close()
    vp.stop()
    p = PRESETS["1080x2400"]
    old = harness.add(Phone(p, apps.create("numbermatch", p), android="4.4"))  # no scrcpy server starts there
    result = tapsolve("play", "--serial", old.serial, "--channel", "scrcpy", port=harness.adb_port)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    # (after the line that says whom it connects to; the run saw no screen: nothing recorded)
    assert result.stderr.strip().splitlines()[-1].startswith("tapsolve: error: the scrcpy channel cannot be used on ")
    assert result.stderr.count("tapsolve: error") == 1 and "recorded" not in result.stderr
    old.stop()


# -- choosing, with fakes ------------------------------------------------------------------------

class Fake(Channel):
    """A channel that records what it is sent, or fails as asked."""

    def __init__(self, device, name, fail_with=None):
        super().__init__(device, f"fake {name}")
        self.name, self.fail_with, self.sent = name, fail_with, []

    def taps(self, points):
        if self.fail_with is not None:
            raise self.fail_with
        self.sent.append(points)


class FakeDevice(devices.Device):
    def __init__(self):
        self.serial, self.channel = "fake", Channel(self, "none")
        self._fallbacks, self.touched_at = [], float("-inf")
        self.screen = type("S", (), {"size": None})()

    def input_size(self):
        return (100, 200)


def opening(made, unavailable=()):
    def open_channel(device, name):
        if name in unavailable:
            raise ChannelUnavailable(unavailable[name])
        made.append(Fake(device, name))
        return made[-1]
    return open_channel


def test_channels_are_tried_fastest_first_each_passed_over_said_once(monkeypatch):
    made, said = [], []
    monkeypatch.setattr(choice, "open_channel", opening(made, {"scrcpy": "the phone runs Android 4.4"}))
    channel, left, why = choice.choose(FakeDevice(), note=said.append)
    assert channel.name == "shell" and left == ["exec"]
    assert said == ["fake: no scrcpy channel (the phone runs Android 4.4); trying shell"]
    assert why.startswith("channel shell: fake shell") and "scrcpy: the phone runs Android 4.4" in why
    made.clear()
    channel, left, why = choice.choose(FakeDevice(), "exec", note=said.append)
    assert channel.name == "exec" and left == [] and "--channel" in why
    with pytest.raises(ChannelRefused, match="^the scrcpy channel cannot be used on fake: the phone runs Android 4.4"):
        choice.choose(FakeDevice(), "scrcpy", note=said.append)


def test_without_the_scrcpy_client_shell_is_chosen_without_a_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "assistant.phone.scrcpy", None)  # (an import of it fails)
    monkeypatch.delattr(phone_package, "scrcpy", raising=False)  # (imported by an earlier test)
    with pytest.raises(ChannelUnavailable) as caught:
        choice.open_channel(FakeDevice(), "scrcpy")
    assert caught.value.quiet
    made, said = [], []
    real_open = choice.open_channel
    monkeypatch.setattr(choice, "open_channel",
                        lambda d, name: real_open(d, name) if name == "scrcpy" else opening(made)(d, name))
    channel, _, why = choice.choose(FakeDevice(), note=said.append)
    assert channel.name == "shell" and said == [] and "no scrcpy client" in why


@pytest.mark.parametrize("sent, resent", [(False, True), (True, False)])
def test_a_channel_breaking_mid_play_gives_way_to_the_next(monkeypatch, capsys, sent, resent):
    device = FakeDevice()
    device.channel = Fake(device, "scrcpy", ChannelLost("socket closed", sent=sent))
    device._fallbacks = ["shell", "exec"]
    made = []
    monkeypatch.setattr(choice, "open_channel", opening(made))
    device.taps([(10, 20)])
    assert device.channel.name == "shell" and device._fallbacks == ["exec"]
    assert made[0].sent == ([[(10, 20)]] if resent else [])
    err = capsys.readouterr().err
    assert err == "tapsolve: the scrcpy channel to fake broke (socket closed): going on with shell\n"


# -- captures on a video channel -------------------------------------------------------------------

class FakeStream(Video):
    """phonesim's screen as a video stream: each frame as the phone shows it when asked,
    JPEG-compressed (lossy, as a video frame is), RGB, arriving now."""

    def __init__(self, phone, spoil=0):
        super().__init__(None, None)
        self.phone, self.spoil, self.given, self.spoiled = phone, spoil, 0, 0

    def frame(self):
        # (JPEG keeps the channels it is given: the phone's RGB goes in and comes out as it is)
        rgb = cv2.imdecode(cv2.imencode(".jpg", self.phone.screen(), [cv2.IMWRITE_JPEG_QUALITY, 85])[1],
                           cv2.IMREAD_COLOR)
        if self.spoil:  # a frame the decoder smeared: nothing in it can be read for sure
            self.spoil -= 1
            self.spoiled += 1
            rgb = cv2.GaussianBlur(rgb, (41, 41), 0)
        self.given += 1
        return rgb, time.monotonic()

    def still_since(self, shown):
        return None  # (its frames are the screen as asked, not a stream: no run of them told)

    def next_frame(self, shown_from, after, until, quiet_from=None, quiet_after=float("-inf"), repeats_only=True):
        # (never quiet: each frame asked for is new)
        while time.monotonic() <= until:  # (looked at again: the real stream wakes its readers)
            got = self.frame()
            if got[1] >= shown_from and got[1] > after:
                return got
            time.sleep(0.005)
        return None


class FakeVideo(ScrcpyChannel):
    """The scrcpy channel's captures from a FakeStream; its touches by the kept-open shell."""

    touch_margin, acts_before_returning = ShellChannel.touch_margin, ShellChannel.acts_before_returning

    def __init__(self, device, phone, spoil=0):
        Channel.__init__(self, device, "phonesim's screen as video, taps by the kept-open shell")
        self.shell, self.video, self.control, self.server = ShellChannel(device), FakeStream(phone, spoil), None, None
        self.taken = float("-inf")
        self.taps, self.swipe, self.key = self.shell.taps, self.shell.swipe, self.shell.key

    def close(self):
        self.shell.close()


def test_the_scrcpy_channel_takes_a_video_frame_only_when_newer_than_the_last_touch(harness):
    vp = harness.add(standin_phone())
    link = devices.connect(vp.serial, client=harness.client)
    link.channel = channel = FakeVideo(link, vp.phone)
    screen, video = link.screen, channel.video
    first = link.capture()  # lossless unless asked otherwise: the screencap
    assert screen.frames == 0 and video.given == 0
    assert np.array_equal(first, vp.phone.screen())
    image = link.capture(lossless=False)
    assert screen.frames == 1 and image.shape == first.shape and link.shown_at is not None
    assert cv2.absdiff(image, first).max() > 0 and cv2.absdiff(image, first).mean() < 2  # RGB, lossy
    video.frame = lambda: (np.zeros((2400, 1080, 3), np.uint8), link.touched_at - 1)  # older than the touch
    link.tap(10, 500)
    again = link.capture(lossless=False)  # waited for a newer frame, then took a screencap
    assert screen.frames == 1 and np.array_equal(again, vp.phone.screen()) and link.shown_at is None
    link.close()


def test_the_channel_captures_as_the_link_asks_never_the_screen_on_its_own(harness):
    """Capture is the channel's, as touching is: the link passes the quality the session chose
    (Link.quality) down to the channel, which decides between its video and a screencap."""
    vp = harness.add(standin_phone())
    device = devices.connect(vp.serial, client=harness.client, channel="exec")
    asked = []

    class Counting(Channel):
        def capture(self, lossless, not_before, still=False):
            asked.append(lossless)
            return super().capture(lossless, not_before, still)

    device.channel = Counting(device)
    link = Link(device, say=[].append)
    link.capture()  # (a settled capture: two frames, or more)
    link.quality(lossless=False)
    link.capture()
    assert asked and asked[0] is True and asked[-1] is False and set(asked) == {True, False}
    assert not link.from_video and device.screen.frames == 0  # no video on exec: every one a screencap
    device.close()


def play_on_video(harness, spoil=0):
    p = PRESETS["1080x2400"]
    phone = Phone(p, apps.create("numbermatch", p, seed=0, size=10), Faults(seed=0), realism=REALISM["fast"])
    vp = harness.add(phone)
    said = []
    link = Link(devices.connect(vp.serial, client=harness.client), say=said.append)
    link.device.channel = FakeVideo(link.device, phone, spoil)
    video = link.device.channel.video
    loop = Loop(Session(link, keep=True), game="numbermatch", objective="fast", budget=1.0, say=said.append,
                wait_unknown=5)
    phone.clear_log()
    return vp, loop, video, said


def test_play_on_video_frames_settles_on_them_without_a_wrong_tap(harness):
    vp, loop, video, said = play_on_video(harness)
    assert autoplay.play(loop, say=said.append) == 0
    assert loop.tally.stages == 1 and vp.wrong_taps == 0 and loop.tally.replans == 0
    screen = loop.link.device.screen
    assert screen.frames > loop.tally.moves  # the moves were judged on video frames, settled
    captures = len(vp.phone.charged["capture"])  # the phone's screencaps
    assert captures < screen.frames
    vp.stop()


def test_an_unsure_video_frame_is_never_judged_a_screencap_reads_again(harness, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # a phone met for the first time
    vp, loop, video, said = play_on_video(harness)
    loop.start()  # the first read: a lossless screencap builds the profile
    # (no video frame read: the video only showed the screen still around the one screencap)
    assert loop.link.device.screen.frames == 0 and len(vp.phone.charged["capture"]) == 1
    assert not loop.link.lossless
    video.spoil = 50  # every video frame from now on is smeared
    before = len(vp.phone.charged["capture"])
    reading = loop.look()
    assert video.spoiled > 0  # a smeared frame was looked at ...
    assert reading.sure and reading.screen == "board"  # ... and read again by screencap
    assert len(vp.phone.charged["capture"]) > before and not loop.link.from_video
    assert loop.link.lossless is False
    video.spoil = 0
    assert autoplay.play(loop, say=said.append) == 0
    assert vp.wrong_taps == 0 and loop.tally.replans == 0
    vp.stop()


def met_again(harness, vp, said, spoil=0):
    """A new connection to a phone already read (its profile stored): its own Link and Loop."""
    device = devices.connect(vp.serial, client=harness.client)
    device.channel = FakeVideo(device, vp.phone, spoil)
    video = device.channel.video
    loop = Loop(Session(Link(device, say=said.append), keep=True), game="numbermatch", objective="fast",
                budget=1.0, say=said.append)
    return loop, video


def test_a_phone_with_a_stored_profile_starts_from_a_video_frame(harness, tmp_path, monkeypatch):
    """Only the read that builds a phone's profile needs a lossless screencap: once it is stored,
    the next connection's first read is a video frame, read with it for sure."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, loop, video, said = play_on_video(harness)
    loop.start()
    # built on a screencap, stored (the video only showed the screen still around it)
    assert loop.link.device.screen.frames == 0 and len(vp.phone.charged["capture"]) == 1
    loop.link.device.close()
    again, video = met_again(harness, vp, said)
    before = len(vp.phone.charged["capture"])
    again.start()
    assert video.given > 0 and len(vp.phone.charged["capture"]) == before  # no screencap at all
    assert again.reading.sure and again.link.from_video
    assert autoplay.play(again, say=said.append) == 0 and vp.wrong_taps == 0
    vp.stop()


def test_a_first_video_frame_the_stored_profile_does_not_read_for_sure_is_read_again_by_screencap(
        harness, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp, loop, video, said = play_on_video(harness)
    loop.start()
    loop.link.device.close()
    again, video = met_again(harness, vp, said, spoil=50)
    before = len(vp.phone.charged["capture"])
    again.start()
    assert video.spoiled > 0 and len(vp.phone.charged["capture"]) > before  # smeared: a screencap read it
    assert again.reading.sure and not again.link.from_video
    vp.stop()


# -- phonesim's Android versions ------------------------------------------------------------------

@pytest.mark.parametrize("android, release, sdk, one_input", [("14", "14", "34", CMD_INPUT_S),
                                                              ("11", "11", "30", INPUT_JVM_S),
                                                              ("4.4", "4.4", "19", INPUT_JVM_S)])
def test_phonesim_android_version_sets_getprop_and_what_input_costs(android, release, sdk, one_input):
    from phonesim.shell import Shell

    p = PRESETS["1080x2400"]
    phone = Phone(p, apps.create("numbermatch", p), realism=REALISM["real"].scaled(1e-4), android=android)
    shell, out = Shell(phone), []
    shell.run("getprop ro.build.version.release; getprop ro.build.version.sdk", out.append)
    assert b"".join(out).decode().split() == [release, sdk]
    shell.run("input tap 1 1; input tap 2 2", out.append)  # one-shot: the call's start, then each input
    shell.run("input tap 3 3", out.append, kept_open=True)  # on a kept-open shell: the input alone
    call, first, second, kept = [c / 1e-4 for c in phone.charged["tap"]]
    assert SHELL_CALL_S[0] <= call <= SHELL_CALL_S[1]
    assert all(one_input[0] <= c <= one_input[1] for c in (first, second, kept))


def test_tapsolve_phone_takes_the_android_version():
    from assistant.cli import build_parser
    from phonesim.serve import build_phone

    phone = build_phone(build_parser().parse_args(["phone", "--android", "11", "--refuse-input"]))
    assert phone.properties()["ro.build.version.sdk"] == "30" and phone.faults.refuse_input
    result = tapsolve("phone", "--android", "9")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "--android" in result.stderr


@pytest.mark.phone
def test_a_phone_where_the_server_cannot_start_falls_back_in_one_line_and_plays_on():
    """auto, as a user runs it: on an Android 4.4 phone the scrcpy server cannot start; play says
    so once and plays the game by the kept-open shell."""
    auto = {k: v for k, v in os.environ.items() if k != "TAPSOLVE_CHANNEL"}
    result = tapsolve("demo", "--no-window", "--android", "4.4", "--size", "12", "--json", env=auto, timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["cleared_stages"] == 1 and summary["wrong_taps"] == 0
    passed = [line for line in result.stderr.splitlines() if "no scrcpy channel" in line]
    assert len(passed) == 1 and "Android 4.4" in passed[0] and "trying shell" in passed[0]
    assert "Traceback" not in result.stderr


@pytest.mark.phone
def test_a_phone_refusing_injection_on_every_channel_is_the_miui_line():
    auto = {k: v for k, v in os.environ.items() if k != "TAPSOLVE_CHANNEL"}
    result = tapsolve("demo", "--no-window", "--refuse-input", "--size", "12", env=auto, timeout=300)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "USB debugging (security settings)" in result.stderr.splitlines()[-1]
