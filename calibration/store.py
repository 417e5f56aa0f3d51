"""Storing reading profiles per device model, screen size, game and theme, and using them.

Profiles live in ``$XDG_CONFIG_HOME/tapsolve/profiles`` (``~/.config/tapsolve/profiles`` by
default), one JSON file each. A stored profile that no longer fits the screen (a new
resolution, another theme, the grid moved) is not trusted: the read falls back to finding the
board from scratch and the rebuilt profile replaces it. A corrupt file is named in a one-line
error, or rebuilt with a note when the caller allows it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable

import numpy as np

import vision
from solver.errors import TapsolveError
from vision.image import background, check_image
from vision.profile import Profile


class ProfileError(TapsolveError):
    """A stored profile cannot be used; the message names the file and what to do."""


def profiles_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tapsolve" / "profiles"


def theme_of(image: np.ndarray) -> str:
    return "light" if float(np.mean(background(image))) > 128 else "dark"


def profile_path(model: str, width: int, height: int, game: str, theme: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model or "unknown").strip("-").lower() or "unknown"
    return profiles_dir() / f"{slug}_{width}x{height}_{game}_{theme}.json"


def load(path: Path) -> Profile | None:
    """The profile stored at ``path``; None when there is none; ProfileError when corrupt."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProfileError(f"cannot read the stored profile {path}: {exc.strerror}") from None
    try:
        return Profile.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ProfileError(f"the stored profile {path} is corrupt: delete it or run "
                           f"`tapsolve calibrate` to rebuild it") from None


def save(profile: Profile, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(profile.to_json()))
    tmp.replace(path)  # never leave a half-written profile behind
    profile.changed = False


def remember(profile: Profile | None) -> None:
    """Store a profile in use when a read learned something since it was stored (a digit first
    seen in play: without this the next game on the phone asks tesseract for it again)."""
    if profile is not None and profile.changed and profile.model:
        save(profile, profile_path(profile.model, profile.width, profile.height, profile.game, profile.theme))


def read(image: np.ndarray, model: str, game: str = "auto", *, rebuild: bool = False,
         repair: bool = False, note: Callable[[str], None] | None = None) -> vision.Reading:
    """Read a screenshot with the stored profile for this device (building and storing one on
    first contact, or when ``rebuild``, or when the stored one no longer fits)."""
    image = check_image(image)
    h, w = image.shape[:2]
    theme = theme_of(image)
    games = ["numbermatch", "flip9", "fifteen"] if game == "auto" else [game]
    profile, path = None, None
    if not rebuild:
        for g in games:
            p = profile_path(model, w, h, g, theme)
            try:
                profile = load(p)
            except ProfileError as exc:
                if not repair:
                    raise
                if note:
                    note(f"{exc}; rebuilding it")
                profile = None
            if profile is not None:
                path = p
                break
    # "auto" stays auto with a stored profile: the profile's game is tried first, then the others
    # (a phone that played Number Match once may show Flip 9 or the 15-puzzle next)
    reading = vision.read(image, game, profile)
    if reading.profile_stale and note:
        note(f"the stored profile {path} no longer fits this screen: rebuilt it")
    new = reading.profile
    if new is not None:
        new.model = model
        if rebuild or reading.profile_stale or profile is None or new.changed:
            save(new, profile_path(model, w, h, new.game, new.theme))
    return reading
