"""Which channel a phone gets: the fastest that starts on it (scrcpy, the kept-open shell, exec),
each passed over said in one line; also the one a broken channel hands over to."""

from __future__ import annotations

import os
from typing import Callable

from assistant.phone.channel import CHANNELS, Channel, ChannelUnavailable, ShellChannel
from solver.errors import TapsolveError


class ChannelRefused(TapsolveError):
    """The channel asked for (--channel) cannot be used on this phone."""


# the channel a process uses when no --channel is given (a script's, a test suite's); unset: auto
VARIABLE = "TAPSOLVE_CHANNEL"


def asked(channel: str | None) -> str | None:
    """The channel to force: ``channel`` (--channel), else $TAPSOLVE_CHANNEL; None for auto."""
    channel = channel or os.environ.get(VARIABLE, "").strip() or "auto"
    if channel != "auto" and channel not in CHANNELS:
        raise ChannelRefused(f"{VARIABLE} is {channel!r}, not one of auto, {', '.join(CHANNELS)}: "
                             f"fix it or unset {VARIABLE}")
    return None if channel == "auto" else channel


def open_channel(device, name: str) -> Channel:
    """The named channel, started on the phone; ChannelUnavailable (with why) when it cannot be."""
    if name == "scrcpy":
        try:
            from assistant.phone import scrcpy
        except ImportError:
            missing = ChannelUnavailable("this tapsolve has no scrcpy client")
            missing.quiet = True
            raise missing from None
        return scrcpy.start(device)
    if name == "shell":
        return ShellChannel(device)
    if name == "exec":
        return Channel(device)
    raise ValueError(f"no channel {name!r}")




def choose(device, force: str | None = None, note: Callable[[str], None] = print) -> tuple[Channel, list[str], str]:
    """The fastest channel that starts on the phone (only ``force`` when given), each one that
    does not said in one line by ``note``: (the channel, the ones left to fall back on, a line
    on why this one)."""
    names = list(CHANNELS)
    if force:
        names = names[names.index(force):]
    passed = []
    for index, name in enumerate(names):
        try:
            channel = open_channel(device, name)
        except ChannelUnavailable as exc:
            if force:
                raise ChannelRefused(f"the {name} channel cannot be used on {device.serial}: {exc}; "
                                     "run without --channel to take the fastest that works") from None
            passed.append(f"{name}: {exc}")
            if not exc.quiet:
                note(f"{device.serial}: no {name} channel ({exc}); trying {names[index + 1]}")
            continue
        because = f"channel {channel.name}: {channel.why}"
        if force:
            because += " (asked for with --channel)"
        elif passed:
            because += "; " + "; ".join(passed)
        return channel, names[index + 1:], because
    raise AssertionError("the exec channel always starts")
