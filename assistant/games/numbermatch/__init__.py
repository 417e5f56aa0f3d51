"""Number Match as the assistant plays it: plan, predict, compare, tap (scrolling a tall board),
learn the phone's points table, and draw a pair or the + button."""

from __future__ import annotations

import json

from dataclasses import replace
from fractions import Fraction

import numpy as np

from assistant.games import Game, InPlace, Plan
from solver import search
from solver.numbermatch import POINT_KINDS, Add, Board, Pair, Rules
from solver.errors import InputError, TapsolveError

# The middle of a cell whose picture a pair's fade changes: this part of the cell's pitch, clear
# of the grid's lines around it.
CELL_INSIDE = 0.8
# How a person calls each kind of points, for the line said when the phone's table differs.
POINT_NAMES = {"touching": "touching pairs", "row_break": "pairs across a row break",
               "gap": "pairs across gaps", "row": "each removed row", "clear": "a cleared board"}


class NumberMatch(Game):
    """Number Match: a position is a Board; a move is a Pair or an Add."""

    name = "numbermatch"
    more_stages = True
    scrolls = True
    # set by the loop: with them, taps scroll a board taller than the screen (.scroll)
    view = None
    link = None

    def __init__(self, objective: str = "fast", budget: float = 1.0):
        super().__init__(objective, budget)
        self.rules = Rules()
        # the points table as the phone plays it: kinds a scored move bore out in this game,
        # kinds it showed otherwise, and how many of each kind were judged so far
        self.confirmed: set[str] = set()
        self.learned: dict[str, int] = {}
        self.stored: dict[str, int] = {}  # kept in the profile by earlier games on this phone
        self.learned_after: dict[str, int] = {}  # kind: how many of it were judged when it was learned
        self.kind_moves = dict.fromkeys(POINT_KINDS, 0)
        # moves scored otherwise whose entries cannot be told apart yet: (counts of each kind, points)
        self.pending: list[tuple[dict[str, int], int]] = []
        self.rests_on: dict[str, set[str]] = {}  # kind: the stored entries its value was worked out from
        # moves taken on a glance since the last score read on a settled screen: how many of each
        # kind they score, their points, and the (cells, score) the last one left (shows)
        self.glanced: tuple[dict[str, int], int, tuple] | None = None
        self.profile = None
        self.score_read = False  # whether the last position's score was read off the screen
        self.note: str | None = None  # a table entry just learned, said by explain or next_stage

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
        """Adopt the points a profile kept from earlier games, and keep in it every entry this
        one bears out or learns (a rebuilt profile gets them back)."""
        if profile is None:
            return
        if profile is not self.profile:
            self.profile = profile
            # trusted until a move scores otherwise (an update of the game), which corrects them
            for kind, value in profile.points.items():
                self.stored.setdefault(kind, value)
            self.rules = self.rules.scoring({k: v for k, v in self.stored.items() if k not in self.confirmed})
        table = self.rules.point_table
        kept = {k: table[k] for k in POINT_KINDS if k in self.stored or k in self.confirmed}
        if kept and profile.points != kept:
            from calibration import store

            profile.points = kept
            profile.changed = True
            store.remember(profile)  # at once: the run may end before the next read stores it

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
        """A score that differs is judged (and learned from) on the settled screen only: the
        glance may have caught it mid-count. So is a move that scores a kind of points not yet
        borne out on this phone (in this game or one the profile kept), for its score to teach it. A move taken on a glance is not
        borne out by it either: it is kept (``glanced``) and judged with the next move judged
        on a settled screen, by the score that screen shows."""
        shown = (seen.cells == expected.cells and seen.adds_left == expected.adds_left
                 and (not self.score_read or seen.score == expected.score)
                 and set(last_scored(expected)) <= self.confirmed | set(self.stored))
        if shown:  # the loop takes the glance as the position
            counts, points = self.since_settled(expected)
            score = expected.move_stack[-1][3]
            self.glanced = (add_counts(counts, last_scored(expected)), points + expected.score - score,
                            (seen.cells, seen.score)) if self.score_read and score is not None else None
        return shown

    def since_settled(self, board: Board) -> tuple[dict[str, int], int]:
        """The moves taken on a glance just before the last move of ``board``, since the last
        score read on a settled screen: how many of each kind they score, and their points."""
        if self.glanced is None or self.glanced[2] != tuple(board.move_stack[-1][1:4:2]):
            return {}, 0
        return self.glanced[0], self.glanced[1]

    def learn_points(self, seen: Board, expected: Board) -> bool:
        """Compare the points the phone gave the move that made ``expected`` (and the moves taken
        on a glance before it) with the rules' (``learn_scored``); True when that taught the
        table an entry."""
        if not self.score_read or not expected.move_stack:
            return False
        return self.learn_settled(expected, seen.score)

    def learn_settled(self, expected: Board, score: int) -> bool:
        """The settled screen after the last move of ``expected`` shows ``score``: learn from
        it and from the moves glanced before it, and start counting from it."""
        counts, points = self.since_settled(expected)
        self.glanced = None
        before = expected.move_stack[-1][3]
        if before is None or score is None:
            return False
        counts = add_counts(counts, last_scored(expected))
        return bool(counts) and self.learn_scored(counts, score - before + points)

    def next_stage(self, won: Board, board: Board) -> str | None:
        """The stage's last pair is judged on the next stage's first board: the phone shows the
        stage-complete screen in between, and the score it carries on into the next stage's
        header is the only one known to be the real game's (realshots: a fresh stage 10 board
        shows 14,992). So the last pair, its rows and the cleared-board bonus are learned here,
        before the next stage is planned (``board`` gets the table learned)."""
        fresh = board.stage is not None and won.stage is not None and board.stage == won.stage + 1 \
            and all(board.cells)  # no pair played on it yet
        if self.score_read and fresh and won.move_stack and self.learn_settled(won, board.score):
            board.rules = self.rules
        note, self.note = self.note, None
        return note

    def learn_scored(self, counts: dict[str, int], gained: int) -> bool:
        """One scored move: ``counts`` of each kind it scores (its pair's kind, rows removed, the
        board cleared) and the points the phone gave it. A move scored as predicted bears out its
        kinds; one scored otherwise is an equation kept until the entries it holds can be told
        apart (``resolve``). True when an entry was learned (``note`` says it)."""
        table = self.rules.point_table
        for k, n in counts.items():
            self.kind_moves[k] += n
        if gained == sum(table[k] * n for k, n in counts.items()):
            self.confirmed.update(counts)
            for k in counts:
                self.rests_on.pop(k, None)  # borne out by itself now
        else:
            self.pending.append((counts, gained))
        learned = self.resolve()
        if learned:
            self.note = "; ".join(f"this game scores {POINT_NAMES[k]} {v}, not {table[k]}: learned"
                                  for k, v in learned.items())
        return bool(learned)

    def resolve(self) -> dict[str, int]:
        """Learn every entry the moves scored otherwise now fix (``solve_points``). Entries a move
        bore out in this game are known; failing that, entries the profile stored are taken as
        known too (a pair of a stored kind that removes a row teaches the row), and what is
        learned so rests on them until one of them is corrected. A move used up is dropped, so
        no entry is borne out by the move that taught it."""
        learned = {}
        while True:
            for known in (self.confirmed, self.confirmed | set(self.stored)):
                table = self.rules.point_table
                solved = solve_points(self.pending, table, known)
                if solved is None and known is self.confirmed:
                    self.pending = []  # the moves contradict what they bore out: a score was misread
                    return learned
                if solved:
                    break
            else:
                return learned
            self.pending = [(counts, gained) for counts, gained in self.pending
                            if not set(counts) - known <= set(solved)]
            for k, value in solved.items():
                self.rests_on[k] = known - self.confirmed
                if value != table[k]:
                    learned[k] = self.learned[k] = value
                    self.learned_after[k] = self.kind_moves[k]
                    self.confirmed -= {d for d, basis in self.rests_on.items() if k in basis}
            self.confirmed.update(solved)
            self.rules = self.rules.scoring(solved)
            self.keep_points(self.profile)
            self.pending = [(counts, gained) for counts, gained in self.pending if set(counts) - self.confirmed]

    def waiting(self) -> str:
        """Moves scored otherwise whose entries cannot be told apart yet, and what would tell."""
        table = self.rules.point_table
        out = []
        for counts, gained in self.pending:
            unknown = [k for k in counts if k not in self.confirmed]
            what = " + ".join(POINT_NAMES[k] + (f" x{n}" if n > 1 else "") for k, n in counts.items())
            out.append(f"a move scoring {what} got {gained}, not {sum(table[k] * n for k, n in counts.items())}: "
                       f"which of {' and '.join(POINT_NAMES[k] for k in unknown)} differs shows once a move "
                       "scores one of them without the others, or in other numbers")
        return "; ".join(out)

    def summary(self) -> str:
        """What the run learned of the game, for the closing line ("" when nothing)."""
        learned = ", ".join(f"{POINT_NAMES[k]} {v}" for k, v in self.learned.items())
        waiting = self.waiting()
        return (f"; points learned: {learned}" if learned else "") + (f"; not learned yet: {waiting}" if waiting else "")

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
        from assistant.games.numbermatch.order import on_screen_first

        return on_screen_first(board, moves, reading.cells)

    def in_place(self, board: Board, move, reading) -> InPlace | None:
        """A pair that takes no row with it fades where it is; its cells' insides are the parts
        that change, and nothing else from the top of the grid down may (the header's score
        and the numbers cleared do change: they are read with the next move read on a screen).
        Not on a board partly off screen, with a cell selected, for the board's last pair, or for
        a pair that scores a kind of points not borne out yet (``shows``: its score teaches)."""
        if (not isinstance(move, Pair) or reading.screen != "board" or reading.selected is not None
                or reading.more_above or reading.more_below or not reading.pitch
                or move.i not in reading.cells or move.j not in reading.cells):
            return None
        after = self.after(board, move)
        if self.ends(after) or len(after.cells) != len(board.cells) \
                or not set(last_scored(after)) <= self.confirmed | set(self.stored):
            return None
        half = round(reading.pitch * CELL_INSIDE / 2)
        parts = [(x - half, y - half, x + half, y + half) for x, y in (reading.cells[move.i], reading.cells[move.j])]
        top = min(y for _, y in reading.cells.values()) - round(reading.pitch / 2)
        return InPlace(parts, [(0, 0, 1 << 20, top)], replace(reading, board=after))

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


def last_scored(board: Board) -> dict[str, int]:
    """What the last move of ``board`` scores, by kind (``Board.scored``; an add: nothing)."""
    move, cells, adds, score = board.move_stack[-1]
    return {} if isinstance(move, Add) else Board(list(cells), adds, score, rules=board.rules).scored(move)


def add_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    """Two moves' counts of each kind of points, together."""
    return {k: a.get(k, 0) + b.get(k, 0) for k in POINT_KINDS if k in a or k in b}


def solve_points(moves, table: dict[str, int], known) -> dict[str, int] | None:
    """The entries of the points table that scored moves fix: each move is (how many of each
    kind it scores, the points the phone gave it); entries in ``known`` are ``table``'s. Only an
    entry the moves fix to one whole number 0 or more is given; None when the moves contradict
    each other (a score misread)."""
    unknown = [k for k in POINT_KINDS if any(k in counts for counts, _ in moves) and k not in known]
    rows = [[Fraction(counts.get(k, 0)) for k in unknown]
            + [Fraction(gained - sum(table[k] * n for k, n in counts.items() if k in known))]
            for counts, gained in moves]
    pivots = []  # Gauss-Jordan: (row, column) of each entry a row is reduced to
    for c in range(len(unknown)):
        r = next((r for r in range(len(pivots), len(rows)) if rows[r][c]), None)
        if r is None:
            continue
        top, row = len(pivots), rows.pop(r)
        rows.insert(top, [x / row[c] for x in row])
        for r in range(len(rows)):
            if r != top and rows[r][c]:
                rows[r] = [x - rows[r][c] * y for x, y in zip(rows[r], rows[top])]
        pivots.append((top, c))
    if any(not any(row[:-1]) and row[-1] for row in rows):
        return None
    return {unknown[c]: int(rows[r][-1]) for r, c in pivots
            if not any(rows[r][k] for k in range(len(unknown)) if k != c)  # not tied to an unfixed entry
            and rows[r][-1].denominator == 1 and rows[r][-1] >= 0}


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
