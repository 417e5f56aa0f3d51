"""The command line's shared parts: value types for its options (each turns text into a number or a
one-line error), the options several commands take, and stopping a command on `kill`.

assistant.cli, assistant.bench and assistant.trust all take them from here, so none imports another
for them."""

from __future__ import annotations

import argparse
import math

from solver.files import is_digits, whole_number

# the guide window's keys: in its header, and in `tapsolve guide --help` (which loads no OpenCV)
GUIDE_KEYS = "q quit   space pause   n/p next/previous step"


def number_type(convert, noun: str, low=None, high=None, too_low: str = "", too_high: str = "",
                low_open: bool = False):
    """An argparse type: `convert` the text, then check it against low/high (low excluded
    when low_open), with the given messages ({} is the text; too_high defaults to too_low)."""
    too_high = too_high or too_low

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if isinstance(value, float) and not math.isfinite(value):  # nan passes every comparison
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}: give a finite number")
        if low is not None and (value <= low if low_open else value < low):
            raise argparse.ArgumentTypeError(too_low.format(text))
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(too_high.format(text))
        return value
    return parse


non_negative_int = number_type(whole_number, "a whole number", 0, too_low="{} is negative: give 0 or more")
positive_int = number_type(whole_number, "a whole number", 1, too_low="{} must be 1 or more")
positive_float = number_type(float, "a number", 0, too_low="{} must be more than 0", low_open=True)
card = number_type(whole_number, "a card (1-9)", 1, 9, too_low="{} is not a card: cards are 1-9")
probability = number_type(float, "a number", 0, 1, too_low="{} is not a probability from 0 to 1")


def bounded_int(low: int, high: int, what: str):
    """A whole number from low to high; `what` names it in the error."""
    return number_type(whole_number, "a whole number", low, high, too_low=f"{{}} is out of range: {what} are {low} to {high}")


port = bounded_int(0, 65535, "TCP ports")


def address(text: str) -> str:
    """A network phone's HOST:PORT, as adb names it (an emulator's 127.0.0.1:5555)."""
    host, _, number = text.rpartition(":")
    if not host or not is_digits(number) or not 0 < int(number) < 65536 or any(c in host for c in " /"):
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT, such as 192.168.1.20:41234")
    return text


# the port `adb connect HOST` and `adb disconnect HOST` assume (packages/modules/adb
# transport_local.cpp, connect_device: ``int port = DEFAULT_ADB_LOCAL_TRANSPORT_PORT``, 5555)
ADB_DEFAULT_PORT = 5555


def host_or_address(text: str) -> str:
    """HOST:PORT, or a HOST alone taken as HOST:5555 as adb takes it (an IPv6 address, which has
    colons of its own, is given with its port: [fe80::1]:5555)."""
    if text and ":" not in text and not any(c in text for c in " /"):
        return f"{text}:{ADB_DEFAULT_PORT}"
    return address(text)


def pairing_code(text: str) -> str:
    """The 6-digit code a phone's "Pair device with pairing code" dialog shows."""
    if not (is_digits(text) and len(text) == 6):
        raise argparse.ArgumentTypeError(f"{text!r} is not a pairing code: give the 6 digits the phone shows")
    return text
finite_seconds = number_type(float, "a number of seconds", 0, 60, too_low="{} is negative: give 0 or more seconds",
                             too_high="{} is not a number of seconds from 0 to 60")


def add_fault_options(parser, tap_latency: float) -> None:
    """phonesim's realism profile and faults, on `tapsolve phone`, `tapsolve demo` and `tapsolve bench play`."""
    parser.add_argument("--realism", choices=("fast", "real"), default="fast",
                        help="real: every command costs what it costs on a mid-range phone (a tap "
                             "0.3-0.6 s, a screenshot 0.3-0.55 s), the game animates, a banner ad "
                             "shows (default fast)")
    parser.add_argument("--time-scale", type=positive_float, default=1.0, metavar="K",
                        help="multiply every cost and animation of --realism by K (default 1)")
    parser.add_argument("--tap-latency", type=finite_seconds, default=tap_latency, metavar="S",
                        help=f"seconds more each tap takes (default {tap_latency:g})")
    parser.add_argument("--drop-taps", type=probability, default=0.0, metavar="P",
                        help="probability that a tap is lost")
    parser.add_argument("--dialog-after", type=non_negative_int, default=0, metavar="N",
                        help='a "Rate us!" dialog over the board after N moves (its button closes it)')
    parser.add_argument("--dialog-between-stages", action="store_true",
                        help='the "Rate us!" dialog over each new stage\'s board')
    parser.add_argument("--android", choices=("14", "11", "4.4"), default="14",
                        help="the phone's Android version: on 11 and older each `input tap` starts a "
                             "JVM (0.3-0.6 s with --realism real), on 14 it is `cmd input`; 4.4 is an "
                             "old phone the scrcpy server cannot start on (default 14)")
    parser.add_argument("--refuse-input", action="store_true",
                        help="the phone refuses injected taps, as Xiaomi's MIUI does until \"USB "
                             "debugging (Security settings)\" is on")
    parser.add_argument("--ignore-taps-while-animating", nargs="?", const="both", default="",
                        choices=("both", "fade", "collapse", "tile", "swap"), metavar="ANIMATION",
                        help="the game ignores taps while a move animates: a pair's fade and its rows' "
                             "collapse, a tile's glide, a swap of cards (no value), or only fade, collapse, "
                             "tile or swap")
    parser.add_argument("--dialog-dismiss", default="Not now", metavar="LABEL",
                        help='the dialog\'s second button, that only closes it (default "Not now"; "" for none)')


def add_channel_option(parser) -> None:
    """--channel: how taps reach the phone (assistant.phone.channel), on play, guide, demo and bench play."""
    parser.add_argument("--channel", choices=("auto", "scrcpy", "shell", "exec"), default=None,
                        help="how taps reach the phone: scrcpy (its server: taps in milliseconds, a video "
                             "feed), shell (one adb shell kept open), exec (one adb call per batch of taps); "
                             "default $TAPSOLVE_CHANNEL, else auto: the fastest that starts, falling back in "
                             "that order")


def add_run_options(parser) -> None:
    """What a run on a phone leaves behind, on play, guide, demo and bench play: its log (always:
    ``assistant.runlog``) and its recording (--record DIR, --no-record: ``assistant.record``)."""
    from assistant import record

    record.add_options(parser)
    parser.set_defaults(logged=True)


def print_json(args, data) -> None:
    """A --json command's one JSON document, on the stdout `tapsolve` kept for it (``args.stdout``:
    while a --json command runs, stdout is stderr, so that no human line can land in the JSON)."""
    import json
    import sys

    print(json.dumps(data), file=vars(args).get("stdout", sys.stdout), flush=True)


def stop_on_terminate():
    """`kill` (SIGTERM) and a closed terminal (SIGHUP) stop a command as Ctrl-C does: through
    KeyboardInterrupt, so that what it started (a private adb server, a virtual phone) is stopped
    on the way out. Returns the handlers it replaced, by signal (None off the main thread, where
    no handler can be set)."""
    import signal
    import threading

    def stop(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        return None
    signals = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    return {signum: signal.signal(signum, stop) for signum in signals}
