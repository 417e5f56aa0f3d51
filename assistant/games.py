"""What the assistant needs to know of each game: plan, predict, compare, and where to tap.

The closed loop (``assistant.loop``) is the same for every game; a game is one class here
with the methods below, so a third game is a new class, not a rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from solver import flip9, search
from solver.numbermatch import POINT_KINDS, Add, Board, Rules
from solver.errors import TapsolveError

# How a person calls each kind of points, for the line said when the phone's table differs.
POINT_NAMES = {"touching": "touching pairs", "row_break": "pairs across a row break",
               "gap": "pairs across gaps", "row": "each removed row", "clear": "a cleared board"}


@dataclass
class Plan:
    """A solver's line from a position: the moves, and what it promises."""

    moves: list
    status: str
    adds_used: int = 0
    score: int = 0
    optimal: bool = False


class NumberMatch:
    """Number Match: a position is a Board; a move is a Pair or an Add."""

    name = "numbermatch"
    # set by the loop: with them, taps scroll a board taller than the screen (assistant.scroll)
    view = None
    link = None

    def __init__(self, objective: str = "fast", budget: float = 1.0):
        self.objective, self.budget = objective, budget
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

    def describe(self, board: Board, move) -> str:
        return board.describe(move)

    def progress(self, board: Board) -> str:
        return f"{board.live_count()} numbers left, {board.adds_left} adds, score {board.score}"


class Flip9:
    """Flip 9: a position is a State; a move is a swap (a, b) by card values."""

    name = "flip9"

    def position(self, reading) -> flip9.State:
        return flip9.State(reading.state.cards, reading.state.must)

    def plan(self, state: flip9.State) -> Plan:
        return Plan(flip9.solve(state), "solved", optimal=True)

    def after(self, state: flip9.State, move) -> flip9.State:
        expected = flip9.State(state.cards, state.must)
        expected.push(move)
        return expected

    def same(self, seen: flip9.State, expected: flip9.State) -> bool:
        return seen.cards == expected.cards and (seen.must == expected.must or seen.is_sorted())

    def explain(self, before, seen, move) -> str | None:
        return None

    def summary(self) -> str:
        return ""

    def taps(self, move, reading) -> list[tuple[int, int]]:
        a, b = move
        buttons = reading.buttons
        if str(a) not in buttons or str(b) not in buttons:
            raise TapsolveError("the card buttons are not on screen")
        must = reading.state.must
        if must == a:
            return [buttons[str(b)]]
        if must == b:
            return [buttons[str(a)]]
        return [buttons[str(a)], buttons[str(b)]]

    def describe(self, state: flip9.State, move) -> str:
        return f"swap {move[0]} and {move[1]}"

    def progress(self, state: flip9.State) -> str:
        return f"cards {state.format()}" + (f", must swap {state.must}" if state.must else "")


class Fifteen:
    """The sliding puzzle (3x3 to 5x5): a position is a fifteen.Board; a move is the tile slid
    into the gap. The solver (numba, with tables for 4x4) loads on the first plan."""

    name = "fifteen"

    def position(self, reading):
        from solver import fifteen

        return fifteen.Board(reading.board.tiles)

    def plan(self, board) -> Plan:
        from solver import fifteen

        solution = fifteen.solve(board)
        return Plan(solution.moves, solution.status, optimal=solution.optimal)

    def after(self, board, move):
        expected = board.copy()
        expected.push(move)
        return expected

    def same(self, seen, expected) -> bool:
        return seen.tiles == expected.tiles

    def explain(self, before, seen, move) -> str | None:
        return None

    def taps(self, move, reading) -> list[tuple[int, int]]:
        """The tile's centre: tapping a tile next to the gap slides it in."""
        tiles = reading.board.tiles
        if move not in tiles:
            raise TapsolveError(f"tile {move} is not on the board on screen")
        return [reading.cells[tiles.index(move)]]

    def describe(self, board, move) -> str:
        return board.describe(move)

    def progress(self, board) -> str:
        home = sum(t == k + 1 for k, t in enumerate(board.tiles))
        return f"{home}/{len(board.tiles) - 1} tiles home"


def game_for(name: str, objective: str = "fast", budget: float = 1.0):
    if name == "numbermatch":
        return NumberMatch(objective, budget)
    if name == "flip9":
        return Flip9()
    if name == "fifteen":
        return Fifteen()
    raise TapsolveError(f"no game {name!r}: numbermatch, flip9 or fifteen")
