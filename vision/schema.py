"""The shape a stored reading profile must have: every key, type and range, checked on load.

A profile that parses but says something impossible (a pitch of 0, a template under the key
"12", a glyph of the wrong size) would be trusted by the readers and mislead them, so
``problem`` names the first thing wrong and the store rebuilds the profile instead.

>>> problem({"version": 1, "width": 1080, "height": 2400, "theme": "light", "model": "Pixel 7"})
'the profile lacks colours, fonts, game, geometry'
"""

from __future__ import annotations

import math

from solver import games as registry
from vision.cells import GLYPH
from vision.profile import VERSION
from vision.reader import reader as game_reader

# Larger than any phone or tablet screen on a side: a profile for more is not one we made.
MAX_SIDE = 8000

REQUIRED = {"version", "game", "width", "height", "theme", "model", "geometry", "colours", "fonts"}
# "points": the real game's points table, learned in play (each game's reader says which kinds);
# "channels": per channel (scrcpy, shell, exec) "animations": how long the game animates after
# each kind of touch, learned in play, and "touches": how many touches of each such kind were
# made (how much learning them further pays); "animations" and "touches" at the top: the same,
# stored before they were kept per channel (still a sound profile: they are left unused);
# "touch": how the game's app takes a move when it is not a tap ("swipe"), learned in play;
# "accepts": what the phone's game was seen to accept in play (a flag, or seconds)
OPTIONAL = {"points", "animations", "touches", "channels", "accepts", "touch"}
CHANNEL_KEYS = {"animations", "touches"}
# More touches of one kind than any number of games on one phone makes.
MAX_TOUCHES = 10 ** 9
# Longer than any game's animation, in seconds: a stored time above it is not one we learned.
MAX_ANIMATION = 10.0
THEMES = ("light", "dark")
COLOUR_KEYS = {"background", "live_ink"}


def problem(data) -> str | None:
    """What is wrong with a profile's JSON (the first thing found), or None when it is sound."""
    try:
        _check(data)
    except ValueError as exc:  # a Wrong, or a game reader's own ValueError
        return str(exc)
    return None


class Wrong(ValueError):
    """What is wrong with a stored profile (raised by the checks below and by each game's reader's
    ``check_geometry``)."""


def _check(data) -> None:
    if not isinstance(data, dict):
        raise Wrong("it is not a JSON object")
    check_keys("the profile", data, REQUIRED, OPTIONAL)
    if data["version"] != VERSION or isinstance(data["version"], bool):
        raise Wrong(f"version {data['version']!r} is not {VERSION}")
    game = data["game"]
    if game not in registry.NAMES:
        raise Wrong(f"game {game!r} is not one of {', '.join(sorted(registry.NAMES))}")
    reader = game_reader(game)  # says which fonts it learns, checks its geometry and points
    w = check_int("width", data["width"], 1, MAX_SIDE)
    h = check_int("height", data["height"], 1, MAX_SIDE)
    if data["theme"] not in THEMES:
        raise Wrong(f"theme {data['theme']!r} is not light or dark")
    if not isinstance(data["model"], str):
        raise Wrong("model is not text")
    check_dict("geometry", data["geometry"])
    reader.check_geometry(data["geometry"], w, h)
    colours = check_dict("colours", data["colours"])
    check_keys("colours", colours, set(), COLOUR_KEYS)
    if "background" in colours:
        check_numbers("colours.background", colours["background"], 3, 0, 255)
    if "live_ink" in colours:
        check_number("colours.live_ink", colours["live_ink"], 0, 255)
    fonts = check_dict("fonts", data["fonts"])
    check_keys("fonts", fonts, set(), reader.FONTS)
    for name, font in fonts.items():
        for digit, entry in check_dict(f"fonts.{name}", font).items():
            check_glyph(f"fonts.{name}", digit, entry)
    if "points" in data:
        points = check_dict("points", data["points"])
        for key, value in points.items():
            check_int(f"points.{key}", value, 0, 10 ** 6)
        reader.check_points(points)  # which kinds of points the game has
    check_timing("", data)
    for name, kept in check_dict("channels", data.get("channels", {})).items():
        check_keys(f"channels.{name}", check_dict(f"channels.{name}", kept), set(), CHANNEL_KEYS)
        check_timing(f"channels.{name}.", kept)
    for key, value in check_dict("accepts", data.get("accepts", {})).items():
        if not isinstance(value, bool):
            check_number(f"accepts.{key}", value, 0, MAX_ANIMATION)
    if data.get("touch", "swipe") != "swipe":
        raise Wrong(f'touch {data["touch"]!r} is not "swipe" (the one touch other than a tap play keeps)')


def check_timing(where: str, data: dict) -> None:
    """One channel's animation times and touch counts (``where``: the channel's key, "" at the top)."""
    for kind, times in check_dict(f"{where}animations", data.get("animations", {})).items():
        moving, still = check_numbers(f"{where}animations.{kind}", times, 2, 0, MAX_ANIMATION)
        if moving > still:
            raise Wrong(f"{where}animations.{kind} {times!r} is not [latest seen moving, earliest seen still]")
    for kind, count in check_dict(f"{where}touches", data.get("touches", {})).items():
        check_int(f"{where}touches.{kind}", count, 0, MAX_TOUCHES)


def check_glyph(where: str, digit, entry) -> None:
    """One learned glyph template: its key, how many glyphs made it, how well they fitted ("fit":
    sum of correlations, glyphs compared) and their spread ("spread": sum of squared
    correlations), its pixels. A template stored before the spread was kept has none: it loads,
    and is judged as one never compared until its spread is learned again (vision.glyphs)."""
    if not (isinstance(digit, str) and len(digit) == 1 and digit in "0123456789"):
        raise Wrong(f'{where} has a glyph under "{digit}": glyph keys are single digits 0-9')
    where = f"{where}.{digit}"
    check_keys(where, check_dict(where, entry), {"count", "fit", "mean"}, {"spread"})
    count = check_int(f"{where}.count", entry["count"], 1, 10 ** 9)
    total, n = check_numbers(f"{where}.fit", entry["fit"], 2, -10 ** 9, 10 ** 9)
    if n != int(n) or not 0 <= n <= count or abs(total) > n + 1e-3:
        raise Wrong(f"{where}.fit {entry['fit']!r} is not [sum of correlations, glyphs compared]")
    if "spread" in entry:
        squares = check_number(f"{where}.spread", entry["spread"], 0, 10 ** 9)
        # squares of n correlations (each -1..1) sum to at most n and at least total^2 / n
        if squares > n + 1e-3 or (n > 0 and squares < total * total / n - 1e-3):
            raise Wrong(f"{where}.spread {entry['spread']!r} is not the sum of the squared correlations")
    check_numbers(f"{where}.mean", entry["mean"], GLYPH * GLYPH, 0, 1)


# -- the small checks (public: each game's reader checks its own geometry with them) -------------

def check_keys(where: str, data: dict, required: set, optional: set) -> None:
    missing = required - set(data)
    if missing:
        raise Wrong(f"{where} lacks {', '.join(sorted(missing))}")
    extra = set(data) - required - optional
    if extra:
        raise Wrong(f"{where} has unknown keys {', '.join(sorted(map(repr, extra)))}")


def check_dict(where: str, value) -> dict:
    if not isinstance(value, dict):
        raise Wrong(f"{where} is not a JSON object")
    return value


PLAIN_NUMBERS = (int, float)  # (not bool, a subclass of int: True is no number here)


def check_number(where: str, value, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Wrong(f"{where} is {value!r}, not a number")
    if not low <= value <= high:
        raise Wrong(f"{where} is {value!r}, outside {low}-{high}")
    return float(value)


def check_int(where: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Wrong(f"{where} is {value!r}, not a whole number")
    if not low <= value <= high:
        raise Wrong(f"{where} is {value!r}, outside {low}-{high}")
    return value


def check_numbers(where: str, value, count: int, low: float, high: float) -> list[float]:
    if not isinstance(value, list) or len(value) != count:
        raise Wrong(f"{where} is not a list of {count} numbers")
    # (a glyph's 576 values in one pass, a profile saved some 8 times in a first game: a call
    # for each value took 10 ms a save; one out of range or not a plain number, NaN and the
    # infinities among them (the bounds are finite), is looked at alone for its message)
    if all(type(v) in PLAIN_NUMBERS and low <= v <= high for v in value):
        return [float(v) for v in value]
    return [check_number(where, v, low, high) for v in value]
