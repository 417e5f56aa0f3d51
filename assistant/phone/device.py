"""One phone in state "device": shell commands, taps and swipes, waiting for it to come back,
and its screen; `connect` finds the one to play on."""

from __future__ import annotations

import atexit
import re
import socket
import time
from typing import TYPE_CHECKING, Callable, Iterable

from assistant.phone import choice
from assistant.phone.channel import Channel, ChannelUnavailable
from assistant.phone.screen import (DEFAULT_DISPLAY, BlackScreen, CaptureFailed, Screen, frames_on_small_pages,
                                    is_black, viewport)
from assistant.phone.server import (COMMAND_TIMEOUT, AdbServerUnreachable, Client, NoPhone, PhoneLost,
                                    adb_client, choose, connect_address, forget_failed, is_network, list_phones,
                                    lost_advice, wait_ready)
from assistant.phone.server import adbutils  # imported there, after its stand-in for requests
from solver import notes
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

    # the channel chosen at connect and its fallbacks (a phone that comes back gets it again), and
    # the chosen one started again since the last send that went through (once: see _restart_channel)
    _chosen: tuple[str, list[str]] | None = None
    _retried: str | None = None

    def __init__(self, client: adbutils.AdbClient, serial: str):
        self.client = Client.of(client)
        self.serial = serial
        self.screen = Screen(self)
        self._model: str | None = None
        self._sdk: int | None = None
        self._identity: str | None = None
        self.channel: Channel = Channel(self)  # chosen at connect (use_channel)
        self.channel_why = f"channel exec: {self.channel.why}"  # one line, for -v
        self._fallbacks: list[str] = []  # the channels to go on with when this one breaks
        self.touched_at = float("-inf")  # time.monotonic() when the last taps, swipe or key were sent
        self.shown_at: float | None = None  # when the last capture showed the screen (see capture)
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

    def reconnect(self, timeout: float = 30.0) -> None:
        """The phone was lost (PhoneLost): wait until it is back in state "device" (``wait_ready``,
        PhoneLost when it is not) and start its channel again; the one place that does (the link
        calls it as it rides the loss out, ``assistant.link.Link``).

        What came back on the serial may not be the phone that left (its screen resized by
        `wm size`, another device given the same Wi-Fi address): its model and both sizes (input
        and screenshot) are forgotten, read again on their next use. The caller reads the screen
        again before its next touch (``assistant.link.Link``)."""
        wait_ready(self.client, self.serial, timeout)
        self._model = self._input_size = self._sdk = self._identity = None
        self.screen.size = None  # (set again by the next capture)
        self._restart_channel()

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
    def identity(self) -> str:
        """What the phone says it is, the same under each serial it is reached by (127.0.0.1:P and
        localhost:P; LDPlayer's emulator-5554 and 127.0.0.1:5555): its ``ro.serialno`` and the
        kernel's boot id, a random UUID each boot (Linux drivers/char/random.c, proc_do_uuid;
        read over adb as Volvo's one_update does, adb_interface.py get_boot_id). The serial number
        alone does not do: the Android emulator's images all say the same one (EMULATOR...), as
        many cheap phones say 0123456789ABCDEF. A phone that does not give its boot id is named
        by the serial it was reached by, as before; one that does not answer, by what it said
        last (the lock it names is held already)."""
        if self._identity is None:
            try:
                text = self.shell(f"getprop ro.serialno; cat {BOOT_ID}").replace("\r", "")
            except TapsolveError:
                return self.serial
            serialno, _, boot = text.partition("\n")
            boot = boot.strip()
            self._identity = f"{serialno.strip()}@{boot}" if BOOT_ID_FORM.fullmatch(boot) else self.serial
        return self._identity

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
                self._retried = None
                break
            except (ChannelUnavailable, ConnectionError) as exc:
                self._restart_channel(exc)
                if not isinstance(exc, ChannelUnavailable) or exc.sent:
                    break
        self.touched_at = time.monotonic()

    def use_channel(self, force: str | None = None) -> None:
        """Choose the fastest channel that starts (or ``force``'s), each passed over said in one line."""
        self.close()
        self.channel, self._fallbacks, self.channel_why = choice.choose(self, force, note)
        self._chosen = self.channel.name, list(self._fallbacks)

    def _restart_channel(self, broke: Exception | None = None) -> None:
        """Start the channel again, the one place that does: the one chosen at connect first (a
        phone that restarted under scrcpy, killing its server, gets scrcpy again), else the next
        that starts; said in one line. ``broke``: why the channel in use broke (the chosen one is
        then started again once until a send goes through; a phone gone raises PhoneLost here,
        and ``reconnect`` brings the channel back with it); None: the phone came back, and a
        channel that kept a connection open lost it with the phone's."""
        chosen, fallbacks = self._chosen or (self.channel.name, self._fallbacks)
        before = self.channel.name
        if broke is None and before == chosen and not self.channel.kept_open:
            return  # a connection per command: nothing to open again
        self.close()
        if broke is None or self._chosen and before == chosen and self._retried != before:
            if broke is not None:
                self._retried = before
            try:
                self.channel = choice.open_channel(self, chosen)
            except ChannelUnavailable as exc:
                broke = broke or exc
            else:
                if broke is not None:
                    note(f"the {before} channel to {self.serial} broke ({broke}): started it again")
                    return
                self._fallbacks = list(fallbacks)
                if chosen != before:
                    self.channel_why = f"channel {chosen}: {self.channel.why} (again, once the phone came back)"
                    note(f"{self.serial} is back: going on with the {chosen} channel again")
                return
        while True:
            name = self._fallbacks.pop(0) if self._fallbacks else "exec"
            try:
                self.channel = choice.open_channel(self, name)
                break
            except ChannelUnavailable:
                continue
        self.channel_why = f"channel {name}: {self.channel.why} (the {before} channel broke: {broke})"
        note(f"the {before} channel to {self.serial} broke ({broke}): going on with {name}")

    def close(self) -> None:
        """Stop the channel (what it started on the phone, too)."""
        try:
            self.channel.close()
        except (OSError, TapsolveError):
            pass  # a phone gone already

    def found_by(self, sent: float) -> tuple[np.ndarray, float] | None:
        """The screen as a touch sent at ``sent`` found it and when it showed it
        (``Channel.found_by``); None: no video frame of it."""
        return self.channel.found_by(sent)

    def frames_between(self, after: float, before: float) -> Iterable[tuple[np.ndarray, float]]:
        """The video frames shown between the two times, newest first (``Channel.frames_between``)."""
        return self.channel.frames_between(after, before)

    def capture(self, not_before: float | None = None, lossless: bool = True, still: bool = False) -> np.ndarray:
        """The screen as an H x W x 3 RGB image, as the channel captures it (``Channel.capture``:
        ``lossless`` asks for a screencap, else a channel with video gives a frame showing the
        screen from ``not_before`` on, taken as still from then by the caller with ``still``);
        ``shown_at``: the frame's time (None: a screencap, taken when asked). A channel that
        broke gives way to the next, which captures; BlackScreen when there is nothing on the
        screen."""
        while True:
            try:
                image, self.shown_at = self.channel.capture(lossless, not_before, still)
                break
            except (ChannelUnavailable, ConnectionError) as exc:
                self._restart_channel(exc)  # (the stream ended: the next channel, in one line)
        if is_black(image):
            raise BlackScreen(
                f"the phone {self.serial}'s screenshot is all black: the screen is off or "
                "locked, or the app shows a secure window that blocks screenshots; wake and unlock "
                "the phone and open the game")
        return image


EXEC_SDK = 21  # adbd's `exec:` service came with Android 5.0 (API 21)
BOOT_ID = "/proc/sys/kernel/random/boot_id"  # the kernel's id of this boot (a UUID), readable by all
BOOT_ID_FORM = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _reason(exc: Exception) -> str:
    text = str(exc.args[0] if exc.args else exc).strip()
    return text or type(exc).__name__


CONNECT_WAIT = 10.0  # seconds a phone just connected over the network may take to list as ready


def note(message: str) -> None:
    """A line for the person, on stderr (the logger's, from the Python API): what tapsolve did on
    its own (in the run's log too)."""
    from assistant import runlog

    runlog.line(message, said=True)
    notes.note(message)


class Landscape(TapsolveError):
    """The screen is wider than tall: the games are read in portrait."""


def check_portrait(device: Device) -> None:
    width, height = device.size
    if width > height:
        device.close()
        raise Landscape(f"the screen of {device.serial} is landscape ({width}x{height}): switch the "
                        "emulator (or the phone) to portrait and run again")


def connect(serial: str | None = None, *, client: adbutils.AdbClient | None = None,
            log: Callable[[str], None] | None = None, channel: str | None = None,
            say: Callable[[str], None] | None = None, kept=None) -> Device:
    """The phone to play on, its capture method chosen by timing and its channel the fastest
    that starts (``channel``: that one only); one-line errors otherwise. ``say``: the lines a
    person waits on (which phone, the timing, the channel), the first at once; ``kept``: where
    the capture choice is kept between runs (``recall(model)``, ``keep(model, size, method)``:
    assistant.session.CaptureChoice), so that only the first start on a phone times it.

    A network serial (HOST:PORT) the adb server does not list is connected first, as
    `scrcpy --tcpip` and uiautomator2 do."""
    frames_on_small_pages()  # (before the first capture: every frame from here on)
    client = Client.of(client or adb_client())
    phones = list_phones(client)
    if serial and is_network(serial) and all(p.serial != serial for p in phones):
        note(f"{serial} is not connected yet: connecting to it")
        listed = {p.serial for p in phones}
        try:
            connect_address(client, serial)
            wait_ready(client, serial, CONNECT_WAIT)
        except NoPhone:
            forget_failed(client, serial, listed)
            raise
        except PhoneLost:
            forget_failed(client, serial, listed)  # (an offline one: choose says it is not listed)
        phones = list_phones(client)
    phone = choose(phones, serial)
    if not serial and len(phones) > 1:
        offline = [p.serial for p in phones if p is not phone]
        note(f"using {phone.serial}, the one ready phone (offline: {', '.join(offline)}; `tapsolve "
             f"disconnect {offline[0] if len(offline) == 1 else 'HOST:PORT'}` drops it)")
    device = Device(client, phone.serial)
    if say:
        say(f"connecting to {device.model} ({phone.serial})...")
    try:
        device.screen.choose(kept=kept.recall(device.model) if kept else None, say=say)
        if kept and not device.screen.kept:
            kept.keep(device.model, device.screen.size, device.screen.method)
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
    if say:
        say(f"{device.model} ({phone.serial}), {device.size[0]}x{device.size[1]}: taps by the "
            f"{device.channel.name} channel, screenshots by {device.screen.NAMES.get(device.screen.method, 'video')}")
    if log:
        log(f"phone {phone.serial}: {device.model}, {device.size[0]}x{device.size[1]}; "
            f"{device.screen.describe()}")
        log(f"phone {phone.serial}: {device.channel_why}")
    return device
