"""What a reader learns about one device and game: geometry, colours and glyph templates.

``calibration`` stores and loads profiles per device (``vision.schema`` checks them); this module
is only the in-memory profile. A read learns into a ``draft`` of the profile it is given, and its
caller takes that in with ``learn`` (a template learned on one read speeds up the next).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from solver.games import NAMES
from vision.glyphs import Templates
from vision.reader import reader

VERSION = 1


@dataclass
class Profile:
    """A reading profile: the screen it was made on, the board's geometry, colours, glyph fonts."""

    game: str
    width: int
    height: int
    theme: str = "light"
    model: str = ""
    geometry: dict = field(default_factory=dict)  # game-specific: lattice lines, pitch, ...
    colours: dict = field(default_factory=dict)  # background, live, faded, ...
    fonts: dict[str, Templates] = field(default_factory=dict)  # "cell", "score", "stage", "badge"
    # the game's points where the phone showed they differ from the rules' table (kind to points,
    # learned in play by assistant.games; each game's reader checks its own: check_points)
    points: dict[str, int] = field(default_factory=dict)
    # per channel the touches went by and the frames were timed on ("scrcpy", "shell", "exec":
    # a video frame's time is not a screencap's, a touch handed over not one run): how long the
    # game animates after each kind of touch, learned in play by assistant.animation, as
    # {"animations": kind to [latest seen moving, earliest seen still] in seconds, "touches":
    # kind to the touches made with that time on this phone so far (how many more a narrower
    # time may be expected to save on)}
    channels: dict[str, dict[str, dict]] = field(default_factory=dict)
    # what this phone's game was seen to accept, learned in play: "taps_while_animating" (False:
    # it ignores a tap while it animates, so every move waits for the last one's animation), and
    # a game's own (assistant.games: Number Match's "row_window", seconds an emptied row lingers)
    accepts: dict[str, bool | float] = field(default_factory=dict)
    # the touch the game's app takes a move by, learned in play when it is not a tap ("swipe":
    # a 15-puzzle app that slides tiles only by swipe; assistant.games), else None
    touch: str | None = None
    changed: bool = False  # learned something since loaded (worth storing again)
    counted: bool = False  # only a channel's ``touches`` changed since stored (calibration.store keeps them at exit)
    # lines of text read, by their pixels (a reader's memo, never stored; its drafts share it)
    texts: dict = field(default_factory=dict, repr=False, compare=False)
    # the fonts a draft left out because their templates cannot be trusted (``Templates.problem``),
    # each with why: the read reads those glyphs afresh and says so (a draft's own, never stored)
    refused: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def font(self, name: str) -> Templates:
        return self.fonts.setdefault(name, Templates())

    def draft(self) -> "Profile":
        """A copy for one read to learn into (its geometry, colours and fonts its own; ``changed``
        says whether the read learned something), leaving this profile as it was.

        A font whose templates contradict each other or the digits drawn in phone fonts is left
        out of the draft (named in ``refused``): the read learns it afresh, and ``learn`` puts
        the new one in its place, where a wrong template would have misread its digit for sure."""
        out = copy.copy(self)  # the same screen, points, times and memo of texts
        out.geometry = {k: list(v) if isinstance(v, list) else v for k, v in self.geometry.items()}
        out.colours = dict(self.colours)
        out.refused = {k: why for k, v in self.fonts.items() if (why := v.problem())}
        out.fonts = {k: v.copy() for k, v in self.fonts.items() if k not in out.refused}
        out.changed = bool(out.refused)  # the profile must be stored again without them
        return out

    def refusal(self) -> str:
        """The fonts this draft refused, in words ("" when none)."""
        return ", ".join(f"its {k} templates ({why})" for k, why in self.refused.items())

    def learn(self, draft: "Profile") -> None:
        """Take in what a read learned into its ``draft`` of this profile: the geometry, colours
        and glyph fonts (the one step that changes a profile a read used)."""
        self.geometry, self.colours, self.fonts = draft.geometry, draft.colours, draft.fonts
        self.changed = self.changed or draft.changed

    def fits(self, image) -> bool:
        """Whether the image has the size this profile was made for."""
        return image.shape[1] == self.width and image.shape[0] == self.height

    def suits(self, game: str, image, theme: str) -> bool:
        """Whether a read of ``game`` on this screen can use this profile: its game, size and theme."""
        return self.game == game and self.fits(image) and self.theme == theme

    def timing(self, channel: str) -> tuple[dict[str, list[float]], dict[str, int]]:
        """The animation times and touch counts kept for this channel (copies; empty when none)."""
        kept = self.channels.get(channel, {})
        return ({kind: list(times) for kind, times in kept.get("animations", {}).items()},
                dict(kept.get("touches", {})))

    def to_json(self) -> dict:
        out = {"version": VERSION, "game": self.game, "width": self.width, "height": self.height,
               "theme": self.theme, "model": self.model, "geometry": self.geometry,
               "colours": self.colours, "fonts": {k: v.to_json() for k, v in self.fonts.items()}}
        if self.points:
            out["points"] = dict(self.points)
        channels = {name: {key: dict(value) for key, value in kept.items() if value}
                    for name, kept in self.channels.items()}
        channels = {name: kept for name, kept in channels.items() if kept}
        if channels:
            out["channels"] = channels
        if self.accepts:
            out["accepts"] = dict(self.accepts)
        if self.touch:
            out["touch"] = self.touch
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Profile":
        """A profile from its JSON; raises ValueError (or KeyError/TypeError) when malformed. A
        profile stored before times were kept per channel has them at its top ("animations",
        "touches"): learned on a channel no longer known, they are left out (learned again)."""
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise ValueError("not a version 1 profile")
        if data["game"] not in NAMES:
            raise ValueError(f"unknown game {data['game']!r}")
        points = data.get("points", {})
        reader(data["game"]).check_points(points)  # the game's reader says what it keeps
        touch = data.get("touch")  # (vision.schema checks it)
        return cls(data["game"], int(data["width"]), int(data["height"]), str(data.get("theme", "light")),
                   str(data.get("model", "")), dict(data["geometry"]), dict(data["colours"]),
                   {k: Templates.from_json(v) for k, v in data["fonts"].items()}, dict(points),
                   {str(name): {"animations": {str(k): [float(a), float(b)]
                                               for k, (a, b) in kept.get("animations", {}).items()},
                                "touches": {str(k): int(n) for k, n in kept.get("touches", {}).items()}}
                    for name, kept in data.get("channels", {}).items()},
                   {str(k): v if isinstance(v, bool) else float(v) for k, v in data.get("accepts", {}).items()},
                   touch)
