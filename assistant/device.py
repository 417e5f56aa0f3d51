"""The ADB link to the phone: find it, explain its state, capture its screen the fastest way, tap it.

Everything goes through the adb server (adbutils for the server's host commands, its connection
class for the device's). Large outputs (screenshots) are read as a stream straight into one
buffer: adbutils' plain ``shell()`` grows a bytes object 4 KiB at a time, which is slow.
"""

from __future__ import annotations

import atexit
import importlib
import os
import socket
import statistics
import struct
import subprocess
import sys
import time
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from solver.errors import TapsolveError

if TYPE_CHECKING:
    import numpy as np


class _ImportedWhenUsed(types.ModuleType):
    """A stand-in in sys.modules that imports the real module on the first attribute asked of it.

    adbutils imports requests at its top (to install apps from a URL), a third of `tapsolve
    devices`' start, and tapsolve never installs an app. (importlib's LazyLoader does not do
    here: an ``import`` statement reads the module's spec, which loads it.)"""

    def __getattr__(self, attr):
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)
        self.__dict__.update(real.__dict__)
        return getattr(real, attr)


if "requests" not in sys.modules:
    sys.modules["requests"] = _ImportedWhenUsed("requests")
import adbutils  # noqa: E402 (after the stand-in above)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5037
COMMAND_TIMEOUT = 10.0  # seconds without a byte from the phone before we call it lost


# -- errors a person can act on --------------------------------------------------------------

class AdbServerUnreachable(TapsolveError):
    """The adb server does not answer."""


class NoPhone(TapsolveError):
    """No phone is connected, or not the one asked for."""


class SeveralPhones(TapsolveError):
    """More than one phone and no --serial."""


class PhoneNotReady(TapsolveError):
    """The phone is listed but cannot be used yet: unauthorized, offline, in recovery..."""


class PhoneLost(TapsolveError):
    """The phone stopped answering (unplugged, rebooted, phonesim stopped)."""


class BlackScreen(TapsolveError):
    """The screenshot is all black: nothing to read."""


ADVICE = {
    "unauthorized": 'unlock the phone and accept the "Allow USB debugging?" prompt (tick "Always '
                    'allow from this computer"); on some phones (Xiaomi, Redmi, POCO) also turn on '
                    '"USB debugging (security settings)" in Developer options so taps are accepted',
    "offline": "unplug the phone and plug it in again (or run `adb reconnect offline`); if it "
               "stays offline, turn USB debugging off and on in Developer options",
    "authorizing": "wait a moment: the phone is checking this computer's key",
    "connecting": "wait a moment: the phone is still connecting",
    "no permissions": "this computer may not open the phone's USB device: add a udev rule for it "
                      "(https://developer.android.com/studio/run/device) or restart the adb server",
    "recovery": "the phone is in recovery mode: start Android normally",
    "rescue": "the phone is in rescue mode: start Android normally",
    "sideload": "the phone is in sideload mode: start Android normally",
    "bootloader": "the phone is in the bootloader: start Android normally",
    "host": "this is not a phone but another adb server; choose a phone's serial",
}


def advice(state: str) -> str:
    return ADVICE.get(state, f"the phone is in state {state!r}: start Android normally and unlock it")


# -- the adb server --------------------------------------------------------------------------

def _server_address(host: str | None, port: int | None) -> tuple[str, int]:
    host = host or os.environ.get("ANDROID_ADB_SERVER_HOST") or DEFAULT_HOST
    if port is None:
        text = os.environ.get("ANDROID_ADB_SERVER_PORT")
        try:
            port = int(text) if text else DEFAULT_PORT
        except ValueError:
            raise AdbServerUnreachable(
                f"ANDROID_ADB_SERVER_PORT={text!r} is not a port number: fix or unset it") from None
    return host, port


def _reachable(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=1).close()
        return True
    except OSError:
        return False


class QuietConnection(adbutils.AdbConnection):
    """adbutils' connection without its fallback: when no server answers, adbutils runs `adb
    start-server` itself, which prints "daemon started successfully" into our output and leaves
    a server running after we exit. Whether to start one is tapsolve's call (start_server)."""

    def _safe_connect(self):
        return self._create_socket()


class Client(adbutils.AdbClient):
    """An adb server client whose connections never start a server on their own."""

    def __init__(self, host: str, port: int, socket_timeout: float = COMMAND_TIMEOUT):
        super().__init__(host=host, port=port, socket_timeout=socket_timeout)
        self.timeout = socket_timeout

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        try:
            connection = QuietConnection(self.host, self.port)
        except TimeoutError:
            raise adbutils.AdbTimeout("connect to adb server timeout") from None
        connection.conn.settimeout(timeout or self.timeout)
        return connection


# adb servers this tapsolve started (ports): stopped when it exits; a server that was already
# running when tapsolve came is the user's and is left alone.
_started: list[int] = []


def start_server(port: int) -> bool:
    """Start a local adb server on ``port`` (quietly) and stop it again when tapsolve exits."""
    from adbutils._utils import adb_path

    try:
        subprocess.run([adb_path(), "-P", str(port), "start-server"], timeout=20,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return False
    if not _reachable(DEFAULT_HOST, port):
        return False
    if not _started:
        atexit.register(stop_started_servers)
    if port not in _started:
        _started.append(port)
    print(f"tapsolve: started an adb server on port {port} (none was running); it stops when "
          "tapsolve does", file=sys.stderr, flush=True)
    return True


def stop_started_servers() -> None:
    """Stop the adb servers this tapsolve started (by their port, never any other)."""
    from adbutils._utils import adb_path

    while _started:
        port = _started.pop()
        try:
            subprocess.run([adb_path(), "-P", str(port), "kill-server"], timeout=10,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            pass


def is_local(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1")


def adb_client(host: str | None = None, port: int | None = None,
               start: bool | None = None) -> Client:
    """A client of the adb server (ANDROID_ADB_SERVER_HOST/PORT, default 127.0.0.1:5037).

    Like the adb command, start the default local server when none runs (``start`` defaults
    to: no host, port or ANDROID_ADB_SERVER_PORT given), say so, and stop it on exit; a server
    we cannot reach gives AdbServerUnreachable. The client never starts one by itself.
    """
    if start is None:
        start = host is None and port is None and not os.environ.get("ANDROID_ADB_SERVER_PORT") \
            and not os.environ.get("ANDROID_ADB_SERVER_HOST")
    host, port = _server_address(host, port)
    if not _reachable(host, port) and not (start and start_server(port)):
        raise AdbServerUnreachable(
            f"cannot reach the adb server at {host}:{port}: start it with `adb start-server` "
            "(Android platform-tools), or set ANDROID_ADB_SERVER_PORT to the port it uses")
    return Client(host, port)


# -- the phones the server knows ---------------------------------------------------------------

@dataclass
class PhoneInfo:
    """One line of `adb devices -l`, with the model and screen size when the phone is usable."""

    serial: str
    state: str
    model: str = ""
    size: tuple[int, int] | None = None

    @property
    def ready(self) -> bool:
        return self.state == "device"

    def describe(self) -> str:
        model = f" {self.model}" if self.model else ""
        return f"{self.serial} ({self.state}{',' if model else ''}{model})"


def list_phones(client: adbutils.AdbClient, details: bool = False) -> list[PhoneInfo]:
    """The phones the adb server lists, in every state; with details, their model and screen size."""
    try:
        infos = client.list(extended=True)
    except (adbutils.AdbError, OSError) as exc:
        raise AdbServerUnreachable(f"the adb server at {client.host}:{client.port} did not answer: {exc}") from None
    phones = []
    for info in infos:
        state = "no permissions" if info.state == "no" else info.state
        phone = PhoneInfo(info.serial, state, info.tags.get("model", "").replace("_", " "))
        if details and phone.ready:
            try:
                link = Device(client, phone.serial)
                phone.model = link.shell("getprop ro.product.model").strip() or phone.model
                phone.size = link.input_size()
            except TapsolveError:
                pass
        phones.append(phone)
    return phones


def choose(phones: list[PhoneInfo], serial: str | None) -> PhoneInfo:
    """The phone to use: the one named, or the only one; a one-line error otherwise."""
    listing = ", ".join(p.describe() for p in phones)
    if serial:
        matches = [p for p in phones if p.serial == serial]
        if not matches:
            raise NoPhone(f"no phone with serial {serial!r}; "
                          + (f"connected: {listing}" if phones else "no phone is connected"))
        phone = matches[0]
    elif not phones:
        raise NoPhone("no phone found: plug it in by USB with USB debugging on (Settings > "
                      "Developer options), or `adb connect HOST:PORT` for one over Wi-Fi")
    elif len(phones) > 1:
        raise SeveralPhones(f"{len(phones)} phones connected: {listing}; choose one with --serial SERIAL")
    else:
        phone = phones[0]
    if not phone.ready:
        raise PhoneNotReady(f"phone {phone.serial} is {phone.state}: {advice(phone.state)}")
    return phone


def connect(serial: str | None = None, *, client: adbutils.AdbClient | None = None,
            log: Callable[[str], None] | None = None) -> "Device":
    """The phone to play on, its capture method chosen by timing; one-line errors otherwise."""
    device = Device(client or adb_client(), serial or "")
    phone = choose(list_phones(device.client), serial)
    device.serial = phone.serial
    device.screen.choose()
    if log:
        log(f"phone {phone.serial}: {device.model}, {device.size[0]}x{device.size[1]}; "
            f"{device.screen.describe()}")
    return device


# -- one phone -------------------------------------------------------------------------------

def _read_to_end(sock: socket.socket, expect: int = 0) -> bytes | bytearray:
    """Everything until the stream closes, read into one buffer (sized by expect when known)."""
    buffer = bytearray(max(expect + 1, 1 << 16))
    count = 0
    while True:
        if count == len(buffer):
            buffer.extend(bytes(len(buffer)))
        with memoryview(buffer) as view, view[count:] as rest:
            got = sock.recv_into(rest)
        if not got:
            break
        count += got
    del buffer[count:]
    return buffer


class Device:
    """A phone in state "device": shell commands, taps and swipes, and its Screen."""

    def __init__(self, client: adbutils.AdbClient, serial: str):
        # never adbutils' own client: its connections start servers that print into our output
        self.client = client if isinstance(client, Client) else Client(client.host, client.port)
        self.serial = serial
        self.screen = Screen(self)
        self._model: str | None = None
        self._input_size: tuple[int, int] | None = None

    @property
    def adb(self) -> adbutils.AdbDevice:
        """adbutils' device, for anything else adbutils offers."""
        return adbutils.AdbDevice(self.client, serial=self.serial)

    # -- commands --------------------------------------------------------------------------
    def run(self, command: str, service: str = "shell", expect: int = 0,
            timeout: float = COMMAND_TIMEOUT) -> bytes | bytearray:
        """Run a command on the phone (service "shell" or "exec") and return its whole output.

        timeout: seconds without a byte from the phone before it counts as lost."""
        try:
            connection = self.client.make_connection(timeout=timeout)
        except (adbutils.AdbError, OSError) as exc:
            raise AdbServerUnreachable(f"the adb server stopped answering: {exc}") from None
        sock = connection.conn
        try:
            connection.send_command(f"host:transport:{self.serial}")
            connection.check_okay()
            connection.send_command(f"{service}:{command}")
            connection.check_okay()
            return _read_to_end(sock, expect)
        except adbutils.AdbError as exc:
            raise PhoneLost(f"lost the phone {self.serial}: {_reason(exc)}; check the cable "
                            "(or `adb connect` again) and unlock the phone") from None
        except (socket.timeout, TimeoutError):
            raise PhoneLost(f"the phone {self.serial} stopped answering for {timeout:g} s") from None
        except OSError as exc:
            raise PhoneLost(f"lost the phone {self.serial}: {exc}") from None
        finally:
            sock.close()  # not AdbConnection.close(): it sleeps 10 ms after shutting down

    def state(self) -> str | None:
        """The phone's state as the adb server lists it now ("device", "offline"...), None if gone."""
        try:
            return next((p.state for p in list_phones(self.client) if p.serial == self.serial), None)
        except AdbServerUnreachable:
            return None

    def reconnect(self, timeout: float = 30.0, poll: float = 0.25) -> None:
        """Wait until the phone is back in state "device" (after PhoneLost), or raise PhoneLost.

        A local adb server that died is started again (said, and stopped when tapsolve exits).
        The adb server reconnects a phone over TCP on its own; we also ask it to (`adb connect`)
        in case it forgot the phone, e.g. after its own restart."""
        deadline = time.monotonic() + timeout
        asked = 0.0
        state = None
        while True:
            state = self.state()
            if state == "device":
                return
            if state is None and not _reachable(self.client.host, self.client.port) and is_local(self.client.host):
                start_server(self.client.port)  # the server died (or was killed) under us
            now = time.monotonic()
            if now > deadline:
                raise PhoneLost(f"the phone {self.serial} did not come back within {timeout:g} s "
                                f"({'last seen ' + state if state else 'not listed'})")
            if state is None and ":" in self.serial and now - asked > 2:
                asked = now
                try:
                    self.client.connect(self.serial, timeout=2)
                except (adbutils.AdbError, OSError):
                    pass
            time.sleep(poll)

    def shell(self, command: str, timeout: float = COMMAND_TIMEOUT) -> str:
        return self.run(command, timeout=timeout).decode("utf-8", "replace")

    @property
    def model(self) -> str:
        if self._model is None:
            self._model = self.shell("getprop ro.product.model").strip() or "unknown model"
        return self._model

    def input_size(self) -> tuple[int, int]:
        """The screen size taps are given in (`wm size`, an override winning over the physical)."""
        if self._input_size is None:
            text = self.shell("wm size")
            sizes = {}
            for line in text.splitlines():
                name, _, value = line.partition(":")
                w, _, h = value.strip().partition("x")
                if w.isdigit() and h.isdigit():
                    sizes[name.strip()] = (int(w), int(h))
            size = sizes.get("Override size") or sizes.get("Physical size")
            if size is None:
                raise PhoneLost(f"the phone {self.serial} did not say its screen size (`wm size`: {text.strip()!r})")
            self._input_size = size
        return self._input_size

    @property
    def size(self) -> tuple[int, int]:
        """The screenshot's size (width, height): what tap coordinates are given in."""
        return self.screen.size or self.input_size()

    # -- touching --------------------------------------------------------------------------
    def _to_input(self, x: float, y: float) -> tuple[int, int]:
        """Screenshot pixels to the phone's input coordinates (they differ under `wm size` overrides)."""
        shot = self.screen.size
        real = self.input_size()
        if shot and shot != real:
            x, y = x * real[0] / shot[0], y * real[1] / shot[1]
        return round(x), round(y)

    def tap(self, x: float, y: float) -> None:
        self.taps([(x, y)])

    def taps(self, points: Iterable[tuple[float, float]]) -> None:
        """Several taps in one shell call, in order (one round trip instead of one per tap)."""
        commands = ["input tap %d %d" % self._to_input(x, y) for x, y in points]
        if commands:
            # a real phone takes ~0.3 s per `input tap` and says nothing until all are done
            self._check_input(self.shell("; ".join(commands), timeout=COMMAND_TIMEOUT + 2 * len(commands)))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int = 300) -> None:
        (a, b), (c, d) = self._to_input(x1, y1), self._to_input(x2, y2)
        self._check_input(self.shell(f"input swipe {a} {b} {c} {d} {int(ms)}",
                                     timeout=COMMAND_TIMEOUT + ms / 1000))

    def _check_input(self, output: str) -> None:
        # `input` prints nothing when it works; Xiaomi phones without "USB debugging (security
        # settings)" answer with a SecurityException instead.
        if "SecurityException" in output or "INJECT_EVENTS" in output:
            raise PhoneNotReady(f"the phone {self.serial} refuses taps: {advice('unauthorized')}")

    def capture(self) -> np.ndarray:
        return self.screen.capture()


def _reason(exc: Exception) -> str:
    text = str(exc.args[0] if exc.args else exc).strip()
    return text or type(exc).__name__


# -- the screen ------------------------------------------------------------------------------

def decode_png(data: bytes | bytearray) -> np.ndarray:
    import cv2  # here, not at the top: `tapsolve devices` decodes no screen and starts faster
    import numpy as np

    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    except cv2.error:
        image = None
    if image is None:
        raise ValueError(f"not a PNG ({len(data)} bytes: {bytes(data[:40])!r})")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


# Android PixelFormat values screencap writes: bytes per pixel and the cv2 conversion to RGB.
_RAW_FORMATS = {1: (4, "COLOR_RGBA2RGB"), 2: (4, "COLOR_RGBA2RGB"), 3: (3, None),
                5: (4, "COLOR_BGRA2RGB"), 4: (2, "COLOR_BGR5652RGB")}


def decode_raw(data: bytes | bytearray) -> np.ndarray:
    """Plain `screencap`: width, height, format (and, since Android 9, a colour space) then pixels."""
    if len(data) < 12:
        raise ValueError(f"raw screencap too short ({len(data)} bytes: {bytes(data)!r})")
    width, height, pixel_format = struct.unpack_from("<3I", data)
    if pixel_format not in _RAW_FORMATS or not 0 < width <= 10000 or not 0 < height <= 10000:
        raise ValueError(f"not a raw screencap (header {width}x{height} format {pixel_format}): "
                         f"{bytes(data[:40])!r}")
    depth, conversion = _RAW_FORMATS[pixel_format]
    header = len(data) - width * height * depth
    if header not in (12, 16):
        raise ValueError(f"raw screencap of {len(data)} bytes does not hold {width}x{height} pixels")
    import numpy as np

    pixels = np.frombuffer(data, np.uint8, width * height * depth, header)
    pixels = pixels.reshape(height, width, depth) if depth != 2 else pixels.reshape(height, width, 2)
    if conversion is None:
        return pixels.copy()
    import cv2

    return cv2.cvtColor(pixels, getattr(cv2, conversion))


class Screen:
    """Captures the phone's screen as RGB, by the method that was fastest when timed at connect."""

    METHODS = {"png": ("screencap -p", decode_png), "raw": ("screencap", decode_raw)}
    NAMES = {"png": "PNG screencap -p", "raw": "raw screencap"}

    def __init__(self, device: Device, method: str = "png"):
        self.device = device
        self.method = method
        self.timings: dict[str, float] = {}  # method -> median seconds at connect
        self.failures: dict[str, str] = {}
        self.size: tuple[int, int] | None = None  # (width, height) of the last capture
        self._expect: dict[str, int] = {}
        self.decode_s = 0.0  # seconds spent decoding captures (the computer's, not the phone's)

    def grab(self, method: str) -> np.ndarray:
        """One capture by the named method, without the black-frame check."""
        command, decode = self.METHODS[method]
        data = self.device.run(command, "exec", self._expect.get(method, 0))
        self._expect[method] = len(data)
        start = time.monotonic()
        try:
            image = decode(data)
        except ValueError as exc:
            if self.device.state() != "device":  # cut off because the phone went away
                raise PhoneLost(f"lost the phone {self.device.serial} during a screenshot; check "
                                "the cable (or `adb connect` again)") from None
            raise CaptureFailed(f"the phone's {self.NAMES[method]} gave no picture: {exc}") from None
        self.decode_s += time.monotonic() - start
        self.size = (image.shape[1], image.shape[0])
        return image

    def choose(self, tries: int = 3) -> str:
        """Time each method (median of tries after one warm-up) and keep the fastest that works."""
        self.timings.clear()
        self.failures.clear()
        for method in self.METHODS:
            try:
                self.grab(method)
                times = []
                for _ in range(tries):
                    start = time.perf_counter()
                    self.grab(method)
                    times.append(time.perf_counter() - start)
                self.timings[method] = statistics.median(times)
            except CaptureFailed as exc:
                self.failures[method] = str(exc)
        if not self.timings:
            raise CaptureFailed(f"cannot capture the phone's screen: {'; '.join(self.failures.values())}")
        self.method = min(self.timings, key=self.timings.get)
        return self.method

    def describe(self) -> str:
        """Which method captures and how fast each was, for --verbose."""
        others = ", ".join(f"{self.NAMES[m]} {t * 1000:.0f} ms" for m, t in self.timings.items()
                           if m != self.method)
        failed = ", ".join(f"{self.NAMES[m]} failed" for m in self.failures)
        timing = self.timings.get(self.method)
        text = f"capture by {self.NAMES[self.method]}" + (f" ({timing * 1000:.0f} ms)" if timing else "")
        extra = "; ".join(x for x in (others, failed) if x)
        return text + (f"; also timed {extra}" if extra else "")

    def capture(self) -> np.ndarray:
        """The screen as an H x W x 3 RGB image; BlackScreen when there is nothing on it."""
        image = self.grab(self.method)
        if is_black(image):
            raise BlackScreen(
                f"the phone {self.device.serial}'s screenshot is all black: the screen is off or "
                "locked, or the app shows a secure window that blocks screenshots; wake and unlock "
                "the phone and open the game")
        return image


class CaptureFailed(TapsolveError):
    """The phone answered a screenshot with something that is not one."""


def is_black(image: np.ndarray) -> bool:
    """True when every pixel is (nearly) black: what screencap gives for secure windows and an off screen."""
    return int(image[::4, ::4].max(initial=0)) < 16


# -- `tapsolve devices` ---------------------------------------------------------------------

def run_devices(args) -> int:
    """List the phones with their state, model and screen size, and what to do about the others."""
    client = adb_client()
    phones = list_phones(client, details=True)
    if not phones:
        raise NoPhone("no phone found: plug it in by USB with USB debugging on (Settings > "
                      "Developer options), or `adb connect HOST:PORT` for one over Wi-Fi")
    rows = [(p.serial, p.state, p.model or "-", f"{p.size[0]}x{p.size[1]}" if p.size else "-")
            for p in phones]
    widths = [max(len(r[i]) for r in rows + [("SERIAL", "STATE", "MODEL", "SCREEN")]) for i in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(("SERIAL", "STATE", "MODEL", "SCREEN"), widths)).rstrip())
    for phone, row in zip(phones, rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if not phone.ready:
            print(f"  -> {advice(phone.state)}")
    if len(phones) > 1:
        print(f"{len(phones)} phones: choose one with --serial SERIAL")
    return 0
