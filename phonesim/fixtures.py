"""Writes fixtures/: screenshots of the virtual phone's apps (PNG) with their ground truth (JSON).

Run ``python3 -m phonesim.fixtures [OUT]`` from the project root. Every preset x theme x state
is played from fixed seeds through the apps' own taps, so the output is the same on every run.
``fixtures/index.json`` lists every screenshot with its preset, theme, game and state.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2

from phonesim.apps import THEMES, app_class
from phonesim.phone import PRESETS
from solver import games as registry


def write(out: Path, kind: str, app, index: list) -> None:
    truth = app.truth()
    stem = f"{truth['preset']}/{truth['theme']}/{kind}"
    png = out / f"{stem}.png"
    png.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(png), cv2.cvtColor(app.render(), cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    (out / f"{stem}.json").write_text(json.dumps(truth, indent=1) + "\n")
    index.append({"png": f"{stem}.png", "json": f"{stem}.json", "preset": truth["preset"],
                  "style": PRESETS[truth["preset"]].style, "theme": truth["theme"], "game": truth["game"],
                  "state": kind.split("_", 1)[1], "screen": truth["screen"]})


README = """# Fixtures: virtual phone screenshots with ground truth

Written by `python3 -m phonesim.fixtures` (phonesim/fixtures.py) from fixed seeds; do not edit by
hand, regenerate. `PRESET/THEME/GAME_STATE.png` is the full screen (status bar included) and
`GAME_STATE.json` beside it is `app.truth()` for that screen (the contract in phonesim/apps);
`index.json` lists every screenshot with its preset, the game build's look (`style`: "current",
or "2022" for the older build with a title bar and the score under a trophy), theme, game, state
and screen.

{games}
Time and clock are fixed so every run writes the same pixels.
"""


def generate(out: Path, games=None) -> list[dict]:
    """Every game's fixture states (its app's ``fixture_states``) on every phone preset (not
    the emulators') and theme."""
    games = registry.NAMES if games is None else games
    index: list[dict] = []
    for p, preset in enumerate(p for p in PRESETS.values() if not p.emulator and not p.quirks):
        for t, theme in enumerate(THEMES):
            seed = 10 * p + t + 1
            for game in games:
                for state, app in app_class(game).fixture_states(preset, theme, seed):
                    write(out, f"{game}_{state}", app, index)
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    words = "\n".join(app_class(g).FIXTURES for g in games if app_class(g).FIXTURES)
    (out / "README.md").write_text(README.format(games=words))
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
