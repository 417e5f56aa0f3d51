"""Writes fixtures/: screenshots of the virtual phone's apps (PNG) with their ground truth (JSON).

Run ``python3 -m phonesim.fixtures [OUT]`` from the project root. Every preset x theme x state
is played from fixed seeds through the apps' own taps, so the output is the same on every run.
``fixtures/index.json`` lists every screenshot with its preset, theme, game and state.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import cv2

from phonesim.apps import THEMES, create
from phonesim.phone import PRESETS
from solver.games import NAMES
from solver.fifteen import Board as Board15
from solver.flip9 import State
from solver.numbermatch import Board

# the start size differs per preset, as it differs between versions of the real game
SIZES = {"720x1600": 27, "1080x2400": 35, "1440x3200": 42, "tablet-1600x2560": 27, "1080x2340-2022": 27}
ADDS = {"720x1600": 4, "1080x2400": 5, "1440x3200": 5, "tablet-1600x2560": 5, "1080x2340-2022": 4}


def tap_cell(app, index: int) -> None:
    """Tap the middle of cell ``index`` as a finger would (it must be on screen)."""
    x, y, w, h = app.truth()["cells"][str(index)]
    app.tap(x + w // 2, y + h // 2)


def tap_rect(app, rect) -> None:
    x, y, w, h = rect
    app.tap(x + w // 2, y + h // 2)


def play_pairs(app, count: int, rng: random.Random) -> None:
    """Play ``count`` legal pairs picked by ``rng`` among those on screen."""
    for _ in range(count):
        on_screen = {int(k) for k in app.truth()["cells"]}
        pairs = [p for p in app.board.pairs() if p.i in on_screen and p.j in on_screen]
        if not pairs:
            return
        pair = rng.choice(pairs)
        tap_cell(app, pair.i)
        tap_cell(app, pair.j)


def numbermatch_states(preset, theme: str, seed: int):
    """(state name, app) for each Number Match state the fixtures show."""
    name = preset.name
    options = dict(seed=seed, theme=theme, size=SIZES[name], adds=ADDS[name])

    app = create("numbermatch", preset, **options)
    yield "fresh", app

    app = create("numbermatch", preset, **options)
    rng = random.Random(seed)
    play_pairs(app, 6, rng)
    live = [int(k) for k in app.truth()["cells"] if app.board.cells[int(k)]]
    tap_cell(app, live[len(live) // 2])
    yield "midgame", app

    app = create("numbermatch", preset, **options)
    play_pairs(app, 3, random.Random(seed + 1))
    tap_rect(app, app.truth()["add_button"])
    play_pairs(app, 2, random.Random(seed + 2))
    tap_rect(app, app.truth()["add_button"])
    yield "after_adds", app

    app = create("numbermatch", preset, **options)
    play_pairs(app, 2, random.Random(seed + 3))
    while app.board.rows <= app.layout.rows_fit * 2:
        tap_rect(app, app.truth()["add_button"])
    middle = (app.board.rows - app.layout.rows_fit) // 2
    cx, cy = preset.width // 2, preset.height // 2
    app.swipe(cx, cy + middle * app.layout.cell // 2, cx, cy - middle * app.layout.cell // 2, 300)
    yield "tall_scrolled", app

    # the real board scrolls freely: stop a third of a row into a row, cut by the top border
    app.snap_rows = False
    app.swipe(cx, cy, cx, cy - app.layout.cell // 3, 200)
    yield "tall_partial", app

    app = create("numbermatch", preset, **options)
    app.board = Board.parse("19.", adds_left=2, rules=app.rules, score=app.board.score, stage=3)
    tap_cell(app, 0)
    tap_cell(app, 1)
    yield "stage_complete", app

    app = create("numbermatch", preset, **options, ads=True)
    app.board = Board.parse("55", adds_left=1, rules=app.rules, stage=4, score=2480)
    tap_cell(app, 0)
    tap_cell(app, 1)
    tap_rect(app, app.truth()["buttons"]["continue"])
    yield "ad", app

    app = create("numbermatch", preset, **options)
    app.board = Board.parse("123 456 78", adds_left=0, rules=app.rules, stage=2, score=1234)
    app.check_end()  # no add left and no pair: the game is over
    yield "game_over", app


def flip9_states(preset, theme: str, seed: int):
    for layout in ("buttons", "cards"):
        app = create("flip9", preset, seed=seed, theme=theme, layout=layout)
        app.clock = lambda: 0.0
        app.new_deal()
        yield f"{layout}_fresh", app
        app = create("flip9", preset, seed=seed, theme=theme, layout=layout)
        app.clock = lambda: 0.0
        app.new_deal()
        app.clock = lambda: 47.0
        cards = app.state.cards
        buttons = app.truth()["buttons"]
        # the first swap takes two taps, then one tap per swap (with any card but the one that must move)
        tap_rect(app, buttons[str(cards[0])])
        tap_rect(app, buttons[str(cards[4])])
        for wanted in (2, 7):
            tap_rect(app, buttons[str(wanted if wanted != app.state.must else wanted + 1)])
        yield f"{layout}_midgame", app
        tap_rect(app, buttons[str(app.state.must)])  # the card that must move: "N not valid."
        yield f"{layout}_notvalid", app
        # one swap from sorted: the last tap wins
        app.state = State.parse("123456798")
        tap_rect(app, buttons["9"])
        tap_rect(app, buttons["8"])
        app.clock = lambda: 95.0
        yield f"{layout}_winner", app


# the 15-puzzle's size per preset: the phones show 4x4, the big screens the 3x3 and 5x5 sizes
FIFTEEN_WIDTHS = {"720x1600": 4, "1080x2400": 4, "1440x3200": 3, "tablet-1600x2560": 5, "1080x2340-2022": 4}


def fifteen_states(preset, theme: str, seed: int):
    """Per look: a fresh board, one after a few slides, and the solved screen."""
    width = FIFTEEN_WIDTHS[preset.name]
    for look in ("tiles", "grid"):
        app = create("fifteen", preset, seed=seed, theme=theme, look=look, width=width)
        yield f"{look}_fresh", app
        rng = random.Random(seed)
        last = None
        for _ in range(7):  # slides tapped as a finger would, never straight back
            tile = rng.choice([t for t in app.board.legal_moves() if t != last])
            tap_rect(app, app.truth()["cells"][str(app.board.tiles.index(tile))])
            last = tile
        yield f"{look}_midgame", app
        app.board = Board15.goal(width)
        app.board.push(width * width - 1)  # one slide from home: the last tap solves it
        tap_rect(app, app.truth()["cells"][str(width * width - 1)])
        yield f"{look}_solved", app


def write(out: Path, kind: str, app, index: list) -> None:
    truth = app.truth()
    stem = f"{truth['preset']}/{truth['theme']}/{kind}"
    png = out / f"{stem}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    image = app.render()
    cv2.imwrite(str(png), cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    (out / f"{stem}.json").write_text(json.dumps(truth, indent=1) + "\n")
    index.append({"png": f"{stem}.png", "json": f"{stem}.json", "preset": truth["preset"],
                  "style": PRESETS[truth["preset"]].style,
                  "theme": truth["theme"], "game": truth["game"], "state": kind.split("_", 1)[1],
                  "screen": truth["screen"]})


README = """# Fixtures: virtual phone screenshots with ground truth

Written by `python3 -m phonesim.fixtures` (phonesim/fixtures.py) from fixed seeds; do not edit by
hand, regenerate. `PRESET/THEME/GAME_STATE.png` is the full screen (status bar included) and
`GAME_STATE.json` beside it is `app.truth()` for that screen (the contract in phonesim/apps);
`index.json` lists every screenshot with its preset, the game build's look (`style`: "current",
or "2022" for the older build with a title bar and the score under a trophy), theme, game, state
and screen.

Number Match states: `fresh`, `midgame` (crossed-out cells, one cell selected), `after_adds`,
`tall_scrolled` (a board taller than the grid, scrolled by whole rows to the middle),
`tall_partial` (the same scrolled a third of a row further: the top row is cut by the border and
the bottom row by the fade; `cells` holds only whole cells), `stage_complete`, `ad`, `game_over`.
Flip 9 states, per layout (`buttons`: the inventor's app, `cards`): `fresh`, `midgame` (three
swaps, comment `card 1: N`), `notvalid` (then the card that must move tapped: `N not valid.`),
`winner` (the last swap made: `Winner!`).
15-puzzle states, per look (`tiles`: rounded tiles on a frame; `grid`: cells between lines, the
gap shaded): `fresh`, `midgame` (seven slides tapped), `solved` (the last slide tapped: "Solved in
N moves!", screen `stage_complete`). The 1440x3200 phone shows the 3x3 size, the tablet the 5x5.
Time and clock are fixed so every run writes the same pixels.
"""


def generate(out: Path, games=NAMES) -> list[dict]:
    index: list[dict] = []
    for p, preset in enumerate(PRESETS.values()):
        for t, theme in enumerate(THEMES):
            seed = 10 * p + t + 1
            if "numbermatch" in games:
                for state, app in numbermatch_states(preset, theme, seed):
                    write(out, f"numbermatch_{state}", app, index)
            if "flip9" in games:
                for state, app in flip9_states(preset, theme, seed):
                    write(out, f"flip9_{state}", app, index)
            if "fifteen" in games:
                for state, app in fifteen_states(preset, theme, seed):
                    write(out, f"fifteen_{state}", app, index)
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    (out / "README.md").write_text(README)
    return index


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "fixtures")
    index = generate(out)
    total = sum((out / e["png"]).stat().st_size for e in index)
    print(f"wrote {len(index)} screenshots to {out}/ ({total / 1e6:.1f} MB of PNG)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
