"""The `tapsolve` command line: parses arguments, runs a command, turns errors into one line."""

from __future__ import annotations

import argparse
import contextlib
import sys

from assistant.options import (GUIDE_KEYS, add_channel_option, add_fault_options, add_run_options, address,
                               host_or_address, non_negative_int, pairing_code, port, positive_float, positive_int,
                               stop_on_terminate)
from solver import games as registry
from solver.errors import TapsolveError


# -- the phone: guide, play, demo ---------------------------------------------------------------

def open_loop(args, say=print):
    from assistant import record
    from assistant.games import warming
    from assistant.link import Link
    from assistant.loop import Loop
    from assistant.phone.device import connect
    from assistant.session import CaptureChoice, Session

    recorder = record.for_run(args)  # (every line said is logged and recorded too)
    say = recorder.saying(say)
    if args.game != "auto":
        warming(args.game)  # (the solver loads while the phone is connected to)
    # what a read teaches the profile is stored for the next game; so is the capture chosen.
    # (which phone, by which channel: on stderr, beside the run's own lines)
    device = connect(args.serial, channel=args.channel, say=recorder.saying(tell), kept=CaptureChoice)
    link = Link(record.connected(recorder, device), say=say, recorder=recorder)
    return Loop(Session(link, say=say, keep=True), game=args.game, objective=args.objective, budget=args.budget, say=say,
                dismiss=not vars(args).get("no_dismiss"))


def run_guide(args) -> int:
    from assistant import display, guide

    if args.export:
        guide.export_folder(args.export)  # a bad folder is said before the phone is looked for
    elif not args.no_window:
        display.check("--no-window or --export DIR")  # before Qt, which aborts the process on a display it cannot use
    if args.export:
        return guide.export(open_loop(args), args.export)
    if args.no_window:  # (the steps on stdout, what is in front of the game on stderr)
        return guide.run_text(open_loop(args, say=lambda line: print(line, file=sys.stderr)))
    # (the window opens at once: the phone is connected to behind it)
    return guide.run_window(lambda: open_loop(args), tap_on_click=args.tap_on_click)


def run_play(args) -> int:
    from assistant import autoplay

    line = autoplay.StatusLine()
    loop = open_loop(args, say=line.say)
    if args.dry_run:
        return autoplay.dry_run(loop)
    return autoplay.play(loop, stages=args.stages, say=line.say, status=line)


def run_demo(args) -> int:
    from assistant import demo

    return demo.run(args)


def add_no_dismiss(parser) -> None:
    parser.add_argument("--no-dismiss", action="store_true",
                        help="leave ads and other apps to the player: say what is in front and wait "
                             "(default: BACK closes an ad once it can, and the game is brought back)")


def add_phone_options(parser):
    parser.add_argument("--serial", help="the phone to use (see tapsolve devices); needed with several")
    parser.add_argument("--game", choices=("auto", *registry.NAMES), default="auto",
                        help="the game on screen (default: recognise it)")
    # the guide, play and the demo plan alike: a most-points line presses "+" early and runs to
    # hundreds of moves on a board that scrolls
    parser.add_argument("--objective", choices=("fast", "score"), default="fast",
                        help="Number Match: fewest adds and moves (default), or most points")
    parser.add_argument("--budget", type=positive_float, default=1.0, help="seconds to search a plan (default 1)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="show the run's log on stderr as it is written: the phone, how its screen is "
                             "captured, which channel taps go by, every read, judgement and touch")
    add_channel_option(parser)
    add_run_options(parser)


# -- phones ------------------------------------------------------------------------------------

def devices(args) -> int:
    from assistant.phone_commands import run_devices

    return run_devices(args)


def connect(args) -> int:
    from assistant.phone_commands import run_connect

    return run_connect(args)


def disconnect(args) -> int:
    from assistant.phone_commands import run_disconnect

    return run_disconnect(args)


def pair(args) -> int:
    from assistant.phone_commands import run_pair

    return run_pair(args)


def phone(args) -> int:
    from phonesim.serve import run_phone

    return run_phone(args)


def add_app_options(parser, command: str | None, name: str) -> None:
    """Each game's own options (its phonesim app declares them: sizes, ads) on `tapsolve ``name```,
    when it is the command about to run or that is not known (they import the apps)."""
    if command in (None, name):
        from assistant import options
        from phonesim import apps

        apps.add_options(parser, options)


def add_phone_commands(commands, command: str | None = None) -> None:
    """`tapsolve devices` and `tapsolve phone` (the virtual phone; each game's own options only
    when ``command``, the one about to run, is `phone` or not known: they import the apps)."""
    dev = commands.add_parser("devices", help="list phones with their state, model and screen size")
    dev.add_argument("--scan", action="store_true",
                     help="first connect the emulators answering on this computer's usual adb ports")
    dev.add_argument("--verbose", "-v", action="store_true",
                     help="also say which channel each ready phone gets for taps, and why")
    dev.set_defaults(run=devices)
    con = commands.add_parser("connect", help="connect a phone on Wi-Fi or an emulator by its HOST:PORT")
    con.add_argument("address", type=host_or_address, metavar="HOST:PORT",
                     help="the phone's Wireless debugging address, or the emulator's adb port (HOST alone: "
                          "port 5555, as adb takes it)")
    con.set_defaults(run=connect)
    dis = commands.add_parser("disconnect", help="drop a phone connected over the network (all when none given)")
    dis.add_argument("address", type=host_or_address, nargs="?", metavar="HOST:PORT",
                     help="the one to drop (HOST alone: port 5555, as adb takes it)")
    dis.set_defaults(run=disconnect)
    par = commands.add_parser("pair", help="pair with a phone's Wireless debugging (Android 11+)")
    par.add_argument("address", type=address, metavar="HOST:PORT",
                     help='the address "Pair device with pairing code" shows (not the connect one)')
    par.add_argument("code", type=pairing_code, metavar="CODE", help="the 6-digit pairing code it shows")
    par.set_defaults(run=pair)
    sim = commands.add_parser("phone", help="run a virtual phone (phonesim) until Ctrl-C")
    sim.add_argument("--preset", default="1080x2400", help="device preset (default 1080x2400; "
                     "also 720x1600, 1440x3200, tablet-1600x2560, 1080x2340-2022, and the emulator "
                     "screens 720x1280, 900x1600, 1080x1920; flip-1080x2640, tablet-landscape-1080x1920, "
                     "1440x3200-encoder-1920 and android4.4-1080x1920 do what real devices do)")
    sim.add_argument("--game", choices=registry.NAMES, default=registry.NAMES[0],
                     help=f"the game the phone runs (default {registry.NAMES[0]})")
    sim.add_argument("--seed", type=non_negative_int, default=0, help="board seed (default 0)")
    sim.add_argument("--port", type=port, default=0, help="TCP port (default: a free one)")
    sim.add_argument("--theme", choices=("light", "dark"), default="light", help="the game's colours (default light)")
    add_fault_options(sim, tap_latency=0.0)
    add_app_options(sim, command, "phone")
    sim.add_argument("--secure", action="store_true", help="a secure window: screenshots are black")
    sim.add_argument("--unauthorized", action="store_true", help="never authorize the computer")
    sim.add_argument("--replay", metavar="BUNDLE",
                     help="show a recording's screens (the folder a failed run names) in order as the taps "
                          "arrive, on a phone of the recorded model and screen, instead of a game")
    sim.set_defaults(run=phone)


def warm(args) -> int:
    """Compile every game's solver and build its tables now (kept for every later run)."""
    import time

    from assistant.games import kind
    from solver import cache, jit, platforms

    jit.SayCompiling.said = True  # each game's step is said here
    for name in registry.NAMES:
        title, t0 = registry.entry(name).title, time.perf_counter()
        print(f"{title}: preparing the solver (compiled and built once, then kept)...", flush=True)
        kind(name).prepare()
        if jit.UNCACHED or cache.unkept:  # (what is not kept for one game is not for the next either)
            tried = [f"{path.parent} ({exc.strerror or exc})" for path, exc in cache.unkept]
            if jit.UNCACHED:
                tried.append(f"the compiled solver: {jit.UNCACHED}")
            raise TapsolveError(f"could not keep the solvers for later runs: cannot write {'; '.join(dict.fromkeys(tried))}; "
                                f"set {platforms.CACHE_SETTING} to a folder you can write and run `tapsolve warm` again")
        print(f"{title}: ready ({time.perf_counter() - t0:.1f} s)", flush=True)
    from vision import fontmatch

    fontmatch.drawn_digits()  # the reader's digits for tiny numbers, drawn once in each font
    return 0


# -- standard streams ----------------------------------------------------------------------------

class OutputLost(TapsolveError):
    """stdout cannot be written (a full disk, a closed descriptor): the run's output is lost."""


class Output:
    """stdout, whose failures to write become OutputLost (a person's one line) instead of an
    OSError traceback wherever a line happened to be printed; a reader gone away (BrokenPipeError)
    stays itself, for the quiet stop `main` gives it."""

    def __init__(self, stream, closed: bool = False):
        self._stream, self._closed = stream, closed

    def _guard(self, call, *args):
        if self._closed:
            raise OutputLost("cannot write the output: standard output is closed")
        try:
            return call(*args)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ENOSPC (/dev/full), EIO, a file closed under us
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise OutputLost(f"cannot write the output: {why}") from None

    def write(self, text):
        return self._guard(self._stream.write, text)

    def flush(self):
        return self._guard(self._stream.flush)

    # what else is asked of stdout, answered by the stream itself
    def fileno(self):
        return self._stream.fileno()

    def isatty(self):
        return self._stream.isatty()

    @property
    def encoding(self):
        return self._stream.encoding

    @property
    def errors(self):
        return self._stream.errors

    @property
    def buffer(self):
        return self._stream.buffer

    @property
    def closed(self):
        return self._stream.closed


def guard_streams() -> None:
    """Standard descriptors a caller closed (`tapsolve ... >&-`, `2>&-`) are opened on /dev/null,
    so that no file or socket the run opens takes their number (a child would write into it),
    and stdout goes through ``Output``: a lost output is one line, a closed stderr only silences
    the lines (the exit code is still the error's)."""
    import os

    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None or 2 in closed:
        sys.stderr = open(os.devnull, "w")
    stdout_closed = sys.stdout is None or 1 in closed
    if stdout_closed:
        sys.stdout = open(os.devnull, "w")
    if not isinstance(sys.stdout, Output):
        sys.stdout = Output(sys.stdout, closed=stdout_closed)


def tell(line: str) -> None:
    """The run's last line on stderr; a stderr that cannot take it (a full device) loses only the
    line, never the exit code."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def drop_output() -> None:
    """Point stdout at nothing, so that the exit's flush cannot fail again on what is left in it."""
    import os

    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.close(null)
    stream = sys.stdout._stream if isinstance(sys.stdout, Output) else sys.stdout
    sys.stdout = open(os.devnull, "w")
    with contextlib.suppress(OSError, ValueError):
        stream.close()  # what it still holds goes to /dev/null now, or nowhere


# -- the parser ------------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake in one line, pointing at --help."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def format_help(self) -> str:
        """argparse's help with what the command does first, then its usage and options."""
        formatter = self._get_formatter()
        formatter.add_text(self.description)
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        for group in self._action_groups:
            formatter.start_section(group.title)
            formatter.add_text(group.description)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def describe_commands(parser: argparse.ArgumentParser) -> None:
    """Each subcommand's --help starts with what it does: the line the command list gives it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            said = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if sub.description is None and said.get(name):
                    sub.description = said[name][:1].upper() + said[name][1:] + "."
                describe_commands(sub)


def version() -> str:
    """The installed tapsolve's version (pyproject's), or "unknown" for a copy run uninstalled."""
    from importlib import metadata

    try:
        return metadata.version("tapsolve")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``command`` (the one about to run, when known and not `solve`)
    leaves out the games' `solve` commands, whose modules import numpy and the solvers."""
    parser = Parser(
        prog="tapsolve",
        description="Reads number puzzles off an Android phone, solves them, and guides or taps the moves.")
    parser.add_argument("--version", action="version", version=f"tapsolve {version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    solve = commands.add_parser("solve", help="solve a board given as text")
    games = solve.add_subparsers(dest="game", metavar="GAME", parser_class=Parser)
    games.required = True
    for name in registry.NAMES if command in (None, "solve") else ():
        # each game's own `solve` command, from its assistant module
        registry.module("assistant.games", name).add_solve_command(games)

    guide = commands.add_parser("guide", help="show the next move over the live phone screen and follow the player",
                                epilog=f"keys in the window:  {GUIDE_KEYS}",
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_phone_options(guide)
    guide.add_argument("--export", metavar="DIR", help="write the whole plan as step PNGs and index.html instead of a window")
    guide.add_argument("--no-window", action="store_true",
                       help="say each step in the terminal instead of showing a window (Ctrl-C ends it)")
    guide.add_argument("--tap-on-click", action="store_true",
                       help="a click on the window's picture taps the phone there (default: off)")
    guide.set_defaults(run=run_guide)

    play = commands.add_parser("play", help="tap the moves on the phone, checking the screen after each")
    add_phone_options(play)
    play.add_argument("--stages", type=positive_int, default=1, help="Number Match stages to clear (default 1)")
    play.add_argument("--dry-run", action="store_true", help="print the taps instead of sending them")
    add_no_dismiss(play)
    play.set_defaults(run=run_play)

    demo = commands.add_parser("demo", help="play a game on the built-in virtual phone through real adb")
    demo.add_argument("--game", choices=registry.NAMES, default=registry.NAMES[0],
                      help=f"the game to play (default {registry.NAMES[0]})")
    demo.add_argument("--preset", default="1080x2400", help="virtual phone model (see tapsolve phone --help)")
    demo.add_argument("--seed", type=non_negative_int, default=1, help="board and phone seed (default 1)")
    demo.add_argument("--stages", type=positive_int, default=1, help="Number Match stages to clear (default 1)")
    add_fault_options(demo, tap_latency=0.05)
    add_channel_option(demo)
    add_run_options(demo)
    add_app_options(demo, command, "demo")
    demo.add_argument("--json", action="store_true",
                      help="print the run summary as one JSON object, last")
    demo.add_argument("--objective", choices=("fast", "score"), default="fast",
                      help="Number Match: fewest adds and moves (default, a short show), or most points")
    add_no_dismiss(demo)
    demo.add_argument("--no-window", action="store_true", help="play in the terminal even when a display exists")
    demo.set_defaults(run=run_demo)

    add_phone_commands(commands, command)
    commands.add_parser("warm", help="compile the solvers and build their tables now, so that the first "
                        "solve starts at once (scripts/setup runs it)").set_defaults(run=warm)
    from assistant import bench  # light to import: the solver loads only when a bench runs
    bench.register(commands, Parser, command)
    from assistant.read import add_commands as add_read_commands
    add_read_commands(commands)  # read, calibrate
    from assistant import replay, report
    replay.add_command(commands)
    report.add_command(commands)
    describe_commands(parser)
    return parser


EVERYDAY = """\
tapsolve reads number puzzles off an Android phone, solves them, and guides or taps the moves.

  tapsolve demo                           watch it play on the built-in virtual phone
  tapsolve devices                        list the phones connected over ADB
  tapsolve connect HOST:PORT              connect a phone on Wi-Fi or an emulator
  tapsolve guide                          show the next move over the phone's screen
  tapsolve play                           tap the moves on the phone itself
  tapsolve read SCREENSHOT.png            read a board off a screenshot
  tapsolve solve numbermatch "467956239 385113145 967616278"
  tapsolve solve flip9 315927486
  tapsolve solve fifteen "1 2 3 4, 5 6 7 8, 9 10 11 12, 13 14 _ 15"
  tapsolve warm                           compile the solvers now (set-up does it)

Every command: tapsolve --help; one command: tapsolve COMMAND --help"""


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(words[0] if words and not words[0].startswith("-") else None)
    args = parser.parse_args(argv)
    if args.command is None:
        print(EVERYDAY)
        return 0
    before = stop_on_terminate()
    try:
        if vars(args).get("logged"):
            start_log(words, args)
        if vars(args).get("json"):
            # stdout carries the one JSON document (options.print_json) and nothing else: every
            # human line of the run (progress, moves, notes) goes to stderr meanwhile
            args.stdout = sys.stdout
            with contextlib.redirect_stdout(sys.stderr):
                code = args.run(args)
        else:
            code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        kept = ended(args, None if code == 0 else "stopped" if code == 130 else f"exit code {code}")
        if kept:
            tell(f"tapsolve: {kept}")
        return code
    except TapsolveError as exc:
        if isinstance(exc, OutputLost):
            drop_output()
        kept = ended(args, str(exc))
        tell(f"tapsolve: error: {exc}" + (f" ({kept})" if kept else ""))
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (`tapsolve solve ... | head -1`): stop quietly, as `cat` does
        drop_output()
        return 0
    except KeyboardInterrupt:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # (stopping: a second Ctrl-C changes nothing, says nothing)
        kept = ended(args, "stopped (Ctrl-C)")
        tell("tapsolve: stopped" + (f" ({kept})" if kept else ""))
        return 130
    finally:
        if vars(args).get("logged"):
            from assistant import runlog

            runlog.stop()
        if before is not None:
            import signal

            for signum, handler in before.items():
                signal.signal(signum, handler)


def start_log(words: list[str], args) -> None:
    """The run's log (``assistant.runlog``); a --record folder that cannot take a recording is
    said now, before the phone is looked for."""
    from assistant import record, runlog

    if vars(args).get("record"):
        record.check_folder(args.record)
    runlog.start(words, verbose=bool(vars(args).get("verbose")), version=version())


def ended(args, why: str | None) -> str:
    """The run is over (``why``: how it went wrong, None when it did not): its recording written
    when it went wrong or --record asks; the words naming it ("" when none was written)."""
    from assistant import record

    if not vars(args).get("logged"):
        return ""
    where = record.finish(args, why, version())
    if where is None:
        return ""
    if why is None:
        return f"the run is recorded in {where}"
    return f"its last screens and events are recorded in {where}; `tapsolve report` packs them to send"


def program() -> None:
    """The `tapsolve` command: ``main``, then the exit. When no thread is left that the exit
    would wait for (daemon threads it never waits for), the exit skips the interpreter's
    teardown of numpy, OpenCV and every module (some 35 ms of a 0.6 s `read`): the exit handlers
    run and the output is flushed first, which is all that teardown would do that anyone sees.
    A teardown with a daemon thread still in C code (a video's decoder, the virtual phone's
    encoder in `demo` and `bench play`) can also abort the process after its work is done: seen
    once in 13 `bench play` runs. (Tests call ``main``, which returns.)"""
    import threading

    guard_streams()
    code = int(main() or 0)
    if any(thread is not threading.current_thread() and not thread.daemon for thread in threading.enumerate()):
        sys.exit(code)
    import atexit
    import os

    try:
        sys.stdout.flush()
    except (BrokenPipeError, OutputLost):
        pass  # the reader went away, or the output was already said to be lost
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    program()
