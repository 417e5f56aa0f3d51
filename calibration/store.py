"""Loading and saving reading profiles, one JSON file per device model, screen size, game and theme.

Profiles live in ``profiles`` of ``solver.platforms.config_folder()`` (on Linux
``$XDG_CONFIG_HOME/tapsolve/profiles``, by default ``~/.config/tapsolve/profiles``). Which
profile reads a screen, what it learns and when it is saved is the reading session's
(``assistant.session``): this module only loads and saves. A file its own loader would reject
(``vision.schema``) is never written; a corrupt one is named in a one-line error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

from solver import platforms
from solver.cache import keep
from solver.errors import InputError, TapsolveError
from solver.files import FileInputError, MissingFile, parse_json, read_bytes
from vision import schema
from vision.profile import Profile


# a profile holds a few hundred small digit templates (some 100 KB); a file far larger is not one
MAX_PROFILE_BYTES = 16 << 20


class ProfileError(TapsolveError):
    """A stored profile cannot be used; the message names the file and what to do."""


def profiles_folder() -> Path:
    """The folder of every stored profile (``solver.platforms.config_folder``)."""
    return platforms.config_folder() / "profiles"


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", model or "unknown").strip("-").lower() or "unknown"


def profile_path(model: str, width: int, height: int, game: str, theme: str) -> Path:
    """Where the profile of this device model, screen size, game and theme is stored."""
    return profiles_folder() / f"{_slug(model)}_{width}x{height}_{game}_{theme}.json"


def stored_for(model: str, width: int, height: int) -> bool:
    """Whether some game's profile is stored for this device at this screen size (a question:
    nothing is read or built)."""
    try:
        return any(profiles_folder().glob(f"{_slug(model)}_{width}x{height}_*.json"))
    except OSError:
        return False


def load(path: Path) -> Profile | None:
    """The profile stored at ``path``; None when there is none; ProfileError when it cannot be
    read, is not JSON, or fails the schema check (the message names the file and the problem)."""
    try:
        data = parse_json(read_bytes(path, MAX_PROFILE_BYTES, "a stored profile"), "the JSON")
    except MissingFile:
        return None
    except FileInputError as exc:
        raise ProfileError(f"the stored profile cannot be used: {exc}") from None
    except InputError:  # not UTF-8, broken JSON, nested too deep, a number too long
        raise ProfileError(f"the stored profile {path} is corrupt (not JSON)") from None
    wrong = schema.problem(data)
    if wrong:
        raise ProfileError(f"the stored profile {path} is wrong ({wrong})")
    return Profile.from_json(data)


# Folders that refused a profile: said once per run, then reading goes on without storing.
_unwritable: set[Path] = set()


def save(profile: Profile, path: Path, note: Callable[[str], None] | None = None) -> bool:
    """Store a profile; False (said once per folder through ``note``) when the folder cannot be
    written, or when ``load`` would reject what it is given (``vision.schema``): a profile is
    mended where it is learned, so that is a bug, said, never a file the next run warns about."""
    data = profile.to_json()
    wrong = schema.problem(data)
    if wrong:
        if note:
            note(f"not storing the reading profile {path.name}: {wrong} (please report this)")
        return False
    problem = keep(path, lambda tmp: tmp.write_text(json.dumps(data)))
    if problem:
        if path.parent not in _unwritable:
            _unwritable.add(path.parent)
            if note:
                note(f"cannot store reading profiles in {path.parent} ({problem.strerror or problem}): going on "
                     f"without saving them (set {platforms.CONFIG_SETTING} to a folder you can write)")
        return False
    profile.changed = profile.counted = False
    return True
