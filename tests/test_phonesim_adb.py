"""phonesim through the REAL adb server and adbutils: connect, sizes, screenshots, taps, two phones, faults."""

import os
import socket
import struct
import subprocess
import threading
import time

import adbutils
import numpy as np
import pytest

from helpers import standin_phone
from phonesim.adb import A_CNXN, A_OKAY, A_OPEN, HEADER, MAX_PAYLOAD, pack
from phonesim.harness import Harness, adb_binary
from standin_app import COLOURS


@pytest.fixture(scope="module")
def vp(harness):
    return harness.add(standin_phone())


def test_connect_lists_the_phone_with_its_banner(harness, vp):
    (info,) = [i for i in harness.client.list(extended=True) if i.serial == vp.serial]
    assert info.state == "device"
    assert info.tags["model"] == "Pixel_7" and info.tags["product"] == "panther"
    assert info.tags["device"] == "panther"
    assert harness.adb_port not in range(5554, 5586) and vp.server.port not in range(5554, 5586)


def test_window_size_getprop_and_adb_command_line(harness, vp):
    assert tuple(vp.device.window_size()) == (1080, 2400)
    assert vp.device.prop.model == "Pixel 7"
    assert vp.device.shell("getprop ro.build.version.sdk") == "34"
    out = subprocess.run([adb_binary(), "-P", str(harness.adb_port), "-s", vp.serial, "shell",
                          "wm density; echo done"], capture_output=True, timeout=20)
    assert out.stdout == b"Physical density: 420\ndone\n"


def test_png_and_raw_screenshots_have_the_presets_size(harness, vp):
    image = vp.device.screenshot(error_ok=False)
    assert image.size == (1080, 2400)
    assert image.getpixel((540, 1200)) == COLOURS[len(vp.phone.app.taps) % 4]
    out = subprocess.run([adb_binary(), "-P", str(harness.adb_port), "-s", vp.serial, "exec-out",
                          "screencap"], capture_output=True, timeout=20)
    width, height, pixel_format = struct.unpack_from("<3I", out.stdout)
    assert (width, height, pixel_format) == (1080, 2400, 1)
    assert len(out.stdout) == 16 + 1080 * 2400 * 4  # several 1 MiB writes, each acknowledged


def test_taps_reach_the_app_and_change_the_picture(vp):
    before = len(vp.phone.app.taps)
    vp.device.click(100, 200)
    vp.device.shell("input tap 1 2; input tap 3 4 && input swipe 1 2 3 4 100")
    assert vp.phone.app.taps[before:] == [(100, 200), (1, 2), (3, 4)]
    assert vp.phone.app.swipes[-1] == (1, 2, 3, 4, 100)
    image = vp.device.screenshot(error_ok=False)
    assert image.getpixel((540, 1200)) == COLOURS[(before + 3) % 4]


def test_several_streams_at_once(vp):
    results = {}

    def grab(i):
        results[i] = vp.device.shell(["screencap", "-p"], encoding=None)[:8]

    threads = [threading.Thread(target=grab, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    assert vp.device.shell("echo alongside") == "alongside"
    for t in threads:
        t.join(30)
    assert results == {i: b"\x89PNG\r\n\x1a\n" for i in range(4)}


def test_two_virtual_phones_at_once(harness, vp):
    other = harness.add(standin_phone("720x1600"))
    try:
        assert tuple(other.device.window_size()) == (720, 1600)
        assert tuple(vp.device.window_size()) == (1080, 2400)
        other.device.click(7, 8)
        assert other.phone.app.taps == [(7, 8)] and (7, 8) not in vp.phone.app.taps
        assert other.device.screenshot(error_ok=False).size == (720, 1600)
    finally:
        other.stop()


def _raw_client(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    return sock


def _cnxn(sock):
    banner = b"host::features=shell_v2"
    sock.sendall(pack(A_CNXN, 0x01000001, MAX_PAYLOAD, banner) + banner)
    command, *_rest, length, _check, _magic = HEADER.unpack(_recv_exact(sock, 24))
    _recv_exact(sock, length)
    assert command == A_CNXN


def _recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _closed_by_server(sock):
    sock.settimeout(5)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return True


def test_garbage_closes_only_that_client(vp):
    port = vp.server.port
    rng = np.random.default_rng(4)
    # random bytes: a bad magic, so the phone hangs up on that client
    sock = _raw_client(port)
    sock.sendall(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
    assert _closed_by_server(sock)
    sock.close()
    # a truncated header, then the client goes
    sock = _raw_client(port)
    sock.sendall(pack(A_CNXN, 0x01000001, MAX_PAYLOAD)[:10])
    sock.close()
    # a payload longer than maxdata
    sock = _raw_client(port)
    sock.sendall(struct.pack("<6I", A_CNXN, 0x01000001, MAX_PAYLOAD, MAX_PAYLOAD + 1, 0, A_CNXN ^ 0xFFFFFFFF))
    assert _closed_by_server(sock)
    sock.close()
    # a client that opens a big screenshot and vanishes before acknowledging the first write
    sock = _raw_client(port)
    _cnxn(sock)
    sock.sendall(pack(A_OPEN, 7, 0, b"exec:screencap\0") + b"exec:screencap\0")
    command, *_ = HEADER.unpack(_recv_exact(sock, 24))
    assert command == A_OKAY
    _recv_exact(sock, 24 + 1000)  # part of the first WRTE
    sock.close()
    # the phone still serves adb, and lets go of every garbage client
    assert vp.device.shell("echo still here") == "still here"
    assert vp.device.screenshot(error_ok=False).size == (1080, 2400)
    deadline = time.monotonic() + 10
    while vp.server.clients > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert vp.server.clients == 1  # the adb server's own connection


def test_unauthorized_phone_is_listed_so(harness):
    bad = harness.add(standin_phone(), mode="unauthorized")
    try:
        assert harness.state(bad.serial) == "unauthorized"
        with pytest.raises(adbutils.AdbError, match="unauthorized"):
            bad.device.shell("echo hi", timeout=20)
    finally:
        bad.stop()


def test_a_stopped_phone_gives_an_error_not_a_hang(harness):
    doomed = harness.add(standin_phone())
    assert doomed.device.shell("echo up") == "up"
    stream = doomed.device.shell("screencap", stream=True)  # a capture cut off mid-way
    doomed.stop()
    outcome = {}

    def shell_after_stop():
        try:
            stream.read_until_close(encoding=None)
            outcome["after"] = doomed.device.shell("echo hi", timeout=30)
        except adbutils.AdbError as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=shell_after_stop, daemon=True)
    worker.start()
    worker.join(15)
    assert not worker.is_alive(), "adbutils hung on a stopped phone"
    assert isinstance(outcome.get("error"), adbutils.AdbError)
    assert not isinstance(outcome["error"], adbutils.AdbTimeout), outcome


def test_harness_stops_the_adb_server_by_pid():
    harness = Harness().start()
    pid, port = harness.pid, harness.adb_port
    harness.add(standin_phone())
    harness.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


def _message(sock):
    command, arg0, arg1, length, _check, magic = HEADER.unpack(_recv_exact(sock, 24))
    assert magic == command ^ 0xFFFFFFFF
    return command, arg0, arg1, _recv_exact(sock, length)


def test_one_write_in_flight_per_stream_within_maxdata(vp):
    from phonesim.adb import A_CLSE, A_WRTE
    sock = _raw_client(vp.server.port)
    banner = b"host::"
    sock.sendall(pack(A_CNXN, 0x01000001, 4096, banner) + banner)
    command, version, maxdata, payload = _message(sock)
    assert (command, version, maxdata) == (A_CNXN, 0x01000001, 4096)
    assert payload.startswith(b"device::") and b"ro.product.model=Pixel 7;" in payload
    # a service the phone does not have is refused with CLSE(0, our id)
    sock.sendall(pack(A_OPEN, 5, 0, b"framebuffer:\0") + b"framebuffer:\0")
    assert _message(sock)[:3] == (A_CLSE, 0, 5)
    sock.sendall(pack(A_OPEN, 9, 0, b"exec:screencap\0") + b"exec:screencap\0")
    command, phone_id, our_id, _ = _message(sock)
    assert (command, our_id) == (A_OKAY, 9)
    received = 0
    for _ in range(3):
        command, src, dst, payload = _message(sock)
        assert (command, src, dst) == (A_WRTE, phone_id, 9) and len(payload) == 4096
        received += len(payload)
        sock.settimeout(0.3)  # nothing more until we acknowledge
        with pytest.raises(socket.timeout):
            sock.recv(1)
        sock.settimeout(5)
        sock.sendall(pack(A_OKAY, 9, phone_id))
    sock.sendall(pack(A_CLSE, 9, phone_id))
    sock.close()
    assert vp.device.shell("echo fine") == "fine"


def test_stop_is_clean_with_a_client_that_never_reads():
    from phonesim.adb import AdbServer
    server = AdbServer(standin_phone("720x1600")).start()
    sock = _raw_client(server.port)
    _cnxn(sock)
    for stream in range(1, 13):  # raw screenshots, 4.6 MB each, never read: sends block
        sock.sendall(pack(A_OPEN, stream, 0, b"exec:screencap\0") + b"exec:screencap\0")
    time.sleep(0.3)
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    stopper.join(10)
    assert not stopper.is_alive() and server.clients == 0
    sock.close()


def _lone_phone(monkeypatch, **limits):
    """A phonesim adbd with no adb server, its client limits set for the test."""
    from phonesim import adb

    for name, value in limits.items():
        monkeypatch.setattr(adb, name, value)
    return adb.AdbServer(standin_phone("720x1600")).start()


def test_idle_clients_do_not_lock_the_phone(monkeypatch):
    """MAX_CLIENTS sockets that never speak locked every client out; now the one idle longest
    gives way to a new client, and a socket silent past HANDSHAKE_TIMEOUT is closed."""
    from phonesim import adb

    server = _lone_phone(monkeypatch, HANDSHAKE_TIMEOUT=60.0)
    idle = [_raw_client(server.port) for _ in range(adb.MAX_CLIENTS)]
    try:
        deadline = time.monotonic() + 10
        while server.clients < adb.MAX_CLIENTS and time.monotonic() < deadline:
            time.sleep(0.05)
        sock = _raw_client(server.port)
        _cnxn(sock)  # answered: the phone made room
        assert _closed_by_server(idle[0])  # the first silent one went
        assert server.clients == adb.MAX_CLIENTS
        sock.close()
    finally:
        for s in idle:
            s.close()
        server.stop()

    server = _lone_phone(monkeypatch, HANDSHAKE_TIMEOUT=0.3)
    try:
        silent = _raw_client(server.port)
        assert _closed_by_server(silent)
        talking = _raw_client(server.port)
        _cnxn(talking)  # a client that spoke in time is not timed out afterwards
        time.sleep(0.6)
        talking.sendall(pack(A_OPEN, 3, 0, b"shell:echo hi\0") + b"shell:echo hi\0")
        assert _message(talking)[0] == A_OKAY
        talking.close()
    finally:
        server.stop()


def test_busy_clients_are_not_dropped_for_a_new_one(monkeypatch):
    from phonesim import adb

    server = _lone_phone(monkeypatch, MAX_CLIENTS=2)
    busy = [_raw_client(server.port) for _ in range(2)]
    try:
        for n, sock in enumerate(busy, 1):
            _cnxn(sock)
            sock.sendall(pack(A_OPEN, n, 0, b"shell:\0") + b"shell:\0")  # a shell left open
            assert _message(sock)[0] == A_OKAY
        late = _raw_client(server.port)
        assert _closed_by_server(late)  # refused: nobody idle
        assert server.clients == 2
    finally:
        for s in busy:
            s.close()
        server.stop()


def test_the_interactive_shell_keeps_one_terminal_line(monkeypatch):
    """A line without end grew the shell's buffer without bound (+83 MB); a terminal keeps
    MAX_LINE bytes of a line and drops the rest, and the host waits for OKAY between writes."""
    import tracemalloc
    from phonesim import adb
    from phonesim.adb import A_WRTE

    server = _lone_phone(monkeypatch)
    sock = _raw_client(server.port)
    try:
        _cnxn(sock)
        sock.sendall(pack(A_OPEN, 4, 0, b"shell:\0") + b"shell:\0")
        command, phone_id, _, _ = _message(sock)
        assert command == A_OKAY
        assert _message(sock)[0] == A_WRTE  # the prompt
        sock.sendall(pack(A_OKAY, 4, phone_id))
        chunk = b"x" * adb.MAX_PAYLOAD
        tracemalloc.start()
        try:
            for _ in range(64):  # 64 MiB of one line, each write acknowledged before the next
                sock.sendall(pack(A_WRTE, 4, phone_id, chunk) + chunk)
                assert _message(sock)[:3] == (A_OKAY, phone_id, 4)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 16 * adb.MAX_PAYLOAD  # (what other threads take meanwhile included)
        line = b"\necho still here\n"
        sock.sendall(pack(A_WRTE, 4, phone_id, line) + line)
        out = b""
        while b"still here\n" not in out:
            command, _, _, payload = _message(sock)
            if command == A_WRTE:
                out += payload
                sock.sendall(pack(A_OKAY, 4, phone_id))
        assert b"inaccessible or not found" in out  # the long line, cut at MAX_LINE, ran as a command
        # a second write before the phone's OKAY (to a command that reads nothing) is not the
        # protocol: that stream ends, the connection stays
        def to(ours):  # the next message for our stream ``ours`` (the shell's last prompt skipped)
            while True:
                message = _message(sock)
                if message[2] == ours:
                    return message
                if message[0] == A_WRTE:
                    sock.sendall(pack(A_OKAY, message[2], message[1]))

        sock.sendall(pack(A_OPEN, 6, 0, b"shell:sleep 5\0") + b"shell:sleep 5\0")
        command, sleeper, _, _ = to(6)
        assert command == A_OKAY
        sock.sendall(pack(A_WRTE, 6, sleeper, b"a") + b"a" + pack(A_WRTE, 6, sleeper, b"b") + b"b")
        assert to(6)[:2] == (adb.A_CLSE, sleeper)
        sock.sendall(pack(A_OPEN, 8, 0, b"shell:echo ok\0") + b"shell:echo ok\0")
        assert to(8)[0] == A_OKAY
    finally:
        sock.close()
        server.stop()
