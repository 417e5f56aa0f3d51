"""The assistant's own time per move and a whole play's wall time, on phonesim through real adb.

    python3 benchmarks/bench_assistant.py [--preset 1080x2400] [--seed 3] [--with-score]
    python3 benchmarks/bench_assistant.py --realism real [--objective fast]

Time per move is capture + read + compare + decide (the check after each move), without the
phone's tap time; wall time is `play` clearing a fresh 27-number board with 0.2 s per tap.

With ``--realism real`` the phone costs what a mid-range phone does and the game animates: one
play of a fresh 27-number board, its wall time against ``phone_floor_s`` (the phone's own
unavoidable costs: every tap and swipe, one capture per move), and the assistant's own time per
move: a move's wall time (taps sent to settled screen judged) less everything the phone charged
in it (taps, every capture, swipes).
"""

import argparse
import atexit
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant import autoplay  # noqa: E402
from assistant.link import Link  # noqa: E402
from assistant.loop import Loop  # noqa: E402
from assistant.phone.device import connect  # noqa: E402
from assistant.session import Session  # noqa: E402
from phonesim import apps  # noqa: E402
from phonesim.harness import Harness  # noqa: E402
from phonesim.phone import PRESETS, REALISM, Faults, Phone  # noqa: E402


def real_play(harness, preset, seed, objective):
    """One play on the real-phone profile: (loop, phone, wall, own seconds per move)."""
    phone = Phone(preset, apps.create("numbermatch", preset, seed=seed), Faults(seed=seed),
                  realism=REALISM["real"])
    vp = harness.add(phone)
    link = Link(connect(vp.serial, client=harness.client), say=lambda _: None)
    loop = Loop(Session(link, say=lambda _: None, keep=True), game="numbermatch", objective=objective, budget=1.0, say=lambda _: None)

    def charged():
        return sum(sum(c) for c in phone.charged.values())

    own, cpu, started = [], [], []
    tap_all, judge = link.tap_all, loop.judge

    def timed_tap_all(points):
        started.append((time.perf_counter(), charged(), time.thread_time()))
        tap_all(points)

    def timed_judge(move):
        outcome = judge(move)
        t0, c0, cpu0 = started.pop()
        own.append((time.perf_counter() - t0) - (charged() - c0))
        cpu.append(time.thread_time() - cpu0)
        return outcome

    link.tap_all, loop.judge = timed_tap_all, timed_judge
    phone.clear_log()
    t0 = time.perf_counter()
    autoplay.play(loop, say=lambda _: None)
    wall = time.perf_counter() - t0
    vp.stop()
    return loop, phone, wall, own, cpu


def timed_play(harness, preset, seed, latency, objective):
    phone = Phone(preset, apps.create("numbermatch", preset, seed=seed), Faults(tap_latency=latency))
    vp = harness.add(phone)
    loop = Loop(Session(Link(connect(vp.serial, client=harness.client), say=lambda _: None), say=lambda _: None, keep=True),
                game="numbermatch", objective=objective, budget=1.0, say=lambda _: None)
    checks = []
    judge = loop.judge

    def timed_judge(move):
        t0 = time.perf_counter()
        outcome = judge(move)
        checks.append(time.perf_counter() - t0)
        return outcome

    loop.judge = timed_judge
    loop.start()                    # first contact (profile, plan) is not part of the per-move time
    t0 = time.perf_counter()
    autoplay.play(loop, say=lambda _: None)
    wall = time.perf_counter() - t0
    vp.stop()
    return loop, checks, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="1080x2400", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--with-score", action="store_true",
                        help="also play the most-points line (hundreds of moves on a scrolling board: minutes)")
    parser.add_argument("--realism", choices=("fast", "real"), default="fast",
                        help="real: one play at a mid-range phone's costs, against its floor")
    parser.add_argument("--objective", choices=("fast", "score"), default="fast", help="with --realism real")
    args = parser.parse_args()
    preset = PRESETS[args.preset]
    # a private config folder: the first game starts with no stored profile (as on a new
    # phone), and the person's own profiles are left alone
    config = tempfile.mkdtemp(prefix="tapsolve-bench-")
    atexit.register(shutil.rmtree, config, True)
    os.environ["XDG_CONFIG_HOME"] = config
    if args.realism == "real":
        config = tempfile.mkdtemp(prefix="tapsolve-bench-")
        atexit.register(shutil.rmtree, config, True)
        os.environ["XDG_CONFIG_HOME"] = config
        with Harness() as harness:
            # a game on the fast profile first teaches the phone's glyphs (tesseract now and
            # then), as calibration does: the real-profile game reads with the stored profile
            timed_play(harness, preset, args.seed + 1, 0.0, "fast")
            loop, phone, wall, own, cpu = real_play(harness, preset, args.seed, args.objective)
        t, link = loop.tally, loop.link
        floor = phone.floor_s(t.moves)
        own.sort()
        cpu.sort()
        print(f"--realism real, {args.preset}, 27 numbers, --objective {args.objective}, seed {args.seed}: "
              f"{t.stages} stage cleared in {wall:.1f} s wall, {t.moves} moves, {link.taps} taps, "
              f"{link.captures} captures ({link.settler.unsettled} caught an animation), {link.swipes} swipes, "
              f"{phone.wrong_taps} wrong taps, {t.repeats} repeated, {t.replans} re-solved")
        print(f"phone floor {floor:.1f} s; wall / floor = {wall / floor:.2f}")
        print(f"assistant's own time per move (wall less the phone's charges), {len(own)} moves: median "
              f"{statistics.median(own) * 1000:.0f} ms, p90 {own[int(0.9 * len(own))] * 1000:.0f} ms  "
              "(target median <= 150 ms)")
        print(f"the assistant thread's CPU time per move (decode, compare, read, decide): median "
              f"{statistics.median(cpu) * 1000:.0f} ms, p90 {cpu[int(0.9 * len(cpu))] * 1000:.0f} ms")
        return
    with Harness() as harness:
        # the first game on a phone learns its glyphs (tesseract now and then); the second reads
        # with the stored profile, as every game after calibration does
        for label in ("first game, learning the profile", "with the stored profile"):
            loop, checks, _ = timed_play(harness, preset, args.seed, 0.0, "fast")
            checks.sort()
            print(f"assistant time per move on {args.preset}, {label} (capture + read + compare + "
                  f"decide), {len(checks)} moves: median {statistics.median(checks) * 1000:.0f} ms, "
                  f"p90 {checks[int(0.9 * len(checks))] * 1000:.0f} ms  (target median <= 150 ms)")
        for objective in ("fast", "score") if args.with_score else ("fast",):
            loop, checks, wall = timed_play(harness, preset, args.seed, 0.2, objective)
            moves = loop.tally.moves
            print(f"play --objective {objective}, 27 numbers, 0.2 s per tap: {wall:.1f} s wall for "
                  f"{moves} moves ({moves / wall * 60:.0f} moves/min), score {loop.tally.score}, "
                  f"{loop.tally.repeats} repeated, {loop.tally.replans} re-solved")


if __name__ == "__main__":
    main()
