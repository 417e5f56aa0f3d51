"""tapsolve's cache folder: tables and drawings built once per machine, written so a crash or a
second process never leaves half a file."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Callable


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tapsolve"


def keep(path: Path, write: Callable[[Path], None]) -> OSError | None:
    """Store a file by ``write``-ing a private copy beside ``path`` and renaming it over; the
    OSError when the folder cannot be written (a table's caller ignores it: built again next time)."""
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        return exc
    return None


class Progress:
    """A build's progress on stderr (stdout may be JSON): "tapsolve: building X [####....] 1/3",
    redrawn in place on a terminal, a line a step otherwise. ``weights``: each step's share."""

    WIDTH = 20  # with its words, the line fits an 80-column terminal (a wrapped line is not redrawn in place)

    def __init__(self, what: str, weights: list[float]):
        self.what, self.weights, self.done = what, weights, 0
        self.tty, self.last = sys.stderr.isatty(), None
        self.show()

    def step(self) -> None:
        self.done += 1
        self.show()

    def show(self) -> None:
        share = sum(self.weights[:self.done]) / sum(self.weights)
        filled = round(self.WIDTH * share)
        line = f"tapsolve: {self.what} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {share:.0%}"
        if self.tty:
            print(f"\r{line}", end="\n" if self.done == len(self.weights) else "", file=sys.stderr, flush=True)
        elif line != self.last:  # a log gets a line a change
            print(line, file=sys.stderr, flush=True)
        self.last = line
