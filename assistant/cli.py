"""The `tapsolve` command line: parses arguments, runs a command, turns errors into one line."""

from __future__ import annotations

import argparse
import json
import sys

from solver.errors import InputError, TapsolveError


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative: give 0 or more")
    return value


def card(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a card (1-9)") from None
    if not 1 <= value <= 9:
        raise argparse.ArgumentTypeError(f"{value} is not a card: cards are 1-9")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text} must be more than 0")
    return value


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
    solution = search.solve(board, budget=args.budget)
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
        proof = " (fewest possible)" if solution.optimal else ""
        print(f"Cleared with {adds} {plural}{proof}, score {solution.score}, {len(solution.moves)} moves.")
    elif solution.status == "unsolvable":
        print(f"Unsolvable: no line clears this board with {board.adds_left} adds.")
    else:
        print(f"Gave up after {args.budget:g} s: best line above leaves {replay.live_count()} numbers"
              f" ({adds} {plural}, score {solution.score}).")
    return 0


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
    commands.required = True

    solve = commands.add_parser("solve", help="solve a board given as text")
    games = solve.add_subparsers(dest="game", metavar="GAME", parser_class=Parser)
    games.required = True
    nm = games.add_parser("numbermatch", help="Number Match: clear the board with the fewest adds")
    nm.add_argument("board", help='board text ("467956239 385113145 ...", "." = crossed out) or board JSON')
    nm.add_argument("--adds", type=non_negative_int, default=None, help="presses of + left (default 5)")
    nm.add_argument("--budget", type=positive_float, default=2.0, help="seconds to search (default 2)")
    nm.add_argument("--json", action="store_true", help="print the Solution JSON")
    nm.set_defaults(run=solve_numbermatch)
    f9 = games.add_parser("flip9", help="Flip 9: sort the cards in the fewest swaps")
    f9.add_argument("cards", help="the cards in order: 315927486 or 3,1,5,9,2,7,4,8,6")
    f9.add_argument("--must", type=card, default=None, help="the card the next swap must include")
    f9.add_argument("--json", action="store_true", help="print the Solution JSON")
    f9.set_defaults(run=solve_flip9)

    from assistant.read import add_commands as add_read_commands

    add_read_commands(commands)  # read, calibrate
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except TapsolveError as exc:
        print(f"tapsolve: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("tapsolve: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
