"""The games tapsolve knows, listed once; each layer finds a game's own module through it.

A game named ``name`` is one module per layer: its rules ``solver.<name>``, its reader
``vision.<name>``, its phonesim app ``phonesim.apps.<name>`` and its assistant class
``assistant.games.<name>``. The order below is the order in which an unknown screen is tried.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from solver.errors import InputError


@dataclass(frozen=True)
class Game:
    """A game's name (command line, JSON, module names) and what a person calls it."""

    name: str
    title: str


GAMES = (
    Game("numbermatch", "Number Match"),
    Game("flip9", "Flip 9"),
    Game("fifteen", "15-puzzle"),
)
NAMES = tuple(g.name for g in GAMES)


class UnknownGame(InputError):
    """A game name tapsolve does not know; the message lists the ones it does."""


def entry(name: str) -> Game:
    """The registry's entry for ``name``, or UnknownGame naming the choices."""
    for game in GAMES:
        if game.name == name:
            return game
    raise UnknownGame(f"no game {name!r}: use {', '.join(NAMES[:-1])} or {NAMES[-1]}")


def titles(names=NAMES) -> str:
    """The games' titles as a person lists them: "Number Match, Flip 9 or 15-puzzle"."""
    words = [entry(n).title for n in names]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def module(layer: str, name: str):
    """The module of game ``name`` in ``layer`` ("solver", "vision", "phonesim.apps",
    "assistant.games"), imported on first use (a game's heavy parts load only when played)."""
    return importlib.import_module(f"{layer}.{entry(name).name}")
