"""Virtual phones behind the REAL adb server, for tests, benchmarks and `tapsolve demo`.

    with Harness() as harness:                      # a private adb server on a free port
        vp = harness.add(phone)                     # phonesim serving `phone`, `adb connect`ed
        vp.device.shell("wm size")                  # adbutils -> adb server -> TCP -> phonesim
        harness.client                              # an adbutils.AdbClient for that server

The adb server is the binary in the adbutils wheel, started as `adb -P PORT server nodaemon` so we
own its process id and stop it by that id (never by name: other adb servers may be running). Its
port and every phone's port are checked free and kept out of 5554-5585, the emulator ports every
adb server scans on its own.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

import adbutils

from phonesim.adb import EMULATOR_PORTS, AdbServer
from phonesim.phone import Phone
from solver import platforms

DEFAULT_ADB_PORT = 5037


class QuietClient(adbutils.AdbClient):
    """adbutils' client, but for its fallback: when nothing answers, adbutils runs `adb
    start-server`, which would start the default server on 5037 once the harness's has gone."""

    def make_connection(self, timeout: float | None = None) -> adbutils.AdbConnection:
        try:
            connection = _QuietConnection(self.host, self.port)
        except TimeoutError:
            raise adbutils.AdbTimeout("connect to adb server timeout") from None
        if timeout:  # (none given: blocking, as adbutils' client without a socket_timeout)
            connection.conn.settimeout(timeout)
        return connection


class _QuietConnection(adbutils.AdbConnection):
    def _safe_connect(self):
        return self._create_socket()


class HarnessError(RuntimeError):
    """The private adb server or a virtual phone could not be set up."""


def adb_binary() -> str:
    """The adb binary shipped in the adbutils wheel."""
    from adbutils._utils import adb_path
    return adb_path()


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on, outside the emulator range and not adb's default 5037."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind((host, 0))
            port = sock.getsockname()[1]
        if port not in EMULATOR_PORTS and port != DEFAULT_ADB_PORT:
            return port
    raise HarnessError("no free port found")


def _reachable(port: int, host: str = "127.0.0.1") -> bool:
    try:
        socket.create_connection((host, port), timeout=0.2).close()
        return True
    except OSError:
        return False


@dataclass
class VirtualPhone:
    """One phonesim connected to the harness's adb server."""

    phone: Phone
    server: AdbServer
    device: adbutils.AdbDevice

    @property
    def serial(self) -> str:
        return self.server.serial

    @property
    def wrong_taps(self) -> int:
        """The phone's count of wrong taps (``phone.tap_log`` has every tap)."""
        return self.phone.wrong_taps

    @property
    def ad_taps(self) -> int:
        """The phone's count of taps off the game (an ad, another app, the lock screen)."""
        return self.phone.ad_taps

    def stop(self) -> None:
        """Stop the phone (as if unplugged): the adb server lists it offline, commands fail."""
        self.server.stop()

    def restart(self) -> None:
        """Bring the stopped phone back on the same port (as if plugged in again), same app state:
        the adb server reconnects to it on its own within a second or two."""
        self.server.stop()
        self.server = AdbServer(self.phone, port=self.server.port, host=self.server.host,
                                mode=self.server.mode).start()


class Harness:
    """A private adb server on its own port, plus virtual phones connected to it."""

    def __init__(self, adb_port: int | None = None, host: str = "127.0.0.1"):
        if adb_port is not None and (adb_port in EMULATOR_PORTS):
            raise HarnessError(f"adb port {adb_port} is in the emulator range 5554-5585")
        self.host = host
        self.adb_port = adb_port
        self.phones: list[VirtualPhone] = []
        self._process: subprocess.Popen | None = None
        self._logdir: str | None = None
        self.client: adbutils.AdbClient | None = None

    # -- the adb server ----------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def env(self) -> dict[str, str]:
        """Environment for a program that should use this adb server (e.g. `adb` or `tapsolve`)."""
        return dict(os.environ, ANDROID_ADB_SERVER_PORT=str(self.adb_port))

    def start(self) -> "Harness":
        if self.adb_port is None:
            self.adb_port = free_port(self.host)
        elif not port_is_free(self.adb_port, self.host):
            raise HarnessError(f"port {self.adb_port} is taken: choose another for the adb server")
        self._logdir = tempfile.mkdtemp(prefix="phonesim-adb-")
        env = dict(self.env,
                   ADB_LIBUSB="0",  # no USB scan: phones plugged into this machine stay out of it
                   ADB_MDNS_AUTO_CONNECT="0")
        with open(os.path.join(self._logdir, "adb.log"), "wb") as log:
            self._process = subprocess.Popen(
                [adb_binary(), "-P", str(self.adb_port), "server", "nodaemon"], env=env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                **platforms.apart())  # Ctrl-C in a terminal reaches us, and we stop it in order
        deadline = time.monotonic() + 15
        while not _reachable(self.adb_port, self.host):
            if self._process.poll() is not None:
                exited = self._exited()
                self.stop()
                raise exited
            if time.monotonic() > deadline:
                self.stop()
                raise HarnessError("the adb server did not start within 15 s")
            time.sleep(0.05)
        if self._process.poll() is not None:
            # it answered, then exited (its log says why: it cannot write its keys' folder, or
            # another program's listener had the port first), or someone else answered
            exited = self._exited() if self.log()[-500:].strip() else HarnessError(
                f"another program took port {self.adb_port}")
            self.stop()
            raise exited
        self.client = QuietClient(host=self.host, port=self.adb_port)
        return self

    def _exited(self) -> HarnessError:
        """The error for an adb server that exited at start, with the end of its log (read
        before ``stop``, which removes it)."""
        return HarnessError(f"the adb server exited at start: {self.log()[-500:].strip()}")

    def log(self) -> str:
        """The adb server's own log (for a failing test's message)."""
        try:
            with open(os.path.join(self._logdir, "adb.log"), errors="replace") as log:
                return log.read()
        except (OSError, TypeError):
            return ""

    # -- phones ------------------------------------------------------------------------------
    def add(self, phone: Phone, *, mode: str = "device", port: int = 0,
            timeout: float = 10) -> VirtualPhone:
        """Start phonesim for `phone` and `adb connect` to it.

        mode "device" waits until the adb server lists the phone as a device; "unauthorized" and
        "silent" (listed offline) return once the adb server knows the phone in that state.
        """
        if self.client is None:
            raise HarnessError("start the harness first")
        server = AdbServer(phone, port=port, host=self.host, mode=mode).start()
        vp = VirtualPhone(phone, server, adbutils.AdbDevice(self.client, serial=server.serial))
        self.phones.append(vp)
        want = {"device": "device", "unauthorized": "unauthorized", "silent": "offline"}[mode]
        try:
            try:
                # adb connect waits (up to ~10 s) for a phone that does not answer; we need not.
                reply = self.client.connect(server.serial, timeout=timeout if mode == "device" else 1)
            except adbutils.AdbTimeout:
                reply = "timeout"
            deadline = time.monotonic() + timeout
            while self.state(server.serial) != want:
                if time.monotonic() > deadline:
                    raise HarnessError(f"phone {server.serial} did not come up as {want!r} "
                                       f"(adb connect said {reply!r}, state {self.state(server.serial)!r})")
                time.sleep(0.05)
        except (adbutils.AdbError, OSError) as exc:  # (adbutils lets a reset connection through)
            # an adb server that answered at start may still exit just after (it cannot write
            # its keys' folder, say): its own log says why
            try:  # (one that is going: a moment to be reaped)
                exited = self._process is not None and self._process.wait(timeout=2) is not None
            except subprocess.TimeoutExpired:
                exited = False
            if exited:
                raise self._exited() from None
            raise HarnessError(f"the adb server stopped answering: {exc}") from None
        return vp

    def state(self, serial: str) -> str | None:
        """The phone's state as the adb server lists it, or None when not listed."""
        return next((info.state for info in self.client.list() if info.serial == serial), None)

    # -- stopping ----------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop every phone, then the adb server by its process id."""
        for vp in self.phones:
            vp.server.stop()
        self.phones.clear()
        if self._process is not None:
            if self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self._process.kill()
                    self._process.wait(timeout=5)
            self._process = None
        if self._logdir:
            shutil.rmtree(self._logdir, ignore_errors=True)
            self._logdir = None

    def __enter__(self) -> "Harness":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
