"""One tapsolve taps a phone at a time: a second play refuses with one line and taps nothing, and
a holder that dies (even by SIGKILL) leaves no lock behind."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from helpers import ROOT, tapsolve

from assistant.phone import lock


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    """A private runtime folder for this test's locks (and the processes it starts)."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder / "tapsolve"


def holder(serial: str, env=None) -> subprocess.Popen:
    """Another process holding the phone's lock until it is stopped: by the serial alone, or
    (given the adb server's ``env``) as a play holds it, by what the phone says it is."""
    take = (f"lock.keep(Device(adb_client(), {serial!r}))" if env else f"lock.PhoneLock({serial!r}).acquire()")
    code = textwrap.dedent(f"""
        import sys, time
        from assistant.phone import lock
        from assistant.phone.device import Device
        from assistant.phone.server import adb_client
        {take}
        print("held", flush=True)
        time.sleep(600)
    """)
    process = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                               env=dict(env or os.environ, PYTHONPATH=str(ROOT)))
    assert process.stdout.readline() == "held\n"
    return process


def test_a_held_phone_is_refused_with_the_holders_pid_until_it_is_killed(runtime):
    serial = "192.168.1.20:5555"
    other = holder(serial)
    try:
        with pytest.raises(lock.PhoneInUse) as refused:
            lock.PhoneLock(serial).acquire()
        assert str(refused.value).startswith(
            f"the phone {serial} is in use by another tapsolve (pid {other.pid}: `python -c ...`): ")
        assert f"kill {other.pid}" in str(refused.value)
        assert lock.PhoneLock("emulator-5554").acquire()  # another phone is free
    finally:
        other.send_signal(signal.SIGKILL)  # no handler runs: only the kernel lets go
        other.wait(timeout=10)
    mine = lock.PhoneLock(serial)
    assert mine.acquire()
    assert (runtime / lock.file_name(serial)).read_text().startswith(f"{os.getpid()}\n{serial}\n")
    mine.release()
    assert not (runtime / lock.file_name(serial)).exists()


def test_a_process_holds_its_own_lock_once(runtime):
    with lock.hold("abc:1"):
        with lock.hold("abc:1"):  # (a second flock of the same file in one process would refuse itself)
            pass
        assert "abc:1" in lock._held
    assert "abc:1" not in lock._held


def test_serials_make_safe_file_names():
    assert lock.file_name("192.168.1.20:5555") == "phone-192.168.1.20%3A5555.lock"
    assert "/" not in lock.file_name("../../etc/passwd")
    assert lock.file_name("a/b") == "phone-a%2Fb.lock"


def test_no_writable_folder_is_said_and_play_goes_on(tmp_path, monkeypatch, capsys):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setattr(lock, "folders", lambda: [blocked / "tapsolve"])
    assert not lock.PhoneLock("x:1").acquire()
    assert "cannot keep the phone's lock" in capsys.readouterr().err


def test_two_plays_on_one_phone(harness, runtime, tmp_path):
    """The second play refuses with one line naming the first's pid and taps nothing; the first,
    killed by SIGKILL, leaves no lock: a third play finishes the game."""
    from phonesim import apps
    from phonesim.phone import PRESETS, Faults, Phone

    preset = PRESETS["1080x2400"]
    phone = Phone(preset, apps.create("numbermatch", preset, seed=3), Faults(tap_latency=0.05))
    vp = harness.add(phone)
    env = dict(harness.env, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_RUNTIME_DIR=str(runtime.parent),
               PYTHONUNBUFFERED="1")
    args = ["play", "--serial", vp.serial, "--game", "numbermatch", "--objective", "fast"]

    other = holder(vp.serial, env)  # first a holder that never taps: the refused play's taps are all there are
    try:
        run = tapsolve(*args, env=env)
    finally:
        other.kill()
        other.wait(timeout=10)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1:] == [  # (after the lines that say whom it connects to)
        f"tapsolve: error: the phone {vp.serial} is in use by another tapsolve (pid {other.pid}: `python -c ...`): wait for it "
        f"to end, or stop it (Ctrl-C where it runs, or `kill {other.pid}`), then run again"]
    assert phone.taps_done == 0 and not phone.tap_log

    first = subprocess.Popen([sys.executable, "-m", "assistant", *args], cwd=ROOT, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in first.stdout:  # under way once a move has landed
            if "[1/" in line:
                break
        second = tapsolve(*args, env=env)
        assert second.returncode == 1, second.stderr
        assert f"is in use by another tapsolve (pid {first.pid}: `tapsolve {' '.join(args)}`)" in second.stderr
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
    third = tapsolve(*args, env=env, timeout=300)
    assert third.returncode == 0, third.stderr
    assert "done: " in third.stdout and "in use" not in third.stderr
    assert phone.app.truth()["screen"] == "stage_complete" and vp.wrong_taps == 0
    vp.stop()


def quiet_taps(phone) -> int:
    """The phone's taps done once a stopped player's last call has landed (a shell call sent just
    before the stop still runs on the phone): the count once it holds for a second."""
    import time

    count = -1
    for _ in range(20):
        if phone.taps_done == count:
            break
        count = phone.taps_done
        time.sleep(1.0)
    return count


def test_one_phone_under_two_serials_is_one_phone(harness, runtime, tmp_path):
    """One phone reached as 127.0.0.1:P and localhost:P (as LDPlayer is as emulator-5554 and
    127.0.0.1:5555: adb makes a transport per serial text, packages/modules/adb
    transport_local.cpp connect_device) is locked by what it says it is (its ro.serialno and
    the kernel's boot id, phonesim.phone.Phone.boot_id): a second play under the other serial is
    refused in one line naming the first's command, and taps nothing."""
    from phonesim import apps
    from phonesim.phone import PRESETS, Faults, Phone

    preset = PRESETS["1080x2400"]
    phone = Phone(preset, apps.create("numbermatch", preset, seed=3), Faults(tap_latency=0.05))
    vp = harness.add(phone)
    other = harness.alias(vp, "localhost")
    env = dict(harness.env, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_RUNTIME_DIR=str(runtime.parent),
               PYTHONUNBUFFERED="1")
    args = ["play", "--game", "numbermatch", "--objective", "fast"]
    first = subprocess.Popen([sys.executable, "-m", "assistant", *args, "--serial", vp.serial], cwd=ROOT, env=env,
                             text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line in first.stdout:  # under way once a move has landed
            if "[1/" in line:
                break
        first.send_signal(signal.SIGSTOP)  # (holding the phone, tapping no more: the second's taps are all)
        taps = quiet_taps(phone)
        second = tapsolve(*args, "--serial", other, env=env)
        assert second.returncode == 1 and phone.taps_done == taps, second.stdout + second.stderr
        assert second.stderr.strip().splitlines()[-1:] == [
            f"tapsolve: error: the phone {other} is in use by another tapsolve (pid {first.pid}: `tapsolve "
            f"{' '.join(args)} --serial {vp.serial}`, on the same phone as {vp.serial}): wait for it to end, or "
            f"stop it (Ctrl-C where it runs, or `kill {first.pid}`), then run again"]
    finally:
        first.kill()
        first.wait(timeout=10)
    harness.client.disconnect(other)
    vp.stop()
