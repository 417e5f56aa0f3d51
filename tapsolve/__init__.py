"""tapsolve from Python: read a screenshot, solve a board, read and tap a phone.

Each call gives what the matching command's ``--json`` prints, as a dict (docs/json.md lists
every key); every error is a ``TapsolveError`` whose message names the problem and what to do.
Images are OpenCV's: numpy arrays in BGR order, as ``cv2.imread`` gives and ``cv2.imwrite`` takes.
The README's "From Python" shows them at work (tests/test_api.py runs it).
"""

from __future__ import annotations

import logging
import numbers
import os

from solver.errors import InputError, TapsolveError

__all__ = ["read", "solve", "connect", "Phone", "TapsolveError", "InputError"]

# what a phone session says as it goes (a phone lost and back, a profile stored): logged, not printed
log = logging.getLogger("tapsolve")


def _rgb(image):
    """The readers' RGB pixels of a screenshot given as a file path or an OpenCV (BGR) array."""
    import numpy as np

    import vision

    if isinstance(image, (str, os.PathLike)):
        return vision.load_image(image)
    if isinstance(image, np.ndarray) and image.ndim == 3 and image.shape[2] in (3, 4):
        return np.ascontiguousarray(image[:, :, 2::-1])  # BGR(A) to RGB
    if isinstance(image, np.ndarray):
        return image  # grey, or a shape the reader names in its error
    raise vision.ImageInputError(f"a screenshot is a file path or an OpenCV image (a numpy array), "
                                 f"not {type(image).__name__}")


def read(image, game: str = "auto") -> dict:
    """Read a screenshot (a file path, or a BGR numpy array): what `tapsolve read --json` prints,
    ``game``, ``screen``, ``board``, the cells' ``[x, y]``..., a value not read for sure null."""
    import vision

    return vision.read(_rgb(image), game).to_json()


def solve(board, game: str | None = None, objective: str = "fast", budget: float = 1.0) -> dict:
    """The moves for a board as ``read`` gives it (its ``board``, or the whole reading) or as board
    text with its ``game`` ("467956239 385113145", "315927486", "1 2 3, 4 5 6, _ 7 8"): what
    `tapsolve solve GAME --json` prints. ``objective`` (Number Match): "fast", the fewest adds
    and moves, or "score", the most points; ``budget``: seconds to search at most."""
    from solver import games as registry

    if isinstance(board, dict) and "board" not in board and "screen" in board:
        raise InputError(f"the reading has no board to solve (it shows the {board['screen']} screen)")
    if isinstance(board, dict):
        board = board.get("board", board)
        game = game or board.get("game")
    if not isinstance(board, (str, dict)) or game is None:
        raise InputError("give a board as tapsolve.read(...) gives it, or as text with its game: "
                         f"solve(text, game=...), the game one of {', '.join(registry.NAMES)}")
    if objective not in ("fast", "score"):
        raise InputError(f"no objective {objective!r}: use fast or score")
    if not isinstance(budget, numbers.Real) or not budget > 0:
        raise InputError(f"the budget is seconds to search, more than 0, not {budget!r}")
    return registry.module("assistant.games", game).solve_json(board, objective=objective, budget=float(budget))


class Phone:
    """A phone over ADB (``connect``): its screen once it has stopped changing, read, and tapped."""

    def __init__(self, session):
        self.session = session  # an assistant.session.Session: a stored reading profile ...
        self.link = session.link  # ... and its assistant.link.Link: captures, touches, reconnects

    @property
    def serial(self) -> str:
        return self.link.device.serial

    @property
    def model(self) -> str:
        return self.link.device.model

    def screenshot(self):
        """The screen once it has stopped changing, a BGR numpy array (``cv2.imwrite`` saves it)."""
        return self.link.capture()[:, :, ::-1].copy()

    def read(self, game: str = "auto") -> dict:
        """Read the screen as it is once it has stopped changing: as ``tapsolve.read`` does, with
        the phone's stored reading profile (faster, and what it learns is kept for the next time)."""
        return self.session.look(game)[1].to_json()

    def tap(self, x, y) -> None:
        """Tap the screen at the screenshot's pixel (x, y): a cell's ``[x, y]`` from ``read``."""
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (x, y)):
            raise InputError(f"a tap is at two numbers, pixels of the screenshot, not ({x!r}, {y!r})")
        self.link.tap(x, y)

    def swipe(self, x1, y1, x2, y2, ms: int = 400) -> None:
        """Swipe from (x1, y1) to (x2, y2) over ``ms`` milliseconds (scroll a tall board)."""
        self.link.swipe(x1, y1, x2, y2, ms)


def connect(serial: str | None = None) -> Phone:
    """The phone with this serial (default: the one connected), ready to be read and tapped; a
    phone missing, unauthorised or one of several unnamed raises a TapsolveError saying what to do."""
    from assistant.link import Link
    from assistant.phone.device import connect as open_phone
    from assistant.session import Session

    return Phone(Session(Link(open_phone(serial), say=log.info), say=log.info, keep=True))
