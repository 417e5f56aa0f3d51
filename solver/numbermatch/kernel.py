"""Compiled Number Match search (numba): the rules on flat arrays, a resumable depth-first search.

The readable rules are ``solver.numbermatch.Board``; this module plays the same rules on a
``cells`` array (0 crossed out, 1-9 live) so the search runs in compiled code. The search keeps
its whole stack in preallocated arrays, so it stops after a node limit and resumes where it was:
the Python side (``solver.numbermatch.search.binding``) calls it in slices and watches the clock between them.

The state of one search lives in a few arrays (``solver.numbermatch.search.binding.SearchArrays``):

- ``cells``  the board, ``ctl[N]`` cells long, zeros after it;
- ``rl``     the live numbers in each row, kept with the cells (a row empties at 0);
- ``ctl``    counters and options (the slot names below);
- ``pts``    the points table, in ``solver.numbermatch.POINT_KINDS`` order (the board's rules);
- ``undo``   one row per move on the current line: what that move changed, so it can be taken
  back, and the move itself (kind, i, j), so the line can be read out;
- ``mv``     the moves generated at each depth, ``lvl[d]`` = (start, end, next) into it, with
  ``prio`` their order (the highest is tried first, picked lazily);
- ``sl``     the pairs asleep at each depth, ``lsl[d]`` = (start, end) into it (partial-order
  reduction, see ``sleep_for_child``), ``mark`` a scratch array to look them up;
- ``tt_key``/``tt_val`` the transposition table: positions (cells and their count) known not
  to clear with ``tt_val - 1`` adds left to use, hence with any fewer;
- ``mt`` the table of the fewest-moves search: positions with r adds left to use (mixed into
  the key) known not to clear within so much more add cost (see ``MOVES`` and ``ROOM_BITS``);
- ``lg``, ``memo``, ``gstack``, ``gains`` the fewest-moves search's lock floors: what the bits
  of ``ctl[LMASK]`` mean, the floors of the groups of pairing classes settled so far, scratch,
  each depth's gains (see ``lock_floor``);
- ``gone`` the rows each wait of the current line removed (``Rules.row_window``), a stack
  ``ctl[GONE]`` deep, so the wait can be taken back.

The row-removal window (``ctl[WINDOW]``, ``Rules.row_window``): a pair leaves the rows it
empties on the board (``ctl[PENDING]`` of them wait), a third kind of move, the wait
(``push_wait``), removes them all, and "+" waits for them. The lock floors' masks assume a row
goes with its pair, so a window search takes none (``lock_floor``; ``pairs_floor`` still holds).

Fewest moves: with the adds fixed, a line's pairs are (live numbers at the start + the live
numbers copied by each add) / 2, so the fewest pairs is the least ``COST``, the sum of the live
counts at the moments "+" is pressed. ``MOVES`` mode searches for a line with the adds allowed
whose cost stays within ``BOUND``.
"""

# the lowest set bit's index in one instruction (LLVM's cttz; 0 has none, never asked)
from numba.cpython.unsafe.numbers import trailing_zeros

from solver.jit import njit

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
NOISE = 25      # random bits mixed into the fast ordering (0: none; restarts use some)
ADD_AT = 26     # try "+" first once the live numbers are this few or fewer (-1: "+" last)
COST = 27       # live numbers copied by the adds on the current line
BOUND = 28      # MOVES mode: the most COST a line may reach
SALT = 29       # mixed into every table key: the tables outlive one search (see search.binding.Kernel)
LOCKS = 30      # 1: LMASK is kept (the board has few enough live numbers); 2: in MOVES mode a
                # position before the first press is cut, too, when groups of pairing classes
                # lock each other past what its bound allows (``lock_floor``)
LMASK = 31      # the start board's live numbers still live, a bit each (kept before the first press)
LOCK_BUDGET = 32  # positions ``mask_floor`` may search for one group's floor not yet known
WINDOW = 33     # 1: emptied rows wait on the board until a wait (Rules.row_window)
PENDING = 34    # rows wholly crossed out, waiting to go (WINDOW only)
GONE = 35       # rows on the ``gone`` stack
SLOTS = 36

ENTER, ITERATE = 0, 1
# the wait's priority among a position's moves: first, as the game without the window plays
# (a row goes at once), then the pairs chosen in the window; last for the most points (a pair
# across a waiting row sees over crossed-out cells: it scores a gap, the most of a pair)
WAIT_PRIO = 1 << 39
FAST, SCORE_MODE, MOVES = 0, 1, 2
R_MIX = 0x5DEECE66D1F3A7B  # mixes the adds left into a MOVES table key

# undo columns
U_KIND, U_I, U_J, U_VI, U_VJ, U_ROWA, U_LENA, U_ROWB, U_LENB, U_N, U_SCORE, U_HASH, U_MASK, U_PEND = range(14)
UNDO_COLS = 14
PAIR, ADD, WAIT = 0, 1, 2  # U_KIND (and a line's kinds); in ``mv`` an add is (-1, -1), a wait (-2, -2)


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
def remove_row(cells, rl, n, cols, r):
    """Delete row r (possibly the partial last one); returns its length."""
    a = r * cols
    ln = min(n, a + cols) - a
    for k in range(a + ln, n):
        cells[k - ln] = cells[k]
    for k in range(n - ln, n):
        cells[k] = 0
    rows = (n + cols - 1) // cols
    for q in range(r, rows - 1):
        rl[q] = rl[q + 1]
    rl[rows - 1] = 0
    return ln


@njit(cache=True)
def insert_row(cells, rl, n, cols, r, ln):
    """Put back a crossed-out row of length ln at row r of a board of n cells."""
    a = r * cols
    for k in range(n - 1, a - 1, -1):
        cells[k + ln] = cells[k]
    for k in range(a, a + ln):
        cells[k] = 0
    rows = (n + cols - 1) // cols
    for q in range(rows, r, -1):
        rl[q] = rl[q - 1]
    rl[r] = 0


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
def push_pair(cells, rl, ctl, undo, i, j, pts, zob, zn, lg):
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
    u[U_MASK] = ctl[LMASK]
    u[U_PEND] = ctl[PENDING]
    if ctl[LOCKS] and ctl[ADDS] == ctl[ADDS0]:
        mask = ctl[LMASK]
        ctl[LMASK] = mask & ~(1 << root_bit(lg, mask, i)) & ~(1 << root_bit(lg, mask, j))
    score = ctl[SCORE] + pair_points(i, j, cols, pts)
    h = ctl[HASH] ^ zob[i, vi] ^ zob[j, vj]
    cells[i] = 0
    cells[j] = 0
    ri, rj = i // cols, j // cols
    rl[ri] -= 1
    rl[rj] -= 1
    if ctl[WINDOW]:
        # the rows emptied stay (the pair's points were taken where they stand); the last pair
        # leaves nothing to choose, so every row goes
        emptied = (rl[rj] == 0) + (ri != rj and rl[ri] == 0)
        score += pts[3] * emptied
        ctl[PENDING] += emptied
        if ctl[LIVE] == 2:
            n = 0
            h = zn[0]
            score += pts[4]
            ctl[PENDING] = 0
    else:
        # bottom row first, so the upper row's cells keep their indices
        if rl[rj] == 0:
            ln = remove_row(cells, rl, n, cols, rj)
            n -= ln
            u[U_ROWA] = rj
            u[U_LENA] = ln
            score += pts[3]
        if ri != rj and rl[ri] == 0:
            ln = remove_row(cells, rl, n, cols, ri)
            n -= ln
            u[U_ROWB] = ri
            u[U_LENB] = ln
            score += pts[3]
        if n < u[U_N]:  # a row went: the cells below it moved, so they hash anew
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
def push_add(cells, rl, ctl, undo, zob, zn):
    d = ctl[DEPTH]
    n = ctl[N]
    start = add_room(cells, ctl)
    u = undo[d]
    u[U_KIND] = ADD
    u[U_PEND] = ctl[PENDING]
    u[U_I] = start
    u[U_J] = -1
    u[U_N] = n
    u[U_SCORE] = ctl[SCORE]
    u[U_HASH] = ctl[HASH]
    u[U_MASK] = ctl[LMASK]
    h = ctl[HASH] ^ zn[n]
    k = start
    cols = ctl[COLS]
    for t in range(start):
        v = cells[t]
        if v:
            cells[k] = v
            h ^= zob[k, v]
            rl[k // cols] += 1
            k += 1
    ctl[N] = k
    ctl[HASH] = h ^ zn[k]
    ctl[ADDS] -= 1
    ctl[COST] += ctl[LIVE]
    ctl[LIVE] *= 2
    for c in range(5):
        ctl[CNT + c] *= 2
    ctl[DEPTH] = d + 1


@njit(cache=True)
def push_wait(cells, rl, ctl, undo, gone, zob, zn):
    """Let the rows waiting on the board go (the row window ends): every row wholly crossed
    out, bottom first, onto the ``gone`` stack."""
    d = ctl[DEPTH]
    n = ctl[N]
    cols = ctl[COLS]
    u = undo[d]
    u[U_KIND] = WAIT
    u[U_I] = ctl[GONE]
    u[U_N] = n
    u[U_SCORE] = ctl[SCORE]
    u[U_HASH] = ctl[HASH]
    u[U_MASK] = ctl[LMASK]
    u[U_PEND] = ctl[PENDING]
    top = ctl[GONE]
    for r in range((n + cols - 1) // cols - 1, -1, -1):
        if rl[r] == 0:
            n -= remove_row(cells, rl, n, cols, r)
            gone[top] = r
            top += 1
    u[U_J] = top - ctl[GONE]
    ctl[GONE] = top
    ctl[N] = n
    ctl[HASH] = full_hash(cells, n, zob, zn)
    ctl[PENDING] = 0
    ctl[DEPTH] = d + 1


@njit(cache=True)
def pop_move(cells, rl, ctl, undo, gone):
    d = ctl[DEPTH] - 1
    u = undo[d]
    n = ctl[N]
    cols = ctl[COLS]
    if u[U_KIND] == WAIT:
        # top row first: each goes back where it was, the ones above it back already
        for t in range(u[U_I] + u[U_J] - 1, u[U_I] - 1, -1):
            r = gone[t]
            ln = min(u[U_N], r * cols + cols) - r * cols
            insert_row(cells, rl, n, cols, r, ln)
            n += ln
        ctl[GONE] = u[U_I]
    elif u[U_KIND] == ADD:
        for k in range(u[U_I], n):
            if cells[k]:
                rl[k // cols] -= 1
            cells[k] = 0
        ctl[ADDS] += 1
        ctl[LIVE] //= 2
        ctl[COST] -= ctl[LIVE]
        for c in range(5):
            ctl[CNT + c] //= 2
    else:
        if u[U_ROWB] >= 0:
            insert_row(cells, rl, n, cols, u[U_ROWB], u[U_LENB])
            n += u[U_LENB]
        if u[U_ROWA] >= 0:
            insert_row(cells, rl, n, cols, u[U_ROWA], u[U_LENA])
        cells[u[U_I]] = u[U_VI]
        cells[u[U_J]] = u[U_VJ]
        rl[u[U_I] // cols] += 1
        rl[u[U_J] // cols] += 1
        ctl[LIVE] += 2
        ctl[CNT + klass(u[U_VI])] += 2
    ctl[N] = u[U_N]
    ctl[SCORE] = u[U_SCORE]
    ctl[HASH] = u[U_HASH]
    ctl[LMASK] = u[U_MASK]
    ctl[PENDING] = u[U_PEND]
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
def emptied_rows(rl, cols, i, j):
    """The rows crossing out i < j now empties, top first, -1 for none: (upper, lower)."""
    ri, rj = i // cols, j // cols
    if ri == rj:
        return (ri if rl[ri] == 2 else -1), -1
    return (ri if rl[ri] == 1 else -1), (rj if rl[rj] == 1 else -1)


@njit(cache=True)
def drop_sleeping(mv, s, e, sl, a, b, mark):
    """Remove the pairs asleep here from mv[s:e]; returns the new end. ``mark[i]`` holds the
    partner of i in the sleep set (-2 when i has several, -1 when none); left all -1."""
    for t in range(a, b):
        i = sl[t, 0]
        mark[i] = sl[t, 1] if mark[i] == -1 else -2
    k = s
    for t in range(s, e):
        i, j = mv[t, 0], mv[t, 1]
        m = mark[i]
        asleep = m == j
        if m == -2:
            for q in range(a, b):
                if sl[q, 0] == i and sl[q, 1] == j:
                    asleep = True
                    break
        if not asleep:
            mv[k, 0] = i
            mv[k, 1] = j
            k += 1
    for t in range(a, b):
        mark[sl[t, 0]] = -1
    return k


@njit(cache=True)
def sleep_for_child(rl, ctl, mv, lvl, sl, lsl, d, cur):
    """The sleep set of the child reached by move mv[cur] at depth d (partial-order reduction).

    Two pairs on different cells commute when the first to go empties no row: either order
    crosses out the same cells and removes the same rows, so reaches the same cells (pairing
    only opens lines, so the other stays legal). A pair already tried at this node (or asleep
    here), independent of the move taken and emptying no row, need not be tried again below
    it: that position was reached from the earlier branch. When the move taken empties rows,
    the sleepers move up with the rows below (a sleeper never sits in an emptied row: its
    numbers are live). The score is not the same both ways (a pair's points depend on where
    it stands when taken), so in SCORE mode a move that empties a row wakes every pair, and an
    add or a wait always does. In the row window a pair's emptied rows stay: nothing moves."""
    cols = ctl[COLS]
    a = lsl[d, 1]
    e = a
    cap = sl.shape[0]
    ti, tj = mv[cur, 0], mv[cur, 1]
    if ti >= 0:
        ra, rb = emptied_rows(rl, cols, ti, tj)
        if (ra >= 0 or rb >= 0) and ctl[MODE] == SCORE_MODE:
            lsl[d + 1, 0] = a
            lsl[d + 1, 1] = a
            return
        if ctl[WINDOW]:
            ra = rb = -1  # the rows it empties stay: no cell moves
        for src in range(2):
            lo = lsl[d, 0] if src == 0 else lvl[d, 0]
            hi = lsl[d, 1] if src == 0 else cur
            for t in range(lo, hi):
                mi = sl[t, 0] if src == 0 else mv[t, 0]
                mj = sl[t, 1] if src == 0 else mv[t, 1]
                if mi < 0 or mi == ti or mi == tj or mj == ti or mj == tj:
                    continue
                if e >= cap:
                    continue
                ea, eb = emptied_rows(rl, cols, mi, mj)
                if ea >= 0 or eb >= 0:
                    continue
                if ra >= 0 or rb >= 0:
                    qi, qj = mi // cols, mj // cols
                    mi -= cols * ((0 <= ra < qi) + (0 <= rb < qi))
                    mj -= cols * ((0 <= ra < qj) + (0 <= rb < qj))
                sl[e, 0] = mi
                sl[e, 1] = mj
                e += 1
    lsl[d + 1, 0] = a
    lsl[d + 1, 1] = e


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
def order_moves(cells, rl, ctl, mv, prio, s, e, pts, deg):
    """Give each generated pair its priority (highest tried first).

    Both objectives first take pairs that remove a row (they free the rows below to move up and
    meet new neighbours). Fast then prefers the most constrained cells: pairs whose cells have
    the fewest other partners, so no number is left without one. Score prefers the pairs worth
    the most points, with random tie-breaks so repeated attempts walk different lines.
    """
    cols = ctl[COLS]
    for t in range(s, e):
        deg[mv[t, 0]] += 1
        deg[mv[t, 1]] += 1
    score_mode = ctl[MODE] == SCORE_MODE
    for t in range(s, e):
        i, j = mv[t, 0], mv[t, 1]
        ra, rb = emptied_rows(rl, cols, i, j)
        emptied = (ra >= 0) + (rb >= 0)
        if score_mode:
            p = emptied * 64 + pair_points(i, j, cols, pts) * 8 + (xorshift(ctl) & 15)
        else:
            p = emptied * 4096 - (deg[i] + deg[j]) * 16 + (16 - min(15, j - i) if j - i < 16 else 0)
            if ctl[NOISE]:
                p += xorshift(ctl) & ctl[NOISE]
        prio[t] = p
    for t in range(s, e):
        deg[mv[t, 0]] = 0
        deg[mv[t, 1]] = 0


@njit(cache=True)
def probe(tt_key, tt_val, key, r):
    slot = key & (tt_key.shape[0] - 1)
    return tt_key[slot] == key and tt_val[slot] > r


@njit(cache=True)
def store(tt_key, tt_val, key, r):
    slot = key & (tt_key.shape[0] - 1)
    if tt_key[slot] != key or tt_val[slot] < r + 1:
        tt_key[slot] = key
        tt_val[slot] = r + 1


@njit(cache=True)
def odd_classes(ctl):
    """The pairing classes with an odd count of live numbers: each leaves one that pairs miss."""
    odd = 0
    for c in range(5):
        odd += ctl[CNT + c] & 1
    return odd


@njit(cache=True)
def cost_floor(ctl, r):
    """The least add cost still to come with r adds left to press, all of them: MOVES mode runs
    once the fewest adds are proved, so a line that clears presses every one, and a position
    that could clear with fewer is never on it. Pairs join two numbers of one class, so each
    class with an odd count leaves a number live at the next press, and the count there has
    that parity. Two live numbers of one class always pair (they are next to each other in
    reading order), so no press finds them alone: with no odd class a press copies 4 or more,
    and a press that is not the last copies more than 1 (its copy would pair with it). After
    a press every class is even, so each later one copies 4 or more too."""
    if r == 0:
        return 0
    odd = odd_classes(ctl)
    first = odd
    if odd == 0:
        first = 4
    elif odd == 1 and r > 1:
        first = 3
    return first + 4 * (r - 1)


# the fewest-moves table is written by two threads at once (the pass and its racer), so an entry
# is one word, written whole: the key's bits above ROOM_BITS and the room below them (two words
# written apart could pair one thread's key with the other's room)
ROOM_BITS = 16
ROOM_MASK = (1 << ROOM_BITS) - 1


@njit(cache=True)
def moves_probe(mt, key, b):
    e = mt[key & (mt.shape[0] - 1)]
    return (e & ~ROOM_MASK) == (key & ~ROOM_MASK) and (e & ROOM_MASK) >= b


@njit(cache=True)
def moves_store(mt, key, b):
    slot = key & (mt.shape[0] - 1)
    e = mt[slot]
    b = min(b, ROOM_MASK)
    if (e & ~ROOM_MASK) != (key & ~ROOM_MASK) or (e & ROOM_MASK) < b:
        mt[slot] = (key & ~ROOM_MASK) | b


@njit(cache=True)
def save_best(ctl, undo, best):
    d = ctl[DEPTH]
    for t in range(d):
        best[t, 0] = undo[t, U_KIND]
        best[t, 1] = undo[t, U_I]
        best[t, 2] = undo[t, U_J]
    ctl[BEST_LEN] = d


@njit(cache=True, nogil=True)  # the fewest-moves racer runs beside the pass, in a thread of its own
def run(cells, rl, ctl, undo, mv, prio, lvl, tt_key, tt_val, mt, zob, zn, pts, deg, best, sl,
        lsl, mark, lg, memo, gstack, gains, gone):
    """Search until a line clears the board (FOUND, the line is in ``undo``), the tree of this
    pass is exhausted (EXHAUSTED), or ``ctl[NODES]`` reaches ``ctl[LIMIT_AT]`` (LIMIT; call
    again to go on). A node fails when it is a known failure (transposition tables), when its
    live numbers can no longer all pair (a pairing class with an odd count and no add left to
    use), in MOVES mode when the adds still to press must cost more than ``BOUND`` allows
    (``cost_floor``, and before the first press ``lock_floor``), or when none of its moves
    leads to a clear. Pairs asleep at a node
    (``sl``, see ``sleep_for_child``) are skipped there."""
    cap = mv.shape[0]
    maxdepth = undo.shape[0] - 1
    moves_mode = ctl[MODE] == MOVES
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
            gains[d, len(LOCK_GROUPS)] = 0  # not whole until ``lock_floor`` fills it
            live = ctl[LIVE]
            if live < ctl[BEST_LIVE]:
                ctl[BEST_LIVE] = live
                save_best(ctl, undo, best)
            r = ctl[ALLOWED] - (ctl[ADDS0] - ctl[ADDS])
            if r == 0 and odd_classes(ctl):
                continue
            if d >= ctl[FORCED] and probe(tt_key, tt_val, ctl[HASH] ^ ctl[SALT], r):
                continue
            if moves_mode:
                room = ctl[BOUND] - ctl[COST]
                floor = cost_floor(ctl, r)
                if floor > room or moves_probe(mt, ctl[HASH] ^ ctl[SALT] ^ (r * R_MIX), room):
                    continue
                # the first press copies what pairs leave, and every later one 4 or more
                if (ctl[LOCKS] == 2 and ctl[ADDS] == ctl[ADDS0] and r > 0 and room - floor < LOCK_SLACK
                        and lock_floor(lg, memo, gstack, gains, ctl, undo, room - 4 * (r - 1)) + 4 * (r - 1) > room):
                    continue
            if d >= maxdepth:
                ctl[CAPPED] = 1
                continue
            e = s
            if d >= ctl[FORCED]:
                e = pairs_into(cells, ctl[N], ctl[COLS], mv, s, cap - 2)
                if e < 0:
                    ctl[CAPPED] = 1
                    continue
                if lsl[d, 1] > lsl[d, 0]:
                    e = drop_sleeping(mv, s, e, sl, lsl[d, 0], lsl[d, 1], mark)
                order_moves(cells, rl, ctl, mv, prio, s, e, pts, deg)
            if ctl[PENDING]:  # the row window: wait for the emptied rows to go ("+" waits for them)
                mv[e, 0] = -2
                mv[e, 1] = -2
                prio[e] = -WAIT_PRIO if ctl[MODE] == SCORE_MODE else WAIT_PRIO
                e += 1
            elif r > 0 and live > 0 and not (moves_mode and ctl[COST] + live + 4 * (r - 1) > ctl[BOUND]):
                if add_room(cells, ctl) + live <= ctl[MAXN]:
                    mv[e, 0] = -1
                    mv[e, 1] = -1
                    prio[e] = (1 << 40) if live <= ctl[ADD_AT] else -(1 << 40)
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
                sleep_for_child(rl, ctl, mv, lvl, sl, lsl, d, cur)
                if mv[cur, 0] == -1:
                    push_add(cells, rl, ctl, undo, zob, zn)
                elif mv[cur, 0] == -2:
                    push_wait(cells, rl, ctl, undo, gone, zob, zn)
                else:
                    push_pair(cells, rl, ctl, undo, mv[cur, 0], mv[cur, 1], pts, zob, zn, lg)
                ctl[STATE] = ENTER
            else:
                if d >= ctl[FORCED]:
                    r = ctl[ALLOWED] - (ctl[ADDS0] - ctl[ADDS])
                    if moves_mode:
                        moves_store(mt, ctl[HASH] ^ ctl[SALT] ^ (r * R_MIX), ctl[BOUND] - ctl[COST])
                    else:
                        store(tt_key, tt_val, ctl[HASH] ^ ctl[SALT], r)
                if d == 0:
                    return EXHAUSTED
                pop_move(cells, rl, ctl, undo, gone)
                if ctl[NODES] >= ctl[LIMIT_AT]:
                    return LIMIT
                continue
        if ctl[NODES] >= ctl[LIMIT_AT]:
            return LIMIT


@njit(cache=True)
def playouts(cells, rl, ctl, undo, mv, zob, zn, pts, root, root_n, root_adds, count, best, lg):
    """The baseline: ``count`` random playouts from the root, as the public random solvers
    play: a random legal pair until none is left, then "+", until stuck. Keeps the
    best-scoring line that clears in ``best`` (ctl[BEST_LEN], score in ctl[BEST_LIVE]);
    returns how many playouts cleared."""
    cap = mv.shape[0]
    cleared = 0
    for _ in range(count):
        live = 0
        rl[:] = 0
        for k in range(ctl[MAXN]):
            cells[k] = root[k] if k < root_n else 0
            if cells[k]:
                live += 1
                rl[k // ctl[COLS]] += 1
        ctl[N] = root_n
        ctl[ADDS] = root_adds
        ctl[LMASK] = (1 << lg[LG_SIZE, 2]) - 1 if ctl[LOCKS] else 0
        ctl[SCORE] = 0
        ctl[DEPTH] = 0
        ctl[LIVE] = live
        for c in range(5):
            ctl[CNT + c] = 0
        while ctl[N] > 0:
            e = pairs_into(cells, ctl[N], ctl[COLS], mv, 0, cap)
            if e > 0:
                t = xorshift(ctl) % e
                push_pair(cells, rl, ctl, undo, mv[t, 0], mv[t, 1], pts, zob, zn, lg)
            elif ctl[ADDS] > 0 and ctl[LIVE] > 0 and add_room(cells, ctl) + ctl[LIVE] <= ctl[MAXN]:
                push_add(cells, rl, ctl, undo, zob, zn)
            else:
                break
        ctl[NODES] += ctl[DEPTH]
        if ctl[N] == 0:
            cleared += 1
            if ctl[SCORE] > ctl[BEST_LIVE]:
                ctl[BEST_LIVE] = ctl[SCORE]
                save_best(ctl, undo, best)
    return cleared


# -- groups of pairing classes locking each other -------------------------------------------------
#
# Two 5s either side of a 1 and two 1s either side of a 5 never pair: pairs alone leave more
# than one number per odd class. To see such locks, a group of two to four classes is played
# alone, every other number free to vanish at any moment: the real game's lines project onto
# lines of this one, so what it cannot clear, the game cannot either.
#
# The start board's live numbers are bits in reading order (at most MASK_BITS of them); a
# position before the first press is the set still live (``ctl[LMASK]``), and the rows gone are
# those with no live bit left. ``lg`` says what the bits mean, made once per board
# (``search.binding._lock_geometry``); its rows:
LG_CLASS, LG_ROW, LG_COL, LG_AT, LG_SEL, LG_SIZE, LG_POS = range(7)
# the pairing class of each bit; the bits in each row; in each column; the bit at each cell (-1
# for none); the bits of each group of classes (by the group's class bits); (columns, cells,
# bits); the cell of each bit
MASK_BITS = 56  # a memo key holds the group above the bits
# groups of three, then of two, classes (by their class bits): the ones looked at in every
# position; a group of four only on the start board (``pairs_floor``), its floor costs too much
LOCK_GROUPS = (7, 11, 13, 14, 19, 21, 22, 25, 26, 28, 3, 5, 6, 9, 10, 12, 17, 18, 20, 24)
FIRST_PAIR = 10
FOURS = (15, 23, 27, 29, 30)
# a position is looked at only when its bound leaves less than this over what its odd classes
# leave: more is more than locks gain
LOCK_SLACK = 8
UNKNOWN = 127  # memo value: the group's floor was not settled within the budget
KEY_MIX = 0x2545F4914F6CDD1D  # odd: spreads memo keys over the slots


@njit(cache=True)
def root_bit(lg, mask, i):
    """The start board's bit of cell i of the current board (before the first press): its row
    is the start board's row that many rows still there down."""
    cols = lg[LG_SIZE, 0]
    q, c = i // cols, i % cols
    r = 0
    while True:
        bits = lg[LG_ROW, r]
        if bits == 0 or mask & bits:  # a row still there (one empty at the start never goes)
            if q == 0:
                return lg[LG_AT, r * cols + c]
            q -= 1
        r += 1


@njit(cache=True)
def mask_sees(lg, mask, a, b):
    """Whether bits a < b may pair when ``mask`` is what is live of their group and every other
    number may be gone: no live bit of the group between them in reading order, or in their
    column, or on a diagonal that some choice of the start board's rows between them would form
    (a row holding a live bit of the group stays; a row gone since is one the choice drops)."""
    between = mask & ((1 << b) - (1 << (a + 1)))
    if between == 0:
        return True
    cols, n = lg[LG_SIZE, 0], lg[LG_SIZE, 1]
    pa, pb = lg[LG_POS, a], lg[LG_POS, b]
    ra, ca = pa // cols, pa % cols
    rb, cb = pb // cols, pb % cols
    if ca == cb:
        return (between & lg[LG_COL, ca]) == 0
    d = abs(cb - ca)
    if rb - ra < d:
        return False
    sign = 1 if cb > ca else -1
    reach = 1  # bit t: t rows between kept so far, the diagonal open through them
    for r in range(ra + 1, rb):
        nxt = 0 if (mask & lg[LG_ROW, r]) != 0 else reach
        for t in range(d - 1):
            if (reach >> t) & 1:
                k = r * cols + ca + sign * (t + 1)
                if k < n:
                    at = lg[LG_AT, k]
                    if at < 0 or ((mask >> at) & 1) == 0:
                        nxt |= 1 << (t + 1)
        reach = nxt
    return (reach >> (d - 1)) & 1 == 1


@njit(cache=True)
def memo_get(memo, key):
    """A group position's floor remembered in ``memo``; -1 when not there. An entry is one word
    (two threads write the memo, see ROOM_BITS): the mixed key's bits above 7, the floor below."""
    h = key * KEY_MIX
    e = memo[(h >> 24) & (memo.shape[0] - 1)]
    return e & 127 if (e & ~127) == (h & ~127) else -1


@njit(cache=True)
def memo_put(memo, key, value):
    h = key * KEY_MIX
    memo[(h >> 24) & (memo.shape[0] - 1)] = (h & ~127) | value


@njit(cache=True)
def popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def mask_floor(lg, memo, salt, mask, group, least, budget, stack):
    """The fewest of the live bits ``mask`` of one group that pairs can leave when the group is
    played alone, remembered in ``memo`` (keys salted with ``salt``) for every group position
    it settles; UNKNOWN when not settled within ``budget`` positions. ``least``: what the
    group's odd classes leave, which no line beats (reaching it ends the search)."""
    tag = (group << MASK_BITS) ^ salt
    # stack rows: a group position, the first bit of the next pair to try and its second, the
    # fewest left found below, its own count
    stack[0, 0] = mask
    stack[0, 1] = 0
    stack[0, 2] = 0
    stack[0, 3] = stack[0, 4] = popcount(mask)
    d = 0
    nodes = 0
    while True:
        m = stack[d, 0]
        a, b = stack[d, 1], stack[d, 2]
        child = -1
        firsts = (m >> a) << a
        while firsts:
            a = trailing_zeros(firsts)
            seconds = m & lg[LG_SEL, 1 << lg[LG_CLASS, a]] & ~((2 << a) - 1)
            seconds = (seconds >> b) << b
            while seconds:
                b = trailing_zeros(seconds)
                if mask_sees(lg, m, a, b):
                    child = m & ~(1 << a) & ~(1 << b)
                    break
                seconds &= seconds - 1
            if child >= 0:
                break
            firsts &= firsts - 1
            b = 0
        if child >= 0:
            stack[d, 1] = a
            stack[d, 2] = b + 1
            known = memo_get(memo, child ^ tag)
            if 0 <= known < UNKNOWN:
                if known < stack[d, 3]:
                    stack[d, 3] = known
                if known > least:
                    continue
            else:
                nodes += 1
                if nodes > budget:
                    memo_put(memo, mask ^ tag, UNKNOWN)
                    return UNKNOWN
                d += 1
                stack[d, 0] = child
                stack[d, 1] = 0
                stack[d, 2] = 0
                stack[d, 3] = stack[d, 4] = stack[d - 1, 4] - 2
                continue
        best = stack[d, 3]
        if best == least:  # no line leaves fewer: so too every position on the way here
            for t in range(d + 1):
                memo_put(memo, stack[t, 0] ^ tag, least)
            return least
        memo_put(memo, m ^ tag, best)
        if d == 0:
            return best
        d -= 1
        if best < stack[d, 3]:
            stack[d, 3] = best


@njit(cache=True)
def group_gain(lg, memo, stack, salt, mask, group, odd, budget, seen):
    """How many more of the group's live numbers (of ``mask``) pairs must leave than its odd
    classes do (``odd``: a bit per class with an odd count); 0 when not settled. ``seen``: a
    floor remembered may be used (else searched again, with this budget)."""
    least = popcount(odd & group)
    g = mask & lg[LG_SEL, group]
    f = memo_get(memo, g ^ (group << MASK_BITS) ^ salt) if seen else -1
    if f < 0:
        f = mask_floor(lg, memo, salt, g, group, least, budget, stack)
    return f - least if f < UNKNOWN else 0


@njit(cache=True)
def best_disjoint(groups, gains, count):
    """The most two groups of classes with no class in common gain together (or one alone)."""
    best = 0
    for t in range(count):
        if gains[t] <= 0:
            continue
        best = max(best, gains[t])
        for u in range(t + 1, count):
            if groups[t] & groups[u] == 0:
                best = max(best, gains[t] + gains[u])
    return best


@njit(cache=True)
def lock_floor(lg, memo, stack, gains, ctl, undo, most):
    """A floor on the live numbers pairs alone can leave from here (before the first press): a
    number for each class with an odd count, and more where groups of two or three classes
    lock each other (disjoint groups add up). Returns once it is above ``most``.

    ``gains[d]`` holds each group's gain at depth d, and in its last column whether the row is
    whole: a pair leaves the groups without its class as they were, so a child looks up only
    the groups of its pair's class. A group of two gains no more than a group of three holding
    it (one class fewer stands in the way), so it is looked up only when all those gain."""
    d = ctl[DEPTH]
    mask = ctl[LMASK]
    odd = odd_classes(ctl)
    odd_bits, empty = 0, 0
    for c in range(5):
        odd_bits |= (ctl[CNT + c] & 1) << c
        if ctl[CNT + c] == 0:
            empty |= 1 << c
    row = gains[d]
    whole = len(LOCK_GROUPS)
    moved = -1
    if d > 0 and gains[d - 1, whole] == 1 and undo[d - 1, U_KIND] == 0:
        moved = klass(undo[d - 1, U_VI])
    row[whole] = 0
    for t in range(len(LOCK_GROUPS)):
        group = LOCK_GROUPS[t]
        if moved >= 0 and not (group >> moved) & 1:
            row[t] = gains[d - 1, t]
            continue
        row[t] = 0
        if group & empty:
            continue  # the smaller group is one of the others
        if t >= FIRST_PAIR:
            held, all_gain = False, True
            for u in range(FIRST_PAIR):
                if LOCK_GROUPS[u] & group == group and LOCK_GROUPS[u] & empty == 0:
                    held = True
                    all_gain = all_gain and row[u] > 0
            if held and not all_gain:
                continue
        row[t] = group_gain(lg, memo, stack, ctl[SALT], mask, group, odd_bits, ctl[LOCK_BUDGET], True)
        if odd + row[t] > most:
            return odd + row[t]
    row[whole] = 1
    return odd + best_disjoint(LOCK_GROUPS, row, len(LOCK_GROUPS))


@njit(cache=True)
def pairs_floor(lg, memo, stack, salt, budget):
    """A floor on the live numbers pairs alone can leave on the start board (so on what the
    first add copies): a number for each class with an odd count, and more for the best choice
    of disjoint groups of two to four classes locking each other, each searched afresh within
    ``budget`` positions. ``stack[40]`` is scratch."""
    mask = (1 << lg[LG_SIZE, 2]) - 1
    odd_bits = 0
    for c in range(5):
        odd_bits |= (popcount(lg[LG_SEL, 1 << c]) & 1) << c
    gains = stack[40]
    groups = stack[41]
    count = 0
    for t in range(len(LOCK_GROUPS) + len(FOURS)):
        group = LOCK_GROUPS[t] if t < len(LOCK_GROUPS) else FOURS[t - len(LOCK_GROUPS)]
        empty = False
        for c in range(5):
            empty = empty or ((group >> c) & 1 and mask & lg[LG_SEL, 1 << c] == 0)
        if empty:
            continue  # the smaller group is one of the others
        groups[count] = group
        gains[count] = group_gain(lg, memo, stack, salt, mask, group, odd_bits, budget, False)
        count += 1
    return popcount(odd_bits) + best_disjoint(groups, gains, count)
