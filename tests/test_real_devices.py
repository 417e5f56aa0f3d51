"""What real devices print, read by front.py and the screenshot decoders: every sample in
tests/devices/ is quoted from a public repository's code or tests (tests/devices/SOURCES.md names
each one's repository and path); each must read as the table below says, and a screenshot must
decode whatever text a device wrote ahead of it (issue 37)."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from assistant.phone import screen
from assistant.phone.front import APP, LOCKED, OFF, UNKNOWN, Front, classify

DEVICES = Path(__file__).parent / "devices"
CONTACTS = "com.example.android.contactmanager"

# sample -> what it shows (kind, package, activity), as the sample's own source says it does
DUMPSYS = {
    "gapid-policy-lockscreen-on.txt": Front(LOCKED, "", ""),
    "gapid-policy-lockscreen-off.txt": Front(UNKNOWN, "", ""),
    "gapid-policy-screen-off.txt": Front(OFF),
    "gapid-policy-screen-on.txt": Front(UNKNOWN, "", ""),
    "appium-keyguard-delegate-screen-off.txt": Front(OFF),
    "appium-keyguard-delegate-screen-on.txt": Front(UNKNOWN, "", ""),
    "appium-showing-lockscreen.txt": Front(LOCKED, "", ""),
    "appium-dreaming-lockscreen.txt": Front(LOCKED, "", ""),
    "appium-no-lockscreen.txt": Front(UNKNOWN, "", ""),
    "appium-keyguard-monitor-locked.txt": Front(LOCKED, "", ""),
    "appium-keyguard-monitor-shown-not-restricted.txt": Front(UNKNOWN, "", ""),
    "appium-samsung-dozing.txt": Front(OFF),
    "appium-android41-window.txt": Front(APP, "com.android.settings", "com.android.settings.SubSettings"),
    "appium-record-isshadow.txt": Front(APP, CONTACTS, CONTACTS + ".ContactManager"),
    "appium-window-paused.txt": Front(APP, CONTACTS, CONTACTS + ".ContactManager"),
    "adbutils-focus.txt": Front(APP, "com.incall.apps.launcher", "com.incall.apps.launcher.Launcher"),
}
SCREENCAP = sorted(path.name for path in (DEVICES / "screencap").glob("*.txt"))


def test_every_sample_is_named_in_the_sources_and_read_here():
    sources = (DEVICES / "SOURCES.md").read_text()
    on_disk = {p.name for p in (DEVICES / "dumpsys").glob("*.txt")}
    assert on_disk == set(DUMPSYS)
    assert len(SCREENCAP) == 6
    for name in on_disk | set(SCREENCAP):
        assert f"`{name}`" in sources, f"{name} has no source named in SOURCES.md"


@pytest.mark.parametrize("name", sorted(DUMPSYS))
def test_real_dumpsys_reads_as_its_source_says(name):
    assert classify((DEVICES / "dumpsys" / name).read_text(), ()) == DUMPSYS[name]


def test_a_dozing_samsung_over_the_game_is_off_not_the_game():
    game = "  mCurrentFocus=Window{9d3c2e1 u0 com.example.game/com.unity3d.player.UnityPlayerActivity}\n"
    text = game + (DEVICES / "dumpsys" / "appium-samsung-dozing.txt").read_text()
    assert classify(text, ("com.example.game",)).kind == OFF


def picture():
    rng = np.random.default_rng(3)
    return rng.integers(0, 256, (40, 30, 3), np.uint8)


def png(rgb):
    return cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGRA))[1].tobytes()


def raw(rgb, colour_space=True):
    import struct

    h, w = rgb.shape[:2]
    rgba = cv2.cvtColor(rgb, cv2.COLOR_RGB2RGBA)
    head = struct.pack("<4I", w, h, 1, 1) if colour_space else struct.pack("<3I", w, h, 1)
    return head + rgba.tobytes()


@pytest.mark.parametrize("name", SCREENCAP)
def test_a_screenshot_decodes_after_what_a_real_device_writes_ahead_of_it(name):
    text = (DEVICES / "screencap" / name).read_bytes()
    rgb = picture()
    assert np.array_equal(screen.decode_png(text + png(rgb)), rgb)
    for colour_space in (True, False):  # Android 9+, and before
        assert np.array_equal(screen.decode_raw(text + raw(rgb, colour_space)), rgb)


def test_text_alone_or_an_image_cut_short_is_still_no_picture():
    rgb = picture()
    warning = (DEVICES / "screencap" / "alas-multiple-displays.txt").read_bytes()
    for bad in (warning, warning + png(rgb)[:-40], warning + raw(rgb)[:-1]):
        with pytest.raises(ValueError):
            screen.decode_png(bad) if bad[len(warning):len(warning) + 1] == b"\x89" else screen.decode_raw(bad)
    with pytest.raises(ValueError, match="not a PNG"):
        screen.decode_png(warning)
