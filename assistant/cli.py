"""The `tapsolve` command line: parses arguments, runs a command, turns errors into one line."""

from __future__ import annotations

import argparse
import json
import sys

from assistant.options import (adds, card, finite_seconds, non_negative_int, port,
                               positive_float, positive_int, probability)
from solver.errors import InputError, TapsolveError


# -- solve ---------------------------------------------------------------------------------

def read_numbermatch_board(text: str, adds: int | None):
    """A board from board text or board JSON (inline or a .json file)."""
    from pathlib import Path

    from solver.numbermatch import Board

    if text.endswith(".json"):
        try:
            text = Path(text).read_text()
        except OSError as exc:
            raise InputError(f"cannot read {text}: {exc.strerror}") from None
    if text.lstrip().startswith("{"):
        board = Board.from_json(text)
        if adds is not None:
            board.adds_left = adds
        return board
    return Board.parse(text, adds_left=adds)


def solve_numbermatch(args) -> int:
    from solver import search

    board = read_numbermatch_board(args.board, args.adds)
    if board.live_count() == 0:
        raise InputError("the board has no live number to pair")
    solution = search.solve(board, objective=args.objective, budget=args.budget)
    if args.json:
        print(json.dumps(solution.to_json()))
        return 0
    print(f"Board ({board.live_count()} numbers, {board.adds_left} adds left):")
    print("\n".join(board.format().split()))
    replay = board.copy()
    for step, move in enumerate(solution.moves, 1):
        print(f"{step:3d}. {replay.describe(move)}")
        replay.push(move)
    adds = solution.adds_used
    plural = "add" if adds == 1 else "adds"
    if solution.status == "solved":
        proof = proof_note(solution) if args.objective == "fast" else ""
        print(f"Cleared with {adds} {plural}, score {solution.score}, {len(solution.moves)} moves{proof}.")
    elif solution.status == "unsolvable":
        print(f"Unsolvable: no line clears this board with {board.adds_left} adds.")
    else:
        print(f"Gave up after {args.budget:g} s: best line above leaves {replay.live_count()} numbers"
              f" ({adds} {plural}, score {solution.score}).")
    return 0


def proof_note(solution) -> str:
    """What the fast search proved, for the closing line."""
    if solution.optimal:
        return " (fewest adds and fewest moves, proved)"
    if solution.adds_optimal:
        return " (fewest adds proved; fewer moves not ruled out in the budget)"
    return " (fewer adds not ruled out in the budget)"


def solve_flip9(args) -> int:
    import time

    from solver import flip9

    state = flip9.State.parse(args.cards, must=args.must)
    t0 = time.perf_counter()
    swaps = flip9.solve(state)
    seconds = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"game": "flip9", "start": state.to_json(), "status": "solved",
                          "moves": [{"swap": list(s)} for s in swaps], "seconds": round(seconds, 4),
                          "optimal": True}))
        return 0
    print(f"Cards {list(state.cards)}" + (f", must swap {state.must}" if state.must else ""))
    for step, (a, b) in enumerate(swaps, 1):
        state.push((a, b))
        print(f"{step:3d}. swap {a} and {b}  -> {state.format()}")
    print(f"{len(swaps)} swap{'s' if len(swaps) != 1 else ''} (optimal)")
    return 0


def solve_fifteen(args) -> int:
    from solver import fifteen

    board = fifteen.Board.parse(args.tiles)
    solution = fifteen.solve(board)
    if args.json:
        print(json.dumps(solution.to_json()))
        return 0
    w = board.width
    print(f"Board ({w}x{w}):")
    print("\n".join(board.format().split(", ")))
    replay = board.copy()
    for step, tile in enumerate(solution.moves, 1):
        print(f"{step:3d}. {replay.describe(tile)}")
        replay.push(tile)
    plural = "move" if len(solution.moves) == 1 else "moves"
    if solution.status != "solved":
        print(f"Gave up: no line found within the budget ({solution.nodes:,} nodes searched).")
    elif solution.optimal:
        print(f"{len(solution.moves)} {plural} (optimal)")
    else:
        print(f"{len(solution.moves)} {plural} (not proved shortest: the search ran out of budget first)")
    return 0


# -- the phone: guide, play, demo ---------------------------------------------------------------

def open_loop(args, objective: str, say=print):
    from assistant.device import connect
    from assistant.link import Link
    from assistant.loop import Loop

    link = Link(connect(args.serial), verbose=args.verbose, say=say)
    return Loop(link, game=args.game, objective=args.objective or objective, budget=args.budget, say=say)


def run_guide(args) -> int:
    from assistant import guide

    if args.export:
        guide.export_folder(args.export)  # a bad folder is said before the phone is looked for
    loop = open_loop(args, "fast")
    if args.export:
        return guide.export(loop, args.export)
    return guide.run_window(loop)


def run_play(args) -> int:
    from assistant import autoplay

    line = autoplay.StatusLine()
    loop = open_loop(args, "score", say=line.say)
    if args.dry_run:
        return autoplay.dry_run(loop)
    return autoplay.play(loop, stages=args.stages, say=line.say, status=line)


def run_demo(args) -> int:
    from assistant import demo

    return demo.run(args)


def add_phone_options(parser, objective_default: str):
    parser.add_argument("--serial", help="the phone to use (see tapsolve devices); needed with several")
    parser.add_argument("--game", choices=("auto", "numbermatch", "flip9", "fifteen"), default="auto",
                        help="the game on screen (default: recognise it)")
    parser.add_argument("--objective", choices=("fast", "score"), default=None,
                        help=f"Number Match: fewest adds and moves, or most points (default {objective_default})")
    parser.add_argument("--budget", type=positive_float, default=1.0, help="seconds to search a plan (default 1)")
    parser.add_argument("--verbose", "-v", action="store_true", help="say how the screen is captured and read")


# -- phones ------------------------------------------------------------------------------------

def devices(args) -> int:
    from assistant.device import run_devices

    return run_devices(args)


def phone(args) -> int:
    from phonesim.serve import run_phone

    return run_phone(args)


def add_fault_options(parser, tap_latency: float) -> None:
    """phonesim's realism profile and faults, on `tapsolve phone` and `tapsolve demo`."""
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


def add_phone_commands(commands) -> None:
    """`tapsolve devices` and `tapsolve phone` (the virtual phone)."""
    dev = commands.add_parser("devices", help="list phones with their state, model and screen size")
    dev.set_defaults(run=devices)
    sim = commands.add_parser("phone", help="run a virtual phone (phonesim) until Ctrl-C")
    sim.add_argument("--preset", default="1080x2400", help="device preset (default 1080x2400; "
                     "also 720x1600, 1440x3200, tablet-1600x2560)")
    sim.add_argument("--game", choices=("numbermatch", "flip9", "fifteen"), default="numbermatch")
    sim.add_argument("--seed", type=non_negative_int, default=0, help="board seed (default 0)")
    sim.add_argument("--port", type=port, default=0, help="TCP port (default: a free one)")
    sim.add_argument("--theme", choices=("light", "dark"), default="light")
    add_fault_options(sim, tap_latency=0.0)
    sim.add_argument("--size", type=non_negative_int, default=27, help="Number Match start numbers (default 27)")
    sim.add_argument("--adds", type=adds, default=5, help="Number Match adds (default 5)")
    sim.add_argument("--add-rule", choices=("cell", "live"), default="cell",
                     help='"live": adds go after the last live number (a rule variant)')
    sim.add_argument("--points", metavar="KIND=N,...", default=None,
                     help="Number Match: score some kinds otherwise, e.g. gap=3,row=20 (kinds: touching, "
                          "row_break, gap, row, clear)")
    sim.add_argument("--layout", choices=("buttons", "cards"), default="buttons", help="Flip 9 layout")
    sim.add_argument("--look", choices=("tiles", "grid"), default="tiles", help="15-puzzle look")
    sim.add_argument("--width", type=int, choices=(3, 4, 5), default=4, help="15-puzzle tiles a side (default 4)")
    sim.add_argument("--slides", type=non_negative_int, default=0,
                     help="15-puzzle: scramble the goal by this many slides (default 0: a random board)")
    sim.add_argument("--ads", action="store_true", help="an interstitial ad after each stage")
    sim.add_argument("--secure", action="store_true", help="a secure window: screenshots are black")
    sim.add_argument("--dialog-after", type=non_negative_int, default=0, metavar="N",
                     help='a "Rate us!" dialog over the board after N moves (its button closes it)')
    sim.add_argument("--dialog-between-stages", action="store_true",
                     help='the "Rate us!" dialog over each new stage\'s board')
    sim.add_argument("--unauthorized", action="store_true", help="never authorize the computer")
    sim.set_defaults(run=phone)


# -- the parser ------------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one line, pointing at --help."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tapsolve",
        description="Reads number puzzles off an Android phone, solves them, and guides or taps the moves.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    solve = commands.add_parser("solve", help="solve a board given as text")
    games = solve.add_subparsers(dest="game", metavar="GAME", parser_class=Parser)
    games.required = True
    nm = games.add_parser("numbermatch", help="Number Match: clear the board with the fewest adds")
    nm.add_argument("board", help='board text ("467956239 385113145 ...", "." = crossed out) or board JSON')
    nm.add_argument("--adds", type=adds, default=None, help="presses of + left (default 5)")
    nm.add_argument("--budget", type=positive_float, default=1.0,
                    help="seconds to search at most (default 1); score uses all of it")
    nm.add_argument("--objective", choices=("fast", "score"), default="fast",
                    help="fast: fewest adds (proved), pressed late (default); score: most points")
    nm.add_argument("--json", action="store_true", help="print the Solution JSON")
    nm.set_defaults(run=solve_numbermatch)
    f9 = games.add_parser("flip9", help="Flip 9: sort the cards in the fewest swaps")
    f9.add_argument("cards", help="the cards in order: 315927486 or 3,1,5,9,2,7,4,8,6")
    f9.add_argument("--must", type=card, default=None, help="the card the next swap must include")
    f9.add_argument("--json", action="store_true", help="print the Solution JSON")
    f9.set_defaults(run=solve_flip9)
    ff = games.add_parser("fifteen", help="15-puzzle (also 3x3 and 5x5): slide the tiles home in the fewest moves")
    ff.add_argument("tiles", help='the tiles row by row, 0 or _ the blank: "1 2 3 4, 5 6 7 8, ..., 13 14 _ 15"')
    ff.add_argument("--json", action="store_true", help="print the Solution JSON")
    ff.set_defaults(run=solve_fifteen)

    guide = commands.add_parser("guide", help="show the next move over the live phone screen and follow the player")
    add_phone_options(guide, "fast")
    guide.add_argument("--export", metavar="DIR", help="write the whole plan as step PNGs and index.html instead of a window")
    guide.set_defaults(run=run_guide)

    play = commands.add_parser("play", help="tap the moves on the phone, checking the screen after each")
    add_phone_options(play, "score")
    play.add_argument("--stages", type=positive_int, default=1, help="Number Match stages to clear (default 1)")
    play.add_argument("--dry-run", action="store_true", help="print the taps instead of sending them")
    play.set_defaults(run=run_play)

    demo = commands.add_parser("demo", help="play a game on the built-in virtual phone through real adb")
    demo.add_argument("--game", choices=("numbermatch", "flip9", "fifteen"), default="numbermatch")
    demo.add_argument("--preset", default="1080x2400", help="virtual phone model (see tapsolve phone --help)")
    demo.add_argument("--seed", type=non_negative_int, default=1)
    demo.add_argument("--stages", type=positive_int, default=1)
    add_fault_options(demo, tap_latency=0.05)
    demo.add_argument("--json", action="store_true",
                      help="print the run summary as one JSON object, last")
    demo.add_argument("--objective", choices=("fast", "score"), default="fast",
                      help="Number Match: fewest adds and moves (default, a short show), or most points")
    demo.add_argument("--no-window", action="store_true", help="play in the terminal even when a display exists")
    demo.set_defaults(run=run_demo)

    add_phone_commands(commands)
    from assistant import bench  # light to import: the solver loads only when a bench runs
    bench.register(commands, Parser)
    from assistant.read import add_commands as add_read_commands
    add_read_commands(commands)  # read, calibrate
    return parser


EVERYDAY = """\
tapsolve reads number puzzles off an Android phone, solves them, and guides or taps the moves.

  tapsolve demo                           watch it play on the built-in virtual phone
  tapsolve devices                        list the phones connected over ADB
  tapsolve guide                          show the next move over the phone's screen
  tapsolve play                           tap the moves on the phone itself
  tapsolve read SCREENSHOT.png            read a board off a screenshot
  tapsolve solve numbermatch "467956239 385113145 967616278"
  tapsolve solve flip9 315927486

Every command: tapsolve --help; one command: tapsolve COMMAND --help"""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print(EVERYDAY)
        return 0
    try:
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return code
    except TapsolveError as exc:
        print(f"tapsolve: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (`tapsolve solve ... | head -1`): stop quietly, as `cat` does;
        # stdout now points at nothing so the exit flush cannot complain again
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("tapsolve: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
