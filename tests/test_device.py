"""The assistant's ADB link on phonesim through the real adb server: choosing a phone, capture, taps, errors."""

import struct

import cv2
import numpy as np
import pytest

from helpers import standin_phone, tapsolve

from assistant import phone_commands
from assistant.phone import device, screen, server
from phonesim.harness import Harness, free_port
from phonesim.phone import PRESETS, Phone
from standin_app import COLOURS, StandInApp


@pytest.fixture
def harness():
    """A fresh adb server for each test: these tests count and stop the phones it knows."""
    with Harness() as h:
        yield h


def test_connect_times_both_captures_and_keeps_the_fastest(harness):
    vp = harness.add(standin_phone())
    said = []
    huge_pages = np._core.multiarray  # (numpy's switch: a fresh frame on huge pages stalled on their faults)
    huge_pages._set_madvise_hugepage(True)
    link = device.connect(client=harness.client, log=said.append)
    assert huge_pages._get_madvise_hugepage() is False  # (frames from here on on small pages)
    assert set(link.screen.timings) == {"png", "raw"}
    assert link.screen.method == min(link.screen.timings, key=link.screen.timings.get)
    assert "capture by" in said[0] and "Pixel 7" in said[0] and "1080x2400" in said[0]
    for method in ("png", "raw"):
        image = link.screen.grab(method)
        assert image.shape == (2400, 1080, 3) and image.dtype == np.uint8
        assert np.array_equal(image, vp.phone.screen())
    assert link.size == (1080, 2400)


def test_taps_swipes_and_several_taps_in_one_call(harness):
    vp = harness.add(standin_phone("720x1600"))
    link = device.connect(client=harness.client, channel="exec")  # (each call returns once done)
    link.tap(10.4, 20.6)
    link.taps([(1, 2), (3, 4), (5, 6)])
    link.swipe(100, 900, 100, 300, ms=200)
    assert vp.phone.app.taps == [(10, 21), (1, 2), (3, 4), (5, 6)]
    assert vp.phone.app.swipes == [(100, 900, 100, 300, 200)]
    assert tuple(link.capture()[800, 360]) == COLOURS[4 % 4]
    # taps are given in the screenshot's pixels: a half-size screenshot doubles them
    link.screen.size = (360, 800)
    link.tap(10, 20)
    assert vp.phone.app.taps[-1] == (20, 40)


def test_a_phone_silent_past_the_timeout_counts_as_lost(harness):
    harness.add(standin_phone())
    link = device.connect(client=harness.client)
    with pytest.raises(server.PhoneLost, match="stopped answering for 0.3 s"):
        link.run("sleep 2", timeout=0.3)
    assert link.shell("sleep 0.5; echo awake", timeout=5) == "awake\n"


def test_black_screen_is_refused_with_the_reason(harness):
    harness.add(standin_phone(secure=True))
    link = device.connect(client=harness.client)
    with pytest.raises(screen.BlackScreen, match="secure window"):
        link.capture()


def test_no_phone(harness):
    with pytest.raises(server.NoPhone, match="no phone found.*USB debugging"):
        device.connect(client=harness.client)
    result = tapsolve("devices", port=harness.adb_port)
    assert result.returncode == 1
    assert result.stderr.startswith("tapsolve: error: no phone found") and "Traceback" not in result.stderr


def test_several_phones_need_a_serial_and_are_listed(harness):
    one = harness.add(standin_phone())
    two = harness.add(standin_phone("720x1600"))
    with pytest.raises(server.SeveralPhones) as error:
        device.connect(client=harness.client)
    message = str(error.value)
    assert one.serial in message and two.serial in message and "--serial" in message
    assert "\n" not in message
    link = device.connect(two.serial, client=harness.client)
    assert link.size == (720, 1600)
    with pytest.raises(server.NoPhone, match=f"no phone with serial 'nosuch'.*{one.serial}"):
        device.connect("nosuch", client=harness.client)


def test_unauthorized_and_offline_phones_say_what_to_do(harness):
    locked = harness.add(standin_phone(), mode="unauthorized")
    with pytest.raises(server.PhoneNotReady, match="unauthorized.*Allow debugging.*Wireless debugging must be paired"):
        device.connect(client=harness.client)
    silent = harness.add(standin_phone(), mode="silent")
    # a network phone has no cable to unplug: it is dropped and connected again
    with pytest.raises(server.PhoneNotReady, match=f"offline: drop it with `tapsolve disconnect {silent.serial}`"):
        device.connect(silent.serial, client=harness.client)
    good = harness.add(standin_phone("1440x3200"))
    result = tapsolve("devices", port=harness.adb_port)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SERIAL", "STATE", "MODEL", "SCREEN"]
    row = next(line for line in lines if line.startswith(good.serial))
    assert row.split()[1:] == ["device", "Galaxy", "S21", "Ultra", "1440x3200"]
    row = lines.index(next(line for line in lines if line.startswith(locked.serial)))
    assert lines[row].split()[1] == "unauthorized" and "Allow debugging" in lines[row + 1]
    row = lines.index(next(line for line in lines if line.startswith(silent.serial)))
    assert lines[row].split()[1] == "offline" and f"tapsolve disconnect {silent.serial}" in lines[row + 1]
    assert "--serial" in lines[-1]


def test_connect_and_devices_give_one_advice_for_an_unauthorized_phone(harness):
    """`connect` said "pair it first" where `devices` said "accept the prompt": a network phone
    may need either (an emulator's prompt, a Wireless debugging phone's pairing), and both say so."""
    from phonesim.adb import AdbServer

    locked = AdbServer(standin_phone(), mode="unauthorized").start()
    try:
        connect = tapsolve("connect", locked.serial, port=harness.adb_port)
        devices = tapsolve("devices", port=harness.adb_port)
    finally:
        locked.stop()
    assert connect.returncode == 1 and devices.returncode == 0
    said = devices.stdout.splitlines()[2].removeprefix("  -> ")
    assert said.startswith('accept the "Allow debugging?" prompt') and "tapsolve pair" in said
    assert connect.stderr.strip().endswith(f": {said}"), (connect.stderr, said)


def test_a_failed_connect_or_scan_leaves_no_offline_entry(harness, monkeypatch):
    """adb keeps an address it was asked to connect, offline, retrying it for ever (packages/
    modules/adb transport.cpp, the reconnect handler): a connect or --scan that failed left
    one behind in `devices`; now what tapsolve connected and did not answer is dropped."""
    from phonesim.adb import AdbServer

    silent = AdbServer(standin_phone(), mode="silent").start()  # a phone that accepts and never answers
    try:
        run = tapsolve("connect", silent.serial, port=harness.adb_port)
        assert run.returncode == 1 and "Traceback" not in run.stderr
        assert harness.state(silent.serial) is None, harness.client.list()
        monkeypatch.setenv(phone_commands.SCAN_PORTS_ENV, str(silent.port))
        assert phone_commands.scan(harness.client) == []
        assert harness.state(silent.serial) is None, harness.client.list()
    finally:
        silent.stop()


def test_devices_names_the_phone_play_uses_beside_an_offline_leftover(harness):
    """With a ready phone and a network phone gone offline, `play` uses the ready one, while
    `devices` told the user to choose one with --serial: both now say the same."""
    gone = harness.add(standin_phone(), mode="silent")
    good = harness.add(standin_phone("1440x3200"))
    run = tapsolve("devices", port=harness.adb_port)
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == (
        f"2 phones: without --serial tapsolve uses {good.serial}, the one ready phone")
    assert device.connect(client=harness.client).serial == good.serial
    gone.stop()


def test_a_phone_restarting_under_scrcpy_gets_scrcpy_again(harness):
    """A tap through scrcpy on a phone that went away breaks the channel (down to exec), and the
    phone that came back was played by exec to the end: it gets the channel chosen again."""
    import threading
    import time

    from assistant.link import Link

    vp = harness.add(standin_phone())
    phone = device.connect(vp.serial, client=harness.client, channel="scrcpy")
    said = []
    link = Link(phone, say=said.append, reconnect_timeout=20)
    link.capture()
    assert phone.channel.name == "scrcpy"
    vp.stop()
    threading.Timer(1.0, vp.restart).start()
    link.tap(3, 4)  # (lost as it is sent: waited for, not sent again)
    assert link.reconnects == 1 and phone.channel.name == "scrcpy", phone.channel_why
    link.capture()
    link.tap(5, 6)
    deadline = time.monotonic() + 20  # (scrcpy's touches are injected as the server reads them)
    while (5, 6) not in vp.phone.app.taps and time.monotonic() < deadline:
        time.sleep(0.05)
    assert phone.channel.name == "scrcpy" and (5, 6) in vp.phone.app.taps
    phone.close()
    vp.stop()


def test_a_lost_phone_is_waited_for_and_its_channel_started_again_in_one_place(harness, monkeypatch):
    """Reconnection has one owner: the link (a stand-in counts who calls) asks the device, whose
    reconnect alone waits for the phone, and one method alone starts a channel again, whether
    the phone went away under it or only the channel broke."""
    import sys
    import threading

    from assistant.link import Link
    from assistant.phone import choice

    vp = harness.add(standin_phone())
    phone = device.connect(vp.serial, client=harness.client, channel="shell")  # (a connection kept open)
    waiters, openers = [], []
    wait_ready, open_channel = server.wait_ready, choice.open_channel

    def counted(calls, real):
        return lambda *a, **k: calls.append(sys._getframe(1).f_code.co_name) or real(*a, **k)

    monkeypatch.setattr(device, "wait_ready", counted(waiters, wait_ready), raising=False)
    monkeypatch.setattr(choice, "open_channel", counted(openers, open_channel))
    link = Link(phone, say=[].append, reconnect_timeout=20)
    link.capture()
    vp.stop()
    threading.Timer(1.0, vp.restart).start()
    link.tap(3, 4)  # the phone goes away under the kept-open shell: waited for, the shell opened again
    assert link.reconnects == 1 and phone.channel.name == "shell"
    for connection in list(vp.server._connections):  # only the shell breaks now, the phone stays
        for stream in list(connection.streams.values()):
            stream.close()
    link.capture()
    link.tap(5, 6)
    assert (5, 6) in vp.phone.app.taps and link.reconnects == 1
    assert waiters == ["reconnect"] and set(openers) == {"_restart_channel"} and len(openers) >= 2, (waiters, openers)
    phone.close()


def test_a_stopped_phone_is_lost_not_hung(harness):
    vp = harness.add(standin_phone())
    link = device.connect(client=harness.client)
    vp.stop()
    with pytest.raises(server.PhoneLost, match="lost the phone"):
        link.capture()
    with pytest.raises(server.PhoneLost):
        link.tap(1, 1)
    with pytest.raises(server.PhoneLost, match="did not come back within 0.5 s"):
        link.reconnect(timeout=0.5)
    vp.restart()  # plugged in again: the adb server finds it on its own
    link.reconnect(timeout=20)
    link.tap(3, 4)
    assert vp.phone.app.taps == [(3, 4)]


class UnpluggedWhileDrawing(StandInApp):
    """An app whose phone is unplugged while it draws the next screenshot."""

    unplug = None

    def render(self):
        if self.unplug:
            self.unplug()
            self.unplug = None
        return super().render()


def test_a_phone_lost_during_a_screenshot_is_lost_not_garbage(harness):
    p = PRESETS["720x1600"]
    vp = harness.add(Phone(p, UnpluggedWhileDrawing(p)))
    link = device.connect(client=harness.client)
    for method in ("raw", "png"):
        link.screen.method = method
        vp.phone.app.unplug = vp.server.stop
        with pytest.raises(server.PhoneLost):
            link.capture()
        vp.restart()
        link.reconnect(timeout=20)


def test_adb_server_not_reachable():
    """A server asked for by address that does not answer: said, and none started (one is
    started only on this computer's own name: test_reliability)."""
    import os

    port = free_port()
    with pytest.raises(server.AdbServerUnreachable, match=f"cannot reach the adb server at 127.0.0.1:{port}"):
        server.adb_client(port=port)
    result = tapsolve("devices", port=port, env=dict(os.environ, ANDROID_ADB_SERVER_HOST="127.0.0.2"))
    assert result.returncode == 1 and "cannot reach the adb server" in result.stderr
    assert "Traceback" not in result.stderr


def test_raw_formats_decode_to_rgb():
    rgba = np.zeros((3, 2, 4), np.uint8)
    rgba[..., 0], rgba[..., 1], rgba[..., 2], rgba[..., 3] = 10, 20, 30, 255
    old = struct.pack("<3I", 2, 3, 1) + rgba.tobytes()  # before Android 9: no colour space
    new = struct.pack("<4I", 2, 3, 1, 1) + rgba.tobytes()
    for data in (old, new):
        assert screen.decode_raw(data).tolist() == [[[10, 20, 30]] * 2] * 3
    bgra = struct.pack("<4I", 2, 3, 5, 1) + rgba.tobytes()
    assert screen.decode_raw(bgra)[0, 0].tolist() == [30, 20, 10]
    rgb565 = cv2.cvtColor(np.full((3, 2, 3), (248, 0, 0), np.uint8), cv2.COLOR_RGB2BGR565)
    assert screen.decode_raw(struct.pack("<3I", 2, 3, 4) + rgb565.tobytes())[0, 0].tolist() == [248, 0, 0]
    for bad in (b"", b"/system/bin/sh: screencap: not found\n", struct.pack("<4I", 2, 3, 1, 1) + b"x"):
        with pytest.raises(ValueError):
            screen.decode_raw(bad)
    # a real phone's PNG is RGBA; phonesim's is RGB: both decode to the same RGB
    rgb = np.zeros((3, 2, 3), np.uint8)
    rgb[..., 0], rgb[..., 1], rgb[..., 2] = 10, 20, 30
    for code in (cv2.COLOR_RGB2BGRA, cv2.COLOR_RGB2BGR):
        data = cv2.imencode(".png", cv2.cvtColor(rgb, code))[1].tobytes()
        assert np.array_equal(screen.decode_png(data), rgb)
    for bad in (b"", b"\x89PNG but cut short"):
        with pytest.raises(ValueError, match="not a PNG"):
            screen.decode_png(bad)


# -- network phones: --serial HOST:PORT, connect, disconnect, pair, the scan --------------------

@pytest.fixture
def unlisted():
    """A virtual phone listening on a free port that no adb server has been told of yet."""
    from phonesim.adb import AdbServer

    phonesim = AdbServer(standin_phone("720x1600")).start()
    yield phonesim
    phonesim.stop()


def test_a_network_serial_not_listed_is_connected_by_itself(harness, unlisted, capsys):
    link = device.connect(unlisted.serial, client=harness.client)
    assert link.serial == unlisted.serial and link.size == (720, 1600)
    assert harness.state(unlisted.serial) == "device"
    assert capsys.readouterr().err == f"tapsolve: {unlisted.serial} is not connected yet: connecting to it\n"
    nowhere = f"127.0.0.1:{free_port()}"
    with pytest.raises(server.NoPhone, match=f"cannot connect to {nowhere}: failed to connect.*refused"):
        device.connect(nowhere, client=harness.client)


def test_connect_and_disconnect_commands(harness, unlisted):
    address = unlisted.serial
    run = tapsolve("connect", address, port=harness.adb_port)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [f"connected to {address}",
                                       f"{address}: ready (Galaxy A12); play on it with --serial {address}"]
    assert harness.state(address) == "device"
    run = tapsolve("disconnect", address, port=harness.adb_port)
    assert (run.returncode, run.stdout) == (0, f"disconnected {address}\n") and harness.state(address) is None
    run = tapsolve("disconnect", address, port=harness.adb_port)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr == f"tapsolve: error: cannot disconnect {address}: no such device '{address}'; see `tapsolve devices`\n"
    harness.client.connect(address, timeout=10)
    run = tapsolve("disconnect", port=harness.adb_port)  # every network phone
    assert (run.returncode, run.stdout) == (0, "disconnected everything\n") and harness.state(address) is None
    nowhere = f"127.0.0.1:{free_port()}"
    run = tapsolve("connect", nowhere, port=harness.adb_port)
    assert run.returncode == 1 and len(run.stderr.splitlines()) == 1
    assert run.stderr.startswith(f"tapsolve: error: cannot connect to {nowhere}: failed to connect")


class FakeAdbServer:
    """An adb server stand-in on a free port: records each host request and answers it with ``reply``
    (the bytes after the request), for the replies a real server gives only with a real phone."""

    def __init__(self, reply: bytes):
        import socket
        import threading

        self.reply, self.requests = reply, []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return  # closed
            with sock:
                length = sock.recv(4)
                if len(length) == 4:  # not a mere probe that the port answers
                    self.requests.append(sock.recv(int(length, 16)).decode())
                    sock.sendall(self.reply)

    def close(self):
        self.listener.close()


def protocol_string(text: str) -> bytes:
    """A length-prefixed string as the adb server sends one (4 hex digits, then the bytes)."""
    return b"%04x" % len(text) + text.encode()


def test_pair_sends_the_servers_pair_request_and_reads_its_answer():
    paired = "Successfully paired to 192.168.1.20:37099 [guid=adb-R58M12ABCDE-xYz1Qa]"
    fake = FakeAdbServer(b"OKAY" + protocol_string(paired))
    try:
        run = tapsolve("pair", "192.168.1.20:37099", "482915", port=fake.port)
    finally:
        fake.close()
    assert run.returncode == 0, run.stderr
    assert fake.requests == ["host:pair:482915:192.168.1.20:37099"]
    assert run.stdout.splitlines()[0] == paired and "tapsolve connect HOST:PORT" in run.stdout
    # the pairing failed: the service's OKAY, then FAIL and the reason
    for reply, reason in [(b"OKAY" + b"FAIL" + protocol_string("Failed: Wrong password or connection was dropped."),
                           "Failed: Wrong password or connection was dropped."),
                          (b"OKAY", "the adb server closed the connection without an answer")]:
        fake = FakeAdbServer(reply)
        try:
            with pytest.raises(server.NoPhone, match=f"pairing with 10.0.0.7:40001 failed: {reason}.*pairing code"):
                server.pair(server.Client("127.0.0.1", fake.port), "10.0.0.7:40001", "000111")
        finally:
            fake.close()
    # an adb server older than pairing (adb 30) knows no such request (packages/modules/adb
    # sockets.cpp: FAIL "unknown host service"): the advice is to update it, not the code
    fake = FakeAdbServer(b"FAIL" + protocol_string("unknown host service"))
    try:
        with pytest.raises(server.AdbServerUnreachable, match="too old to pair.*update platform-tools") as caught:
            server.pair(server.Client("127.0.0.1", fake.port), "10.0.0.7:40001", "000111")
        assert "pairing code" not in str(caught.value)
    finally:
        fake.close()


def test_pair_with_nothing_listening_says_why_in_one_line(harness):
    nowhere = f"127.0.0.1:{free_port()}"
    run = tapsolve("pair", nowhere, "123456", port=harness.adb_port)
    assert run.returncode == 1 and len(run.stderr.splitlines()) == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"tapsolve: error: pairing with {nowhere} failed: Failed: ")
    run = tapsolve("pair", "192.168.1.20", "123456", port=harness.adb_port)
    assert run.returncode == 2 and "is not HOST:PORT" in run.stderr


def test_one_offline_network_leftover_beside_a_ready_phone_is_passed_over(harness, capsys):
    silent = harness.add(standin_phone(), mode="silent")
    good = harness.add(standin_phone("720x1600"))
    assert device.connect(client=harness.client).serial == good.serial
    assert capsys.readouterr().err == (f"tapsolve: using {good.serial}, the one ready phone (offline: "
                                       f"{silent.serial}; `tapsolve disconnect {silent.serial}` drops it)\n")
    harness.add(standin_phone(), mode="unauthorized")  # maybe the one meant: not passed over
    with pytest.raises(server.SeveralPhones):
        device.connect(client=harness.client)


def test_devices_scan_connects_what_answers_on_the_ports_it_tries(harness, unlisted):
    closed = free_port()
    env = dict(harness.env, **{phone_commands.SCAN_PORTS_ENV: f"{closed},{unlisted.port}"})
    run = tapsolve("devices", "--scan", env=env)
    assert run.returncode == 0, run.stderr
    assert run.stderr == f"tapsolve: connected {unlisted.serial}\n"
    row = next(line for line in run.stdout.splitlines() if line.startswith(unlisted.serial))
    assert row.split()[1:] == ["device", "Galaxy", "A12", "720x1600"]
    run = tapsolve("devices", "--scan", env=dict(env, **{phone_commands.SCAN_PORTS_ENV: str(closed)}))
    assert run.returncode == 0 and "no new emulator answered" in run.stderr  # the one found stays listed
    harness.client.disconnect(unlisted.serial)
    run = tapsolve("devices", "--scan", env=dict(env, **{phone_commands.SCAN_PORTS_ENV: str(closed)}))
    assert run.returncode == 1 and len(run.stderr.splitlines()) == 1
    assert run.stderr.startswith("tapsolve: error: no emulator answered on the usual adb ports")
    assert phone_commands.EMULATOR_PORTS[:3] == (5555, 7555, 16384)  # BlueStacks 5 / LDPlayer, MuMu 6, MuMu 12


def test_a_landscape_screen_is_refused_with_what_to_do(harness):
    from dataclasses import replace

    wide = replace(PRESETS["900x1600"], name="1600x900", width=1600, height=900)
    harness.add(Phone(wide, StandInApp(wide)))
    with pytest.raises(device.Landscape, match=r"landscape \(1600x900\): switch the emulator \(or the phone\) to portrait"):
        device.connect(client=harness.client)


def test_an_emulator_sized_screen_is_read_and_played(harness):
    from assistant import autoplay
    from assistant.link import Link
    from assistant.loop import Loop
    from assistant.session import Session
    from phonesim import apps

    preset = PRESETS["720x1280"]
    assert (preset.density, PRESETS["900x1600"].density, PRESETS["1080x1920"].density) == (320, 240, 480)
    phone = Phone(preset, apps.create("numbermatch", preset, seed=3))
    harness.add(phone)
    said = []
    loop = Loop(Session(Link(device.connect(client=harness.client), say=said.append)), game="numbermatch",
                objective="fast", budget=1.0, say=said.append)
    assert autoplay.play(loop, say=said.append) == 0
    assert phone.app.truth()["screen"] == "stage_complete" and phone.wrong_taps == 0


def test_the_capture_choice_is_kept_so_a_later_start_skips_the_timing_and_says_what_it_does(harness, tmp_path,
                                                                                          monkeypatch):
    from assistant.session import CaptureChoice
    from calibration import store

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    vp = harness.add(standin_phone())
    said = []
    first = device.connect(vp.serial, client=harness.client, say=said.append, kept=CaptureChoice)
    assert said[0] == f"connecting to Pixel 7 ({vp.serial})..."  # at once, before the seconds of timing
    assert said[1].startswith("timing its screenshots, PNG against raw")
    assert said[-1].startswith(f"Pixel 7 ({vp.serial}), 1080x2400: taps by the ") and len(said) == 3
    assert store.load_capture("Pixel 7") == {"size": [1080, 2400], "method": first.screen.method}
    first.close()
    said.clear()
    grabs = len(vp.phone.capture_log)
    later = device.connect(vp.serial, client=harness.client, say=said.append, kept=CaptureChoice)
    assert len(vp.phone.capture_log) - grabs == 1  # one screenshot, by the kept method: it works, at this size
    assert later.screen.kept and later.screen.timings == {} and later.screen.method == first.screen.method
    assert len(said) == 2 and not any("timing" in line for line in said)  # no timing said, none done
    assert "the faster when timed on an earlier run" in later.screen.describe()
    later.close()
    # a choice of another screen size is timed again (and kept anew)
    assert store.save_capture("Pixel 7", (720, 1600), "png")
    again = device.connect(vp.serial, client=harness.client, kept=CaptureChoice)
    assert not again.screen.kept and set(again.screen.timings) == {"png", "raw"}
    assert store.load_capture("Pixel 7")["size"] == [1080, 2400]
    again.close()
