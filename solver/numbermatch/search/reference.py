"""The readable Number Match search, plain Python over ``Board``: the twin the compiled one is tested against."""

import itertools
import time

from solver.numbermatch import Add, Board, Move, Pair
from solver.numbermatch.search.solution import Solution


class _OutOfTime(Exception):
    pass


def reference_solve(board: Board, budget: float = 2.0) -> Solution:
    """Clear the board with the fewest adds, then the fewest pairs for them; proves both (a wait
    of the row window is no pair).

    ``fewest_pairs(r)`` is the least number of pairs that clear the board as it stands using at
    most ``r`` more adds (None when no line does), remembered per position. The fewest adds is
    the least ``r`` that clears; the line is read back by following the moves that keep the
    remembered value."""
    start, t0 = board.copy(), time.perf_counter()
    deadline = t0 + budget
    work = board.copy()
    known: dict = {}
    nodes = 0

    def fewest_pairs(r: int) -> int | None:
        nonlocal nodes
        if work.is_won():
            return 0
        key = (tuple(work.cells), r)
        if key in known:
            return known[key]
        nodes += 1
        if nodes & 1023 == 0 and time.perf_counter() > deadline:
            raise _OutOfTime
        best = None
        if not (work.live_count() % 2 and r == 0):  # an odd count with no add left never clears
            for move in work.legal_moves():
                is_add = isinstance(move, Add)
                if is_add and r == 0:
                    continue
                work.push(move)
                rest = fewest_pairs(r - is_add)
                work.pop()
                if rest is not None and (best is None or rest + isinstance(move, Pair) < best):
                    best = rest + isinstance(move, Pair)
        known[key] = best
        return best

    def line(r: int) -> list[Move]:
        moves = []
        while not work.is_won():
            want = fewest_pairs(r)
            for move in work.legal_moves():
                is_add = isinstance(move, Add)
                if is_add and r == 0:
                    continue
                work.push(move)
                if fewest_pairs(r - is_add) == (None if want is None else want - isinstance(move, Pair)):
                    moves.append(move)
                    r -= is_add
                    break
                work.pop()
        return moves

    def done(status: str, moves: list[Move], proved: bool) -> Solution:
        return Solution(start, status, moves, adds_optimal=proved, moves_optimal=proved, nodes=nodes,
                        seconds=time.perf_counter() - t0)

    try:
        for adds_allowed in range(start.adds_left + 1):
            if fewest_pairs(adds_allowed) is not None:
                return done("solved", line(adds_allowed), True)
    except _OutOfTime:
        return done("gave_up", [], False)
    return done("unsolvable", [], True)


def pairing_class(v: int) -> int:
    """The pairing class of a number (0-4: {1,9} {2,8} {3,7} {4,6} {5}): pairs join two of one."""
    return min(v, 10 - v) - 1


def reference_group_floor(board: Board, group: set[int], live: frozenset) -> int:
    """The fewest numbers of the pairing classes in ``group`` that pairs can leave when every
    other number may vanish at any moment (the readable twin of the kernel's ``mask_floor``),
    ``live`` the cells of ``board`` still live. Two numbers of the group may pair when no live
    number of the group lies between them in reading order, or in their column, or on a
    diagonal some choice of the rows between them would form (a row holding a live number of
    the group cannot go)."""
    cols, n = board.rules.columns, len(board.cells)
    cells = [k for k in live if pairing_class(board.cells[k]) in group]

    def sees(live: frozenset, a: int, b: int) -> bool:
        if not any(a < k < b for k in live):
            return True
        (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
        if ca == cb:
            return not any(a < k < b and k % cols == ca for k in live)
        d, sign = abs(cb - ca), (1 if cb > ca else -1)
        held = {k // cols for k in live if ra < k // cols < rb}
        for kept in itertools.combinations(range(ra + 1, rb), d - 1):
            path = [r * cols + ca + sign * t for t, r in enumerate(kept, 1)]
            if held <= set(kept) and all(k < n and k not in live for k in path):
                return True
        return False

    known: dict[frozenset, int] = {}

    def fewest(live: frozenset) -> int:
        if live not in known:
            known[live] = min([len(live)] + [
                fewest(live - {a, b}) for a, b in itertools.combinations(sorted(live), 2)
                if pairing_class(board.cells[a]) == pairing_class(board.cells[b]) and sees(live, a, b)])
        return known[live]

    return fewest(frozenset(cells))


def reference_lock_floor(board: Board, live: frozenset | None = None, sizes: tuple = (2, 3)) -> int:
    """A floor on the live numbers pairs alone can leave from the position where ``live`` of the
    cells of ``board`` are still live, ``board`` before any add (the readable twin of the
    kernel's ``lock_floor``): a number for each pairing class with an odd count, and more for
    the best choice of disjoint groups of classes (of ``sizes``) that ``reference_group_floor``
    shows to leave more than their odd classes."""
    live = frozenset(k for k, v in enumerate(board.cells) if v) if live is None else live
    counts = [0] * 5
    for k in live:
        counts[pairing_class(board.cells[k])] += 1
    odd = [c % 2 for c in counts]
    gains = {}
    for size in sizes:
        for group in itertools.combinations(range(5), size):
            if all(counts[c] for c in group):
                gains[group] = reference_group_floor(board, set(group), live) - sum(odd[c] for c in group)
    best = max([0] + list(gains.values()) + [
        gains[g] + gains[h] for g in gains for h in gains if not set(g) & set(h)])
    return sum(odd) + best


def reference_pairs_floor(board: Board) -> int:
    """The floor on what pairs alone can leave on the start board (the readable twin of the
    kernel's ``pairs_floor``): ``reference_lock_floor`` with groups of four classes too."""
    return reference_lock_floor(board, sizes=(2, 3, 4))
