"""Whether a window can be opened on this computer's display, asked before Qt is started.

OpenCV's window is Qt's, through its xcb (X11) plugin, the only one the opencv-python wheel
ships: when that plugin cannot connect to $DISPLAY, Qt ends the process with qFatal ("could not
connect to display", then "no Qt platform plugin could be initialized": SIGABRT), leaving no
chance to say why or to stop what was started. So the X server is reached here first, as libxcb
reaches it (libxcb src/xcb_util.c, _xcb_open/_xcb_open_unix/_xcb_open_tcp): DISPLAY is
[host]:number[.screen] (X(7)); no host (or "unix") is the local socket /tmp/.X11-unix/X<number>
(on Linux first as an abstract socket of that name), a host is TCP port 6000 + number, and a
DISPLAY starting with "/" is a socket path itself (launchd's). On Windows and macOS OpenCV's
window is the system's own (``solver.platforms.X11``): there is nothing to ask first.
"""

from __future__ import annotations

import os
import re
import socket
from pathlib import PurePosixPath

from solver import platforms

X_TCP_PORT = 6000
X_UNIX_DIR = "/tmp/.X11-unix"
CONNECT_TIMEOUT = 2.0  # seconds for the X server to accept: a remote display past this is unusable anyway


def _x_server_answers(display: str) -> bool:
    """Whether something accepts a connection where libxcb would connect for ``display``."""
    match = re.fullmatch(r"(.*):(\d+)(?:\.\d+)?", display)
    if not match:
        return False
    host, number = match.group(1), int(match.group(2))
    if host.startswith("/"):
        targets = [(socket.AF_UNIX, host)]
    elif host in ("", "unix"):
        path = str(PurePosixPath(X_UNIX_DIR, f"X{number}"))
        targets = ([(socket.AF_UNIX, "\0" + path)] if platforms.LINUX else []) + [(socket.AF_UNIX, path)]
    else:
        targets = [(None, (host.removeprefix("tcp/"), X_TCP_PORT + number))]
    for family, address in targets:
        try:
            if family is None:
                socket.create_connection(address, timeout=CONNECT_TIMEOUT).close()
            else:
                with socket.socket(family, socket.SOCK_STREAM) as conn:
                    conn.settimeout(CONNECT_TIMEOUT)
                    conn.connect(address)
            return True
        except OSError:
            continue
    return False


def present() -> bool:
    """Whether this computer has a display to show a window on at all (one that cannot be used
    is ``problem``'s to say)."""
    return not platforms.X11 or bool(os.environ.get("DISPLAY"))


def problem(what: str = "--no-window") -> str | None:
    """None when a window can be opened; otherwise the one line why, suggesting ``what``."""
    if not platforms.X11:
        return None
    if os.environ.get("QT_QPA_PLATFORM", "xcb") not in ("xcb", ""):
        return None  # another Qt platform chosen by the user: theirs to know
    display = os.environ.get("DISPLAY")
    if not display:
        return f"no display for a window (DISPLAY is not set): run it on a desktop, or use {what}"
    if not _x_server_answers(display):
        return f"the display {display} cannot be used (no X server answers there): run with {what}"
    return None


def check(what: str = "--no-window") -> None:
    """Raise TapsolveError when no window can be opened (before anything opens one)."""
    from solver.errors import TapsolveError

    why = problem(what)
    if why:
        raise TapsolveError(why)
