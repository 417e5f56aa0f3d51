"""`tapsolve replay BUNDLE`: today's reader and judge over a recording's screens, offline, and
where today's code decides differently from the run that was recorded (a reading, a judgement,
a tap): how a fix is checked against a field report (``assistant.record`` writes the bundles)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from solver.errors import InputError
from solver.words import count

# Taps this many pixels apart land on the same cell or button: a board read afresh places its
# cells a pixel or two off the profile the run read with (the smallest cells are some 60 px).
TAP_SLACK = 12

VERDICT_WORDS = {"done": "as predicted", "same": "nothing happened (a lost tap)",
                 "other": "otherwise (re-planned)"}


class BundleError(InputError):
    """A folder that is not a recording tapsolve can replay; the message says what to give."""


@dataclass
class Bundle:
    """A recording as written by ``assistant.record.Recorder.write``."""

    folder: Path
    index: dict
    events: list
    screens: dict = field(default_factory=dict)  # screen id -> PNG path

    def image(self, screen: int):
        """The RGB image of a recorded screen (None when it is not among the screens kept)."""
        import vision

        path = self.screens.get(screen)
        return None if path is None else vision.load_image(str(path))


def load(text: str) -> Bundle:
    """The recording in folder ``text``, or a one-line error saying what is wrong with it."""
    from assistant import record
    from solver.files import parse_json

    folder = Path(text)
    if not folder.is_dir():
        raise BundleError(f"{text}: no such folder: give a recording's folder (the one a failed run names)")
    try:
        index = parse_json((folder / record.INDEX).read_bytes(), f"{text}'s {record.INDEX}")
        events = parse_json((folder / record.EVENTS_FILE).read_bytes(), f"{text}'s {record.EVENTS_FILE}")
    except OSError as exc:
        raise BundleError(f"{text} is not a recording ({exc.filename and Path(exc.filename).name}: "
                          f"{exc.strerror}): give the folder a failed run names") from None
    if not isinstance(index, dict) or index.get("format") != record.FORMAT or not isinstance(events, list):
        raise BundleError(f"{text}: its {record.INDEX} is not a recording's of this tapsolve (format "
                          f"{index.get('format') if isinstance(index, dict) else '?'}, not {record.FORMAT})")
    screens = {}
    for entry in index.get("screens", []):
        path = folder / entry["file"]
        if path.is_file():
            screens[entry["screen"]] = path
    return Bundle(folder, index, [e for e in events if isinstance(e, dict) and "kind" in e], screens)


def differences(a, b, where: str = "") -> list[str]:
    """What differs between two JSON values, in words ("cells[4] 3, today 8")."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str) for d in differences(a.get(k), b.get(k), f"{where}.{k}" if where else str(k))]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for k, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}[{k}]")]
    return [] if a == b else [f"{where or 'the value'} {json.dumps(a)}, today {json.dumps(b)}"]


def listed(found: list[str], most: int = 6) -> str:
    return "; ".join(found[:most]) + (f"; and {len(found) - most} more" if len(found) > most else "")


class Replay:
    """Today's reads of a bundle's screens (one profile per game, built on the first board read
    for sure, as a session does on first contact), judgements and taps, against the recorded ones."""

    def __init__(self, bundle: Bundle):
        self.bundle = bundle
        self.profiles: dict = {}
        self.readings: dict = {}  # screen -> today's reading (None: it did not read)
        self.games: dict = {}  # name -> the game today (its rules as the assistant plays them)
        self.found: list[str] = []
        self.counts = {"reads": 0, "judgements": 0, "taps": 0, "unseen": 0, "early": 0}

    def read(self, screen: int, game: str):
        """Today's reading of a recorded screen (None: not kept, or no board today)."""
        if screen in self.readings:
            return self.readings[screen]
        import vision
        from assistant import session

        image = self.bundle.image(screen)
        reading = None
        if image is not None:
            name = game if game in self.profiles or game != "auto" else "auto"
            try:
                reading = vision.read(image, name, self.profiles.get(name))
                if reading.profile_stale:
                    reading = vision.read(image, name)
            except vision.ReadError:
                reading = None
            if reading is not None and session.trusted(reading) and reading.profile is not None:
                reading.learn()
                self.profiles.setdefault(reading.game, reading.profile)
        self.readings[screen] = reading
        return reading

    def game(self, name: str):
        from assistant.games import kind

        if name not in self.games:
            self.games[name] = kind(name)()
        return self.games[name]

    def run(self) -> list[str]:
        events = self.bundle.events
        for k, event in enumerate(events):
            kind = event["kind"]
            if kind == "read" and event.get("screen") is not None:
                self.check_read(event)
            elif kind == "judged" and event.get("how") in ("settled", "glance") and event.get("move") is not None:
                self.check_judgement(event)
            elif kind == "judged" and event.get("how") == "early":
                self.counts["early"] += 1  # (judged on the link's pixel compare in an animation: not a read)
            elif kind == "tap":
                self.check_tap(event, events[:k], events[k + 1:])
        return self.found

    def check_read(self, event) -> None:
        screen = event["screen"]
        if screen not in self.bundle.screens:
            self.counts["unseen"] += 1
            return
        self.counts["reads"] += 1
        reading = self.read(screen, event.get("game", "auto"))
        was = "unreadable" if event.get("shows") == "unreadable" else event["shows"]
        now = "unreadable" if reading is None else reading.screen
        said = f"screen {screen} ({event['t']:.3f} s)"
        if was != now:
            self.found.append(f"{said}: the run read {was.replace('_', ' ')}, today {now.replace('_', ' ')}")
            return
        if reading is None or now != "board":
            return
        if event["sure"] != reading.sure:
            why = (lambda unsure: ", ".join(f"{k} ({v})" for k, v in unsure.items()))
            self.found.append(f"{said}: the run read the board " + (
                "for sure" if event["sure"] else f"unsure of {why(event['unsure_why'])}") + ", today " + (
                "for sure" if reading.sure else f"unsure of {reading.describe_unsure()}"))
            return
        board = reading.board if reading.board is not None else reading.state
        found = differences(event.get("board"), board.to_json() if board is not None else None) if reading.sure else []
        if found:
            self.found.append(f"{said}: the board reads otherwise: {listed(found)}")

    def judged_on(self, event):
        """(game, today's reading of the screen a judgement was made on), or None when today's
        code cannot judge on it alone (not kept, no board read for sure, a board taller than the screen)."""
        reading = self.read(event["screen"], event["game"]) if event.get("screen") in self.bundle.screens else None
        if reading is None or reading.screen != "board" or not reading.sure or reading.more_above or reading.more_below:
            return None
        return self.game(event["game"]), reading

    def move(self, game, event, reading):
        """(position before, the move) of a recorded judgement, as today's types (None: not legal today)."""
        from assistant.record import encode_move

        kind = type(game.position(reading))
        before = kind.from_json(event["before"])
        move = next((m for m in before.legal_moves() if encode_move(m) == event["move"]), None)
        return before, move

    def check_judgement(self, event) -> None:
        judged = self.judged_on(event)
        if judged is None:
            self.counts["unseen"] += 1
            return
        game, reading = judged
        self.counts["judgements"] += 1
        said = f"move {event['said']!r} judged on screen {event['screen']} ({event['t']:.3f} s)"
        before, move = self.move(game, event, reading)
        if move is None:
            self.found.append(f"{said}: the move is not legal on the board before it, today")
            return
        expected, seen = game.after(before, move), game.position(reading)
        recorded = type(expected).from_json(event["expected"])
        if not game.same(expected, recorded):
            found = differences(recorded.to_json(), expected.to_json())
            self.found.append(f"{said}: predicted otherwise: {listed(found)}")
        today = "done" if game.same(seen, expected) else "same" if game.same(seen, before) else "other"
        if today != event["verdict"]:
            self.found.append(f"{said}: the run judged it {VERDICT_WORDS[event['verdict']]}, "
                              f"today {VERDICT_WORDS[today]}")

    def check_tap(self, event, earlier: list, later: list) -> None:
        """The taps of a move, against today's for the same move on the screen read before them
        (the move: the next judgement's, before any other touch)."""
        read = next((e for e in reversed(earlier) if e["kind"] == "read" and e.get("screen") is not None), None)
        judgement = next((e for e in later if e["kind"] in ("judged", "tap", "swipe", "key")), None)
        if read is None or judgement is None or judgement["kind"] != "judged" or judgement.get("move") is None:
            return  # (a button's tap, a selection dropped, the stage's Continue: no move to compare with)
        judged = self.judged_on({**judgement, "screen": read["screen"]})
        if judged is None:
            self.counts["unseen"] += 1
            return
        game, reading = judged
        self.counts["taps"] += 1
        _, move = self.move(game, judgement, reading)
        said = f"move {judgement['said']!r} tapped at {event['t']:.3f} s on screen {read['screen']}"
        if move is None:
            return  # (said by its judgement)
        try:
            today = [[round(x), round(y)] for x, y in game.tap_points(move, reading)]
        except Exception as exc:  # (a game's own one-line error: a button not on screen)
            self.found.append(f"{said}: today it is not tapped ({exc})")
            return
        recorded = event["points"]
        if len(today) != len(recorded) or any(abs(a - c) > TAP_SLACK or abs(b - d) > TAP_SLACK
                                               for (a, b), (c, d) in zip(today, recorded)):
            words = (lambda points: " ".join(f"({x},{y})" for x, y in points))
            self.found.append(f"{said}: the run tapped {words(recorded)}, today {words(today)}")


def run_replay(args) -> int:
    """Replay a recording; exit 1 when today's code decides anything differently."""
    bundle = load(args.bundle)
    index = bundle.index
    phone = index.get("phone") or {}
    print(f"replaying {bundle.folder}: {index.get('command', '?')} recorded by tapsolve {index.get('tapsolve', '?')} "
          f"on {phone.get('model', 'an unknown phone')} (Android {phone.get('android', '?')}), "
          f"{count(len(bundle.screens), 'screens')} kept; it ended: {index.get('why', '?')}")
    replay = Replay(bundle)
    found = replay.run()
    c = replay.counts
    checked = (f"{count(c['reads'], 'reads')}, {count(c['judgements'], 'judgements')}, {count(c['taps'], 'taps')} "
               f"replayed" + (f"; {c['unseen']} more events without a screen to judge on" if c["unseen"] else "")
               + (f"; {count(c['early'], 'moves')} judged early in an animation, not replayed" if c["early"] else ""))
    if not found:
        print(f"no difference: {checked}; today's code decides as the run did")
        return 0
    for line in found:
        print(line)
    print(f"{count(len(found), 'differences')}: {checked}")
    return 1


def add_command(commands) -> None:
    """`tapsolve replay BUNDLE` on the command line."""
    rep = commands.add_parser("replay", help="read and judge a recorded run's screens with today's code, offline, "
                                             "and say where it decides differently")
    rep.add_argument("bundle", metavar="BUNDLE", help="a recording's folder (the one a failed run names)")
    rep.set_defaults(run=run_replay)
