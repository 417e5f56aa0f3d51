"""What differs between Windows, macOS and Linux, kept here so that the rest of tapsolve is the same everywhere.

tapsolve's folders (config, cache, state and log, through platformdirs: XDG on Linux, ~/Library on macOS, %LOCALAPPDATA% on
Windows), where installed fonts are, whether a folder is this user's own, the file lock behind the per-phone lock, the
options that start a process the terminal's Ctrl-C does not reach, whether a window needs an X
server, and a process's peak memory. The POSIX-only modules and calls (fcntl, os.getuid, sessions,
resource) appear in this module only; tests/test_platforms.py runs tapsolve on a faked Windows and
macOS to keep it so.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from pathlib import Path

WINDOWS = sys.platform == "win32"
MACOS = sys.platform == "darwin"
LINUX = sys.platform.startswith("linux")
SYSTEM = "windows" if WINDOWS else "macos" if MACOS else "linux"  # (the other Unixes as Linux)
# OpenCV's window is Qt's xcb plugin on an X server on Linux (the opencv-python wheel's only
# one); its Windows and macOS wheels draw with the system's own windows (Win32, Cocoa)
X11 = not WINDOWS and not MACOS

APP = "tapsolve"


# -- folders ---------------------------------------------------------------------------------------

def cache_folder() -> Path:
    """Where tapsolve keeps what it builds once per machine: $XDG_CACHE_HOME/tapsolve
    (~/.cache/tapsolve) on Linux, ~/Library/Caches/tapsolve on macOS, %LOCALAPPDATA%\\tapsolve\\Cache
    on Windows. Only named: nothing is made."""
    import platformdirs  # (imported when asked: some 8 ms a start that needs no folder does without)

    return Path(platformdirs.user_cache_dir(APP, appauthor=False))


def config_folder() -> Path:
    """Where tapsolve keeps what it learns about a person's phones: $XDG_CONFIG_HOME/tapsolve
    (~/.config/tapsolve) on Linux, ~/Library/Application Support/tapsolve on macOS,
    %LOCALAPPDATA%\\tapsolve on Windows. Only named: nothing is made."""
    import platformdirs

    return Path(platformdirs.user_config_dir(APP, appauthor=False, roaming=False))


def state_folder() -> Path:
    """Where tapsolve keeps what its runs leave behind (the recordings of runs that went wrong):
    $XDG_STATE_HOME/tapsolve (~/.local/state/tapsolve) on Linux, ~/Library/Application
    Support/tapsolve on macOS, %LOCALAPPDATA%\\tapsolve on Windows. Only named: nothing is made."""
    import platformdirs

    return Path(platformdirs.user_state_dir(APP, appauthor=False, roaming=False))


def log_folder() -> Path:
    """Where tapsolve writes the log of its runs: $XDG_STATE_HOME/tapsolve/log on Linux,
    ~/Library/Logs/tapsolve on macOS, %LOCALAPPDATA%\\tapsolve\\Logs on Windows. Only named."""
    import platformdirs

    return Path(platformdirs.user_log_dir(APP, appauthor=False))


# the setting that moves those folders, for a line that says one cannot be written: XDG's on
# Linux and macOS (platformdirs reads them there), its own override of the local AppData folder on
# Windows (platformdirs, windows.py get_win_folder: WIN_PD_OVERRIDE_<the folder's CSIDL name>)
CACHE_SETTING = "WIN_PD_OVERRIDE_LOCAL_APPDATA" if WINDOWS else "XDG_CACHE_HOME"
CONFIG_SETTING = "WIN_PD_OVERRIDE_LOCAL_APPDATA" if WINDOWS else "XDG_CONFIG_HOME"
STATE_SETTING = "WIN_PD_OVERRIDE_LOCAL_APPDATA" if WINDOWS else "XDG_STATE_HOME"


def user_tag() -> str:
    """A name for this user among the temporary folder's entries (the folder is shared on POSIX,
    the user's own on Windows: %LOCALAPPDATA%\\Temp)."""
    return "user" if WINDOWS else str(os.getuid())


def mine(info: os.stat_result) -> bool:
    """Whether a file's ``os.lstat`` says it is this user's. Windows says nothing by it (st_uid is
    0): the folders used there are the user's own by where they are (AppData, its temp folder)."""
    return WINDOWS or info.st_uid == os.getuid()


def closed_to_others(info: os.stat_result) -> bool:
    """Whether a folder's mode keeps other users out (on Windows its mode is made up from the
    read-only flag and says nothing: there, as in ``mine``, where the folder is says it)."""
    return WINDOWS or not info.st_mode & 0o077


# -- files ---------------------------------------------------------------------------------------

# ``os.open`` flags to read a file as it is: Windows' C runtime opens a descriptor in text mode
# (CRLF read as LF, Ctrl-Z as the end) unless O_BINARY; on POSIX, O_NONBLOCK, so that a path
# swapped for a pipe since it was looked at is not waited on
READ_FLAGS = os.O_RDONLY | (os.O_BINARY if WINDOWS else os.O_NONBLOCK)


def font_folders() -> list[Path]:
    """Where this system keeps installed fonts, best first: Linux's TrueType folder (its font
    packages put each family in a folder of its own); Windows' Fonts folder, then one user's;
    macOS's for one user (where Homebrew's font casks put them), then for all."""
    if WINDOWS:
        local = os.environ.get("LOCALAPPDATA")
        return [Path(os.environ.get("WINDIR") or "C:\\Windows", "Fonts"),
                *([Path(local, "Microsoft", "Windows", "Fonts")] if local else [])]
    if MACOS:
        return [Path.home() / "Library" / "Fonts", Path("/Library/Fonts")]
    return [Path("/usr/share/fonts/truetype")]


# -- the phone lock's file lock --------------------------------------------------------------------

# a Windows lock keeps other processes from the bytes it covers, even from reading them (Microsoft's
# C runtime reference, ``_locking``: "Locking bytes in a file prevents access to those bytes by other
# processes"; it may cover bytes past the end of the file): the byte locked lies past the holder's
# pid at the file's start, which a refused tapsolve reads to say who holds the phone
LOCK_AT = 64

# the lock file: never a symlink's target, nor inherited by the processes tapsolve starts
LOCK_FILE_FLAGS = os.O_RDWR | os.O_CREAT | (os.O_NOINHERIT | os.O_BINARY if WINDOWS else os.O_CLOEXEC | os.O_NOFOLLOW)


def open_lock_file(path: Path) -> int:
    return os.open(path, LOCK_FILE_FLAGS, 0o600)


def try_lock(fd: int) -> bool:
    """Lock the open file ``fd`` without waiting: False when another process holds it. The
    system lets go when the holder ends, however it ends: flock's lock goes with the file's last
    descriptor; on Windows ``msvcrt.locking`` is LockFileEx, whose locks the system releases when
    the process ends (Microsoft's LockFileEx remarks; the C runtime's lowio/locking.cpp)."""
    if WINDOWS:
        import msvcrt

        os.lseek(fd, LOCK_AT, os.SEEK_SET)  # (msvcrt.locking locks from the file position)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError as exc:  # EACCES: "locking violation (file already locked)" (``_locking``)
            if exc.errno in (errno.EACCES, errno.EDEADLK):
                return False
            raise
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock_and_remove(fd: int, path: Path) -> None:
    """Let go of the lock on ``fd`` and remove its file. On POSIX the file is removed while still
    held, so that nobody takes a file on its way out; Windows removes no file that is open
    anywhere (Python opens files without FILE_SHARE_DELETE), so there it is closed first and
    removed only when no other tapsolve has opened it meanwhile (that one then keeps it)."""
    if WINDOWS:
        os.close(fd)  # (closing a file releases its locks)
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    with contextlib.suppress(OSError):
        os.unlink(path)
    os.close(fd)


# -- processes -------------------------------------------------------------------------------------

def apart() -> dict:
    """``subprocess.Popen`` options for a process of its own: the terminal's Ctrl-C does not reach
    it (tapsolve stops it in order, or leaves it running, as adb leaves its server). On POSIX a
    session of its own; on Windows no console (a console's Ctrl-C and its closing go to every
    process attached to it), as adb starts its own server (AOSP adb, adb.cpp ``launch_server``:
    CreateProcessW with DETACHED_PROCESS), and a process group of its own."""
    if WINDOWS:
        import subprocess  # (its Windows flags; imported when a process is started, as its callers have)

        return {"creationflags": subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def peak_memory_mib() -> float | None:
    """This process's peak resident memory in MiB; None on Windows, where the standard library
    cannot ask (getrusage's ru_maxrss is in KiB on Linux, in bytes on macOS: getrusage(2))."""
    if WINDOWS:
        return None
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20 if MACOS else 1 << 10)
