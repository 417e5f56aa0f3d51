"""The games tapsolve knows, listed once; each layer finds a game's own module through it.

A game named ``name`` is one module per layer: its rules ``solver.<name>``, its reader
``vision.<name>``, its phonesim app ``phonesim.apps.<name>`` and its assistant class
``assistant.games.<name>``. The order below is the order in which an unknown screen is tried.

A game from elsewhere (a plug-in, a test's) registers at run time with its own modules
(``register``); a process started with ``TAPSOLVE_GAMES=module:GAME,...`` registers the Game
entries those modules define as it starts, so that a command run in a new process knows them too.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass, field

from solver import notes
from solver.errors import InputError

LAYERS = ("solver", "vision", "phonesim.apps", "assistant.games")
# games from elsewhere, registered when this module is imported: "module:attribute" of each Game,
# comma-separated
PLUGINS = "TAPSOLVE_GAMES"


@dataclass(frozen=True)
class Game:
    """A game's name (command line, JSON, module names) and what a person calls it; ``modules``
    names the game's module in a layer where it is not ``<layer>.<name>`` (a registered game's)."""

    name: str
    title: str
    modules: dict[str, str] = field(default_factory=dict, compare=False, hash=False)


# Lists, not tuples: a game registered at run time joins them in place, so that every module
# that took them at import (``from solver.games import NAMES``) sees it.
GAMES = [
    Game("numbermatch", "Number Match"),
    Game("flip9", "Flip 9"),
    Game("fifteen", "15-puzzle"),
]
NAMES = [g.name for g in GAMES]


class UnknownGame(InputError):
    """A game name tapsolve does not know; the message lists the ones it does."""


def register(game: Game) -> Game:
    """Add ``game`` after the games known (again: replace it), its modules named for every layer."""
    missing = [layer for layer in LAYERS if layer not in game.modules]
    if missing:
        raise ValueError(f"game {game.name!r} names no module for {', '.join(missing)}")
    unregister(game.name)
    GAMES.append(game)
    NAMES.append(game.name)
    return game


def unregister(name: str) -> None:
    """Forget a game registered at run time (nothing when it is not known)."""
    for game in [g for g in GAMES if g.name == name]:
        GAMES.remove(game)
        NAMES.remove(name)


def entry(name: str) -> Game:
    """The registry's entry for ``name``, or UnknownGame naming the choices."""
    for game in GAMES:
        if game.name == name:
            return game
    raise UnknownGame(f"no game {name!r}: use {', '.join(NAMES[:-1])} or {NAMES[-1]}")


def titles(names=None) -> str:
    """The games' titles as a person lists them: "Number Match, Flip 9 or 15-puzzle"."""
    words = [entry(n).title for n in (NAMES if names is None else names)]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def module(layer: str, name: str):
    """The module of game ``name`` in ``layer`` ("solver", "vision", "phonesim.apps",
    "assistant.games"), imported on first use (a game's heavy parts load only when played)."""
    return importlib.import_module(entry(name).modules.get(layer, f"{layer}.{name}"))


def load_plugins() -> None:
    """Register the games ``TAPSOLVE_GAMES`` names, each "module:attribute".

    One that cannot be loaded is said in one line on stderr and left out: the command goes on
    with the games it has (asking for the missing one then says it is unknown)."""
    for where in filter(None, (e.strip() for e in os.environ.get(PLUGINS, "").split(","))):
        path, _, attribute = where.partition(":")
        try:
            game = vars(importlib.import_module(path))[attribute or "GAME"]
            if not isinstance(game, Game):
                raise TypeError(f"{attribute or 'GAME'} is not a Game")
        except Exception as exc:  # any failure of someone else's module: ours goes on
            reason = f"it has no {attribute or 'GAME'}" if isinstance(exc, KeyError) else exc
            notes.note(f"{PLUGINS} names {where!r}, which cannot be loaded ({reason}): fix it or unset {PLUGINS}",
                       logging.WARNING)
            continue
        register(game)


load_plugins()
