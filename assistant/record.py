"""The recording of a run: its last screens and its events, kept in memory as the run goes and
written as a bundle folder (PNG screens, events, a JSON index saying what each file is) when the
run ends in anything but success, or always with ``--record DIR``.

Every line it records also goes to the run's log (``assistant.runlog``). Frames are kept raw, in
a ring of the last ``screens``; their PNGs are made only when a bundle is written, off play's
way. The link holds the recorder (``Link.recorder``); the session reports what it reads, the
loop what it judges, the link what it touches and every fault and recovery.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections import deque
from pathlib import Path

from assistant import runlog
from solver import platforms
from solver.errors import InputError

SCREENS = 40  # screens a recording keeps by default: the last few moves' worth
EVENTS = 5000  # events kept (a long run's first ones fall off: the log keeps them)
KEEP = 10  # recordings kept in the state folder: a new one past this removes the oldest
INDEX = "index.json"
EVENTS_FILE = "events.json"
FORMAT = 1  # the bundle's layout version (index.json "format")
PNG_LEVEL = 6  # zlib's effort on the screens' PNGs: near the smallest, at a fraction of level 9's time


def folder() -> Path:
    """Where the recordings of runs that went wrong are kept."""
    return platforms.state_folder() / "recordings"


def encode_move(move):
    """A move as JSON: its value (a tile, a swap's pair of cards, tuples as lists), or its own
    ``to_json`` for a move JSON has no type for (a pair, an add)."""
    return json.loads(json.dumps(move, default=lambda value: value.to_json()))


def position_json(position):
    return position.to_json() if position is not None else None


def verdict(game, judgement) -> str:
    """What a judgement decided, as the loop acts on it: "done" (as predicted), "same" (nothing
    happened: a lost tap), "other" (re-planned)."""
    if judgement.how != "settled" or game.same(judgement.seen, judgement.expected):
        return "done"
    return "same" if judgement.before is not None and game.same(judgement.seen, judgement.before) else "other"


VERDICT_WORDS = {"done": "as predicted", "same": "nothing happened (a lost tap)", "other": "otherwise (re-planned)"}


class Recorder:
    """One run's last screens and its events. ``on`` False (``--no-record``): only the log lines."""

    def __init__(self, screens: int = SCREENS, on: bool = True):
        self.on = on and screens > 0
        self.frames: deque = deque(maxlen=max(screens, 1))  # (screen id, seconds, RGB image, what)
        self.events: deque = deque(maxlen=EVENTS)
        self.t0, self.started = time.monotonic(), time.time()
        self.count = 0  # screens seen, the last one's id
        self._image = None  # the last screen kept (a second report of it is not a new screen)
        self.phone: dict = {}
        self.command = ""

    def _at(self) -> float:
        return round(time.monotonic() - self.t0, 3)

    def event(self, kind: str, line: str, **data) -> None:
        """One event: its log line, and in the recording its time, kind and data."""
        runlog.line(line, said=kind == "said")
        if self.on:
            self.events.append({"t": self._at(), "kind": kind, "line": line, **data})

    # -- what the session, the loop and the link report ----------------------------------------

    def screen(self, image, what: str = "capture") -> None:
        """A screen captured (kept raw: its PNG is made only if a bundle is written)."""
        if image is None or image is self._image:
            return
        self._image = image
        self.count += 1
        if self.on:
            self.frames.append((self.count, self._at(), image, what))

    def read(self, reading) -> None:
        """The verdict of the read of the last screen: what it shows, sure or why not."""
        board = reading.board if reading.board is not None else reading.state
        sure = reading.sure
        words = f"{reading.game} {reading.screen.replace('_', ' ')}"
        if reading.screen == "board":
            words += ", sure" if sure else f", unsure: {reading.describe_unsure()}"
        self.event("read", f"read screen {self.count}: {words}", screen=self.count, game=reading.game,
                   shows=reading.screen, sure=sure, unsure_why=dict(reading.unsure_why),
                   board=board.to_json() if board is not None else None,
                   whole=not (reading.more_above or reading.more_below))

    def unread(self, why: str, captured: bool = True) -> None:
        """The last screen (``captured``; else none came: a black screenshot) could not be read at all."""
        screen = self.count if captured else None
        self.event("read", f"read screen {screen}: unreadable ({why})" if captured else f"no screen: {why}",
                   screen=screen, shows="unreadable", sure=False, why=why)

    def saying(self, say):
        """``say``, each line also recorded and written to the log."""
        def said(text: str) -> None:
            self.event("said", text)
            say(text)
        return said

    def judged(self, game, judgement) -> None:
        """A judgement of a move (``assistant.games.Judgement``): predicted, seen, how, what it decided."""
        decided = verdict(game, judgement)
        move = judgement.move
        said = game.describe(judgement.before, move) if move is not None else "the next stage"
        self.event("judged", f"judged {said} on screen {self.count} ({judgement.how}): {VERDICT_WORDS[decided]}",
                   screen=self.count, game=game.name, how=judgement.how, verdict=decided, move=encode_move(move),
                   said=said, before=position_json(judgement.before), expected=position_json(judgement.expected),
                   seen=position_json(judgement.seen))

    def touch(self, kind: str, points, what: str = "") -> None:
        """Taps (each point), a swipe (from, to) or a key sent to the phone."""
        where = " ".join(f"({round(x)},{round(y)})" for x, y in points)
        self.event(kind, f"{kind} {what + ' ' if what else ''}{where}".rstrip(),
                   points=[[round(x), round(y)] for x, y in points], what=what)

    def key(self, code: str) -> None:
        self.event("key", f"key {code}", code=code)

    def fault(self, line: str) -> None:
        """Something went wrong with the phone (lost, a channel broken); the line says what."""
        self.event("fault", line)

    def recovered(self, line: str) -> None:
        self.event("recovered", line)

    def connected(self, facts: dict) -> None:
        """The phone played on (``runlog.describe_phone``)."""
        self.phone = facts
        self.event("phone", runlog.phone_line(facts), **facts)

    # -- the bundle ------------------------------------------------------------------------------

    def write(self, where: Path, why: str, version: str = "unknown") -> Path:
        """Write the bundle into folder ``where`` (made; what a bundle holds replaced): PNG screens,
        the events, and the index saying what each file is. Returns ``where``."""
        import cv2
        import numpy as np

        where.mkdir(parents=True, exist_ok=True)
        screens_dir = where / "screens"
        shutil.rmtree(screens_dir, ignore_errors=True)
        screens_dir.mkdir()
        reads = {e["screen"]: e for e in self.events if e["kind"] == "read"}
        screens, files, last = [], {}, (None, "")
        for number, at, image, what in list(self.frames):
            read = reads.get(number)
            verdict_words = read["line"].partition(": ")[2] if read else "not read"
            said = f"screen {number}, captured {at:.3f} s into the run ({what}); read: {verdict_words}"
            if last[0] is not None and np.array_equal(last[0], image):  # (a screen as the one before: one file)
                name = last[1]
                files[name] += f"; also {said}"
            else:
                name = f"screens/{number:04d}.png"
                ok, data = cv2.imencode(".png", image[:, :, ::-1] if image.ndim == 3 else image,
                                        [cv2.IMWRITE_PNG_COMPRESSION, PNG_LEVEL])
                if not ok:
                    continue
                (where / name).write_bytes(data.tobytes())
                files[name], last = said, (image, name)
            screens.append({"screen": number, "file": name, "t": at, "what": what})
        events = list(self.events)
        (where / EVENTS_FILE).write_text(json.dumps(events, indent=0), encoding="utf-8")
        files[EVENTS_FILE] = ("the run's events in order, each with its time in seconds from the start: "
                              "phone, read, judged, tap, swipe, key, fault, recovered, said, end")
        index = {"format": FORMAT, "tapsolve": version, "command": self.command, "why": why,
                 "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started)),
                 "started_at": self.started, "phone": self.phone, "screens": screens,
                 "screens_seen": self.count, "files": {INDEX: "this index", **files}}
        (where / INDEX).write_text(json.dumps(index, indent=1), encoding="utf-8")
        return where


def new_folder(command: str) -> Path:
    """A fresh folder for a recording in the state folder, the oldest removed past KEEP."""
    base = folder()
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    where, n = base / f"{stamp}-{command}", 1
    while where.exists():
        n += 1
        where = base / f"{stamp}-{command}-{n}"
    prune(base, KEEP - 1)
    return where


def kept(base: Path | None = None) -> list[Path]:
    """The recordings kept, oldest first."""
    base = base or folder()
    try:
        found = [p for p in base.iterdir() if (p / INDEX).is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: (p / INDEX).stat().st_mtime)


def load_index(bundle: Path) -> dict:
    """A recording's index ({} when it cannot be read)."""
    try:
        index = json.loads((bundle / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return index if isinstance(index, dict) else {}


def prune(base: Path, keep: int) -> None:
    """Remove the oldest recordings so that at most ``keep`` are left."""
    found = kept(base)
    for old in found[:max(0, len(found) - keep)]:
        shutil.rmtree(old, ignore_errors=True)


def check_folder(text: str) -> Path:
    """``--record DIR``: a folder that is missing, empty, or a recording (replaced); said before
    the phone is looked for."""
    where = Path(text)
    if where.exists():
        if not where.is_dir():
            raise InputError(f"--record {text}: it is a file, not a folder: give a new folder")
        if any(where.iterdir()) and not (where / INDEX).is_file():
            raise InputError(f"--record {text}: the folder holds other files: give a new or empty folder")
    return where


def add_options(parser) -> None:
    """--record DIR and --no-record, on play, guide and demo."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--record", metavar="DIR",
                       help=f"always write the run's recording (its last {SCREENS} screens and its events) into DIR "
                            "(default: only when the run ends in an error or is stopped, in tapsolve's state folder)")
    group.add_argument("--no-record", action="store_true",
                       help="keep no recording of the run (its log lines are still written)")


def for_run(args) -> Recorder:
    """The run's recorder, as its options ask (kept in ``args`` for ``finish``)."""
    recorder = vars(args).get("recorder")
    if recorder is None:
        recorder = Recorder(on=not vars(args).get("no_record"))
        recorder.command = args.command
        args.recorder = recorder
    return recorder


def connected(recorder: Recorder, device):
    """``device`` just connected, described in the log and the recording (``runlog.describe_phone``): ``device``."""
    recorder.connected(runlog.describe_phone(device))
    return device


def finish(args, why: str | None, version: str = "unknown") -> Path | None:
    """At the run's end (said in the log): the bundle's folder when one was written (``why``: how
    the run ended, None for success), else None. A folder that cannot be written loses only the
    recording, said in one line."""
    recorder = vars(args).get("recorder")
    asked = vars(args).get("record")
    line = f"the run ended: {why or 'done'}"
    if recorder is None:
        runlog.line(line)
        return None
    recorder.event("end", line, why=why or "done")
    if not recorder.on or (why is None or not recorder.frames) and not asked:
        return None  # (a run that ended before it saw the phone's screen, refused at start, has nothing to show)
    try:
        return recorder.write(Path(asked) if asked else new_folder(args.command), why or "done", version)
    except OSError as exc:
        runlog.line(f"could not write the recording: {exc}")
        with contextlib.suppress(OSError, ValueError):
            import sys

            print(f"tapsolve: could not write the run's recording ({exc.strerror or exc})", file=sys.stderr)
        return None
