"""The log of every run that touches a phone: one file in the user's log folder, rotated by size
and age, each line timed to the millisecond; `-v` shows the same lines on stderr.

It holds what tapsolve did and saw, never anything personal beyond what the game's screen
shows: the phone's model, Android version and screen, the channel and why, every read's verdict,
every judgement, every touch with its time and place, every fault and recovery, and each line
the run said to the player.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys
import time
from pathlib import Path

from solver import platforms

LOGGER = "tapsolve"
LOG_NAME = "tapsolve.log"
# A log file is rotated past this size (some hours of play at a few lines a move); KEEP_FILES
# rotated ones are kept beside it, so the log never takes more than (KEEP_FILES + 1) x MAX_BYTES.
MAX_BYTES = 1 << 20
KEEP_FILES = 5
# A log file last written longer ago than this is rotated when a run starts: each day's runs start
# a file of their own, which ``tapsolve report`` packs with the recording of its day.
NEW_FILE_AFTER_S = 24 * 3600
# A rotated file older than this is removed when a run starts: the log never keeps old runs for ever.
MAX_AGE_S = 14 * 24 * 3600
FORMAT = "%(asctime)s.%(msecs)03d [%(process)d] %(message)s"
DATE = "%Y-%m-%d %H:%M:%S"

log = logging.getLogger(LOGGER)
log.propagate = False  # (never into a root logger some library set up)
log.setLevel(logging.INFO)


def path() -> Path:
    """The log file now written (its rotated ones beside it, ``.1`` the newest)."""
    return platforms.log_folder() / LOG_NAME


def rotated(current: Path) -> list[Path]:
    """The rotated files of ``current``, newest first."""
    found = [p for p in current.parent.glob(current.name + ".*") if p.suffix[1:].isdigit()]
    return sorted(found, key=lambda p: int(p.suffix[1:]))


class Said(logging.Filter):
    """Lets through only the lines the run did not already say to the player (for stderr under -v)."""

    def filter(self, record) -> bool:
        return not record.said  # (``line`` gives every record of the log its ``said``)


def start(words: list[str], verbose: bool = False, version: str = "unknown") -> Path | None:
    """Open the log for this run (the file made when missing, rotated when old, old rotated files
    removed), and with ``verbose`` show its lines on stderr too; the first lines say what runs.
    The file's path, or None when its folder cannot be written (said once on stderr: the run goes
    on without a log)."""
    stop()
    if verbose:
        shown = logging.StreamHandler(sys.stderr)
        shown.setFormatter(logging.Formatter("%(asctime)s.%(msecs)03d %(message)s", "%H:%M:%S"))
        shown.addFilter(Said())
        log.addHandler(shown)
    file = path()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tidy(file)
        handler = logging.handlers.RotatingFileHandler(file, maxBytes=MAX_BYTES, backupCount=KEEP_FILES,
                                                       encoding="utf-8")
    except OSError as exc:
        with contextlib.suppress(OSError, ValueError):
            print(f"tapsolve: cannot write the run's log in {file.parent} ({exc.strerror or exc}): going on "
                  f"without it (set {platforms.STATE_SETTING} to a folder you can write)", file=sys.stderr)
        file = None
    else:
        handler.setFormatter(logging.Formatter(FORMAT, DATE))
        log.addHandler(handler)
    import platform

    line(f"tapsolve {version}: {' '.join(words)} (Python {platform.python_version()} on {platforms.SYSTEM})")
    return file


def tidy(file: Path) -> None:
    """Rotate a log last written more than NEW_FILE_AFTER_S ago, and remove rotated files older than MAX_AGE_S."""
    now = time.time()
    with contextlib.suppress(OSError):
        if file.exists() and now - file.stat().st_mtime > NEW_FILE_AFTER_S:
            logging.handlers.RotatingFileHandler(file, maxBytes=1, backupCount=KEEP_FILES, delay=True).doRollover()
    for old in rotated(file):
        with contextlib.suppress(OSError):
            if now - old.stat().st_mtime > MAX_AGE_S:
                old.unlink()


def stop() -> None:
    """Close the log's handlers (the run is over, or another starts in this process: the tests)."""
    for handler in list(log.handlers):
        log.removeHandler(handler)
        with contextlib.suppress(OSError, ValueError):
            handler.close()


def line(text: str, said: bool = False) -> None:
    """One line in the log, and on stderr under -v unless ``said`` (the run said it to the player already)."""
    log.info(text, extra={"said": said})


def describe_phone(device) -> dict:
    """What the log says of a phone: model, Android version, screen size and density, rotation,
    how its screen is captured and which channel it got and why. One shell call of three
    commands (getprop, `wm density`, `dumpsys display`): the phone's own words."""
    from assistant.phone.screen import DEFAULT_DISPLAY, viewport

    facts = {"serial": device.serial, "model": device.model}
    try:
        text = device.shell("getprop ro.build.version.release; echo ==; wm density; echo ==; dumpsys display")
    except Exception as exc:  # (the log never stops a run: what it could not ask is said so)
        facts["asked"] = f"could not ask: {exc}"
        text = ""
    release, _, rest = text.partition("==")
    density, _, displays = rest.partition("==")
    facts["android"] = release.strip() or "unknown"
    # `wm density` prints "Physical density: 420" and, when set, "Override density: 480"
    # (WindowManagerShellCommand.java, runDisplayDensity)
    values = dict(line.partition(":")[::2] for line in density.strip().splitlines() if ":" in line)
    chosen = (values.get("Override density") or values.get("Physical density") or "").strip()
    facts["density"] = int(chosen) if chosen.isdigit() else None
    screen = device.screen
    display = screen.display
    port = viewport(displays, display.input_id if display else DEFAULT_DISPLAY) if displays else None
    rotation = port.get("orientation", "") if port else ""
    facts["rotation"] = int(rotation) * 90 if rotation.isdigit() else None
    if screen.size:
        facts["screen"] = f"{screen.size[0]}x{screen.size[1]}"
    facts["capture"] = screen.describe()
    facts["channel"] = device.channel_why
    return facts


def phone_line(facts: dict) -> str:
    """The log's line on a phone (``describe_phone``'s facts)."""
    density = f", {facts['density']} dpi" if facts.get("density") else ""
    rotation = f", rotated {facts['rotation']}°" if facts.get("rotation") is not None else ""
    return (f"phone {facts['serial']}: {facts['model']}, Android {facts.get('android', 'unknown')}, "
            f"screen {facts.get('screen', 'unknown')}{density}{rotation}; {facts.get('capture', '')}; "
            f"{facts.get('channel', '')}")


def near(file: Path, at: float, span: float = 3600.0) -> list[str]:
    """The log lines of ``file`` and its rotated files written within ``span`` seconds of ``at``
    (a time.time()), oldest first: what `tapsolve report` packs with a recording."""
    out = []
    for part in [*reversed(rotated(file)), file]:
        try:
            text = part.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for entry in text.splitlines():
            try:
                when = time.mktime(time.strptime(entry[:19], DATE))
            except ValueError:
                continue
            if abs(when - at) <= span:
                out.append(entry)
    return out
