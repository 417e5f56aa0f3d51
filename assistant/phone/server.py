"""The adb server and its client: start one when none runs, list the phones it knows, choose
the one to play on, and the errors a person can act on with their advice.

Everything goes through the adb server (adbutils for the server's host commands, its connection
class for the device's).
"""

from __future__ import annotations

import atexit
import importlib
import os
import socket
import subprocess
import sys
import types
from dataclasses import dataclass

from solver.errors import TapsolveError


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


NO_PHONE = ("no phone found: plug it in by USB with USB debugging on (Settings > Developer "
            "options), or `adb connect HOST:PORT` for one over Wi-Fi")


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


def reachable(host: str, port: int) -> bool:
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


def _adb(port: int, command: str, timeout: float) -> bool:
    """Run `adb -P port command` quietly; False when it could not run."""
    from adbutils._utils import adb_path

    try:
        subprocess.run([adb_path(), "-P", str(port), command], timeout=timeout,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return True
    except (OSError, subprocess.SubprocessError):
        return False


def start_server(port: int) -> bool:
    """Start a local adb server on ``port`` (quietly) and stop it again when tapsolve exits."""
    if not _adb(port, "start-server", timeout=20) or not reachable(DEFAULT_HOST, port):
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
    while _started:
        _adb(_started.pop(), "kill-server", timeout=10)


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
    if not reachable(host, port) and not (start and start_server(port)):
        raise AdbServerUnreachable(
            f"cannot reach the adb server at {host}:{port}: start it with `adb start-server` "
            "(Android platform-tools), or set ANDROID_ADB_SERVER_PORT to the port it uses")
    return Client(host, port)


# -- the phones the server knows ---------------------------------------------------------------

@dataclass
class PhoneInfo:
    """One line of `adb devices -l`, with the model (and screen size, asked of a usable phone)."""

    serial: str
    state: str
    model: str = ""
    size: tuple[int, int] | None = None

    @property
    def ready(self) -> bool:
        return self.state == "device"

    def describe(self) -> str:
        return f"{self.serial} ({self.state}{', ' + self.model if self.model else ''})"


def list_phones(client: adbutils.AdbClient) -> list[PhoneInfo]:
    """The phones the adb server lists, in every state."""
    try:
        infos = client.list(extended=True)
    except (adbutils.AdbError, OSError) as exc:
        raise AdbServerUnreachable(f"the adb server at {client.host}:{client.port} did not answer: {exc}") from None
    return [PhoneInfo(info.serial, "no permissions" if info.state == "no" else info.state,
                      info.tags.get("model", "").replace("_", " ")) for info in infos]


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
        raise NoPhone(NO_PHONE)
    elif len(phones) > 1:
        raise SeveralPhones(f"{len(phones)} phones connected: {listing}; choose one with --serial SERIAL")
    else:
        phone = phones[0]
    if not phone.ready:
        raise PhoneNotReady(f"phone {phone.serial} is {phone.state}: {advice(phone.state)}")
    return phone
