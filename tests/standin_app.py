"""A stand-in app for the ADB side's tests: a flat screen that changes colour with each tap."""

import numpy as np

from phonesim.app import App

COLOURS = [(30, 140, 200), (200, 60, 40), (40, 180, 90), (230, 200, 30)]


class StandInApp(App):
    """Records every tap, swipe and key; the screen's colour is the number of taps so far, mod 4."""

    def __init__(self, preset):
        self.preset = preset
        self.taps: list[tuple[int, int]] = []
        self.swipes: list[tuple[int, int, int, int, int]] = []
        self.keys: list[str] = []

    def render(self) -> np.ndarray:
        colour = COLOURS[len(self.taps) % len(COLOURS)]
        screen = np.empty((self.preset.height, self.preset.width, 3), np.uint8)
        screen[:] = colour
        screen[: self.preset.status_bar] = (0, 0, 0)  # a status bar, so the corners differ
        screen[-10:, -10:] = (255, 255, 255)
        return screen

    def tap(self, x, y):
        self.taps.append((x, y))

    def swipe(self, x1, y1, x2, y2, ms):
        self.swipes.append((x1, y1, x2, y2, ms))

    def keyevent(self, key):
        self.keys.append(key)

    def truth(self) -> dict:
        return {"game": "standin", "taps": [list(t) for t in self.taps]}
