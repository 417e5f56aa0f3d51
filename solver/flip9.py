"""Flip 9 rules and its optimal solver: nine cards, swaps forced by the digital root of the last.

After swapping cards ``a`` and ``b`` the next swap must include card ``a + b`` (minus 9 when
that exceeds 9). The solver walks a table of exact distances to the sorted order, built once by
a backward breadth-first search over every (order, card that must move) and cached on disk, so
every answer is provably shortest.

>>> state = State.parse("213456789")
>>> solve(state)
[(1, 2)]
>>> state.push((1, 2)); state.cards, state.must, state.is_won()
((1, 2, 3, 4, 5, 6, 7, 8, 9), 3, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.cache import cache_dir, keep, kept, load_array
from solver.errors import InputError
from solver.files import is_digits
from solver.rules import Position

GOAL = tuple(range(1, 10))


class StateError(InputError):
    """Cards or a swap that do not follow the rules; the message says why."""


def forced_card(a: int, b: int) -> int:
    """The card the next swap must include after swapping a and b: their digital root."""
    total = a + b
    return total - 9 if total > 9 else total


@dataclass
class State(Position):
    """A Flip 9 position: the cards in order and the card the next swap must include."""

    cards: tuple[int, ...]
    must: int | None = None
    _undo: list = field(default_factory=list, init=False, repr=False, compare=False)

    Error = StateError

    def __post_init__(self):
        self.cards = tuple(self.cards)
        if sorted(self.cards) != list(GOAL):
            missing = sorted(set(GOAL) - set(self.cards))
            raise StateError(f"the cards must be each of 1-9 once, got {''.join(map(str, self.cards)) or 'nothing'}"
                             + (f" (missing {','.join(map(str, missing))})" if missing else ""))
        if self.must is not None and not (isinstance(self.must, int) and 1 <= self.must <= 9):
            raise StateError(f"the card that must be swapped is 1-9, not {self.must}")

    @classmethod
    def parse(cls, text: str, must: int | None = None) -> "State":
        """Cards from ``315927486``, ``3,1,5,...`` or ``[3, 1, 5, ...]``: a permutation of 1-9."""
        digits = [ch for ch in text if ch not in " ,[]()\t\n"]
        bad = next((ch for ch in digits if not is_digits(ch)), None)
        if bad is not None:
            raise StateError(f"cards are the digits 1-9, not {bad!r}")
        return cls(tuple(int(ch) for ch in digits), must)

    @classmethod
    def from_json(cls, data: dict) -> "State":
        if not isinstance(data, dict) or data.get("game", "flip9") != "flip9":
            raise StateError('a Flip 9 state JSON is {"game": "flip9", "cards": [...], "must": null}')
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(type(c) is int for c in cards):
            raise StateError("the state JSON's cards are a list of the cards 1-9 (null: a card not read for sure)")
        return cls(tuple(cards), data.get("must"))

    def to_json(self) -> dict:
        return {"game": "flip9", "cards": list(self.cards), "must": self.must}

    def format(self) -> str:
        return "".join(map(str, self.cards))

    def is_won(self) -> bool:
        """The cards are sorted."""
        return self.cards == GOAL

    def legal_moves(self) -> list[tuple[int, int]]:
        """Every legal swap as (a, b) by card values; a is the card that must move, if any."""
        if self.must is None:
            return [(a, b) for a in range(1, 10) for b in range(a + 1, 10)]
        return [(self.must, b) for b in range(1, 10) if b != self.must]

    def is_legal(self, swap) -> bool:
        a, b = swap
        if not (1 <= a <= 9 and 1 <= b <= 9) or a == b:
            return False
        return self.must is None or self.must in (a, b)

    def _illegal(self, swap) -> str:
        return f"swap {swap} is not legal now (must include {self.must})"

    def _snapshot(self):
        return self.cards, self.must

    def _restore(self, snapshot) -> None:
        self.cards, self.must = snapshot

    def _fresh(self) -> "State":
        return State(self.cards, self.must)

    def _play(self, swap) -> None:
        """Swap the two cards (by value) and set the card the next swap must include."""
        a, b = swap
        cards = list(self.cards)
        pa, pb = cards.index(a), cards.index(b)
        cards[pa], cards[pb] = b, a
        self.cards = tuple(cards)
        self.must = forced_card(a, b)


# -- the distance table --------------------------------------------------------------------

_TABLE: np.ndarray | None = None
# the table is 9! x 10 one-byte distances (3.6 MB): a cached file claiming more is not it
TABLE_BYTES = 1 << 24


# States whose stored distance is checked against their neighbours' when the table is loaded:
# a wrong file (all zeros, another version, bit rot) fails the first few.
SPOT_CHECKS = 64


def table_is_sound(table: np.ndarray) -> bool:
    """Whether a distance table can be trusted: its size, zero exactly at the sorted order (with
    any card that must move), one for every order a swap from it, every state reachable, and
    for a sample of states the step of a shortest line: a state's distance is one more than the
    least after any legal swap."""
    # the compiled kernels, imported on first use: reading a Flip 9 screen or checking a swap
    # needs only the rules, and importing numba costs a command a third of a second
    from solver import _flip9_kernel as kernel

    if table.shape != (kernel.STATES,) or table.dtype != np.uint8:
        return False
    if np.count_nonzero(table == 0) != 10 or table[:10].any() or (table == kernel.UNKNOWN).any():
        return False
    for a in range(1, 10):  # one swap away from sorted, before the first swap: distance 1
        for b in range(a + 1, 10):
            cards = list(GOAL)
            cards[a - 1], cards[b - 1] = b, a
            if table[kernel.index_of(np.array(cards, np.int64) - 1, 0)] != 1:
                return False
    order = np.empty(9, np.int64)
    for s in np.random.default_rng(9).integers(10, kernel.STATES, SPOT_CHECKS):
        kernel.unrank(s // 10, order)
        state = State(tuple(int(v) + 1 for v in order), int(s % 10) or None)
        after = []
        for swap in state.legal_moves():
            state.push(swap)
            after.append(table[kernel.index_of(np.array(state.cards, np.int64) - 1, state.must)])
            state.pop()
        if table[s] != 1 + min(after):
            return False
    return True


def distance_table() -> np.ndarray:
    """dist[rank * 10 + must] = fewest swaps to sort (must 0 = none yet); built once, cached on
    disk, and checked when loaded (a file that fails ``table_is_sound`` is built again)."""
    from solver import _flip9_kernel as kernel

    global _TABLE
    if _TABLE is not None:
        return _TABLE
    name = f"flip9-distances-v{kernel.TABLE_VERSION}.npy"
    try:
        table = load_array(kept(name), TABLE_BYTES)
        if not table_is_sound(table):
            raise ValueError("a wrong table")
    except (OSError, ValueError, EOFError):
        table = kernel.build_distances()
        # checked as a later run loads it: that check's kernels compile now, on the first run
        if not table_is_sound(table):
            raise RuntimeError("the Flip 9 distance table was built wrong")
        keep(cache_dir() / name, lambda tmp: np.save(tmp, table))
    _TABLE = table
    return table


def solve(state: State) -> list[tuple[int, int]]:
    """A shortest sequence of swaps (by card values) that sorts the cards."""
    from solver import _flip9_kernel as kernel

    swaps = kernel.walk(distance_table(), np.array(state.cards, np.int64) - 1, state.must or 0)
    return [(int(a), int(b)) for a, b in swaps]
