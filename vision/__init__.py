"""Pixels to boards: finds the board on a screenshot and reads its cells.

>>> # reading = vision.read(rgb)  ->  Reading(game, screen, board, cells, add_button, ...)
"""

from __future__ import annotations

import time
from collections.abc import Collection

import cv2
import numpy as np

from solver import games as registry
from solver.errors import TapsolveError
from vision.image import (ImageInputError, LandmarkError, ReadError, background, check_image, distance,
                          load_image, theme)
from vision.profile import Profile
from vision.reader import reader
from vision.reading import CAUGHT_MOVING, Reading
from vision.screens import dialog_buttons

__all__ = ["read", "Reading", "CAUGHT_MOVING", "ReadError", "ReaderFailure", "ImageInputError", "Profile", "load_image"]

def board_distance(image: np.ndarray, bg, profile: Profile | None) -> np.ndarray:
    """Distance from the background of every pixel; with a profile that knows the rows its grid
    spans (Number Match's) only of those rows (the rest stays 0), all a read with it looks at."""
    geo = profile.geometry if profile is not None else {}
    if "top" in geo and "pitch" in geo and profile.fits(image):
        p = float(geo["pitch"])
        y0, y1 = max(0, int(geo["top"] - p * 0.2)), min(image.shape[0], int(geo["bottom"] + p * 0.2))
        dist = np.zeros(image.shape[:2], np.uint8)
        dist[y0:y1] = distance(image[y0:y1], bg)
        return dist
    return distance(image, bg)


def over_the_board(image: np.ndarray, bg, game: str) -> Reading | None:
    """A dialog over the screen (its labelled buttons are none of the game's own screens'): a
    reading of screen "dialog" with those buttons, else None."""
    buttons = dialog_buttons(image, frozenset().union(*(reader(g).OWN_BUTTONS for g in registry.NAMES)))
    if not buttons:
        return None
    return Reading(game, "dialog", buttons=buttons, theme=theme(bg))


class ReaderFailure(ReadError):
    """The reader itself failed on this image (an OpenCV or numpy error deep in a step): said in
    one line, never a traceback; benchmarks count these apart, as crashes."""


def read(image_rgb: np.ndarray, game: str = "auto", profile: Profile | None = None, *,
         profiles: dict[str, Profile] | None = None, use_tesseract: bool = True, first_row: int = 0,
         expect: dict[str, Collection[int]] | None = None) -> Reading:
    """Read one screenshot, or raise ReadError (one line) when it holds no board to read."""
    try:
        return read_screen(image_rgb, game, profile, profiles=profiles, use_tesseract=use_tesseract,
                           first_row=first_row, expect=expect)
    except TapsolveError:
        raise
    except (cv2.error, ValueError, IndexError, ArithmeticError, MemoryError) as exc:
        where = "OpenCV" if isinstance(exc, cv2.error) else type(exc).__name__
        raise ReaderFailure(f"this screenshot could not be processed ({where} failed on it): "
                            "give the phone's own full-size screenshot") from None


def read_screen(image_rgb: np.ndarray, game: str = "auto", profile: Profile | None = None, *,
                profiles: dict[str, Profile] | None = None, use_tesseract: bool = True,
                first_row: int = 0, expect: dict[str, Collection[int]] | None = None) -> Reading:
    """Read one screenshot (H x W x 3 RGB): which game, which screen, the board and its geometry.

    ``profile`` (from calibration) makes a read fast; the read leaves it as it was and gives what
    it learned in ``reading.learned``, which ``reading.learn()`` takes into it. ``reading.profile``
    is the profile to keep: the one given, or the one built when none fitted.
    ``profiles``: a profile per game, for a screen whose game is not known: each game's reader
    gets only its own, so a stored profile never decides which game is on screen.
    ``first_row``: the board row at the top of the grid when the caller scrolled the board (the
    screen itself does not show it); cell indices count from it.
    ``expect``: the numbers the screen is predicted to show (the score after the move just made),
    by the reading's names: a number not yet learned that the phone's drawn fonts read as predicted
    needs no tesseract (the reader's ``read_board``).
    """
    t0 = time.perf_counter()
    if game != "auto" and game not in registry.NAMES:
        raise ReadError(f"unknown game {game!r}: use auto, {', '.join(registry.NAMES[:-1])} or {registry.NAMES[-1]}")
    image = check_image(image_rgb)
    profiles = dict(profiles or {})
    if profile is not None:
        profiles.setdefault(profile.game, profile)
    bg = background(image)
    # a profile that knows its grid's rows (Number Match's) narrows the first read to them
    rows_known = next((p for p in profiles.values() if "top" in p.geometry), None)
    dist = board_distance(image, bg, rows_known)

    if game != "auto":
        order = [game]
    elif len(profiles) == 1:
        # the only game with a profile first (a faster miss), then the others in the registry's order
        order = [*profiles] + [g for g in registry.NAMES if g not in profiles]
    else:
        order = list(registry.NAMES)
    errors = []
    for g in order:
        draft = profiles[g].draft() if g in profiles else None  # the reader learns into this
        try:
            reading = reader(g).read_board(image, bg, dist, draft, use_tesseract, first_row=first_row, expect=expect)
            reading.learned = reading.profile
            if draft is not None and reading.profile is draft:
                reading.profile = profiles[g]
            if not reading.sure and CAUGHT_MOVING not in reading.unsure_why:
                # (a board not read for sure may be under a dialog: its cells are not read on a guess)
                reading = over_the_board(image, bg, g) or reading
            reading.seconds = time.perf_counter() - t0
            return reading
        except ReadError as exc:
            errors.append(exc)
            if rows_known is not None:
                dist = distance(image, bg)  # the next game needs the whole screen
    covered = over_the_board(image, bg, order[0])
    if covered is not None:
        covered.seconds = time.perf_counter() - t0
        return covered
    for g in order:  # a screen between boards (a stage's end, an ad), for a game that has them
        try:
            reading = reader(g).read_other_screen(image, bg)
            reading.theme = theme(bg)
            reading.seconds = time.perf_counter() - t0
            return reading
        except ReadError:
            pass
    # the image itself unusable (cells too small), or another game drawn alike: say that, not "no board"
    for kind in (ImageInputError, LandmarkError):
        for exc in errors:
            if isinstance(exc, kind):
                raise exc
    raise ReadError(f"no {registry.titles(order)} board found")
