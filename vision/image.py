"""Loading screenshots and the pixel measures every reader shares (background, ink)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import cv2
import numpy as np

from solver.errors import InputError, NotABoardNow, TapsolveError
from solver.files import FileInputError, read_bytes, shown
from vision.thresholds import LIGHT_THEME


class ReadError(NotABoardNow):
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


# the formats a screenshot comes in whose size the header says (each read below from its spec);
# another format is refused before decoding, so that no file can make OpenCV decode what it likes
FORMATS = "PNG, JPEG, WebP, TIFF or BMP"
# the largest file a screenshot can be: MAX_PIXELS uncompressed at 4 bytes a pixel (an RGBA BMP or
# TIFF), with room for its headers
MAX_FILE_BYTES = MAX_PIXELS * 4 + (1 << 20)
# JPEG start-of-frame markers (ITU-T T.81, table B.1): C0-CF but DHT (C4), JPG (C8) and DAC (CC)
_JPEG_SOF = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) that a PNG, JPEG, WebP, TIFF or BMP header gives, or None when the data is
    none of these or its header is cut short."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":  # PNG spec (W3C, 3rd ed.) 11.2.2: IHDR comes first
            return (_be(data, 16, 4), _be(data, 20, 4)) if data[12:16] == b"IHDR" else None
        if data[:2] == b"\xff\xd8":
            return _jpeg_size(data)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp_size(data)
        if data[:4] in (b"II*\0", b"MM\0*", b"II+\0", b"MM\0+"):
            return _tiff_size(data)
        if data[:2] == b"BM":
            return _bmp_size(data)
    except (IndexError, ValueError):  # a header cut short
        return None
    return None


def _be(data: bytes, at: int, n: int, order: str = "big") -> int:
    if at + n > len(data):
        raise IndexError("cut short")
    return int.from_bytes(data[at:at + n], order)


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The frame header's size, after however many segments come first (ITU-T T.81 B.1.1: each
    marker 0xFF xx, maybe after 0xFF fill bytes; a segment's 2-byte length counts itself; the
    SOFn segment is Lf(2) P(1) Y(2) X(2), Y the lines, X the samples a line)."""
    i = 2
    while True:
        if data[i] != 0xFF:
            return None
        while data[i + 1] == 0xFF:  # fill bytes
            i += 1
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # SOI, TEM, RSTn: no length
            i += 2
            continue
        if marker in (0xD9, 0xDA):  # EOI or scan data before any frame header
            return None
        if marker in _JPEG_SOF:
            return _be(data, i + 7, 2), _be(data, i + 5, 2)
        i += 2 + _be(data, i + 2, 2)


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """The canvas of a WebP (RFC 9649): VP8X's 24-bit width-1 and height-1 (2.7); VP8L's 14-bit
    width-1 and height-1 after its 0x2F signature (3.2); a lossy VP8 frame's 14-bit width and
    height after its start code 9D 01 2A (RFC 6386 9.1)."""
    chunk = data[12:16]
    if chunk == b"VP8X":
        return _be(data, 24, 3, "little") + 1, _be(data, 27, 3, "little") + 1
    if chunk == b"VP8L" and data[20] == 0x2F:
        bits = _be(data, 21, 4, "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        return _be(data, 26, 2, "little") & 0x3FFF, _be(data, 28, 2, "little") & 0x3FFF
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """ImageWidth (tag 256) and ImageLength (257) of the first image's IFD (TIFF 6.0, section 2:
    12-byte entries of tag, type, count, value; BigTIFF: 20-byte entries with 8-byte counts). The
    largest of all its images is taken, so a small first page cannot hide a huge one."""
    order = "little" if data[:2] == b"II" else "big"
    big = _be(data, 2, 2, order) == 43
    offset = _be(data, 8, 8, order) if big else _be(data, 4, 4, order)
    entry, count_size = (20, 8) if big else (12, 2)
    width = height = 0
    seen = set()
    while offset and offset not in seen and len(seen) < 64:
        seen.add(offset)
        count = _be(data, offset, count_size, order)
        first = offset + count_size
        sides = {}
        for k in range(count):
            at = first + k * entry
            tag, kind = _be(data, at, 2, order), _be(data, at + 2, 2, order)
            if tag in (256, 257):
                value_at = at + (12 if big else 8)
                sides[tag] = _be(data, value_at, 2 if kind == 3 else 4, order)  # SHORT (3) or LONG (4)
        if 256 not in sides or 257 not in sides:
            return None
        width, height = max(width, sides[256]), max(height, sides[257])
        after = first + count * entry
        offset = _be(data, after, 8 if big else 4, order)
    return width, height


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    """A BMP's size from its DIB header (after the 14-byte file header): 16-bit sides in the
    12-byte OS/2 BITMAPCOREHEADER, else signed 32-bit ones (a negative height is top-down)."""
    if _be(data, 14, 4, "little") == 12:
        return _be(data, 18, 2, "little"), _be(data, 20, 2, "little")
    if len(data) < 26:
        return None
    width = int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    return abs(width), abs(height)


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
    """The RGB pixels of a screenshot file (PNG, JPEG, WebP, TIFF or BMP); a file that is not a
    regular one, or larger than any screenshot, is refused before it is read, and an image larger
    than any phone screen from its header, before decoding."""
    try:
        data = read_bytes(path, MAX_FILE_BYTES, "a screenshot")
    except FileInputError as exc:
        raise ImageInputError(str(exc)) from None
    size = header_size(data)
    if size is None:
        raise ImageInputError(f"{shown(path)} is not an image ({FORMATS} expected)")
    check_size(*size, name=shown(path))
    with quiet_stderr():  # OpenCV and libpng print their own complaints: ours is the one line
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        except cv2.error:
            image = None
    if image is None:
        raise ImageInputError(f"{shown(path)} is a damaged image (cut short or corrupt): it cannot be decoded; "
                              "take the screenshot again")
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
