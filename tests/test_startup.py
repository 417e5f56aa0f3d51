"""Commands that do not solve start without numba; a solve loads only its own game's kernel; a
first run says what it compiles and builds, and `tapsolve warm` does both ahead."""

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, tapsolve

FIXTURES = ROOT / "fixtures" / "1080x2400" / "light"


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code``."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return set(json.loads(run.stdout.splitlines()[-1]))


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_the_command_line_the_reader_and_the_phone_do_not_import_numba():
    loaded = modules_after(f"""
from assistant import cli
cli.build_parser().format_help()
import assistant.read, assistant.phone.device, assistant.link, assistant.games, phonesim.serve
import vision
from vision.image import load_image
for name in ("numbermatch_after_adds.png", "flip9_buttons_midgame.png"):
    reading = vision.read(load_image({str(FIXTURES)!r} + "/" + name))
    assert reading.screen == "board", name
""")
    assert {"assistant.cli", "vision.numbermatch", "vision.flip9", "solver.flip9"} <= loaded
    assert "numba" not in loaded


def test_a_solve_loads_only_its_own_kernel():
    loaded = modules_after("""
from solver.numbermatch import search
from solver.numbermatch import Board
assert search.solve(Board.parse("1955"), "fast").status == "solved"
""")
    assert "solver.numbermatch.kernel" in loaded and "solver._flip9_kernel" not in loaded
    loaded = modules_after("""
from solver import flip9
assert flip9.solve(flip9.State.parse("213456789")) == [(1, 2)]
""")
    assert "solver._flip9_kernel" in loaded and "solver.numbermatch.kernel" not in loaded


def test_a_cached_kernel_loads_without_the_rest_of_numba():
    # numba's own load imports every implementation registry first (half a second of a solve)
    solve = """
from solver.numbermatch import search
from solver.numbermatch import Board
assert search.solve(Board.parse("1955"), "fast").status == "solved"
"""
    modules_after(solve)  # compiles and caches the kernel if the cache is cold
    loaded = modules_after(solve)
    assert "solver.numbermatch.kernel" in loaded
    assert not {"numba.np.linalg", "numba.np.arraymath", "numba.typed.typeddict"} & loaded


def test_listing_phones_needs_neither_numba_nor_opencv_nor_numpy():
    loaded = modules_after("""
import sys
from assistant import cli
from assistant.phone import device, server
cli.build_parser("devices").parse_args(["devices"])
# requests (which adbutils imports to install apps) stands in until something uses it
assert type(sys.modules["requests"]) is server._ImportedWhenUsed
""")
    assert "adbutils" in loaded
    assert not {"numba", "cv2", "numpy", "solver.numbermatch.search", "assistant.games", "urllib3"} & loaded


def test_the_stand_in_for_requests_imports_it_when_used():
    loaded = modules_after("""
from assistant.phone import device
import requests
assert requests.exceptions.RequestException.__module__ == "requests.exceptions"
""")
    assert "urllib3" in loaded


def test_reading_a_screenshot_loads_no_solver_profile_store_or_adb():
    loaded = modules_after(f"""
from assistant import cli
assert cli.main(["read", {str(FIXTURES / "flip9_buttons_midgame.png")!r}]) == 0
""")
    assert "vision.flip9" in loaded
    assert not {"numba", "solver.numbermatch.search", "calibration.store", "adbutils", "assistant.games"} & loaded


def test_the_solve_commands_are_there_for_solve_and_for_help():
    from assistant import cli

    for command in (None, "solve"):
        solve = cli.build_parser(command).parse_args(["solve", "flip9", "315927486"])
        assert solve.game == "flip9"


def test_the_command_exits_at_once_yet_runs_its_exit_handlers_and_flushes(tmp_path):
    # `program` skips the interpreter's teardown: what the teardown would have done that anyone
    # sees (exit handlers, such as stopping an adb server tapsolve started; buffered output;
    # the exit code) must still happen
    mark = tmp_path / "ran"
    script = f"""
import atexit, sys
atexit.register(lambda: open({str(mark)!r}, "w").write("exit handler ran"))
sys.argv = ["tapsolve", *sys.argv[1:]]
from assistant.cli import program
program()
"""
    run = subprocess.run([sys.executable, "-c", script, "solve", "numbermatch", "19", "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "solved"
    assert mark.read_text() == "exit handler ran"
    mark.unlink()
    bad = subprocess.run([sys.executable, "-c", script, "solve", "numbermatch", "1x9"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("tapsolve: error:") and mark.exists()


def test_a_daemon_thread_left_running_does_not_bring_back_the_teardown_but_a_thread_waited_for_does(tmp_path):
    # a teardown with a daemon thread still in C code (a video's decoder, the virtual phone's
    # encoder in `demo` and `bench play`) can abort the process after its work is done: only a
    # thread the exit waits for (not a daemon) keeps the interpreter's own exit
    mark, torn = tmp_path / "ran", tmp_path / "torn down"
    script = f"""
import atexit, sys, threading, time
atexit.register(lambda: open({str(mark)!r}, "w").write("exit handler ran"))

class Teardown:
    def __del__(self, open=open):  # (the builtins go before this module's globals do)
        open({str(torn)!r}, "w").write("the interpreter tore its modules down")

kept = Teardown()
def until_the_main_thread_ends():  # (a thread the exit waits for, which then ends by itself)
    while threading.main_thread().is_alive():
        time.sleep(0.01)

waited = sys.argv.pop(1) == "waited"
threading.Thread(target=until_the_main_thread_ends if waited else time.sleep, args=() if waited else (60,),
                 daemon=not waited).start()
sys.argv = ["tapsolve", *sys.argv[1:]]
from assistant.cli import program
program()
"""
    for thread in ("daemon", "waited"):
        run = subprocess.run([sys.executable, "-c", script, thread, "solve", "numbermatch", "19", "--json"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["status"] == "solved" and mark.read_text() == "exit handler ran"
        assert torn.exists() == (thread == "waited"), thread
        mark.unlink()


def test_the_warm_up_loads_every_kernel_a_solve_calls_before_its_clock_starts():
    # a kernel loaded (or, after an install, compiled) inside solve's budget overran it by a second
    run = subprocess.run([sys.executable, "-c", """
import json
from solver.numbermatch import search
from solver.numbermatch import kernel as K
from solver.numbermatch import Board

def loaded():
    return {name for name, f in vars(K).items() if getattr(f, "signatures", None)}

search.warm_up()
warm = loaded()
# 42 numbers whose fewest moves take seconds to prove: the search reaches the pairs floor
board = Board.parse("119713399257335733569785958511653777889194", adds_left=4)
search.solve(board, "fast", budget=0.3)
print(json.dumps([sorted(warm), sorted(loaded() - warm)]))
"""], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    warm, later = json.loads(run.stdout.splitlines()[-1])
    assert {"run", "cost_floor", "pairs_floor"} <= set(warm)
    assert later == []


def fresh_caches(tmp_path) -> dict:
    """The environment of a first run: no compiled kernel, no table built."""
    return dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), XDG_CACHE_HOME=str(tmp_path / "cache"))


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_a_first_solve_says_on_stderr_that_it_compiles_and_a_later_one_says_nothing(tmp_path):
    env = fresh_caches(tmp_path)
    first, later = (tapsolve("solve", "flip9", "315927486", "--json", env=env) for _ in range(2))
    assert first.returncode == later.returncode == 0
    assert json.loads(first.stdout)["moves"] == json.loads(later.stdout)["moves"]  # stdout stays JSON
    assert first.stderr == "tapsolve: compiling the solver (first run only; `tapsolve warm` does it ahead)...\n"
    assert later.stderr == ""


def test_building_the_tables_shows_a_bar_on_stderr(monkeypatch, capsys):
    from solver import fifteen, jit

    monkeypatch.setattr(jit.SayCompiling, "said", True)  # a compile of the build is said apart
    monkeypatch.setattr(fifteen, "GROUPS", ((13, 14, 15), (12,)))  # 4096 and 16 entries
    fifteen.build_tables()
    out, err = capsys.readouterr()
    title = "tapsolve: building the 15-puzzle's tables (once) "
    assert out == "" and err.splitlines() == [title + "[" + "." * 20 + "] 0%", title + "[" + "#" * 20 + "] 100%"]
    assert max(map(len, err.splitlines())) < 80  # a terminal redraws it in place


@pytest.mark.slow
def test_warm_compiles_and_builds_what_every_first_solve_needs(tmp_path):
    env = fresh_caches(tmp_path)
    warm = tapsolve("warm", env=env, timeout=900)
    assert warm.returncode == 0, warm.stderr
    assert "15-puzzle: ready" in warm.stdout and (tmp_path / "cache" / "tapsolve").is_dir()
    for game, board in (("numbermatch", "467956239 385113145 967616278"), ("flip9", "315927486"),
                        ("fifteen", "1 2 3, 4 5 6, 0 7 8"), ("fifteen", "5 1 3 4, 9 2 7 8, 13 6 11 12, 0 10 14 15"),
                        ("fifteen", "1 2 3 4 5, 6 7 8 9 10, 11 12 13 14 15, 16 17 18 19 20, 21 22 23 0 24")):
        first = tapsolve("solve", game, board, "--json", env=env)
        assert first.returncode == 0 and first.stderr == "", (game, first.stderr)  # nothing compiled or built


def test_play_that_names_its_game_loads_the_solver_while_it_connects_to_the_phone(monkeypatch, tmp_path):
    """Connecting to a phone (adb, the scrcpy server's start) takes a second or so, mostly
    waiting: `play --game G` loads G's solver meanwhile, where it once began to with the first
    screen's capture, and the first plan waited for it after the read (0.1 s of a steady game on
    phonesim's real profile). Here the phone is never found: the warm-up had begun anyway."""
    import threading

    from assistant import cli, games
    from assistant.phone import device
    from solver.errors import TapsolveError

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    warmed = threading.Event()
    monkeypatch.setattr(games, "_warming", {})
    monkeypatch.setattr(games.kind("numbermatch"), "warm", staticmethod(warmed.set))
    seen = []

    def connect(*args, **kwargs):
        seen.append(warmed.wait(10))  # (the warm-up runs in a thread of its own)
        raise TapsolveError("no phone found: connect one and run `tapsolve devices`")

    monkeypatch.setattr(device, "connect", connect)
    assert cli.main(["play", "--game", "numbermatch", "--no-record"]) != 0
    assert seen == [True]
