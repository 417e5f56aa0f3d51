"""One phone in state "device": shell commands, taps and swipes, waiting for it to come back,
and its screen; `connect` finds the one to play on; `tapsolve devices` lists them all, and
`tapsolve connect`, `disconnect` and `pair` add and drop network phones."""

from __future__ import annotations

import atexit
import os
import socket
import sys
import time
from typing import TYPE_CHECKING, Callable, Iterable

from assistant.phone import choice
from assistant.phone.channel import Channel, ChannelUnavailable
from assistant.phone.screen import DEFAULT_DISPLAY, CaptureFailed, Screen, viewport
from assistant.phone.server import (COMMAND_TIMEOUT, NO_PHONE, AdbServerUnreachable, Client, NoPhone,
                                    PhoneLost, PhoneNotReady, adb_client, advice, choose, connect_address,
                                    disconnect, is_local, is_network, list_phones, lost_advice, pair,
                                    reachable, start_server)
from assistant.phone.server import adbutils  # imported there, after its stand-in for requests
from solver.errors import TapsolveError

if TYPE_CHECKING:
    import numpy as np


def _read_to_end(sock: socket.socket, expect: int = 0) -> bytes | bytearray:
    """Everything until the stream closes, read into one buffer (sized by expect when known):
    adbutils' plain ``shell()`` grows a bytes object 4 KiB at a time, slow for a screenshot."""
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
        self._sdk: int | None = None
        self.channel: Channel = Channel(self)  # chosen at connect (use_channel)
        self.channel_why = f"channel exec: {self.channel.why}"  # one line, for -v
        self._fallbacks: list[str] = []  # the channels to go on with when this one breaks
        self.touched_at = float("-inf")  # time.monotonic() when the last taps, swipe or key were sent
        # (the size taps are given in, the screenshot size it was read beside): see input_size
        self._input_size: tuple[tuple[int, int], tuple[int, int] | None] | None = None

    # -- commands --------------------------------------------------------------------------
    def run(self, command: str, service: str = "shell", expect: int = 0,
            timeout: float = COMMAND_TIMEOUT) -> bytes | bytearray:
        """Run a command on the phone (service "shell" or "exec") and return its whole output.

        timeout: seconds without a byte from the phone before it counts as lost."""
        sock = self.open(f"{service}:{command}", timeout)
        try:
            return _read_to_end(sock, expect)
        except (socket.timeout, TimeoutError):
            raise PhoneLost(f"the phone {self.serial} stopped answering for {timeout:g} s") from None
        except OSError as exc:
            raise PhoneLost(f"lost the phone {self.serial}: {exc}") from None
        finally:
            sock.close()  # not AdbConnection.close(): it sleeps 10 ms after shutting down

    def open(self, service: str, timeout: float = COMMAND_TIMEOUT) -> socket.socket:
        """A stream to one of the phone's services ("shell,raw:", "exec:CMD"...), opened: its socket.

        PhoneLost when the phone refuses or has gone (adbutils.AdbError's reason in it)."""
        try:
            connection = self.client.make_connection(timeout=timeout)
        except (adbutils.AdbError, OSError) as exc:
            raise AdbServerUnreachable(f"the adb server stopped answering: {exc}") from None
        sock = connection.conn
        try:
            connection.send_command(f"host:transport:{self.serial}")
            connection.check_okay()
            connection.send_command(service)
            connection.check_okay()
            return sock
        except adbutils.AdbError as exc:
            sock.close()
            raise PhoneLost(f"lost the phone {self.serial}: {_reason(exc)}; "
                            f"{lost_advice(self.serial)}") from None
        except (socket.timeout, TimeoutError):
            sock.close()
            raise PhoneLost(f"the phone {self.serial} stopped answering for {timeout:g} s") from None
        except OSError as exc:
            sock.close()
            raise PhoneLost(f"lost the phone {self.serial}: {exc}") from None

    def state(self) -> str | None:
        """The phone's state as the adb server lists it now ("device", "offline"...), None if gone."""
        try:
            return next((p.state for p in list_phones(self.client) if p.serial == self.serial), None)
        except AdbServerUnreachable:
            return None

    def reconnect(self, timeout: float = 30.0, poll: float = 0.25) -> None:
        """Wait until the phone is back in state "device" (after PhoneLost), or raise PhoneLost.

        A local adb server that died is started again (said, and left running as adb's own is).
        The adb server reconnects a phone over TCP on its own; we also ask it to (`host:connect`)
        in case it forgot the phone, e.g. after its own restart.

        What came back on the serial may not be the phone that left (its screen resized by
        `wm size`, another device given the same Wi-Fi address): its model and both sizes (input
        and screenshot) are forgotten, read again on their next use. The caller reads the screen
        again before its next touch (``assistant.link.Link``)."""
        deadline = time.monotonic() + timeout
        asked = 0.0
        while True:
            state = self.state()
            if state == "device":
                self._model = self._input_size = self._sdk = None
                self.screen.size = None  # (set again by the next capture)
                self._reopen_channel()
                return
            if state is None and not reachable(self.client.host, self.client.port) and is_local(self.client.host):
                start_server(self.client.port)  # the server died (or was killed) under us
            now = time.monotonic()
            if now > deadline:
                raise PhoneLost(f"the phone {self.serial} did not come back within {timeout:g} s "
                                f"({'last seen ' + state if state else 'not listed'})")
            if state is None and is_network(self.serial) and now - asked > 2:
                asked = now
                try:
                    connect_address(self.client, self.serial, timeout=2)
                except TapsolveError:
                    pass
            time.sleep(poll)

    def shell(self, command: str, timeout: float = COMMAND_TIMEOUT) -> str:
        return self.run(command, timeout=timeout).decode("utf-8", "replace")

    def run_binary(self, command: str, expect: int = 0) -> bytes | bytearray:
        """A command's binary output (a screenshot) as the phone wrote it: by `exec:`, or where
        adbd has none (before Android 5.0: it came with adb 21, packages/modules/adb
        daemon/services.cpp) by the legacy `shell:`, whose PTY turns every "\n" into "\r\n"
        (the terminal's ONLCR: it adds a "\r" before each "\n" and changes nothing else, so
        taking each "\r\n" back to "\n" restores the bytes exactly)."""
        if self.sdk >= EXEC_SDK:
            return self.run(command, "exec", expect)
        return self.run(command, "shell", expect).replace(b"\r\n", b"\n")

    @property
    def sdk(self) -> int:
        """The phone's API level (ro.build.version.sdk); 0 when it does not say."""
        if self._sdk is None:
            text = self.shell("getprop ro.build.version.sdk").strip()
            self._sdk = int(text) if text.isdigit() else 0
        return self._sdk

    @property
    def model(self) -> str:
        if self._model is None:
            self._model = self.shell("getprop ro.product.model").strip() or "unknown model"
        return self._model

    @property
    def input_command(self) -> str:
        """`input`, on a phone with several displays told the game's (InputShellCommand's
        `input [<source>] [-d DISPLAY_ID] <command>`, Android 10+)."""
        display = self.screen.display
        return f"input -d {display.input_id}" if display else "input"

    def input_size(self) -> tuple[int, int]:
        """The screen size taps are given in: `wm size` (an override winning over the physical),
        turned with the display's rotation.

        `wm size` prints the natural, unrotated size (WindowManagerShellCommand.java,
        getInitialDisplaySize / getBaseDisplaySize) while `input` takes rotated coordinates: a
        display turned a quarter (a landscape tablet or emulator running a portrait game) has
        its width and height swapped, as adbutils' window_size does by the rotation
        `dumpsys display` gives (openatx/adbutils adbutils/shell.py). A phone whose `dumpsys
        display` names no viewport is turned to the screenshot's orientation.

        Kept while the screenshots keep their size: one of another size means the screen changed
        (`wm size` run meanwhile, a rotation), and both are asked again."""
        shot = self.screen.size
        if self._input_size is None or self._input_size[1] != shot:
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
            display = self.screen.display
            port = viewport(self.shell("dumpsys display"), display.input_id if display else DEFAULT_DISPLAY)
            rotation = port.get("orientation", "") if port else ""
            if rotation.isdigit():
                turned = int(rotation) % 2 == 1
            else:
                turned = bool(shot) and (size[0] > size[1]) != (shot[0] > shot[1])
            self._input_size = (size[::-1] if turned else size), shot
        return self._input_size[0]

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
        """Several taps, in order, through the phone's channel."""
        points = [self._to_input(x, y) for x, y in points]
        if points:
            self._send(lambda channel: channel.taps(points))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int = 300) -> None:
        (a, b), (c, d) = self._to_input(x1, y1), self._to_input(x2, y2)
        self._send(lambda channel: channel.swipe(a, b, c, d, int(ms)))

    def key(self, code: str) -> None:
        """A system key (``KEYCODE_BACK``), as `input keyevent` sends it."""
        self._send(lambda channel: channel.key(code))

    def _send(self, action) -> None:
        """Send through the channel; one that breaks gives way to the next (said in one line),
        which sends again what never reached the phone (ChannelUnavailable.sent)."""
        while True:
            try:
                action(self.channel)
                break
            except (ChannelUnavailable, ConnectionError) as exc:
                self.fall_back(exc)
                if not isinstance(exc, ChannelUnavailable) or exc.sent:
                    break
        self.touched_at = time.monotonic()

    def use_channel(self, force: str | None = None) -> None:
        """Choose the fastest channel that starts (or ``force``'s), each passed over said in one line."""
        self.close()
        self.channel, self._fallbacks, self.channel_why = choice.choose(self, force, note)

    def fall_back(self, exc: Exception) -> None:
        """The channel broke (``exc``): the next one chosen at connect takes over, said in one line."""
        broken = self.channel.name
        self.close()
        while True:
            name = self._fallbacks.pop(0) if self._fallbacks else "exec"
            try:
                self.channel = choice.open_channel(self, name)
                break
            except ChannelUnavailable:
                continue
        self.channel_why = f"channel {name}: {self.channel.why} (the {broken} channel broke: {exc})"
        note(f"the {broken} channel to {self.serial} broke ({exc}): going on with {name}")

    def _reopen_channel(self) -> None:
        """The channel's connection died with the phone's: open the same kind again (the one
        chosen at connect, not the next slower), or fall back from it in one line."""
        if not self.channel.kept_open:
            return  # a connection per command: nothing to open again
        self.close()
        try:
            self.channel = choice.open_channel(self, self.channel.name)
        except ChannelUnavailable as exc:
            self.fall_back(exc)

    def close(self) -> None:
        """Stop the channel (what it started on the phone, too)."""
        try:
            self.channel.close()
        except (OSError, TapsolveError):
            pass  # a phone gone already

    def capture(self) -> np.ndarray:
        return self.screen.capture()


EXEC_SDK = 21  # adbd's `exec:` service came with Android 5.0 (API 21)


def _reason(exc: Exception) -> str:
    text = str(exc.args[0] if exc.args else exc).strip()
    return text or type(exc).__name__


CONNECT_WAIT = 10.0  # seconds a phone just connected over the network may take to list as ready


def note(message: str) -> None:
    """A line for the person, on stderr: what tapsolve did on its own (in the run's log too)."""
    from assistant import runlog

    runlog.line(message, said=True)
    print(f"tapsolve: {message}", file=sys.stderr, flush=True)


class Landscape(TapsolveError):
    """The screen is wider than tall: the games are read in portrait."""


def check_portrait(device: Device) -> None:
    width, height = device.size
    if width > height:
        device.close()
        raise Landscape(f"the screen of {device.serial} is landscape ({width}x{height}): switch the "
                        "emulator (or the phone) to portrait and run again")


def connect(serial: str | None = None, *, client: adbutils.AdbClient | None = None,
            log: Callable[[str], None] | None = None, channel: str | None = None) -> Device:
    """The phone to play on, its capture method chosen by timing and its channel the fastest
    that starts (``channel``: that one only); one-line errors otherwise.

    A network serial (HOST:PORT) the adb server does not list is connected first, as
    `scrcpy --tcpip` and uiautomator2 do."""
    device = Device(client or adb_client(), serial or "")
    phones = list_phones(device.client)
    if serial and is_network(serial) and all(p.serial != serial for p in phones):
        note(f"{serial} is not connected yet: connecting to it")
        connect_address(device.client, serial)
        try:
            device.reconnect(timeout=CONNECT_WAIT)
        except PhoneLost:
            pass  # listed but not ready (unauthorized...): choose says what to do
        phones = list_phones(device.client)
    phone = choose(phones, serial)
    if not serial and len(phones) > 1:
        offline = [p.serial for p in phones if p is not phone]
        note(f"using {phone.serial}, the one ready phone (offline: {', '.join(offline)}; `tapsolve "
             f"disconnect {offline[0] if len(offline) == 1 else 'HOST:PORT'}` drops it)")
    device.serial = phone.serial
    try:
        device.screen.choose()
        failed = None
    except CaptureFailed as exc:
        failed = exc  # a channel's video may show the screen: the channel is chosen all the same
    if failed is None:
        check_portrait(device)
    device.use_channel(choice.asked(channel))
    if failed is not None:
        if device.channel.frame() is None:  # (waits for the video's first frame)
            device.close()
            raise failed
        device.capture()  # the screen's size, from the video
        check_portrait(device)
    atexit.register(device.close)  # a server the channel started on the phone is stopped on the way out
    if log:
        log(f"phone {phone.serial}: {device.model}, {device.size[0]}x{device.size[1]}; "
            f"{device.screen.describe()}")
        log(f"phone {phone.serial}: {device.channel_why}")
    return device


# -- `tapsolve devices`, `connect`, `disconnect`, `pair` ----------------------------------------

# The adb ports the usual emulators listen on, on this computer: BlueStacks 5 and LDPlayer 5555
# (adb lists LDPlayer's as emulator-5554 by itself), MuMu 12 16384 and 32 more per further
# instance, MuMu 6 7555, Nox 62001, MEmu 21503.
EMULATOR_PORTS = (5555, 7555, 16384, 16416, 16448, 16480, 21503, 62001)
SCAN_PORTS_ENV = "TAPSOLVE_SCAN_PORTS"  # ports to scan instead, comma-separated (for tests)
SCAN_TIMEOUT = 0.3  # seconds a local port may take to accept before it counts as closed


def scan(client: adbutils.AdbClient, ports=None) -> list[str]:
    """Connect the emulators answering on this computer's usual adb ports: the addresses connected."""
    text = os.environ.get(SCAN_PORTS_ENV)
    ports = ports or ([int(p) for p in text.split(",") if p.strip().isdigit()] if text else EMULATOR_PORTS)
    listed = {p.serial for p in list_phones(client)}
    found = []
    for port in ports:
        address = f"127.0.0.1:{port}"
        # the server lists an emulator on 5555-5585 by itself as emulator-(port - 1)
        if address in listed or f"emulator-{port - 1}" in listed:
            continue
        try:
            socket.create_connection(("127.0.0.1", port), timeout=SCAN_TIMEOUT).close()
        except OSError:
            continue
        try:
            connect_address(client, address)
        except NoPhone as exc:
            note(str(exc))
            continue
        found.append(address)
        try:
            Device(client, address).reconnect(timeout=CONNECT_WAIT)  # until it lists as ready
        except PhoneLost:
            pass  # listed in another state: the table says what to do
    return found


def run_devices(args) -> int:
    """List the phones with their state, model and screen size, and what to do about the others."""
    client = adb_client()
    found = scan(client) if args.scan else []
    missed = "no emulator answered on the usual adb ports (is it running, with ADB on in its settings?)"
    phones = list_phones(client)
    if not phones:
        raise NoPhone(f"{missed}; {NO_PHONE}" if args.scan else NO_PHONE)
    if args.scan:
        note(f"connected {', '.join(found)}" if found else missed.replace("no emulator", "no new emulator"))
    for phone in phones:
        if phone.ready:
            try:
                device = Device(client, phone.serial)
                phone.model = device.shell("getprop ro.product.model").strip() or phone.model
                phone.size = device.input_size()
            except TapsolveError:
                pass
    header = ("SERIAL", "STATE", "MODEL", "SCREEN")
    rows = [(p.serial, p.state, p.model or "-", f"{p.size[0]}x{p.size[1]}" if p.size else "-")
            for p in phones]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    for phone, row in zip(phones, rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if not phone.ready:
            print(f"  -> {advice(phone.state, phone.serial)}")
    for phone in phones if vars(args).get("verbose") else ():
        if phone.ready:
            device = Device(client, phone.serial)
            try:
                device.use_channel(choice.asked(None))
                print(f"{phone.serial}: {device.channel_why}")
            except TapsolveError as exc:
                print(f"{phone.serial}: no channel: {exc}")
            finally:
                device.close()
    if len(phones) > 1:
        print(f"{len(phones)} phones: choose one with --serial SERIAL")
    return 0


def run_connect(args) -> int:
    """`tapsolve connect HOST:PORT`: a phone on Wi-Fi or an emulator, added to the adb server."""
    client = adb_client()
    print(connect_address(client, args.address))
    device = Device(client, args.address)
    try:
        device.reconnect(timeout=CONNECT_WAIT)
    except PhoneLost:
        state = device.state() or "not listed"
        raise PhoneNotReady(f"{args.address} is {state}: {advice(state, args.address)}") from None
    print(f"{args.address}: ready ({device.model}); play on it with --serial {args.address}")
    return 0


def run_disconnect(args) -> int:
    """`tapsolve disconnect [HOST:PORT]`: drop one network phone, or all of them."""
    print(disconnect(adb_client(), args.address))
    return 0


def run_pair(args) -> int:
    """`tapsolve pair HOST:PORT CODE`: pair with a phone's Wireless debugging (Android 11+)."""
    print(pair(adb_client(), args.address, args.code))
    print("now connect with `tapsolve connect HOST:PORT`, the address under Wireless debugging "
          "(not the pairing one)")
    return 0
