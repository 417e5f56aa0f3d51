"""phonesim's shell commands, run directly (no adb): the answers Android gives, in order."""

import json
import struct

import cv2
import numpy as np
import pytest

from phonesim.phone import PRESETS, Faults, Phone
from phonesim.shell import Shell
from standin_app import COLOURS, StandInApp


@pytest.fixture
def phone():
    preset = PRESETS["720x1600"]
    return Phone(preset, StandInApp(preset))


def run(phone, line):
    out = bytearray()
    status = Shell(phone).run(line, out.extend)
    return status, bytes(out)


def test_taps_in_one_line_run_in_order(phone):
    status, out = run(phone, "input tap 10 20; input tap 30.6 40 && input tap 50 60")
    assert status == 0 and out == b""
    assert phone.app.taps == [(10, 20), (31, 40), (50, 60)]


def test_and_stops_after_a_failure_and_or_runs_after_one(phone):
    status, out = run(phone, "nosuch && input tap 1 1; false || echo rescued; echo $?")
    assert out == b"/system/bin/sh: nosuch: inaccessible or not found\nrescued\n0\n"
    assert phone.app.taps == []
    assert run(phone, "nosuch; echo $?")[1].endswith(b"\n127\n")


def test_swipe_keyevent_and_sources(phone):
    run(phone, "input swipe 1 2 3 4 250; input touchscreen swipe 5 6 7 8; input keyevent 4; "
               "input keyevent 66; input -d 0 tap 9 9")
    assert phone.app.swipes == [(1, 2, 3, 4, 250), (5, 6, 7, 8, 300)]
    assert phone.app.keys == ["KEYCODE_BACK", "KEYCODE_ENTER"]  # (HOME is the phone's: the launcher)
    assert phone.app.taps == [(9, 9)]
    status, out = run(phone, "input tap 1")
    assert status == 1 and b"input tap 1" in out


def test_sizes_props_and_display(phone):
    assert run(phone, "wm size")[1] == b"Physical size: 720x1600\n"
    assert run(phone, "wm density")[1] == b"Physical density: 320\n"
    assert run(phone, "getprop ro.product.model")[1] == b"Galaxy A12\n"
    assert run(phone, "getprop no.such.key")[1] == b"\n"
    everything = run(phone, "getprop")[1].decode()
    assert "[ro.product.device]: [a12]\n" in everything and "[ro.sf.lcd_density]: [320]\n" in everything
    display = run(phone, "dumpsys display")[1].decode()
    assert "orientation=0" in display and "720 x 1600" in display
    assert run(phone, "echo -n a b")[1] == b"a b" and run(phone, "echo 'a  b'")[1] == b"a  b\n"


def test_unknown_commands_and_syntax(phone):
    assert run(phone, "ls /sdcard") == (127, b"/system/bin/sh: ls: inaccessible or not found\n")
    assert run(phone, "__init__ x")[0] == 127
    assert run(phone, "echo 'open")[0] == 1
    assert run(phone, "echo a | cat")[0] == 1


def test_screencap_png_is_the_screen(phone):
    status, out = run(phone, "screencap -p")
    assert status == 0 and out[:8] == b"\x89PNG\r\n\x1a\n"
    image = cv2.imdecode(np.frombuffer(out, np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(cv2.cvtColor(image, cv2.COLOR_BGR2RGB), phone.screen())


def test_screencap_raw_has_header_then_rgba(phone):
    run(phone, "input tap 1 1")
    status, out = run(phone, "screencap")
    width, height, pixel_format, colour_space = struct.unpack_from("<4I", out)
    assert (width, height, pixel_format) == (720, 1600, 1) and len(out) == 16 + 720 * 1600 * 4
    pixels = np.frombuffer(out, np.uint8, offset=16).reshape(1600, 720, 4)
    assert tuple(pixels[800, 360]) == COLOURS[1] + (255,)
    assert np.array_equal(pixels[..., :3], phone.screen())


def test_secure_window_is_black_and_truth_is_json():
    preset = PRESETS["720x1600"]
    phone = Phone(preset, StandInApp(preset), Faults(secure=True))
    status, out = run(phone, "screencap")
    pixels = np.frombuffer(out, np.uint8, offset=16).reshape(1600, 720, 4)
    assert status == 0 and not pixels[..., :3].any() and (pixels[..., 3] == 255).all()
    run(phone, "input tap 3 4")
    assert json.loads(run(phone, "phonesim truth")[1]) == {"game": "standin", "taps": [[3, 4]]}


def test_dropped_taps_are_counted():
    preset = PRESETS["720x1600"]
    phone = Phone(preset, StandInApp(preset), Faults(drop_taps=1.0))
    run(phone, "input tap 1 1; input tap 2 2")
    assert phone.app.taps == [] and phone.taps_dropped == 2


def test_bad_numbers_are_answered_as_input_does(phone):
    """`input tap 1e999 nan` raised inside phonesim. A phone's `input` (InputShellCommand) parses
    coordinates with Java's Float.parseFloat: "nan" is no number there (the command fails with
    the exception printed, status 255, nothing tapped), 1e999 is Infinity (a tap off the screen),
    "NaN" is a tap nowhere."""
    status, out = run(phone, "input tap 1e999 nan; echo $?")
    assert out == (b"\nException occurred while executing 'tap':\njava.lang.IllegalArgumentException: "
                   b"Error: Invalid arguments for command: tap\n\tat com.android.server.input.InputShellCommand"
                   b".onCommand(InputShellCommand.java)\n255\n")
    assert phone.app.taps == []
    for bad in ("input tap 1_0 5", "input tap inf 5", "input swipe 1 2 3 4 x", "input swipe 1 2 3 4 5.5",
                "input swipe 1 2 3 4 99999999999"):
        status, out = run(phone, bad)
        assert status == 255 and b"Invalid arguments for command" in out, bad
    assert phone.app.taps == [] and phone.app.swipes == []
    assert run(phone, "input tap 1e999 -Infinity; input tap NaN 2; input tap 0x1p3 5f; input swipe 1 2 3 4 -7") == (0, b"")
    assert phone.app.taps == [(2 ** 31 - 1, -(2 ** 31)), (-1, 2), (8, 5)]
    assert phone.app.swipes == [(1, 2, 3, 4, 300)]  # (a negative duration is the default's)
