"""scrcpy's server 3.3.4 on the virtual phone: the jar pushed through adb's sync service, the
`app_process` start, the localabstract:scrcpy_<scid> sockets with the server's handshake, touch
and key messages applied as taps and keys, and the screen streamed as H.264.

Written from upstream's source (Genymobile/scrcpy at v3.3.4, server/src/main/java/com/genymobile/
scrcpy/): Server.java (what runs, and that the process ends when a socket ends), Options.java
(the arguments; the version is checked first, with its error text), device/DesktopConnection.java
(accept video, audio, control in that order on one socket name; one dummy byte on the first
socket, then the device name in 64 bytes), device/Streamer.java (codec meta, 12-byte packet
headers, the config and key-frame flags), device/Size.java (max_size: limit, then round8),
control/ControlMessageReader.java (the message layouts), control/Controller.java and
PositionMapper.java (positions in the current video's size; an event for another size is
ignored, silently; injection refused is logged, the server goes on), video/SurfaceEncoder.java
(the last frame repeated after 100 ms without change; the codec meta written once, then an
encoder that refuses the size retried smaller before the first frame, MAX_SIZE_FALLBACK, with
downsize_on_error; a rotation restarting the capture at the turned size, no new meta). The
sync service is AOSP adb's SYNC.TXT / file_sync_protocol.h.

Simplifications, said here: the stream is encoded by libx264 (tune zerolatency) on the host, not
by the phone's MediaCodec; frames are taken by polling the screen (at most MAX_FPS), encoded only
when it changed, and the last one again REPEAT_S after it without change, REPEATS times; a touch
down and up within TOUCH_SLOP is one tap (phone.tap, with its drops and latency), farther apart
one swipe.
"""

from __future__ import annotations

import hashlib
import queue
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

SERVER_VERSION = "3.3.4"
# SHA-256 of upstream's scrcpy-server-v3.3.4 release asset (Homebrew's Formula/s/scrcpy.rb for
# 3.3.4, resource "prebuilt-server"); any other jar cannot be this server
SERVER_SHA256 = "8588238c9a5a00aa542906b6ec7e6d5541d9ffb9b5d0f6e1bc0e365e2303079e"
SERVER_CLASS = "com.genymobile.scrcpy.Server"
MIN_SDK = 21  # the server needs Android 5.0 (scrcpy README, requirements)
# what a phone too old for it prints: app_process aborts (Genymobile/scrcpy issue #212, 4.4.4)
OLD_ANDROID_OUTPUT = "Aborted\n"
ABORTED_STATUS = 134  # a shell's status for a process killed by SIGABRT
# what the server logs on a phone that refuses injection (Xiaomi's MIUI without "USB debugging
# (security settings)"): issue #4352's console output, shortened to its lines that matter
REFUSED_OUTPUT = ("[server] ERROR: Could not invoke method\njava.lang.reflect.InvocationTargetException\n"
                  "Caused by: java.lang.SecurityException: Injecting input events requires the caller (or "
                  "the source of the instrumentation, if any) to have the INJECT_EVENTS permission.\n")

# ControlMessage.java's types, their payload sizes after the type byte (ControlMessageReader.java)
TYPE_INJECT_KEYCODE, TYPE_INJECT_TOUCH_EVENT, TYPE_BACK_OR_SCREEN_ON = 0, 2, 4
EMPTY_TYPES = {5, 6, 7, 11, 15, 17}  # panels, rotate, keyboard settings, reset video: no payload
ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2
CODEC_H264 = 0x68323634  # "h264" as a big-endian int (Streamer.writeVideoHeader, VideoCodec)
PACKET_FLAG_CONFIG = 1 << 63
PACKET_FLAG_KEY_FRAME = 1 << 62
DEVICE_NAME_FIELD_LENGTH = 64
# Android's KeyEvent codes of the keys phonesim answers to, and their names
KEYS = {3: "KEYCODE_HOME", 4: "KEYCODE_BACK", 24: "KEYCODE_VOLUME_UP", 25: "KEYCODE_VOLUME_DOWN",
        26: "KEYCODE_POWER", 66: "KEYCODE_ENTER", 82: "KEYCODE_MENU", 187: "KEYCODE_APP_SWITCH",
        223: "KEYCODE_SLEEP", 224: "KEYCODE_WAKEUP"}
SYNC_DATA_MAX = 64 * 1024
WRITABLE = ("/data/local/tmp/", "/sdcard/")  # where the shell user may write
DIRECTORIES = {"/data/local/tmp", "/sdcard", "/data/local/tmp/", "/sdcard/"}
S_IFDIR, S_IFREG = 0o040000, 0o100000

REPEAT_S = 0.1  # SurfaceEncoder's REPEAT_FRAME_DELAY_US: the last frame again after 100 ms
# ... and again each 100 ms, REPEATS times in all, then nothing until the screen changes: the
# encoder's input surface (AOSP frameworks/av/media/libstagefright/bqhelper/
# GraphicBufferSource.cpp, repeatLatestBuffer_l: "repeat last frame up to kRepeatLastFrameCount
# times", GraphicBufferSource.h: kRepeatLastFrameCount = 10; MediaFormat's own page says "once")
REPEATS = 10
# a look this much short of REPEAT_S after the frame is the timer's (a wait may wake a hair early);
# any shorter is a look on the screen's own pace, too soon for a repeat
REPEAT_TIMER_SLACK = 1e-3
MAX_SIZE_FALLBACK = (2560, 1920, 1600, 1280, 1024, 800)  # SurfaceEncoder's, in descending order
# how often the screen is looked at for a change: a phone's display refreshes at 60 Hz, but
# drawing phonesim's screen costs ~20 ms of a core at 1080x2400, so half that
MAX_FPS = 30
# the phone's encoder runs at 8 Mbps (scrcpy's default --video-bit-rate); libx264 here holds a
# constant quality instead (CRF 20: digits as sharp as the server's static screen, and half the
# encoding time of its bit-rate mode on two shared cores)
VIDEO_CRF = "20"
# Android's touch slop, 8 dp (ViewConfiguration.TOUCH_SLOP): a finger moving less is a tap
TOUCH_SLOP_DP = 8
VIDEO_LOG = 100_000  # frames remembered with what they caught (an hour at 30 a second)
ACCEPT_POLL = 0.05  # seconds between checks for a connection, or a socket closed
# a server nobody connects to gives up (on a phone, adbd hangs it up with the shell it runs in;
# phonesim does not see that shell close)
ACCEPT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Costs:
    """The channel's own costs (seconds, drawn per use, times the realism's scale)."""

    start: tuple[float, float] = (0.0, 0.0)  # app_process to listening, once
    video_latency: tuple[float, float] = (0.0, 0.0)  # a frame's capture to its bytes
    touch: tuple[float, float] = (0.0, 0.0)  # one tap's messages to the app (no JVM)


# Sources (FIELD.md, "Touch and capture"): the server starts in about 0.5-1 s; video latency
# 35-70 ms (scrcpy README); a touch message costs a few ms, injected asynchronously
# (Controller.java, INJECT_MODE_ASYNC): we take 2-5 ms.
COSTS = {"real": Costs(start=(0.5, 1.0), video_latency=(0.035, 0.07), touch=(0.002, 0.005))}
NO_COSTS = Costs()


def costs(phone) -> Costs:
    return COSTS.get(phone.realism.name, NO_COSTS)


def _sleep(phone, span: tuple[float, float]) -> float:
    seconds = phone._draw(span) * phone.realism.scale
    if seconds > 0:
        time.sleep(seconds)
    return seconds


# -- the phone's files and listening sockets ---------------------------------------------------

_registry_lock = threading.RLock()


def _state(phone) -> dict:
    """The phone's pushed files and listening abstract sockets (kept on the Phone itself)."""
    with _registry_lock:
        state = phone.__dict__.get("_scrcpy_state")
        if state is None:
            state = phone.__dict__["_scrcpy_state"] = {"files": {}, "listeners": {}, "servers": 0}
        return state


def files(phone) -> dict[str, bytes]:
    """Path -> bytes of every file pushed to the phone."""
    return _state(phone)["files"]


def start_s(phone) -> float:
    """What the last server's start was charged (0 when none started)."""
    with _registry_lock:
        return _state(phone).get("start_s", 0.0) if "_scrcpy_state" in phone.__dict__ else 0.0


def open_encoder(width: int, height: int):
    """The H.264 encoder of a stream this size, set as the server's (see VIDEO_CRF)."""
    import av

    encoder = av.CodecContext.create("libx264", "w")
    encoder.width, encoder.height, encoder.pix_fmt = width, height, "yuv420p"
    encoder.time_base = Fraction(1, 1_000_000)
    encoder.framerate = Fraction(MAX_FPS)
    encoder.gop_size = 10 * MAX_FPS  # SurfaceEncoder's DEFAULT_I_FRAME_INTERVAL: 10 s
    encoder.options = {"tune": "zerolatency", "preset": "ultrafast", "crf": VIDEO_CRF}
    encoder.flags |= av.codec.context.Flags.global_header  # SPS/PPS in a config packet first
    encoder.open()
    return encoder


def repeat_due(tick: float, sent_at: float) -> bool:
    """Whether the screen looked at ``tick`` is sent again, unchanged since the frame sent at
    ``sent_at``: REPEAT_S after it (GraphicBufferSource posts the repeat that long after the
    frame, on a timer of its own, not on the screen's frames; the stream looks at the screen
    then: ``_stream``), give or take REPEAT_TIMER_SLACK of the timer waking a hair early."""
    return tick - sent_at >= REPEAT_S - REPEAT_TIMER_SLACK


def video_frame(screen: np.ndarray, width: int, height: int):
    """The screen (RGB) as a frame for the encoder, scaled to the stream's size."""
    import av
    import cv2

    image = screen if screen.shape[:2] == (height, width) else cv2.resize(
        screen, (width, height), interpolation=cv2.INTER_AREA)
    # OpenCV's I420 is BT.601 limited range, what a decoder assumes untold
    return av.VideoFrame.from_ndarray(cv2.cvtColor(image, cv2.COLOR_RGB2YUV_I420), format="yuv420p")


def video_log(phone) -> list[tuple[int, str | None, int]]:
    """Each video frame sent: its pts (us), the animation it caught (None: a still screen) and
    its picture's number (a repeat keeps it: an animation's last frames may already draw the
    still screen that follows, pixel for pixel)."""
    with _registry_lock:
        return list(_state(phone).get("video_log", []))


def running(phone) -> int:
    """How many scrcpy servers run on the phone now."""
    with _registry_lock:
        return _state(phone)["servers"] if "_scrcpy_state" in phone.__dict__ else 0


class Reader:
    """Exact reads over a phonesim.adb.Stream (its data comes in the host's WRTE chunks)."""

    def __init__(self, stream):
        self.stream = stream
        self.buffer = bytearray()

    def exact(self, n: int) -> bytes:
        while len(self.buffer) < n:
            data = self.stream.read()
            if data is None:
                raise EOFError("stream closed")
            self.buffer += data
        out = bytes(self.buffer[:n])
        del self.buffer[:n]
        return out


def service(phone, kind: str, name: str):
    """The function serving `sync:` or `localabstract:NAME`, None when nothing listens there."""
    if kind == "sync":
        return lambda stream: serve_sync(phone, stream)
    with _registry_lock:
        listener = _state(phone)["listeners"].get(name) if "_scrcpy_state" in phone.__dict__ else None
    if listener is None:
        return None  # the host sees the stream closed: "connection refused"
    return listener.connect


def serve_sync(phone, stream) -> None:
    """adb's sync service: STAT, SEND (DATA..., DONE) and QUIT (SYNC.TXT)."""
    reader = Reader(stream)

    def fail(message: str) -> None:
        stream.write(b"FAIL" + struct.pack("<I", len(message)) + message.encode())

    while True:
        try:
            ident, length = reader.exact(4), struct.unpack("<I", reader.exact(4))[0]
        except EOFError:
            return
        if ident == b"QUIT":
            return
        if length > 1024:  # file_sync_protocol.h: a path is at most 1024 bytes
            fail("path too long")
            return
        if ident == b"STAT":
            path = reader.exact(length).decode("utf-8", "replace")
            data = files(phone).get(path)
            if data is not None:
                stat = (S_IFREG | 0o644, len(data), int(time.time()))
            else:
                stat = (S_IFDIR | 0o771, 4096, 0) if path in DIRECTORIES else (0, 0, 0)
            stream.write(b"STAT" + struct.pack("<III", *stat))
        elif ident == b"SEND":
            spec = reader.exact(length).decode("utf-8", "replace")
            path, _, _mode = spec.rpartition(",")
            body = bytearray()
            while True:
                ident, length = reader.exact(4), struct.unpack("<I", reader.exact(4))[0]
                if ident == b"DATA" and length <= SYNC_DATA_MAX:
                    body += reader.exact(length)
                elif ident == b"DONE":
                    break
                else:
                    fail("invalid data message")
                    return
            if not path.startswith(WRITABLE) or path.endswith("/"):
                fail("couldn't create file: Permission denied")
                continue
            files(phone)[path] = bytes(body)
            stream.write(b"OKAY" + struct.pack("<I", 0))
        else:
            fail(f"unknown sync request {ident!r}")
            return


# -- the server --------------------------------------------------------------------------------

class Listener:
    """A LocalServerSocket: connections wait in a queue until the server accepts them."""

    def __init__(self):
        self.pending: queue.Queue = queue.Queue()

    def connect(self, stream) -> None:
        """Serve one connection: hand it to the server and hold it until the server is done."""
        done = threading.Event()
        self.pending.put((stream, done))
        while not done.wait(ACCEPT_POLL):
            if stream.closed:
                return
        return


def app_process(phone, env: dict[str, str], args: list[str], write) -> int:
    """`CLASSPATH=JAR app_process / CLASS ARGS...`: phonesim knows one class, scrcpy's server."""
    classpath = env.get("CLASSPATH", "")
    if len(args) < 2 or args[1] != SERVER_CLASS:
        write(b"Error: phonesim's app_process runs only com.genymobile.scrcpy.Server\n")
        return 1
    sdk = int(phone.properties().get("ro.build.version.sdk", "34"))
    jar = files(phone).get(classpath)
    if sdk < MIN_SDK:
        write(OLD_ANDROID_OUTPUT.encode())
        return ABORTED_STATUS
    if jar is None or hashlib.sha256(jar).hexdigest() != SERVER_SHA256:
        # no such file, or a jar that is not this server: app_process finds no class and aborts
        # (issue #1834's logcat: "could not find class 'com.genymobile.scrcpy.Server'")
        write(OLD_ANDROID_OUTPUT.encode())
        return ABORTED_STATUS
    server = Server(phone, write)
    try:
        server.parse(args[2:])
    except ValueError as exc:  # Server.main: Ln.e(t.getMessage(), t), exit status 1
        write(f"[server] ERROR: {exc}\njava.lang.IllegalArgumentException: {exc}\n"
              "\tat com.genymobile.scrcpy.Options.parse(Options.java)\n"
              "\tat com.genymobile.scrcpy.Server.internalMain(Server.java)\n"
              "\tat com.genymobile.scrcpy.Server.main(Server.java)\n".encode())
        return 1
    return server.run()


def limit(width: int, height: int, max_size: int) -> tuple[int, int]:
    """The video size for a screen and max_size (Size.limit, then Size.round8)."""
    if max_size and max(width, height) > max_size:
        portrait = height > width
        major, minor = (height, width) if portrait else (width, height)
        major, minor = max_size, max_size * minor // major
        width, height = (minor, major) if portrait else (major, minor)
    if width % 8 or height % 8:
        portrait = height > width
        major, minor = (height, width) if portrait else (width, height)
        major &= ~7
        minor = min((minor + 4) & ~7, major)
        width, height = (minor, major) if portrait else (major, minor)
    return width, height


class Server:
    """One running scrcpy server: its options, sockets and threads."""

    def __init__(self, phone, write):
        self.phone = phone
        self._write = write
        self._write_lock = threading.Lock()
        self._dummy_sent = False
        self.scid = -1
        self.video = True
        self.audio = True
        self.control = True
        self.max_size = 0
        self.downsize_on_error = True  # Options.java's default
        self.tunnel_forward = False
        self.send = {"device_meta": True, "frame_meta": True, "dummy_byte": True, "codec_meta": True}
        self.stop = threading.Event()
        self.streams: list = []
        self.dones: list[threading.Event] = []
        self.video_size = (phone.preset.width, phone.preset.height)
        self.costs = costs(phone)
        self._down: tuple[int, int, float] | None = None
        self.ignored = 0  # touches of another size than the video's, dropped (PositionMapper.map)
        self._moved = False
        self._last = (0, 0)

    def log(self, text: str) -> None:
        try:
            with self._write_lock:
                self._write(text.encode())
        except Exception:  # the shell is gone: nobody reads the log
            pass

    def parse(self, args: list[str]) -> None:
        """Options.parse: the version first, then key=value pairs."""
        if not args:
            raise ValueError("Missing client version")
        if args[0] != SERVER_VERSION:
            raise ValueError(f"The server version ({SERVER_VERSION}) does not match the client ({args[0]})")
        for arg in args[1:]:
            key, eq, value = arg.partition("=")
            if not eq:
                raise ValueError(f'Invalid key=value pair: "{arg}"')
            flag = value.lower() == "true"  # Boolean.parseBoolean
            if key == "scid":
                self.scid = int(value, 16)
            elif key in ("video", "audio", "control", "tunnel_forward", "downsize_on_error"):
                setattr(self, key, flag)
            elif key == "max_size":
                self.max_size = int(value) & ~7
            elif key.startswith("send_") and key[5:] in self.send:
                self.send[key[5:]] = flag
            elif key == "raw_stream" and flag:
                self.send = dict.fromkeys(self.send, False)
            elif key not in KNOWN_OPTIONS:
                self.log(f"[server] WARN: Unknown server option: {key}\n")

    def run(self) -> int:
        phone = self.phone
        self.log(f"[server] INFO: Device: [phonesim] phonesim {phone.preset.model} (Android "
                 f"{phone.properties().get('ro.build.version.release', '14')})\n")
        if not self.tunnel_forward:
            self.log("[server] ERROR: phonesim's server only runs with tunnel_forward=true (no adb reverse)\n")
            return 1
        name = "scrcpy" if self.scid == -1 else f"scrcpy_{self.scid:08x}"  # DesktopConnection.getSocketName
        listener = Listener()
        with _registry_lock:
            state = _state(phone)
            state["servers"] += 1
        state["start_s"] = _sleep(phone, self.costs.start)  # (at connect: before a run's clock)
        with _registry_lock:
            state["listeners"][name] = listener
        try:
            for wanted in (self.video, self.audio, self.control):
                if wanted:
                    self.streams.append(self._accept(listener))
                else:
                    self.streams.append(None)
            with _registry_lock:  # the LocalServerSocket closes once all are accepted
                state["listeners"].pop(name, None)
            self._serve()
        except EOFError:
            pass
        finally:
            with _registry_lock:
                if state["listeners"].get(name) is listener:
                    del state["listeners"][name]
                state["servers"] -= 1
            self.stop.set()
            for done in self.dones:
                done.set()
            while not listener.pending.empty():  # connections never accepted
                listener.pending.get()[1].set()
        return 0

    def _accept(self, listener: Listener):
        try:
            stream, done = listener.pending.get(timeout=ACCEPT_TIMEOUT)
        except queue.Empty:
            self.log("[server] ERROR: phonesim: no client connected within "
                     f"{ACCEPT_TIMEOUT:g} s\n")
            raise EOFError("nobody connected") from None
        self.dones.append(done)
        if self.send["dummy_byte"] and not self._dummy_sent:
            self._dummy_sent = True
            stream.write(b"\0")
        return stream

    def _serve(self) -> None:
        video, audio, control = self.streams
        first = video or audio or control
        if self.send["device_meta"]:
            name = self.phone.preset.model.encode()[:DEVICE_NAME_FIELD_LENGTH - 1]
            first.write(name.ljust(DEVICE_NAME_FIELD_LENGTH, b"\0"))
        if audio is not None:  # no audio here: the stream disabled, as when capture fails (code 0)
            audio.write(b"\0\0\0\0")
        threads = []
        if video is not None:
            self.video_size = limit(self.phone.preset.width, self.phone.preset.height, self.max_size)
            if self.send["codec_meta"]:
                video.write(struct.pack(">III", CODEC_H264, *self.video_size))
            threads.append(threading.Thread(target=self._stream, args=(video,), daemon=True,
                                            name="phonesim-scrcpy-video"))
        if control is not None:
            threads.append(threading.Thread(target=self._control, args=(control,), daemon=True,
                                            name="phonesim-scrcpy-control"))
        for thread in threads:
            thread.start()
        # Server.java's Completion: the server ends when any of its processors ends
        while not self.stop.wait(ACCEPT_POLL):
            if any(s is not None and s.closed for s in self.streams):
                self.stop.set()
        for thread in threads:
            thread.join(timeout=2)

    # -- control ----------------------------------------------------------------------------
    def _control(self, stream) -> None:
        reader = Reader(stream)
        try:
            while not self.stop.is_set():
                kind = reader.exact(1)[0]
                if kind == TYPE_INJECT_TOUCH_EVENT:
                    action, _pointer, x, y, w, h, _pressure, _button, _buttons = struct.unpack(
                        ">BqiiHHHii", reader.exact(31))
                    self._touch(action, x, y, w, h)
                elif kind == TYPE_INJECT_KEYCODE:
                    action, code, _repeat, _meta = struct.unpack(">Biii", reader.exact(13))
                    self._key(action, code)
                elif kind == TYPE_BACK_OR_SCREEN_ON:
                    if reader.exact(1)[0] == ACTION_UP:
                        self._key(ACTION_UP, 4)
                elif kind in EMPTY_TYPES:
                    pass
                else:  # Controller.handleEvent: a protocol error ends the controller, and the server
                    self.log(f"[server] ERROR: Control protocol error\ncom.genymobile.scrcpy.control."
                             f"ControlProtocolException: Unknown event type: {kind}\n")
                    break
        except EOFError:
            pass
        finally:
            self.stop.set()

    def _refused(self) -> bool:
        if self.phone.faults.refuse_input:
            self.log(REFUSED_OUTPUT)
            return True
        return False

    def _touch(self, action: int, x: int, y: int, w: int, h: int) -> None:
        if self._refused():
            return
        screen = self.phone.screen_size()
        if self.video:  # PositionMapper.map: only events made for the current video size, mapped back
            if (w, h) != self.video_size:
                self.ignored += 1
                return
            x, y = round(x * screen[0] / w), round(y * screen[1] / h)
        now = time.monotonic()
        if action == ACTION_DOWN:
            self._down, self._moved, self._last = (x, y, now), False, (x, y)
            return
        if self._down is None:
            return
        x0, y0, t0 = self._down
        slop = TOUCH_SLOP_DP * self.phone.preset.density / 160
        if abs(x - x0) > slop or abs(y - y0) > slop:
            self._moved = True
        self._last = (x, y)
        if action != ACTION_UP:
            return
        self._down = None
        span = self.costs.touch
        if not self._moved:
            self.phone.tap(x0, y0, cost=span)
        else:
            self.phone.swipe(x0, y0, x, y, max(1, round((now - t0) * 1000)), cost=span)

    def _key(self, action: int, code: int) -> None:
        if self._refused() or action != ACTION_UP:
            return
        name = KEYS.get(code)
        if name is not None:
            self.phone.keyevent(name, cost=self.costs.touch)

    # -- video ------------------------------------------------------------------------------
    def _prepare(self, screen_size: tuple[int, int], outgoing: queue.Queue):
        """Start the encoder for the screen's size (SurfaceEncoder.streamCapture's loop): one the
        phone's encoder refuses (larger than its preset's encoder_max) fails to configure before
        the first frame and is retried at the next smaller MAX_SIZE_FALLBACK (prepareRetry), or
        the server gives up. The position mapper takes the size the stream now has."""
        width, height = limit(*screen_size, self.max_size)
        refuses = self.phone.preset.encoder_max
        while refuses and max(width, height) > refuses:
            smaller = next((m for m in MAX_SIZE_FALLBACK if m < max(width, height)), 0)
            self.log(f"[server] ERROR: Capture/encoding error: android.media.MediaCodec$CodecException: "
                     f"Error 0xfffffc0e (configure {width}x{height})\n")
            if not self.downsize_on_error or not smaller:
                raise EOFError("the encoder refused every size")
            self.log(f"[server] INFO: Retrying with -m{smaller}...\n")
            self.max_size = smaller
            width, height = limit(*screen_size, smaller)
        self.video_size = (width, height)
        encoder = open_encoder(width, height)
        if encoder.extradata:
            outgoing.put((time.monotonic(), PACKET_FLAG_CONFIG, bytes(encoder.extradata)))
        return encoder

    def _stream(self, stream) -> None:
        """Encode the screen when it changes (and the last frame again after REPEAT_S), send each
        packet after the video latency; a screen of another size (the display turned) restarts
        the encoder at that size, as a rotation resets the capture."""
        outgoing: queue.Queue = queue.Queue()
        sender = threading.Thread(target=self._send, args=(stream, outgoing), daemon=True,
                                  name="phonesim-scrcpy-send")
        sender.start()
        screen_size = self.phone.screen_size()
        try:
            encoder = self._prepare(screen_size, outgoing)
        except EOFError:
            outgoing.put(None)
            self.stop.set()
            return
        width, height = self.video_size
        start = time.monotonic()
        last, frame, sent_at, picture, repeats = None, None, 0.0, 0, 0
        try:
            while not self.stop.is_set():
                tick = time.monotonic()
                with self.phone._lock:
                    screen, motion = self.phone.screen(log=False), self.phone.last_motion
                if (screen.shape[1], screen.shape[0]) != screen_size:  # turned: a new capture size
                    screen_size = (screen.shape[1], screen.shape[0])
                    encoder = self._prepare(screen_size, outgoing)
                    width, height = self.video_size
                    last = None
                changed = last is None or not np.array_equal(screen, last)
                if changed or repeats < REPEATS and repeat_due(tick, sent_at):
                    repeats = 0 if changed else repeats + 1
                    if changed:  # a repeat encodes the same picture again (no conversion)
                        last, picture = screen, picture + 1
                        frame = video_frame(screen, width, height)
                    sent_at = tick
                    frame.pts = int((tick - start) * 1_000_000)
                    with _registry_lock:  # what each frame sent caught (see video_log)
                        _state(self.phone).setdefault("video_log", deque(maxlen=VIDEO_LOG)).append(
                            (frame.pts, motion, picture))
                    latency = self.phone._draw(self.costs.video_latency) * self.phone.realism.scale
                    self.phone.charge_frame(latency)
                    due = tick + latency
                    for packet in encoder.encode(frame):
                        flags = packet.pts | (PACKET_FLAG_KEY_FRAME if packet.is_keyframe else 0)
                        outgoing.put((due, flags, bytes(packet)))
                look = tick + 1 / MAX_FPS
                if repeats < REPEATS:  # (the repeat is timed from the frame, not on the looks: see repeat_due)
                    look = min(look, sent_at + REPEAT_S)
                self.stop.wait(max(0.0, look - time.monotonic()))
        finally:
            outgoing.put(None)
            sender.join(timeout=2)

    def _send(self, stream, outgoing: queue.Queue) -> None:
        try:
            while True:
                item = outgoing.get()
                if item is None or self.stop.is_set():
                    return
                due, flags, data = item
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                header = struct.pack(">QI", flags, len(data)) if self.send["frame_meta"] else b""
                stream.write(header + data)
        except Exception:  # the host closed the stream: the server ends (Completion)
            self.stop.set()


# Options.java's other keys: accepted, without effect on phonesim
KNOWN_OPTIONS = {
    "log_level", "video_codec", "audio_codec", "video_source", "audio_source", "audio_dup",
    "video_bit_rate", "audio_bit_rate", "max_fps", "angle", "crop", "display_id", "show_touches",
    "stay_awake", "screen_off_timeout", "video_codec_options", "audio_codec_options", "video_encoder",
    "audio_encoder", "power_off_on_close", "clipboard_autosync", "cleanup",
    "power_on", "list_encoders", "list_displays", "list_cameras", "list_camera_sizes", "list_apps",
    "camera_id", "camera_size", "camera_facing", "camera_ar", "camera_fps", "camera_high_speed",
    "new_display", "vd_destroy_content", "vd_system_decorations", "capture_orientation",
    "display_ime_policy", "raw_stream",
}
