"""The tesseract command, through pytesseract: several images of one call as pages of one process, each call bounded in time.

Every call goes through pytesseract (its ``image_to_string`` / ``image_to_boxes``): it runs
``tesseract <input> <output base> <config>`` and reads the output file back; a call that
outlives its ``timeout`` is killed, and a failing tesseract raises its ``TesseractNotFoundError``
/ ``TesseractError`` (upstream: madmaze/pytesseract, pytesseract/pytesseract.py: ``run_tesseract``,
``timeout_manager``, ``kill``). Here those become one line for the person: tesseract missing, its
language data not loading, a call that never answers, a tesseract that fails: never a read with
"no board found".

A call is mostly its process's start, loading the model (~0.13 s of CPU), so the images of one
call, and the first calls of reads made side by side (``Gather``) with the same options, go to
one process: each image a page of it, the same PNG pixels and options as a call of its own, so
that its read does not depend on how it was sent.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytesseract
from PIL import Image

from solver import platforms
from solver.errors import TapsolveError

# A call on one strip of glyphs or one line of text takes a fraction of a second (most of it the
# model's load), over 10 s on a machine loaded twenty times over; a call still running after this
# many seconds is a tesseract that hangs, not a slow one: it is killed and the read ends with a
# line saying so.
CALL_SECONDS = 30
# tesseract 5.3 ends each page's text with it, later ones put it between pages (upstream:
# tesseract-ocr/tesseract, src/api/renderer.cpp, ``TessTextRenderer::AddImageHandler``): either
# way the n-th piece of the output split on it is the n-th page's text
PAGE_BREAK = "\f"

# one thread per tesseract: the machine is shared, and threaded runs were seen to differ. pytesseract
# starts tesseract with this process's environment (``subprocess_args``: env=os.environ)
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

# commands the user has, on each system: its package manager's, or a checkout's set-up script
INSTALL = {
    "windows": "install it with `winget install UB-Mannheim.TesseractOCR` (in a checkout: `powershell -ExecutionPolicy Bypass -File scripts\\setup.ps1`)",
    "macos": "install it with `brew install tesseract` (in a checkout: `bash scripts/setup`)",
    "linux": "install it with `sudo apt install tesseract-ocr` (in a checkout: `bash scripts/setup`)",
}[platforms.SYSTEM]
REINSTALL = INSTALL.replace("install", "reinstall", 1)
# the setting naming the tesseract to run when neither the PATH nor an installer's usual place has one
COMMAND_SETTING = "TESSERACT_CMD"
# what tesseract says on stderr when it cannot load a language's data (tesseract 4 and 5:
# "Error opening data file /x/eng.traineddata", then "Please make sure the TESSDATA_PREFIX ...")
NO_DATA = "Error opening data file"


class TesseractTrouble(TapsolveError):
    """Tesseract itself cannot read for us (missing, broken, hanging). No ReadError: a caller
    that takes a screen it cannot read for one with no board (an ad, a dialog) must not wait on
    this one, and a read must not say "no board found" for it."""


class TesseractMissing(TesseractTrouble):
    """A read needs tesseract and none is found (``command``)."""

    def __init__(self):
        named = os.environ.get(COMMAND_SETTING)
        said = f" ({COMMAND_SETTING} is {named}: no program there)" if named else ""
        super().__init__(f"tesseract is not installed{said}: {INSTALL}, then run again")


def install_places() -> list[Path]:
    """Where this system's usual installer puts tesseract, which may leave it off the PATH: on
    Windows the UB Mannheim installer (winget's UB-Mannheim.TesseractOCR) in Program Files, or
    for one user in %LOCALAPPDATA%\\Programs; on macOS Homebrew's prefix, /opt/homebrew on Apple
    silicon and /usr/local on Intel; on Linux the package manager's, on the PATH."""
    if platforms.WINDOWS:
        bases = [os.environ.get("ProgramFiles") or "C:\\Program Files", os.environ.get("ProgramFiles(x86)"),
                 os.environ.get("LOCALAPPDATA") and str(Path(os.environ["LOCALAPPDATA"], "Programs"))]
        return [Path(base, "Tesseract-OCR", "tesseract.exe") for base in bases if base]
    if platforms.MACOS:
        return [Path("/opt/homebrew/bin/tesseract"), Path("/usr/local/bin/tesseract")]
    return []


def command() -> str:
    """The tesseract to run: the PATH's, else the one in its installer's usual place, else the one
    TESSERACT_CMD names; "tesseract" when there is none (its call then says it is missing). Looked
    for at each call (a fraction of a millisecond beside tesseract's start): the PATH may change."""
    found = shutil.which("tesseract") or next((str(p) for p in install_places() if p.is_file()), None)
    return found or os.environ.get(COMMAND_SETTING) or "tesseract"


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
    """Tesseract's output for each image (8-bit, black on white), all in one call: its text, or
    with ``boxes`` its box lines ("char left bottom right top", the page field dropped). In a
    ``Gather``'s part, its first call goes with the other parts' first calls of these options."""
    if not images:
        return []
    gather = _local.gather
    answer = gather.run(images, opts, stop) if gather is not None else None
    return answer if answer is not None else call(images, opts, stop)


def call(images: list[np.ndarray], opts: tuple[str, bool], stop: Stop | None = None) -> list[str]:
    """One pytesseract call (one tesseract process, bounded by CALL_SECONDS) on these images,
    each a page of it; its troubles said in one line (``trouble``).

    Several images are written as PNGs in a temporary folder, as pytesseract writes one
    (``save``: ``prepare`` makes the array a PIL image, saved as PNG), and their paths in a list
    file: pytesseract passes a ``str`` input to tesseract as it is (``save`` yields it as the
    input file name), and tesseract reads a file that is no image as a list of image paths, one
    page each (upstream: tesseract-ocr/tesseract, src/api/baseapi.cpp, ``ProcessPagesInternal``,
    ``ProcessPagesFileList``)."""
    if stop is not None and stop.stopped:
        return [""] * len(images)
    config, boxes = opts
    ask = pytesseract.image_to_boxes if boxes else pytesseract.image_to_string
    pytesseract.pytesseract.tesseract_cmd = command()  # (pytesseract runs the one its module names)
    try:
        if len(images) == 1:
            return pages(ask(images[0], config=config, timeout=CALL_SECONDS), 1, boxes)
        with tempfile.TemporaryDirectory(prefix="tapsolve-") as folder:
            paths = [os.path.join(folder, f"{k}.png") for k in range(len(images))]
            for path, image in zip(paths, images):
                Image.fromarray(image).save(path, format="PNG")
            listing = Path(folder, "pages.txt")
            listing.write_text("".join(f"{path}\n" for path in paths))
            return pages(ask(str(listing), config=config, timeout=CALL_SECONDS), len(images), boxes)
    except Exception as exc:  # noqa: BLE001 - each kind is named in ``trouble``; the rest re-raised there
        raise trouble(exc) from None


def pages(out: str, n: int, boxes: bool) -> list[str]:
    """A call's output on ``n`` pages, page by page: the text split on PAGE_BREAK, or the box
    lines by their page field, the 6th ("char left bottom right top page": upstream
    tesseract-ocr/tesseract, src/api/baseapi.cpp, ``GetBoxText``), which is then dropped."""
    if not boxes:
        texts = out.split(PAGE_BREAK)
        return [texts[k] if k < len(texts) else "" for k in range(n)]
    found: list[list[str]] = [[] for _ in range(n)]
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 6 and fields[5].isdigit() and int(fields[5]) < n:
            found[int(fields[5])].append(" ".join(fields[:5]))
    return ["\n".join(f) for f in found]


class Gather:
    """Reads made side by side in threads (``part``), each one's first call sent with the others'
    of the same options in one call: a first call waits until every other part has made its
    first call or finished (so the parts must all run at once: a pool of at least ``parties``
    threads). A part's later calls are sent on their own."""

    def __init__(self, parties: int):
        self.cond = threading.Condition()
        self.parties = parties
        self.asked: list[tuple[int, list[np.ndarray], tuple[str, bool], Stop | None]] = []
        self.answers: dict[int, list[str] | BaseException] = {}
        self.seen: set[int] = set()

    def part(self, fn, *args):
        """``fn(*args)`` as one part: its first tesseract call gathered with the others'."""
        _local.gather = self
        try:
            return fn(*args)
        finally:
            _local.gather = None
            with self.cond:
                if threading.get_ident() not in self.seen:  # finished without a call: not waited for
                    self.parties -= 1
                    self._send_when_all_asked()

    def run(self, images: list[np.ndarray], opts: tuple[str, bool], stop: Stop | None) -> list[str] | None:
        """The answer to a part's first call (None for a later one: that is sent on its own)."""
        me = threading.get_ident()
        with self.cond:
            if me in self.seen:
                return None
            self.seen.add(me)
            self.asked.append((me, images, opts, stop))
            self._send_when_all_asked()
            while me not in self.answers:
                self.cond.wait()
            answer = self.answers[me]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def _send_when_all_asked(self) -> None:
        if not self.asked or len(self.asked) < self.parties or self.answers:
            return
        by_opts: dict[tuple[str, bool], list] = {}
        for ask in self.asked:
            by_opts.setdefault(ask[2], []).append(ask)
        for opts, asks in by_opts.items():
            try:
                out = call([image for a in asks for image in a[1]], opts, asks[0][3])
            except Exception as exc:  # noqa: BLE001 - every part that asked hears it
                out = exc
            at = 0
            for me, images, _, _ in asks:
                self.answers[me] = out if isinstance(out, BaseException) else out[at:at + len(images)]
                at += len(images)
        self.cond.notify_all()


class _Local(threading.local):
    gather: Gather | None = None  # the Gather of the part this thread is running


_local = _Local()


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
