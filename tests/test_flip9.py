"""Flip 9: rules, and the solver's lengths against an independent exhaustive computation."""

import itertools
import random

import numpy as np
import pytest

from solver import flip9
from solver.flip9 import State, StateError, forced_card


@pytest.fixture(scope="module")
def brute_force_distances():
    """Fewest swaps to sort from every (order, must), by value iteration over numpy arrays:
    a different algorithm and indexing from the solver's backward search."""
    orders = np.array(list(itertools.permutations(range(9))), np.int64)  # lexicographic
    weights = 9 ** np.arange(8, -1, -1, dtype=np.int64)
    codes = orders @ weights                                            # sorted, as orders are
    where = np.argsort(orders, axis=1)                                  # position of each value
    pairs = [(a, b) for a in range(1, 10) for b in range(a + 1, 10)]
    successor = {}
    for a, b in pairs:
        pa, pb = where[:, a - 1], where[:, b - 1]
        new = codes + (b - a) * weights[pa] + (a - b) * weights[pb]
        successor[a, b] = np.searchsorted(codes, new)
    inf = 99
    dist = np.full((10, len(orders)), inf, np.int64)
    dist[:, 0] = 0                                                      # sorted, whatever must
    while True:
        new = dist.copy()
        for must in range(10):
            usable = pairs if must == 0 else [p for p in pairs if must in p]
            for a, b in usable:
                then = dist[forced_card(a, b), successor[a, b]] + 1
                np.minimum(new[must], then, out=new[must])
        new[:, 0] = 0
        if (new == dist).all():
            return orders, codes, dist
        dist = new


def brute_index(codes, cards):
    code = sum((c - 1) * 9 ** (8 - k) for k, c in enumerate(cards))
    return int(np.searchsorted(codes, code))


def test_state_rules():
    s = State.parse("3,1,5,9,2,7,4,8,6")
    assert len(s.legal_moves()) == 36
    s.push((2, 5))
    assert s.cards == (3, 1, 2, 9, 5, 7, 4, 8, 6) and s.must == 7
    assert s.legal_moves() == [(7, b) for b in range(1, 10) if b != 7]
    assert not s.is_legal((1, 2))
    with pytest.raises(StateError):
        s.push((1, 2))
    s.push((7, 9))                                                    # 7 + 9 = 16 -> 7
    assert s.must == 7
    s.pop()
    s.pop()
    assert s.cards == (3, 1, 5, 9, 2, 7, 4, 8, 6) and s.must is None


@pytest.mark.parametrize("text", ["12345678", "1234567899", "12345678a", "", "023456789"])
def test_bad_cards(text):
    with pytest.raises(StateError):
        State.parse(text)


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_solver_lengths_equal_brute_force_on_random_states(brute_force_distances):
    orders, codes, dist = brute_force_distances
    rng = random.Random(7)
    for trial in range(300):
        cards = list(range(1, 10))
        rng.shuffle(cards)
        must = None if trial % 2 == 0 else rng.randint(1, 9)
        state = State(tuple(cards), must)
        swaps = flip9.solve(state)
        assert len(swaps) == dist[must or 0, brute_index(codes, cards)], (cards, must)
        for swap in swaps:
            state.push(swap)                                          # raises if illegal
        assert state.is_won()


def test_whole_distance_table_equals_brute_force(brute_force_distances):
    orders, codes, dist = brute_force_distances
    table = flip9.distance_table().reshape(-1, 10)                    # [rank, must]
    # the solver ranks orders lexicographically too, so rows line up
    assert (table.T.astype(np.int64) == dist).all()


def test_fresh_deals_need_at_most_nine_swaps_and_36_need_one():
    fresh = flip9.distance_table()[0::10]
    assert fresh.max() == 9
    assert (fresh == 1).sum() == 36
    assert (fresh == 0).sum() == 1


def test_solved_state_needs_no_swap():
    assert flip9.solve(State.parse("123456789", must=5)) == []
