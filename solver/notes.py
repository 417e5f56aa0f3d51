"""What tapsolve says on its own as it works (an adb server started, the solver compiling, a lock
it cannot keep): one line on stderr from the command line, the ``tapsolve`` logger's from the
Python API (``logged``), which never prints."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading

log = logging.getLogger("tapsolve")

_api_calls = 0  # Python API calls under way in this process (``logged``): notes go to the logger
_count_lock = threading.Lock()


def logging_only() -> bool:
    """Whether notes go to the logger now (a Python API call is under way), not to stderr."""
    return _api_calls > 0


def note(message: str, level: int = logging.INFO) -> None:
    """A line for the person: "tapsolve: MESSAGE" on stderr (stdout may be JSON), or, within a
    Python API call, the ``tapsolve`` logger's record at ``level``."""
    if logging_only():
        log.log(level, message)
    else:
        print(f"tapsolve: {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def logged():
    """Within it, notes are the ``tapsolve`` logger's, never printed (a Python API call)."""
    global _api_calls
    with _count_lock:
        _api_calls += 1
    try:
        yield
    finally:
        with _count_lock:
            _api_calls -= 1
