"""Whole games on the presets that do what real devices do beyond their formats (issue 37): a flip
phone with a cover display (screencap warns and takes the cover untold), a landscape-natural
tablet turned for the portrait game (`wm size` is the natural size), a 1440p phone whose encoder
refuses the full size (scrcpy's server retries smaller), and an Android 4.4 phone (no `exec:`,
the shell's PTY turns "\\n" into "\\r\\n"). Each plays a stage with no wrong tap."""

import json

import pytest

from assistant import autoplay
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from assistant.phone import device as devices
from assistant.phone.front import GAME, ask
from helpers import tapsolve
from phonesim import apps
from phonesim.phone import PRESETS, Phone
from phonesim.shell import COVER_DISPLAY_ID, MAIN_DISPLAY_ID, MULTIPLE_DISPLAYS_WARNING


def play(harness, preset: str, channel: str | None = None):
    p = PRESETS[preset]
    phone = Phone(p, apps.create("numbermatch", p, seed=3))
    vp = harness.add(phone)
    said = []
    link = Link(devices.connect(vp.serial, client=harness.client, channel=channel), say=said.append)
    loop = Loop(Session(link), game="numbermatch", objective="fast", budget=1.0, say=said.append)
    try:
        assert autoplay.play(loop, say=said.append) == 0, said[-3:]
        assert phone.app.truth()["screen"] == "stage_complete" and phone.wrong_taps == 0
        return phone, link.device
    finally:
        link.device.close()
        vp.stop()


@pytest.mark.parametrize("preset, channel", [
    ("flip-1080x2640", None), ("tablet-landscape-1080x1920", None), ("tablet-landscape-1080x1920", "shell"),
    ("1440x3200-encoder-1920", "scrcpy"), ("android4.4-1080x1920", None), ("android4.4-1080x1920", "shell"),
])
def test_a_stage_plays_without_a_wrong_tap(harness, preset, channel):
    phone, device = play(harness, preset, channel)
    if channel == "scrcpy":
        assert device.channel.name == "scrcpy" and device.screen.frames > 0  # touches by the video's size
    if preset == "flip-1080x2640":  # the game's display, not the cover's
        assert device.screen.display.capture_id == MAIN_DISPLAY_ID and device.input_command == "input -d 0"
    if preset == "tablet-landscape-1080x1920":
        assert device.input_size() == (1080, 1920)  # `wm size` says 1920x1080, turned a quarter
    if preset == "android4.4-1080x1920":
        assert device.sdk == 19


def test_the_flips_cover_display_never_passes_for_the_games(harness):
    """Untold, screencap warns and takes the first physical display, the cover (screencap.cpp);
    `dumpsys window displays` prints the cover's section, its launcher focused, first."""
    p = PRESETS["flip-1080x2640"]
    phone = Phone(p, apps.create("numbermatch", p, seed=3))
    vp = harness.add(phone)
    device = devices.connect(vp.serial, client=harness.client)
    try:
        untold = device.run("screencap -p", "exec")
        assert untold.startswith(MULTIPLE_DISPLAYS_WARNING.encode())
        surface = device.shell("dumpsys SurfaceFlinger --display-id")
        assert surface.index(COVER_DISPLAY_ID) < surface.index(MAIN_DISPLAY_ID)
        assert device.capture().shape == (2640, 1080, 3)
        assert ask(device, (phone.app.package,)).kind == GAME
    finally:
        device.close()
        vp.stop()


@pytest.mark.parametrize("preset", ["flip-1080x2640", "tablet-landscape-1080x1920", "1440x3200-encoder-1920",
                                    "android4.4-1080x1920"])
def test_bench_play_real_selects_the_preset_and_makes_no_wrong_tap(preset):
    channel = ["--channel", "scrcpy"] if PRESETS[preset].encoder_max else []  # (only a video has an encoder)
    run = tapsolve("bench", "play", "--preset", preset, "--realism", "real", "--time-scale", "0.1",
                   "--max-moves", "6", "--json", *channel, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    figures = json.loads(run.stdout.splitlines()[-1])
    assert figures["wrong_taps"] == 0 and figures["moves"] >= 6
