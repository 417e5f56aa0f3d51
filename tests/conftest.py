"""Test-wide set-up: profiles go to a private config folder, never the user's."""

import os
import tempfile

import pytest


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
