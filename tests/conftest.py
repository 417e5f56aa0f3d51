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
                 "test_scroll"}


def pytest_configure(config):
    config.addinivalue_line("markers", "phone: starts phonesim and a private adb server (end to end)")
    config.addinivalue_line("markers", "slow: takes many seconds without a phone (exhaustive checks)")


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
    # the profiles a loop used are stored again at exit (calibration.store.store_counts): each
    # test starts without them, so nothing is written once the private config folder is gone
    from calibration import store

    monkeypatch.setattr(store, "_in_use", {})


@pytest.fixture(scope="module")
def harness():
    """A private adb server on a free port, shared by a module's phones; stopped by pid after."""
    from phonesim.harness import Harness

    with Harness() as h:
        yield h
