"""The adb server and its client: start one when none runs, list the phones it knows, choose
the one to play on, and the errors a person can act on with their advice.

Everything goes through the adb server (adbutils for the server's host commands, its connection
class for the device's).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import types
from dataclasses import dataclass

from solver import notes, platforms
from solver.errors import TapsolveError
from solver.files import is_digits


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
# adbutils makes a client of its own as it is imported, int(ANDROID_ADB_SERVER_PORT) a ValueError
# for "" or "abc": it is imported without a port that is not a number (our clients read the
# variable themselves, _server_address, and say what is wrong with it in one line)
_port = os.environ.get("ANDROID_ADB_SERVER_PORT")
if _port is not None and not re.fullmatch(r"[0-9]+", _port):
    del os.environ["ANDROID_ADB_SERVER_PORT"]
import adbutils  # noqa: E402 (after the stand-in above)

if _port is not None:
    os.environ["ANDROID_ADB_SERVER_PORT"] = _port

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
    "offline": "unplug the phone and plug it in again; if it stays offline, turn USB debugging "
               "off and on in Developer options",
    "authorizing": "wait a moment: the phone is checking this computer's key",
    "connecting": "wait a moment: the phone is still connecting",
    "no permissions": "this computer may not open the phone's USB device: add a udev rule for it "
                      "(https://developer.android.com/studio/run/device), then plug the phone in again",
    "recovery": "the phone is in recovery mode: start Android normally",
    "rescue": "the phone is in rescue mode: start Android normally",
    "sideload": "the phone is in sideload mode: start Android normally",
    "bootloader": "the phone is in the bootloader: start Android normally",
    "host": "this is not a phone but another adb server; choose a phone's serial",
}


NO_PHONE = ("no phone found: plug it in by USB with USB debugging on (Settings > Developer "
            "options), connect one on Wi-Fi or an emulator with `tapsolve connect HOST:PORT`, or "
            "find local emulators with `tapsolve devices --scan`")


def is_network(serial: str | None) -> bool:
    """Whether a serial is a network address (HOST:PORT: Wi-Fi debugging, an emulator's port)."""
    host, _, port = (serial or "").rpartition(":")
    return bool(host) and is_digits(port)


def advice(state: str, serial: str | None = None) -> str:
    if state == "unauthorized" and is_network(serial):
        # over the network the prompt shows on an emulator or a phone on `adb tcpip`; a phone on
        # Wireless debugging (Android 11+) asks to be paired instead: `tapsolve connect` and
        # `tapsolve devices` both give this line (connect_address)
        return (f'accept the "Allow debugging?" prompt on the phone or emulator if it shows one (tick "Always '
                'allow"); a phone on Wireless debugging must be paired first: `tapsolve pair HOST:PORT CODE` with '
                'what its "Pair device with pairing code" dialog shows, then `tapsolve connect '
                f'{serial}`')
    if state == "offline" and is_network(serial):
        # no cable to unplug: the server keeps retrying a network phone that is gone
        return (f"drop it with `tapsolve disconnect {serial}`, then `tapsolve connect {serial}` "
                "once the phone or emulator is back")
    return ADVICE.get(state, f"the phone is in state {state!r}: start Android normally and unlock it")


def lost_advice(serial: str) -> str:
    """What to do about a phone that stopped answering: its cable, or connecting it again."""
    if is_network(serial):
        return f"check that it is on (and on the same Wi-Fi), then `tapsolve connect {serial}`"
    return "check the cable and unlock the phone"


# -- the adb server --------------------------------------------------------------------------

def _server_address(host: str | None, port: int | None) -> tuple[str, int]:
    host = host or os.environ.get("ANDROID_ADB_SERVER_HOST") or DEFAULT_HOST
    if port is None:
        text = os.environ.get("ANDROID_ADB_SERVER_PORT")
        try:
            port = int(text) if text else DEFAULT_PORT
            if not 0 < port < 65536:
                raise ValueError(port)
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

    @classmethod
    def of(cls, client: adbutils.AdbClient) -> Client:
        """``client`` as one of ours: never adbutils' own, whose connections start servers that
        print into our output."""
        return client if isinstance(client, cls) else cls(client.host, client.port)

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


# adb servers this tapsolve started (port -> process): left running when it exits, as adb's own
# start-server leaves one; a private server's owner (the demo) stops its replacement by pid
# (stopping_started).
_started: dict[int, subprocess.Popen] = {}
SERVER_START_TIMEOUT = 20.0  # seconds for a new adb server to answer before it counts as failed


class AdbServerFailed(TapsolveError):
    """An adb server tapsolve started exited before it answered; the message is adb's reason."""


def adb_failure(log: str) -> str:
    """Why an adb server stopped at its start, in one line, from its log: the last fatal line
    (adb logs as "MM-DD hh:mm:ss.mmm PID TID F adb     : file.cpp:NN message", LOG(FATAL) and
    PLOG(FATAL) in adb's sources; e.g. adb_utils.cpp adb_get_android_dir_path: "Cannot mkdir
    '$HOME/.android': Not a directory", for adb keeps its keys in $HOME/.android), with what to do."""
    fatal = re.findall(r"^.*? [FE] adb\s*: (?:\S+\.cpp:\d+ )?(.+)$", log, re.MULTILINE)
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    why = fatal[-1] if fatal else (lines[-1] if lines else "it exited without a word")
    if ".android" in why:
        why += " (adb keeps its keys in $HOME/.android: set HOME to a folder you can write)"
    return why


def answers(host: str, port: int, timeout: float = 5.0) -> bool:
    """Whether an adb server answers a request there, not only accepts the connection: a new
    server listens before it has loaded its keys from $HOME/.android, where it may still stop
    (adb client/main.cpp: the listener is installed first, connections are accepted after the
    start-up; the first answer can take some 3 s). The request is adb's smart-socket "host:version"
    (4 hex digits of length, then the service; a server says OKAY: adb's OVERVIEW.TXT/SERVICES.TXT)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.sendall(b"%04xhost:version" % len(b"host:version"))
            reply = b""
            while len(reply) < 4:
                chunk = conn.recv(4 - len(reply))
                if not chunk:
                    break
                reply += chunk
            return reply == b"OKAY"
    except OSError:
        return False


def start_server(port: int) -> bool:
    """Start a local adb server on ``port`` unless one answers there (never a second one: two
    server versions stop each other), wait until it answers, and say so; False when it could not
    be run; AdbServerFailed with adb's reason when it ran and stopped."""
    if reachable(DEFAULT_HOST, port):
        return True
    from adbutils._utils import adb_path

    try:
        adb = adb_path()
    except adbutils.AdbError:
        return False  # (no adb beside adbutils: adb_client says to reinstall)
    try:
        # its log, kept for the reason should it stop at its start (a nameless file: nothing is left)
        log = tempfile.TemporaryFile()
    except OSError:
        log = None
    try:
        # apart from the terminal: a Ctrl-C in it, or tapsolve's exit, leaves it running
        process = subprocess.Popen([adb, "-P", str(port), "server", "nodaemon"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=log or subprocess.DEVNULL, **platforms.apart())
    except OSError:
        return False
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while process.poll() is not None or not answers(DEFAULT_HOST, port):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            if log is None or process.wait() is None:
                return False
            log.seek(0)
            raise AdbServerFailed(f"the adb server on port {port} stopped at its start: "
                                  f"{adb_failure(log.read(1 << 16).decode(errors='replace'))}")
        time.sleep(0.05)
    if log is not None:
        log.close()  # the server keeps its own descriptor
    _started[port] = process
    notes.note(f"started an adb server on port {port} (process {process.pid}; none was running); it keeps "
               "running after tapsolve, as adb's own does")
    return True


@contextlib.contextmanager
def stopping_started(port: int):
    """Within it, an adb server this tapsolve starts on ``port`` (in place of a private server
    that died) is stopped by its process id at the end, as the private one is."""
    try:
        yield
    finally:
        process = _started.pop(port, None)
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()


def is_local(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1")


def adb_client(host: str | None = None, port: int | None = None,
               start: bool | None = None) -> Client:
    """A client of the adb server (ANDROID_ADB_SERVER_HOST/PORT, default 127.0.0.1:5037).

    Like the adb command, start a local server where none runs (``start`` defaults to: no host
    or port given by the caller, and the server's host, ANDROID_ADB_SERVER_HOST, this computer),
    on ANDROID_ADB_SERVER_PORT's port when it is set, as adb starts its server on the port it
    was told (adb client/adb_client.cpp, adb_connect: a local server that does not answer is
    launched, launch_server, on the port of __adb_server_socket_spec), say so, and leave it
    running; a server we cannot reach gives AdbServerUnreachable. The client never starts one by
    itself."""
    if start is None:
        start = host is None and port is None and is_local(os.environ.get("ANDROID_ADB_SERVER_HOST") or DEFAULT_HOST)
    host, port = _server_address(host, port)
    if not reachable(host, port) and not (start and start_server(port)):
        raise AdbServerUnreachable(
            f"cannot reach the adb server at {host}:{port}" + (
                " and could not start one: reinstall tapsolve (its adb comes with adbutils)" if start else
                ": start that server, or unset ANDROID_ADB_SERVER_HOST and tapsolve starts one on this computer"))
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


def phone_state(client: adbutils.AdbClient, serial: str) -> str | None:
    """A phone's state as the adb server lists it now ("device", "offline"...), None if gone."""
    try:
        return next((p.state for p in list_phones(client) if p.serial == serial), None)
    except AdbServerUnreachable:
        return None


def wait_ready(client: adbutils.AdbClient, serial: str, timeout: float, poll: float = 0.25) -> None:
    """Wait until the adb server lists ``serial`` in state "device", or raise PhoneLost.

    A local adb server that died is started again (said, and left running as adb's own is).
    The adb server reconnects a phone over TCP on its own; we also ask it to (`host:connect`)
    in case it forgot the phone, e.g. after its own restart."""
    deadline = time.monotonic() + timeout
    asked = 0.0
    while True:
        now_state = phone_state(client, serial)
        if now_state == "device":
            return
        if now_state is None and not reachable(client.host, client.port) and is_local(client.host):
            start_server(client.port)  # the server died (or was killed) under us
        now = time.monotonic()
        if now > deadline:
            raise PhoneLost(f"the phone {serial} did not come back within {timeout:g} s "
                            f"({'last seen ' + now_state if now_state else 'not listed'})")
        if now_state is None and is_network(serial) and now - asked > 2:
            asked = now
            try:
                connect_address(client, serial, timeout=2)
            except TapsolveError:
                pass
        time.sleep(poll)


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
        ready = [p for p in phones if p.ready]
        # a network phone gone offline (an emulator closed, a phone off the Wi-Fi) is a leftover
        # the server keeps retrying, not a second choice
        if len(ready) != 1 or not all(p.ready or (p.state == "offline" and is_network(p.serial))
                                      for p in phones):
            raise SeveralPhones(f"{len(phones)} phones connected: {listing}; choose one with --serial SERIAL")
        phone = ready[0]
    else:
        phone = phones[0]
    if not phone.ready:
        raise PhoneNotReady(f"phone {phone.serial} is {phone.state}: {advice(phone.state, phone.serial)}")
    return phone


# -- the server's host services for network phones: adb's connect, disconnect and pair ---------

CONNECT_TIMEOUT = 10.0  # seconds the server may take to reach a network phone
# what an adb server answers (FAIL) a host request it does not know, as one older than a service
# does (packages/modules/adb sockets.cpp, smart_socket_enqueue: SendFail "unknown host service")
UNKNOWN_SERVICE = "unknown host service"
# seconds the pairing exchange may take: adb's pairing client gives the phone 10 s to accept
# (packages/modules/adb client/pairing/pairing_client.cpp, StartConnection: ``const int timeout =
# 10;  // seconds``), and the exchange itself is a few small messages; a port that accepts and then
# says nothing is not waited on longer than that
PAIR_TIMEOUT = 15.0


def connect_address(client: adbutils.AdbClient, address: str, timeout: float = CONNECT_TIMEOUT) -> str:
    """Have the adb server connect to the phone at HOST:PORT (`host:connect:`): its reply, or NoPhone."""
    # the replies: packages/modules/adb transport_local.cpp, connect_device: "connected to X",
    # "already connected to X", "failed to authenticate to X", "failed to connect to ..."
    try:
        reply = client.connect(address, timeout=timeout)
    except adbutils.AdbTimeout:
        reply = f"no answer within {timeout:g} s"
    except (adbutils.AdbError, OSError) as exc:
        raise AdbServerUnreachable(f"the adb server at {client.host}:{client.port} did not answer: {exc}") from None
    if reply.startswith(("connected to", "already connected to")):
        return reply
    if "authenticate" in reply:
        raise NoPhone(f"{address} is unauthorized ({reply}): {advice('unauthorized', address)}")
    raise NoPhone(f"cannot connect to {address}: {reply}; check the address (the phone's Wireless "
                  "debugging screen, or the emulator's adb port) and that the phone or emulator is on")


def forget_failed(client: adbutils.AdbClient, address: str, listed: set[str]) -> None:
    """After a connect to ``address`` that failed: drop the entry it left in the server's list
    when it is offline (adb keeps retrying a network address it was asked to connect, and lists
    it offline: packages/modules/adb transport.cpp, the reconnect handler) and was not there
    before (``listed``: the serials listed before). An unauthorized one stays: its prompt waits."""
    if address in listed:
        return
    try:
        if any(p.serial == address and p.state == "offline" for p in list_phones(client)):
            client.disconnect(address)
    except (TapsolveError, adbutils.AdbError, OSError):
        pass  # (a server gone meanwhile: nothing left to drop)


def disconnect(client: adbutils.AdbClient, address: str | None = None) -> str:
    """Drop a network phone from the adb server (`host:disconnect:`; every one when no address)."""
    # packages/modules/adb adb.cpp, handle_host_request: "" -> "disconnected everything" (USB
    # phones stay), else "disconnected X" or FAIL "no such device 'X'"
    try:
        return client.disconnect(address or "", raise_error=True)
    except OSError as exc:
        raise AdbServerUnreachable(f"the adb server at {client.host}:{client.port} did not answer: {exc}") from None
    except adbutils.AdbError as exc:
        raise NoPhone(f"cannot disconnect {address}: {exc}; see `tapsolve devices`") from None


def pair(client: adbutils.AdbClient, address: str, code: str) -> str:
    """Pair with a phone's Wireless debugging (Android 11+) at its pairing HOST:PORT: the adb server
    does the exchange itself. Its "Successfully paired to ..." line, or NoPhone with its reason."""
    # packages/modules/adb client/commandline.cpp, `adb pair`: adb_query("host:pair:CODE:HOST:PORT");
    # services.cpp, pair_service: after the service's OKAY, adb_wifi_pair_device's response
    # (client/adb_wifi.cpp) as a length-prefixed string when it starts "Successful", else FAIL
    # and the length-prefixed reason ("Failed: Wrong password or connection was dropped.")
    try:
        with client.make_connection(timeout=PAIR_TIMEOUT) as connection:
            connection.send_command(f"host:pair:{code}:{address}")
            connection.check_okay()
            status = connection.read(4)
            if status == b"FAIL":
                reply = connection.read_string_block()
            elif len(status) == 4:
                reply = connection.read_string(int(status, 16))
            else:
                reply = "the adb server closed the connection without an answer"
    except adbutils.AdbTimeout:
        reply = f"no answer within {PAIR_TIMEOUT:g} s"
    except ValueError:
        reply = f"an answer that is not adb's ({status!r})"
    except (adbutils.AdbError, OSError) as exc:
        reply = str(exc)
    if reply.startswith("Successful"):
        return reply
    if UNKNOWN_SERVICE in reply:
        raise AdbServerUnreachable(
            f"the adb server at {client.host}:{client.port} is too old to pair (it answered \"{reply}\"; "
            "pairing came with adb 30, platform-tools 30.0.0): update platform-tools, or stop that server "
            "(`adb kill-server`) and let tapsolve start its own, then pair again")
    raise NoPhone(f"pairing with {address} failed: {reply}; check the pairing code and port (they change "
                  "each time the phone's \"Pair device with pairing code\" dialog opens)")
