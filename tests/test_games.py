"""The game registry: every game is found in every layer, implements the whole Game protocol,
and no generic module names a game."""

import inspect
import re

import pytest

from assistant.games import Game, kind
from conftest import ROOT
from solver import games as registry

# modules that serve every game alike: a game's specifics live in its own modules
GENERIC = ["assistant/loop.py", "assistant/autoplay.py", "assistant/guide.py", "assistant/overlay.py",
           "assistant/cli.py", "vision/__init__.py"]
# what asking a game its name, or probing it for a method, looks like
BRANCHES = [r"\.name\s*[!=]=", r"\bhasattr\(", r"\bgetattr\("]


def test_no_generic_module_names_a_game_or_probes_one():
    names = "|".join(registry.NAMES)
    found = []
    for path in GENERIC:
        for number, line in enumerate((ROOT / path).read_text().splitlines(), 1):
            if re.search(rf"""["']({names})["']""", line) or any(re.search(b, line) for b in BRANCHES):
                found.append(f"{path}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_grep_would_catch_a_branch():
    """The check above fails on the lines it is meant to catch (so it cannot pass vacuously)."""
    names = "|".join(registry.NAMES)
    for line in ['if game.name == "flip9":', "ending = getattr(expected, 'is_cleared', None)",
                 "choices=('auto', 'numbermatch')"]:
        assert re.search(rf"""["']({names})["']""", line) or any(re.search(b, line) for b in BRANCHES)


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_game_has_a_module_in_every_layer(name):
    for layer in ("solver", "vision", "phonesim.apps", "assistant.games"):
        assert registry.module(layer, name).__name__ == f"{layer}.{name}"
    game = kind(name)
    assert issubclass(game, Game) and game.name == name


@pytest.mark.parametrize("name", registry.NAMES)
def test_every_game_gives_every_method_the_protocol_leaves_open(name):
    game = kind(name)
    open_methods = [m for m, f in vars(Game).items()
                    if inspect.isfunction(f) and "raise NotImplementedError" in inspect.getsource(f)]
    assert open_methods, "the protocol leaves some methods to each game"
    missing = [m for m in open_methods if getattr(game, m) is getattr(Game, m)]
    assert not missing, f"{name} does not give {missing}"


def test_an_unknown_game_is_named_with_the_choices():
    with pytest.raises(registry.UnknownGame, match="no game 'chess': use numbermatch, flip9 or fifteen"):
        registry.entry("chess")


def test_a_stored_profile_of_every_game_is_accepted():
    """The profile schema knows every game (a 15-puzzle profile was rebuilt on every start)."""
    from calibration import schema

    assert set(schema.FONTS) == set(schema.GEOMETRY) == set(registry.NAMES)


@pytest.mark.parametrize("name, cell, shown, words", [
    ("numbermatch", 10, 0, "row 2 column 2"),   # nine cells a row
    ("fifteen", 5, 4, "row 2 column 2"),        # a 4x4 frame
    ("fifteen", 5, 3, "row 2 column 3"),        # a 3x3 frame
    ("flip9", 4, 0, "card 5"),
])
def test_a_cell_is_named_in_the_games_own_rows_and_columns(name, cell, shown, words):
    from vision import Reading

    reading = Reading(name, "board", unsure=[cell], rows_visible=shown)
    assert kind(name)().where(cell, reading) == words
