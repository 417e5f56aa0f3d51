"""Compiled Number Match search (numba): the rules on flat arrays, a resumable depth-first search.

The readable rules are ``solver.numbermatch.Board``; this module plays the same rules on a
``cells`` array (0 crossed out, 1-9 live) so the search runs in compiled code. The search keeps
its whole stack in preallocated arrays, so it stops after a node limit and resumes where it was:
the Python side (``solver.search``) calls it in slices and watches the clock between them.

The state of one search lives in a few arrays (see ``solver.search.Kernel``):

- ``cells``  the board, ``ctl[N]`` cells long, zeros after it;
- ``ctl``    counters and options (the slot names below);
- ``undo``   one row per move on the current line: what that move changed, so it can be taken
  back, and the move itself (kind, i, j), so the line can be read out;
- ``mv``     the moves generated at each depth, ``lvl[d]`` = (start, end, next) into it, with
  ``prio`` their order (the highest is tried first, picked lazily);
- ``tt_key``/``tt_val`` the transposition table: positions (cells and their count) known not
  to clear with ``tt_val - 1`` adds left to use, hence with any fewer.
"""

import numpy as np
from numba import njit

# what ``run`` returns
FOUND, EXHAUSTED, LIMIT = 1, 2, 3

# ctl slots
N = 0           # cells on the board
ADDS = 1        # presses of "+" left
SCORE = 2
DEPTH = 3       # moves on the current line
NODES = 4       # positions visited, all runs
HASH = 5        # Zobrist hash of the cells and their count
ALLOWED = 6     # adds this pass may use (iterative deepening on adds)
ADDS0 = 7       # presses left at the root
MODE = 8        # FAST or SCORE ordering
COLS = 9
ADD_LIVE = 10   # 1: an add appends after the last live number (Rules.add_after == "live")
LIVE = 11       # live numbers
BEST_LIVE = 12  # fewest live numbers seen on a line (for a gave-up answer)
BEST_LEN = 13
STATE = 14      # ENTER a new node or ITERATE the moves of the node at DEPTH
FORCED = 15     # the first FORCED moves are adds (score plans: add early)
SEED = 16       # xorshift state for the score ordering's tie-breaks
CAPPED = 17     # an add was refused for lack of room: a failure is then no proof
MAXN = 18
LIMIT_AT = 19   # stop when NODES reaches this
CNT = 20        # 5 slots: live numbers in each pairing class {1,9} {2,8} {3,7} {4,6} {5}
SLOTS = 25

ENTER, ITERATE = 0, 1
FAST, SCORE_MODE = 0, 1

# undo columns
U_KIND, U_I, U_J, U_VI, U_VJ, U_ROWA, U_LENA, U_ROWB, U_LENB, U_N, U_SCORE, U_HASH = range(12)
UNDO_COLS = 12


@njit(cache=True)
def klass(v):
    """The pairing class of a live number: pairs only ever join two of the same class."""
    return min(v, 10 - v) - 1


@njit(cache=True)
def matches(a, b):
    return a > 0 and b > 0 and (a == b or a + b == 10)


@njit(cache=True)
def full_hash(cells, n, zob, zn):
    h = zn[n]
    for k in range(n):
        v = cells[k]
        if v:
            h ^= zob[k, v]
    return h


@njit(cache=True)
def row_is_empty(cells, n, cols, r):
    for k in range(r * cols, min(n, (r + 1) * cols)):
        if cells[k]:
            return False
    return True


@njit(cache=True)
def remove_row(cells, n, cols, r):
    """Delete row r (possibly the partial last one); returns its length."""
    a = r * cols
    ln = min(n, a + cols) - a
    for k in range(a + ln, n):
        cells[k - ln] = cells[k]
    for k in range(n - ln, n):
        cells[k] = 0
    return ln


@njit(cache=True)
def insert_row(cells, n, cols, r, ln):
    """Put back a crossed-out row of length ln at row r of a board of n cells."""
    a = r * cols
    for k in range(n - 1, a - 1, -1):
        cells[k + ln] = cells[k]
    for k in range(a, a + ln):
        cells[k] = 0


@njit(cache=True)
def pair_points(i, j, cols, pts):
    ri, ci = i // cols, i % cols
    rj, cj = j // cols, j % cols
    if max(abs(rj - ri), abs(cj - ci)) == 1:
        return pts[0]
    if j == i + 1:
        return pts[1]
    return pts[2]


@njit(cache=True)
def push_pair(cells, ctl, undo, i, j, pts, zob, zn):
    d = ctl[DEPTH]
    n = ctl[N]
    cols = ctl[COLS]
    vi, vj = cells[i], cells[j]
    u = undo[d]
    u[U_KIND] = 0
    u[U_I] = i
    u[U_J] = j
    u[U_VI] = vi
    u[U_VJ] = vj
    u[U_ROWA] = -1
    u[U_ROWB] = -1
    u[U_N] = n
    u[U_SCORE] = ctl[SCORE]
    u[U_HASH] = ctl[HASH]
    score = ctl[SCORE] + pair_points(i, j, cols, pts)
    h = ctl[HASH] ^ zob[i, vi] ^ zob[j, vj]
    cells[i] = 0
    cells[j] = 0
    ri, rj = i // cols, j // cols
    removed = False
    # bottom row first, so the upper row's cells keep their indices
    if row_is_empty(cells, n, cols, rj):
        ln = remove_row(cells, n, cols, rj)
        n -= ln
        u[U_ROWA] = rj
        u[U_LENA] = ln
        score += pts[3]
        removed = True
    if ri != rj and row_is_empty(cells, n, cols, ri):
        ln = remove_row(cells, n, cols, ri)
        n -= ln
        u[U_ROWB] = ri
        u[U_LENB] = ln
        score += pts[3]
        removed = True
    if removed:
        h = full_hash(cells, n, zob, zn)
    if n == 0:
        score += pts[4]
    ctl[N] = n
    ctl[SCORE] = score
    ctl[HASH] = h
    ctl[LIVE] -= 2
    ctl[CNT + klass(vi)] -= 2
    ctl[DEPTH] = d + 1


@njit(cache=True)
def add_room(cells, ctl):
    """Where an add starts writing: after the last cell, or after the last live number."""
    n = ctl[N]
    if ctl[ADD_LIVE]:
        while n > 0 and cells[n - 1] == 0:
            n -= 1
    return n


@njit(cache=True)
def push_add(cells, ctl, undo, zob, zn):
    d = ctl[DEPTH]
    n = ctl[N]
    start = add_room(cells, ctl)
    u = undo[d]
    u[U_KIND] = 1
    u[U_I] = start
    u[U_J] = -1
    u[U_N] = n
    u[U_SCORE] = ctl[SCORE]
    u[U_HASH] = ctl[HASH]
    h = ctl[HASH] ^ zn[n]
    k = start
    for t in range(start):
        v = cells[t]
        if v:
            cells[k] = v
            h ^= zob[k, v]
            k += 1
    ctl[N] = k
    ctl[HASH] = h ^ zn[k]
    ctl[ADDS] -= 1
    ctl[LIVE] *= 2
    for c in range(5):
        ctl[CNT + c] *= 2
    ctl[DEPTH] = d + 1


@njit(cache=True)
def pop_move(cells, ctl, undo):
    d = ctl[DEPTH] - 1
    u = undo[d]
    n = ctl[N]
    cols = ctl[COLS]
    if u[U_KIND] == 1:
        for k in range(u[U_I], n):
            cells[k] = 0
        ctl[ADDS] += 1
        ctl[LIVE] //= 2
        for c in range(5):
            ctl[CNT + c] //= 2
    else:
        if u[U_ROWB] >= 0:
            insert_row(cells, n, cols, u[U_ROWB], u[U_LENB])
            n += u[U_LENB]
        if u[U_ROWA] >= 0:
            insert_row(cells, n, cols, u[U_ROWA], u[U_LENA])
        cells[u[U_I]] = u[U_VI]
        cells[u[U_J]] = u[U_VJ]
        ctl[LIVE] += 2
        ctl[CNT + klass(u[U_VI])] += 2
    ctl[N] = u[U_N]
    ctl[SCORE] = u[U_SCORE]
    ctl[HASH] = u[U_HASH]
    ctl[DEPTH] = d


@njit(cache=True)
def pairs_into(cells, n, cols, mv, s, cap):
    """Every legal pair (i, j), i < j, written to mv[s:]; returns the end (-1 if out of room)."""
    e = s
    for i in range(n):
        v = cells[i]
        if v == 0:
            continue
        c = i % cols
        # reading order (covers "along the row" too)
        k = i + 1
        while k < n and cells[k] == 0:
            k += 1
        a = k if k < n else -1
        k = i + cols
        while k < n and cells[k] == 0:
            k += cols
        b = k if k < n else -1
        cc = c - 1
        k = i + cols - 1
        while cc >= 0 and k < n and cells[k] == 0:
            k += cols - 1
            cc -= 1
        dl = k if (cc >= 0 and k < n) else -1
        cc = c + 1
        k = i + cols + 1
        while cc < cols and k < n and cells[k] == 0:
            k += cols + 1
            cc += 1
        dr = k if (cc < cols and k < n) else -1
        for t in range(4):
            x = a if t == 0 else (b if t == 1 else (dl if t == 2 else dr))
            if x < 0 or not matches(v, cells[x]):
                continue
            if (t >= 1 and x == a) or (t >= 2 and x == b) or (t == 3 and x == dl):
                continue
            if e >= cap:
                return -1
            mv[e, 0] = i
            mv[e, 1] = x
            e += 1
    return e


@njit(cache=True)
def xorshift(ctl):
    x = ctl[SEED]
    x ^= (x << 13) & 0x7FFFFFFFFFFFFFFF
    x ^= x >> 7
    x ^= (x << 17) & 0x7FFFFFFFFFFFFFFF
    x &= 0x7FFFFFFFFFFFFFFF
    if x == 0:
        x = 88172645463325252
    ctl[SEED] = x
    return x


@njit(cache=True)
def order_moves(cells, ctl, mv, prio, s, e, pts, deg, row_live):
    """Give each generated pair its priority (highest tried first).

    Both objectives first take pairs that remove a row (they free the rows below to move up and
    meet new neighbours). Fast then prefers the most constrained cells: pairs whose cells have
    the fewest other partners, so no number is left without one. Score prefers the pairs worth
    the most points, with random tie-breaks so repeated attempts walk different lines.
    """
    n = ctl[N]
    cols = ctl[COLS]
    rows = (n + cols - 1) // cols
    for r in range(rows):
        row_live[r] = 0
    for k in range(n):
        deg[k] = 0
        if cells[k]:
            row_live[k // cols] += 1
    for t in range(s, e):
        deg[mv[t, 0]] += 1
        deg[mv[t, 1]] += 1
    score_mode = ctl[MODE] == SCORE_MODE
    for t in range(s, e):
        i, j = mv[t, 0], mv[t, 1]
        ri, rj = i // cols, j // cols
        emptied = 0
        if ri == rj:
            if row_live[ri] == 2:
                emptied = 1
        else:
            if row_live[ri] == 1:
                emptied += 1
            if row_live[rj] == 1:
                emptied += 1
        if score_mode:
            p = emptied * 64 + pair_points(i, j, cols, pts) * 8 + (xorshift(ctl) & 15)
        else:
            p = emptied * 4096 - (deg[i] + deg[j]) * 16 + (16 - min(15, j - i) if j - i < 16 else 0)
        prio[t] = p


@njit(cache=True)
def probe(ctl, tt_key, tt_val, key, r):
    slot = key & (tt_key.shape[0] - 1)
    return tt_key[slot] == key and tt_val[slot] > r


@njit(cache=True)
def store(ctl, tt_key, tt_val, key, r):
    slot = key & (tt_key.shape[0] - 1)
    if tt_key[slot] == key:
        if tt_val[slot] < r + 1:
            tt_val[slot] = r + 1
    else:
        tt_key[slot] = key
        tt_val[slot] = r + 1


@njit(cache=True)
def save_best(ctl, undo, best):
    d = ctl[DEPTH]
    for t in range(d):
        best[t, 0] = undo[t, U_KIND]
        best[t, 1] = undo[t, U_I]
        best[t, 2] = undo[t, U_J]
    ctl[BEST_LEN] = d


@njit(cache=True)
def run(cells, ctl, undo, mv, prio, lvl, tt_key, tt_val, zob, zn, pts, deg, row_live, best):
    """Search until a line clears the board (FOUND, the line is in ``undo``), the tree of this
    pass is exhausted (EXHAUSTED), or ``ctl[NODES]`` reaches ``ctl[LIMIT_AT]`` (LIMIT; call
    again to go on). A node fails when it is a known failure (transposition table), when its
    live numbers can no longer all pair (a pairing class with an odd count and no add left to
    use), or when none of its moves leads to a clear."""
    cap = mv.shape[0]
    maxdepth = undo.shape[0] - 1
    while True:
        d = ctl[DEPTH]
        if ctl[STATE] == ENTER:
            ctl[NODES] += 1
            if ctl[N] == 0:
                ctl[STATE] = ITERATE
                lvl[d, 0] = lvl[d, 1] = lvl[d, 2] = 0 if d == 0 else lvl[d - 1, 1]
                return FOUND
            s = 0 if d == 0 else lvl[d - 1, 1]
            lvl[d, 0] = s
            lvl[d, 2] = s
            lvl[d, 1] = s
            ctl[STATE] = ITERATE
            live = ctl[LIVE]
            if live < ctl[BEST_LIVE]:
                ctl[BEST_LIVE] = live
                save_best(ctl, undo, best)
            r = ctl[ALLOWED] - (ctl[ADDS0] - ctl[ADDS])
            if r == 0:
                odd = False
                for c in range(5):
                    if ctl[CNT + c] & 1:
                        odd = True
                if odd:
                    continue
            if d >= ctl[FORCED] and probe(ctl, tt_key, tt_val, ctl[HASH], r):
                continue
            if d >= maxdepth:
                ctl[CAPPED] = 1
                continue
            e = s
            if d >= ctl[FORCED]:
                e = pairs_into(cells, ctl[N], ctl[COLS], mv, s, cap - 1)
                if e < 0:
                    ctl[CAPPED] = 1
                    continue
                order_moves(cells, ctl, mv, prio, s, e, pts, deg, row_live)
            if r > 0 and live > 0:
                if add_room(cells, ctl) + live <= ctl[MAXN]:
                    mv[e, 0] = -1
                    mv[e, 1] = -1
                    prio[e] = -(1 << 40)
                    e += 1
                else:
                    ctl[CAPPED] = 1
            lvl[d, 1] = e
        else:
            cur, end = lvl[d, 2], lvl[d, 1]
            if cur < end:
                # lazy selection: bring the best remaining move to the front
                b = cur
                for t in range(cur + 1, end):
                    if prio[t] > prio[b]:
                        b = t
                if b != cur:
                    mv[b, 0], mv[cur, 0] = mv[cur, 0], mv[b, 0]
                    mv[b, 1], mv[cur, 1] = mv[cur, 1], mv[b, 1]
                    prio[b], prio[cur] = prio[cur], prio[b]
                lvl[d, 2] = cur + 1
                if mv[cur, 0] < 0:
                    push_add(cells, ctl, undo, zob, zn)
                else:
                    push_pair(cells, ctl, undo, mv[cur, 0], mv[cur, 1], pts, zob, zn)
                ctl[STATE] = ENTER
            else:
                if d >= ctl[FORCED]:
                    r = ctl[ALLOWED] - (ctl[ADDS0] - ctl[ADDS])
                    store(ctl, tt_key, tt_val, ctl[HASH], r)
                if d == 0:
                    return EXHAUSTED
                pop_move(cells, ctl, undo)
                if ctl[NODES] >= ctl[LIMIT_AT]:
                    return LIMIT
                continue
        if ctl[NODES] >= ctl[LIMIT_AT]:
            return LIMIT


@njit(cache=True)
def playouts(cells, ctl, undo, mv, zob, zn, pts, root, root_n, root_adds, count, best):
    """The baseline: ``count`` random playouts from the root, as the public random solvers
    play: a random legal pair until none is left, then "+", until stuck. Keeps the
    best-scoring line that clears in ``best`` (ctl[BEST_LEN], score in ctl[BEST_LIVE]);
    returns how many playouts cleared."""
    cap = mv.shape[0]
    cleared = 0
    for _ in range(count):
        for k in range(ctl[MAXN]):
            cells[k] = root[k] if k < root_n else 0
        ctl[N] = root_n
        ctl[ADDS] = root_adds
        ctl[SCORE] = 0
        ctl[DEPTH] = 0
        live = 0
        for c in range(5):
            ctl[CNT + c] = 0
        for k in range(root_n):
            if cells[k]:
                live += 1
        ctl[LIVE] = live
        while ctl[N] > 0:
            e = pairs_into(cells, ctl[N], ctl[COLS], mv, 0, cap)
            if e > 0:
                t = xorshift(ctl) % e
                push_pair(cells, ctl, undo, mv[t, 0], mv[t, 1], pts, zob, zn)
            elif ctl[ADDS] > 0 and ctl[LIVE] > 0 and add_room(cells, ctl) + ctl[LIVE] <= ctl[MAXN]:
                push_add(cells, ctl, undo, zob, zn)
            else:
                break
        ctl[NODES] += ctl[DEPTH]
        if ctl[N] == 0:
            cleared += 1
            if ctl[SCORE] > ctl[BEST_LIVE]:
                ctl[BEST_LIVE] = ctl[SCORE]
                save_best(ctl, undo, best)
    return cleared
