"""Compiled Flip 9 kernels: rank orders, build the distance table, walk it to a shortest line.

The readable rules are ``solver.flip9.State``; tests check the table against a plain
breadth-first search over those rules.
"""

import numpy as np
from solver.jit import njit

TABLE_VERSION = 1
FACT = np.array([40320, 5040, 720, 120, 24, 6, 2, 1, 1], np.int64)  # 8! .. 0!
ORDERS = 362880  # 9!
STATES = ORDERS * 10  # must: 0 (none yet) or a card 1-9
UNKNOWN = 255


@njit(cache=True)
def rank(order):
    """Lehmer rank of an order of 0..8 (values), 0 for the sorted order."""
    r = 0
    for i in range(9):
        smaller = 0
        for j in range(i + 1, 9):
            if order[j] < order[i]:
                smaller += 1
        r += smaller * FACT[i]
    return r


@njit(cache=True)
def unrank(r, order):
    used = np.zeros(9, np.bool_)
    for i in range(9):
        k = r // FACT[i]
        r -= k * FACT[i]
        for v in range(9):
            if not used[v]:
                if k == 0:
                    order[i] = v
                    used[v] = True
                    break
                k -= 1


@njit(cache=True)
def index_of(order, must):
    return rank(order) * 10 + must


@njit(cache=True)
def swap_values(order, a, b):
    """Swap the cards of values a and b (1-9) in place."""
    pa = pb = -1
    for i in range(9):
        if order[i] == a - 1:
            pa = i
        elif order[i] == b - 1:
            pb = i
    order[pa], order[pb] = order[pb], order[pa]


@njit(cache=True)
def build_distances():
    """Backward breadth-first search from the sorted order (any must) over every state."""
    dist = np.full(STATES, UNKNOWN, np.uint8)
    for m in range(10):
        dist[m] = 0
    order = np.empty(9, np.int64)
    level = 0
    grew = True
    while grew:
        grew = False
        for s in range(STATES):
            if dist[s] != level:
                continue
            m = s % 10
            if m == 0:
                continue  # "no card must move yet" only ever starts a game
            unrank(s // 10, order)
            # predecessors: a swap (a, b) whose digital root is m, from a state whose must
            # was none, a or b
            for a in range(1, 10):
                for b in range(a + 1, 10):
                    t = a + b
                    if t > 9:
                        t -= 9
                    if t != m:
                        continue
                    swap_values(order, a, b)
                    base = rank(order) * 10
                    swap_values(order, a, b)
                    for pm in (0, a, b):
                        if dist[base + pm] == UNKNOWN:
                            dist[base + pm] = level + 1
                            grew = True
        level += 1
    return dist


@njit(cache=True)
def walk(dist, order_in, must):
    """A shortest line of swaps (a, b) from the state, following the table down to zero."""
    order = order_in.copy()
    here = dist[rank(order) * 10 + must]
    out = np.zeros((here, 2), np.int64)
    for step in range(here):
        found = False
        for a in range(1, 10):
            for b in range(1, 10):
                if a == b or (must == 0 and b < a) or (must != 0 and a != must):
                    continue
                swap_values(order, a, b)
                t = a + b
                if t > 9:
                    t -= 9
                if dist[rank(order) * 10 + t] == here - 1:
                    out[step, 0] = a
                    out[step, 1] = b
                    must = t
                    here -= 1
                    found = True
                    break
                swap_values(order, a, b)
            if found:
                break
    return out
