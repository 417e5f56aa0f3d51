"""How long the virtual phone's apps take to draw a screen (the assistant re-reads after every move).

Run from the project root: ``python3 benchmarks/render_apps.py``. Prints the median render time
per preset for a Number Match board in play (a tall board after adds, so every row is drawn, with
a move between renders so the picture changes) and for Flip 9.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from phonesim.apps import create  # noqa: E402
from phonesim.phone import PRESETS  # noqa: E402


def median_ms(render, step, runs: int = 30) -> float:
    render()  # the first render builds the cached layers
    times = []
    for _ in range(runs):
        step()
        start = time.perf_counter()
        render()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    print(f"{'preset':18} {'numbermatch':>12} {'flip9':>8}   (median ms per render)")
    for name, preset in PRESETS.items():
        app = create("numbermatch", preset, seed=1, size=42)
        app.press_add()
        app.press_add()
        rng = random.Random(0)
        cells = list(app.truth()["cells"])

        def step():
            app.tap_on_cell(int(rng.choice(cells)))

        nm = median_ms(app.render, step)
        flip = create("flip9", preset, seed=1, layout="cards")
        f9 = median_ms(flip.render, lambda: flip.press(rng.randint(1, 9)))
        print(f"{name:18} {nm:12.1f} {f9:8.1f}")


if __name__ == "__main__":
    main()
