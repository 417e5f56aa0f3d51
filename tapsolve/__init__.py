"""tapsolve from Python: read a screenshot, solve a board, read, tap and play a phone.

Each call gives what the matching command's ``--json`` prints, as a dict (docs/json.md lists
every key); every error is a ``TapsolveError`` whose message names the problem and what to do
(bad arguments: its subclass ``InputError``). Nothing is printed: what a call says as it goes (a
phone lost and back, an adb server started, the solver compiling) is the ``tapsolve`` logger's.
Images are OpenCV's: numpy arrays in BGR order, as ``cv2.imread`` gives and ``cv2.imwrite`` takes.
The README's "From Python" shows them at work (tests/test_api.py runs it).
"""

from __future__ import annotations

import functools
import logging
import math
import numbers
import os

from solver.errors import BoardChanged, InputError, TapsolveError
from solver.notes import log, logged

__all__ = ["read", "solve", "connect", "play", "Phone", "TapsolveError", "InputError", "PhoneCameBack",
           "__version__"]

log.addHandler(logging.NullHandler())  # (a library's logger: silent unless the program sets up logging)

try:
    from importlib.metadata import PackageNotFoundError, version as _version

    __version__ = _version("tapsolve")
except PackageNotFoundError:  # a checkout that is not installed: pyproject.toml's
    __version__ = "0.1.0"

MAX_BUDGET = 3600.0  # seconds a solve may be given to search: an hour is past any board's need
MAX_SWIPE_MS = 10_000  # a swipe's duration: longer is no gesture a game needs (a scroll takes 0.3 s)


class PhoneCameBack(BoardChanged):
    """The phone went away during a touch (or since the last look) and came back: the touch may
    not have landed, and what came back may show another screen; look again before touching."""


def _api(call):
    """A public call: what it says goes to the logger, and it raises only TapsolveErrors."""
    @functools.wraps(call)
    def wrapped(*args, **kwargs):
        with logged():
            return call(*args, **kwargs)
    return wrapped


def _number(value, what: str) -> float:
    """``value`` as a finite float, or InputError naming ``what`` it should be."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not math.isfinite(value):
        raise InputError(f"{what} is a finite number, not {value!r}")
    return float(value)


def _game(game) -> str:
    """``game`` checked: "auto" or one of the games tapsolve knows (InputError otherwise)."""
    from solver import games as registry

    if game != "auto" and game not in registry.NAMES:
        raise InputError(f"no game {game!r}: use auto or one of {', '.join(registry.NAMES)}")
    return game


def _plan_options(objective, budget) -> float:
    """A plan's ``objective`` and ``budget`` checked: the budget as a float."""
    if objective not in ("fast", "score"):
        raise InputError(f"no objective {objective!r}: use fast or score")
    budget = _number(budget, "the budget (seconds to search)")
    if not 0 < budget <= MAX_BUDGET:
        raise InputError(f"the budget is seconds to search, more than 0 and at most {MAX_BUDGET:g}, not {budget:g}")
    return budget


def _play_options(game, stages, objective, budget, max_moves) -> float:
    """``play``'s arguments checked (before the phone is looked for): the budget as a float."""
    _game(game)
    for value, what in ((stages, "stages"), (max_moves, "max_moves")):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise InputError(f"{what} is a whole number, 1 or more, not {value!r}")
    return _plan_options(objective, budget)


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


@_api
def read(image, game: str = "auto") -> dict:
    """Read a screenshot (a file path, or a BGR numpy array): what `tapsolve read --json` prints,
    ``game``, ``screen``, ``board``, the cells' ``[x, y]``..., a value not read for sure null."""
    import vision

    return vision.read(_rgb(image), _game(game)).to_json()


@_api
def solve(board, game: str | None = None, objective: str = "fast", budget: float = 1.0) -> dict:
    """The moves for a board as ``read`` gives it (its ``board``, or the whole reading) or as board
    text with its ``game`` ("467956239 385113145", "315927486", "1 2 3, 4 5 6, _ 7 8"): what
    `tapsolve solve GAME --json` prints. ``objective`` (Number Match): "fast", the fewest adds
    and moves, or "score", the most points; ``budget``: seconds to search at most."""
    from solver import games as registry

    if isinstance(board, dict) and "board" not in board and "screen" in board:
        raise InputError(f"the reading has no board to solve (it shows the {board['screen']} screen)")
    if isinstance(board, dict) and "board" in board:
        board = board["board"]
    if isinstance(board, dict):
        game = game or board.get("game")
    if not isinstance(board, (str, dict)) or game is None:
        raise InputError("give a board as tapsolve.read(...) gives it, or as text with its game: "
                         f"solve(text, game=...), the game one of {', '.join(registry.NAMES)}")
    budget = _plan_options(objective, budget)
    if not isinstance(game, str):
        raise InputError(f"a game is one of {', '.join(registry.NAMES)}, not {game!r}")
    return registry.module("assistant.games", game).solve_json(board, objective=objective, budget=budget)


class Phone:
    """A phone over ADB (``connect``): its screen once it has stopped changing, read, tapped,
    played. A context manager: ``with tapsolve.connect() as phone:`` closes it at the end."""

    def __init__(self, session):
        self.session = session  # an assistant.session.Session: a stored reading profile ...
        self.link = session.link  # ... and its assistant.link.Link: captures, touches, reconnects
        self.closed = False

    def __enter__(self) -> Phone:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<tapsolve.Phone {self.serial}{' (closed)' if self.closed else ''}>"

    @property
    def serial(self) -> str:
        return self.link.device.serial

    @property
    def model(self) -> str:
        with logged():
            return self._open().device.model

    def _open(self):
        """The link, or TapsolveError once the phone is closed."""
        if self.closed:
            raise TapsolveError(f"the phone {self.serial} was closed: connect to it again (tapsolve.connect)")
        return self.link

    def _point(self, x, y) -> tuple[float, float]:
        """(x, y) checked: finite numbers on the screen (pixels of the screenshot)."""
        x, y = _number(x, "a point's x (a screenshot pixel)"), _number(y, "a point's y (a screenshot pixel)")
        link = self._open()
        width, height = link._again(lambda: link.device.size)  # (a phone gone: waited for, as a tap is)
        if not (0 <= x < width and 0 <= y < height):
            raise InputError(f"({x:g}, {y:g}) is off the screen, which is {width}x{height} pixels "
                             "(the screenshot's): give a point on it")
        return x, y

    def _touch(self, send) -> None:
        """Send a touch; one the phone went away during (or since the last look) raises PhoneCameBack."""
        link = self._open()
        before = link.reconnects
        try:
            send(link)
        except BoardChanged:
            came_back = True
        else:
            came_back = link.reconnects != before
        if came_back:
            raise PhoneCameBack(f"the phone {self.serial} went away and came back: the touch may not have "
                                "landed and its screen may have changed; look again (read or screenshot) "
                                "before the next touch")

    @_api
    def screenshot(self):
        """The screen once it has stopped changing, a BGR numpy array (``cv2.imwrite`` saves it)."""
        return self._open().capture()[:, :, ::-1].copy()

    @_api
    def read(self, game: str = "auto") -> dict:
        """Read the screen as it is once it has stopped changing: as ``tapsolve.read`` does, with
        the phone's stored reading profile (faster, and what it learns is kept for the next time)."""
        self._open()
        return self.session.look(_game(game))[1].to_json()

    @_api
    def tap(self, x, y) -> None:
        """Tap the screen at the screenshot's pixel (x, y): a cell's ``[x, y]`` from ``read``.
        Returns once the phone has taken it; a phone that went away is waited for (30 s, as
        `play` waits), then PhoneCameBack: the tap is not sent again blind."""
        x, y = self._point(x, y)
        self._touch(lambda link: link.tap(x, y))

    @_api
    def swipe(self, x1, y1, x2, y2, ms=400) -> None:
        """Swipe from (x1, y1) to (x2, y2) over ``ms`` milliseconds (scroll a tall board)."""
        (x1, y1), (x2, y2) = self._point(x1, y1), self._point(x2, y2)
        ms = _number(ms, "a swipe's duration (milliseconds)")
        if not 0 <= ms <= MAX_SWIPE_MS:
            raise InputError(f"a swipe takes 0 to {MAX_SWIPE_MS} ms, not {ms:g}")
        self._touch(lambda link: link.swipe(x1, y1, x2, y2, round(ms)))

    @_api
    def key(self, name: str) -> None:
        """Press a system key by its Android name: "BACK", "HOME", "APP_SWITCH", "ENTER"... (or
        "KEYCODE_BACK"), as `adb shell input keyevent` does."""
        code = _key_name(name)
        self._touch(lambda link: link.key(code))

    def back(self) -> None:
        """Press BACK (close a dialog, leave an ad)."""
        self.key("BACK")

    @_api
    def shell(self, command: str) -> str:
        """Run a shell command on the phone (`adb shell COMMAND`): its output, as text."""
        if not isinstance(command, str) or not command.strip() or "\0" in command:
            raise InputError(f"a shell command is text, not {command!r}")
        return self._open().shell(command)

    @_api
    def play(self, game: str = "auto", stages: int = 1, objective: str = "fast", budget: float = 1.0,
             max_moves: int | None = None) -> dict:
        """Play the board on screen to its end as `tapsolve play` does (``stages`` boards, for a
        game that goes on; ``max_moves``: stop after that many): what it did, as a dict with
        ``game``, ``stages`` cleared, ``moves``, ``repeats`` (moves sent again), ``replans``
        and ``stopped`` (Ctrl-C)."""
        from assistant import autoplay
        from assistant.loop import Loop

        budget = _play_options(game, stages, objective, budget, max_moves)
        self._open()
        loop = Loop(self.session, game=game, objective=objective, budget=budget, say=log.info)
        code = autoplay.play(loop, stages=stages, say=log.info, status=log.info, max_moves=max_moves)
        tally = loop.tally
        return {"game": loop.game.name if loop.game else None, "stages": tally.stages, "moves": tally.moves,
                "repeats": tally.repeats, "replans": tally.replans, "stopped": code == 130}

    def close(self) -> None:
        """Let go of the phone: stop what was started on it (the scrcpy server) and its lock.
        Closing twice does nothing."""
        if self.closed:
            return
        self.closed = True
        from assistant.phone import lock

        device = self.link.device
        lock.let_go(device)
        device.close()


def _key_name(name) -> str:
    """A key's name checked and made Android's ("back" -> "KEYCODE_BACK"), or InputError."""
    from assistant.phone.scrcpy.control import KEYCODES

    text = name.strip().upper() if isinstance(name, str) else ""
    text = text if text.startswith("KEYCODE_") else "KEYCODE_" + text
    if text not in KEYCODES:
        raise InputError(f"no key {name!r}: one of {', '.join(k.removeprefix('KEYCODE_') for k in KEYCODES)}")
    return text


def _serial(serial) -> str | None:
    """``serial`` checked: None (the one phone connected) or the text adb lists."""
    if serial is None:
        return None
    if not isinstance(serial, str) or not serial.strip() or any(c.isspace() or c == "\0" for c in serial):
        raise InputError(f"a serial is the text `tapsolve devices` lists (\"emulator-5554\", "
                         f"\"192.168.1.20:5555\"), not {serial!r}")
    return serial


@_api
def connect(serial: str | None = None) -> Phone:
    """The phone with this serial (default: the one connected), ready to be read and tapped; a
    phone missing, unauthorised or one of several unnamed raises a TapsolveError saying what to do."""
    from assistant.link import Link
    from assistant.phone.device import connect as open_phone
    from assistant.session import Session

    serial = _serial(serial)
    return Phone(Session(Link(open_phone(serial), say=log.info), say=log.info, keep=True))


@_api
def play(serial: str | None = None, game: str = "auto", stages: int = 1, objective: str = "fast",
         budget: float = 1.0, max_moves: int | None = None) -> dict:
    """Connect to the phone (as ``connect``), play it (as ``Phone.play``) and close it."""
    _play_options(game, stages, objective, budget, max_moves)
    with connect(serial) as phone:
        return phone.play(game, stages=stages, objective=objective, budget=budget, max_moves=max_moves)
