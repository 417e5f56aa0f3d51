"""How taps reach the phone and its screen comes back: a Channel ("scrcpy", "shell" or "exec"),
chosen at connect, fastest first, each falling back to the next with one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.phone.server import COMMAND_TIMEOUT, PhoneNotReady, advice

if TYPE_CHECKING:
    import numpy as np


class ChannelUnavailable(Exception):
    """A channel cannot be used on this phone; the message is one line saying why
    ("the phone runs Android 4.4")."""


def check_input(serial: str, output: str) -> None:
    """`input` prints nothing when it works; Xiaomi phones without "USB debugging (security
    settings)" answer with a SecurityException instead (scrcpy README, prerequisites)."""
    if "SecurityException" in output or "INJECT_EVENTS" in output:
        raise PhoneNotReady(f"the phone {serial} refuses taps: {advice('unauthorized')}")


class Channel:
    """The plain channel ("exec"): one `input` shell call per batch of taps, no video (Screen
    captures by screencap). Coordinates are the phone's INPUT coordinates: Device scales."""

    name = "exec"

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
            self._input([f"input tap {x} {y}" for x, y in points], COMMAND_TIMEOUT + 2 * len(points))

    def swipe(self, a: int, b: int, c: int, d: int, ms: int) -> None:
        self._input([f"input swipe {a} {b} {c} {d} {int(ms)}"], COMMAND_TIMEOUT + ms / 1000)

    def key(self, code: str) -> None:
        """A system key ("KEYCODE_BACK"), as `input keyevent` sends it."""
        self._input([f"input keyevent {code}"], COMMAND_TIMEOUT)

    def frame(self) -> tuple[np.ndarray, float] | None:
        """The newest decoded screen frame (BGR uint8, screenshot orientation) and the time.monotonic() it
        arrived; None: this channel has no video, Screen captures by screencap."""
        return None

    def close(self) -> None:
        """Stops what the channel started, on the phone and here (exec starts nothing)."""
