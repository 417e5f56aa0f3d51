"""The restarts that race a pass of the Number Match search: random orders, node caps growing as Luby's."""

import random
import threading
import time

from solver.numbermatch import Board, Move
from solver.numbermatch.search.binding import Kernel
from solver.numbermatch.search.solution import adds_in, pairs_in

# random bits in the priority of each move a fewest-moves restart tries (``NOISE``): enough to
# drown the fast ordering, so the restarts walk lines at random. A line that copies no more than
# the floor is one of a few among millions, and the ordering that finds lines with few adds
# steers away from it: on the 41 boards of 42 numbers that 1 s left unproved, restarts at random
# proved 19, restarts mixing 15 to 65535 random bits 14
MOVES_NOISE = (1 << 20) - 1


def luby(k: int) -> int:
    """The k-th term (from 1) of the Luby restart sequence 1 1 2 1 1 2 4 1 1 2 ..."""
    power = 1
    while (1 << power) - 1 < k:
        power += 1
    if (1 << power) - 1 == k:
        return 1 << (power - 1)
    return luby(k - (1 << (power - 1)) + 1)


class AddsRacer:
    """Restarts racing the fewest-adds pass between its slices, in its thread: random tie-breaks and
    moments to press "+", each looking for a line within the adds the pass proves. The first allows
    every add, and every other one looks one add further: the likely best line to fall back on
    (``fallback``) when the budget cuts the proof short."""

    def __init__(self, kernel: Kernel, start: Board, deadline: float):
        self.kernel, self.adds, self.deadline = kernel, start.adds_left, deadline
        self.rng = random.Random(hash((tuple(start.cells), self.adds)) & 0xFFFFFFFF)  # ints: the same every run
        self.restart = 0
        self.fallback: list[Move] | None = None

    def _attempt(self, allowed: int, cap: int, add_at: int) -> int:
        self.kernel.reset(allowed, self.kernel.K.FAST, seed=self.rng.getrandbits(62),
                          noise=self.rng.choice((15, 255, 4095, 65535)), add_at=add_at)
        return self.kernel.run(self.deadline, node_cap=cap)

    def run(self, allowed: int) -> tuple[list[Move] | None, bool]:
        """One restart while the pass proves ``allowed`` adds: a line that clears with as few
        (None for none), and whether it proved that none does."""
        K, kernel = self.kernel.K, self.kernel
        if self.restart == 0 and self._attempt(self.adds, 3000, -1) == K.FOUND:
            self.fallback = kernel.line()
        self.restart += 1
        target = allowed
        if self.restart % 2 == 0 and (self.fallback is None or adds_in(self.fallback) > allowed + 1):
            target = min(allowed + 1, self.adds)
        code = self._attempt(target, 500 * luby(self.restart), self.rng.choice((-1, self.rng.randint(0, kernel.live))))
        if code == K.FOUND:
            line = kernel.line()
            if adds_in(line) <= allowed:
                return line, False
            if self.fallback is None or adds_in(line) < adds_in(self.fallback):
                self.fallback = line
        return None, code == K.EXHAUSTED and target == allowed and not kernel.capped


class MovesRacer:
    """Restarts racing the fewest-moves pass, in a thread started at the first ``aim``: each
    tries moves in random order (``MOVES_NOISE``) up to a node cap, every other one aiming
    straight at the floor. A restart that ends its tree within its cap has proved its aim out
    of reach (its tree is the pass's in another order, made small by the tables it shares with
    the pass): the best, or the floor raised past it. What it finds, the pass takes up between
    its slices (``news``)."""

    def __init__(self, kernel: Kernel, start: Board, adds: int, deadline: float):
        self.kernel, self.adds, self.deadline = kernel, adds, deadline
        self.rng = random.Random(hash((tuple(start.cells), adds, 2)) & 0xFFFFFFFF)  # ints: the same every run
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread: threading.Thread | None = None
        self.target = self.floor = self.raised = 0
        self.line: list[Move] | None = None
        self.error: BaseException | None = None  # raised again in the caller's thread by ``stop``

    def aim(self, bound: int, floor: int) -> None:
        with self.lock:
            self.target, self.floor = bound, floor
        if self.thread is None:
            self.thread = threading.Thread(target=self._race, name="moves-racer", daemon=True)
            self.thread.start()

    def news(self) -> tuple[list[Move] | None, int]:
        """The shortest line found so far (None for none), and the floor it has proved."""
        with self.lock:
            return self.line, self.raised

    def stop(self) -> None:
        self.stopped.set()
        if self.thread is not None:
            self.thread.join()
        if self.error is not None:
            raise self.error

    def _race(self) -> None:
        try:
            self._restarts()
        except BaseException as error:  # noqa: BLE001 (handed to the caller's thread)
            self.error = error

    def _restarts(self) -> None:
        K, kernel = self.kernel.K, self.kernel
        restart = 0
        while not self.stopped.is_set() and time.perf_counter() < self.deadline:
            restart += 1
            with self.lock:
                target = max(self.floor, self.raised) if restart % 2 else self.target
            kernel.reset(self.adds, K.MOVES, bound=target, seed=self.rng.getrandbits(62), noise=MOVES_NOISE)
            code = kernel.run(self.deadline, node_cap=500 * luby(restart), stop=self.stopped)
            with self.lock:
                if code == K.EXHAUSTED and not kernel.capped:
                    # no line copies ``target`` or fewer, so two more at least
                    self.raised = max(self.raised, target + 2)
                elif code == K.FOUND and (self.line is None or pairs_in(kernel.line()) < pairs_in(self.line)):
                    self.line = kernel.line()
