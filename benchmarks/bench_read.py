"""Benchmark of the board reader: speed with a stored profile and on first contact, and cell
accuracy over every fixture, against a tesseract-only reader in the same run.

    python3 benchmarks/bench_read.py [--reads 30] [--only PRESET]

The tesseract-only reader finds the grid and the cells the same way, then takes every digit
from tesseract alone (one strip call per screenshot, no templates, no look-alike voting, no
permutation check for Flip 9): what reading without learned templates gives.
Targets (issue 5): a 1080x2400 read with a stored profile <= 30 ms median; first contact <= 3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import vision  # noqa: E402
from assistant import session  # noqa: E402
from calibration import store  # noqa: E402
from vision.reader import reader  # noqa: E402

FIXTURES = ROOT / "fixtures"


def load(entry):
    return vision.load_image(FIXTURES / entry["png"]), json.loads((FIXTURES / entry["json"]).read_text())


def score(got: list[int], want: list[int]) -> tuple[int, int]:
    right = sum(1 for a, b in zip(got, want) if a == b)
    return right, len(want)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=30, help="timed reads with a stored profile")
    parser.add_argument("--only", help="only fixtures of this preset (accuracy part)")
    args = parser.parse_args()
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="bench_read_")
    index = json.loads((FIXTURES / "index.json").read_text())

    # 1. speed on 1080x2400: first contact, then reads with the profile stored on disk
    nm = [e for e in index if e["preset"] == "1080x2400" and e["game"] == "numbermatch" and e["screen"] == "board"]
    first = []
    for entry in nm:
        image, _ = load(entry)
        first.append(vision.read(image).seconds)  # no profile: grid, cells, tesseract
        session.read(image, "Pixel 7")  # builds, stores and then extends the device's profile
    image, truth = load(next(e for e in nm if e["state"] == "midgame" and e["theme"] == "light"))
    path = store.profile_path("Pixel 7", 1080, 2400, "numbermatch", "light")
    profile = store.load(path)
    vision.read(image, profile=profile).learn()  # what a first read of this screen would learn
    times = []
    for _ in range(args.reads):
        reading = vision.read(image, profile=profile)
        times.append(reading.seconds)
    t0 = time.perf_counter()
    reader("numbermatch").tesseract_cells(image)
    baseline_time = time.perf_counter() - t0
    print("speed, 1080x2400 Number Match:")
    print(f"  with a stored profile: median {statistics.median(times) * 1000:.1f} ms, "
          f"min {min(times) * 1000:.1f} ms over {len(times)} reads (target <= 30 ms)")
    print(f"  first contact (tesseract, profile built): median {statistics.median(first):.2f} s, "
          f"max {max(first):.2f} s over {len(first)} screenshots (target <= 3 s)")
    print(f"  tesseract-only reader, same screenshot: {baseline_time * 1000:.0f} ms")

    # 2. cell accuracy over every fixture: ours as a phone session per preset and theme
    #    (first contact, then the profile), the tesseract-only reader on each screenshot
    ours = [0, 0]
    base = [0, 0]
    exact = [0, 0]
    groups: dict = {}
    for e in index:
        if e["screen"] != "board" or not reader(e["game"]).CELL_BENCHMARK or (args.only and e["preset"] != args.only):
            continue  # (the 15-puzzle's reader has its own benchmark, bench_fifteen.py)
        groups.setdefault((e["preset"], e["theme"], e["game"]), []).append(e)
    t_ours = t_base = 0.0
    misses = []
    for key, entries in sorted(groups.items()):
        profile = None
        for entry in entries:
            image, truth = load(entry)
            game = reader(truth["game"])
            want = game.truth_cells(truth)
            t0 = time.perf_counter()
            try:
                reading = vision.read(image, profile=profile, first_row=truth.get("first_row", 0))
                got = game.reading_cells(reading)
                reading.learn()
                profile = reading.profile
            except vision.ReadError:
                got = []
            t_ours += time.perf_counter() - t0
            r, n = score(got, want)
            ours[0] += r
            ours[1] += n
            exact[0] += got == want
            exact[1] += 1
            if got != want:
                misses.append(entry["png"])
            t0 = time.perf_counter()
            try:
                got = game.tesseract_cells(image)
            except Exception:
                got = []
            t_base += time.perf_counter() - t0
            r, n = score(got, want)
            base[0] += r
            base[1] += n
    print(f"cell accuracy over {exact[1]} board fixtures ({ours[1]} cells and cards):")
    print(f"  ours:            {ours[0]}/{ours[1]} = {ours[0] / ours[1]:.2%}, {exact[0]}/{exact[1]} screenshots "
          f"exact, {t_ours:.1f} s in all")
    print(f"  tesseract-only:  {base[0]}/{base[1]} = {base[0] / base[1]:.2%}, {t_base:.1f} s in all")
    for png in misses:
        print(f"  ours not exact: {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
