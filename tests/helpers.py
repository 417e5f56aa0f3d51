"""Helpers the test modules share: `tapsolve` as a person runs it, tap points, a phone's truth,
the stand-in phone and a solve's replay. Fixtures stay in conftest.py."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tapsolve(*args, port: int | None = None, env: dict | None = None, timeout: float = 120):
    """Run `tapsolve ARGS` as a user would (a new process), against the adb server at ``port``."""
    env = dict(env if env is not None else os.environ)
    if port is not None:
        env["ANDROID_ADB_SERVER_PORT"] = str(port)
    return subprocess.run([sys.executable, "-m", "assistant", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def centre(rect):
    """The whole pixel at the middle of an (x, y, w, h) rect: where a person taps it."""
    x, y, w, h = rect
    return x + w // 2, y + h // 2


def truth(vp) -> dict:
    """The app's ground truth, asked through adb like everything else."""
    return json.loads(vp.device.shell("phonesim truth"))


def standin_phone(preset="1080x2400", **faults):
    """A virtual phone running the stand-in app (tests/standin_app.py), with ``faults``."""
    from phonesim.phone import PRESETS, Faults, Phone
    from standin_app import StandInApp

    p = PRESETS[preset]
    return Phone(p, StandInApp(p), Faults(**faults))


def replayed(out):
    """The Number Match board a `tapsolve solve --json` answer ends on: its moves pushed on its board."""
    from solver.numbermatch import Add, Board, Pair, Rules, Wait

    board = Board.from_json(out["board"], rules=Rules(row_window=out.get("row_window", False)))
    for move in out["moves"]:
        board.push({"add": Add(), "wait": Wait()}.get(move["type"]) or Pair(*move["cells"]))
    return board


def sound_profile(width=200, height=400, **fields):
    """A Number Match reading profile of a ``width`` x ``height`` screen that the store's loader
    accepts (a lattice of nine columns down the screen), with ``fields`` (animations, points...)."""
    from vision.profile import Profile

    pitch = width // 10
    geometry = {"xs": [pitch // 2 + pitch * k for k in range(10)], "pitch": pitch, "top": height // 8,
                "bottom": height * 7 // 8, "solid": height // 8}
    return Profile("numbermatch", width, height, geometry=geometry, **fields)
