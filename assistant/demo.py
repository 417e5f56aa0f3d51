"""`tapsolve demo`: a virtual phone behind a private adb server, played through the real stack."""

from __future__ import annotations

import contextlib
import time

import cv2

from assistant import autoplay, display, guide, record
from assistant.games import warming
from assistant.link import Link
from assistant.loop import Loop
from assistant.options import print_json
from assistant.phone.device import connect
from assistant.phone.server import AdbServerFailed, adb_failure, stopping_started
from assistant.session import Session
from solver.errors import InputError


class WindowView:
    """Shows each screen the loop reads, with the next move drawn on it; q stops the play."""

    def __init__(self):
        guide.open_window()
        self.quit = False

    def __call__(self, loop: Loop) -> bool:
        guide.show(guide.frame(loop, 0, False))
        key = cv2.waitKey(1) & 0xFF
        if key == ord("q") or cv2.getWindowProperty(guide.WINDOW, cv2.WND_PROP_VISIBLE) < 1:
            self.quit = True
        return not self.quit

    def close(self):
        cv2.destroyAllWindows()
        cv2.waitKey(1)


def summary(loop: Loop, phone, wall: float) -> dict:
    """The run summary (DESIGN.md, "Run summary"): what the loop did, what the phone counted."""
    tally, link = loop.tally, loop.link
    return {"cleared_stages": tally.stages, "moves": tally.moves, "taps": link.taps,
            "wrong_taps": phone.wrong_taps, "ad_taps": phone.ad_taps, "repeats": tally.repeats, "replans": tally.replans,
            "swipes": link.swipes, "captures": link.captures, "score": tally.score,
            "pipelined": link.overlapped,
            "wall_s": round(wall, 3), "phone_floor_s": round(phone.floor_s(tally.moves), 3)}


def run(args) -> int:
    """`tapsolve demo`: one game on a virtual phone, shown in a window when there is a display."""
    window = not args.no_window and display.present()  # no display at all: the terminal
    if window:
        display.check("--no-window")
    code, figures = play_virtual(args, window=window)
    if args.json:
        print_json(args, figures)
    return code


def play_virtual(args, window: bool = False, options: dict | None = None,
                 max_moves: int | None = None, breakdown: bool = False) -> tuple[int, dict]:
    """Play on a virtual phone of ``args``' preset, realism and faults behind a private adb
    server, its app made with the game's ``options`` (phonesim.apps.create's; default: the
    app's own): the exit code and the run summary (with ``breakdown``, also where the wall time
    went: see ``time_breakdown``)."""
    from phonesim import apps
    from phonesim.harness import Harness, HarnessError
    from phonesim.phone import PRESETS, Faults, Phone
    from phonesim.serve import realism

    if args.preset not in PRESETS:
        raise InputError(f"no preset {args.preset!r}: choose one of {', '.join(PRESETS)}")
    preset = PRESETS[args.preset]
    given = vars(args)  # the games' own options the command line has (`tapsolve demo` has them all)
    app = apps.create(args.game, preset, seed=args.seed,
                      **{name: given[name] for name in apps.option_names() if name in given} | (options or {}))
    phone = Phone(preset, app, Faults(tap_latency=args.tap_latency, drop_taps=args.drop_taps, seed=args.seed,
                                      dialog_after=args.dialog_after,
                                      dialog_between_stages=args.dialog_between_stages,
                                      dialog_dismiss=args.dialog_dismiss, refuse_input=args.refuse_input,
                                      ignore_taps_while=args.ignore_taps_while_animating),
                  realism=realism(args), android=args.android)
    line = autoplay.StatusLine()
    recorder = record.for_run(args)
    say = recorder.saying(line.say)
    # the window first: should Qt still abort on the display, nothing has been started yet
    view = WindowView() if window else None
    warming(args.game)  # (the solver loads while the phone starts and is connected to)

    def server_failed(exc: HarnessError) -> AdbServerFailed:
        return AdbServerFailed(f"the demo's private adb server could not start: {adb_failure(str(exc))}")

    try:
        harness = Harness().start()
    except HarnessError as exc:
        if view:
            view.close()
        raise server_failed(exc) from None
    with contextlib.ExitStack() as started:  # stopped in turn whatever ends the play: the server by pid
        if view:
            started.callback(view.close)
        started.callback(harness.stop)
        started.enter_context(stopping_started(harness.adb_port))
        try:
            vp = harness.add(phone)
        except HarnessError as exc:  # (the server answered at start, then exited)
            raise server_failed(exc) from None
        say(f"a virtual phone on a private adb server at port {harness.adb_port}")
        # (the phone and its channel named once, as `play` names them; no capture choice kept:
        # a virtual phone's model is a real one's name)
        device = connect(vp.serial, client=harness.client, say=say, channel=vars(args).get("channel"))
        link = Link(record.connected(recorder, device), say=say, recorder=recorder)
        loop = Loop(Session(link, say=say, keep=True), game=args.game, objective=args.objective, budget=1.0, say=say,
                    dismiss=not vars(args).get("no_dismiss"))
        phone.clear_log()  # connecting timed both capture methods: not part of the run
        decoded = link.device.screen.decode_s  # (their decoding neither)
        start = time.monotonic()
        started.callback(link.device.close)  # its channel, before the harness stops the phone
        code = autoplay.play(loop, stages=args.stages, say=say, show=view, status=line, max_moves=max_moves)
        wall = time.monotonic() - start
        figures = summary(loop, phone, wall)
        if breakdown:
            figures["breakdown_s"] = time_breakdown(link, phone, wall, decoded)
            figures["channel"] = link.device.channel.name
            from phonesim import scrcpy as sim_scrcpy

            # the scrcpy server's start, charged at connect: before the run's clock, so outside
            # its wall and floor, said beside them
            figures["channel_start_s"] = round(sim_scrcpy.start_s(phone), 3)
            if link.device.screen.frames:  # looked by video: the floor counts its costs, not screencaps
                figures["phone_floor_s"] = round(phone.floor_s(loop.tally.moves, screencaps=False), 3)
        return code, figures


def time_breakdown(link, phone, wall: float, decoded_before: float = 0.0) -> dict:
    """Where a run's wall time went, in seconds: waiting on taps, swipes and captures (each
    split into what the phone's profile charged and the rest: adb, the virtual phone's own
    drawing and encoding, the computer's scheduling), decoding the captures, sleeping out
    animations and settle intervals, the assistant's own work (the rest), and beside them the
    animations the game played (what a judged frame must wait out beyond the floor).
    ``decoded_before``: the screen's decoding before the run's clock (connecting timed its
    screenshots), left out."""
    charged = {kind: sum(costs) for kind, costs in phone.charged.items()}
    decode = link.device.screen.decode_s - decoded_before
    out = {"tap": link.spent["tap"], "tap_charged": charged["tap"],
           "swipe": link.spent["swipe"], "swipe_charged": charged["swipe"],
           "capture": link.spent["capture"] - decode, "capture_charged": charged["capture"],
           "decode": decode, "wait": link.spent["wait"]}
    out["own"] = wall - sum(link.spent.values())
    out["animations"] = phone.animation_s()
    return {key: round(value, 3) for key, value in out.items()}
