"""The rules dialect every game's position speaks, after python-chess: ``legal_moves()``,
``push(move)``, ``pop() -> move``, ``peek()``, ``is_won()``, ``copy()`` and the moves made so far,
``move_stack``.

A game's position subclasses ``Position`` and gives what only it knows: which moves are legal,
how one is played, what must be kept to take it back (``_snapshot``/``_restore``) and when the
board is won. Taking back is the same for every game, so a search walks the game tree on one
position, and the assistant asks every game the same questions.
"""

from __future__ import annotations

from solver.errors import InputError


class Position:
    """A game's position with the moves played on it. Subclasses are dataclasses that declare
    ``_undo`` (one ``(move, snapshot)`` per move played, private: what ``pop`` restores)."""

    # the game's error for an illegal move or a take-back with nothing to take back
    Error: type[InputError] = InputError

    def legal_moves(self) -> list:
        raise NotImplementedError

    def is_legal(self, move) -> bool:
        return move in self.legal_moves()

    def is_won(self) -> bool:
        """The board is won (cleared, sorted, solved: each game's own end)."""
        raise NotImplementedError

    def _play(self, move) -> None:
        """Make a legal move on this position."""
        raise NotImplementedError

    def _snapshot(self):
        """What ``_restore`` needs to return to this position."""
        raise NotImplementedError

    def _restore(self, snapshot) -> None:
        raise NotImplementedError

    def _fresh(self):
        """An independent position equal to this one, with no moves played."""
        raise NotImplementedError

    @property
    def move_stack(self) -> list:
        """The moves played on this position, oldest first."""
        return [move for move, _ in self._undo]

    def push(self, move) -> None:
        """Play a legal move; the game's error for an illegal one."""
        if not self.is_legal(move):
            raise self.Error(self._illegal(move))
        self._undo.append((move, self._snapshot()))
        self._play(move)

    def _illegal(self, move) -> str:
        return f"{move} is not a legal move now"

    def pop(self):
        """Take back the last move and return it."""
        if not self._undo:
            raise self.Error("no move to take back")
        move, snapshot = self._undo.pop()
        self._restore(snapshot)
        return move

    def peek(self):
        """The last move played; the game's error when none was."""
        if not self._undo:
            raise self.Error("no move was played")
        return self._undo[-1][0]

    def copy(self, stack: bool = False):
        """An independent position equal to this one; with ``stack``, its moves too, so that
        ``pop`` on the copy gives the positions before them."""
        other = self._fresh()
        if stack:
            other._undo = list(self._undo)
        return other
