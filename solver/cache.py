"""tapsolve's cache folder: tables and drawings built once per machine, written so a crash or a
second process never leaves half a file."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from solver import platforms


def usable(folder: Path) -> bool:
    """Whether files can be kept in ``folder`` (made if missing): numba's own test of a cache
    folder (numba/core/caching.py, _CacheLocator.ensure_cache_path: makedirs, then a temporary
    file in it)."""
    try:
        os.makedirs(folder, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def private_temp() -> Path | None:
    """This user's own folder in the temporary folder, for when no home folder can be written (a
    system-wide install run by a user without one); None when that name is taken by someone else:
    what is kept there is loaded as code (numba's cache), so it must be ours and closed to others."""
    try:
        folder = Path(tempfile.gettempdir()) / f"tapsolve-{platforms.user_tag()}"
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or not platforms.mine(info) or not platforms.closed_to_others(info):
        return None
    return folder


@functools.lru_cache(maxsize=8)
def _first_usable(folder: str) -> Path:
    wanted = Path(folder)
    if usable(wanted):
        return wanted
    temp = private_temp()
    return temp if temp is not None and usable(temp) else wanted


def cache_dir() -> Path:
    """tapsolve's cache folder (``platforms.cache_folder``: $XDG_CACHE_HOME/tapsolve,
    ~/.cache/tapsolve by default, on Linux), or this user's private folder in the temporary folder
    when that one cannot be written (then still the first, when neither can: keeping files there
    fails, and ``keep``'s callers go on without)."""
    return _first_usable(str(platforms.cache_folder()))


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


def _checked_array(file, stored: int, max_bytes: int) -> np.ndarray:
    """The array of an open .npy stream holding ``stored`` bytes, its header checked before any
    memory is taken: a known version, a plain dtype (no objects: no pickles), and a size both
    within ``max_bytes`` and equal to what the file holds (NEP 1, the .npy format: magic, version,
    a header dict of descr, fortran_order and shape; numpy/lib/format.py reads it so). A header
    that claims a terabyte is a ValueError here, not an allocation."""
    fmt = np.lib.format
    version = fmt.read_magic(file)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ValueError(f"an .npy file of version {version}")
    read_header = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
    shape, fortran, dtype = read_header(file)
    if dtype.hasobject or dtype.itemsize == 0 or any(not isinstance(n, int) or n < 0 for n in shape):
        raise ValueError("an .npy header of another kind")
    count = math.prod(shape)
    size = count * dtype.itemsize
    if size > max_bytes or size != stored - file.tell():
        raise ValueError(f"an .npy header claiming {size} bytes where the file holds {stored - file.tell()}")
    data = bytearray(size)  # read into, not read and copied: the array is writable and made once
    if file.readinto(data) != size:
        raise ValueError("an .npy file cut short")
    array = np.frombuffer(data, dtype=dtype, count=count)
    return array.reshape(shape[::-1]).transpose() if fortran else array.reshape(shape)


def load_array(path: Path, max_bytes: int) -> np.ndarray:
    """A .npy array kept in the cache folder, checked before it is allocated (``_checked_array``);
    OSError or ValueError when it is missing or damaged, for the caller to build it again."""
    with open(path, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path} is not a regular file")
        return _checked_array(file, info.st_size, max_bytes)


def load_arrays(path: Path, max_bytes: int) -> dict[str, np.ndarray]:
    """Each array of an .npz kept in the cache folder, checked as ``load_array`` checks one;
    OSError or ValueError (zipfile.BadZipFile is one) when missing or damaged."""
    import zipfile
    import zlib

    if not path.is_file():
        raise FileNotFoundError(path)
    out = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.filename.endswith(".npy") or info.file_size > max_bytes + 4096:
                    raise ValueError(f"{path}: an archive member {info.filename!r} of another kind")
                with archive.open(info) as member:
                    out[info.filename[:-4]] = _checked_array(member, info.file_size, max_bytes)
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError) as exc:
        raise ValueError(f"{path}: a damaged archive ({exc})") from None
    return out


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
