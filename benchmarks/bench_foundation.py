"""Benchmarks for the foundation's targets: Flip 9 solve time, first call, `tapsolve solve` start.

    python3 benchmarks/bench_foundation.py [--deals 10000]
"""

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed_process(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000)
    args = parser.parse_args()

    first = timed_process("from solver import flip9; flip9.solve(flip9.State.parse('315927486'))")
    print(f"flip9 first call in a new process (import, cache load, solve): {first:.2f} s  (target <= 2 s)")

    from solver import flip9
    flip9.solve(flip9.State.parse("315927486"))                       # warm-up
    rng = random.Random(1)
    times = []
    for _ in range(args.deals):
        cards = list(range(1, 10))
        rng.shuffle(cards)
        state = flip9.State(tuple(cards))
        t0 = time.perf_counter()
        flip9.solve(state)
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"flip9 solve over {args.deals} fresh deals: median {statistics.median(times) * 1e3:.3f} ms,"
          f" p99 {times[int(0.99 * len(times))] * 1e3:.3f} ms, max {times[-1] * 1e3:.3f} ms  (target median <= 1 ms)")

    starts = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "assistant", "solve", "numbermatch",
                        "467956239 385113145 967616278"], cwd=ROOT, check=True, capture_output=True)
        starts.append(time.perf_counter() - t0)
    print(f"tapsolve solve numbermatch (sample board), process start to answer: median "
          f"{statistics.median(starts):.2f} s over 5 runs  (target <= 2 s)")


if __name__ == "__main__":
    main()
