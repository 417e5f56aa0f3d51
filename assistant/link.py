"""The assistant's hold on one phone: capture and read with its profile, tap, and ride out a
phone that drops off the cable for a moment."""

from __future__ import annotations

import vision
from assistant.device import AdbServerUnreachable, Device, PhoneLost
from calibration import store


class Link:
    """One phone, its reading profile, and bounded reconnects when it goes away."""

    def __init__(self, device: Device, verbose: bool = False, say=print, reconnect_timeout: float = 30.0):
        self.device, self.say = device, say
        self.reconnect_timeout = reconnect_timeout
        self.profile = None
        self.reconnects = 0
        if verbose:
            w, h = device.size
            say(f"phone {device.serial}: {device.model}, {w}x{h}; {device.screen.describe()}")

    def _again(self, action):
        """Run action; if the phone is lost, wait (bounded) for it to come back and run it once more."""
        try:
            return action()
        except (PhoneLost, AdbServerUnreachable) as exc:
            self.say(f"{exc}; waiting up to {self.reconnect_timeout:g} s for it to come back")
            self.device.reconnect(timeout=self.reconnect_timeout)  # raises PhoneLost when it does not
            self.reconnects += 1
            self.say("the phone is back: going on from what its screen shows")
            return action()

    def capture(self):
        return self._again(self.device.capture)

    def look(self, game: str = "auto"):
        """Capture and read the screen: (image, reading). The first read builds or loads the
        device's profile; later ones reuse it and store what they learn."""
        image = self.capture()
        if self.profile is None or self.profile.game != (game if game != "auto" else self.profile.game):
            reading = store.read(image, self.device.model, game, note=self.say)
        else:
            reading = vision.read(image, game, self.profile)
            if reading.profile_stale:
                reading = store.read(image, self.device.model, game, rebuild=True, note=self.say)
            elif reading.profile is not None and reading.profile.game != self.profile.game:
                # the other game is on screen now: its own stored profile, not a blank one
                reading = store.read(image, self.device.model, reading.game, note=self.say)
        if reading.profile is not None:
            self.profile = reading.profile
            store.remember(self.profile, self.say)  # what play taught it is there for the next game
        return image, reading

    def rebuild_profile(self, image, game: str) -> None:
        """Build this phone's profile for the game afresh from a screenshot, and store it."""
        self.profile = store.read(image, self.device.model, game, rebuild=True, note=self.say).profile

    def tap(self, x: float, y: float) -> None:
        self.tap_all([(x, y)])

    def tap_all(self, points) -> None:
        """Several taps in one shell call. A lost phone is waited for, but the taps are not
        sent again: the screen, read next, tells whether they landed."""
        try:
            self.device.taps(points)
        except (PhoneLost, AdbServerUnreachable):
            self._again(lambda: None)

    def swipe(self, x1, y1, x2, y2, ms: int = 400) -> None:
        self._again(lambda: self.device.swipe(x1, y1, x2, y2, ms))
