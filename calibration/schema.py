"""The shape a stored reading profile must have: every key, type and range, checked on load.

A profile that parses but says something impossible (a pitch of 0, a template under the key
"12", a glyph of the wrong size) would be trusted by the readers and mislead them, so
``problem`` names the first thing wrong and the store rebuilds the profile instead.

>>> problem({"version": 1, "game": "flip9", "width": 1080, "height": 2400, "theme": "light",
...          "model": "Pixel 7", "geometry": {}, "colours": {}, "fonts": {"card": {"12": {}}}})
'fonts.card has a glyph under "12": glyph keys are single digits 0-9'
"""

from __future__ import annotations

import math

from vision.cells import GLYPH
from vision.grid import COLUMNS
from vision.profile import VERSION

# Larger than any phone or tablet screen on a side: a profile for more is not one we made.
MAX_SIDE = 8000

REQUIRED = {"version", "game", "width", "height", "theme", "model", "geometry", "colours", "fonts"}
# "points": the real game's points table, learned in play (keys as solver.numbermatch.POINTS)
OPTIONAL = {"points"}
POINTS_KEYS = {"touching", "row_break", "gap", "row", "clear"}
THEMES = ("light", "dark")

# Per game: the fonts its readers learn, and its geometry's keys, each with its check. A game
# with no geometry stored (Flip 9 finds its buttons, the 15-puzzle its frame, on every read) has none.
# tests/test_games.py checks that every game of solver.games is here.
FONTS = {"numbermatch": {"cell", "badge", "stage", "score"}, "flip9": {"card"}, "fifteen": {"tile"}}
COLOUR_KEYS = {"background"}


def problem(data) -> str | None:
    """What is wrong with a profile's JSON (the first thing found), or None when it is sound."""
    try:
        _check(data)
    except _Wrong as exc:
        return str(exc)
    return None


class _Wrong(Exception):
    pass


def _check(data) -> None:
    if not isinstance(data, dict):
        raise _Wrong("it is not a JSON object")
    _keys("the profile", data, REQUIRED, OPTIONAL)
    if data["version"] != VERSION or isinstance(data["version"], bool):
        raise _Wrong(f"version {data['version']!r} is not {VERSION}")
    game = data["game"]
    if game not in FONTS:
        raise _Wrong(f"game {game!r} is not one of {', '.join(sorted(FONTS))}")
    w = _int("width", data["width"], 1, MAX_SIDE)
    h = _int("height", data["height"], 1, MAX_SIDE)
    if data["theme"] not in THEMES:
        raise _Wrong(f"theme {data['theme']!r} is not light or dark")
    if not isinstance(data["model"], str):
        raise _Wrong("model is not text")
    _dict("geometry", data["geometry"])
    GEOMETRY[game](data["geometry"], w, h)
    colours = _dict("colours", data["colours"])
    _keys("colours", colours, set(), COLOUR_KEYS)
    if "background" in colours:
        _numbers("colours.background", colours["background"], 3, 0, 255)
    fonts = _dict("fonts", data["fonts"])
    _keys("fonts", fonts, set(), FONTS[game])
    for name, font in fonts.items():
        for digit, entry in _dict(f"fonts.{name}", font).items():
            check_glyph(f"fonts.{name}", digit, entry)
    if "points" in data:
        points = _dict("points", data["points"])
        _keys("points", points, set(), POINTS_KEYS)
        for key, value in points.items():
            _int(f"points.{key}", value, 0, 10 ** 6)


def check_glyph(where: str, digit, entry) -> None:
    """One learned glyph template: its key, how many glyphs made it, how well they fitted ("fit":
    sum of correlations, glyphs compared) and their spread ("spread": sum of squared
    correlations), its pixels. A template stored before the spread was kept has none: it loads,
    and is judged as one never compared until its spread is learned again (vision.glyphs)."""
    if not (isinstance(digit, str) and len(digit) == 1 and digit in "0123456789"):
        raise _Wrong(f'{where} has a glyph under "{digit}": glyph keys are single digits 0-9')
    where = f"{where}.{digit}"
    _keys(where, _dict(where, entry), {"count", "fit", "mean"}, {"spread"})
    count = _int(f"{where}.count", entry["count"], 1, 10 ** 9)
    total, n = _numbers(f"{where}.fit", entry["fit"], 2, -10 ** 9, 10 ** 9)
    if n != int(n) or not 0 <= n <= count or abs(total) > n + 1e-3:
        raise _Wrong(f"{where}.fit {entry['fit']!r} is not [sum of correlations, glyphs compared]")
    if "spread" in entry:
        squares = _number(f"{where}.spread", entry["spread"], 0, 10 ** 9)
        # squares of n correlations (each -1..1) sum to at most n and at least total^2 / n
        if squares > n + 1e-3 or (n > 0 and squares < total * total / n - 1e-3):
            raise _Wrong(f"{where}.spread {entry['spread']!r} is not the sum of the squared correlations")
    _numbers(f"{where}.mean", entry["mean"], GLYPH * GLYPH, 0, 1)


def _numbermatch_geometry(geo: dict, w: int, h: int) -> None:
    _keys("geometry", geo, {"xs", "pitch", "top", "bottom", "solid"}, {"add_area", "stage_band", "score_band"})
    xs = _numbers("geometry.xs", geo["xs"], COLUMNS + 1, 0, w)
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise _Wrong("geometry.xs are not the grid's lines left to right")
    pitch = _number("geometry.pitch", geo["pitch"], 0, w)
    if pitch <= 0:
        raise _Wrong("geometry.pitch is 0: a grid has cells")
    top = _number("geometry.top", geo["top"], 0, h)
    bottom = _number("geometry.bottom", geo["bottom"], 0, h)
    if bottom <= top:
        raise _Wrong("geometry.bottom is not below geometry.top")
    _number("geometry.solid", geo["solid"], 0, h)
    if "add_area" in geo:
        x0, y0, x1, y1 = _numbers("geometry.add_area", geo["add_area"], 4, 0, max(w, h))
        if not (x0 < x1 <= w and y0 < y1 <= h):
            raise _Wrong("geometry.add_area is not an area on the screen")
    for band in ("stage_band", "score_band"):
        if band in geo:
            y0, y1 = _numbers(f"geometry.{band}", geo[band], 2, -h, h)
            if y1 <= y0:
                raise _Wrong(f"geometry.{band} is not a band from top to bottom")


def _no_geometry(geo: dict, w: int, h: int) -> None:
    _keys("geometry", geo, set(), set())


GEOMETRY = {"numbermatch": _numbermatch_geometry, "flip9": _no_geometry, "fifteen": _no_geometry}


# -- the small checks ---------------------------------------------------------------------------

def _keys(where: str, data: dict, required: set, optional: set) -> None:
    missing = required - set(data)
    if missing:
        raise _Wrong(f"{where} lacks {', '.join(sorted(missing))}")
    extra = set(data) - required - optional
    if extra:
        raise _Wrong(f"{where} has unknown keys {', '.join(sorted(map(repr, extra)))}")


def _dict(where: str, value) -> dict:
    if not isinstance(value, dict):
        raise _Wrong(f"{where} is not a JSON object")
    return value


def _number(where: str, value, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Wrong(f"{where} is {value!r}, not a number")
    if not low <= value <= high:
        raise _Wrong(f"{where} is {value!r}, outside {low}-{high}")
    return float(value)


def _int(where: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Wrong(f"{where} is {value!r}, not a whole number")
    if not low <= value <= high:
        raise _Wrong(f"{where} is {value!r}, outside {low}-{high}")
    return value


def _numbers(where: str, value, count: int, low: float, high: float) -> list[float]:
    if not isinstance(value, list) or len(value) != count:
        raise _Wrong(f"{where} is not a list of {count} numbers")
    return [_number(where, v, low, high) for v in value]
