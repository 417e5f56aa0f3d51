"""`tapsolve bench trust`: how often the reader is silently wrong on damaged screenshots.

Every board fixture and every real screenshot is perturbed as a phone,
a chat app or a person would (JPEG, scaling, blur, gamma, noise, a notification banner, a
dialog over the board, a rotation, a crop through a row), read with a fresh profile (first
contact) and with one stored from the clean screenshot, and each read is classified:

- ``exact``: everything read, every value right;
- ``unsure``: refused with a one-line error, or values left unsure (null) and every value it
  did claim right;
- ``misread``: a value claimed for sure that is wrong (the one outcome that must never happen);
- ``crash``: the reader failed inside (an OpenCV or numpy error).
"""

from __future__ import annotations

import copy
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

import vision
from assistant.options import stop_on_terminate
from solver.errors import InputError, TapsolveError
from vision.reader import reader

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REALSHOTS = ROOT.parent / "shared" / "realshots"

OUTCOMES = ("exact", "unsure", "misread", "crash")
# the perturbations a reader should read exactly (at phone resolutions, >= PHONE_WIDTH wide)
MILD = ("jpeg50", "jpeg70", "jpeg90", "scale0.8", "scale1.25", "scale1.5", "blur1", "gamma0.7",
        "gamma1.4", "noise", "banner")
PHONE_WIDTH = 720
QUARTER = 4  # a whole run reads every 4th fixture first (the --sample 4 set), then the rest


@dataclass
class Case:
    """A clean screenshot and what it shows: the truth every read of a perturbation is held to."""

    name: str
    image: np.ndarray
    game: str
    cells: dict[int, int] = field(default_factory=dict)  # visible Number Match cells by index
    values: dict = field(default_factory=dict)  # adds_left, stage, score / cards, must / tiles
    first_row_y: float = 0.0  # screen y of the middle of the first row (cards or keys for Flip 9)
    first_row: int = 0  # the board row at the top of the grid (a scrolled board; the caller knows it)
    # every Number Match cell of the board by index, on screen or not: a row at the screen's faded
    # edge that a read takes in (its digits drawn whole) is held to it (empty: ``cells`` is all)
    board: dict[int, int] = field(default_factory=dict)


def fixtures_folder(say=print) -> Path:
    """The fixtures read: the checkout's, or for an installed tapsolve (its wheel holds no
    fixtures) phonesim's drawing of them, made once into the cache folder: the same pixels, for
    ``phonesim.fixtures`` draws them from fixed seeds."""
    if (FIXTURES / "index.json").is_file():
        return FIXTURES
    import os
    import shutil

    from phonesim.fixtures import generate
    from solver import platforms
    from solver.cache import cache_dir

    kept = cache_dir() / "fixtures"
    if (kept / "index.json").is_file():
        return kept
    say(f"no fixtures beside this tapsolve (an installed one): drawing them with phonesim into {kept} "
        "(once; a minute or two)")
    drawing = kept.with_name(f"fixtures.{os.getpid()}.tmp")
    try:
        generate(drawing)
        os.replace(drawing, kept)
    except OSError as exc:
        shutil.rmtree(drawing, ignore_errors=True)
        raise TapsolveError(f"cannot keep the fixtures in {kept}: {exc.strerror or exc}; set "
                            f"{platforms.CACHE_SETTING} to a folder you can write") from None
    return kept


def load_cases(sample: int = 0, say=print) -> list[Case]:
    """The real screenshots, then every board fixture (every ``sample``-th when sample > 1)."""
    fixtures = fixtures_folder(say)
    index = json.loads((fixtures / "index.json").read_text())
    boards = [e for e in index if e["screen"] == "board"]
    if sample > 1:
        boards = boards[::sample]
    else:  # every QUARTER-th fixture first: a whole run cut short has read an even spread of them
        boards = [e for k in range(QUARTER) for e in boards[k::QUARTER]]
    cases = real_cases()
    for e in boards:
        truth = json.loads((fixtures / e["json"]).read_text())
        image = vision.load_image(fixtures / e["png"])
        cases.append(Case(e["png"], image, truth["game"], **reader(truth["game"]).trust_case(truth)))
    return cases


def real_cases() -> list[Case]:
    """The real screenshots with their labels (read first: there are few, and they matter most)."""
    labels = json.loads((REALSHOTS / "labels.json").read_text()) if (REALSHOTS / "labels.json").exists() else {}
    cases = []
    for name, label in sorted(labels.items()):
        image = vision.load_image(REALSHOTS / name)
        # the game, and where the first row is (a place to cut), from a clean read
        clean = vision.read(image)
        top = float(min(y for _, y in clean.cells.values()))
        cases.append(Case(name, image, clean.game, first_row_y=top,
                          **reader(clean.game).trust_label(label)))
    return cases


# -- perturbations: each a function (case, image) -> image --------------------------------------

def jpeg(quality: int):
    def apply(case, image):
        ok, data = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    return apply


def scale(factor: float):
    def apply(case, image):
        h, w = image.shape[:2]
        size = (max(1, round(w * factor)), max(1, round(h * factor)))
        return cv2.resize(image, size, interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_CUBIC)
    return apply


def blur(sigma: float):
    return lambda case, image: cv2.GaussianBlur(image, (0, 0), sigma)


def gamma(g: float):
    table = np.array([255 * (v / 255) ** g for v in range(256)]).clip(0, 255).astype(np.uint8)
    return lambda case, image: cv2.LUT(image, table)


def noise(case, image):
    rng = np.random.default_rng(len(case.name))
    return np.clip(image.astype(np.int16) + rng.normal(0, 8, image.shape).astype(np.int16), 0, 255).astype(np.uint8)


def banner(case, image):
    """A heads-up notification: a grey card with an icon and two lines over the status bar and
    the top of the app."""
    out = image.copy()
    h, w = out.shape[:2]
    x0, y0, x1, y1 = int(w * 0.02), int(h * 0.004), int(w * 0.98), int(h * 0.075)
    cv2.rectangle(out, (x0, y0), (x1, y1), (236, 236, 240), -1)
    cv2.rectangle(out, (x0, y0), (x1, y1), (200, 200, 206), max(1, w // 540))
    r = (y1 - y0) // 4
    cv2.circle(out, (x0 + 2 * r, (y0 + y1) // 2), r, (37, 211, 102), -1)
    fs = (y1 - y0) / 90
    thick = max(1, int(fs * 2))
    cv2.putText(out, "Anna: are you coming at 7?", (x0 + 4 * r, y0 + int((y1 - y0) * 0.42)),
                cv2.FONT_HERSHEY_SIMPLEX, fs, (30, 30, 30), thick, cv2.LINE_AA)
    cv2.putText(out, "Messages - now - 2 new", (x0 + 4 * r, y0 + int((y1 - y0) * 0.8)),
                cv2.FONT_HERSHEY_SIMPLEX, fs * 0.8, (90, 90, 90), thick, cv2.LINE_AA)
    return out


def dialog(case, image):
    """phonesim's "Rate us!" dialog, its card's top at the first row of the board."""
    from phonesim.apps.dialog import Dialog

    h, w = image.shape[:2]
    theme = "light" if image.mean() > 128 else "dark"
    return Dialog(w, h, theme, top=max(0.05, case.first_row_y / h)).draw(image)


def rotate(case, image):
    return np.ascontiguousarray(np.rot90(image))


def crop(case, image):
    """The screenshot cut across the middle of the board's first row (or first row of cards)."""
    return image[int(case.first_row_y):].copy()


PERTURBATIONS = {
    "jpeg30": jpeg(30), "jpeg50": jpeg(50), "jpeg70": jpeg(70), "jpeg90": jpeg(90),
    "scale0.4": scale(0.4), "scale0.6": scale(0.6), "scale0.8": scale(0.8), "scale1.25": scale(1.25),
    "scale1.5": scale(1.5), "blur1": blur(1), "blur2": blur(2), "gamma0.7": gamma(0.7),
    "gamma1.4": gamma(1.4), "noise": noise, "banner": banner, "dialog": dialog, "rotate90": rotate,
    "crop": crop,
}


# -- judging a read -------------------------------------------------------------------------

def classify(case: Case, perturbation: str, reading) -> str:
    """exact / unsure / misread for a reading (a ReadError counts as unsure: refused)."""
    if reading.screen != "board" or reading.game != case.game:
        # another game or a screen between boards claimed for sure is wrong; "unknown" refuses,
        # and so does "dialog" (something over the screen: no cell under it read)
        return "unsure" if reading.screen in ("unknown", "dialog") else "misread"
    return reader(case.game).trust_outcome(case, perturbation, reading)


def read_one(image, profile=None, first_row: int = 0):
    """(reading or None, outcome override or None, seconds)."""
    t0 = time.perf_counter()
    reading = outcome = None
    try:
        reading = vision.read(image, profile=profile, first_row=first_row)
    except vision.ReadError as exc:  # refused, unless the reader failed inside
        outcome = "crash" if isinstance(exc, vision.ReaderFailure) else "unsure"
    except TapsolveError:  # not the reader's doing (tesseract missing): the person must hear it
        raise
    except Exception:  # anything else escaping the reader is a crash to count, not to hide
        outcome = "crash"
    return reading, outcome, time.perf_counter() - t0


@dataclass
class Tally:
    """Outcomes counted per (profile mode, perturbation), with the misreads named."""

    counts: dict = field(default_factory=dict)
    misreads: list = field(default_factory=list)
    seconds: list = field(default_factory=list)

    def add(self, mode: str, perturbation: str, case: Case, outcome: str, note: str = "") -> None:
        key = (mode, perturbation, case.image.shape[1] >= PHONE_WIDTH)
        self.counts.setdefault(key, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
        if outcome in ("misread", "crash"):
            self.misreads.append(f"{mode} {perturbation} {case.name}: {outcome} {note}".rstrip())

    def total(self, mode=None, perturbations=None, phone=None) -> dict:
        out = dict.fromkeys(OUTCOMES, 0)
        for (m, p, wide), c in self.counts.items():
            if (mode is None or m == mode) and (perturbations is None or p in perturbations) \
                    and (phone is None or wide == phone):
                for k in OUTCOMES:
                    out[k] += c[k]
        return out


def run(cases: list[Case], perturbations: list[str], modes=("fresh", "stored"), say=print,
        tally: Tally | None = None, progress=None) -> Tally:
    """Read every perturbation of every case in each mode; returns the counts."""
    tally = tally or Tally()
    for n, case in enumerate(cases, 1):
        if progress is not None:
            progress(f"{n}/{len(cases)} {case.name}")
        stored = None
        if "stored" in modes:
            try:
                stored = vision.read(case.image, first_row=case.first_row).profile  # first contact, clean
            except vision.ReadError:
                pass
        for name in perturbations:
            image = PERTURBATIONS[name](case, case.image)
            for mode in modes:
                profile = copy.deepcopy(stored) if mode == "stored" and stored is not None else None
                reading, outcome, seconds = read_one(image, profile, case.first_row)
                if outcome is None:
                    try:
                        outcome = classify(case, name, reading)
                    except Exception as exc:  # a reading the contract does not allow
                        outcome, reading = "crash", None
                        say(f"  classify failed: {exc!r}")
                if mode == "stored":
                    tally.seconds.append(seconds)
                claimed = reader(reading.game).trust_words(reading) if outcome == "misread" else ""
                tally.add(mode, name, case, outcome, claimed)
    return tally


def report(tally: Tally, perturbations: list[str], say=print) -> None:
    """Counts per perturbation and profile mode, overall, the mild set at phone resolutions,
    and the small screenshots apart."""
    modes = sorted({m for m, _, _ in tally.counts}, key=lambda m: m != "fresh")
    say(f"{'perturbation':14s}" + "".join(f"{m + ': exact/unsure/MISREAD/crash':>38s}" for m in modes))
    for p in perturbations:
        row = f"{p:14s}"
        for m in modes:
            c = tally.total(m, [p])
            row += f"{c['exact']:>20d}/{c['unsure']}/{c['misread']}/{c['crash']}".rjust(38)
        say(row)
    for m in modes:
        c = tally.total(m)
        n = sum(c.values()) or 1
        mild = tally.total(m, MILD, phone=True)
        nm = sum(mild.values()) or 1
        small = tally.total(m, phone=False)
        small_mild = tally.total(m, MILD, phone=False)
        say(f"{m}: {sum(c.values())} reads: exact {c['exact']}, unsure/refused {c['unsure']}, "
            f"silent misreads {c['misread']}, crashes {c['crash']} ({c['exact'] / n:.1%} exact)")
        say(f"{m}: mild perturbations at phone resolutions: {mild['exact']}/{sum(mild.values())} exact "
            f"({mild['exact'] / nm:.1%}), {mild['misread']} misreads")
        if sum(small.values()):
            say(f"{m}: small screenshots (< {PHONE_WIDTH} px wide): {small['exact']}/{sum(small.values())} exact, "
                f"mild {small_mild['exact']}/{sum(small_mild.values())}, {small['misread']} misreads, "
                f"{small['crash']} crashes")
    if tally.seconds:
        say(f"stored-profile reads: median {statistics.median(tally.seconds) * 1000:.0f} ms over {len(tally.seconds)}")
    for line in tally.misreads:
        say("  " + line)


def main(args, say=print) -> int:
    """`tapsolve bench trust` and benchmarks/bench_trust.py."""
    names = args.only.split(",") if args.only else list(PERTURBATIONS)
    unknown = [p for p in names if p not in PERTURBATIONS]
    if unknown:
        raise InputError(f"unknown perturbation {unknown[0]!r}: choose from {', '.join(PERTURBATIONS)}")
    modes = ("fresh", "stored") if args.mode == "both" else (args.mode,)
    t0 = time.perf_counter()
    cases = load_cases(args.sample, say)
    say(f"{len(cases)} screenshots x {len(names)} perturbations x {len(modes)} profile modes")
    tally = Tally()

    def progress(text):  # with the counts so far: a run cut short still says what it saw
        so_far = "; ".join(f"{m} " + "/".join(str(v) for v in tally.total(m).values()) for m in modes)
        print(f"{text} ({so_far} exact/unsure/misread/crash)", file=sys.stderr, flush=True)

    stop_on_terminate()  # `kill` stops a run in the background as Ctrl-C does (benchmarks/ calls in here)
    try:
        run(cases, names, modes, say=say, tally=tally, progress=progress)
    except KeyboardInterrupt:  # a whole run takes long: one cut short reports what it read
        read = sum(sum(tally.total(m).values()) for m in modes)
        say(f"cut short after {read} reads of {len(cases) * len(names) * len(modes)}")
    report(tally, names, say=say)
    say(f"{time.perf_counter() - t0:.0f} s in all")
    silent = sum(tally.total(m)["misread"] + tally.total(m)["crash"] for m in modes)
    return 1 if silent else 0
