"""Benchmarks for the Number Match solver's targets (issue 3): start times and `tapsolve bench`.

    python3 benchmarks/bench_numbermatch.py [--boards 1000] [--score-boards 200] [--cold]

Start times: a new process solving one board with the kernel cache warm, and (with --cold)
after deleting the kernel's numba cache, so it compiles. Then, for boards of 27, 35 and 42
numbers with 5 adds and a 1 s budget: the fast objective on --boards boards and the score
objective on --score-boards boards, each against the random-playout baseline.
"""

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOARD = "467956239 385113145 967616278"


def start_time() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "assistant", "solve", "numbermatch", BOARD, "--json"],
                   cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def bench(*args: str) -> None:
    cmd = [sys.executable, "-m", "assistant", "bench", "numbermatch", *args]
    print("$ tapsolve bench numbermatch " + " ".join(args), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True)
    print(flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--score-boards", type=int, default=1000)
    parser.add_argument("--sizes", default="27,35,42")
    parser.add_argument("--cold", action="store_true", help="also time a start that compiles")
    args = parser.parse_args()

    if args.cold:
        for f in (ROOT / "solver" / "numbermatch" / "__pycache__").glob("kernel.*.nb*"):
            f.unlink()
        print(f"cold start (compiles the kernel): {start_time():.2f} s", flush=True)
    warm = sorted(start_time() for _ in range(3))
    print(f"warm start (kernel cache loaded): median {warm[1]:.2f} s of 3", flush=True)

    for size in args.sizes.split(","):
        bench("--boards", str(args.boards), "--size", size, "--adds", "5", "--seed", "1",
              "--budget", "1", "--objective", "fast")
    for size in args.sizes.split(","):
        bench("--boards", str(args.score_boards), "--size", size, "--adds", "5", "--seed", "2",
              "--budget", "1", "--objective", "score")


if __name__ == "__main__":
    main()
