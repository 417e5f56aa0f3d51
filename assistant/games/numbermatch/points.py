"""Number Match's points table as the phone plays it, learned from settled screens' scores."""

from __future__ import annotations

from fractions import Fraction

from solver.numbermatch import POINT_KINDS, Board, Pair, Rules

# How a person calls each kind of points, for the line said when the phone's table differs.
POINT_NAMES = {"touching": "touching pairs", "row_break": "pairs across a row break",
               "gap": "pairs across gaps", "row": "each removed row", "clear": "a cleared board"}


class PointsTable:
    """The points table as the phone plays it: what its scores bore out or taught (the game's
    ``rules`` score by ``table``). Held by the game; it changes only through ``recall`` and the
    ``learn_*`` steps, and says what to keep in the phone's profile as a value (``kept``)."""

    def __init__(self):
        self.table: dict[str, int] = Rules().point_table  # kind to points, as the phone scores them
        # kinds a scored move bore out in this game,
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
        # kind they score, their points, and the (cells, score) the last one left (took_glance)
        self.glanced: tuple[dict[str, int], int, tuple] | None = None
        self.note: str | None = None  # a table entry just learned, said by the game's learn
        # no score read in this game differed from the table's prediction yet: moves of kinds
        # not borne out may run into one score (``judged_alone``)
        self.trusted = True

    def __eq__(self, other) -> bool:
        """Two tables are one when all they learned and bore out is (a question's test compares them)."""
        return isinstance(other, PointsTable) and vars(self) == vars(other)

    def recall(self, points: dict[str, int]) -> None:
        """Adopt the points a profile kept from earlier games on this phone: trusted until a move
        scores otherwise (an update of the game), which corrects them."""
        for kind, value in points.items():
            self.stored.setdefault(kind, value)
        self.table.update({k: v for k, v in self.stored.items() if k not in self.confirmed})

    def kept(self) -> dict[str, int] | None:
        """Every entry this game bore out or learned, or an earlier one stored: what the
        phone's profile keeps (a rebuilt profile gets them back); None when there is none."""
        return {k: self.table[k] for k in POINT_KINDS if k in self.stored or k in self.confirmed} or None

    def borne_out(self, expected: Board) -> bool:
        """The kinds of points the last move of ``expected`` scores are borne out on this phone
        (in this game, or one the profile kept): a move scoring another is judged on a settled
        screen, for its score to teach it."""
        return set(last_scored(expected)) <= self.confirmed | set(self.stored)

    def judged_alone(self, expected: Board) -> bool:
        """Whether the last move of ``expected`` is judged on a settled screen of its own, for
        its score to teach the kinds it scores: kinds not borne out (``borne_out``), once a
        score in this game differed from the table. Before, such moves are judged as any other
        and the next score read settled bears them out together, when it adds up (the table
        is most often right); a score that does not add up holds several unknowns, which moves
        judged alone from then on tell apart. A question."""
        return not self.trusted and not self.borne_out(expected)

    def took_glance(self, seen: Board, expected: Board) -> None:
        """The loop took a glance (one frame, not proved settled) showing ``expected`` as the
        position: its move is not borne out by it, but kept (``glanced``) and judged with the
        next move judged on a settled screen, by the score that screen shows."""
        scored = self.since_settled(expected, expected.score)
        self.glanced = (*scored, (seen.cells, seen.score)) if seen.score is not None and scored is not None else None

    def since_settled(self, board: Board, score: int | None) -> tuple[dict[str, int], int] | None:
        """The moves since the last score read on a settled screen (those before the last move
        of ``board`` taken on a glance), with ``score`` after them: how many of each kind they
        score, and their points; None when a score is not known."""
        before = before_last(board)[0]
        if before.score is None or score is None:
            return None
        counts, points = {}, 0
        if self.glanced is not None and self.glanced[2] == (before.cells, before.score):
            counts, points = self.glanced[:2]
        return add_counts(counts, last_scored(board)), points + score - before.score

    def learn_settled(self, expected: Board, score: int) -> bool:
        """The settled screen after the last move of ``expected`` shows ``score``: compare the
        points the phone gave it and the moves glanced before it with the rules'
        (``learn_scored``), and start counting from it. True when that taught the table an entry."""
        scored = self.since_settled(expected, score)
        self.glanced = None
        return scored is not None and bool(scored[0]) and self.learn_scored(*scored)

    def learn_stage(self, won: Board, board: Board) -> bool:
        """The stage's last pair is judged on the next stage's first board: the phone shows the
        stage-complete screen in between, and the score it carries on into the next stage's
        header is the only one known to be the real game's (realshots: a fresh stage 10 board
        shows 14,992). So the last pair, its rows and the cleared-board bonus are learned here,
        before the next stage is planned. True when that taught the table an entry."""
        fresh = board.stage is not None and won.stage is not None and board.stage == won.stage + 1 \
            and all(board.cells)  # no pair played on it yet
        return board.score is not None and fresh and bool(won.move_stack) and self.learn_settled(won, board.score)

    def learn_scored(self, counts: dict[str, int], gained: int) -> bool:
        """One scored move: ``counts`` of each kind it scores (its pair's kind, rows removed, the
        board cleared) and the points the phone gave it. A move scored as predicted bears out its
        kinds; one scored otherwise is an equation kept until the entries it holds can be told
        apart (``resolve``). True when an entry was learned (``note`` says it)."""
        table = dict(self.table)  # (as it was before this move: the note says it)
        for k, n in counts.items():
            self.kind_moves[k] += n
        if gained == sum(table[k] * n for k, n in counts.items()):
            self.confirmed.update(counts)
            for k in counts:
                self.rests_on.pop(k, None)  # borne out by itself now
        else:
            self.pending.append((counts, gained))
            self.trusted = False
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
                table = dict(self.table)
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
            self.table.update(solved)
            self.pending = [(counts, gained) for counts, gained in self.pending if set(counts) - self.confirmed]

    def waiting(self) -> str:
        """Moves scored otherwise whose entries cannot be told apart yet, and what would tell."""
        table = self.table
        out = []
        for counts, gained in self.pending:
            unknown = [k for k in counts if k not in self.confirmed]
            what = " + ".join(POINT_NAMES[k] + (f" x{n}" if n > 1 else "") for k, n in counts.items())
            out.append(f"a move scoring {what} got {gained}, not {sum(table[k] * n for k, n in counts.items())}: "
                       f"which of {' and '.join(POINT_NAMES[k] for k in unknown)} differs shows once a move "
                       "scores one of them without the others, or in other numbers")
        return "; ".join(out)

    def summary(self) -> str:
        learned = ", ".join(f"{POINT_NAMES[k]} {v}" for k, v in self.learned.items())
        waiting = self.waiting()
        return (f"; points learned: {learned}" if learned else "") + (f"; not learned yet: {waiting}" if waiting else "")


def before_last(board: Board) -> tuple[Board, object]:
    """The board before its last move, and that move."""
    before = board.copy(stack=True)
    return before, before.pop()


def last_scored(board: Board) -> dict[str, int]:
    """What the last move of ``board`` scores, by kind (``Board.scored``; an add, or a wait of
    the row window: nothing)."""
    before, move = before_last(board)
    return before.scored(move) if isinstance(move, Pair) else {}


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
