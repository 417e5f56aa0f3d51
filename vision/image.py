"""Loading screenshots and the pixel measures every reader shares (background, ink)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from solver.errors import InputError, TapsolveError
from vision.thresholds import LIGHT_THEME


class ReadError(TapsolveError):
    """The screenshot cannot be read as a board; the message says why, in one line."""


class ImageInputError(ReadError, InputError):
    """The image itself is not usable: missing, not an image, wrong shape (exit code 2)."""

    exit_code = 2


# No phone screen is larger than this; a bigger image would take minutes and gigabytes to
# decode and search, so it is refused from its header before any pixel is decoded.
MAX_SIDE = 8000
MAX_PIXELS = 40_000_000
# The games are played upright: a screenshot wider than this share of its height is a
# landscape screen (a web page, a rotated shot), not a phone's portrait game.
MAX_ASPECT = 1.0
# Cells narrower than this (in pixels) hold digits too small to tell apart for sure.
MIN_CELL = 14


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, or None when the header does not say."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(data):  # walk the JPEG segments to the frame header (SOFn)
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    return None


def check_size(width: int, height: int, name: str = "the image") -> None:
    """A clear error for an image larger than any phone screen."""
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise ImageInputError(f"{name} is {width}x{height}: larger than any phone screen (at most "
                              f"{MAX_SIDE} px a side, {MAX_PIXELS // 1_000_000} megapixels); give a phone screenshot")


class LandmarkError(ReadError):
    """A board-like grid without the game's own landmarks (another game drawn alike)."""


@contextmanager
def quiet_stderr():
    """Silence the process's stderr (file descriptor 2, where C libraries write) for a while."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_image(path) -> np.ndarray:
    """The RGB pixels of an image file (PNG, JPEG, ...); an image larger than any phone screen
    is refused from its header, before decoding."""
    path = Path(path)
    if not path.exists():
        raise ImageInputError(f"{path}: no such file")
    if path.is_dir():
        raise ImageInputError(f"{path} is a directory, not an image")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImageInputError(f"cannot read {path}: {exc.strerror or exc}") from None
    size = header_size(data[:65536])
    if size is not None:
        check_size(*size, name=str(path))
    with quiet_stderr():  # OpenCV and libpng print their own complaints: ours is the one line
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
        except cv2.error:
            image = None
    if image is None and size is not None:
        raise ImageInputError(f"{path} is a damaged image (cut short or corrupt): it cannot be decoded; "
                              "take the screenshot again")
    if image is None:
        raise ImageInputError(f"{path} is not an image (PNG or JPEG expected)")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def check_image(image) -> np.ndarray:
    """``image`` as a contiguous H x W x 3 uint8 RGB array, or a clear error."""
    if not isinstance(image, np.ndarray):
        raise ImageInputError(f"not an image: expected an RGB array, got {type(image).__name__}")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    if image.ndim != 3 or image.shape[2] != 3:
        raise ImageInputError(f"not an image: expected H x W x 3 RGB, got shape {image.shape}")
    h, w = image.shape[:2]
    if h < 64 or w < 64:
        raise ImageInputError(f"the image is too small to hold a board ({w}x{h})")
    check_size(w, h)
    if w < 9 * MIN_CELL:  # nine columns of cells at least MIN_CELL wide
        raise ImageInputError(f"the image is {w}x{h}: too small to read for sure (cells under {MIN_CELL} px); "
                              "give the phone's full-size screenshot")
    if w > h * MAX_ASPECT:
        raise ImageInputError(f"the image is landscape ({w}x{h}): the games are read from an upright "
                              "phone screenshot; rotate it or take the screenshot in portrait")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.max() < 16:
        raise ReadError("the screenshot is black: screen off or a secure window")
    return np.ascontiguousarray(image)


def background(image: np.ndarray) -> np.ndarray:
    """The screen's background colour: the most common colour (quantised), as float RGB."""
    step = max(3, min(image.shape[:2]) // 80)  # some 10-20 thousand samples whatever the size
    small = image[::step, ::step].reshape(-1, 3)
    keys = (small[:, 0] // 8).astype(np.int32) * 1024 + (small[:, 1] // 8) * 32 + small[:, 2] // 8
    mode = np.bincount(keys).argmax()
    return small[keys == mode].mean(axis=0)


def theme(bg) -> str:
    """The screen's theme, "light" or "dark", by its background colour."""
    return "light" if float(np.mean(bg)) > LIGHT_THEME else "dark"


def distance(image: np.ndarray, colour) -> np.ndarray:
    """Per pixel, how far its colour is from ``colour`` (0-255, uint8): the luminance-weighted
    mean of the channels' differences, which is the difference itself for the greys a board is
    drawn in and still marks coloured highlights (and is several times faster than their max)."""
    c = [float(v) for v in np.asarray(colour).ravel()[:3]]
    diff = cv2.absdiff(image, (c[0], c[1], c[2], 0))
    return cv2.cvtColor(diff, cv2.COLOR_RGB2GRAY)
