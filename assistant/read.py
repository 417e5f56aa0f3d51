"""`tapsolve read` and `tapsolve calibrate`: read a board off a screenshot or a phone."""

from __future__ import annotations

import sys

from solver import platforms
from solver.errors import TapsolveError


def capture(serial: str | None, args):
    """(RGB screenshot, model) from a phone over ADB, in the run's log and recording (a read
    that fails leaves its screen behind, as play does: ``assistant.record``)."""
    from assistant import record
    from assistant.phone import device

    recorder = record.for_run(args)
    phone = record.connected(recorder, device.connect(serial, channel="exec"))  # one lossless screenshot: no taps, no video
    image = phone.capture()
    recorder.screen(image, "look")
    return image, phone.model


def recorded(args, reading):
    """``reading``, in the run's recording when it read from a phone."""
    if vars(args).get("recorder") is not None:
        args.recorder.read(reading)
    return reading


def note(message: str) -> None:
    print(f"tapsolve: {message}", file=sys.stderr)


def run_read(args) -> int:
    import vision
    from assistant.options import print_json

    if (args.image is None) == (args.serial is None):
        raise vision.ImageInputError("give either a screenshot file or --serial for a phone")
    if args.image is not None and not args.model:
        reading = vision.read(vision.load_image(args.image), args.game, first_row=args.first_row)
    else:
        from assistant import session

        image, model = capture(args.serial, args) if args.image is None else (vision.load_image(args.image), args.model)
        reading = recorded(args, session.read(image, model, args.game, note=note))
    if args.json:
        print_json(args, reading.to_json())
    elif reading.screen != "board" and reading.board is None and reading.state is None:
        # what is in front, and what to do, as play and the guide say it (a won board is printed)
        from assistant.in_front import RUN_AGAIN, InFront
        from solver.games import entry

        print(f"{entry(reading.game).title}: {InFront.of(reading).line(then=RUN_AGAIN)}")
    else:
        print(reading.text())
    return 0


def run_calibrate(args) -> int:
    import vision
    from assistant import session
    from calibration import store

    image, model = capture(args.serial, args) if args.image is None else (vision.load_image(args.image), args.model or "image")
    notes = []
    reading = recorded(args, session.read(image, model, args.game, rebuild=True, note=notes.append))
    p = reading.profile
    if p is None:
        from assistant.in_front import RUN_AGAIN, InFront

        raise TapsolveError(f"no board on the screen to calibrate from: {InFront.of(reading).line(then=RUN_AGAIN)}")
    if not session.trusted(reading):  # (a profile learned under a dialog or an ad misreads the clear board)
        raise TapsolveError(f"the board is not read for sure ({reading.describe_unsure()}): close what covers it "
                            "and run again")
    path = store.profile_path(model, p.width, p.height, p.game, p.theme)
    if p.changed:  # the store could not write it (and noted why)
        raise TapsolveError(f"cannot store the profile in {path.parent}: make it writable or set "
                            f"{platforms.CONFIG_SETTING} to a folder you can write")
    for line in notes:
        note(line)
    from solver.games import entry
    from solver.words import listing

    fonts = listing([f"{digit_runs(v.known())} of the {FONT_WORDS.get(k, k + 's')}"
                     for k, v in sorted(p.fonts.items()) if len(v)])
    print(f"calibrated {entry(p.game).title} on {model} ({p.width}x{p.height}, {p.theme} theme): "
          + (f"learned the digits {fonts}" if fonts else "no digits to learn"))
    named = f' under the model name "{model}" (give --model to file it under the phone\'s)' \
        if args.image is not None and not args.model else ""
    print(f"profile stored in {path}{named}")
    return 0


# what the glyph templates' fonts are, in the games' words (vision's readers name them)
FONT_WORDS = {"cell": "cells", "badge": "adds badge", "score": "score", "stage": "stage", "card": "cards",
              "tile": "tiles"}


def digit_runs(digits: str) -> str:
    """Digits as runs: "1–9", "5", "0–3 and 7"."""
    values, runs = sorted(int(d) for d in digits), []
    for v in values:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    from solver.words import listing

    return listing(f"{a}–{b}" if b > a + 1 else f"{a} and {b}" if b == a + 1 else str(a) for a, b in runs)


def add_commands(commands) -> None:
    """Register `read` and `calibrate` on the `tapsolve` subcommand parser."""
    from assistant.options import add_run_options, non_negative_int
    from solver.games import NAMES

    games = ("auto", *NAMES)
    read = commands.add_parser("read", help="read the board off a screenshot or a phone")
    read.add_argument("image", nargs="?", help="a screenshot (PNG, JPEG, WebP, TIFF or BMP)")
    read.add_argument("--serial", help="read from this phone over ADB instead")
    read.add_argument("--game", choices=games, default="auto", help="which game (default: auto)")
    read.add_argument("--json", action="store_true", help="print the board JSON plus geometry")
    read.add_argument("--model", help="use (and update) the stored profile of this device model")
    read.add_argument("--first-row", type=non_negative_int, default=0,
                      help="board row at the top of the grid when the board is scrolled")
    add_run_options(read)  # (a read from a phone is logged, and recorded when it fails)
    read.set_defaults(run=run_read)
    cal = commands.add_parser("calibrate", help="rebuild the reading profile of a phone and game")
    cal.add_argument("--serial", help="the phone (default: the only one connected)")
    cal.add_argument("--game", choices=games, default="auto", help="which game (default: auto)")
    cal.add_argument("--image", help="calibrate from a screenshot instead of a phone")
    cal.add_argument("--model", help="device model to file the profile under (with --image)")
    add_run_options(cal)
    cal.set_defaults(run=run_calibrate)
