"""One tapsolve touching a phone at a time: a lock per phone that the system lets go of when its
holder ends, however it ends (a file lock on a file in a per-user folder: ``solver.platforms``)."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path

from solver import platforms
from solver.cache import cache_dir, private_temp
from solver.errors import TapsolveError


class PhoneInUse(TapsolveError):
    """Another tapsolve holds the phone's lock: it is tapping on it."""


def folders() -> list[Path]:
    """Where the locks may live, best first: the user's runtime folder (XDG_RUNTIME_DIR, on a
    tmpfs and the user's own), tapsolve's cache folder, this user's private folder under the
    temp folder (``solver.cache.private_temp``)."""
    out = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        out.append(Path(runtime) / "tapsolve")
    out.append(cache_dir() / "locks")
    temp = private_temp()  # (checked ours and closed to others, as the solver's cache is)
    if temp is not None:
        out.append(temp / "locks")
    return out


def _usable(folder: Path) -> bool:
    """The folder exists (made if need be, private) as a real folder of this user's."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return False
    # (under the shared temp folder another user could have made it first, or a symlink)
    return os.path.isdir(folder) and not os.path.islink(folder) and platforms.mine(info)


def file_name(serial: str) -> str:
    """The lock's file name for a serial (HOST:PORT, emulator-5554, a USB serial): safe characters only."""
    return "phone-" + re.sub(r"[^A-Za-z0-9._-]", lambda m: f"%{ord(m[0]):02X}", serial) + ".lock"


class PhoneLock:
    """The lock of the phone ``serial``: ``acquire`` or PhoneInUse; ``release`` (or the process's
    end) lets go. Held at most once per process (``hold``)."""

    def __init__(self, serial: str):
        self.serial = serial
        self.path: Path | None = None
        self._fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock: True, or False when no folder can hold it (said; play goes on
        unguarded rather than not at all). PhoneInUse when another tapsolve holds it."""
        reasons = []
        for folder in folders():
            if not _usable(folder):
                reasons.append(str(folder))
                continue
            path = folder / file_name(self.serial)
            try:
                fd = self._take(path)
            except OSError as exc:
                reasons.append(f"{path}: {exc.strerror or exc}")
                continue
            self.path, self._fd = path, fd
            return True
        print(f"tapsolve: cannot keep the phone's lock (nowhere to write it: {'; '.join(reasons)}): "
              "another tapsolve could tap on this phone at the same time", file=sys.stderr, flush=True)
        return False

    def _take(self, path: Path) -> int:
        """Lock the file at path and write our pid in it; PhoneInUse when another process has it."""
        while True:
            fd = platforms.open_lock_file(path)
            try:
                taken = platforms.try_lock(fd)
            except BaseException:
                os.close(fd)
                raise
            if not taken:
                holder = _read_pid(fd)
                os.close(fd)
                # (`kill` is PowerShell's too: Stop-Process)
                raise PhoneInUse(
                    f"the phone {self.serial} is in use by another tapsolve (pid {holder or 'unknown'}): "
                    f"wait for it to end, or stop it (Ctrl-C where it runs{f', or `kill {holder}`' if holder else ''}), "
                    "then run again")
            # the holder before us removes the file as it lets go: a lock on a file no longer
            # at the path guards nothing, so take the one there now
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, f"{os.getpid()}\n".encode())
                return fd
            os.close(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        platforms.unlock_and_remove(self._fd, self.path)
        self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 32).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and text.isascii() else None


_held: dict[str, PhoneLock] = {}  # serial -> this process's lock (a file lock conflicts with itself across opens)


@contextlib.contextmanager
def hold(serial: str):
    """Hold the phone's lock for the block (already held by this process: kept as it is; a
    phone without a serial is not one the adb server lists: nothing to hold)."""
    if not serial or serial in _held:
        yield
        return
    lock = PhoneLock(serial)
    lock.acquire()
    _held[serial] = lock  # (one that could not be written is not tried, nor said, again)
    try:
        yield
    finally:
        _held.pop(serial, None)
        lock.release()


def keep(serial: str) -> None:
    """Hold the phone's lock from now until this process ends (the guide, on its first touch)."""
    if serial and serial not in _held:
        lock = PhoneLock(serial)
        lock.acquire()
        _held[serial] = lock
