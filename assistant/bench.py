"""`tapsolve bench`: each game's own benchmarks (its class's ``add_bench_command``: `bench
numbermatch`), `tapsolve bench play` (one game played on the virtual phone, timed against the
phone's own costs) and `tapsolve bench trust`."""

from __future__ import annotations

from assistant.options import (add_channel_option, add_fault_options, add_run_options, bounded_int, non_negative_int,
                               print_json)
from solver import games as registry
from solver.words import count


def register(commands, parser_class, command: str | None = None) -> None:
    """Add `tapsolve bench` to the command line (called by assistant.cli.build_parser); the games'
    own parts (each game's class's ``add_bench_command`` and ``add_bench_play_options``) only when
    ``command``, the one about to run, is `bench` or not known: they import the games."""
    bench = commands.add_parser("bench", help="measure a solver on random boards")
    games = bench.add_subparsers(dest="game", metavar="GAME", parser_class=parser_class)
    games.required = True
    own = [registry.module("assistant.games", name).GAME for name in registry.NAMES] if command in (None, "bench") else []
    for game in own:
        game.add_bench_command(games)

    pl = games.add_parser("play", help=f"play one {registry.titles()} game on the virtual phone through "
                                       "real adb and time it against the phone's own costs")
    pl.add_argument("--game", choices=registry.NAMES, default=registry.NAMES[0],
                    help=f"the game played (default {registry.NAMES[0]})")
    for game in own:
        game.add_bench_play_options(pl)
    pl.add_argument("--preset", default="1080x2400", help="virtual phone model (default 1080x2400)")
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


def play(args) -> int:
    """One game on the virtual phone; the demo's run summary plus wall / floor and moves a minute.
    The floor is what no assistant that waits out each move's animation can beat on the run's
    channel: the game's animations plus the channel's own costs (``phone_floor_s``: its taps and
    swipes, and a look per move: a screencap, or a video frame's latency). Play that sends the next
    move's taps while the last one animates (pipelined) has the channel's own costs alone as its
    floor (``pipelined_floor_s``)."""
    from assistant import demo

    # (the games' own options, on args, go each to its game's app)
    code, figures = demo.play_virtual(args, max_moves=args.max_moves, breakdown=True)
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
