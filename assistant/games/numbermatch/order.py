"""Ordering a Number Match plan for the phone: a later pair whose cells are on screen now, or
still while the last move's rows collapse, is played first when the line stays legal and ends on
the same board, so moves stay on one screen (the board is scrolled less) and a pair is tapped
during a collapse instead of after it.

A pair's indices count cells of the board as it stands, and rows removed by a move shift the
cells below them, so a pair moved earlier is translated by following every cell as it moves.
"""

from __future__ import annotations

from solver.numbermatch import Board, Pair

# later moves looked at for one on screen: further ahead the line rarely stays the same
WINDOW = 48


def _play(board: Board, ids: list, move) -> None:
    """Play ``move`` on ``board`` and keep ``ids`` (a name for every cell) in step with its cells."""
    if isinstance(move, Pair):
        crossed = list(board.cells)
        crossed[move.i] = crossed[move.j] = 0
        cols = board.rules.columns
        emptied = [r for r in sorted({move.i // cols, move.j // cols}, reverse=True)
                   if not any(crossed[r * cols:(r + 1) * cols]) and not board.rules.row_window]
        board.push(move)
        for r in emptied:
            del ids[r * cols:(r + 1) * cols]
        return
    board.push(move)
    ids.extend(("added", len(ids), k) for k in range(len(board.cells) - len(ids)))


def _rows_away(cells, shown_rows: tuple[int, int], columns: int) -> int:
    """How many rows the farthest of ``cells`` lies outside the rows on screen (0: all on screen)."""
    lo, hi = shown_rows
    return max(max(lo - k // columns, k // columns - hi, 0) for k in cells)


def soonest_first(board: Board, moves: list, shown, ready=None, window: int = WINDOW) -> list:
    """``moves`` (a legal line from ``board``) with the pair among its next ``window`` that can
    be played soonest played first, when that keeps every move legal, leaves the same board
    after them (so the rest of the line is unchanged) and scores no less. Soonest: on the
    screen (``shown``: the cell indices on screen now), else the fewest rows away; then one
    whose taps go at once (``ready(i, j)``, asked of a pair on screen: none of its cells still
    moving after the last move, so it is played during that move's animation instead of after
    it; None: every pair); then the earliest. The line as it was when its next move is as soon
    as any, or no sooner one fits."""
    shown = set(shown)
    if not moves or not isinstance(moves[0], Pair) or not shown:
        return moves
    cols = board.rules.columns
    rows = (min(shown) // cols, max(shown) // cols)

    def soon(cells) -> tuple[int, bool]:
        away = _rows_away(cells, rows, cols)
        return away, away == 0 and ready is not None and not ready(*cells)

    if soon((moves[0].i, moves[0].j)) == (0, False):
        return moves
    # the line as planned, each pair's cells by the name they had on the board now
    planned, ids = board.copy(), list(range(len(board.cells)))
    named, after = [], []
    for move in moves[:window]:
        if not isinstance(move, Pair):
            break  # a pair played before an add changes what the add copies (a wait: which rows stand)
        named.append((ids[move.i], ids[move.j]))
        _play(planned, ids, move)
        after.append((list(planned.cells), list(ids), planned.adds_left, planned.score))
    # a pair of cells added since now has no place on the screen now: not a candidate
    near = sorted((*soon(named[k]), k) for k in range(len(named)) if all(isinstance(x, int) for x in named[k]))
    for *_, k in near:
        if k == 0:
            return moves  # the next move is as soon as any that can go first
        trial, trial_ids = board.copy(), list(range(len(board.cells)))
        line = []
        for m in (k, *range(k)):
            x, y = named[m]
            if x not in trial_ids or y not in trial_ids:
                break
            pair = Pair(*sorted((trial_ids.index(x), trial_ids.index(y))))
            if not trial.is_legal(pair):
                break
            line.append(pair)
            _play(trial, trial_ids, pair)
        else:
            cells, end_ids, adds_left, score = after[k]
            if (trial.cells, trial_ids, trial.adds_left) == (cells, end_ids, adds_left) and trial.score >= score:
                return line + list(moves[k + 1:])
    return moves
