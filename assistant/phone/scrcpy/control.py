"""scrcpy's control socket: taps, swipes and keys sent as its control messages, the device's drained."""

from __future__ import annotations

import socket
import struct
import threading
import time

from assistant.phone.scrcpy.server import close_socket

# ControlMessage.java's types; Android's MotionEvent and KeyEvent action codes
TYPE_INJECT_KEYCODE, TYPE_INJECT_TOUCH_EVENT = 0, 2
ACTION_DOWN, ACTION_UP, ACTION_MOVE = 0, 1, 2
# app/src/control_msg.h: the pointer id of a finger that is not the mouse
POINTER_ID_GENERIC_FINGER = -2
PRESSURE_FULL = 0xFFFF  # u16 fixed point: Binary.u16FixedPointToFloat(0xffff) is 1.0
PRESSURE_NONE = 0  # a lift's (input_manager.c: "pressure = up ? 0.0f : 1.0f")
# Android's KeyEvent codes of the keys tapsolve sends (KEYCODE_NAME -> code)
KEYCODES = {"KEYCODE_HOME": 3, "KEYCODE_BACK": 4, "KEYCODE_VOLUME_UP": 24, "KEYCODE_VOLUME_DOWN": 25,
            "KEYCODE_POWER": 26, "KEYCODE_ENTER": 66, "KEYCODE_MENU": 82, "KEYCODE_APP_SWITCH": 187,
            "KEYCODE_SLEEP": 223, "KEYCODE_WAKEUP": 224}
KEYCODE_UNKNOWN = 0  # injected once at start: the refusal shows without touching the screen
# a finger held for one 60 Hz frame: a down and up within one frame can be lost to a game engine
# that polls touches once a frame (Unity's Input)
TAP_HOLD_S = 0.017
SWIPE_STEP_S = 0.016  # a move message every 60 Hz frame during a swipe


def touch_message(action: int, x: int, y: int, width: int, height: int,
                  pointer_id: int = POINTER_ID_GENERIC_FINGER, pressure: int | None = None) -> bytes:
    """INJECT_TOUCH_EVENT: type, action, pointer id (8), x, y (4 each), screen width, height (2
    each), pressure (2: full while the finger is down, none as it lifts), action button, buttons
    (4 each): 32 bytes, big-endian, as ControlMessageReader.java reads it."""
    if pressure is None:
        pressure = PRESSURE_NONE if action == ACTION_UP else PRESSURE_FULL
    return struct.pack(">BBqiiHHHii", TYPE_INJECT_TOUCH_EVENT, action, pointer_id, x, y, width, height,
                       pressure, 0, 0)


def keycode_message(action: int, keycode: int, repeat: int = 0, meta_state: int = 0) -> bytes:
    """INJECT_KEYCODE: type, action, keycode, repeat, meta state: 14 bytes, big-endian."""
    return struct.pack(">BBiii", TYPE_INJECT_KEYCODE, action, keycode, repeat, meta_state)


def keycode(code: str) -> int:
    """Android's key code for "KEYCODE_BACK", "BACK" or "4"."""
    name = str(code).strip().upper()
    if name.isdigit():
        return int(name)
    name = name if name.startswith("KEYCODE_") else "KEYCODE_" + name
    if name not in KEYCODES:
        raise ValueError(f"unknown key {code!r}: one of {', '.join(KEYCODES)}")
    return KEYCODES[name]


class Control:
    """The control socket: a call's messages sent in order (``check`` before each touch and
    after the call: the channel's own word on whether the server still takes them), the
    device's messages drained on a thread so the socket never fills."""

    def __init__(self, sock: socket.socket, check):
        self.sock, self.check = sock, check
        self.broken: str | None = None  # why the socket closed, if it did
        self.sent_any = False  # some of the current call's messages left
        self._closing = False
        self._send_lock = threading.Lock()
        self._drain = threading.Thread(target=self._drain_messages, name="scrcpy-control", daemon=True)
        self._drain.start()

    def send(self, data: bytes) -> None:
        try:
            with self._send_lock:
                self.sock.sendall(data)
        except OSError as exc:
            self.broken = self.broken or f"its control socket closed ({exc})"
            self.check()
        self.sent_any = True

    def taps(self, position, points) -> None:
        """Each point as a finger down, held a frame, and up; ``position`` turns a point into
        the (x, y, width, height) the server takes."""
        for x, y in points:
            self.check()
            self.send(touch_message(ACTION_DOWN, *position(x, y)))
            time.sleep(TAP_HOLD_S)
            self.send(touch_message(ACTION_UP, *position(x, y)))
        self.check()

    def swipe(self, position, a: int, b: int, c: int, d: int, ms: int) -> None:
        """A finger down at (a, b), moved every 60 Hz frame, up at (c, d) (``position`` as for taps)."""
        self.check()
        seconds = max(ms, 0) / 1000
        steps = max(1, round(seconds / SWIPE_STEP_S))
        began = time.monotonic()
        self.send(touch_message(ACTION_DOWN, *position(a, b)))
        for k in range(1, steps + 1):
            wait = began + k * seconds / steps - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            self.send(touch_message(ACTION_MOVE, *position(round(a + (c - a) * k / steps),
                                                           round(b + (d - b) * k / steps))))
        self.send(touch_message(ACTION_UP, *position(c, d)))
        self.check()

    def key(self, number: int) -> None:
        self.check()
        self.send(keycode_message(ACTION_DOWN, number) + keycode_message(ACTION_UP, number))
        self.check()

    def _drain_messages(self) -> None:
        """The device's messages (clipboard, UHID) are not used: read them so the socket never fills."""
        try:
            while self.sock.recv(4096):
                pass
        except OSError:
            pass
        if not self._closing:
            self.broken = self.broken or "its control socket closed"

    def close(self) -> None:
        self._closing = True
        close_socket(self.sock)
        if self._drain is not threading.current_thread():
            self._drain.join(timeout=2)
