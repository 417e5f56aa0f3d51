"""The compiled kernel plays the reference rules: same legal moves, same positions and points."""

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.numbermatch import Add, Board, Pair, Rules, Wait
from solver.numbermatch.search import Kernel
from solver.numbermatch.search.reference import pairing_class

# Boards with many crossed-out cells (0), any length (so partial last rows), a few widths, both
# add rules, with and without the row window: the mid-game positions the solver is handed.
cells_strategy = st.lists(st.sampled_from([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), min_size=1, max_size=50)


@st.composite
def boards(draw):
    # any points table: the kernel scores by the board's, a learned one as much as the default
    points = draw(st.one_of(st.just(Rules().points), st.tuples(*[st.integers(0, 300)] * 5)))
    rules = Rules(columns=draw(st.sampled_from([9, 9, 9, 2, 5])),
                  add_after=draw(st.sampled_from(["cell", "live"])), points=points, row_window=draw(st.booleans()))
    return Board(draw(cells_strategy), draw(st.integers(0, 3)), score=draw(st.integers(0, 500)),
                 stage=draw(st.integers(1, 9)), rules=rules)


class Stepper:
    """The kernel's rules one move at a time, on the arrays of a search at the start board."""

    def __init__(self, board):
        self.kernel = Kernel(board, tt_bits=4)
        self.kernel.reset(board.adds_left, self.kernel.K.FAST)
        self.K, self.a, self.board = self.kernel.K, self.kernel.arrays, board

    def position(self):
        """The current cells, adds left and score."""
        K, a = self.K, self.a
        return a.cells[:a.ctl[K.N]].tolist(), int(a.ctl[K.ADDS]), int(a.ctl[K.SCORE])

    def legal_moves(self):
        """The moves ``run`` generates: the pairs, then a wait while rows wait to go, else "+"."""
        K, a = self.K, self.a
        end = K.pairs_into(a.cells, a.ctl[K.N], a.ctl[K.COLS], a.mv, 0, len(a.mv))
        moves = [Pair(int(i), int(j)) for i, j in a.mv[:end].tolist()]
        if a.ctl[K.PENDING]:
            return moves + [Wait()]
        return moves + [Add()] if a.ctl[K.ADDS] > 0 and a.ctl[K.LIVE] > 0 else moves

    def push(self, move):
        K, a = self.K, self.a
        if isinstance(move, Add):
            K.push_add(a.cells, a.rl, a.ctl, a.undo, a.zob, a.zn)
        elif isinstance(move, Wait):
            K.push_wait(a.cells, a.rl, a.ctl, a.undo, a.gone, a.zob, a.zn)
        else:
            K.push_pair(a.cells, a.rl, a.ctl, a.undo, move.i, move.j, a.pts, a.zob, a.zn, a.lg)

    def pop(self):
        self.K.pop_move(self.a.cells, self.a.rl, self.a.ctl, self.a.undo, self.a.gone)

    def bookkeeping_is_current(self):
        """Whether what the kernel keeps up to date move by move (the hash, the live numbers
        in each row and each pairing class) equals what it would count afresh."""
        K, a, cols = self.K, self.a, self.board.rules.columns
        ctl, cells = a.ctl, a.cells[:a.ctl[self.K.N]].tolist()
        rows, classes = [0] * len(a.rl), [0] * 5
        for k, v in enumerate(cells):
            if v:
                rows[k // cols] += 1
                classes[pairing_class(v)] += 1
        waiting = len(Board(cells, rules=self.board.rules).rows_waiting()) if cells else 0
        return (int(ctl[K.HASH]) == int(K.full_hash(a.cells, ctl[K.N], a.zob, a.zn))
                and rows == a.rl.tolist() and classes == ctl[K.CNT:K.CNT + 5].tolist()
                and int(ctl[K.PENDING]) == waiting
                and int(ctl[K.LIVE]) == sum(classes) and not any(a.cells[ctl[K.N]:]))


@settings(max_examples=300, deadline=None)
@given(boards())
def test_kernel_lists_exactly_the_reference_legal_moves(board):
    kernel = Stepper(board)
    listed = kernel.legal_moves()
    assert len(listed) == len(set(listed))                                  # each pair once
    assert set(listed) == set(board.legal_moves())


@settings(max_examples=200, deadline=None)
@given(boards(), st.lists(st.integers(0, 10_000), max_size=40))
def test_kernel_positions_follow_the_reference_move_by_move(board, choices):
    kernel = Stepper(board)
    start = kernel.position()
    assert start == (board.cells, board.adds_left, board.score)
    reference = board.copy()
    played = 0
    for choice in choices:
        moves = reference.legal_moves()
        assert set(kernel.legal_moves()) == set(moves)
        if not moves:
            break
        move = moves[choice % len(moves)]
        reference.push(move)
        kernel.push(move)
        played += 1
        assert kernel.position() == (reference.cells, reference.adds_left, reference.score)
        assert kernel.bookkeeping_is_current()
    for _ in range(played):                                                 # and back again
        kernel.pop()
        reference.pop()
        assert kernel.position() == (reference.cells, reference.adds_left, reference.score)
        assert kernel.bookkeeping_is_current()
    assert kernel.position() == start


def test_kernel_removes_the_emptied_partial_last_row_and_scores_the_clear():
    board = Board.parse("123456789 .46", adds_left=0)
    kernel = Stepper(board)
    kernel.push(next(m for m in board.legal_moves() if (m.i, m.j) == (10, 11)))
    assert kernel.position() == ([1, 2, 3, 4, 5, 6, 7, 8, 9], 0, 1 + 10)
    board = Board.parse("19", adds_left=0)
    kernel = Stepper(board)
    kernel.push(board.legal_moves()[0])
    assert kernel.position() == ([], 0, 1 + 10 + 150)


def test_kernel_add_follows_the_rule_option():
    for add_after, grown in (("cell", [1, 0, 0, 1]), ("live", [1, 1])):
        board = Board([1, 0, 0], 1, rules=Rules(add_after=add_after))
        kernel = Stepper(board)
        kernel.push(Add())
        assert kernel.position()[0] == grown
