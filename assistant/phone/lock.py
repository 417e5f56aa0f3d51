"""One tapsolve touching a phone at a time: a lock per phone that the system lets go of when its
holder ends, however it ends (a file lock on a file in a per-user folder: ``solver.platforms``).

The lock is named after what the phone says it is (``Device.identity``), not the serial it was
reached by: one phone has several (127.0.0.1:P and localhost:P; LDPlayer's emulator-5554 and
127.0.0.1:5555), and two plays on it under two names would tap it at once."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shlex
import sys
from pathlib import Path

from solver import notes, platforms
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


def this_command() -> str:
    """This process's command line as the person typed it (`tapsolve play --serial X`, or the
    Python program that called the API), for the refusal of another that wants the phone."""
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"
    if program == "-c":
        return "python -c ..."
    if program in ("__main__.py", "tapsolve", "tapsolve.exe"):  # (`python -m assistant`, the entry point)
        program = "tapsolve"
    return " ".join(shlex.quote(word) for word in [program, *sys.argv[1:]])


# bytes of the lock file's text (pid, serial, command) kept: below the byte Windows locks
# (platforms.LOCK_AT), which a refused tapsolve could not read
TEXT_MAX = platforms.LOCK_AT - 1


class PhoneLock:
    """The lock of the phone ``serial`` (named by ``key``, what the phone says it is; the serial
    when not given): ``acquire`` or PhoneInUse; ``release`` (or the process's end) lets go. Held
    at most once per process (``hold``)."""

    def __init__(self, serial: str, key: str | None = None):
        self.serial = serial
        self.key = key or serial
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
            path = folder / file_name(self.key)
            try:
                fd = self._take(path)
            except OSError as exc:
                reasons.append(f"{path}: {exc.strerror or exc}")
                continue
            self.path, self._fd = path, fd
            return True
        notes.note(f"cannot keep the phone's lock (nowhere to write it: {'; '.join(reasons)}): "
                   "another tapsolve could tap on this phone at the same time", logging.WARNING)
        return False

    def _take(self, path: Path) -> int:
        """Lock the file at path and write in it our pid, the serial we reached the phone by and
        our command; PhoneInUse (naming the holder's) when another process has it."""
        while True:
            fd = platforms.open_lock_file(path)
            try:
                taken = platforms.try_lock(fd)
            except BaseException:
                os.close(fd)
                raise
            if not taken:
                holder, serial, command = _read_holder(fd)
                os.close(fd)
                what = f"pid {holder or 'unknown'}"
                if command:
                    what += f": `{command}`"
                if serial and serial != self.serial:
                    what += f", on the same phone as {serial}"
                # (`kill` is PowerShell's too: Stop-Process)
                raise PhoneInUse(
                    f"the phone {self.serial} is in use by another tapsolve ({what}): "
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
                text = f"{os.getpid()}\n{self.serial}\n{this_command()}".encode("utf-8", "replace")
                os.write(fd, text[:TEXT_MAX] + b"\n")
                return fd
            os.close(fd)

    def release(self) -> None:
        if self._fd is None:
            return
        platforms.unlock_and_remove(self._fd, self.path)
        self._fd = None


def _read_holder(fd: int) -> tuple[int | None, str, str]:
    """The holder's pid (None when unreadable), the serial it reached the phone by and its
    command ("" when it did not write them: an older tapsolve)."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        lines = os.read(fd, TEXT_MAX + 1).decode("utf-8", "replace").split("\n")
    except OSError:
        return None, "", ""
    pid, serial, command = (lines + ["", "", ""])[:3]
    pid = pid.strip()
    return (int(pid) if pid.isdigit() and pid.isascii() else None), serial.strip(), command.strip()


_held: dict[str, PhoneLock] = {}  # key -> this process's lock (a file lock conflicts with itself across opens)


def _names(phone) -> tuple[str, str]:
    """(serial, key) of a phone given as an ``assistant.phone.device.Device`` (its key what it
    says it is: ``identity``) or as a serial (its key the serial itself)."""
    from assistant.phone.device import Device

    if isinstance(phone, str):
        return phone, phone
    serial = phone.serial
    identity = phone.identity if isinstance(phone, Device) else serial  # (a stand-in device: its serial)
    return serial, identity if serial else ""


@contextlib.contextmanager
def hold(phone):
    """Hold the phone's lock for the block (already held by this process: kept as it is; a
    phone without a serial is not one the adb server lists: nothing to hold). ``phone``: a
    Device, or a serial."""
    serial, key = _names(phone)
    if not key or key in _held:
        yield
        return
    lock = PhoneLock(serial, key)
    lock.acquire()
    _held[key] = lock  # (one that could not be written is not tried, nor said, again)
    try:
        yield
    finally:
        _held.pop(key, None)
        lock.release()


def keep(phone) -> None:
    """Hold the phone's lock from now until this process ends (the guide, on its first touch).
    A phone that came back after a restart says it is another (a new boot): its lock is taken too."""
    serial, key = _names(phone)
    if key and key not in _held:
        lock = PhoneLock(serial, key)
        lock.acquire()
        _held[key] = lock


def let_go(phone) -> None:
    """Let go of the phone's lock held by ``keep`` (a Python API's phone closed)."""
    serial, key = _names(phone)
    lock = _held.pop(key, None)
    if lock is not None:
        lock.release()
