"""A phone that shows a recording's screens (``assistant.record``'s bundles) in order as the taps
arrive: `tapsolve phone --replay BUNDLE` turns a field report into an end-to-end test.

The recording's screens and touches are put in time order; the screens between two touches are
one scene, shown by its last screen (the one the run acted on). The phone starts on the first
scene with a kept screen and moves to the next once it has had as many taps as the recorded
touch had (a pair's two taps, one swipe, one key). Past the last scene it stays on its screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from phonesim.phone import App, Preset
from solver.errors import InputError

TOUCHES = ("tap", "swipe", "key")


def _load(folder: Path) -> tuple[dict, list]:
    try:
        index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        events = json.loads((folder / "events.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"--replay {folder}: not a recording ({exc}): give the folder a failed run names") from None
    if not isinstance(index, dict) or not isinstance(events, list) or not index.get("screens"):
        raise InputError(f"--replay {folder}: the recording keeps no screen to show")
    return index, events


class ReplayApp(App):
    """The recorded screens, one scene per recorded touch (see the module's docstring)."""

    kind = "game"

    def __init__(self, folder: Path):
        import cv2

        index, events = _load(folder)
        self.index = index
        kept = sorted(index["screens"], key=lambda s: s["t"])
        # (time, "screen", path) and (time, "touch", taps it takes) in the run's order
        timeline = [(s["t"], 0, folder / s["file"]) for s in kept if (folder / s["file"]).is_file()]
        if not timeline:
            raise InputError(f"--replay {folder}: none of its screens' files is there")
        first = timeline[0][0]
        timeline += [(e["t"], 1, len(e.get("points", [])) if e["kind"] == "tap" else 1)
                     for e in events if e.get("kind") in TOUCHES and e.get("t", -1) > first]
        timeline.sort(key=lambda item: (item[0], item[1]))
        self.scenes: list[Path] = []  # the last screen of each scene
        self.touches: list[int] = []  # the taps that end each scene
        self.recorded: list[dict] = [e for e in events if e.get("kind") in TOUCHES and e.get("t", -1) > first]
        shown = None
        for _, what, value in timeline:
            if what == 0:
                shown = value
            else:
                self.scenes.append(shown)
                self.touches.append(value)
        self.scenes.append(shown)
        self.scene, self.taps_in_scene = 0, 0
        self._images: dict[Path, np.ndarray] = {}
        self._read = lambda path: cv2.imread(str(path), cv2.IMREAD_COLOR)[:, :, ::-1].copy()
        games = {e.get("game") for e in events if e.get("kind") == "read" and e.get("game")}
        self.game = games.pop() if len(games) == 1 else ""
        self.height, self.width = self.render().shape[:2]

    @property
    def package(self) -> str:
        """The recorded game's app package, so that the game reads as in front."""
        if self.game:
            from phonesim import apps

            return apps.app_class(self.game).PACKAGE
        return self.PACKAGE

    @property
    def activity(self) -> str:
        if self.game:
            from phonesim import apps

            return apps.app_class(self.game).ACTIVITY
        return self.ACTIVITY

    def preset(self) -> Preset:
        """A device of the recorded phone's model, screen and density."""
        phone = self.index.get("phone") or {}
        density = phone.get("density") or 420
        return Preset("replay", self.width, self.height, int(density), str(phone.get("model") or "replay"),
                      "replay", "replay", "roboto", 0)

    def render(self) -> np.ndarray:
        path = self.scenes[self.scene]
        if path not in self._images:
            self._images[path] = self._read(path)
        return self._images[path]

    def _touched(self) -> None:
        """One tap (or swipe, or key) arrived: the next scene once the recorded touch is complete."""
        if self.scene >= len(self.touches):
            return
        self.taps_in_scene += 1
        if self.taps_in_scene >= self.touches[self.scene]:
            self.scene, self.taps_in_scene = self.scene + 1, 0

    def tap(self, x: int, y: int) -> None:
        self._touched()

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        self._touched()

    def keyevent(self, key: str) -> None:
        self._touched()

    def truth(self) -> dict:
        return {"screen": "replay", "scene": self.scene, "scenes": len(self.scenes)}
