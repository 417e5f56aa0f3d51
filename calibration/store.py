"""Storing reading profiles per device model, screen size, game and theme, and using them.

Profiles live in ``profiles`` of ``solver.platforms.config_folder()`` (on Linux
``$XDG_CONFIG_HOME/tapsolve/profiles``, by default ``~/.config/tapsolve/profiles``), one JSON
file each. A stored profile that no longer fits the screen (a new
resolution, another theme, the grid moved) is not trusted: the read falls back to finding the
board from scratch and the rebuilt profile replaces it. A corrupt file is named in a one-line
error, or rebuilt with a note when the caller allows it.
"""

from __future__ import annotations

import atexit
import json
import os
import re
from pathlib import Path
from typing import Callable

import numpy as np

import vision
from solver import games as registry
from solver.cache import keep
from solver.errors import InputError, TapsolveError
from solver.files import FileInputError, MissingFile, parse_json, read_bytes
from vision import schema
from vision.image import background, check_image, theme as screen_theme
from vision.profile import Profile


# a profile holds a few hundred small digit templates (some 100 KB); a file far larger is not one
MAX_PROFILE_BYTES = 16 << 20


class ProfileError(TapsolveError):
    """A stored profile cannot be used; the message names the file and what to do."""


def profiles_folder() -> Path:
    from solver import platforms

    return platforms.config_folder() / "profiles"


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", model or "unknown").strip("-").lower() or "unknown"


def profile_path(model: str, width: int, height: int, game: str, theme: str) -> Path:
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
    """Store a profile; False (said once per folder through ``note``) when the folder cannot be written."""
    problem = keep(path, lambda tmp: tmp.write_text(json.dumps(profile.to_json())))
    if problem:
        if path.parent not in _unwritable:
            _unwritable.add(path.parent)
            if note:
                note(f"cannot store reading profiles in {path.parent} ({problem.strerror or problem}): going on "
                     "without saving them (set XDG_CONFIG_HOME to a folder you can write)")
        return False
    profile.changed = profile.counted = False
    return True


# the profiles ``remember`` was given, by id, with where they are stored: their touch counts
# are stored there at exit
_in_use: dict[int, tuple[Profile, Path]] = {}


def remember(profile: Profile | None, note: Callable[[str], None] | None = None) -> None:
    """Store a profile in use when a read learned something since it was stored (a digit first
    seen in play: without this the next game on the phone asks tesseract for it again). What
    only counts touches (``Profile.counted``) waits for that, or for the exit: a move's count
    is not worth rewriting the profile for."""
    if profile is None or not profile.model:
        return
    path = profile_path(profile.model, profile.width, profile.height, profile.game, profile.theme)
    _in_use[id(profile)] = profile, path
    if profile.changed:
        save(profile, path, note)


@atexit.register
def store_counts() -> None:
    """At exit: store the profiles in use whose touch counts changed since they were stored."""
    for profile, path in list(_in_use.values()):
        if profile.counted:
            save(profile, path)


def trusted(reading: vision.Reading) -> bool:
    """Whether a profile may learn from this reading: the game's board read for sure, so nothing
    (a dialog, an ad, a banner) is over it. A profile built or extended from anything else reads
    the clean board wrong later ("the digit did not read"), in this run and the next."""
    return reading.screen == "board" and reading.sure


COVERED = "screen"  # the part a reader doubts when it sees something drawn over the board (a dialog, a banner)


def recheck(image: np.ndarray, reading: vision.Reading, model: str,
            note: Callable[[str], None] | None = None) -> vision.Reading:
    """A board read with a profile but not for sure, read again afresh (no profile): when the
    fresh read is sure the profile was what failed, and the fresh one replaces it (stored);
    otherwise the screen itself is not clear (something over the board) and ``reading`` stands."""
    if (reading.screen != "board" or reading.sure or reading.profile is None or COVERED in reading.unsure_why
            or vision.CAUGHT_MOVING in reading.unsure_why):
        # (something seen over the board: a fresh read would see it too; a moment no still
        # screen shows, which a fresh read, without what the profile knows, may take for one)
        return reading
    try:
        fresh = vision.read(image, reading.game)
    except vision.ReadError:
        return reading
    if not trusted(fresh) or fresh.profile is None:
        return reading
    new = fresh.profile
    new.model = model
    path = profile_path(model, new.width, new.height, new.game, new.theme)
    if note:
        note(f"the reading profile {path} failed to read a clear board (a fresh read did): rebuilt it")
    save(new, path, note)
    return fresh


def read(image: np.ndarray, model: str, game: str = "auto", *, rebuild: bool = False,
         note: Callable[[str], None] | None = None, stored_only: bool = False) -> vision.Reading | None:
    """Read a screenshot with the stored profiles for this device (building and storing one on
    first contact, or when ``rebuild``, or when the stored one no longer fits or is wrong).
    Only a ``trusted`` reading teaches or stores a profile; a stored one that fails to read a
    board a fresh read reads for sure is replaced (``recheck``). ``stored_only`` (a compressed
    video frame, which never builds a profile): read with a stored profile and for sure, else
    None, and the caller reads a lossless screenshot instead.

    Every game's stored profile is offered to its own reader: which game is on screen is
    decided by the screen, never by which profile happened to be stored first."""
    image = check_image(image)
    h, w = image.shape[:2]
    theme = screen_theme(background(image))
    games = list(registry.NAMES) if game == "auto" else [game]
    profiles = {}
    if not rebuild:
        for g in games:
            try:
                stored = load(profile_path(model, w, h, g, theme))
            except ProfileError as exc:
                if note:
                    note(f"{exc}: rebuilding it")
                stored = None
            if stored is not None:
                profiles[g] = stored
    if stored_only and not profiles:
        return None
    try:
        reading = vision.read(image, game, profiles=profiles)
    except vision.ReadError:
        if stored_only:
            return None
        raise
    if stored_only and (reading.profile is None or reading.profile is not profiles.get(reading.game)
                        or not reading.sure or reading.screen == "unknown"):
        return None
    if reading.profile is not None and reading.profile is profiles.get(reading.game):
        checked = recheck(image, reading, model, note)
        if checked is not reading:
            return checked  # (stored already)
    if not trusted(reading):
        return reading  # (nothing learned, nothing stored: the profile, if built, is this read's only)
    reading.learn()  # what the read learned goes into the stored profile it read with, then to disk
    new = reading.profile
    if new is None:
        return reading
    path = profile_path(model, w, h, new.game, new.theme)
    if reading.profile_stale and note:
        note(f"the stored profile {path} no longer fits this screen: rebuilt it")
    new.model = model
    if rebuild or reading.profile_stale or new.game not in profiles or new.changed:
        save(new, path, note)
    return reading
