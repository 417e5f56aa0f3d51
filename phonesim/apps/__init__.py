"""The game apps the virtual phone shows: ``create`` makes one for a preset."""

from __future__ import annotations

from phonesim.app import App, Preset
from solver import games
from solver.errors import InputError

THEMES = ("light", "dark")


class AppOptionError(InputError):
    """An app option that does not exist; the message names the choices."""


def choose(what: str, value, choices) -> None:
    if value not in choices:
        raise AppOptionError(f"{what} must be one of {', '.join(map(str, choices))}, not {value!r}")


def app_class(game: str) -> type[App]:
    """The app class of game ``game`` (its phonesim app module's ``APP``)."""
    return games.module("phonesim.apps", game).APP


def create(game: str, preset: Preset, *, seed: int = 0, theme: str = "light", **options) -> App:
    """A game app for ``preset``, with the game's own ``options`` (its app's OPTIONS say which,
    and their defaults; its ``create`` checks them). Another game's options are left aside, so
    that one set serves whichever game is asked for; an option no game has is refused."""
    choose("game", game, games.NAMES)
    choose("theme", theme, THEMES)
    app = app_class(game)
    unknown = set(options) - option_names()
    if unknown:
        raise AppOptionError(f"no game app has the options {', '.join(sorted(unknown))}")
    return app.create(preset, seed, theme, {**app.OPTIONS, **{k: v for k, v in options.items() if k in app.OPTIONS}})


def option_names() -> set[str]:
    """The options some game's app has."""
    return {name for game in games.NAMES for name in app_class(game).OPTIONS}


def add_options(parser, types) -> None:
    """Every game's own options, on `tapsolve phone` (``types``: the command line's value types)."""
    for game in games.NAMES:
        app_class(game).add_options(parser, types)
