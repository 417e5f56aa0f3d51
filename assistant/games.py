"""What the assistant needs to know of each game: plan, predict, compare, and where to tap.

The closed loop (``assistant.loop``) is the same for every game; a game is one class here
with the methods below, so a third game is a new class, not a rewrite.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver import flip9, search
from solver.numbermatch import Add, Board, Pair, Rules
from solver.errors import TapsolveError


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

    def position(self, reading) -> Board:
        board = reading.board.copy()
        board.rules = self.rules
        return board

    def plan(self, board: Board) -> Plan:
        solution = search.solve(board, objective=self.objective, budget=self.budget)
        return Plan(solution.moves, solution.status, solution.adds_used, solution.score, solution.optimal)

    def after(self, board: Board, move) -> Board:
        expected = board.copy()
        expected.push(move)
        return expected

    def same(self, seen: Board, expected: Board) -> bool:
        # The score on screen is not compared: the points table is a reconstruction, and a
        # different score is no reason to distrust the board.
        return seen.cells == expected.cells and seen.adds_left == expected.adds_left

    def explain(self, before: Board, seen: Board, move) -> str | None:
        """When the phone disagrees after an add, try the other add rule; adopt it if it fits."""
        if not isinstance(move, Add):
            return None
        other = Rules(self.rules.columns, self.rules.adds, "live" if self.rules.add_after == "cell" else "cell")
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
