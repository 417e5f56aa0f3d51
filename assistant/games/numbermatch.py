"""Number Match as the assistant plays it: plan, predict, compare, tap (scrolling a tall board),
learn the phone's points table, and draw a pair or the + button."""

from __future__ import annotations

import json

from dataclasses import replace

import numpy as np

from assistant.games import Game, Plan
from solver import search
from solver.numbermatch import POINT_KINDS, Add, Board, Pair, Rules
from solver.errors import InputError, TapsolveError

# How a person calls each kind of points, for the line said when the phone's table differs.
POINT_NAMES = {"touching": "touching pairs", "row_break": "pairs across a row break",
               "gap": "pairs across gaps", "row": "each removed row", "clear": "a cleared board"}


class NumberMatch(Game):
    """Number Match: a position is a Board; a move is a Pair or an Add."""

    name = "numbermatch"
    more_stages = True
    scrolls = True
    # set by the loop: with them, taps scroll a board taller than the screen (assistant.scroll)
    view = None
    link = None

    def __init__(self, objective: str = "fast", budget: float = 1.0):
        super().__init__(objective, budget)
        self.rules = Rules()
        # the points table as the phone plays it: kinds a scored move bore out, kinds it showed
        # otherwise (kept in the device profile), and the moves of each kind judged so far
        self.confirmed: set[str] = set()
        self.learned: dict[str, int] = {}
        self.learned_after: dict[str, int] = {}  # kind: its moves judged when it was learned
        self.kind_moves = dict.fromkeys(POINT_KINDS, 0)
        self.profile = None
        self.score_read = False  # whether the last position's score was read off the screen
        self.note: str | None = None  # said (by explain) after a move that taught a table entry

    @staticmethod
    def warm() -> None:
        search.warm_up()  # importing numba and loading the cached kernel: about a second

    def attach(self, view, link) -> None:
        self.view, self.link = view, link

    def position(self, reading) -> Board:
        self.keep_points(reading.profile)
        board = reading.board.copy()
        board.rules = self.rules
        self.score_read = "score" not in reading.unsure and "score not read" not in reading.notes
        return board

    def keep_points(self, profile) -> None:
        """Adopt the points a profile learned in an earlier game, and keep what this one learns
        in the profile (a rebuilt profile gets them back)."""
        if profile is None:
            return
        if profile is not self.profile:
            self.profile = profile
            # not confirmed: a move that scores otherwise (an update of the game) corrects them
            for kind, value in profile.points.items():
                self.learned.setdefault(kind, value)
            self.rules = self.rules.scoring(self.learned)
        if self.learned and profile.points != self.learned:
            profile.points = dict(self.learned)
            profile.changed = True  # stored with the next read (calibration.store.remember)

    def plan(self, board: Board) -> Plan:
        solution = search.solve(board, objective=self.objective, budget=self.budget)
        return Plan(solution.moves, solution.status, solution.adds_used, solution.score, solution.optimal)

    def after(self, board: Board, move) -> Board:
        expected = board.copy()
        expected.push(move)
        return expected

    def same(self, seen: Board, expected: Board) -> bool:
        """The board on screen is the one predicted. A score that differs is no reason to distrust
        the board (the table is a reconstruction), but when it teaches the table an entry the
        answer is no, so that ``explain`` says so and the plan is made again with it."""
        if seen.cells != expected.cells or seen.adds_left != expected.adds_left:
            return False
        return not self.learn_points(seen, expected)

    def shows(self, seen: Board, expected: Board) -> bool:
        # a score that differs is judged (and learned from) on the settled screen only: the
        # glance may have caught it mid-count
        return (seen.cells == expected.cells and seen.adds_left == expected.adds_left
                and (not self.score_read or seen.score == expected.score))

    def learn_points(self, seen: Board, expected: Board) -> bool:
        """Compare the points the phone gave the move that made ``expected`` with the rules'.
        An entry is learned when it is the only one of the move's kinds not yet borne out by an
        earlier move (a pair that removes a row scores its kind and the row together)."""
        if not self.score_read or not expected.move_stack:
            return False
        move, cells, adds, score = expected.move_stack[-1]
        if isinstance(move, Add):
            return False
        gained, predicted = seen.score - score, expected.score - score
        before = Board(list(cells), adds, score, expected.stage, self.rules)
        kind = before.pair_kind(move.i, move.j)
        before.cells[move.i] = before.cells[move.j] = 0
        rows = len(before.emptied_rows(move.i, move.j))
        kinds = [kind] + (["row"] if rows else [])
        for k in kinds:
            self.kind_moves[k] += 1
        if gained == predicted:
            self.confirmed.update(kinds)
            return False
        unknown = [k for k in kinds if k not in self.confirmed]
        if len(unknown) != 1:
            return False  # which entry differs cannot be told yet (or the score was misread)
        table = self.rules.point_table
        rest = gained - sum(table[k] * (rows if k == "row" else 1) for k in kinds if k != unknown[0])
        count = rows if unknown[0] == "row" else 1
        if rest < 0 or rest % count:
            return False
        k, value = unknown[0], rest // count
        self.note = f"this game scores {POINT_NAMES[k]} {value}, not {table[k]}: learned"
        self.learned[k] = value
        self.learned_after[k] = self.kind_moves[k]
        self.confirmed.add(k)
        self.rules = self.rules.scoring({k: value})
        self.keep_points(self.profile)
        return True

    def summary(self) -> str:
        """What the run learned of the game, for the closing line ("" when nothing)."""
        if not self.learned:
            return ""
        return "; points learned: " + ", ".join(f"{POINT_NAMES[k]} {v}" for k, v in self.learned.items())

    def explain(self, before: Board, seen: Board, move) -> str | None:
        """A points entry just learned (``same``) is said; when the phone disagrees after an
        add, the other add rule is tried and adopted if it fits."""
        if self.note is not None:
            note, self.note = self.note, None
            return note
        if not isinstance(move, Add):
            return None
        other = replace(self.rules, add_after="live" if self.rules.add_after == "cell" else "cell")
        trial = before.copy()
        trial.rules = other
        trial.push(Add())
        if trial.cells == seen.cells:
            self.rules = other
            where = "after the last live number" if other.add_after == "live" else "after the last cell"
            return f"this game appends added numbers {where}: following it from now on"
        return None

    def taps(self, move, reading) -> list[tuple[int, int]]:
        """Screen points to tap for a move, given what is selected on screen now. A cell off
        screen is scrolled into view first (with a view and a link); a pair whose cells do not
        fit on one screen has its first cell tapped here, before scrolling to the second."""
        if isinstance(move, Add):
            if reading.add_button is None:
                raise TapsolveError("the + button is not on screen")
            return [reading.add_button]
        missing = [k for k in (move.i, move.j) if k not in reading.cells]
        if missing and self.view is not None and self.link is not None:
            return self._scrolled_taps(move, reading)
        if missing:
            raise TapsolveError(f"cell {missing[0]} is off screen")
        selected = reading.selected
        if selected == move.i:
            return [reading.cells[move.j]]
        if selected == move.j:
            return [reading.cells[move.i]]
        out = [reading.cells[selected]] if selected is not None and selected in reading.cells else []
        return out + [reading.cells[move.i], reading.cells[move.j]]

    def _scrolled_taps(self, move, reading) -> list[tuple[int, int]]:
        view, link, cols = self.view, self.link, self.rules.columns
        selected = reading.selected
        if selected is not None and selected not in (move.i, move.j):
            link.tap(*view.show(link, [selected // cols]).cells[selected])  # drop the selection
            selected = None
        if selected in (move.i, move.j):
            other = move.j if selected == move.i else move.i
            return [view.show(link, [other // cols]).cells[other]]
        shown = view.show(link, [move.i // cols, move.j // cols])
        if move.j in shown.cells:
            return [shown.cells[move.i], shown.cells[move.j]]
        link.tap(*shown.cells[move.i])  # the app keeps the selection while the board scrolls
        return [view.show(link, [move.j // cols]).cells[move.j]]

    def order_for_screen(self, board: Board, moves: list, reading) -> list:
        from assistant.order import on_screen_first

        return on_screen_first(board, moves, reading.cells)

    def animation(self, board: Board, move) -> str:
        if isinstance(move, Add):
            return "add"
        after = self.after(board, move)
        if self.ends(after):
            return "pair, board cleared"  # then the stage's end slides in: the longest of all
        return "pair, rows go" if len(after.cells) < len(board.cells) else "pair"

    def describe(self, board: Board, move) -> str:
        return board.describe(move)

    def progress(self, board: Board) -> str:
        return f"{board.live_count()} numbers left, {board.adds_left} adds, score {board.score}"

    def status(self, board: Board) -> str:
        return self.progress(board) + (f", stage {board.stage}" if board.stage else "")

    def score(self, board: Board) -> int:
        return board.score

    def ends(self, board: Board) -> bool:
        return board.is_cleared()

    def where(self, cell: int, reading) -> str:
        cols = self.rules.columns
        return f"row {cell // cols + 1} column {cell % cols + 1}"

    def won(self, stages_done: int, stages: int) -> str:
        return f"stage cleared ({stages_done}/{stages})"

    def won_header(self) -> str:
        return "Stage cleared! Tap Continue on the phone for the next board."

    def results(self, tally) -> str:
        return (f"{tally.moves} moves, {tally.stages} stage{'s' if tally.stages != 1 else ''} cleared, "
                f"score {tally.score}")

    def show(self, move, reading):
        """Scroll the move's cells on screen when a tall board hides them (the guide draws the
        move over the live screenshot)."""
        if self.view is None or not isinstance(move, Pair):
            return None
        if move.i not in reading.cells or move.j not in reading.cells:
            columns = self.rules.columns
            return self.view.show(self.link, [move.i // columns, move.j // columns])
        return None

    def planned_taps(self, move, board: Board, reading) -> list[tuple[tuple[int, int], str]]:
        # the lattice is fixed on screen: rows that vanish move the cells, not the grid
        cols = board.rules.columns
        at = cell_lattice(reading, cols)
        shown_rows = {k // cols for k in reading.cells}
        cells = [] if isinstance(move, Add) else [move.i, move.j]
        taps = [reading.add_button] if isinstance(move, Add) else [at(k) for k in cells]
        # a cell on a row that is not on screen now is tapped after scrolling to it
        notes = ["" if k // cols in shown_rows else f" (row {k // cols + 1} is off screen: scrolled to first)"
                 for k in cells] or [""]
        return list(zip(taps, notes))

    def draw_next(self, image: np.ndarray, reading, move) -> np.ndarray:
        from assistant import overlay

        size = reading.pitch or overlay.cell_pitch(reading.cells)
        if isinstance(move, Add):
            return overlay.mark_button(image, reading.add_button, size, "+")
        # a pair farther apart than the screen is tall shows only its cell on screen
        return overlay.mark_points(image, [reading.cells[k] for k in (move.i, move.j) if k in reading.cells],
                                   size, True)

    def diagram(self, board: Board, move) -> np.ndarray:
        return board_diagram(board, move)


def cell_lattice(reading, columns: int):
    """Screen centre of any board cell index, from one cell on screen and the reader's pitch."""
    k0, (x0, y0) = min(reading.cells.items())
    r0, c0 = divmod(k0, columns)
    pitch = reading.pitch
    return lambda k: (round(x0 + (k % columns - c0) * pitch), round(y0 + (k // columns - r0) * pitch))


def board_diagram(board: Board, move=None, cell: int = 56) -> np.ndarray:
    """A clean drawing of a Number Match board with `move` highlighted (for exported steps)."""
    import cv2
    from assistant import overlay

    cols = board.rules.columns
    rows = max(1, board.rows)
    image = np.full((rows * cell + 2 * cell, cols * cell + cell, 3), 255, np.uint8)
    ox, oy = cell // 2, cell // 2
    for k, value in enumerate(board.cells):
        r, c = divmod(k, cols)
        x0, y0 = ox + c * cell, oy + r * cell
        cv2.rectangle(image, (x0, y0), (x0 + cell, y0 + cell), (220, 224, 230), 1)
        if value:
            colour = overlay.INK
        else:
            colour = (200, 205, 214)
        text = str(value) if value else "."
        cv2.putText(image, text, (x0 + cell // 3, y0 + int(cell * 0.72)), cv2.FONT_HERSHEY_SIMPLEX,
                    cell / 40, colour, 2, cv2.LINE_AA)
    centre = {k: (ox + (k % cols) * cell + cell // 2, oy + (k // cols) * cell + cell // 2)
              for k in range(len(board.cells))}
    plus = (ox + cols * cell // 2, oy + rows * cell + cell // 2 + 4)
    cv2.circle(image, plus, cell // 3, (46, 133, 236), 2, cv2.LINE_AA)
    cv2.putText(image, f"+ {board.adds_left}", (plus[0] - cell // 4, plus[1] + cell // 8),
                cv2.FONT_HERSHEY_SIMPLEX, cell / 90, (46, 133, 236), 2, cv2.LINE_AA)
    if isinstance(move, Add):
        image = overlay.mark_button(image, plus, cell)
    elif move is not None:
        image = overlay.mark_points(image, [centre[move.i], centre[move.j]], cell, True)
    return image

# -- `tapsolve solve numbermatch` -------------------------------------------------------------------

def add_solve_command(games) -> None:
    """Register `tapsolve solve numbermatch` on the `solve` command's games."""
    from assistant.options import adds, positive_float

    nm = games.add_parser(NumberMatch.name, help="Number Match: clear the board with the fewest adds")
    nm.add_argument("board", help='board text ("467956239 385113145 ...", "." = crossed out) or board JSON')
    nm.add_argument("--adds", type=adds, default=None, help="presses of + left (default 5)")
    nm.add_argument("--budget", type=positive_float, default=1.0,
                    help="seconds to search at most (default 1); score uses all of it")
    nm.add_argument("--objective", choices=("fast", "score"), default="fast",
                    help="fast: fewest adds (proved), pressed late (default); score: most points")
    nm.add_argument("--json", action="store_true", help="print the Solution JSON")
    nm.set_defaults(run=solve_numbermatch)


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


GAME = NumberMatch
