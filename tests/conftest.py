"""Test-wide set-up: a private config folder, no spare tesseract processes or profiles in use
carried between tests, the shared virtual-phone harness, and the markers that split the fast
set from the end-to-end phone tests. Helpers that are not fixtures are in helpers.py.

Fast inner loop:  python -m pytest -n auto -m "not phone and not slow"   (about a minute)
Everything (CI):  python -m pytest -n auto
"""

import os
import tempfile

import pytest

# Modules whose tests each start a virtual phone and a private adb server (or a whole demo):
# end to end, so they are the `phone` marker's; everything else is in the fast set.
PHONE_MODULES = {"test_assistant", "test_device", "test_phonesim_adb", "test_phonesim_games",
                 "test_scroll"}


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
    # Reading profiles are stored per device under XDG_CONFIG_HOME; tests (and the processes
    # they start, which inherit the environment) must not touch the person's own profiles.
    with tempfile.TemporaryDirectory(prefix="tapsolve-config-") as folder:
        old = os.environ.get("XDG_CONFIG_HOME")
        os.environ["XDG_CONFIG_HOME"] = folder
        yield folder
        if old is None:
            os.environ.pop("XDG_CONFIG_HOME", None)
        else:
            os.environ["XDG_CONFIG_HOME"] = old


@pytest.fixture(autouse=True)
def no_state_from_earlier_tests(monkeypatch):
    # a loop keeps spare tesseract processes for the rest of its process (vision.tesseract.
    # keep_spares), and the profiles it used are stored again at exit (calibration.store.
    # store_counts): each test starts without either, so what it starts does not depend on the
    # tests run before it in the same worker, and nothing is written once the private config
    # folder is gone
    from calibration import store
    from vision import tesseract

    monkeypatch.setattr(tesseract, "_spares", [False])
    monkeypatch.setattr(tesseract, "_used", set())
    monkeypatch.setattr(store, "_in_use", {})


@pytest.fixture(scope="module")
def harness():
    """A private adb server on a free port, shared by a module's phones; stopped by pid after."""
    from phonesim.harness import Harness

    with Harness() as h:
        yield h


@pytest.fixture
def shell_by_default(request, monkeypatch):
    """Phones connected in this process without a channel asked for go by the kept-open shell,
    not scrcpy: for modules that test the game's play, not the channel (each scrcpy server
    costs a start and a core encoding video). A test marked ``video`` keeps the fastest channel;
    the channel's own tests (test_scrcpy, test_channels, bench play) play on scrcpy anyway."""
    if request.node.get_closest_marker("video"):
        return
    from assistant.phone import channel

    choose = channel.choose
    monkeypatch.setattr(channel, "choose", lambda device, force=None, note=print:
                        choose(device, force or "shell", note))
