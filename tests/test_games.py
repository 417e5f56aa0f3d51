"""The game registry: every game is found in every layer, implements the whole Game protocol,
and no generic module names a game."""

import ast
import inspect
import re

import pytest

from assistant.games import Game, kind
from helpers import ROOT
from solver import games as registry

# modules that serve every game alike: a game's specifics live in its own modules
GENERIC = ["assistant/loop.py", "assistant/autoplay.py", "assistant/guide.py", "assistant/overlay.py",
           "assistant/cli.py", "vision/__init__.py"]
# what asking a game its name, or probing it for a method, looks like
BRANCHES = [r"\.name\s*[!=]=", r"\bhasattr\(", r"\bgetattr\("]
# the readers every game shares: all of vision/ but the games' own readers
READERS = {f"vision/{name}.py" for name in registry.NAMES}
SHARED_VISION = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "vision").glob("*.py")
                       if str(p.relative_to(ROOT)) not in READERS)


def names_a_game(line: str) -> bool:
    """Whether a line of code names a game (quoted, or a game's module), or probes one."""
    names = "|".join(registry.NAMES)
    return bool(re.search(rf"""["']({names})["']""", line)
                or re.search(rf"\b(from|import)\s+(vision|solver|assistant\.games)\.({names})\b", line)
                or re.search(rf"\bfrom\s+(vision|solver)\s+import\s+.*\b({names})\b", line)
                or any(re.search(b, line) for b in BRANCHES))


def vision_imports(source: str) -> set[str]:
    """The vision modules a module's source imports (``vision.x`` for ``from vision import x`` too)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("vision.")}
        elif isinstance(node, ast.ImportFrom) and node.module == "vision":
            found |= {f"vision.{a.name}" for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("vision."):
            found.add(node.module)
    return found


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


def test_no_shared_reader_names_a_game():
    """vision's shared parts (digits, glyphs, shapes, cells, text, the reading...) serve every
    game's reader alike: none names a game, imports a game's module or probes a game."""
    assert {"vision/digits.py", "vision/shapes.py", "vision/reading.py"} <= set(SHARED_VISION)
    found = [f"{path}:{number}: {line.strip()}" for path in SHARED_VISION
             for number, line in enumerate((ROOT / path).read_text().splitlines(), 1) if names_a_game(line)]
    assert not found, "\n".join(found)


def test_no_games_reader_imports_another_games_reader():
    """A game's reader takes what it shares with others from the shared modules, never from
    another game's reader (Flip 9 once took its shape helpers from Number Match's)."""
    readers = {f"vision.{name}" for name in registry.NAMES}
    found = {f"vision/{name}.py": sorted(vision_imports((ROOT / f"vision/{name}.py").read_text())
                                         & (readers - {f"vision.{name}"}))
             for name in registry.NAMES}
    assert not any(found.values()), found


def test_the_scans_would_catch_a_game_named_or_imported():
    """The two checks above fail on the lines they are meant to catch."""
    for line in ['Reading("numbermatch", "ad")', "from vision.flip9 import read_single_glyphs",
                 "import solver.fifteen", "from vision import numbermatch", "if game.name != 'flip9':",
                 "check = getattr(reader, 'check_points', None)"]:
        assert names_a_game(line), line
    for line in ["from vision.digits import read_digits", "# Number Match's grid has nine columns",
                 "title = registry.entry(self.game).title"]:
        assert not names_a_game(line), line
    assert vision_imports("from vision.numbermatch import clusters\nfrom vision import flip9, glyphs\n"
                          "import vision.fifteen\nfrom solver.flip9 import State\n") == {
        "vision.numbermatch", "vision.flip9", "vision.glyphs", "vision.fifteen"}


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


@pytest.mark.parametrize("name", registry.NAMES)
def test_a_stored_profile_of_every_game_is_accepted(name):
    """The profile schema knows every game (a 15-puzzle profile was rebuilt on every start): each
    game's reader says which fonts it learns, and a font it does not learn is refused."""
    import numpy as np

    import vision
    from vision import schema
    from vision.cells import GLYPH

    shot = {"numbermatch": "numbermatch_fresh", "flip9": "flip9_cards_fresh", "fifteen": "fifteen_tiles_fresh"}[name]
    profile = vision.read(vision.load_image(ROOT / f"fixtures/1080x2400/light/{shot}.png"), name).profile
    assert profile.fonts and set(profile.fonts) <= registry.module("vision", name).FONTS
    assert schema.problem(profile.to_json()) is None
    profile.font("chess").add("7", np.full((GLYPH, GLYPH), 0.5, np.float32))
    assert schema.problem(profile.to_json()) == "fonts has unknown keys 'chess'"


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
