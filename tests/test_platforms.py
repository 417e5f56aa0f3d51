"""tapsolve on Windows and macOS, as far as a Linux machine can check it: in processes made to say
they are that system (tests/fakeplatform.py: ``sys.platform``, ``os.name``, and on Windows no
POSIX-only module or call), every module imports and every command shows its help; `read`,
`solve` and `demo --no-window` run; the phone lock holds and lets go; tesseract is looked for where
that system's installer puts it. And no POSIX-only call is made outside solver/platforms.py.

What this cannot prove (fakeplatform's docstring says it in full): Windows' paths, programs and
process flags (Linux's adb and tesseract run, a detached process is a session here, no console
sends Ctrl-C), the shell's known folders, and LockFileEx itself (the lock's stand-in is a POSIX
record lock on the same byte).
"""

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from helpers import ROOT

FAKE = ROOT / "tests" / "fakeplatform.py"
PACKAGES = ("solver", "vision", "calibration", "phonesim", "assistant", "tapsolve")
FIXTURE = ROOT / "fixtures" / "1080x2400" / "light" / "flip9_cards_midgame"
SYSTEMS = ("windows", "macos")


def system_env(tmp_path, **more) -> dict:
    """The environment of a person's computer, its folders in ``tmp_path``: a home (macOS's
    ~/Library is in it), Windows' %LOCALAPPDATA%, and no XDG folder or display set (Windows and
    macOS have none); adbutils' adb named, as its wheel for Windows names adb.exe."""
    from adbutils._utils import _get_bin_dir

    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "DISPLAY"}
    env.update(HOME=str(tmp_path / "home"), LOCALAPPDATA=str(tmp_path / "AppData" / "Local"),
               PYTHONPATH=str(ROOT), ADBUTILS_ADB_PATH=os.path.join(_get_bin_dir(), "adb"))
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(more)
    return env


def run_as(system: str, *args, env: dict, timeout: float = 300, code: str | None = None):
    """`tapsolve ARGS` (or Python ``code`` with ARGS) in a process made to say it runs on ``system``."""
    how = ["-c", code] if code is not None else ["-m", "assistant"]
    return subprocess.run([sys.executable, str(FAKE), system, *how, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def folders(system: str, tmp_path) -> tuple:
    """Where the cache and config folders are on ``system`` (platformdirs' conventions)."""
    if system == "windows":
        local = tmp_path / "AppData" / "Local" / "tapsolve"
        return local / "Cache", local
    library = tmp_path / "home" / "Library"
    return library / "Caches" / "tapsolve", library / "Application Support" / "tapsolve"


# -- the code itself -----------------------------------------------------------------------------

POSIX_ONLY_MODULES = {"fcntl", "termios", "resource", "pwd", "grp"}
POSIX_ONLY_OS = {"getuid", "geteuid", "getgid", "getegid", "getpgid", "getpgrp", "setsid", "setpgrp",
                 "killpg", "fork", "pread", "pwrite", "getloadavg", "sched_getaffinity", "nice",
                 "O_NOFOLLOW", "O_CLOEXEC", "O_NONBLOCK"}
POSIX_ONLY_SIGNALS = {"SIGKILL", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGCHLD"}
POSIX_ONLY_OPTIONS = {"start_new_session", "preexec_fn", "process_group"}


def posix_only_uses(source: str) -> list[str]:
    """The POSIX-only imports, calls and options in a module's source, and its own looks at which
    system it runs on (``sys.platform``, ``os.name``); a signal looked for first with
    ``hasattr(signal, NAME)`` is guarded, not counted."""
    tree = ast.parse(source)
    guarded = {node.args[1].value for node in ast.walk(tree)
               if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "hasattr"
               and len(node.args) == 2 and isinstance(node.args[1], ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name in POSIX_ONLY_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module in POSIX_ONLY_MODULES:
            found.append(f"from {node.module} import")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner, name = node.value.id, node.attr
            if (owner == "os" and name in POSIX_ONLY_OS | {"name"} or owner == "sys" and name == "platform"
                    or owner == "signal" and name in POSIX_ONLY_SIGNALS - guarded):
                found.append(f"{owner}.{name}")
        elif isinstance(node, ast.keyword) and node.arg in POSIX_ONLY_OPTIONS:
            found.append(f"{node.arg}=")
    return found


def test_no_posix_only_call_outside_the_platforms_module():
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            uses = posix_only_uses(path.read_text())
            if uses and name != "solver/platforms.py":
                found[name] = uses
    assert found == {}


def test_the_check_finds_what_it_looks_for():
    source = textwrap.dedent("""
        import fcntl, os, signal, subprocess, sys
        from pwd import getpwuid
        os.getuid(); os.killpg(1, signal.SIGKILL)
        subprocess.Popen(["x"], start_new_session=True)
        if sys.platform == "win32" or os.name == "nt": pass
        quiet = [signal.SIGTERM] + ([signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])
    """)
    assert posix_only_uses(source) == ["import fcntl", "from pwd import", "os.getuid", "os.killpg", "signal.SIGKILL",
                                       "start_new_session=", "sys.platform", "os.name"]


# -- every command, as on Windows and on macOS -------------------------------------------------------

EVERY_COMMAND = """
import argparse, contextlib, io, json, importlib, sys
from pathlib import Path

imported = []
for package in %r:
    for path in sorted(Path(package).rglob("*.py")):
        if path.name == "__main__.py":  # (its import runs the command: `-m assistant` runs it below)
            continue
        parts = path.with_suffix("").parts
        importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        imported.append(path.as_posix())

from assistant import cli, display
from calibration import store
from solver import cache
from vision import tesseract

def commands(parser, words=()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*words, name)
                yield from commands(sub, (*words, name))

helps = {}
for words in commands(cli.build_parser()):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            code = cli.main([*words, "--help"])
        except SystemExit as exc:
            code = exc.code
    # (what the command does first, then its usage)
    helps[" ".join(words)] = (code, out.getvalue().find("usage: tapsolve " + " ".join(words)) > 0)
print(json.dumps({"imported": imported, "helps": helps, "display": display.problem(), "cache": str(cache.cache_dir()),
                  "profiles": str(store.profiles_folder()), "install": tesseract.INSTALL}))
""" % (PACKAGES,)


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_module_imports_and_every_command_shows_its_help(system, tmp_path):
    run = run_as(system, env=system_env(tmp_path), code=EVERY_COMMAND)
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.splitlines()[-1])
    sources = {p.relative_to(ROOT).as_posix() for package in PACKAGES for p in (ROOT / package).rglob("*.py")
               if p.name != "__main__.py"}
    assert set(seen["imported"]) == sources
    assert {"solve flip9", "guide", "play", "demo", "devices", "phone", "warm", "bench play", "read",
            "calibrate"} <= set(seen["helps"])
    assert {words: said for words, said in seen["helps"].items() if said != [0, True]} == {}
    assert seen["display"] is None  # a window there needs no X server, nor DISPLAY set
    cache_folder, config_folder = folders(system, tmp_path)
    assert (seen["cache"], seen["profiles"]) == (str(cache_folder), str(config_folder / "profiles"))
    assert {"windows": "`winget install UB-Mannheim.TesseractOCR`",
            "macos": "`brew install tesseract`"}[system] in seen["install"]


@pytest.mark.slow  # (whole processes under a faked platform: the full suite, not the inner loop)
@pytest.mark.parametrize("system", SYSTEMS)
def test_read_and_solve_run(system, tmp_path):
    env = system_env(tmp_path)
    read = run_as(system, "read", "--json", f"{FIXTURE}.png", env=env)
    assert read.returncode == 0, read.stderr[-3000:]
    truth = json.loads(FIXTURE.with_suffix(".json").read_text())["state"]
    board = json.loads(read.stdout)["board"]
    assert (board["cards"], board["must"]) == (truth["cards"], truth["must"])
    assert any(folders(system, tmp_path)[0].glob("drawn-digits-*.npy"))  # kept in that system's cache folder
    solve = run_as(system, "solve", "flip9", "315927486", env=env)
    assert solve.returncode == 0 and solve.stdout.splitlines()[-1] == "6 swaps (optimal)", solve.stderr[-3000:]


@pytest.mark.phone  # (a whole demo: a virtual phone behind a private adb server)
@pytest.mark.parametrize("system, game", [("windows", "numbermatch"), ("macos", "flip9")])
def test_the_demo_plays_in_the_terminal(system, game, tmp_path):
    """(Its virtual phone draws with Pillow's own font there: neither system has Roboto nor DejaVu
    Sans in its font folders, which are empty here.)"""
    run = run_as(system, "demo", "--no-window", "--game", game, "--json", env=system_env(tmp_path))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-3000:]
    summary = json.loads(run.stdout)
    assert summary["cleared_stages"] == 1 and summary["wrong_taps"] == 0 and summary["moves"] > 0


# -- the phone lock, as on Windows ------------------------------------------------------------------

HOLD = """
import sys, time
from assistant.phone.lock import PhoneLock, PhoneInUse
lock = PhoneLock(sys.argv[1])
try:
    print("held" if lock.acquire() else "unguarded", lock.path, flush=True)
except PhoneInUse as exc:
    print("refused", exc, flush=True)
    sys.exit(1)
if sys.argv[2:] == ["release"]:
    lock.release()
    print("released", flush=True)
else:
    time.sleep(600)
"""


@pytest.mark.slow  # (whole processes under a faked platform: the full suite, not the inner loop)
def test_the_phone_lock_holds_and_a_killed_holder_lets_go_on_windows(tmp_path):
    env, serial = system_env(tmp_path), "127.0.0.1:5555"
    first = subprocess.Popen([sys.executable, str(FAKE), "windows", "-c", HOLD, serial], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = first.stdout.readline().split()
        assert said[:1] == ["held"], first.stderr.read() if first.poll() is not None else said
        path = folders("windows", tmp_path)[0] / "locks" / "phone-127.0.0.1%3A5555.lock"
        assert said[1] == str(path) and path.read_text().startswith(f"{first.pid}\n{serial}\n")
        second = run_as("windows", serial, env=env, code=HOLD, timeout=60)
        assert second.returncode == 1 and second.stdout.startswith(
            f"refused the phone {serial} is in use by another tapsolve (pid {first.pid}: `python -c ...`): "), \
            second.stdout + second.stderr
    finally:
        first.send_signal(signal.SIGKILL)  # no handler runs: only the system lets go
        first.wait(timeout=10)
    third = run_as("windows", serial, "release", env=env, code=HOLD, timeout=60)
    assert third.stdout.split()[::2] == ["held", "released"], third.stdout + third.stderr
    assert not path.exists()


# -- tesseract, where each system's installer puts it ------------------------------------------------

def read_with(system: str, tmp_path, **env):
    """`tapsolve read` of the fixture with a PATH that finds no tesseract, and ``env``."""
    (tmp_path / "bin").mkdir(exist_ok=True)
    return run_as(system, "read", f"{FIXTURE}.png", env=system_env(tmp_path, PATH=str(tmp_path / "bin"), **env))


@pytest.mark.slow  # (whole processes under a faked platform: the full suite, not the inner loop)
def test_tesseract_is_found_in_the_windows_installers_folder_then_by_tesseract_cmd(tmp_path):
    real = shutil.which("tesseract")
    program_files = tmp_path / "Program Files"
    (program_files / "Tesseract-OCR").mkdir(parents=True)
    (program_files / "Tesseract-OCR" / "tesseract.exe").symlink_to(real)
    found = read_with("windows", tmp_path, ProgramFiles=str(program_files))
    assert found.returncode == 0 and found.stdout.startswith("Flip 9: cards 359718246"), found.stderr[-2000:]
    named = read_with("windows", tmp_path, TESSERACT_CMD=real)
    assert named.returncode == 0 and named.stdout.startswith("Flip 9: cards 359718246"), named.stderr[-2000:]
    missing = read_with("windows", tmp_path, ProgramFiles=str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and missing.stderr.strip().splitlines()[-1] == (
        "tapsolve: error: tesseract is not installed: install it with `winget install UB-Mannheim.TesseractOCR` "
        "(in a checkout: `powershell -ExecutionPolicy Bypass -File scripts\\setup.ps1`), then run again")


@pytest.mark.slow  # (whole processes under a faked platform: the full suite, not the inner loop)
def test_a_missing_tesseract_names_homebrew_on_macos(tmp_path):
    assert not any(os.path.exists(p) for p in ("/opt/homebrew/bin/tesseract", "/usr/local/bin/tesseract")), \
        "this machine has tesseract where Homebrew puts it: a macOS without it cannot be made here"
    missing = read_with("macos", tmp_path)
    assert missing.returncode == 1 and missing.stderr.strip().splitlines()[-1] == (
        "tapsolve: error: tesseract is not installed: install it with `brew install tesseract` "
        "(in a checkout: `bash scripts/setup`), then run again")
    named = read_with("macos", tmp_path, TESSERACT_CMD=shutil.which("tesseract"))
    assert named.returncode == 0 and named.stdout.startswith("Flip 9: cards 359718246"), named.stderr[-2000:]
