"""The tesseract command, run directly: images in on stdin, text out on stdout, processes started early.

A tesseract call is mostly its own start: the process loads its model (~0.1-0.3 s) before it
reads its image, so a process started ahead (``warm``) has the model loaded by the time the
image is ready, and several images with one config go to one process as a list of files. Each
image is given as the same PNG pixels with the same options as a call of its own, so its read
does not depend on how it was sent.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np

from solver.errors import TapsolveError
from vision.image import ReadError

COMMAND = "tesseract"
# one thread per tesseract: the machine is shared, and threaded runs were seen to differ
THREADS = {"OMP_THREAD_LIMIT": "1"}
BOXES = ("-c", "tessedit_create_boxfile=1", "batch.nochop", "makebox")
PAGE_BREAK = "\f"


class TesseractFailed(ReadError):
    """Tesseract ran but failed on an image: said in one line."""


class TesseractMissing(TapsolveError):
    """A read needs tesseract and it is not on the PATH. No ReadError: a caller that takes a
    screen it cannot read for one with no board (an ad, a dialog) must not wait on this one."""

    def __init__(self):
        super().__init__(f"tesseract is not installed: {INSTALL}, then run again")


# commands the user has: the system's package manager, or a checkout's set-up script
INSTALL = ("install it with `brew install tesseract`" if sys.platform == "darwin" else
           "install it with `sudo apt install tesseract-ocr` (in a checkout: `bash scripts/setup`)")


_warm: dict[tuple[str, ...], list[subprocess.Popen]] = {}
_deferred: dict[tuple[str, ...], None] = {}  # calls for ``found`` to start (an ordered set)
_lock = threading.Lock()
_used: set[tuple[str, ...]] = set()  # the options of the calls run so far
_spares: list[bool] = [False]  # see ``keep_spares``


def options(psm: int, chars: str | None = None, boxes: bool = False) -> tuple[str, ...]:
    """The command-line options of a call: page mode, allowed characters, boxes or text."""
    out = ("--psm", str(psm)) + (("-c", f"tessedit_char_whitelist={chars}") if chars else ())
    return out + BOXES if boxes else out


@functools.cache
def installed() -> bool:
    """Whether tesseract is on the PATH (looked up once: asking its version is one more process
    to start)."""
    return shutil.which(COMMAND) is not None


def start(opts: tuple[str, ...]) -> subprocess.Popen | None:
    """A tesseract process for these options, loading its model while it waits for its input."""
    try:
        return subprocess.Popen([COMMAND, "stdin", "stdout", *opts], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env={**THREADS, **os.environ})
    except OSError:
        return None


def warm(*calls: tuple[str, ...]) -> None:
    """Start a process for each of these calls' options now, for a later ``run`` to take: a
    command that will need tesseract starts it before its own imports and decoding."""
    if not installed():
        return  # the read that needs it says so
    for opts in calls:
        proc = start(opts)
        if proc is not None:
            with _lock:
                _warm.setdefault(opts, []).append(proc)


def defer(*calls: tuple[str, ...]) -> None:
    """Calls a read may make, known only once its game is: ``found`` starts them."""
    with _lock:
        _deferred.update(dict.fromkeys(calls))


def found(calls: tuple[tuple[str, ...], ...]) -> None:
    """A reader found its board: start those of its first read's ``calls`` that were deferred
    (a read after ``warm("auto")``; for any other read, nothing), now rather than at the first
    call, which comes later."""
    with _lock:
        start_now = [c for c in calls if c in _deferred]
        for c in start_now:
            del _deferred[c]
    warm(*start_now)


def keep_spares(on: bool = True) -> None:
    """For a caller that reads screen after screen (play): once a call's options come back, a
    process for them is started as soon as the call is done, so the next screen's call finds
    its model loaded (during the phone's tap and capture, not the read). A single read keeps
    none: it would pay a model's load in CPU time for a process nobody takes."""
    _spares[0] = on


@atexit.register
def shutdown() -> None:
    """End the started processes no read took (a read that needed none of them)."""
    with _lock:
        procs = [p for ps in _warm.values() for p in ps]
        _warm.clear()
        _deferred.clear()
    for p in procs:
        p.kill()
        p.wait()


class Stop:
    """Lets a reader give up on calls whose result it will not use: ``stop()`` ends the running
    ones, and later ones return nothing without starting."""

    def __init__(self):
        self.stopped = False
        self.running: list[subprocess.Popen] = []
        self.lock = threading.Lock()

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            for p in self.running:
                p.kill()


class Gather:
    """Reads made side by side in threads (``part``), each one's first call sent with the others'
    in one process: a call waits until every other part has made its first call or finished (so
    the parts must all run at once: a pool of at least ``parties`` threads)."""

    def __init__(self, parties: int):
        self.cond = threading.Condition()
        self.parties = parties
        self.asked: list[tuple[int, list[np.ndarray], tuple[str, ...], Stop | None]] = []
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
                if threading.get_ident() not in self.seen:
                    self.parties -= 1
                    self._send_when_all_asked()

    def run(self, images: list[np.ndarray], opts: tuple[str, ...], stop: Stop | None) -> list[str] | None:
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
        by_opts: dict[tuple[str, ...], list] = {}
        for ask in self.asked:
            by_opts.setdefault(ask[2], []).append(ask)
        for opts, asks in by_opts.items():
            try:
                out = _run([image for a in asks for image in a[1]], opts, asks[0][3])
            except Exception as exc:  # every part that asked hears it
                out = exc
            at = 0
            for me, images, _, _ in asks:
                self.answers[me] = out if isinstance(out, BaseException) else out[at:at + len(images)]
                at += len(images)
        self.cond.notify_all()


class _Local(threading.local):
    gather: Gather | None = None  # the Gather of the part this thread is running


_local = _Local()


def png(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ReadError("an image for tesseract could not be encoded")
    return data.tobytes()


def run(images: list[np.ndarray], opts: tuple[str, ...], stop: Stop | None = None) -> list[str]:
    """Tesseract's output for each image (8-bit, black on white), all in one process: text for
    each page, or with ``BOXES`` the box lines of each page (their page field dropped)."""
    if not images:
        return []
    if not installed():
        raise TesseractMissing()
    gather = _local.gather
    answer = gather.run(images, opts, stop) if gather is not None else None
    return answer if answer is not None else _run(images, opts, stop)


def _run(images: list[np.ndarray], opts: tuple[str, ...], stop: Stop | None = None) -> list[str]:
    try:
        return _run_one(images, opts, stop)
    finally:
        with _lock:
            spare = _spares[0] and opts in _used and not _warm.get(opts)
            _used.add(opts)
        if spare:
            warm(opts)


def _run_one(images: list[np.ndarray], opts: tuple[str, ...], stop: Stop | None = None) -> list[str]:
    if stop is not None and stop.stopped:
        return [""] * len(images)
    with _lock:
        proc = _warm.get(opts, []).pop() if _warm.get(opts) else None
    if proc is None:
        proc = start(opts)
        if proc is None:
            raise TapsolveError(f"tesseract could not be started: {INSTALL.replace('install', 'reinstall', 1)}")
    if stop is not None:
        with stop.lock:
            if stop.stopped:
                proc.kill()
                proc.wait()
                return [""] * len(images)
            stop.running.append(proc)
    with tempfile.TemporaryDirectory(prefix="tapsolve-") if len(images) > 1 else contextlib.nullcontext() as folder:
        if len(images) == 1:
            data = png(images[0])
        else:  # a list of files: tesseract reads each as a page of its own
            paths = [Path(folder, f"{k}.png") for k in range(len(images))]
            for path, image in zip(paths, images):
                path.write_bytes(png(image))
            data = "".join(f"{path}\n" for path in paths).encode()
        try:
            out, _ = proc.communicate(data)
        except (BrokenPipeError, OSError):
            out = b""
            proc.kill()
            proc.wait()
    if stop is not None and stop.stopped:
        return [""] * len(images)
    if proc.returncode:
        raise TesseractFailed(f"tesseract failed on a crop of this screenshot (exit status {proc.returncode})")
    text = out.decode("utf-8", "replace")
    if opts[-1] != "makebox":
        pages = text.split(PAGE_BREAK)
        return [pages[k] if k < len(pages) else "" for k in range(len(images))]
    pages = [[] for _ in images]
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 6 and fields[5].isdigit() and int(fields[5]) < len(images):
            pages[int(fields[5])].append(" ".join(fields[:5]))
    return ["\n".join(p) for p in pages]
