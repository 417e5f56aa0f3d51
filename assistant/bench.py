"""`tapsolve bench numbermatch`: our solver against random playouts on the same random boards;
`tapsolve bench play`: one game played on the virtual phone, timed against the phone's own costs.

The baseline plays as the public random solvers do: a random legal pair until none is left,
then "+", and on getting stuck restarts from the start, up to 10,000 restarts; it gets the same
time budget per board as ours and keeps its best-scoring line that clears. Both run compiled
(``solver.numbermatch.kernel``), so the comparison is of the searches, not of the languages.

Scores count only lines that clear the board (a board not cleared scores 0), since the points
of a stage are only banked when it is cleared.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from assistant.options import (add_channel_option, add_fault_options, add_run_options, adds, bounded_int, non_negative_int,
                               positive_float, print_json)
from solver.platforms import peak_memory_mib
from solver.words import count

# statistics (with fractions and decimal, 6-10 ms) and random are imported where a bench runs:
# every command builds this parser, `tapsolve read` too

MAX_BOARDS = 100_000  # a day of solving at the default budget: more is a typo
MAX_SIZE = 9 * 40  # start numbers: the tallest board phonesim deals

MAX_RESTARTS = 10_000


@dataclass
class Result:
    """One solver on one board."""

    status: str  # solved, unsolvable, gave_up
    score: int
    adds_used: int
    seconds: float
    optimal: bool = False  # the fewest adds, proved
    pairs: int = 0
    moves_optimal: bool = False  # the fewest pairs for those adds, proved


def register(commands, parser_class) -> None:
    """Add `bench numbermatch` and `bench trust` to the command line (called by assistant.cli.build_parser)."""
    bench = commands.add_parser("bench", help="measure a solver on random boards")
    games = bench.add_subparsers(dest="game", metavar="GAME", parser_class=parser_class)
    games.required = True
    nm = games.add_parser("numbermatch", help="Number Match: our search against random playouts")
    nm.add_argument("--boards", type=bounded_int(1, MAX_BOARDS, "boards"), default=100, help="random boards (default 100)")
    nm.add_argument("--size", type=bounded_int(2, MAX_SIZE, "board sizes"), default=27, help="numbers on each board (default 27)")
    nm.add_argument("--adds", type=adds, default=5, help="presses of + (default 5)")
    nm.add_argument("--seed", type=non_negative_int, default=1, help="random seed of the boards (default 1)")
    nm.add_argument("--budget", type=positive_float, default=1.0, help="seconds per board and solver (default 1)")
    nm.add_argument("--objective", choices=("fast", "score", "both"), default="both",
                    help="which of our objectives to run (default both)")
    nm.add_argument("--no-baseline", action="store_true",
                    help="skip the random playouts (they take the whole budget on every board)")
    nm.add_argument("--json", action="store_true", help="print the figures as JSON")
    nm.set_defaults(run=numbermatch)

    pl = games.add_parser("play", help="play one Number Match (15-puzzle, Flip 9) game on the virtual phone "
                                       "through real adb and time it against the phone's own costs")
    pl.add_argument("--game", choices=("numbermatch", "fifteen", "flip9"), default="numbermatch",
                    help="the game played (default numbermatch)")
    pl.add_argument("--layout", choices=("buttons", "cards"), default="buttons",
                    help="Flip 9: the inventor's line of digits, or cards that swap (as `tapsolve phone --layout`)")
    pl.add_argument("--skin", type=non_negative_int, default=None, metavar="SEED",
                    help="15-puzzle: the app's look drawn from this seed (as `tapsolve phone --skin`)")
    pl.add_argument("--width", type=bounded_int(3, 5, "15-puzzle widths"), default=None,
                    help="15-puzzle: tiles a side (default 4, or the skin's own)")
    pl.add_argument("--preset", default="1080x2400", help="virtual phone model (default 1080x2400)")
    pl.add_argument("--size", type=bounded_int(2, MAX_SIZE, "board sizes"), default=27,
                    help="Number Match: start numbers (default 27)")
    pl.add_argument("--adds", type=adds, default=5, help="presses of + (default 5)")
    pl.add_argument("--objective", choices=("fast", "score"), default="fast",
                    help="fewest adds and moves (default), or most points")
    pl.add_argument("--seed", type=non_negative_int, default=1, help="board and phone seed (default 1)")
    pl.add_argument("--max-moves", type=bounded_int(1, 100_000, "move counts"), default=None, metavar="K",
                    help="stop after K moves (a score game on a big board runs to hundreds)")
    add_fault_options(pl, tap_latency=0.0)
    add_channel_option(pl)
    add_run_options(pl)
    pl.add_argument("--json", action="store_true", help="print the run summary as one JSON object, last")
    pl.set_defaults(run=play, stages=1)
    tr = games.add_parser("trust", help="the reader on damaged screenshots: silent misreads must be 0")
    trust_arguments(tr)
    tr.set_defaults(run=trust)


def trust_arguments(parser) -> None:
    """The options of `bench trust` (also benchmarks/bench_trust.py's)."""
    parser.add_argument("--sample", type=non_negative_int, default=0,
                        help="only every N-th fixture (the real screenshots always): a quick subset")
    parser.add_argument("--only", help="comma-separated perturbations (default: all of them)")
    parser.add_argument("--mode", choices=("fresh", "stored", "both"), default="both",
                        help="first contact, a profile stored from the clean screenshot, or both (default)")


def trust(args) -> int:
    """`tapsolve bench trust` (assistant/trust.py; loaded only when it runs: it needs OpenCV)."""
    from assistant import trust as bench_trust

    return bench_trust.main(args)


def random_playouts(board, budget: float, seed: int, restarts: int = MAX_RESTARTS) -> Result:
    """The baseline on one board: restarted random playouts within ``budget`` seconds."""
    from solver.numbermatch import search

    t0 = time.perf_counter()
    kernel = search.Kernel(board, tt_bits=4)
    kernel.start_playouts(seed)
    done, chunk, cleared = 0, 16, 0
    while done < restarts:
        n = min(chunk, restarts - done)
        cleared += kernel.playouts(n)
        done += n
        if time.perf_counter() - t0 >= budget:
            break
        chunk = min(chunk * 2, 512)
    seconds = time.perf_counter() - t0
    if not cleared:
        return Result("gave_up", 0, 0, seconds)
    line = kernel.best_line()
    adds = sum(1 for m in line if not hasattr(m, "i"))
    return Result("solved", kernel.best_playout_score, adds, seconds, pairs=len(line) - adds)


def ours(board, objective: str, budget: float) -> Result:
    from solver.numbermatch import search

    solution = search.solve(board, objective=objective, budget=budget)
    cleared = solution.status == "solved"
    return Result(solution.status, solution.score if cleared else 0, solution.adds_used,
                  solution.seconds, solution.adds_optimal, solution.pairs,
                  solution.moves_optimal)


class Progress:
    """A progress bar on stderr, shown once a run has taken more than a second."""

    def __init__(self, total: int):
        self.total, self.t0, self.shown = total, time.perf_counter(), 0.0

    def update(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.t0 < 1 or (now - self.shown < 0.2 and done < self.total):
            return
        self.shown = now
        width = 30
        filled = width * done // self.total
        left = (now - self.t0) / done * (self.total - done) if done else 0
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} boards,"
                         f" {now - self.t0:.0f} s, ~{left:.0f} s left ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def figures(results: list[Result]) -> dict:
    import statistics

    n = len(results)
    secs = sorted(r.seconds for r in results)
    solved = [r for r in results if r.status == "solved"]
    return {
        "solved %": 100 * len(solved) / n,
        "proved unsolvable %": 100 * sum(r.status == "unsolvable" for r in results) / n,
        "gave up %": 100 * sum(r.status == "gave_up" for r in results) / n,
        "proved fewest adds %": 100 * sum(r.optimal for r in results) / n,
        "proved fewest moves %": 100 * sum(r.moves_optimal for r in results) / n,
        "mean adds used": statistics.fmean(r.adds_used for r in solved) if solved else 0.0,
        "mean pairs": statistics.fmean(r.pairs for r in solved) if solved else 0.0,
        "mean score": statistics.fmean(r.score for r in results),
        "median s": statistics.median(secs),
        "p95 s": secs[min(n - 1, int(0.95 * n))],
        "p99 s": secs[min(n - 1, int(0.99 * n))],
        "max s": secs[-1],
    }


def numbermatch(args) -> int:
    from solver.numbermatch import Board, search

    objectives = ("fast", "score") if args.objective == "both" else (args.objective,)
    t_cold = time.perf_counter()
    search.warm_up()
    random_playouts(Board([1, 9, 5], 1), 10.0, 1, restarts=1)  # the playouts' compiled code too
    load = time.perf_counter() - t_cold
    import random

    rng = random.Random(args.seed)
    baseline = () if args.no_baseline else ("baseline",)
    runs = {name: [] for name in (*objectives, *baseline)}
    missed = 0  # boards the baseline clears and we do not
    progress = Progress(args.boards)
    for k in range(args.boards):
        board = Board([rng.randint(1, 9) for _ in range(args.size)], args.adds)
        seed = rng.getrandbits(62) or 1
        for name in objectives:
            runs[name].append(ours(board, name, args.budget))
        if baseline:
            base = random_playouts(board, args.budget, seed)
            runs["baseline"].append(base)
            if base.status == "solved" and any(runs[o][-1].status != "solved" for o in objectives):
                missed += 1
        progress.update(k + 1)
    progress.close()
    table = {name: figures(results) for name, results in runs.items()}
    peak = peak_memory_mib()  # (None where it cannot be asked: Windows)
    report = {"boards": args.boards, "size": args.size, "adds": args.adds, "seed": args.seed,
              "budget": args.budget, "kernel load s": round(load, 3), "figures": table,
              "baseline clears, we do not": missed, "peak memory MiB": peak and round(peak, 1)}
    if args.json:
        print_json(args, report)
        return 0
    print(f"Number Match: {count(args.boards, 'random boards')} of {args.size} numbers, {count(args.adds, 'adds')},"
          f" seed {args.seed}, budget {args.budget:g} s per board and solver")
    names = list(runs)
    ratios = list(objectives) if baseline else []
    header = f"{'':22s}" + "".join(f"{n:>11s}" for n in names) + "".join(f"{n + '/base':>13s}" for n in ratios)
    print(header)
    for metric in table[names[0]]:
        row = f"{metric:22s}"
        for n in names:
            v = table[n][metric]
            row += f"{v:11.1f}" if "%" in metric else (f"{v:11.4f}" if metric.endswith(" s") else f"{v:11.2f}")
        for n in ratios:
            b = table["baseline"][metric]
            row += f"{table[n][metric] / b:13.2f}" if b else f"{'-':>13s}"
        print(row)
    if baseline:
        print(f"boards the baseline clears and we do not: {missed}")
    print(f"kernel load {load:.2f} s, peak memory " + (f"{peak:.0f} MiB" if peak else "unknown"))
    return 0


def play(args) -> int:
    """One game on the virtual phone; the demo's run summary plus wall / floor and moves a minute.
    The floor is what no assistant that waits out each move's animation can beat on the run's
    channel: the game's animations plus the channel's own costs (``phone_floor_s``: its taps and
    swipes, and a look per move: a screencap, or a video frame's latency). Play that sends the next
    move's taps while the last one animates (pipelined) has the channel's own costs alone as its
    floor (``pipelined_floor_s``)."""
    from assistant import demo

    # (each game's app takes its own options and leaves the other's)
    options = dict(size=args.size, adds=args.adds, skin=args.skin, width=args.width, layout=args.layout)
    code, figures = demo.play_virtual(args, options=options, max_moves=args.max_moves, breakdown=True)
    moves, wall = figures["moves"], figures["wall_s"]
    animations = figures["breakdown_s"]["animations"]
    figures["floor_s"] = floor = round(figures["phone_floor_s"] + animations, 3)
    figures.update({"wall_per_floor": round(wall / floor, 3) if floor else None,
                    "seconds_per_move": round(wall / moves, 3) if moves else None,
                    "moves_per_min": round(60 * moves / wall, 1) if wall else None,
                    "swipes_per_move": round(figures["swipes"] / moves, 3) if moves else None,
                    "pipelined_share": round(figures["pipelined"] / moves, 3) if moves else None,
                    "pipelined_floor_s": figures["phone_floor_s"],
                    "wall_per_pipelined_floor": (round(wall / figures["phone_floor_s"], 3)
                                                 if figures["phone_floor_s"] else None),
                    "captures_per_move": round(figures["captures"] / moves, 3) if moves else None})
    if args.json:
        print_json(args, figures)
        return code
    start = figures["channel_start_s"]
    print(f"channel {figures['channel']}: wall {wall:.1f} s, "
          + (f"{figures['seconds_per_move']:.2f} s a move; " if moves else "")
          + f"floor {floor:.1f} s (animations {animations:.1f} s + the channel's own "
          f"{figures['phone_floor_s']:.1f} s), "
          + (f"wall / floor {figures['wall_per_floor']}" if figures["wall_per_floor"] is not None
             else "no wall / floor (nothing the phone charged: no move made)")
          + (f"; the server's start at connect, before the clock: {start:.1f} s" if start else ""))
    print(f"{count(moves, 'moves')}, {count(figures['taps'], 'taps')}, "
          f"{count(figures['swipes'], 'swipes')}, {count(figures['captures'], 'captures')}, "
          f"{count(figures['wrong_taps'], 'wrong taps')}"
          + (f"; {figures['moves_per_min']} moves a minute" if figures["moves_per_min"] is not None else "")
          + f"; {count(figures['pipelined'], 'moves')} pipelined (sent while the last one animated), against a "
          f"floor of the channel's own {figures['phone_floor_s']:.1f} s")
    print("per move, seconds: " + ", ".join(f"{key} {value / max(1, moves):.3f}"
                                              for key, value in figures["breakdown_s"].items()))
    return code
