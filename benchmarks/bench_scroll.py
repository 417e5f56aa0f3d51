"""Boards taller than the screen on phonesim through real adb: the time to read one whole, and a
play that clears one.

    python3 benchmarks/bench_scroll.py [--preset 1080x2400] [--size 150] [--play-size 126]

Survey: a fresh BoardView reads a board of --size numbers left scrolled to the middle (swipes,
looks, seconds; median of five after a first read that builds the profile). Play: `play` clears a
board of --play-size numbers, with 0.2 s per tap like a real phone.
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant import autoplay  # noqa: E402
from assistant.link import Link  # noqa: E402
from assistant.loop import Loop  # noqa: E402
from assistant.games.numbermatch.scroll import BoardView  # noqa: E402
from assistant.phone.device import connect  # noqa: E402
from assistant.session import Session  # noqa: E402
from phonesim import apps  # noqa: E402
from phonesim.harness import Harness  # noqa: E402
from phonesim.phone import PRESETS, Faults, Phone  # noqa: E402


def quiet(*_):
    pass


def surveys(harness, preset, size, seed):
    vp = harness.add(Phone(preset, apps.create("numbermatch", preset, seed=seed, size=size)))
    session = Session(Link(connect(vp.serial, client=harness.client), say=quiet), say=quiet, keep=True)
    session.look("numbermatch")  # builds the reading profile
    times, swipes, looks = [], [], []
    for _ in range(5):
        first = json.loads(vp.device.shell("phonesim truth"))
        pitch = first["cells"]["0"][3] if "0" in first["cells"] else 100
        x = preset.width // 2
        vp.device.shell(f"input swipe {x} {preset.height // 2} {x} {preset.height // 2 - 4 * pitch} 400")
        view = BoardView()
        t0 = time.perf_counter()
        board, _ = view.survey(session)
        times.append(time.perf_counter() - t0)
        swipes.append(view.swipes)
        looks.append(view.looks)
        truth = json.loads(vp.device.shell("phonesim truth"))
        assert board.cells == truth["board"]["cells"], "survey disagrees with the phone"
    rows = -(-len(board.cells) // 9)
    print(f"survey of {len(board.cells)} numbers ({rows} rows, {truth['rows_visible']} on screen): "
          f"median {statistics.median(times) * 1000:.0f} ms, {statistics.median(swipes):.0f} swipes, "
          f"{statistics.median(looks):.0f} reads")


def play(harness, preset, size, seed):
    phone = Phone(preset, apps.create("numbermatch", preset, seed=seed, size=size), Faults(tap_latency=0.2))
    vp = harness.add(phone)
    loop = Loop(Session(Link(connect(vp.serial, client=harness.client), say=quiet), say=quiet, keep=True),
                game="numbermatch", objective="fast", budget=1.0, say=quiet)
    t0 = time.perf_counter()
    autoplay.play(loop, stages=1, say=quiet)
    wall = time.perf_counter() - t0
    assert phone.app.screen == "stage_complete", phone.app.screen
    t = loop.tally
    print(f"play of a {size}-number board: {wall:.1f} s, {t.moves} moves ({t.moves / wall * 60:.0f} a minute), "
          f"{loop.game.view.swipes} swipes, {loop.game.view.looks} reads while scrolling")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="1080x2400", choices=sorted(PRESETS))
    parser.add_argument("--size", type=int, default=150)
    parser.add_argument("--play-size", type=int, default=126)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    preset = PRESETS[args.preset]
    import os
    with tempfile.TemporaryDirectory() as config:
        os.environ["XDG_CONFIG_HOME"] = config  # profiles stay out of the person's own
        with Harness() as harness:
            surveys(harness, preset, args.size, args.seed)
            play(harness, preset, args.play_size, args.seed)


if __name__ == "__main__":
    main()
