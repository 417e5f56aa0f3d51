"""The game apps the virtual phone shows: ``create`` makes one for a preset."""

from __future__ import annotations

from phonesim.phone import App, Preset
from solver.errors import InputError

GAMES = ("numbermatch", "flip9", "fifteen")
THEMES = ("light", "dark")
LAYOUTS = ("buttons", "cards")
ADD_RULES = ("cell", "live")
LOOKS = ("tiles", "grid")
WIDTHS = (3, 4, 5)


class AppOptionError(InputError):
    """An app option that does not exist; the message names the choices."""


def _choose(what: str, value, choices) -> None:
    if value not in choices:
        raise AppOptionError(f"{what} must be one of {', '.join(choices)}, not {value!r}")


def create(game: str, preset: Preset, *, seed: int = 0, theme: str = "light", size: int = 27,
           adds: int = 5, add_rule: str = "cell", layout: str = "buttons", ads: bool = False,
           points: dict | None = None, look: str = "tiles", width: int = 4, slides: int = 0) -> App:
    """A game app for ``preset``.

    ``size`` (start numbers), ``adds``, ``add_rule`` ("cell": the real game; "live": adds go after
    the last live number), ``ads`` (an interstitial ad after each stage) and ``points`` (kinds of
    ``solver.numbermatch.POINTS`` the game scores otherwise) are Number Match's;
    ``layout`` ("buttons": the inventor's app; "cards": cards drawn in a row) is Flip 9's;
    ``look`` ("tiles" or "grid"), ``width`` (3, 4 or 5 tiles a side) and ``slides`` (0: a random
    board; else the goal scrambled by that many slides, an easier board) are the 15-puzzle's.
    """
    _choose("game", game, GAMES)
    _choose("theme", theme, THEMES)
    if game == "numbermatch":
        _choose("add rule", add_rule, ADD_RULES)
        if not isinstance(size, int) or not 2 <= size <= 9 * 40:
            raise AppOptionError(f"the start size must be 2 to 360 numbers, not {size!r}")
        if not isinstance(adds, int) or not 0 <= adds <= 99:
            raise AppOptionError(f"adds must be 0 to 99, not {adds!r}")
        from phonesim.apps.numbermatch import NumberMatchApp
        return NumberMatchApp(preset, seed=seed, theme=theme, size=size, adds=adds, add_rule=add_rule, ads=ads,
                              points=points)
    if game == "fifteen":
        _choose("look", look, LOOKS)
        _choose("width", width, WIDTHS)
        if not isinstance(slides, int) or not 0 <= slides <= 10_000:
            raise AppOptionError(f"slides must be 0 to 10000, not {slides!r}")
        from phonesim.apps.fifteen import FifteenApp
        return FifteenApp(preset, seed=seed, theme=theme, look=look, width=width, slides=slides)
    _choose("layout", layout, LAYOUTS)
    from phonesim.apps.flip9 import Flip9App
    return Flip9App(preset, seed=seed, theme=theme, layout=layout)
