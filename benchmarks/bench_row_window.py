"""What the row-removal window (seed 004, ``Rules.row_window``) buys the solver, window on against off.

    python3 benchmarks/bench_row_window.py [--boards 1000] [--size 27] [--seed 1] [--budget 1] [--json]

The boards are those of `tapsolve bench numbermatch --boards 1000 --seed 1` (the same random
draws, 5 adds). Each is solved four times, each within the budget: the fast objective (fewest
adds, then fewest moves) and the score objective (most points), without and with the window.
A board "needs fewer adds" when the window's fast line uses fewer, "fewer moves" when it uses as
many adds and fewer moves (pairs and adds; a wait is no move), and its points are the score
objective's best line. Counts in the other direction are shown too: with a budget, a search can
miss the best line (the fast search proves its answers on nearly every board; the score search
is anytime).
"""

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.games.numbermatch.bench import Progress  # noqa: E402
from solver.numbermatch import Board, Rules, search  # noqa: E402


def boards(count: int, size: int, seed: int, adds: int = 5):
    """The boards `tapsolve bench numbermatch` deals for these options (``assistant.games.numbermatch.bench``)."""
    rng = random.Random(seed)
    for _ in range(count):
        cells = [rng.randint(1, 9) for _ in range(size)]
        rng.getrandbits(62)  # the baseline's seed, drawn between boards
        yield cells, adds


def solve(cells: list[int], adds: int, window: bool, objective: str, budget: float):
    return search.solve(Board(list(cells), adds, rules=Rules(row_window=window)), objective, budget)


def table(rows: list[dict]) -> dict:
    both = [r for r in rows if r["off"]["cleared"] and r["on"]["cleared"]]
    same_adds = [r for r in both if r["on"]["adds"] == r["off"]["adds"]]

    def mean(side, key, of=both):
        return round(statistics.fmean(r[side][key] for r in of), 3) if of else None

    gains = [r["on"]["points"] - r["off"]["points"] for r in rows]
    return {
        "boards": len(rows),
        "cleared (off, on)": [sum(r[s]["cleared"] for r in rows) for s in ("off", "on")],
        "fewest adds proved (off, on)": [sum(r[s]["adds_proved"] for r in rows) for s in ("off", "on")],
        "fewest moves proved (off, on)": [sum(r[s]["moves_proved"] for r in rows) for s in ("off", "on")],
        "boards cleared only with the window": sum(r["on"]["cleared"] and not r["off"]["cleared"] for r in rows),
        "boards needing fewer adds": sum(r["on"]["adds"] < r["off"]["adds"] for r in both),
        "boards needing more adds": sum(r["on"]["adds"] > r["off"]["adds"] for r in both),
        "boards needing fewer moves (same adds)": sum(r["on"]["moves"] < r["off"]["moves"] for r in same_adds),
        "boards needing more moves (same adds)": sum(r["on"]["moves"] > r["off"]["moves"] for r in same_adds),
        "mean adds (off, on)": [mean("off", "adds"), mean("on", "adds")],
        "mean moves (off, on)": [mean("off", "moves"), mean("on", "moves")],
        "mean waits in a line (on)": mean("on", "waits"),
        "mean points, score objective (off, on)": [round(statistics.fmean(r[s]["points"] for r in rows), 2)
                                                   for s in ("off", "on")],
        "boards gaining points": sum(g > 0 for g in gains),
        "boards losing points": sum(g < 0 for g in gains),
        "mean points gained": round(statistics.fmean(gains), 2),
        "most points gained": max(gains),
        "median fast s (off, on)": [round(statistics.median(r[s]["seconds"] for r in rows), 4) for s in ("off", "on")],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1000)
    parser.add_argument("--size", type=int, default=27)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per board and search (default 1)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    search.warm_up()
    rows = []
    progress = Progress(args.boards)
    for k, (cells, adds) in enumerate(boards(args.boards, args.size, args.seed)):
        row = {}
        for side, window in (("off", False), ("on", True)):
            fast = solve(cells, adds, window, "fast", args.budget)
            best = solve(cells, adds, window, "score", args.budget)
            row[side] = {"cleared": fast.status == "solved", "adds": fast.adds_used,
                         "moves": fast.pairs + fast.adds_used, "waits": len(fast.moves) - fast.pairs - fast.adds_used,
                         "adds_proved": fast.adds_optimal, "moves_proved": fast.optimal, "seconds": fast.seconds,
                         "points": best.score if best.status == "solved" else 0}
        rows.append(row)
        progress.update(k + 1)
    progress.close()
    out = table(rows)
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"The row window on {args.boards} random boards of {args.size} numbers, 5 adds, seed {args.seed},"
          f" {args.budget:g} s a search")
    for name, value in out.items():
        print(f"| {name} | " + (" | ".join(map(str, value)) if isinstance(value, list) else f"{value} |")
              + (" |" if isinstance(value, list) else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
