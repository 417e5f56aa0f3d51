"""`tapsolve phone`: one virtual phone in the foreground until Ctrl-C (or SIGTERM)."""

from __future__ import annotations

import signal
import threading

from phonesim.adb import EMULATOR_PORTS, AdbServer
from phonesim.phone import PRESETS, REALISM, Faults, Phone
from solver.errors import InputError, TapsolveError

MAX_TAP_LATENCY = 60.0  # seconds: a tap slower than this is a phone that has hung


def build_phone(args) -> Phone:
    """The Phone the options describe: preset, game app, faults; or a recording's screens
    (``--replay``: phonesim.replay), on a phone of the recorded model and screen."""
    if vars(args).get("replay"):
        from pathlib import Path

        from phonesim.replay import ReplayApp

        app = ReplayApp(Path(args.replay))
        return Phone(app.preset(), app, Faults(seed=args.seed), realism=realism(args), android=args.android)
    if args.preset not in PRESETS:
        raise InputError(f"unknown preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
    if not 0 <= args.drop_taps <= 1:
        raise InputError(f"--drop-taps is a probability from 0 to 1, not {args.drop_taps:g}")
    if not 0 <= args.tap_latency <= MAX_TAP_LATENCY:  # also refuses nan, which every comparison fails
        raise InputError(f"--tap-latency is seconds from 0 to {MAX_TAP_LATENCY:g}, not {args.tap_latency:g}")
    preset = PRESETS[args.preset]
    from phonesim import apps
    given = vars(args)  # every game's options are on the command line; the game's app takes its own
    app = apps.create(args.game, preset, seed=args.seed, theme=args.theme,
                      **{name: given[name] for name in apps.option_names()})
    faults = Faults(tap_latency=args.tap_latency, drop_taps=args.drop_taps, secure=args.secure, seed=args.seed,
                    dialog_after=args.dialog_after, dialog_between_stages=args.dialog_between_stages,
                    dialog_dismiss=args.dialog_dismiss, refuse_input=args.refuse_input,
                    ignore_taps_while=args.ignore_taps_while_animating)
    return Phone(preset, app, faults, realism=realism(args), android=args.android)


def realism(args):
    """The realism profile the options name, at their time scale."""
    name = args.realism
    if name not in REALISM:
        raise InputError(f"unknown realism {name!r}: choose one of {', '.join(REALISM)}")
    scale = args.time_scale
    if not scale > 0:
        raise InputError(f"--time-scale must be more than 0, not {scale:g}")
    return REALISM[name].scaled(scale)


def run_phone(args) -> int:
    """Serve one phone on 127.0.0.1 until interrupted; print how to connect to it."""
    if args.port in EMULATOR_PORTS:
        raise InputError(f"--port {args.port} is an emulator port (5554-5585) that every adb "
                         "server scans on its own: choose another")
    phone = build_phone(args)
    mode = "unauthorized" if args.unauthorized else "device"
    try:
        server = AdbServer(phone, port=args.port, mode=mode).start()
    except OSError as exc:
        raise TapsolveError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    p = phone.preset
    if vars(args).get("replay"):
        print(f"phonesim: replaying {args.replay}: {len(phone.app.scenes)} scenes, {p.model} ({p.width}x{p.height}, "
              f"{p.density} dpi)", flush=True)
    else:
        print(f"phonesim: {p.model} ({p.width}x{p.height}, {p.density} dpi), {args.game}, seed {args.seed}, "
              f"{args.theme} theme, Android {args.android}, {phone.realism.name} realism"
              + (", unauthorized" if args.unauthorized else ""), flush=True)
    print(f"serial: {server.serial}", flush=True)
    print(f"connect: tapsolve connect {server.serial}", flush=True)
    print("Ctrl-C stops the phone.", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)
    print(f"phonesim: stopped ({phone.taps_done} taps played, {phone.taps_dropped} dropped)", flush=True)
    return 0
