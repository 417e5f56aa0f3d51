"""Number Match as the assistant plays it: plan, predict, compare, tap, and draw a pair or the +
button; a board taller than the screen is read and brought on screen by scrolling (``scroll``),
the plan ordered for the screen (``order``), the points table learned (``points``)."""

from __future__ import annotations

import importlib
from dataclasses import replace

import numpy as np

from assistant.games import Game, InPlace, Judgement, Learned, Plan
from assistant.games.numbermatch import bench
from assistant.games.numbermatch.order import soonest_first
from assistant.games.numbermatch.points import PointsTable
from assistant.games.numbermatch.solve import add_solve_command, solve_json  # noqa: F401 (the `solve` command)
from assistant.games.numbermatch.window import RowWindow, emptied_top
from solver.errors import TapsolveError
from solver.numbermatch import Add, Board, Pair, Rules, Wait, search
from solver.words import count

# The middle of a cell whose picture a pair's fade changes: this part of the cell's pitch, clear
# of the grid's lines around it.
CELL_INSIDE = 0.8
# its key in what the phone's game accepts (``Profile.accepts``): whether an add appends its
# numbers after the last live number (True) or after the board's last cell (False), as seen on
# the screen where the two differ
ADDS_AFTER_LIVE = "adds_after_live"


class NumberMatch(Game):
    """Number Match: a position is a Board; a move is a Pair or an Add."""

    name = "numbermatch"
    more_stages = True
    CELL_INSIDE = CELL_INSIDE
    won_word = "board cleared"  # (the guide's last exported step; a stage's end has its own words)
    APP_PACKAGES = ("com.easybrain.number.puzzle.game",)  # Easybrain's (the virtual phone's app too)

    def __init__(self, objective: str = "fast", budget: float = 1.0, row_window: bool = False):
        super().__init__(objective, budget)
        # the rules but their points (where an add appends: learned in play; the row-removal
        # window: ``row_window``)
        self.base_rules = Rules(row_window=row_window)
        self.points = PointsTable()  # the points as this phone scores them, learned in play
        # a plan for the most points rests on the table: each kind not borne out is judged alone
        # at once (``PointsTable.judged_alone``), not taken on trust until a score differs
        self.points.trusted = objective != "score"
        # where the board stands on the phone's screen, once attached to a link: a board taller
        # than the screen is read whole, and a move's cells brought on screen, by scrolling
        self.view = None  # a scroll.BoardView
        self.session = None
        self.window = RowWindow()  # whether this phone's game keeps an emptied row, found out in play
        self.alone = False  # nobody but play touches the phone (``attach``): only play plans with the window

    @property
    def rules(self) -> Rules:
        """The rules as this phone plays them: the base rules with the points table learned."""
        return self.base_rules.scoring(self.points.table)

    @property
    def row_window(self) -> bool:
        """Whether plans use the row-removal window (seed 004): a row a pair empties stays a
        moment, and pairs chosen then are played with it there (``Rules.row_window``). Off
        unless play has seen this phone's game keep an emptied row for a pair chosen meanwhile;
        a plan then holds ``Wait`` moves (no tap: the rows waiting go) and, before each, pairs
        that must follow one another within the window."""
        return self.base_rules.row_window

    @row_window.setter
    def row_window(self, on: bool) -> None:
        self.base_rules = replace(self.base_rules, row_window=on)

    @staticmethod
    def warm() -> None:
        search.warm_up()  # importing numba and loading the cached kernel: about a second
        importlib.import_module("assistant.games.numbermatch.scroll")  # (the board's view, at ``attach``)

    # its benchmark, `tapsolve bench numbermatch`, and its board's options on `tapsolve bench play`
    add_bench_command = staticmethod(bench.add_bench_command)
    add_bench_play_options = staticmethod(bench.add_bench_play_options)

    def attach(self, session, alone: bool = False) -> None:
        from assistant.games.numbermatch.scroll import BoardView  # (the phone's modules: not for `solve`)

        self.session, self.alone = session, alone
        if self.view is None:
            self.view = BoardView()
        self.view.alone, self.view.say = alone, session.say

    def look(self, image, reading, expected=None, before=None, glance=False):
        """The whole board read by scrolling, without a swipe where the screen agrees with
        ``expected`` or ``before`` (which also place a board of repeated rows at its end)."""
        if self.view is None or reading.screen != "board":
            return image, reading
        view = self.view
        whole = (view.confirm(image, reading, expected, before) if glance
                 else view.survey(self.session, (image, reading), expected, before))
        return None if whole is None else (image if glance or view.image is None else view.image, whole[1])

    def forget_place(self) -> None:
        if self.view is not None:
            self.view.first_row = None

    def position(self, reading) -> Board:
        """The board read, under the rules as this phone plays them (its score None when not read)."""
        board = reading.board.copy()
        board.rules = self.rules
        return board

    def recall(self, points: dict, touch: str | None = None) -> Learned:
        self.points.recall(points)
        profile = self.session.profile if self.session is not None else None
        if profile is not None and self.window.recall(profile.accepts) and self.alone:
            self.row_window = True  # (seen to work in an earlier game on this phone)
        after_live = profile.accepts.get(ADDS_AFTER_LIVE) if profile is not None else None
        if isinstance(after_live, bool):  # (seen in an earlier game on this phone)
            self.base_rules = replace(self.base_rules, add_after="live" if after_live else "cell")
        return Learned(points=self.points.kept())

    def meanwhile(self, loop, move, following) -> str | None:
        """Right after a pair's taps: with the row window on, its seconds start again; while it
        is not known, a pair that empties a row followed by one above it is its trial, and any
        other such pair a look for a row gone at once (``window``)."""
        if self.row_window:
            if not isinstance(move, Pair):
                return None
            self.window.opened()
            expected = self.after(loop.position, move)
            return self.window.judge_waiting(self, loop, move, expected) if expected.rows_waiting() else None
        if following is not None and self.window.trial(self, loop.position, move, following):
            return self.window.try_it(self, loop, move, following)
        self.window.peek(self, loop, move)  # (a pair that empties a row: it may show no window)
        return None

    def plan(self, board: Board) -> Plan:
        solution = search.solve(board, objective=self.objective, budget=self.budget)
        return Plan(solution.moves, solution.status, solution.adds_used, solution.score, solution.optimal)

    def same(self, seen: Board, expected: Board) -> bool:
        """The board on screen is the one predicted. A score that differs is no reason to distrust
        the board (the table is a reconstruction): ``learn`` learns from it."""
        return seen.cells == expected.cells and seen.adds_left == expected.adds_left

    def shows(self, seen: Board, expected: Board) -> bool:
        """A score that differs is judged (and learned from) on the settled screen only: the
        glance may have caught it mid-count. So is a move whose score teaches kinds of points
        not yet borne out on this phone (``PointsTable.judged_alone``)."""
        return (self.same(seen, expected) and (seen.score is None or seen.score == expected.score)
                and not self.points.judged_alone(expected))

    def learn(self, judgement: Judgement) -> Learned:
        """Points from the score of a settled screen showing the prediction (``learn_settled``) or
        the next stage's first board (``learn_stage``); a glance kept to be judged with the next
        (``took_glance``); where this phone's game appends an add's numbers, from an add read on
        the screen (``_add_rule_seen``). A lost tap teaches nothing: its screen shows a move
        judged already, or glanced and still kept.
        The table learned comes back to keep (``PointsTable.kept``) with a line when it changed."""
        points, note = self.points, None
        expected, seen, before = judgement.expected, judgement.seen, judgement.before
        if isinstance(judgement.move, Add) and judgement.how in ("settled", "glance"):
            note = self._add_rule_seen(before, seen)
        if not judgement.settled:
            points.took_glance(seen, expected)
        elif judgement.how == "stage":
            if points.learn_stage(expected, seen):
                seen.rules = self.rules  # the next stage is planned with the table learned
        elif self.same(seen, expected):
            if seen.score is not None and expected.move_stack:
                points.learn_settled(expected, seen.score)
        note, points.note = note or points.note, None
        return Learned(note, points.kept())

    def _add_rule_seen(self, before: Board, seen: Board) -> str | None:
        """An add read on the screen (settled, or a glance showing the prediction): where the two
        rules of where it appends its numbers tell ``seen`` apart (the board ends with crossed-out
        cells), the one that made it is this phone's, kept in its profile (``ADDS_AFTER_LIVE``)
        so that later games plan with it from their first move; a line when it is not the one
        followed so far. None: both rules fit, or neither does."""
        fits = [rule for rule in ("cell", "live") if self._added(before, rule).cells == seen.cells]
        if len(fits) != 1:
            return None
        rule, followed = fits[0], self.base_rules.add_after
        self.base_rules = replace(self.base_rules, add_after=rule)
        if self.session is not None:
            self.session.accepted(ADDS_AFTER_LIVE, rule == "live")
        if rule == followed:
            return None
        where = "after the last live number" if rule == "live" else "after the last cell"
        return f"this game appends added numbers {where}: following it from now on"

    def _added(self, board: Board, rule: str) -> Board:
        """``board`` after an add under the add ``rule`` ("cell" or "live")."""
        trial = board.copy()
        trial.rules = replace(self.base_rules, add_after=rule).scoring(self.points.table)
        trial.push(Add())
        return trial

    def tap_points(self, move, reading) -> list[tuple[int, int]]:
        """The taps given what is selected (``show`` brought the move's cells on screen first)."""
        if isinstance(move, Add):
            if reading.add_button is None:
                raise TapsolveError("the + button is not on screen")
            return [reading.add_button]
        if isinstance(move, Wait):
            return []  # nothing is touched: the rows waiting go of themselves
        if self.row_window and self.session is not None:  # (only inside the window: BoardChanged)
            link = self.session.link
            self.window.check(self.position(reading), move, 2 * link.spent["tap"] / max(1, link.taps))
        selected = reading.selected
        if selected == move.i and move.j in reading.cells:
            return [reading.cells[move.j]]
        if selected == move.j and move.i in reading.cells:
            return [reading.cells[move.i]]
        missing = [k for k in (move.i, move.j) if k not in reading.cells]
        if missing:
            raise TapsolveError(f"cell {missing[0]} is off screen")
        out = [reading.cells[selected]] if selected is not None and selected in reading.cells else []
        return out + [reading.cells[move.i], reading.cells[move.j]]

    def show(self, move, reading, select: bool = False):
        """Scroll a pair's cells on screen; ``select`` (autoplay: the guide never taps) drops a
        selection off screen first, and taps the first cell of a pair taller than the screen."""
        if self.view is None or not isinstance(move, Pair) or (move.i in reading.cells and move.j in reading.cells):
            return None
        view, session, cols = self.view, self.session, self.rules.columns
        link = session.link
        selected = reading.selected if select else None
        if selected is not None and selected not in (move.i, move.j):
            link.tap(*view.show(session, [selected // cols]).cells[selected])  # drop the selection
            view.selected = selected = None
        if selected in (move.i, move.j):
            shown = view.show(session, [(move.j if selected == move.i else move.i) // cols])
        else:
            shown = view.show(session, [move.i // cols, move.j // cols])
            if select and move.j not in shown.cells:
                link.tap(*shown.cells[move.i])  # the app keeps the selection while the board scrolls
                view.selected = move.i
                shown = view.show(session, [move.j // cols])
        return view.image, shown

    def order_for_screen(self, board: Board, moves: list, reading, ready=None) -> list:
        return soonest_first(board, moves, reading.cells, ready and (lambda i, j: ready(Pair(i, j))))

    def in_place(self, board: Board, move, reading) -> InPlace | None:
        """A pair fades where it is; its cells' insides are the parts that change, and nothing
        else from the top of the grid down may (the header's score and the numbers cleared do
        change: they are read with the next move read on a screen). Rows it empties then go,
        and the rows below them move up: from the first row emptied down, the screen shifts
        (the grid stays: cells take their new places on its lattice).
        The board's last pair leaves no cell (the won screen comes after its animation: the
        loop judges it so only when no board follows). Not on a board partly off screen, with a
        cell selected, or for a pair judged alone for its points (``PointsTable.judged_alone``:
        its score, read on a settled screen, teaches them)."""
        if (not isinstance(move, Pair) or reading.screen != "board" or reading.selected is not None
                or reading.more_above or reading.more_below or not reading.pitch
                or move.i not in reading.cells or move.j not in reading.cells):
            return None
        after = self.after(board, move)
        # (the board's last pair teaches its points on the next board, whose header carries the
        # score on: its won screen teaches nothing, so it need not wait for it)
        if not self.ends(after) and self.points.judged_alone(after):
            return None
        pitch = reading.pitch
        half = round(pitch * CELL_INSIDE / 2)
        parts = [(x - half, y - half, x + half, y + half) for x, y in (reading.cells[move.i], reading.cells[move.j])]
        top = min(y for _, y in reading.cells.values()) - round(pitch / 2)
        shifted, cells, rows = [], reading.cells, reading.rows_visible
        if self.ends(after):
            cells, rows = {}, 0
        elif len(after.cells) != len(board.cells):
            if not self.window.known:
                # (a game with the row window keeps the row while a pair chosen meanwhile starts
                # its seconds again: a next pair would outlast the collapse's learned end; rows
                # going are judged early once the phone is known to keep no window)
                return None
            cols = self.rules.columns
            at = cell_lattice(reading, cols)
            # (down to the screen's bottom: "+" appends its numbers after the board's last cell,
            # which is moving, so a press of it waits too)
            first = at(emptied_top(board, move) * cols)
            shifted = [(0, first[1] - round(pitch / 2), 1 << 20, 1 << 20)]
            cells = {k: at(k) for k in range(len(after.cells))}
            rows -= board.rows - after.rows
        return InPlace(parts, [(0, 0, 1 << 20, top)],
                       replace(reading, board=after, cells=cells, rows_visible=rows), shifted=shifted)

    def animation(self, board: Board, move) -> str:
        if isinstance(move, Add):
            return "add"
        if isinstance(move, Wait):
            return "rows go"  # (after the row window's seconds)
        after = self.after(board, move)
        if self.ends(after):
            return "pair, board cleared"  # then the stage's end slides in: the longest of all
        return "pair, rows go" if len(after.cells) < len(board.cells) else "pair"

    def describe(self, board: Board, move) -> str:
        return board.describe(move)

    def progress(self, board: Board) -> str:
        return f"{count(board.live_count(), 'numbers')} left, {count(board.adds_left, 'adds')}, score {board.score}"

    def status(self, board: Board) -> str:
        return self.progress(board) + (f", stage {board.stage}" if board.stage else "")

    def score(self, board: Board) -> int:
        return board.score

    def numbers(self, board: Board) -> dict[str, int]:
        shown = {"score": board.score, "adds_left": board.adds_left, "stage": board.stage}
        return {name: value for name, value in shown.items() if value is not None}

    def ends(self, board: Board) -> bool:
        return board.is_won()

    def where(self, cell: int, reading) -> str:
        cols = self.rules.columns
        return f"row {cell // cols + 1} column {cell % cols + 1}"

    def summary(self) -> str:
        return self.points.summary()

    def won(self, stages_done: int, stages: int) -> str:
        return f"stage cleared ({stages_done}/{stages})"

    def won_header(self) -> str:
        return "Stage cleared! Tap Continue on the phone for the next board."

    def results(self, tally) -> str:
        return (f"{count(tally.moves, 'moves')}, {count(tally.stages, 'stages')} cleared, "
                f"score {tally.score}")

    def planned_tap_points(self, move, board: Board, reading) -> list[tuple[tuple[int, int], str]]:
        # the lattice is fixed on screen: rows that vanish move the cells, not the grid
        cols = board.rules.columns
        at = cell_lattice(reading, cols)
        shown_rows = {k // cols for k in reading.cells}
        if isinstance(move, Wait):
            return []
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
        if isinstance(move, Wait):
            return image  # nothing to touch
        # a pair farther apart than the screen is tall shows only its cell on screen
        return overlay.mark_points(image, [reading.cells[k] for k in (move.i, move.j) if k in reading.cells],
                                   size, True)

    def diagram(self, board: Board, move, cell: int = 56) -> np.ndarray:
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
            colour = overlay.INK if value else (200, 205, 214)
            cv2.putText(image, str(value) if value else ".", (x0 + cell // 3, y0 + int(cell * 0.72)),
                        cv2.FONT_HERSHEY_SIMPLEX, cell / 40, colour, 2, cv2.LINE_AA)
        centre = {k: (ox + (k % cols) * cell + cell // 2, oy + (k // cols) * cell + cell // 2)
                  for k in range(len(board.cells))}
        plus = (ox + cols * cell // 2, oy + rows * cell + cell // 2 + 4)
        cv2.circle(image, plus, cell // 3, (46, 133, 236), 2, cv2.LINE_AA)
        cv2.putText(image, f"+ {board.adds_left}", (plus[0] - cell // 4, plus[1] + cell // 8),
                    cv2.FONT_HERSHEY_SIMPLEX, cell / 90, (46, 133, 236), 2, cv2.LINE_AA)
        if isinstance(move, Add):
            image = overlay.mark_button(image, plus, cell)
        elif isinstance(move, Pair):
            image = overlay.mark_points(image, [centre[move.i], centre[move.j]], cell, True)
        return image


def cell_lattice(reading, columns: int):
    """Screen centre of any board cell index, from one cell on screen and the reader's pitch."""
    k0, (x0, y0) = min(reading.cells.items())
    r0, c0 = divmod(k0, columns)
    pitch = reading.pitch
    return lambda k: (round(x0 + (k % columns - c0) * pitch), round(y0 + (k // columns - r0) * pitch))


GAME = NumberMatch
