"""Runs tapsolve as on Windows or macOS, as far as a Linux machine can:
``python tests/fakeplatform.py windows|macos (-m MODULE | -c CODE) [ARG...]``.

The libraries tapsolve uses are imported first, as they are here: each ships a build for each
system and picks its branch as it is imported (numba's configuration, OpenCV's loader, PyAV),
and that choice is theirs, not tapsolve's. Then the interpreter says it is the other system:
``sys.platform`` and ``os.name``; on Windows, too, the POSIX-only modules (fcntl, termios,
resource, pwd, grp) cannot be imported, the POSIX-only calls of ``os`` and ``signal`` are gone,
``msvcrt`` is there, and subprocess takes and refuses what Windows' does. Only then are
tapsolve's modules imported, for the first time, so each of its choices is made as there.

What stays Linux's (what this cannot prove): the file system and its paths (pathlib's Path stays
a PosixPath, os.path posixpath: no drive letters, no backslashes), the programs run (Linux's adb
and tesseract), what Windows' process flags do (a "detached process" here is a session of its
own; Ctrl-C and a closed console are not sent), the shell's known folders (%LOCALAPPDATA% and
the like answer for them), and the lock (``msvcrt.locking`` here is a POSIX
record lock on the same byte, not LockFileEx).
"""

import errno
import os
import runpy
import subprocess
import sys

SYSTEMS = {"windows": ("win32", "nt"), "macos": ("darwin", "posix")}
POSIX_ONLY_MODULES = ("fcntl", "termios", "resource", "pwd", "grp")
# what Windows' os and signal modules lack that a program might reach for (CPython's
# Modules/posixmodule.c and signalmodule.c build them on POSIX only)
POSIX_ONLY_OS = ("getuid", "geteuid", "getgid", "getegid", "getpgid", "getpgrp", "setsid", "setpgrp",
                 "killpg", "fork", "pread", "pwrite", "getloadavg", "sched_getaffinity", "nice",
                 "O_NOFOLLOW", "O_CLOEXEC", "O_NONBLOCK")
POSIX_ONLY_SIGNAL = ("SIGKILL", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGCHLD",
                     "alarm", "setitimer", "pause", "killpg")
# the libraries imported as they are on Linux (their own platform choices are not under test)
LIBRARIES = ("numpy", "numba", "numba.core.caching", "numba.core.event", "numba.core.runtime", "llvmlite",
             "cv2", "PIL.Image", "PIL.ImageDraw", "PIL.ImageFont", "av", "adbutils", "pytesseract", "requests")
# Windows' process creation flags (Lib/subprocess.py, from _winapi)
CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS, CREATE_NO_WINDOW = 0x200, 0x8, 0x08000000


class Blocked:
    """A meta-path finder under which the POSIX-only modules do not exist, as on Windows."""

    def find_spec(self, name, path=None, target=None):
        if name in POSIX_ONLY_MODULES:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def windows_subprocess(real_kill_signal: int) -> None:
    """subprocess as Windows' (Lib/subprocess.py, its _mswindows branches): STARTUPINFO and the
    creation flags exist; preexec_fn is refused, start_new_session is ignored; kill and terminate
    both end the process at once (TerminateProcess); the flags that set a process apart make it
    a session of its own here, the nearest Linux has."""
    real = subprocess.Popen

    class STARTUPINFO:
        def __init__(self, **kwargs):
            self.dwFlags, self.wShowWindow = 0, 0
            self.__dict__.update(kwargs)

    class Popen(real):
        def __init__(self, args, *more, preexec_fn=None, start_new_session=False, creationflags=0,
                     startupinfo=None, **options):
            if preexec_fn is not None:
                raise ValueError("preexec_fn is not supported on Windows platforms")
            unknown = creationflags & ~(CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS | CREATE_NO_WINDOW)
            if unknown:
                raise ValueError(f"creation flags {unknown:#x} are not modelled here")
            apart = bool(creationflags & (CREATE_NEW_PROCESS_GROUP | DETACHED_PROCESS))
            super().__init__(args, *more, start_new_session=apart, **options)

        def send_signal(self, sig):
            if sig != getattr(__import__("signal"), "SIGTERM"):
                raise ValueError(f"Unsupported signal: {sig}")
            self.kill()

        def kill(self):
            if self.returncode is None:
                try:
                    os.kill(self.pid, real_kill_signal)
                except ProcessLookupError:
                    pass

        terminate = kill

    subprocess.Popen = Popen
    subprocess.STARTUPINFO = STARTUPINFO
    subprocess.STARTF_USESHOWWINDOW, subprocess.SW_HIDE = 1, 0
    subprocess.CREATE_NEW_PROCESS_GROUP, subprocess.DETACHED_PROCESS = CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS
    subprocess.CREATE_NO_WINDOW = CREATE_NO_WINDOW


def windows_msvcrt() -> None:
    """``msvcrt`` with ``locking`` (from the file position, ``nbytes`` long, EACCES when another
    holds it: Microsoft's ``_locking``), over POSIX record locks of the same bytes."""
    import fcntl
    import types

    def locking(fd, mode, nbytes):
        at = os.lseek(fd, 0, os.SEEK_CUR)
        if mode == 0:  # LK_UNLCK
            fcntl.lockf(fd, fcntl.LOCK_UN, nbytes, at)
            return
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | (fcntl.LOCK_NB if mode in (2, 4) else 0), nbytes, at)
        except OSError:
            raise PermissionError(errno.EACCES, "Permission denied") from None

    msvcrt = types.ModuleType("msvcrt")
    msvcrt.locking, msvcrt.LK_UNLCK, msvcrt.LK_LOCK, msvcrt.LK_NBLCK, msvcrt.LK_RLCK, msvcrt.LK_NBRLCK = \
        locking, 0, 1, 2, 3, 4
    sys.modules["msvcrt"] = msvcrt


def pose(system: str) -> None:
    """Make this interpreter say it runs on ``system`` (the module's docstring says how far)."""
    import importlib
    import pathlib
    import signal
    import tempfile

    for name in LIBRARIES:
        importlib.import_module(name)
    tempfile.gettempdir()  # (chosen as here: Windows' candidates are Windows paths)
    platform, os_name = SYSTEMS[system]
    if system == "windows":
        windows_msvcrt()
        windows_subprocess(signal.SIGKILL)
        for name in POSIX_ONLY_MODULES:
            sys.modules.pop(name, None)
        sys.meta_path.insert(0, Blocked())
        for module, names in ((os, POSIX_ONLY_OS), (signal, POSIX_ONLY_SIGNAL)):
            for name in names:
                if hasattr(module, name):
                    delattr(module, name)
        # Windows' own open flags: no text mode (O_BINARY) and no inheritance (O_NOINHERIT) are what
        # Linux's descriptors do anyway, as far as these tests look
        os.O_BINARY = os.O_NOINHERIT = 0
        # the files are Linux's: pathlib keeps making POSIX paths when os.name says "nt"
        home = sys.modules[pathlib.Path.__module__]
        home.WindowsPath, home.PureWindowsPath = home.PosixPath, home.PurePosixPath
    # platformdirs picks its system as it is imported: it must be imported as the system faked
    for name in [n for n in sys.modules if n == "platformdirs" or n.startswith("platformdirs.")]:
        del sys.modules[name]
    sys.platform, os.name = platform, os_name
    if system == "windows":
        # the shell's known folders (SHGetKnownFolderPath) are not here: %LOCALAPPDATA% and the
        # like, which name the same folders on Windows, answer for them
        from platformdirs import windows

        windows._RESOLVE_WIN_FOLDER = windows.get_win_folder_from_env_vars


def main() -> None:
    system, how, what, *args = sys.argv[1:]
    pose(system)
    sys.path.insert(0, os.getcwd())
    if how == "-m":
        sys.argv = [what, *args]
        runpy.run_module(what, run_name="__main__", alter_sys=True)
    else:
        sys.argv = ["-c", *args]
        exec(compile(what, "<fakeplatform>", "exec"), {"__name__": "__main__"})


if __name__ == "__main__":
    main()
