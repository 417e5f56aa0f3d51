"""Number Match search: clear the board with the fewest adds (fast) or the most points (score).

``solve`` is what the rest of tapsolve calls, and its outline: ``fewest_adds``, then with that
many adds ``fewest_moves`` (fast) or ``most_points`` (score). Each phase runs the compiled
search (``binding``, the only code that knows the kernel's arrays and slots) in slices, watching
the clock between them, raced by restarts (``racer``). ``reference`` is the readable twin in
plain Python that the tests hold the compiled search to.
"""

import random
import time
from dataclasses import replace

from solver.errors import InputError
from solver.numbermatch import Board
from solver.numbermatch.search.binding import Kernel, warm_up
from solver.numbermatch.search.racer import AddsRacer, MovesRacer
from solver.numbermatch.search.solution import Solution, adds_in, pairs_in

OBJECTIVES = ("fast", "score")
MAX_BOARD = 4096  # the longest board solve accepts
# seconds into the fewest-moves search before the floor on what pairs alone leave is taken (a
# few ms; most boards are settled sooner by a line at the floor the counts give)
PAIRS_FLOOR_AFTER = 0.005
# seconds the first line of the proved fewest moves may take to find again (``first_of_its_length``):
# past them, the line the race found stands (another run may show another as short)
CANONICAL_SECONDS = 0.3


def solve(board: Board, objective: str = "fast", budget: float = 1.0) -> Solution:
    """Clear ``board`` (any position: crossed-out cells, a partial last row, adds, stage, score).

    ``fast``: the fewest adds, then the fewest moves with them (``adds_optimal`` and
    ``moves_optimal`` say which was proved, ``optimal`` both); ``score``: the most points found in
    ``budget`` seconds among lines that clear. ``status`` is "solved", "unsolvable" (proved:
    no line clears even with every add) or "gave_up" (the budget ran out first; the moves are
    then the line that left the fewest live numbers)."""
    check_input(board, objective, budget)
    warm_up()
    t0 = time.perf_counter()
    start = without_empty_rows(board)
    kernel = Kernel(start, role="main")
    solution = fewest_adds(kernel, start, t0 + budget)
    if objective == "fast" and solution.status == "solved" and solution.adds_optimal:
        solution = fewest_moves(kernel, start, solution, t0 + budget)
        if solution.moves_optimal:
            solution = first_of_its_length(kernel, start, solution)
    if objective == "score" and solution.status == "solved":
        solution = most_points(kernel, start, solution, t0 + budget)
    solution.nodes = kernel.nodes
    solution.seconds = time.perf_counter() - t0
    return solution


def fewest_adds(kernel: Kernel, start: Board, deadline: float) -> Solution:
    """Iterative deepening on the adds allowed (0, 1, 2, ...), a depth-first pass for each with a
    transposition table of positions known not to clear, raced by restarts (``AddsRacer``) that
    look for a line within the same count: for a count every smaller one of which is proved
    impossible (``adds_optimal``), the first line found by either is the fewest adds. Without a
    proof in the budget, the racer's line to fall back on."""
    K = kernel.K
    racer = AddsRacer(kernel.helper(), start, deadline)
    proved, allowed = True, 0
    kernel.reset(allowed, K.FAST)
    while True:
        if racer.fallback is not None and proved and adds_in(racer.fallback) == allowed:
            return Solution(start, "solved", racer.fallback, adds_optimal=True)
        code = kernel.run(min(deadline, time.perf_counter() + 0.003))
        if code == K.FOUND:
            return Solution(start, "solved", kernel.line(), adds_optimal=proved)
        if code == K.EXHAUSTED:
            proved = proved and not kernel.capped
        elif time.perf_counter() >= deadline:
            break
        else:
            line, exhausted = racer.run(allowed)
            if line is not None:
                return Solution(start, "solved", line, adds_optimal=proved)
            if not exhausted:
                continue  # the pass goes on
        allowed += 1  # this count is proved out of reach (by the pass, or first by the racer)
        if allowed > start.adds_left:
            break
        kernel.reset(allowed, K.FAST)
    if racer.fallback is not None:
        return Solution(start, "solved", racer.fallback)
    if allowed > start.adds_left and proved:
        return Solution(start, "unsolvable", [], adds_optimal=True, moves_optimal=True)
    return Solution(start, "gave_up", kernel.best_line())


def fewest_moves(kernel: Kernel, start: Board, found: Solution, deadline: float) -> Solution:
    """Branch and bound on the moves, the adds fixed at the proved fewest: one pass looks for a
    line whose adds copy fewer numbers than the best so far (so with fewer pairs) and, on each
    line found, tightens its bound and goes on where it was; when it ends, the best is proved.
    So does a line that reaches the floor (the least the adds can copy, ``cost_floor``): the
    first add copies at least what pairs alone can leave, and two to four pairing classes can
    lock each other (``pairs_floor``; the pass cuts every position before the first add where a
    lock leaves more than its bound allows, ``lock_floor``). Pressing "+" while few numbers are
    live is what saves moves. Tightening a bound mid-pass is sound: a position that fails within some add cost fails
    within any smaller one, which is all the tables record.

    Finding the short lines is the hard part (the floor usually is the answer), so once the
    pass has had a slice it is raced by restarts in a thread of their own (``MovesRacer``)
    sharing its tables: the pass keeps its whole thread, and on a machine with a second core
    the racer takes it."""
    K = kernel.K
    best, adds = found.moves, found.adds_used
    racer = MovesRacer(kernel.helper(), start, adds, deadline)
    # most boards are settled within PAIRS_FLOOR_AFTER, before the lock floors would have paid
    # for their first look at each group (a cold memo)
    kernel.lock_cuts = racer.kernel.lock_cuts = False

    def bound() -> int:
        return add_cost(start, pairs_in(best) - 1)

    kernel.reset(adds, K.MOVES, bound=bound())
    floor = kernel.cost_floor(adds)
    t0, floored = time.perf_counter(), False
    try:
        while time.perf_counter() < deadline:
            line, raised = racer.news()
            if line is not None and pairs_in(line) < pairs_in(best):
                best = line
                kernel.set_bound(bound())
            floor = max(floor, raised)
            if bound() < floor:
                return Solution(start, "solved", best, adds_optimal=True, moves_optimal=True)
            # the first add copies at least what pairs alone leave, and every later one 4 or more
            if not floored and time.perf_counter() - t0 >= PAIRS_FLOOR_AFTER and adds > 0:
                floored = True
                floor = max(floor, kernel.pairs_floor() + 4 * (adds - 1))
                # and from now on, in every position before the first add (the pass goes on
                # where it is: the rows of gains it has are not whole, so none is taken up)
                kernel.lock_cuts = racer.kernel.lock_cuts = True
                kernel.cut_by_locks_now()
                continue
            code = kernel.run(min(deadline, time.perf_counter() + 0.001))
            if code == K.EXHAUSTED:
                return Solution(start, "solved", best, adds_optimal=True, moves_optimal=not kernel.capped)
            if code == K.FOUND:
                best = kernel.line()
                kernel.set_bound(bound())
            racer.aim(bound(), floor)
    finally:
        racer.stop()
    return Solution(start, "solved", best, adds_optimal=True)


def first_of_its_length(kernel: Kernel, start: Board, found: Solution) -> Solution:
    """One plan for one board: of the lines as short as the proved fewest moves (which of them
    the race found first is the clock's choice), the first in the pass's own order, found by a
    depth-first pass with no random tie-breaks whose bound lets no line longer through. Its
    tables only cut positions proved not to clear within the bound, which hold no such line, so
    what they hold (each run's own) never changes which line comes first. Within
    CANONICAL_SECONDS (it walks towards a line known to exist, the tables warm), else the line found."""
    K = kernel.K
    # pairs, not moves: in the row window a line's waits are moves too, so a line of one pair
    # more and one wait less is as long
    kernel.reset(found.adds_used, K.MOVES, bound=add_cost(start, pairs_in(found.moves)))
    if kernel.run(time.perf_counter() + CANONICAL_SECONDS) != K.FOUND:
        return found
    line = kernel.line()
    return replace(found, moves=line) if pairs_in(line) == pairs_in(found.moves) else found


def most_points(kernel: Kernel, start: Board, found: Solution, deadline: float) -> Solution:
    """Anytime, from the fast answer (so every clearable board is cleared): attempts that press
    p adds first (p from all of them down; an add copies every live number, so early adds make
    many more pairs and points) and keep the rest in reserve, each with a node cap that doubles
    every round; the best-scoring line that clears wins. Once p early adds clear, plans with
    fewer are dropped: they copy fewer numbers, so they make fewer pairs and points."""
    K = kernel.K
    best_moves, best_score = found.moves, found.score
    adds = start.adds_left
    plans = list(range(adds, -1, -1))
    rng = random.Random(len(start.cells) * 7919 + sum(start.cells))
    cap = 2000
    while plans and time.perf_counter() < deadline:
        for p in list(plans):
            if time.perf_counter() >= deadline:
                break
            if p not in plans:
                continue
            kernel.reset(adds, K.SCORE_MODE, forced=p, seed=rng.getrandbits(62))
            kernel.chunk = 256  # grown boards cost more per node: find the slice size again
            code = kernel.run(deadline, node_cap=cap)
            if code == K.FOUND:
                if kernel.score() > best_score:
                    best_moves, best_score = kernel.line(), kernel.score()
                # fewer early adds make fewer numbers and points: spend the time above p
                plans = [q for q in plans if q >= p]
            elif code == K.EXHAUSTED and not kernel.capped:
                plans.remove(p)  # proved: no line clears after p adds first
        cap = min(cap * 2, 1 << 40)
    return Solution(start, "solved", best_moves, adds_optimal=found.adds_optimal
                    and adds_in(best_moves) == found.adds_used)


def add_cost(start: Board, pairs: int) -> int:
    """The live numbers a line's adds copy when it clears ``start`` in ``pairs`` pairs: every
    number, there at the start or copied, is crossed out by exactly one pair."""
    return 2 * pairs - start.live_count()


def without_empty_rows(board: Board) -> Board:
    """The board as the game shows it: a row with no live number has already disappeared.

    The rules remove a row when a pair empties it; a row that is empty from the start (typed
    by hand, or read mid-animation) would otherwise stay forever and the board never clear."""
    cols = board.rules.columns
    rows = [board.cells[r:r + cols] for r in range(0, len(board.cells), cols)]
    return replace(board, cells=[c for row in rows if any(row) for c in row])


def check_input(board: Board, objective: str, budget: float) -> None:
    if objective not in OBJECTIVES:
        raise InputError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if not 0 < budget < float("inf"):
        raise InputError(f"the budget must be a number of seconds more than 0, not {budget}")
    if board.live_count() == 0:
        raise InputError("the board has no live number to pair")
    if len(board.cells) > MAX_BOARD:
        raise InputError(f"the board has {len(board.cells)} cells: more than {MAX_BOARD} is no game board")
