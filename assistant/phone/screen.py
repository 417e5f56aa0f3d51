"""The phone's screen: its screencap, PNG or raw (the faster, timed at connect), of the game's display,
decoded to RGB; a channel's video frame made a capture of the same size."""

from __future__ import annotations

import re
import statistics
import struct
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assistant.phone.server import PhoneLost, lost_advice, phone_state
from solver.errors import NotABoardNow, TapsolveError

if TYPE_CHECKING:
    import numpy as np


def frames_on_small_pages() -> None:
    """Have numpy stop asking the kernel for huge pages for large arrays (its default on Linux,
    ``madvise(MADV_HUGEPAGE)``), for this process: a video brings a fresh frame-sized array 30
    times a second, and where the kernel compacts memory on such a fault (Linux's default
    ``defrag=madvise``) each new 8 MB array stalled 5-10 ms, on the path from a frame to the
    next tap; with small pages 1-2. A numpy without the switch is left as it is."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:
        try:
            from numpy.core.multiarray import _set_madvise_hugepage  # (numpy 1.26's name)
        except ImportError:
            return
    _set_madvise_hugepage(False)


class BlackScreen(NotABoardNow):
    """The screenshot is all black: nothing to read."""


class CaptureFailed(TapsolveError):
    """The phone answered a screenshot with something that is not one."""


# What a phone writes ahead of the image on the `exec:` stream, which has no shell protocol and so
# carries the command's stderr in the same stream (AOSP adb daemon/services.cpp, daemon/
# shell_service.cpp): a phone with several displays warns first (frameworks/base cmds/screencap/
# screencap.cpp: "[Warning] Multiple displays were found, ..." and two more lines), waydroid,
# VMOS and redroid write shader-cache, linker and GPU driver lines (LmeSzinc/AzurLaneAutoScript
# module/device/method/remove_warning.py lists the ones seen). Rather than strip known lines, the
# image is looked for after any text: the PNG at its signature, the raw header at a line's start.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT_AHEAD_MAX = 64 * 1024  # bytes of text looked through for the image: warnings are lines, not pages


def decode_png(data: bytes | bytearray) -> np.ndarray:
    """`screencap -p`: the PNG from its signature on, whatever text came before it."""
    import cv2  # here, not at the top: `tapsolve devices` decodes no screen and starts faster
    import numpy as np

    start = bytes(data[:TEXT_AHEAD_MAX + len(PNG_SIGNATURE)]).find(PNG_SIGNATURE)
    image = None
    if start >= 0:
        try:
            image = cv2.imdecode(np.frombuffer(data, np.uint8, offset=start), cv2.IMREAD_COLOR)
        except cv2.error:
            image = None
    if image is None:
        raise ValueError(f"not a PNG ({len(data)} bytes: {bytes(data[:40])!r})")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


# Android PixelFormat values screencap writes: bytes per pixel and the cv2 conversion to RGB.
_RAW_FORMATS = {1: (4, "COLOR_RGBA2RGB"), 2: (4, "COLOR_RGBA2RGB"), 3: (3, None),
                5: (4, "COLOR_BGRA2RGB"), 4: (2, "COLOR_BGR5652RGB")}
_RAW_COLOR_SPACES = (0, 1, 2)  # screencap.cpp's COLORSPACE_UNKNOWN, _SRGB, _DISPLAY_P3


def raw_layout(data: bytes | bytearray) -> tuple[int, int, int, int, int] | None:
    """(offset of the header, header length, width, height, format) of plain `screencap`'s image in
    data: at the start or at the start of a line of text written before it, the image filling the
    rest exactly (width, height, format, since Android 9 a colour space, then the pixels); None
    when no line starts one."""
    starts = [0] + [m.end() for m in re.finditer(rb"\n", bytes(data[:TEXT_AHEAD_MAX]))]
    for at in starts:
        if len(data) - at < 12:
            break
        width, height, pixel_format = struct.unpack_from("<3I", data, at)
        if pixel_format not in _RAW_FORMATS or not 0 < width <= 10000 or not 0 < height <= 10000:
            continue
        header = len(data) - at - width * height * _RAW_FORMATS[pixel_format][0]
        if header == 12 or (header == 16 and struct.unpack_from("<I", data, at + 12)[0] in _RAW_COLOR_SPACES):
            return at, header, width, height, pixel_format
    return None


def decode_raw(data: bytes | bytearray) -> np.ndarray:
    """Plain `screencap`: width, height, format (and, since Android 9, a colour space) then pixels,
    after whatever lines of text came before them."""
    import cv2  # (see decode_png)
    import numpy as np

    layout = raw_layout(data)
    if layout is None:
        if len(data) < 12:
            raise ValueError(f"raw screencap too short ({len(data)} bytes: {bytes(data)!r})")
        width, height, pixel_format = struct.unpack_from("<3I", data)
        raise ValueError(f"not a raw screencap of {len(data)} bytes (header {width}x{height} format "
                         f"{pixel_format}): {bytes(data[:40])!r}")
    at, header, width, height, pixel_format = layout
    depth, conversion = _RAW_FORMATS[pixel_format]
    pixels = np.frombuffer(data, np.uint8, width * height * depth, at + header).reshape(height, width, depth)
    return pixels.copy() if conversion is None else cv2.cvtColor(pixels, getattr(cv2, conversion))


@dataclass(frozen=True)
class Display:
    """The display the game is on, on a phone with several: the id `screencap -d` takes (the
    physical, SurfaceFlinger's) and the one `input -d` takes (the logical)."""

    capture_id: str
    input_id: int
    count: int  # physical displays the phone has


# `dumpsys SurfaceFlinger --display-id` (Android 10+; SurfaceFlinger.cpp
# dumpDisplayIdentificationData): one line per physical display, "Display <id> (HWC display
# <n>): port=... displayName=..."; `screencap -d` wants that id, not the logical one.
_SURFACE_DISPLAY = re.compile(r"^Display (\d+) \(HWC display (\d+)\)", re.MULTILINE)
# `dumpsys display` (DisplayManagerService, DisplayViewport.toString): each viewport names its
# logical display and, since Android 10, the physical one as uniqueId='local:<id>'; its
# orientation is the display's rotation (0-3), what adbutils' window_size reads
# (openatx/adbutils adbutils/shell.py, _DISPLAY_RE).
_VIEWPORT = re.compile(r"DisplayViewport\{([^}]*)\}")
DEFAULT_DISPLAY = 0  # Display.DEFAULT_DISPLAY: the one apps open on, a foldable's open screen or its cover
SURFACE_DISPLAY_SDK = 29  # `dumpsys SurfaceFlinger --display-id` is Android 10's (older prints the whole dump)


def viewport(text: str, display_id: int = DEFAULT_DISPLAY) -> dict[str, str] | None:
    """The fields of the valid viewport of a logical display in `dumpsys display`'s answer."""
    for match in _VIEWPORT.finditer(text):
        fields = dict(re.findall(r"(\w+)=('[^']*'|[^,\s]+)", match.group(1)))
        if fields.get("valid") != "false" and fields.get("displayId") == str(display_id):
            return {k: v.strip("'") for k, v in fields.items()}
    return None


def game_display(surface: str, displays: str) -> Display | None:
    """The display to capture and tap on, from `dumpsys SurfaceFlinger --display-id` and `dumpsys
    display`: None with one physical display (screencap then takes it untold). The game's is the
    default logical display, mapped to its physical id through its viewport's uniqueId (a
    foldable's cover screen is another physical display; which one `screencap` takes untold is
    "not guaranteed to be consistent", cmds/screencap/screencap.cpp); a phone that names no
    mapping gets HWC display 0, the primary."""
    found = _SURFACE_DISPLAY.findall(surface)
    if len(found) < 2:
        return None
    ids = [physical for physical, _hwc in found]
    port = viewport(displays)
    local = (port or {}).get("uniqueId", "")
    if local.startswith("local:") and local[len("local:"):] in ids:
        return Display(local[len("local:"):], DEFAULT_DISPLAY, len(ids))
    primary = next((physical for physical, hwc in found if hwc == "0"), ids[0])
    return Display(primary, DEFAULT_DISPLAY, len(ids))


class Screen:
    """The phone's screen as RGB: by the screencap method that was fastest when timed at connect
    (on a phone with several displays, of the game's: ``display``), or from a channel's video
    frame (``from_frame``); the channel chooses which (``assistant.phone.channel``)."""

    METHODS = {"png": ("screencap -p", decode_png), "raw": ("screencap", decode_raw)}
    NAMES = {"png": "PNG screencap -p", "raw": "raw screencap"}

    def __init__(self, device, method: str = "png"):
        # the phone it captures (assistant.phone.device.Device): its run, state and serial
        self.device = device
        self.method = method
        self.timings: dict[str, float] = {}  # method -> median seconds at connect
        self.failures: dict[str, str] = {}
        self.size: tuple[int, int] | None = None  # (width, height) of the last capture
        self._expect: dict[str, int] = {}
        self.decode_s = 0.0  # seconds spent decoding captures (the computer's, not the phone's)
        self.frames = 0  # captures taken from a channel's video
        self.display: Display | None = None  # the game's display, on a phone with several
        # the screencap's size in each orientation (portrait True): a video frame is read at it
        self.sizes: dict[bool, tuple[int, int]] = {}
        self.kept = False  # the method is an earlier run's choice, not timed now

    def command(self, method: str) -> str:
        """The screencap line of a method, naming the game's display on a phone with several."""
        command = self.METHODS[method][0]
        return command + (f" -d {self.display.capture_id}" if self.display else "")

    def find_display(self) -> None:
        """Which display to capture, asked once at connect (Android 10+: older phones have one)."""
        self.display = None
        if self.device.sdk >= SURFACE_DISPLAY_SDK:
            surface = self.device.shell("dumpsys SurfaceFlinger --display-id")
            if len(_SURFACE_DISPLAY.findall(surface)) > 1:
                self.display = game_display(surface, self.device.shell("dumpsys display"))

    def grab(self, method: str) -> np.ndarray:
        """One capture by the named method, without the black-frame check."""
        decode = self.METHODS[method][1]
        data = self.device.run_binary(self.command(method), self._expect.get(method, 0))
        self._expect[method] = len(data)
        start = time.monotonic()
        try:
            image = decode(data)
        except ValueError as exc:
            if phone_state(self.device.client, self.device.serial) != "device":  # cut off: the phone went away
                raise PhoneLost(f"lost the phone {self.device.serial} during a screenshot; "
                                f"{lost_advice(self.device.serial)}") from None
            raise CaptureFailed(f"the phone's {self.NAMES[method]} gave no picture: {exc}") from None
        self.decode_s += time.monotonic() - start
        self.size = (image.shape[1], image.shape[0])
        self.sizes[self.size[1] > self.size[0]] = self.size
        return image

    def choose(self, tries: int = 3, kept: dict | None = None, say=None) -> None:
        """Time each method (median of tries after one warm-up) and keep the fastest that works;
        CaptureFailed (``method`` None) when none does: a channel's video may still show the screen.
        ``kept``: the choice an earlier timing made on this phone model (``{"size", "method"}``):
        taken without timing when one capture by it works and is of that size. ``say``: told
        before the timing, which takes seconds on a real phone."""
        self.timings.clear()
        self.failures.clear()
        self.kept = False
        self.find_display()
        if kept is not None and kept.get("method") in self.METHODS:
            try:
                self.grab(kept["method"])
            except CaptureFailed:
                pass
            else:
                if list(self.size) == list(kept["size"]):
                    self.method, self.kept = kept["method"], True
                    return
        if say:
            say("timing its screenshots, PNG against raw (once for this phone: kept for later runs)...")
        for method in self.METHODS:
            try:
                self.grab(method)
                times = []
                for _ in range(tries):
                    start = time.perf_counter()
                    self.grab(method)
                    times.append(time.perf_counter() - start)
                self.timings[method] = statistics.median(times)
            except CaptureFailed as exc:
                self.failures[method] = str(exc)
        if not self.timings:
            self.method = None
            raise CaptureFailed(f"cannot capture the phone's screen: {'; '.join(self.failures.values())}")
        self.method = min(self.timings, key=self.timings.get)

    def describe(self) -> str:
        """Which method captures and how fast each was, for --verbose."""
        if self.method is None:
            return f"capture by the channel's video only ({'; '.join(self.failures.values())})"
        others = ", ".join(f"{self.NAMES[m]} {t * 1000:.0f} ms" for m, t in self.timings.items()
                           if m != self.method)
        failed = ", ".join(f"{self.NAMES[m]} failed" for m in self.failures)
        timing = self.timings.get(self.method)
        text = f"capture by {self.NAMES[self.method]}" + (f" ({timing * 1000:.0f} ms)" if timing else
                                                          " (the faster when timed on an earlier run)" if self.kept else "")
        if self.display:
            text += f" of display {self.display.capture_id} (of {self.display.count})"
        extra = "; ".join(x for x in (others, failed) if x)
        return text + (f"; also timed {extra}" if extra else "")

    def shot(self) -> np.ndarray:
        """A screencap by the method chosen at connect; CaptureFailed when none works."""
        if self.method is None:
            raise CaptureFailed(f"the phone {self.device.serial} gives no screenshot and its channel "
                                f"no video: {'; '.join(self.failures.values())}")
        return self.grab(self.method)

    def from_frame(self, frame: np.ndarray) -> np.ndarray:
        """A channel's video frame (RGB, its own size) as a capture at the screencap's size: the
        frame itself at that size (unwritable, as the video keeps it), else resized.

        The size is each frame's own, as scrcpy's client takes it (app/src/screen.c,
        prepare_for_frame): a stream sent smaller (max_size, an encoder that refused the full
        size) is read at the screenshot's size in its orientation, the profile's; a rotated one
        (a landscape ad) at the screenshot's of that orientation, or its own."""
        import cv2  # (see decode_png)

        start = time.monotonic()
        own = (frame.shape[1], frame.shape[0])
        size = self.sizes.get(own[1] > own[0], own)
        image = frame if size == own else cv2.resize(frame, size, interpolation=cv2.INTER_LINEAR)
        self.size = size
        self.decode_s += time.monotonic() - start
        self.frames += 1
        return image


def is_black(image: np.ndarray) -> bool:
    """True when every pixel is (nearly) black: what screencap gives for secure windows and an off screen."""
    return int(image[::4, ::4].max(initial=0)) < 16
