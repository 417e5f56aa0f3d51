"""tapsolve's cache folder: tables and drawings built once per machine, written so a crash or a
second process never leaves half a file."""

from __future__ import annotations

import contextlib
import os
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
