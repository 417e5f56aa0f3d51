"""The phone's screen: captured by PNG or raw screencap (the faster, timed at connect), decoded to RGB."""

from __future__ import annotations

import statistics
import struct
import time
from typing import TYPE_CHECKING

from assistant.phone.channel import ChannelUnavailable
from assistant.phone.server import PhoneLost, lost_advice
from solver.errors import TapsolveError

if TYPE_CHECKING:
    import numpy as np


class BlackScreen(TapsolveError):
    """The screenshot is all black: nothing to read."""


class CaptureFailed(TapsolveError):
    """The phone answered a screenshot with something that is not one."""


def decode_png(data: bytes | bytearray) -> np.ndarray:
    import cv2  # here, not at the top: `tapsolve devices` decodes no screen and starts faster
    import numpy as np

    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    except cv2.error:
        image = None
    if image is None:
        raise ValueError(f"not a PNG ({len(data)} bytes: {bytes(data[:40])!r})")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


# Android PixelFormat values screencap writes: bytes per pixel and the cv2 conversion to RGB.
_RAW_FORMATS = {1: (4, "COLOR_RGBA2RGB"), 2: (4, "COLOR_RGBA2RGB"), 3: (3, None),
                5: (4, "COLOR_BGRA2RGB"), 4: (2, "COLOR_BGR5652RGB")}


def decode_raw(data: bytes | bytearray) -> np.ndarray:
    """Plain `screencap`: width, height, format (and, since Android 9, a colour space) then pixels."""
    import cv2  # (see decode_png)
    import numpy as np

    if len(data) < 12:
        raise ValueError(f"raw screencap too short ({len(data)} bytes: {bytes(data)!r})")
    width, height, pixel_format = struct.unpack_from("<3I", data)
    if pixel_format not in _RAW_FORMATS or not 0 < width <= 10000 or not 0 < height <= 10000:
        raise ValueError(f"not a raw screencap (header {width}x{height} format {pixel_format}): "
                         f"{bytes(data[:40])!r}")
    depth, conversion = _RAW_FORMATS[pixel_format]
    header = len(data) - width * height * depth
    if header not in (12, 16):
        raise ValueError(f"raw screencap of {len(data)} bytes does not hold {width}x{height} pixels")
    pixels = np.frombuffer(data, np.uint8, width * height * depth, header).reshape(height, width, depth)
    return pixels.copy() if conversion is None else cv2.cvtColor(pixels, getattr(cv2, conversion))


# A video frame is judged by when it showed the screen (the channel's frame time: its capture
# time on our clock, late by at most the channel's least latency). After a touch, a frame counts
# only from VIDEO_LATENCY past it: scrcpy's 35-70 ms (README; the touch is injected
# asynchronously, Controller.java), so an earlier frame may not show the touch yet.
VIDEO_LATENCY = 0.07
# A still screen's frame comes again after 100 ms (scrcpy's SurfaceEncoder.java,
# REPEAT_FRAME_DELAY_US), then the latency: a capture waits up to FRAME_WAIT for a frame as new
# as it asks (a loaded computer decodes late) before it takes a screencap instead, which costs
# as much on a real phone (0.3-0.55 s).
FRAME_WAIT = 0.5
FRAME_POLL = 0.005  # seconds between looks for a newer frame (frame() itself never blocks long)


class Screen:
    """Captures the phone's screen as RGB: the channel's newest video frame when it has one
    newer than the last touch, else by the screencap method that was fastest when timed at connect."""

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
        # a lossless screencap, not a compressed video frame: for the read that builds the
        # phone's profile, and after a read that was not sure (Link.look sets it)
        self.lossless = True
        self.frames = 0  # captures taken from the channel's video
        self.from_video = False  # the last capture was a video frame ...
        self.shown_at = float("-inf")  # ... showing the screen at this time.monotonic()

    def grab(self, method: str) -> np.ndarray:
        """One capture by the named method, without the black-frame check."""
        command, decode = self.METHODS[method]
        data = self.device.run(command, "exec", self._expect.get(method, 0))
        self._expect[method] = len(data)
        start = time.monotonic()
        try:
            image = decode(data)
        except ValueError as exc:
            if self.device.state() != "device":  # cut off because the phone went away
                raise PhoneLost(f"lost the phone {self.device.serial} during a screenshot; "
                                f"{lost_advice(self.device.serial)}") from None
            raise CaptureFailed(f"the phone's {self.NAMES[method]} gave no picture: {exc}") from None
        self.decode_s += time.monotonic() - start
        self.size = (image.shape[1], image.shape[0])
        return image

    def choose(self, tries: int = 3) -> None:
        """Time each method (median of tries after one warm-up) and keep the fastest that works."""
        self.timings.clear()
        self.failures.clear()
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
            raise CaptureFailed(f"cannot capture the phone's screen: {'; '.join(self.failures.values())}")
        self.method = min(self.timings, key=self.timings.get)

    def describe(self) -> str:
        """Which method captures and how fast each was, for --verbose."""
        others = ", ".join(f"{self.NAMES[m]} {t * 1000:.0f} ms" for m, t in self.timings.items()
                           if m != self.method)
        failed = ", ".join(f"{self.NAMES[m]} failed" for m in self.failures)
        timing = self.timings.get(self.method)
        text = f"capture by {self.NAMES[self.method]}" + (f" ({timing * 1000:.0f} ms)" if timing else "")
        extra = "; ".join(x for x in (others, failed) if x)
        return text + (f"; also timed {extra}" if extra else "")

    def video(self, not_before: float | None = None) -> np.ndarray | None:
        """The channel's newest frame as RGB at the screencap's size, once one shows the screen
        from ``not_before`` on (default: VIDEO_LATENCY before now), from VIDEO_LATENCY past the
        last touch, and newer than the last one taken (two captures are never one frame), waiting
        up to FRAME_WAIT for it; None: no video, or none that new. ``shown_at``: its frame time."""
        if self.lossless:
            return None
        channel = self.device.channel
        now = time.monotonic()
        wanted = max(now - VIDEO_LATENCY if not_before is None else not_before,
                     self.device.touched_at + VIDEO_LATENCY)
        deadline = max(now, wanted) + FRAME_WAIT
        while True:
            try:
                got = channel.frame()
            except (ChannelUnavailable, ConnectionError) as exc:
                # the stream ended (the server died, the phone went): the next channel, one line;
                # this look is a screencap
                self.device.fall_back(exc)
                return None
            if got is None:
                return None
            frame, shown = got
            if shown >= wanted and shown > self.shown_at:
                break
            if time.monotonic() > deadline:
                return None
            time.sleep(FRAME_POLL)
        import cv2  # (see decode_png)

        start = time.monotonic()
        image = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
        if self.size and (image.shape[1], image.shape[0]) != self.size:
            # a stream sent smaller (scrcpy's max_size) is read at the screenshot's size, the profile's
            image = cv2.resize(image, self.size, interpolation=cv2.INTER_LINEAR)
        self.decode_s += time.monotonic() - start
        self.frames += 1
        self.shown_at = shown
        return image

    def capture(self, not_before: float | None = None) -> np.ndarray:
        """The screen as an H x W x 3 RGB image (a video frame showing it from ``not_before`` on,
        when the channel has one: see ``video``); BlackScreen when there is nothing on it."""
        image = self.video(not_before)
        self.from_video = image is not None
        if image is None:
            image = self.grab(self.method)
        if is_black(image):
            raise BlackScreen(
                f"the phone {self.device.serial}'s screenshot is all black: the screen is off or "
                "locked, or the app shows a secure window that blocks screenshots; wake and unlock "
                "the phone and open the game")
        return image


def is_black(image: np.ndarray) -> bool:
    """True when every pixel is (nearly) black: what screencap gives for secure windows and an off screen."""
    return int(image[::4, ::4].max(initial=0)) < 16
