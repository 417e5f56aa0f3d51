"""Test-wide set-up: a private config folder, no profiles in use carried between tests, the
shared virtual-phone harness, and the markers that split the fast set from the end-to-end
phone tests. Helpers that are not fixtures are in helpers.py.

Fast inner loop:  python -m pytest -n auto -m "not phone and not slow"   (about a minute)
Everything (CI):  python -m pytest -n auto
"""

import os
import tempfile

import pytest

# Modules whose tests each start a virtual phone and a private adb server (or a whole demo):
# end to end, so they are the `phone` marker's; everything else is in the fast set.
PHONE_MODULES = {"test_assistant", "test_device", "test_phonesim_adb", "test_phonesim_games",
                 "test_scroll", "test_stalls", "test_real_presets", "test_record", "test_pipelined_games"}


# `-n auto` starts this many workers a core: most end-to-end tests wait on the virtual phone's
# real-time costs (a tap's 0.3-0.6 s, a PNG's encoding, the animations) rather than compute, so
# one worker a core left the CPU idle a third of the time (14 min on two cores, 1.2 cores busy);
# two a core keep both busy (9.4 min, 1.8 cores busy).
WORKERS_A_CORE = 2


def pytest_xdist_auto_num_workers(config):
    """The worker count for ``-n auto`` (pytest-xdist's hook): WORKERS_A_CORE per core this
    process may run on; None (xdist's own count) for ``-n logical``."""
    if config.option.numprocesses != "auto":
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return WORKERS_A_CORE * cores


def pytest_configure(config):
    config.addinivalue_line("markers", "phone: starts phonesim and a private adb server (end to end)")
    config.addinivalue_line("markers", "slow: takes many seconds without a phone (exhaustive checks)")
    config.addinivalue_line("markers", "video: plays on the scrcpy channel where its module's phones "
                                       "go by the kept-open shell (shell_by_default)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__.rsplit(".", 1)[-1] in PHONE_MODULES or "harness" in item.fixturenames:
            item.add_marker(pytest.mark.phone)


@pytest.fixture(autouse=True, scope="session")
def private_config_dir():
    # Reading profiles are stored per device under XDG_CONFIG_HOME, the runs' log and recordings
    # under XDG_STATE_HOME; tests (and the processes they start, which inherit the environment)
    # must not touch the person's own profiles nor write into their log.
    # The phones' locks (assistant.phone.lock) likewise go in a runtime folder of the session's:
    # stand-in phones of the same serial in two workers are not one phone.
    # Phones are tapped by exec unless a test names a channel: its taps return once the phone
    # ran them, so a test that taps and then looks at phonesim's state sees the tap; the scrcpy
    # and kept-open shell channels are the tests' that name them (test_scrcpy, test_channels).
    with tempfile.TemporaryDirectory(prefix="tapsolve-config-") as folder:
        old = {name: os.environ.get(name) for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
                                        "TAPSOLVE_CHANNEL")}
        os.environ["XDG_CONFIG_HOME"] = folder
        os.environ["XDG_STATE_HOME"] = os.path.join(folder, "state")
        os.environ["XDG_RUNTIME_DIR"] = os.path.join(folder, "run")
        os.environ["TAPSOLVE_CHANNEL"] = "exec"
        yield folder
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(autouse=True)
def no_state_from_earlier_tests(monkeypatch):
    # the profiles a loop used are stored again at exit (assistant.session.save_counts): each
    # test starts without them, so nothing is written once the private config folder is gone
    from assistant import session

    monkeypatch.setattr(session, "_in_use", {})


@pytest.fixture(scope="module")
def harness():
    """A private adb server on a free port, shared by a module's phones; stopped by pid after."""
    from phonesim.harness import Harness

    with Harness() as h:
        yield h


@pytest.fixture
def shell_by_default(request, monkeypatch):
    """Phones connected without a channel asked for go by the kept-open shell here, not the
    suite's exec: for modules that test the game's play, not the channel (each scrcpy server
    costs a start and a core encoding video). A test marked ``video`` gets what a user gets,
    the fastest channel that starts (scrcpy on phonesim)."""
    monkeypatch.setenv("TAPSOLVE_CHANNEL", "auto" if request.node.get_closest_marker("video") else "shell")
