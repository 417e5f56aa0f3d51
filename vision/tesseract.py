"""The tesseract command, through pytesseract: one call an image, side by side in threads, each bounded in time.

Every call goes through pytesseract (its ``image_to_string`` / ``image_to_boxes``): it writes
the image to a temporary PNG, runs ``tesseract <image> <output base> <config>`` and reads the
output file back; a call that outlives its ``timeout`` is killed, and a failing tesseract
raises its ``TesseractNotFoundError`` / ``TesseractError`` (upstream: madmaze/pytesseract,
pytesseract/pytesseract.py: ``run_tesseract``, ``timeout_manager``, ``kill``). Here those become
one line for the person: tesseract missing, its language data not loading, a call that never
answers, a tesseract that fails: never a read with "no board found".
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytesseract

from solver.errors import TapsolveError

# A call on one strip of glyphs or one line of text takes a fraction of a second (most of it the
# model's load), over 10 s on a machine loaded twenty times over; a call still running after this
# many seconds is a tesseract that hangs, not a slow one: it is killed and the read ends with a
# line saying so.
CALL_SECONDS = 30
# Calls of one ``run`` made at once: each is a process of its own, mostly loading its model, so
# a few side by side take little longer than one; more would only queue for the cores.
SIDE_BY_SIDE = 4
PAGE_BREAK = "\f"  # tesseract ends each page's text with it

# one thread per tesseract: the machine is shared, and threaded runs were seen to differ. pytesseract
# starts tesseract with this process's environment (``subprocess_args``: env=os.environ)
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

# commands the user has: the system's package manager, or a checkout's set-up script
INSTALL = ("install it with `brew install tesseract`" if sys.platform == "darwin" else
           "install it with `sudo apt install tesseract-ocr` (in a checkout: `bash scripts/setup`)")
REINSTALL = INSTALL.replace("install", "reinstall", 1)
# what tesseract says on stderr when it cannot load a language's data (tesseract 4 and 5:
# "Error opening data file /x/eng.traineddata", then "Please make sure the TESSDATA_PREFIX ...")
NO_DATA = "Error opening data file"


class TesseractTrouble(TapsolveError):
    """Tesseract itself cannot read for us (missing, broken, hanging). No ReadError: a caller
    that takes a screen it cannot read for one with no board (an ad, a dialog) must not wait on
    this one, and a read must not say "no board found" for it."""


class TesseractMissing(TesseractTrouble):
    """A read needs tesseract and it is not on the PATH."""

    def __init__(self):
        super().__init__(f"tesseract is not installed: {INSTALL}, then run again")


def options(psm: int, chars: str | None = None, boxes: bool = False) -> tuple[str, bool]:
    """A call's options: its pytesseract config (page mode, allowed characters), and whether it
    gives each character's box (``image_to_boxes``) rather than the text."""
    config = f"--psm {psm}" + (f" -c tessedit_char_whitelist={chars}" if chars else "")
    return config, boxes


class Stop:
    """Lets a reader give up on calls whose result it will not use: after ``stop()`` calls not
    yet started return nothing without starting (one running finishes, within CALL_SECONDS)."""

    def __init__(self):
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def run(images: list[np.ndarray], opts: tuple[str, bool], stop: Stop | None = None) -> list[str]:
    """Tesseract's output for each image (8-bit, black on white), one call each, side by side:
    its text, or with ``boxes`` its box lines ("char left bottom right top", the page field dropped)."""
    if len(images) <= 1:
        return [call(image, opts, stop) for image in images]
    with ThreadPoolExecutor(max_workers=min(SIDE_BY_SIDE, len(images))) as pool:
        return list(pool.map(lambda image: call(image, opts, stop), images))


def call(image: np.ndarray, opts: tuple[str, bool], stop: Stop | None = None) -> str:
    """One pytesseract call on one image; its troubles said in one line (``trouble``)."""
    if stop is not None and stop.stopped:
        return ""
    config, boxes = opts
    ask = pytesseract.image_to_boxes if boxes else pytesseract.image_to_string
    try:
        out = ask(image, config=config, timeout=CALL_SECONDS)
    except Exception as exc:  # noqa: BLE001 - each kind is named in ``trouble``; the rest re-raised there
        raise trouble(exc) from None
    if not boxes:
        return out.replace(PAGE_BREAK, "")
    return "\n".join(" ".join(line.split()[:5]) for line in out.splitlines() if line.strip())


def trouble(exc: Exception) -> Exception:
    """The one-line error for what went wrong in a pytesseract call (upstream pytesseract.py:
    ``TesseractNotFoundError`` when the command is not found, ``TesseractError(status, stderr
    joined in one line)`` when it exits non-zero, ``RuntimeError('Tesseract process timeout')``
    when ``timeout`` ran out (the process killed), and the output file's own OSError when
    tesseract exited 0 without writing it)."""
    if isinstance(exc, pytesseract.TesseractNotFoundError):
        return TesseractMissing()
    if isinstance(exc, pytesseract.TesseractError):
        message = str(exc.message).strip()
        if NO_DATA in message:
            path = (message.split(NO_DATA, 1)[1].split() or ["eng.traineddata"])[0]
            prefix = os.environ.get("TESSDATA_PREFIX")
            where = (f"TESSDATA_PREFIX is {prefix}: point it at the folder that holds eng.traineddata, or unset it"
                     if prefix is not None else REINSTALL)
            return TesseractTrouble(f"tesseract cannot load its language data ({path}): {where}")
        said = f": {message[:120]}" if message else ""
        return TesseractTrouble(f"tesseract failed (exit status {exc.status}{said}): {REINSTALL}")
    if isinstance(exc, RuntimeError) and "timeout" in str(exc):
        return TesseractTrouble(f"tesseract gave no answer in {CALL_SECONDS} s (it was stopped): "
                                f"it hangs or the computer is overloaded; {REINSTALL}")
    if isinstance(exc, FileNotFoundError):  # it exited 0 and wrote nothing
        return TesseractTrouble(f"tesseract gave no output (no {os.path.basename(exc.filename or '')}): {REINSTALL}")
    if isinstance(exc, OSError):  # found but could not be started (not executable, ...)
        return TesseractTrouble(f"tesseract could not be started ({exc.strerror or exc}): {REINSTALL}")
    return exc
