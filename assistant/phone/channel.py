"""How taps reach the phone and its screen comes back: a Channel ("scrcpy", "shell" or "exec"),
chosen at connect, fastest first, each falling back to the next with one line; each gives the
screen's captures its own way (exec and shell by screencap, scrcpy by video frame)."""

from __future__ import annotations

import itertools
import select
from typing import TYPE_CHECKING, Iterable

from assistant.phone.server import COMMAND_TIMEOUT, PhoneLost, PhoneNotReady, advice

if TYPE_CHECKING:
    import numpy as np


class ChannelUnavailable(Exception):
    """A channel cannot be used on this phone; the message is one line saying why
    ("the phone runs Android 4.4").

    Raised mid-play too, when the channel breaks (its socket closed): Device then goes on with
    the next channel. ``sent`` False says nothing of the failed call reached the phone (Device
    sends it again on the next channel); True, or absent, that some of it may have (not sent
    again: a tap played twice could undo a selection; play reads the screen after every move)."""

    sent = True
    quiet = False  # True: not the phone's failing (a client this tapsolve lacks), said only under -v


class ChannelLost(ChannelUnavailable):
    """The channel broke while in use."""

    def __init__(self, message: str, sent: bool):
        super().__init__(message)
        self.sent = sent


CHANNELS = ("scrcpy", "shell", "exec")  # fastest first


def check_input(serial: str, output: str) -> None:
    """`input` prints nothing when it works; Xiaomi phones without "USB debugging (security
    settings)" answer with a SecurityException instead (scrcpy README, prerequisites)."""
    if "SecurityException" in output or "INJECT_EVENTS" in output:
        raise PhoneNotReady(f"the phone {serial} refuses taps: {advice('unauthorized')}")


class Channel:
    """The plain channel ("exec"): one `input` shell call per batch of taps, captures by
    screencap. Coordinates are the phone's INPUT coordinates: Device scales."""

    name = "exec"
    kept_open = False  # a connection kept between calls (it dies with the phone's: opened again)
    # The time a kind of touch was learned still by runs from the touch's return to a frame's
    # time, each a little off from when the phone acted (an `input` call's tap lands somewhere
    # inside the call, a screencap shows the screen somewhere inside its own): a touch after a
    # move judged early waits this much more past the animation's learned end.
    touch_margin = 0.05
    # An `input` call returns once the phone has run it: a screen unchanged after it shows the
    # touch lost. A channel that only hands its touches over (scrcpy's) says False: a phone busy
    # elsewhere acts on them later, and a screen unchanged after them may show them yet.
    acts_before_returning = True

    def __init__(self, device, why: str = "one `input` shell call per batch of taps, screencap"):
        # the phone (assistant.phone.device.Device): its shell and serial
        self.device = device
        self.why = why

    def _input(self, commands: list[str], timeout: float) -> None:
        check_input(self.device.serial, self.device.shell("; ".join(commands), timeout=timeout))

    def taps(self, points: list[tuple[int, int]]) -> None:
        """Taps in order, in one shell call (one round trip instead of one per tap)."""
        if points:
            # a real phone takes ~0.3 s per `input tap` and says nothing until all are done
            command = self.device.input_command
            self._input([f"{command} tap {x} {y}" for x, y in points], COMMAND_TIMEOUT + 2 * len(points))

    def swipe(self, a: int, b: int, c: int, d: int, ms: int) -> None:
        self._input([f"{self.device.input_command} swipe {a} {b} {c} {d} {int(ms)}"], COMMAND_TIMEOUT + ms / 1000)

    def key(self, code: str) -> None:
        """A system key ("KEYCODE_BACK"), as `input keyevent` sends it."""
        self._input([f"{self.device.input_command} keyevent {code}"], COMMAND_TIMEOUT)

    def capture(self, lossless: bool, not_before: float | None, still: bool = False) -> tuple[np.ndarray, float | None]:
        """The screen as RGB and the time it showed it (None: taken when asked for). ``lossless``:
        a lossless capture is asked for (the read that builds a profile, one after a read that
        was not sure); ``not_before``: a capture showing the screen from then on; ``still``: the
        caller takes the screen as still from ``not_before`` on (a video's newest frame may
        stand for it). Here, and on every channel without video, a screencap (``Screen``)."""
        return self.device.screen.shot(), None

    def frame(self) -> tuple[np.ndarray, float] | None:
        """The newest decoded screen frame (RGB uint8, unwritable, screenshot orientation) and the
        time.monotonic() it showed the screen (its capture, as near as known; never after it
        arrived); None: no video here."""
        return None

    def frame_since(self, shown_from: float, wait: float) -> tuple[np.ndarray, float] | None:
        """``frame``, one that showed the screen from ``shown_from`` on, waited for up to
        ``wait`` seconds; None: no video here, or none that new came."""
        return None

    def found_by(self, sent: float) -> tuple[np.ndarray, float] | None:
        """The screen as a touch sent at ``sent`` found it, as a capture (RGB) and the time it
        showed it: the newest video frame here shown by then; None: no video here, or none."""
        return None

    def frames_between(self, after: float, before: float) -> Iterable[tuple[np.ndarray, float]]:
        """The video frames here shown between the two times, as captures (RGB) with their
        times, the newest first (none: no video here)."""
        return ()

    def settled_since(self, shown: float) -> float | None:
        """When the screen a video frame shown at ``shown`` showed stopped changing after the
        last touch, as the channel's video saw it; None: not seen so, or no video here."""
        return None

    def close(self) -> None:
        """Stops what the channel started, on the phone and here (exec starts nothing)."""


class ShellChannel(Channel):
    """One `adb shell` kept open and fed `input` lines: no connection, no shell start per tap.

    The stream is "shell,raw:", a shell without a PTY (adb daemon/services.cpp, ShellService:
    an empty command defaults to a PTY, ",raw" asks for none; daemon/shell_service.cpp,
    ForkAndExec: with no shell protocol, stderr goes down the same socket, so `input`'s
    SecurityException comes back with the rest). Shell protocol v2 ("shell,v2,raw:") would
    frame stdout, stderr and the exit code, but needs adbd's "shell_v2" feature; the legacy
    stream works on every adbd, and a phone whose adbd predates the ",raw" argument (Android 6
    and older parse only "shell:") gets "shell:" with its PTY, whose echo the marker below
    is written to be told apart from. Each batch ends with `echo` of a numbered marker: read up
    to it, the batch has run, in order, and its output is all there."""

    kept_open = True

    name = "shell"
    MARKER = ":tapsolve-done:"

    def __init__(self, device):
        super().__init__(device, "one `adb shell` kept open, fed `input` lines (no connection per tap)")
        self._numbers = itertools.count(1)
        self._pending = b""
        self._sock = None
        try:
            self._sock = device.open("shell,raw:")
        except PhoneLost:
            try:
                self._sock = device.open("shell:")
            except PhoneLost as exc:
                raise ChannelUnavailable(f"the phone opened no shell ({exc})") from None
            self.why += " (with a PTY: this adbd takes no raw shell)"
        try:
            self._input(["true"], COMMAND_TIMEOUT)  # the shell answers: it is usable
        except (ChannelUnavailable, PhoneNotReady) as exc:
            self.close()
            raise ChannelUnavailable(f"the kept-open shell did not answer ({exc})") from None

    def _input(self, commands: list[str], timeout: float) -> None:
        number = next(self._numbers)
        # '' splits the marker in the line typed (a PTY echoes it) but not in what echo prints
        marker = f"{self.MARKER}{number}:".encode()
        typed = self.MARKER.replace("done", "''done") + f"{number}:"
        try:
            # a stream closed while idle (between moves) shows as readable with nothing to read:
            # then nothing of this batch was sent, and the next channel sends it
            while select.select([self._sock], [], [], 0)[0]:
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    raise OSError("the phone closed it")
                self._pending += chunk
            self._sock.settimeout(timeout)
            self._sock.sendall(("\n".join(commands + [f"echo {typed}"]) + "\n").encode())
        except OSError as exc:
            self.close()
            raise ChannelLost(f"the kept-open shell closed ({exc or type(exc).__name__})", sent=False) from None
        output = bytearray(self._pending)
        try:
            while marker not in output:
                chunk = self._sock.recv(1 << 16)
                if not chunk:
                    raise OSError("the phone closed it")
                output += chunk
        except OSError as exc:  # (a timeout too: the shell stopped answering)
            self.close()
            raise ChannelLost(f"the kept-open shell closed ({exc or type(exc).__name__})", sent=True) from None
        end = output.index(marker) + len(marker)
        self._pending = bytes(output[end:]).lstrip(b"\r\n")
        check_input(self.device.serial, output[:end].decode("utf-8", "replace"))

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
