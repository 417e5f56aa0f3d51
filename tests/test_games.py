"""The game registry: every game is found in every layer, implements the whole Game protocol,
and no generic module names a game."""

import ast
import inspect
import re

import pytest

from assistant.games import Game, kind
from helpers import ROOT
from solver import games as registry

# the packages tapsolve ships (pyproject's): every file of them is a game's own or serves every game
PACKAGES = ("solver", "vision", "calibration", "assistant", "phonesim", "tapsolve")
# what asking a game its name, or probing it for a method, looks like
BRANCHES = [r"\.name\s*[!=]=", r"\bhasattr\(", r"\bgetattr\("]
# probes that ask no game anything: a proxy's attribute, a library's version, a command's handler
NOT_GAME_PROBES = {
    "assistant/options.py": ['hasattr(signal, "SIGHUP")'],
    "assistant/phone/server.py": ["getattr(real, attr)"],
    "assistant/phone/screen.py": ["getattr(cv2, conversion)"],
    "phonesim/shell.py": ['hasattr(cv2, "IMWRITE_PNG_FILTER")', 'getattr(self, "cmd_" + name, None)'],
    "solver/jit.py": ["hasattr(caching.Cache, name)"],
}


def game_own(path: str) -> bool:
    """A file of one game's own modules (its rules and kernel or its solver folder, its reader, its phonesim app or
    app folder, its assistant module or folder), or the registry's one list of the games."""
    return path == "solver/games.py" or any(
        path in (f"solver/{n}.py", f"solver/_{n}_kernel.py", f"vision/{n}.py", f"phonesim/apps/{n}.py",
                 f"assistant/games/{n}.py")
        or path.startswith((f"solver/{n}/", f"phonesim/apps/{n}/", f"assistant/games/{n}/")) for n in registry.NAMES)


PRODUCT = sorted(str(p.relative_to(ROOT)) for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
GENERIC = [path for path in PRODUCT if not game_own(path)]


def names_a_game(line: str) -> bool:
    """Whether a line of code names a game (quoted, or a game's module), or probes one."""
    names = "|".join(registry.NAMES)
    return bool(re.search(rf"""["']({names})["']""", line)
                or re.search(rf"\b(from|import)\s+(vision|solver|phonesim\.apps|assistant\.games)\.({names})\b", line)
                or re.search(rf"\bfrom\s+(vision|solver|phonesim\.apps|assistant\.games)\s+import\s+.*\b({names})\b",
                             line)
                or any(re.search(b, line) for b in BRANCHES))


def game_lines(path: str) -> list[str]:
    """The lines of ``path`` that name or probe a game (but the probes known to ask none)."""
    allowed = NOT_GAME_PROBES.get(path, [])
    return [f"{path}:{number}: {line.strip()}"
            for number, line in enumerate((ROOT / path).read_text().splitlines(), 1)
            if names_a_game(line) and not any(probe in line for probe in allowed)]


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


def test_no_file_outside_the_games_own_modules_names_a_game_or_probes_one():
    """Every file of the product but a game's own modules (and the registry's list) serves every
    game alike: none names a game, imports a game's module or probes a game."""
    assert {"assistant/loop.py", "assistant/cli.py", "assistant/trust.py", "vision/__init__.py", "vision/digits.py",
            "phonesim/phone.py", "phonesim/fixtures.py", "calibration/store.py", "assistant/bench.py",
            "assistant/options.py"} <= set(GENERIC)
    assert not {"vision/flip9.py", "solver/_fifteen_kernel.py", "phonesim/apps/numbermatch/behaviour.py",
                "assistant/games/fifteen.py", "solver/games.py"} & set(GENERIC)
    found = [line for path in GENERIC for line in game_lines(path)]
    assert not found, "\n".join(found)


def test_the_allowed_probes_are_still_there():
    """NOT_GAME_PROBES only shrinks: an entry no longer needed fails here."""
    for path, probes in NOT_GAME_PROBES.items():
        text = (ROOT / path).read_text()
        assert all(probe in text for probe in probes), path


def test_no_games_reader_imports_another_games_reader():
    """A game's reader takes what it shares with others from the shared modules, never from
    another game's reader (Flip 9 once took its shape helpers from Number Match's)."""
    readers = {f"vision.{name}" for name in registry.NAMES}
    found = {f"vision/{name}.py": sorted(vision_imports((ROOT / f"vision/{name}.py").read_text())
                                         & (readers - {f"vision.{name}"}))
             for name in registry.NAMES}
    assert not any(found.values()), found


def test_the_scans_would_catch_a_game_named_or_imported():
    """The checks above fail on the lines they are meant to catch (so they cannot pass vacuously)."""
    for line in ['Reading("numbermatch", "ad")', "from vision.flip9 import read_single_glyphs",
                 "import solver.fifteen", "from vision import numbermatch", "if game.name != 'flip9':",
                 "check = getattr(reader, 'check_points', None)", 'if game.name == "flip9":',
                 "ending = getattr(expected, 'is_cleared', None)", "choices=('auto', 'numbermatch')",
                 "from phonesim.apps.fifteen import FifteenApp", "if hasattr(self.app, 'motion'):",
                 'choices=("numbermatch", "fifteen")', "    from solver.numbermatch import MAX_ADDS"]:
        assert names_a_game(line), line
    for line in ["from vision.digits import read_digits", "# Number Match's grid has nine columns",
                 "title = registry.entry(self.game).title", "return registry.module(layer, name)"]:
        assert not names_a_game(line), line
    assert vision_imports("from vision.numbermatch import clusters\nfrom vision import flip9, glyphs\n"
                          "import vision.fifteen\nfrom solver.flip9 import State\n") == {
        "vision.numbermatch", "vision.flip9", "vision.glyphs", "vision.fifteen"}


def test_the_scan_reads_every_file_of_the_product():
    """A new module anywhere in the packages is scanned without being listed: the scan would
    catch a branch put in a file no list names."""
    assert len(PRODUCT) > 60 and "phonesim/apps/__init__.py" in GENERIC and "solver/jit.py" in GENERIC
    for path in ("assistant/link.py", "assistant/games/__init__.py", "solver/games.py", "phonesim/apps/draw.py"):
        assert path in PRODUCT, path
    assert game_own("assistant/games/numbermatch/scroll.py") and not game_own("assistant/games/common.py")
    assert game_own("phonesim/apps/numbermatch/drawing.py") and not game_own("phonesim/apps/dialog.py")


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


@pytest.mark.parametrize("entry, reason", [("nosuch_plugin:GAME", "No module named 'nosuch_plugin'"),
                                           ("solver.games:NOPE", "it has no NOPE"),
                                           ("solver.games:PLUGINS", "PLUGINS is not a Game")])
def test_a_plugin_that_cannot_load_is_one_line_and_the_known_games_stay(monkeypatch, capsys, entry, reason):
    known = list(registry.NAMES)
    monkeypatch.setenv(registry.PLUGINS, entry)
    registry.load_plugins()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and reason in lines[0] and "unset TAPSOLVE_GAMES" in lines[0]
    assert registry.NAMES == known
