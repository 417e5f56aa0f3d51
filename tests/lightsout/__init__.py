"""Lights Out on a 3x3 board: a fourth game that lives only in tests, one module per layer (its
rules, its reader, its phonesim app, its assistant class), known to tapsolve only by registering
``GAME`` (in-process: ``solver.games.register``; a new process: ``TAPSOLVE_GAMES=ENTRY``)."""

from solver.games import Game

GAME = Game("lightsout", "Lights Out", modules={
    "solver": "tests.lightsout.rules",
    "vision": "tests.lightsout.reader",
    "phonesim.apps": "tests.lightsout.app",
    "assistant.games": "tests.lightsout.play",
})
ENTRY = "tests.lightsout:GAME"  # what TAPSOLVE_GAMES names for a `tapsolve` process to know it
