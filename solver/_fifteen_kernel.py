"""Compiled 15-puzzle kernels: slide tables, the pattern databases' build, and IDA*.

A board is a flat int64 array of cells in reading order, ``0`` the blank; the goal is 1..N-1
then the blank in the last cell. The readable rules are ``solver.fifteen.Board`` and the
readable search is ``solver.fifteen.solve_plain`` (IDA* with Manhattan distance); tests check
these kernels against both.

The 4x4 heuristic is an additive pattern database (Korf and Felner 2002): the tiles are split
into groups; each group's table holds, for every placement of its tiles, the fewest moves *of
those tiles* that bring them home (the other tiles are indistinct, so their moves are free).
Sums over disjoint groups never overestimate. The same tables read on the board reflected
about its main diagonal (the goal is its own mirror) give a second bound; the search takes the
larger one.
"""

import numpy as np
from solver.jit import njit

TABLE_VERSION = 1  # (the tables' layout: the search's own arguments may change without it)
UNKNOWN = 255
MAX_LINE = 2000  # longest line a weighted search may return (5x5 lines are a few hundred)


# -- slide tables ------------------------------------------------------------------------------

@njit(cache=True)
def neighbours(width):
    """nbr[cell * 4 + k] for k < count[cell]: the cells next to each cell (up, left, right, down)."""
    cells = width * width
    nbr = np.full(cells * 4, -1, np.int64)
    count = np.zeros(cells, np.int64)
    for c in range(cells):
        r, col = c // width, c % width
        for inside, to in ((r > 0, c - width), (col > 0, c - 1), (col < width - 1, c + 1), (r < width - 1, c + width)):
            if inside:
                nbr[c * 4 + count[c]] = to
                count[c] += 1
    return nbr, count


@njit(cache=True)
def manhattan_table(width):
    """md[tile * cells + cell]: the distance of `tile` at `cell` from its home (0 for the blank)."""
    cells = width * width
    md = np.zeros(cells * cells, np.int64)
    for t in range(1, cells):
        home = t - 1
        for c in range(cells):
            md[t * cells + c] = abs(c // width - home // width) + abs(c % width - home % width)
    return md


# -- pattern databases -------------------------------------------------------------------------

@njit(cache=True)
def _push(queue, n, value):
    """Append to a growing array: (the array, perhaps a bigger copy, and its new length)."""
    if n == queue.size:
        bigger = np.empty(queue.size * 2, queue.dtype)
        bigger[:n] = queue[:n]
        queue = bigger
    queue[n] = value
    return queue, n + 1


@njit(cache=True)
def _mark_seen(key, start, holder, seen, nbr, count, region, inside):
    """Mark every cell the blank reaches from `start` without moving a group tile (those slides
    are free) as seen with the group at `key`. A region is always marked whole, so one of its
    cells unseen means all are."""
    size = _flood_cells(start, holder, nbr, count, region, inside)
    for r in range(size):
        bit = (key << 4) | region[r]
        seen[bit >> 3] |= np.uint8(1 << (bit & 7))


@njit(cache=True, nogil=True)  # (the build's progress bar redraws beside it)
def build_pattern_table(tiles):
    """The 4x4 pattern database of a group of tiles (at most 6): table[sum cell_i << 4i] is the
    fewest moves of these tiles that bring them home, whatever the others do.

    A breadth-first search backwards from the goal over (the group's cells, the blank's region):
    the blank sliding past another tile costs nothing, so all the cells it reaches that way are
    one state, marked at once; sliding a group tile costs one move. Seen states are one bit per
    (group cells, blank cell), indexed four bits a cell like the table itself."""
    k = tiles.size
    table = np.full(16 ** k, UNKNOWN, np.uint8)
    seen = np.zeros((16 ** k * 16 + 7) // 8, np.uint8)
    nbr, count = neighbours(4)
    holder = np.full(16, -1, np.int64)  # the group tile (its slot) on each cell, -1 for none
    region = np.empty(16, np.int64)
    moved_region = np.empty(16, np.int64)
    inside = np.zeros(16, np.bool_)
    moved_inside = np.zeros(16, np.bool_)
    start = 0
    for i in range(k):
        start |= (tiles[i] - 1) << (4 * i)
        holder[tiles[i] - 1] = i
    _mark_seen(start, 15, holder, seen, nbr, count, region, inside)
    table[start] = 0
    level_now = np.empty(1024, np.int64)
    level_next = np.empty(1024, np.int64)
    n_now, n_next = 0, 0
    level_now, n_now = _push(level_now, n_now, (start << 4) | 15)
    level = 0
    while n_now > 0:
        for i in range(n_now):
            key, blank = level_now[i] >> 4, level_now[i] & 15
            holder[:] = -1
            for j in range(k):
                holder[(key >> (4 * j)) & 15] = j
            size = _flood_cells(blank, holder, nbr, count, region, inside)
            for r in range(size):
                c = region[r]
                for q in range(count[c]):
                    to = nbr[c * 4 + q]
                    j = holder[to]
                    if j < 0:
                        continue
                    # group tile j slides from `to` into the blank at c
                    moved = key + ((c - to) << (4 * j))
                    bit = (moved << 4) | to
                    if seen[bit >> 3] & (1 << (bit & 7)):
                        continue
                    holder[to], holder[c] = -1, j
                    _mark_seen(moved, to, holder, seen, nbr, count, moved_region, moved_inside)
                    holder[to], holder[c] = j, -1
                    if table[moved] == UNKNOWN:
                        table[moved] = level + 1
                    level_next, n_next = _push(level_next, n_next, (moved << 4) | to)
        level_now, level_next = level_next, level_now
        n_now, n_next = n_next, 0
        level += 1
    return table


@njit(cache=True)
def _flood_cells(start, holder, nbr, count, region, inside):
    """The cells the blank reaches from `start` without moving a group tile (into `region`)."""
    inside[:] = False
    region[0] = start
    inside[start] = True
    size = 1
    i = 0
    while i < size:
        c = region[i]
        i += 1
        for q in range(count[c]):
            to = nbr[c * 4 + q]
            if holder[to] < 0 and not inside[to]:
                inside[to] = True
                region[size] = to
                size += 1
    return size


# -- IDA* --------------------------------------------------------------------------------------

@njit(cache=True)
def _move_tile(cells, index, reflected, t, src, dst, use_pdb, slot, group, mirror_tile, mirror_cell):
    """Tile t slides from cell src into the blank at dst: the cells and the table indices."""
    cells[dst] = t
    cells[src] = 0
    if use_pdb:
        index[group[t]] += (dst - src) << (4 * slot[t])
        rt = mirror_tile[t]
        reflected[group[rt]] += (mirror_cell[dst] - mirror_cell[src]) << (4 * slot[rt])


@njit(cache=True)
def ida_star(start, width, weight_num, weight_den, node_budget, target, locked, pdb, offset, group, slot,
             mirror_tile, mirror_cell):
    """IDA* from `start`: (line of tiles, nodes, found). With weight 1/1 the line is shortest;
    a heavier weight on the heuristic finds longer lines sooner. `pdb` empty: Manhattan only.

    The goal is each tile on its cell `target[tile]` (its home for every tile: the board solved;
    some tiles' cells and -1 for the rest, which may be anywhere: a stage of a large board), the
    blank never entering a cell with `locked[cell]` (a stage already placed); Manhattan distance
    is to those cells (the tables: to home, for the board solved).
    Each slide changes one group's table entry on the board and one on its mirror, so only
    those two are looked up; a depth's values are kept to restore them on the way back.
    Stops with found False once `node_budget` nodes are generated."""
    n = width * width
    cells = start.copy()
    nbr, count = neighbours(width)
    md = np.zeros(n * n, np.int64)
    for t in range(1, n):
        goal = target[t]
        if goal >= 0:
            for c in range(n):
                md[t * n + c] = abs(c // width - goal // width) + abs(c % width - goal % width)
    use_pdb = pdb.size > 0
    groups = offset.size
    index = np.zeros(max(groups, 1), np.int64)
    reflected = np.zeros(max(groups, 1), np.int64)
    manhattan = 0
    blank = 0
    for c in range(n):
        t = cells[c]
        if t == 0:
            blank = c
        else:
            manhattan += md[t * n + c]
            if use_pdb:
                index[group[t]] += c << (4 * slot[t])
                rt = mirror_tile[t]
                reflected[group[rt]] += mirror_cell[c] << (4 * slot[rt])
    direct = np.zeros(max(groups, 1), np.int64)  # each group's entry on the board
    mirror = np.zeros(max(groups, 1), np.int64)  # and on the board's mirror
    sum_direct = 0
    sum_mirror = 0
    for g in range(groups):
        direct[g] = pdb[offset[g] + index[g]]
        mirror[g] = pdb[offset[g] + reflected[g]]
        sum_direct += direct[g]
        sum_mirror += mirror[g]
    line = np.zeros(MAX_LINE, np.int64)
    if manhattan == 0:
        return line[:0], 0, True
    h = max(sum_direct, sum_mirror) if use_pdb else manhattan
    tried = np.zeros(MAX_LINE + 1, np.int64)  # per depth: the next neighbour to try
    came = np.full(MAX_LINE + 1, -1, np.int64)  # per depth: the blank's cell before (no undoing)
    # per depth, what the slide into it changed: to restore on the way back
    kept = np.zeros((MAX_LINE + 1, 5), np.int64)  # manhattan, sum_direct, sum_mirror, direct[g], mirror[g']
    nodes = 0
    bound = h * weight_num
    while True:
        next_bound = 1 << 60
        d = 0
        tried[0] = 0
        while True:
            if tried[d] >= count[blank]:
                if d == 0:
                    break
                d -= 1  # back up: the tile of depth d slides back
                t = line[d]
                _move_tile(cells, index, reflected, t, came[d + 1], blank, use_pdb, slot, group, mirror_tile, mirror_cell)
                blank = came[d + 1]
                manhattan, sum_direct, sum_mirror = kept[d + 1, 0], kept[d + 1, 1], kept[d + 1, 2]
                if use_pdb:
                    direct[group[t]] = kept[d + 1, 3]
                    mirror[group[mirror_tile[t]]] = kept[d + 1, 4]
                continue
            to = nbr[blank * 4 + tried[d]]
            tried[d] += 1
            if to == came[d] or locked[to]:
                continue
            t = cells[to]
            nodes += 1
            if nodes > node_budget:
                return line[:0], nodes, False
            _move_tile(cells, index, reflected, t, to, blank, use_pdb, slot, group, mirror_tile, mirror_cell)
            new_manhattan = manhattan + md[t * n + blank] - md[t * n + to]
            if use_pdb:
                g = group[t]
                gm = group[mirror_tile[t]]
                old_direct, old_mirror = direct[g], mirror[gm]
                direct[g] = pdb[offset[g] + index[g]]
                new_direct = sum_direct + direct[g] - old_direct
                new_mirror = sum_mirror
                h = new_direct
                # the mirror's entry only when the board's own does not already prune the slide
                if (d + 1) * weight_den + h * weight_num <= bound:
                    mirror[gm] = pdb[offset[gm] + reflected[gm]]
                    new_mirror = sum_mirror + mirror[gm] - old_mirror
                    h = max(new_direct, new_mirror)
            else:
                h = new_manhattan
            f = (d + 1) * weight_den + h * weight_num
            if f > bound or d + 1 >= MAX_LINE:
                if f < next_bound and f > bound:
                    next_bound = f
                _move_tile(cells, index, reflected, t, blank, to, use_pdb, slot, group, mirror_tile, mirror_cell)
                if use_pdb:
                    direct[g] = old_direct
                    mirror[gm] = old_mirror
                continue
            line[d] = t
            if new_manhattan == 0:
                return line[:d + 1].copy(), nodes, True
            kept[d + 1, 0], kept[d + 1, 1], kept[d + 1, 2] = manhattan, sum_direct, sum_mirror
            if use_pdb:
                kept[d + 1, 3], kept[d + 1, 4] = old_direct, old_mirror
                sum_direct, sum_mirror = new_direct, new_mirror
            manhattan = new_manhattan
            came[d + 1] = blank
            blank = to
            d += 1
            tried[d] = 0
        if next_bound == 1 << 60:
            return line[:0], nodes, False  # nothing left under any bound: cannot happen if solvable
        bound = next_bound
