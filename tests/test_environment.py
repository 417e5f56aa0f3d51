"""A misbehaving environment: no folder to keep compiled kernels in, an adb that cannot start, a
DISPLAY no X server answers, a terminal closed under the demo. Each is one line, and nothing
tapsolve started is left running."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from helpers import ROOT, tapsolve

from assistant import display
from assistant.phone import server
from phonesim.harness import free_port
from solver import cache, jit
from solver.errors import TapsolveError


# -- compiled kernels ------------------------------------------------------------------------------

@pytest.fixture
def fresh_cache_choice():
    cache._first_usable.cache_clear()
    yield
    cache._first_usable.cache_clear()


def test_kernels_stay_beside_the_sources_when_that_folder_can_be_written(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(jit, "KERNEL_FOLDERS", (tmp_path,))
    assert jit.kernel_cache() == (None, "")


def test_kernels_go_to_the_cache_folder_when_the_install_is_read_only(monkeypatch, tmp_path, fresh_cache_choice):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(jit, "KERNEL_FOLDERS", (ROOT / "README.md",))  # a file: no __pycache__ under it
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert jit.kernel_cache() == (str(tmp_path / "tapsolve" / "numba"), "")


def test_no_home_falls_back_to_a_private_temporary_folder(monkeypatch, tmp_path, fresh_cache_choice):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "/dev/null")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir reads TMPDIR again
    folder = cache.cache_dir()
    assert folder.parent == tmp_path and oct(folder.stat().st_mode & 0o777) == "0o700"


def test_a_temporary_folder_of_another_owner_or_open_to_others_is_not_used(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    taken = tmp_path / f"tapsolve-{os.getuid()}"
    taken.mkdir(mode=0o777)
    os.chmod(taken, 0o777)  # anyone could have put a compiled "kernel" there
    assert cache.private_temp() is None


def test_with_no_writable_folder_kernels_compile_uncached(monkeypatch, fresh_cache_choice):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(jit, "KERNEL_FOLDERS", (ROOT / "README.md",))
    monkeypatch.setenv("XDG_CACHE_HOME", "/dev/null/cache")
    monkeypatch.setattr(cache, "private_temp", lambda: None)
    folder, why = jit.kernel_cache()
    assert folder is None and "/dev/null/cache/tapsolve/numba cannot be written" in why


def read_only_install(tmp_path) -> list[str]:
    """A command prefix running with this checkout read-only and HOME unusable (a system-wide
    install run by another user), in a mount namespace of its own; skips where that cannot be made."""
    script = tmp_path / "ro.sh"
    script.write_text(f'mount --bind -o ro {ROOT} {ROOT} || exit 99\nexec env -u XDG_CACHE_HOME -u NUMBA_CACHE_DIR '
                      f'HOME=/dev/null TMPDIR={tmp_path} "$@"\n')
    if not shutil.which("unshare") or subprocess.run(["unshare", "-m", "sh", str(script), "true"],
                                                     capture_output=True).returncode != 0:
        pytest.skip("no mount namespace here to make the checkout read-only")
    return ["unshare", "-m", "sh", str(script)]


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_a_read_only_install_without_home_solves(tmp_path):
    run = subprocess.run([*read_only_install(tmp_path), sys.executable, "-m", "assistant", "solve", "flip9", "315927486"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0 and "6 swaps (optimal)" in run.stdout, run.stderr
    assert "Traceback" not in run.stderr
    assert (tmp_path / f"tapsolve-{os.getuid()}" / "numba").is_dir()  # kept for the next run


def test_warm_with_nowhere_to_keep_its_tables_says_so_and_fails(tmp_path):
    """It built the tables, said "ready" for each game and exited 0 having kept nothing."""
    (tmp_path / "a-file").write_text("")
    (tmp_path / "tmp").mkdir()
    (tmp_path / "tmp" / f"tapsolve-{os.getuid()}").write_text("")  # (no private temporary folder either)
    run = tapsolve("warm", env=dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "a-file" / "cache"),
                                    TMPDIR=str(tmp_path / "tmp")), timeout=600)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.strip().splitlines() == [
        f"tapsolve: error: could not keep the solvers for later runs: cannot write {tmp_path}/a-file/cache/tapsolve "
        "(Not a directory); set XDG_CACHE_HOME to a folder you can write and run `tapsolve warm` again"]
    assert "Flip 9: ready" not in run.stdout


def test_a_read_only_cache_that_holds_the_tables_is_used_not_built_again(tmp_path):
    """A cache folder that cannot be written (mounted read-only here, in a mount namespace of
    the test's own) but holds the tables was passed over for the private temporary folder,
    where they were built again."""
    cache_home, temp = tmp_path / "cache", tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home), TMPDIR=str(temp))
    assert tapsolve("solve", "flip9", "315927486", env=env).returncode == 0  # the table, kept
    table = next((cache_home / "tapsolve").glob("flip9-distances-*.npy"))
    script = tmp_path / "ro.sh"
    script.write_text(f'mount --bind -o ro {cache_home} {cache_home} || exit 99\nexec "$@"\n')
    if not shutil.which("unshare") or subprocess.run(["unshare", "-m", "sh", str(script), "true"],
                                                     capture_output=True).returncode != 0:
        pytest.skip("no mount namespace here to make the cache read-only")
    run = subprocess.run(["unshare", "-m", "sh", str(script), sys.executable, "-m", "assistant", "solve", "flip9",
                          "315927486"], cwd=ROOT, env=dict(env, PYTHONPATH=str(ROOT)), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and "6 swaps (optimal)" in run.stdout, run.stderr
    assert not list(temp.glob(f"tapsolve-{os.getuid()}/{table.name}"))  # read where it was, not built again
    assert table.is_file()


# -- adb that cannot start -----------------------------------------------------------------------------

def test_adb_failure_reads_adbs_fatal_line():
    log = ("11-27 07:51:19.811 23741 23741 F adb     : adb_utils.cpp:316 Cannot mkdir '/dev/null/.android': "
           "Not a directory\n")
    why = server.adb_failure(log)
    assert why.startswith("Cannot mkdir '/dev/null/.android': Not a directory") and "set HOME" in why
    assert server.adb_failure("") == "it exited without a word"


def test_an_adb_server_that_cannot_start_says_why():
    # in a process of its own: adb makes $HOME/.android first, and stops when it cannot
    from adbutils._utils import _get_bin_dir

    port = free_port()
    code = ("from assistant.phone import server\n"
            "try:\n    print(server.start_server(%d))\nexcept server.AdbServerFailed as exc:\n    print(exc)\n"
            "for process in server._started.values():\n    process.kill()  # started after all: stopped by pid"
            % port)
    # the real adb (adbutils' own), not one another test put on PATH
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, HOME="/dev/null", ADBUTILS_ADB_PATH=os.path.join(_get_bin_dir(), "adb")))
    assert "stopped at its start: Cannot mkdir '/dev/null/.android': Not a directory" in run.stdout, (run.stdout, run.stderr)


def test_the_demo_says_why_its_adb_server_cannot_start():
    run = tapsolve("demo", "--no-window", env=dict(os.environ, HOME="/dev/null"), timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "adb server could not start: Cannot mkdir '/dev/null/.android'" in run.stderr.strip().splitlines()[-1]


# An adb server that answers its port once, then exits as adb does when it cannot make
# $HOME/.android (what HOME=/dev/null above does, when the harness's first look comes first)
EXITING_ADB = """import socket, sys
port = int(sys.argv[sys.argv.index("-P") + 1])
listener = socket.create_server(("127.0.0.1", port))
listener.accept()[0].close()
print("adb E 11-27 12:00:00 1 1 adb_auth_host.cpp:391] Cannot mkdir '/dev/null/.android': Not a directory")
sys.exit(1)
"""


def test_an_adb_server_that_exits_just_after_it_answers_is_one_line(tmp_path):
    fake = tmp_path / "adb"
    fake.write_text(f"#!{sys.executable}\n{EXITING_ADB}")
    fake.chmod(0o755)
    script = ("import sys; sys.argv[0] = 'tapsolve'; import phonesim.harness as h; "
              f"h.adb_binary = lambda: {str(fake)!r}; from assistant.cli import program; program()")
    run = subprocess.run([sys.executable, "-c", script, "demo", "--no-window"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.splitlines() == [run.stderr.strip()]  # one line
    assert run.stderr.startswith("tapsolve: error: the demo's private adb server could not start: ")
    assert "Cannot mkdir '/dev/null/.android'" in run.stderr


def test_an_adb_server_gone_by_the_time_its_start_is_checked_is_said_from_its_log(tmp_path, monkeypatch):
    """The same server, exited before the harness asks whether its own process answered: its
    log says why, not "another program took the port" (which only a silent exit means)."""
    import phonesim.harness as harness_module

    fake = tmp_path / "adb"
    fake.write_text(f"#!{sys.executable}\n{EXITING_ADB}")
    fake.chmod(0o755)
    monkeypatch.setattr(harness_module, "adb_binary", lambda: str(fake))
    harness = harness_module.Harness()
    reachable = harness_module._reachable

    def answered_then_gone(port, host="127.0.0.1"):
        if not reachable(port, host):
            return False
        harness._process.wait(timeout=30)  # (its one answer given, it exits)
        return True

    monkeypatch.setattr(harness_module, "_reachable", answered_then_gone)
    with pytest.raises(harness_module.HarnessError, match="^the adb server exited at start: .*Cannot mkdir"):
        harness.start()


# -- a display no X server answers ----------------------------------------------------------------

def unused_display() -> str:
    for number in range(4242, 4342):
        path = f"{display.X_UNIX_DIR}/X{number}"
        if not os.path.exists(path) and not display._x_server_answers(f":{number}"):
            return f":{number}"
    pytest.skip("no unused display number")


def test_a_display_nothing_answers_is_said(monkeypatch):
    name = unused_display()
    monkeypatch.setenv("DISPLAY", name)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    assert display.problem() == f"the display {name} cannot be used (no X server answers there): run with --no-window"
    monkeypatch.delenv("DISPLAY")
    assert "DISPLAY is not set" in display.problem()
    with pytest.raises(TapsolveError, match="--export DIR"):
        display.check("--export DIR")


def test_a_display_that_answers_is_usable(monkeypatch, tmp_path):
    path = str(tmp_path / "x11")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(path)
        listener.listen(1)
        monkeypatch.setenv("DISPLAY", f"{path}:0")  # launchd's form: the socket's path, then the number
        assert display.problem() is None


@pytest.mark.parametrize("command", ["guide", "demo"])
def test_guide_and_demo_do_not_abort_on_a_dead_display(command):
    run = tapsolve(command, env=dict(os.environ, DISPLAY=unused_display()), timeout=120)
    assert run.returncode == 1, (run.returncode, run.stderr)  # was -6: Qt's abort
    assert "cannot be used (no X server answers there)" in run.stderr and "Traceback" not in run.stderr


# -- the demo stopped by a closed terminal ----------------------------------------------------------------

def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie has ended: only its exit status waits
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.phone
@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_the_demo_stops_what_it_started_on_a_closed_terminal(signum):
    demo = subprocess.Popen([sys.executable, "-m", "assistant", "demo", "--no-window", "--realism", "real"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    adb = []
    try:
        port = None
        deadline = time.monotonic() + 120
        while port is None and time.monotonic() < deadline and demo.poll() is None:
            line = demo.stdout.readline()
            if "private adb server at port" in line:
                port = int(line.rsplit(" ", 1)[1])
        assert port is not None, "the demo never started its adb server"
        adb = [int(p) for p in os.listdir("/proc") if p.isdigit() and _is_adb_server(int(p), port)]
        assert adb, "the private adb server is not found"
        time.sleep(1)
        demo.send_signal(signum)
        demo.wait(timeout=60)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in adb) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(pid) for pid in adb), "the demo left its adb server running"
    finally:
        if demo.poll() is None:
            demo.kill()
        for pid in adb:  # what the demo should have stopped, stopped here by pid should it not have
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def _is_adb_server(pid: int, port: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().split(b"\0")
    except OSError:
        return False
    return b"-P" in words and str(port).encode() in words and b"server" in words


@pytest.mark.parametrize("value, said", [("abc", "ANDROID_ADB_SERVER_PORT='abc' is not a port number: fix or unset it"),
                                         ("99999999999", "")])
def test_an_adb_port_that_is_not_a_port_is_one_line(value, said):
    # (adbutils makes a client from the variable as it is imported: int("abc") was a traceback)
    result = tapsolve("devices", env=dict(os.environ, ANDROID_ADB_SERVER_PORT=value, ANDROID_ADB_SERVER_HOST="127.0.0.1"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and said in result.stderr
