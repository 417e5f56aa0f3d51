"""Loading screenshots and the pixel measures every reader shares (background, ink)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from solver.errors import InputError, TapsolveError


class ReadError(TapsolveError):
    """The screenshot cannot be read as a board; the message says why, in one line."""


class ImageInputError(ReadError, InputError):
    """The image itself is not usable: missing, not an image, wrong shape (exit code 2)."""

    exit_code = 2


def load_image(path) -> np.ndarray:
    """The RGB pixels of an image file (PNG, JPEG, ...)."""
    path = Path(path)
    if not path.exists():
        raise ImageInputError(f"{path}: no such file")
    if path.is_dir():
        raise ImageInputError(f"{path} is a directory, not an image")
    data = np.fromfile(str(path), np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
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
    if image.shape[0] < 64 or image.shape[1] < 64:
        raise ImageInputError(f"the image is too small to hold a board ({image.shape[1]}x{image.shape[0]})")
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


def distance(image: np.ndarray, colour) -> np.ndarray:
    """Per pixel, how far its colour is from ``colour`` (0-255, uint8): the luminance-weighted
    mean of the channels' differences, which is the difference itself for the greys a board is
    drawn in and still marks coloured highlights (and is several times faster than their max)."""
    c = [float(v) for v in np.asarray(colour).ravel()[:3]]
    diff = cv2.absdiff(image, (c[0], c[1], c[2], 0))
    return cv2.cvtColor(diff, cv2.COLOR_RGB2GRAY)
