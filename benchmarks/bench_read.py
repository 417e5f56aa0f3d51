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
from calibration import store  # noqa: E402
from vision import glyphs  # noqa: E402
from vision.cells import classify, look_at  # noqa: E402
from vision.flip9 import find_boxes, read_line_digits, same_size  # noqa: E402
from vision.grid import COLUMNS, find_lattice  # noqa: E402
from vision.image import background, distance  # noqa: E402

FIXTURES = ROOT / "fixtures"


def load(entry):
    return vision.load_image(FIXTURES / entry["png"]), json.loads((FIXTURES / entry["json"]).read_text())


def truth_cells(truth) -> list[int]:
    """What the screen shows: the visible Number Match cells, or the Flip 9 cards."""
    if truth["game"] == "flip9":
        return list(truth["state"]["cards"])
    return [truth["board"]["cells"][int(i)] for i in sorted(int(k) for k in truth["cells"])]


def ours_cells(reading) -> list[int]:
    if reading.game == "flip9":
        return list(reading.state.cards)
    return [0 if i in reading.unsure else c for i, c in enumerate(reading.board.cells)]


def tesseract_only(image, game: str) -> list[int]:
    """Digits by tesseract alone, on the cells this reader finds."""
    bg = background(image)
    dist = distance(image, bg)
    if game == "flip9":
        boxes = find_boxes(image, dist)
        cards = same_size([b for b in boxes if b.outlined and len(b.glyphs) == 1])
        keys = same_size([b for b in boxes if not b.outlined and len(b.glyphs) == 1])
        if cards:
            crops = [b.glyphs[0] for b in cards]
        else:
            crops, _ = read_line_digits(image, bg, min(b.y for b in keys), int(image.shape[0] * 0.04), None, True)
        reads = glyphs.read_strip(crops or [])
        return [int(r[0]) if r else 0 for r in reads]
    lattice = find_lattice(dist)
    cells = [look_at(image, lattice.cell_box(r, c), dist) for r in range(len(lattice.rows)) for c in range(COLUMNS)]
    cells = [c for c in cells if c is not None]
    classify(cells, bg)
    last = max(i for i, c in enumerate(cells) if c.glyph is not None)
    cells = cells[:last + 1]
    reads = glyphs.read_strip([c.crop for c in cells if c.glyph is not None])
    out, k = [], 0
    for c in cells:
        if c.glyph is None:
            out.append(-1)
            continue
        r = reads[k]
        k += 1
        out.append(0 if c.state == "faded" else (int(glyphs.vote(r) or r[0]) if r else -1))
    return out


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
        store.read(image, "Pixel 7")  # builds, stores and then extends the device's profile
    image, truth = load(next(e for e in nm if e["state"] == "midgame" and e["theme"] == "light"))
    path = store.profile_path("Pixel 7", 1080, 2400, "numbermatch", "light")
    profile = store.load(path)
    vision.read(image, profile=profile).learn()  # what a first read of this screen would learn
    times = []
    for _ in range(args.reads):
        reading = vision.read(image, profile=profile)
        times.append(reading.seconds)
    t0 = time.perf_counter()
    tesseract_only(image, "numbermatch")
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
        if e["screen"] != "board" or e["game"] == "fifteen" or (args.only and e["preset"] != args.only):
            continue  # the 15-puzzle's reader has its own benchmark (bench_fifteen.py)
        groups.setdefault((e["preset"], e["theme"], e["game"]), []).append(e)
    t_ours = t_base = 0.0
    misses = []
    for key, entries in sorted(groups.items()):
        profile = None
        for entry in entries:
            image, truth = load(entry)
            want = truth_cells(truth)
            t0 = time.perf_counter()
            try:
                reading = vision.read(image, profile=profile, first_row=truth.get("first_row", 0))
                got = ours_cells(reading)
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
                got = tesseract_only(image, truth["game"])
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
