"""scrcpy's video: its H.264 packets decoded on a thread into a newest-frame buffer that wakes its readers."""

from __future__ import annotations

import select
import socket
import struct
import threading
import time
from collections import deque

import cv2
import numpy as np

from assistant.phone.scrcpy.server import close_socket, recv_exact
from assistant.settle import BANNER_PART, PIXEL_NOISE, STATUS_BAR_PART, STILL_PIXELS, difference

# Streamer.java: a packet's 12-byte header is its pts with these flags, then its size
PACKET_FLAG_CONFIG = 1 << 63
PACKET_FLAG_KEY_FRAME = 1 << 62
PTS_MASK = PACKET_FLAG_KEY_FRAME - 1  # the rest: the frame's capture time, us (app/src/demuxer.c)
FIRST_FRAME_WAIT = 2.0  # seconds frame() may wait for the very first decoded frame
RUNS_KEPT = 64  # the newest frames whose times are remembered (two seconds at 30 a second)
# The encoder sends a frame when the screen drew one, and a still screen's last frame again after
# 100 ms (server SurfaceEncoder.java, REPEAT_FRAME_DELAY_US): a frame alike to the one before it
# and this long after it is such a repeat, nothing drawn between (less a frame's jitter: the
# frames' times are when the phone drew them). A screen drawn anew every frame sends none.
REPEAT_GAP = 0.09
# The encoder sends a still screen's frame again every 100 ms, ten times, each sharper, then
# nothing until the screen changes (AOSP frameworks/av/media/libstagefright/bqhelper/
# GraphicBufferSource.cpp, repeatLatestBuffer_l: kRepeatLastFrameCount): a screen still for
# longer sends no frame that a capture could wait for (see Video.next_frame's ``quiet_from``).
# a quiet video's newest frame taken again stands for the screen a frame's interval (at 30 a
# second) after the last time it was taken for: two captures are never one time, and a caller
# polling for newer frames (an early judgement's) gets one a frame, as from a video that sends
QUIET_STEP = 1 / 30
# the frames drawn last, kept to tell when a repeat's screen first looked as it does: an eased
# end draws its last frames a shade apart (the oldest kept stands for any before it)
DRAWN_KEPT = 4
# the newest frames kept, repeats too, for the screen as a touch found it (``frame_by``,
# ``frames_between``): a touch's own time and the latency's (35-70 ms) at 30 a second, and more
RECENT_KEPT = 6


class Video:
    """The stream's newest decoded frame (RGB, its own size: ``size`` is the newest's) and when
    it showed the screen; ``broken`` says why the stream ended, if it did."""

    def __init__(self, sock: socket.socket | None, size: tuple[int, int] | None):
        self.sock = sock
        self.size = size  # (width, height): the codec meta's, then each frame's own
        # the phone's clock (the frames' pts) to ours: the least (arrival - pts) seen, so a
        # frame's time is when it was captured plus the smallest latency seen (never later
        # than it arrived; a loaded computer's late frames keep their capture time)
        self._pts_offset = float("inf")
        self._frame: tuple[np.ndarray, float] | None = None
        # the frames drawn last, and per recent repeat's time (REPEAT_GAP) when its screen first
        # looked as it does: the first of those frames in a row alike to it (within the noise)
        self._drawn: deque[tuple[np.ndarray, float]] = deque(maxlen=DRAWN_KEPT)
        self._repeats: deque[tuple[float, float]] = deque(maxlen=RUNS_KEPT)
        self._stood: deque[tuple[float, float]] = deque(maxlen=RUNS_KEPT)  # (a repeat's later times: next_frame)
        self._recent: deque[tuple[np.ndarray, float]] = deque(maxlen=RECENT_KEPT)  # (``frame_by``)
        self._frame_ready = threading.Condition()  # (its lock an RLock: still_since takes it inside next_frame)
        self._idle = False  # the decoder waits for the stream's next packet (see caught_up)
        self.broken: str | None = None
        self._closing = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._decode, name="scrcpy-video", daemon=True)
        self._thread.start()

    def _decode(self) -> None:
        """Read packets, decode them, keep the newest frame. A config packet (SPS/PPS) is merged
        into the next one, as the client's demuxer does (app/src/packet_merger.c)."""
        import av

        codec = av.CodecContext.create("h264", "r")
        config = b""
        try:
            while True:
                self._idle = True
                header = recv_exact(self.sock, 12)
                self._idle = False
                pts_flags, size = struct.unpack(">QI", header)
                data = recv_exact(self.sock, size)
                if pts_flags & PACKET_FLAG_CONFIG:
                    config += data
                    continue
                packet = av.Packet(config + data)
                config = b""
                frames = codec.decode(packet)
                pts = (pts_flags & PTS_MASK) / 1e6
                for frame in frames:
                    # (RGB as a capture is: made so here, off the thread that compares frames and
                    # reads them, at no more cost than BGR; shared with it, so kept unwritable. A
                    # copy of its own: PyAV's array is a view that holds the decoder's buffers, and
                    # the frames kept pinned 100 MiB more of them over a game)
                    image = frame.to_ndarray(format="rgb24").copy()
                    image.flags.writeable = False
                    self.size = (frame.width, frame.height)  # each frame's own (app/src/screen.c, prepare_for_frame)
                    arrived = time.monotonic()
                    self._pts_offset = min(self._pts_offset, arrived - pts)
                    self._keep(image, pts + self._pts_offset)
        except (EOFError, OSError, av.error.FFmpegError) as exc:
            if not self._closing:
                self.broken = f"its video stream ended ({exc})"
        with self._frame_ready:
            self._frame_ready.notify_all()

    def _keep(self, image: np.ndarray, shown: float) -> None:
        """A frame decoded: the newest now, a repeat or drawn (``still_since``)."""
        last = self._frame
        repeat = last is not None and shown - last[1] >= REPEAT_GAP and same_picture(last[0], image)
        since = None
        if repeat and self._repeats and self._repeats[-1][0] == last[1]:
            # the last repeat's screen again, its frames looked at already (the encoder sharpens a
            # still screen over its repeats, AOSP GraphicBufferSource.cpp's repeatLatestBuffer_l:
            # the later ones drift from the frames drawn by more than the noise allowed)
            since = self._repeats[-1][1]
        elif repeat:  # (looked at once a still screen's frame comes again: none while it changes)
            for drawn, at in reversed(self._drawn):
                if not same_picture(drawn, image):
                    break
                since = at
        else:
            self._drawn.append((image, shown))
        with self._frame_ready:
            self._frame = (image, shown)
            self._recent.append(self._frame)
            if since is not None:
                self._repeats.append((shown, since))
            self._frame_ready.notify_all()

    def still_since(self, shown: float) -> float | None:
        """For the encoder's repeat of a still screen (REPEAT_GAP) shown at ``shown``: when that
        screen first looked as it does, the first of the frames drawn last in a row alike to it
        (DRAWN_KEPT); also for a later time such a repeat stood for (``next_frame``); None for
        a frame drawn, or one not among the newest RUNS_KEPT."""
        with self._frame_ready:
            return next((since for at, since in (*self._repeats, *self._stood) if at == shown), None)

    def frame(self) -> tuple[np.ndarray, float] | None:
        """The newest frame and when it showed the screen (its pts on our clock, see
        ``_pts_offset``); None before the first, which it waits for a while."""
        with self._frame_ready:
            if self._frame is None and not self.broken:
                self._frame_ready.wait(FIRST_FRAME_WAIT)
            return self._frame

    def next_frame(self, shown_from: float, after: float, until: float, quiet_from: float | None = None,
                   quiet_after: float = float("-inf"), repeats_only: bool = True) -> tuple[np.ndarray, float] | None:
        """The newest frame that showed the screen at ``shown_from`` or later and after ``after``,
        waiting until ``until`` (time.monotonic), woken by the decoder as each frame is decoded (no
        polling: a frame that shows a move is taken the moment it exists); None: none that new
        by then, or the stream ended (``broken``). From ``quiet_from`` on (None: never), a newest
        frame that is a still screen's repeat shown from ``quiet_after`` on, with nothing sent
        since (``caught_up``), stands for the screen then: the encoder sends every frame the
        screen draws, and repeats a still one's ten times only (see QUIET_STEP); it comes back
        with the time asked for (and after ``after``), so that a caller's clock moves on. (A
        stalled connection sends nothing either: after a touch, only repeats that followed it
        show the stream flowing, and a touch's change not seen yet is not taken for none.)
        ``repeats_only`` False: any newest frame shown from ``quiet_after`` on stands so, repeat
        or not, for a caller that takes the screen as still by then (an animation's learned end)
        and loses nothing to a stalled stream's older frame (see ``Link._touch``)."""
        with self._frame_ready:
            while not self.broken:
                image, shown = self._frame
                if shown >= shown_from and shown > after:
                    return self._frame
                now = time.monotonic()
                if quiet_from is not None and now >= quiet_from and shown >= quiet_after:
                    since = self.still_since(shown)  # (looked up only once the rule may answer)
                    if (not repeats_only or since is not None) and self.caught_up():
                        stands = max(shown_from, shown, after + QUIET_STEP)
                        if since is not None and stands != shown:
                            # (a repeat standing for the screen later is that still screen then
                            # too: a settle on it needs no second frame, which would never come;
                            # kept apart from the repeats themselves, which a watch that asks
                            # again and again would push out)
                            self._stood.append((stands, since))
                        return image, stands
                # (still decoding at quiet_from: the frame decoded wakes it)
                wake = until if quiet_from is None or now >= quiet_from else min(until, quiet_from)
                if wake <= now:
                    return None
                self._frame_ready.wait(wake - now)
        return None

    def frame_by(self, sent: float) -> tuple[np.ndarray, float] | None:
        """The newest frame here that showed the screen by ``sent`` (so caught before a touch
        sent then, which acts after it is sent), None: none among the newest RECENT_KEPT. (One
        shown by then may still be on its way: ``frames_between`` finds it later.)"""
        with self._frame_ready:
            return next((frame for frame in reversed(self._recent) if frame[1] <= sent), None)

    def frames_between(self, after: float, before: float) -> list[tuple[np.ndarray, float]]:
        """The frames here shown after ``after`` and before ``before``, the newest first."""
        with self._frame_ready:
            return [frame for frame in reversed(self._recent) if after < frame[1] < before]

    def caught_up(self) -> bool:
        """Whether every frame the stream sent so far is decoded: the decoder waits for the
        next packet, and none has begun to arrive."""
        if not self._idle:
            return False
        if self.sock is None:
            return True
        try:
            return not select.select([self.sock], [], [], 0)[0]
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        self._closing = True
        close_socket(self.sock)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)


def same_picture(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether at most STILL_PIXELS values (a pixel's channel each) differ by more than
    PIXEL_NOISE where the game draws (``assistant.settle.still``'s band and tolerance: the
    encoder refining a still screen's repeats)."""
    if a.shape != b.shape:
        return False
    h = a.shape[0]
    y0, y1 = int(h * STATUS_BAR_PART), int(h * (1 - BANNER_PART))
    differ = difference(a[y0:y1], b[y0:y1])  # (this thread's scratch image: no frame allocated)
    values = differ.reshape(differ.shape[0], -1)  # (one channel: its values counted one by one)
    return cv2.countNonZero(cv2.threshold(values, PIXEL_NOISE, 255, cv2.THRESH_BINARY, dst=values)[1]) <= STILL_PIXELS
