"""What vision.read, the profile schema and the benchmarks ask of every game's reader (each
``vision/<game>.py`` gives one as ``READER``), with the defaults of a game whose only screen is
its board, found anew on every read: no stored geometry, no points table."""

from __future__ import annotations

import numpy as np

from solver import games as registry
from vision.image import ReadError


class Reader:
    """One game's reader. Subclasses give ``game``, ``read_board`` and the trust benchmark's hooks
    (``trust_case``, ``trust_outcome``); the rest has defaults."""

    game = ""  # the game's name in solver.games
    # benchmarks/bench_read.py measures its reads cell by cell against tesseract alone (the
    # cell hooks below); False: the reader has a benchmark of its own
    CELL_BENCHMARK = False
    FONTS: frozenset[str] | set[str] = frozenset()  # the glyph templates it learns (a profile holds no others)
    # the labels of the buttons on the game's own screens between boards (vision.screens'
    # names): any other labelled button on its screen is a dialog's
    OWN_BUTTONS: frozenset[str] = frozenset()

    def read_board(self, image: np.ndarray, bg, dist: np.ndarray, profile, use_tesseract: bool = True,
                   first_row: int = 0, expect=None):
        """The game's board on the screen (a vision.Reading), or ReadError when it shows none.
        ``expect``: the numbers the screen is predicted to show, by the reading's names (a set
        of values each): a reader may take a prediction its own glyphs bear out for a read."""
        raise NotImplementedError

    def read_other_screen(self, image: np.ndarray, bg):
        """A screen of the game between boards (a stage's end, an ad), or ReadError (default: it has none)."""
        raise ReadError(f"no {registry.entry(self.game).title} screen but its board")

    def check_geometry(self, geo: dict, w: int, h: int) -> None:
        """A stored profile's geometry as this reader writes it, or a ValueError (vision.schema's
        Wrong is one) naming what is wrong (default: it stores none)."""
        if geo:
            raise ValueError(f"geometry has unknown keys {', '.join(sorted(map(repr, geo)))}")

    def check_points(self, points: dict) -> None:
        """A stored profile's points table, or a ValueError (default: the game's moves score nothing)."""
        if points:
            raise ValueError(f"a {self.game} profile has no points table")

    # -- the trust benchmark's hooks (assistant.trust) ----------------------------------------

    def trust_case(self, truth: dict) -> dict:
        """What a board fixture's truth holds a read to: assistant.trust.Case's fields."""
        raise NotImplementedError

    def trust_label(self, label: dict) -> dict:
        """What a real screenshot's label holds a read to (Case's fields)."""
        raise NotImplementedError(f"no real {self.game} screenshot is labelled")

    def trust_outcome(self, case, perturbation: str, reading) -> str:
        """exact / unsure / misread for a board read of this game."""
        raise NotImplementedError

    def trust_words(self, reading) -> str:
        """What a read claimed, for a misread's note (default: its screen)."""
        return f"read screen {reading.screen}"

    # -- benchmarks/bench_read.py's hooks (a reader with CELL_BENCHMARK) -----------------------

    def truth_cells(self, truth: dict) -> list[int]:
        """What a fixture's screen shows, cell by cell (its truth JSON)."""
        raise NotImplementedError

    def reading_cells(self, reading) -> list[int]:
        """What a read found, cell by cell (0 for a cell not read for sure)."""
        raise NotImplementedError

    def tesseract_cells(self, image: np.ndarray) -> list[int]:
        """The cells this reader finds, their digits read by tesseract alone (one strip call, no
        templates, no voting between look-alikes): what reading without learned glyphs gives."""
        raise NotImplementedError


def reader(name: str) -> Reader:
    """The reader of game ``name`` (its vision module's ``READER``)."""
    return registry.module("vision", name).READER
