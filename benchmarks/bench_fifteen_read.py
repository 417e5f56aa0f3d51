"""The 15-puzzle reader on many apps' looks: phonesim's random skins, or any folder of screenshots.

    python3 benchmarks/bench_fifteen_read.py render DIR [--skins 100] [--seed 0]
    python3 benchmarks/bench_fifteen_read.py read DIR [--json]

`render` draws that many random skins (phonesim's 15-puzzle app, ``--skin``) in turn at four
screen sizes (320x569, 720x1280, 1080x2400, 1440x2960) into DIR, each a PNG and its truth
(JSON: the tiles). `read` reads every image in DIR (PNG, JPEG) as a first contact (no profile,
the game recognised) and again with the profile that read built, and counts each image as
exact, unsure, misread (read for sure and wrong: must be 0), no board, or crash, judged against
NAME.json's tiles where there is one (a folder of real screenshots without truth: each reading
is printed for a person to check). It prints the median and worst seconds of both reads.

Run `read` with another checkout first on PYTHONPATH to compare readers on the same images.
"""

import argparse
import json
import statistics
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # (appended: a checkout given first on PYTHONPATH is the one measured)

SIZES = ((320, 569), (720, 1280), (1080, 2400), (1440, 2960))
IMAGES = (".png", ".jpg", ".jpeg", ".webp")


def render(folder: Path, skins: int, seed: int) -> None:
    import cv2

    from phonesim import apps
    from phonesim.app import Preset

    folder.mkdir(parents=True, exist_ok=True)
    for k in range(seed, seed + skins):
        w, h = SIZES[k % len(SIZES)]
        preset = Preset(f"{w}x{h}", w, h, 160, "Skin phone", "skin", "skin", "roboto", max(20, w // 15))
        app = apps.create("fifteen", preset, seed=k, skin=k)
        name = f"skin{k:05d}-{w}x{h}"
        cv2.imwrite(str(folder / f"{name}.png"), cv2.cvtColor(app.render(), cv2.COLOR_RGB2BGR))
        (folder / f"{name}.json").write_text(json.dumps({"board": app.board.to_json(), "skin": k}))
    print(f"{skins} skins drawn into {folder}")


def read(folder: Path, as_json: bool) -> int:
    import vision
    from vision.image import ReadError

    counts = {k: 0 for k in ("exact", "unsure", "misread", "no board", "crash")}
    first, stored = [], []
    paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGES)
    for path in paths:
        truth_file = path.with_suffix(".json")
        tiles = json.loads(truth_file.read_text())["board"]["tiles"] if truth_file.exists() else None
        try:
            image = vision.load_image(path)
            t0 = time.perf_counter()
            reading = vision.read(image, "auto")
            first.append(time.perf_counter() - t0)
        except ReadError as exc:
            counts["no board"] += 1
            print(f"{path.name}: no board ({exc})")
            continue
        except Exception:  # noqa: BLE001 - a crash is counted, and shown
            counts["crash"] += 1
            print(f"{path.name}: crash\n{traceback.format_exc()}")
            continue
        if reading.game == "fifteen" and reading.board is not None and reading.sure:
            reading.learn()
            t0 = time.perf_counter()
            vision.read(image, "fifteen", reading.profile)
            stored.append(time.perf_counter() - t0)
        board = reading.board if reading.game == "fifteen" else None
        if board is None or not reading.sure:
            outcome = "unsure" if reading.game == "fifteen" else "no board"
        elif tiles is None:
            outcome = "exact"  # (no truth: printed for a person to judge)
        else:
            outcome = "exact" if list(board.tiles) == tiles else "misread"
        counts[outcome] += 1
        if outcome != "exact" or tiles is None:
            words = board.format() if board is not None and reading.sure else reading.text().replace("\n", " | ")
            print(f"{path.name}: {outcome}: {words}")
    figures = {"images": len(paths), **counts,
               "first read s": {"median": round(statistics.median(first), 3), "max": round(max(first), 3)} if first else None,
               "stored profile read s": {"median": round(statistics.median(stored), 3), "max": round(max(stored), 3)}
               if stored else None}
    print(json.dumps(figures) if as_json else "\n".join(f"{k}: {v}" for k, v in figures.items()))
    return 1 if counts["misread"] or counts["crash"] else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    r = sub.add_parser("render", help="draw random skins with their truth")
    r.add_argument("folder", type=Path)
    r.add_argument("--skins", type=int, default=100)
    r.add_argument("--seed", type=int, default=0)
    d = sub.add_parser("read", help="read every screenshot of a folder")
    d.add_argument("folder", type=Path)
    d.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.what == "render":
        render(args.folder, args.skins, args.seed)
        return 0
    if not args.folder.is_dir():
        parser.error(f"{args.folder} is not a folder")
    return read(args.folder, args.json)


if __name__ == "__main__":
    sys.exit(main())
