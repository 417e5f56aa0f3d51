"""The game apps the virtual phone shows: ``create`` makes one for a preset."""

from __future__ import annotations

from phonesim.phone import App, Preset
from solver import games
from solver.errors import InputError

GAMES = games.NAMES
THEMES = ("light", "dark")


class AppOptionError(InputError):
    """An app option that does not exist; the message names the choices."""


def choose(what: str, value, choices) -> None:
    if value not in choices:
        raise AppOptionError(f"{what} must be one of {', '.join(map(str, choices))}, not {value!r}")


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
    Each game's app module (``phonesim.apps.<game>.create``) checks and takes its own.
    """
    choose("game", game, GAMES)
    choose("theme", theme, THEMES)
    options = dict(size=size, adds=adds, add_rule=add_rule, ads=ads, points=points, layout=layout, look=look,
                   width=width, slides=slides)
    return games.module("phonesim.apps", game).create(preset, seed, theme, options)
