"""`tapsolve read` and `tapsolve calibrate`: read a board off a screenshot or a phone."""

from __future__ import annotations

import sys

from solver import platforms
from solver.errors import TapsolveError


def capture(serial: str | None):
    """(RGB screenshot, model) from a phone over ADB."""
    from assistant.phone import device

    phone = device.connect(serial, channel="exec")  # one lossless screenshot: no taps, no video to start
    return phone.capture(), phone.model


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

        image, model = capture(args.serial) if args.image is None else (vision.load_image(args.image), args.model)
        reading = session.read(image, model, args.game, note=note)
    if args.json:
        print_json(args, reading.to_json())
    else:
        print(reading.text())
    return 0


def run_calibrate(args) -> int:
    import vision
    from assistant import session
    from calibration import store

    image, model = capture(args.serial) if args.image is None else (vision.load_image(args.image), args.model or "image")
    notes = []
    reading = session.read(image, model, args.game, rebuild=True, note=notes.append)
    p = reading.profile
    if p is None:
        raise TapsolveError(f"no board on the screen to calibrate from (it shows {reading.screen}): "
                            "open a board and run again")
    if not session.trusted(reading):  # (a profile learned under a dialog or an ad misreads the clear board)
        raise TapsolveError(f"the board is not read for sure ({reading.describe_unsure()}): close what covers it "
                            "and run again")
    path = store.profile_path(model, p.width, p.height, p.game, p.theme)
    if p.changed:  # the store could not write it (and noted why)
        raise TapsolveError(f"cannot store the profile in {path.parent}: make it writable or set "
                            f"{platforms.CONFIG_SETTING} to a folder you can write")
    for line in notes:
        note(line)
    fonts = ", ".join(f"{k} {v.known()}" for k, v in sorted(p.fonts.items()) if len(v))
    print(f"calibrated {model} {p.width}x{p.height} {p.game} ({p.theme} theme): glyphs {fonts or 'none'}")
    print(f"profile stored in {path}")
    return 0


def add_commands(commands) -> None:
    """Register `read` and `calibrate` on the `tapsolve` subcommand parser."""
    from assistant.options import non_negative_int
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
    read.set_defaults(run=run_read)
    cal = commands.add_parser("calibrate", help="rebuild the reading profile of a phone and game")
    cal.add_argument("--serial", help="the phone (default: the only one connected)")
    cal.add_argument("--game", choices=games, default="auto", help="which game (default: auto)")
    cal.add_argument("--image", help="calibrate from a screenshot instead of a phone")
    cal.add_argument("--model", help="device model to file the profile under (with --image)")
    cal.set_defaults(run=run_calibrate)
