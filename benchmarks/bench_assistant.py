"""The assistant's own time per move and a whole play's wall time, on phonesim through real adb.

    python3 benchmarks/bench_assistant.py [--preset 1080x2400] [--seed 3] [--with-score]

Time per move is capture + read + compare + decide (the check after each move), without the
phone's tap time; wall time is `play` clearing a fresh 27-number board with 0.2 s per tap.
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
from assistant.device import connect  # noqa: E402
from assistant.link import Link  # noqa: E402
from assistant.loop import Loop  # noqa: E402
from phonesim import apps  # noqa: E402
from phonesim.harness import Harness  # noqa: E402
from phonesim.phone import PRESETS, Faults, Phone  # noqa: E402


def timed_play(harness, preset, seed, latency, objective):
    phone = Phone(preset, apps.create("numbermatch", preset, seed=seed), Faults(tap_latency=latency))
    vp = harness.add(phone)
    loop = Loop(Link(connect(vp.serial, client=harness.client), say=lambda _: None),
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
    args = parser.parse_args()
    preset = PRESETS[args.preset]
    # a private config folder: the first game starts with no stored profile (as on a new
    # phone), and the person's own profiles are left alone
    config = tempfile.mkdtemp(prefix="tapsolve-bench-")
    atexit.register(shutil.rmtree, config, True)
    os.environ["XDG_CONFIG_HOME"] = config
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
