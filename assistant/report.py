"""`tapsolve report`: the newest recording and the log around it packed into one zip to send with
a report of a problem (README, "Reporting a problem")."""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

from assistant import record, runlog
from solver import platforms
from solver.errors import TapsolveError

# The log lines packed with a recording: those written this long before its run started and
# after it ended (the runs just before it on the same phone often tell how it came to be).
LOG_SPAN_S = 3600.0


def run_report(args) -> int:
    """Pack the newest recording (or ``args.bundle``) and the log around it into a zip."""
    if args.bundle:
        bundle = Path(args.bundle)
        if not (bundle / record.INDEX).is_file():
            raise TapsolveError(f"{args.bundle} is not a recording (it has no {record.INDEX}): give the "
                                "folder a failed run names")
    else:
        found = record.kept()
        if not found:
            raise TapsolveError(f"no recording in {record.folder()}: a run that goes wrong leaves one "
                                "(or run with --record DIR), then run `tapsolve report` again")
        bundle = found[-1]
    index = record.load_index(bundle)
    started = index.get("started_at") or (bundle / record.INDEX).stat().st_mtime
    out = Path(args.out) if args.out else platforms.state_folder() / "reports" / f"tapsolve-report-{bundle.name}.zip"
    lines = runlog.near(runlog.path(), started, LOG_SPAN_S)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if not args.out:  # (the reports kept no more than the recordings)
            for old in sorted(out.parent.glob("tapsolve-report-*.zip"), key=lambda p: p.stat().st_mtime)[:-record.KEEP]:
                old.unlink()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as pack:
            for path in sorted(p for p in bundle.rglob("*") if p.is_file()):
                pack.write(path, f"recording/{path.relative_to(bundle).as_posix()}")
            pack.writestr("tapsolve.log", "\n".join(lines) + "\n")
    except OSError as exc:
        raise TapsolveError(f"cannot write {out}: {exc.strerror or exc}: give --out a file in a folder you "
                            "can write") from None
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
    print(f"packed the recording of `tapsolve {index.get('command', '?')}` from {when} ({index.get('why', '?')})")
    print(f"and {len(lines)} log lines around it into {out}")
    print("attach this zip to your report of the problem (a new issue in tapsolve's tracker), with what the phone "
          "showed and what you expected; it holds the game's screens and tapsolve's own log, nothing else")
    return 0


def add_command(commands) -> None:
    """`tapsolve report` on the command line."""
    rep = commands.add_parser("report", help="pack the newest recording of a run that went wrong and the log "
                                             "around it into one zip to send with a report")
    rep.add_argument("bundle", nargs="?", metavar="BUNDLE", help="this recording instead of the newest")
    rep.add_argument("--out", metavar="ZIP", help="where to write the zip (default: in tapsolve's state folder)")
    rep.set_defaults(run=run_report)
