"""`tapsolve solve numbermatch`: a board given as text or JSON, solved and printed move by move."""

from __future__ import annotations

from solver.errors import InputError
from solver.files import read_text
from solver.numbermatch import MAX_ADDS, Board, Rules, search
from solver.words import count


# a board JSON file holds a few hundred cells: a file larger than this is not one
MAX_BOARD_FILE = 1 << 20


def adds(text: str) -> int:
    """An --adds option's value: presses of "+" left, 0 to the most the solver takes (MAX_ADDS)."""
    from assistant.options import bounded_int

    return bounded_int(0, MAX_ADDS, "adds")(text)


def add_solve_command(games) -> None:
    """Register `tapsolve solve numbermatch` on the `solve` command's games."""
    from assistant.options import positive_float

    nm = games.add_parser("numbermatch", help="Number Match: clear the board with the fewest adds")
    nm.add_argument("board", help='board text ("467956239 385113145 ...", "." = crossed out) or board JSON')
    nm.add_argument("--adds", type=adds, default=None, help="presses of + left (default 5)")
    nm.add_argument("--budget", type=positive_float, default=1.0,
                    help="seconds to search at most (default 1); score uses all of it")
    nm.add_argument("--objective", choices=("fast", "score"), default="fast",
                    help="fast: fewest adds (proved), pressed late (default); score: most points")
    nm.add_argument("--row-window", action="store_true",
                    help="plan for the row-removal window: a row a pair empties stays a moment, and a pair "
                         "chosen then is played with it there (a 'wait' lets it go; not confirmed on today's game)")
    nm.add_argument("--json", action="store_true", help="print the Solution JSON")
    nm.set_defaults(run=solve_numbermatch)


def read_numbermatch_board(board: str | dict, adds: int | None, rules: Rules | None = None):
    """A board with a live number from board text or board JSON (a dict, its text or a .json file)."""
    if isinstance(board, str) and board.endswith(".json"):
        board = read_text(board, MAX_BOARD_FILE, "a board JSON file")
    if isinstance(board, dict) or board.lstrip().startswith("{"):
        board = Board.from_json(board, rules=rules)
        if adds is not None:
            board.adds_left = adds
    else:
        board = Board.parse(board, adds_left=adds, rules=rules)
    if board.live_count() == 0:
        raise InputError("the board has no live number to pair")
    return board


def solve_json(board: str | dict, objective: str = "fast", budget: float = 1.0) -> dict:
    """The Solution JSON `tapsolve solve numbermatch --json` prints (docs/json.md), for a board
    as text or board JSON: ``tapsolve.solve``'s."""
    return search.solve(read_numbermatch_board(board, None), objective=objective, budget=budget).to_json()


def solve_numbermatch(args) -> int:
    from assistant.options import print_json

    board = read_numbermatch_board(args.board, args.adds, Rules(row_window=args.row_window))
    solution = search.solve(board, objective=args.objective, budget=args.budget)
    if args.json:
        print_json(args, solution.to_json())
        return 0
    print(f"Board ({count(board.live_count(), 'numbers')}, {count(board.adds_left, 'adds')} left):")
    print("\n".join(board.format().split()))
    replay = board.copy()
    for step, move in enumerate(solution.moves, 1):
        print(f"{step:3d}. {replay.describe(move)}")
        replay.push(move)
    adds = solution.adds_used
    if solution.status == "solved":
        proof = proof_note(solution) if args.objective == "fast" else ""
        moves = count(solution.pairs + adds, 'moves')  # a wait is no move of the player's
        print(f"Cleared with {count(adds, 'adds')}, score {solution.score}, {moves}{proof}.")
    elif solution.status == "unsolvable":
        print(f"Unsolvable: no line clears this board with {count(board.adds_left, 'adds')}.")
    else:
        print(f"Gave up after {args.budget:g} s: best line above leaves {count(replay.live_count(), 'numbers')}"
              f" ({count(adds, 'adds')}, score {solution.score}).")
    return 0


def proof_note(solution) -> str:
    """What the fast search proved, for the closing line."""
    if solution.optimal:
        return " (fewest adds and fewest moves, proved)"
    if solution.adds_optimal:
        return " (fewest adds proved; fewer moves not ruled out in the budget)"
    return " (fewer adds not ruled out in the budget)"
