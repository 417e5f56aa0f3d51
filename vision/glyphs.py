"""Digits from glyph images: tesseract on a strip of glyphs to bootstrap, then learned templates.

Tesseract is slow per call and often returns nothing for a lone glyph, so first contact reads
all glyphs in one call on a strip (each glyph tight-cropped, scaled to ~40 px high, padded,
binarised) and maps the characters back to glyphs by their boxes. The glyphs read that way
become per-device templates; later reads match templates (a dot product), with a confidence
per cell; doubtful glyphs go back to tesseract, and a glyph still doubtful is reported unsure.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import cv2
import numpy as np

from vision import tesseract
from vision.cells import GLYPH
from vision.thresholds import DRAWN_LIKENESS, INK_LEVELS, MARGIN, MISFILED, STROKE, TEMPLATES_ALIKE

DIGITS = "123456789"
STRIP_HEIGHT = 40
PAD = 16
GAP = 28


def ocr_image(crop: np.ndarray, threshold: float = STROKE) -> np.ndarray:
    """A glyph's ink crop (0-1) as black-on-white 8-bit, STRIP_HEIGHT high, binarised."""
    h, w = crop.shape
    nw = max(2, int(round(w * STRIP_HEIGHT / h)))
    big = cv2.resize(crop.astype(np.float32), (nw, STRIP_HEIGHT), interpolation=cv2.INTER_CUBIC)
    return np.where(big > threshold, 0, 255).astype(np.uint8)


def read_strip(crops: list[np.ndarray], chars: str = DIGITS) -> list[list[str]]:
    """One tesseract call on a strip of glyph crops: the characters read for each, one per
    binarisation in INK_LEVELS (glyphs that read as nothing or as two characters add none)."""
    if not crops:
        return []
    parts, spans, owner = [], [], []
    x = PAD
    for i, crop in enumerate(crops):
        for threshold in INK_LEVELS:
            img = ocr_image(crop, threshold)
            parts.append(img)
            spans.append((x, x + img.shape[1]))
            owner.append(i)
            x += img.shape[1] + GAP
    width = x - GAP + PAD
    strip = np.full((STRIP_HEIGHT + 2 * PAD, width), 255, np.uint8)
    for img, (a, b) in zip(parts, spans):
        strip[PAD:PAD + STRIP_HEIGHT, a:b] = img
    boxes = tesseract.run([strip], tesseract.options(7, chars, boxes=True))[0]
    found: list[list[str]] = [[] for _ in spans]
    for line in boxes.splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[0] not in chars:
            continue
        cx = (int(fields[1]) + int(fields[3])) / 2
        for k, (a, b) in enumerate(spans):
            if a - GAP / 2 <= cx <= b + GAP / 2:
                found[k].append(fields[0])
                break
    reads: list[list[str]] = [[] for _ in crops]
    for k, f in enumerate(found):
        if len(f) == 1:
            reads[owner[k]].append(f[0])
    return reads


def vote(reads: list[str]) -> str | None:
    """The read most of ``reads`` agree on, or None when there is none or a tie."""
    ranked = Counter(reads).most_common(2)
    if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        return ranked[0][0]
    return None


def read_one(crop: np.ndarray, chars: str = DIGITS) -> str | None:
    """Tesseract on a single glyph (the slow fallback for a glyph the strip did not settle)."""
    img = ocr_image(crop)
    img = cv2.copyMakeBorder(img, PAD, PAD, PAD, PAD, cv2.BORDER_CONSTANT, value=255)
    text = tesseract.run([img], tesseract.options(10, chars))[0].strip()
    return text if len(text) == 1 and text in chars else None


# A learned template takes a match about as close as its own glyphs came when they were learned:
# within SPREAD_Z standard deviations of their mean correlation, but never less slack than
# LEAST_SLACK (a few sub-pixel shifts of one rendering spread by almost nothing, and a JPEG of
# that screen must still read) nor more than MOST_SLACK, and never under LOWEST_BAR.
SPREAD_Z = 4.0
LEAST_SLACK = 0.04
MOST_SLACK = 0.12
LOWEST_BAR = 0.75
# A template never compared with a second glyph has no spread yet: it must match this well
# (another digit not learned yet must not pass for it).
NEW_BAR = 0.95


class Templates:
    """Per-device glyph templates: for each digit the mean of its normalised glyphs, and the
    spread of how well those glyphs matched it (a match is judged against that spread)."""

    def __init__(self, sums: dict[str, np.ndarray] | None = None, counts: dict[str, int] | None = None,
                 fits: dict[str, list[float]] | None = None):
        self.sums = sums or {}
        self.counts = counts or {}
        # per digit, how its glyphs matched the template as it stood when each was learned:
        # [sum of correlations, glyphs compared, sum of squared correlations]
        self.fits = fits or {}
        self._matrix = None
        self._problem: str | None | bool = False  # ``problem``'s answer once asked (False: not yet)

    def copy(self) -> "Templates":
        """A copy to learn into (``add`` replaces a digit's arrays, never changes them in place)."""
        out = Templates(dict(self.sums), dict(self.counts), dict(self.fits))
        out._matrix, out._problem = self._matrix, self._problem
        return out

    def problem(self) -> str | None:
        """Why these templates cannot be trusted, or None: two digits filed with one glyph, or a
        template that looks more like another digit drawn in the phone fonts (vision.fontmatch)
        than its own, or like no digit at all. A template is matched on its own (no tesseract),
        so a wrong one would misread its digit, for sure, on every screen."""
        if self._problem is False:
            self._problem = self._check()
        return self._problem

    def _check(self) -> str | None:
        keys, m = self.matrix()
        alike = m @ m.T
        for i, a in enumerate(keys):
            for j in range(i + 1, len(keys)):
                if alike[i, j] >= TEMPLATES_ALIKE:
                    return f"the {a} and {keys[j]} templates are one glyph"
        drawn = drawn_looks()
        if len(drawn) < 10:
            return None  # no phone font on this machine to check against (or not all its digits)
        for d, row in zip(keys, m):
            likeness = {k: float((looks @ row).max()) for k, looks in drawn.items()}
            other = max((k for k in likeness if k != d), key=likeness.get)
            if max(likeness.values()) < DRAWN_LIKENESS:
                return f"the {d} template looks like no digit"
            if likeness[other] > likeness[d] + MISFILED:
                return f"the {d} template looks like {'an' if other == '8' else 'a'} {other}"
            if likeness[d] < DRAWN_LIKENESS:
                return f"the {d} template looks like no digit"
        return None

    def add(self, digit: str, glyph: np.ndarray) -> None:
        if digit in self.sums:
            fit = float(centred(glyph) @ centred(self.sums[digit]))
            total, n, squares = self.fits.get(digit, [0.0, 0, 0.0])
            self.fits[digit] = [total + fit, n + 1, squares + fit * fit]
        self.sums[digit] = self.sums.get(digit, np.zeros((GLYPH, GLYPH), np.float32)) + glyph
        self.counts[digit] = self.counts.get(digit, 0) + 1
        self._matrix = None
        self._problem = False

    def spread(self, digit: str) -> tuple[float, float, int]:
        """(mean, standard deviation, glyphs compared) of how well ``digit``'s glyphs matched."""
        total, n, squares = self.fits.get(digit, [0.0, 0, 0.0])
        if n == 0:
            return 0.0, 0.0, 0
        mean = total / n
        return mean, max(0.0, squares / n - mean * mean) ** 0.5, n

    def bar(self, digit: str) -> float:
        """The least correlation a match must reach to be taken as ``digit`` without tesseract."""
        mean, sd, n = self.spread(digit)
        if n == 0:
            return NEW_BAR
        slack = min(MOST_SLACK, max(LEAST_SLACK, SPREAD_Z * sd))
        return min(NEW_BAR, max(LOWEST_BAR, mean - slack))

    def sure(self, digit: str | None, best: float, margin: float) -> bool:
        """Whether a match (best correlation, margin over the runner-up) can be taken without
        tesseract: within this digit's own learned spread (``bar``), and clearly ahead."""
        return digit is not None and margin >= MARGIN and best >= self.bar(digit)

    def __len__(self) -> int:
        return len(self.sums)

    def known(self) -> str:
        return "".join(sorted(self.sums))

    def matrix(self):
        if self._matrix is None:
            keys = sorted(self.sums)
            rows = [centred(self.sums[k] / self.counts[k]) for k in keys]
            self._matrix = (keys, np.stack(rows) if rows else np.zeros((0, GLYPH * GLYPH), np.float32))
        return self._matrix

    def match(self, glyphs: list[np.ndarray]) -> list[tuple[str | None, float, float]]:
        """For each glyph: (best digit, its correlation, margin over the second best)."""
        keys, m = self.matrix()
        if not glyphs or not keys:
            return [(None, 0.0, 0.0) for _ in glyphs]
        g = np.stack([centred(x) for x in glyphs])
        scores = g @ m.T
        out = []
        for row in scores:
            order = np.argsort(row)[::-1]
            best = float(row[order[0]])
            second = float(row[order[1]]) if len(order) > 1 else -1.0
            out.append((keys[order[0]], best, best - second))
        return out

    def to_json(self) -> dict:
        out = {}
        for d in sorted(self.sums):
            total, n, squares = self.fits.get(d, [0.0, 0, 0.0])
            out[d] = {"count": self.counts[d], "fit": [total, n], "spread": squares,
                      "mean": np.round(self.sums[d] / self.counts[d], 3).flatten().tolist()}
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Templates":
        sums, counts, fits = {}, {}, {}
        for d, item in data.items():
            mean = np.asarray(item["mean"], np.float32)
            if d not in "0123456789" or mean.size != GLYPH * GLYPH:
                raise ValueError(f"bad template {d!r}")
            counts[d] = int(item["count"])
            sums[d] = mean.reshape(GLYPH, GLYPH) * counts[d]
            # how well its glyphs fitted and their spread. A profile stored before the spread
            # was kept has "fit" alone: its template is held to the bar of one never compared
            # (NEW_BAR), so doubtful glyphs go to tesseract and the spread is learned again.
            fit, spread = item.get("fit", [0.0, 0]), item.get("spread")
            if float(fit[1]) > 0 and spread is not None:
                fits[d] = [float(fit[0]), int(fit[1]), float(spread)]
        return cls(sums, counts, fits)


def centred(glyph: np.ndarray) -> np.ndarray:
    """A glyph as a zero-mean unit vector, so a dot product is a correlation."""
    # blurred a little first: a glyph a pixel off (small screens, JPEG) still lines up
    v = cv2.GaussianBlur(glyph.astype(np.float32), (5, 5), 1.2).flatten()
    v = v - v.mean()
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


@lru_cache(maxsize=1)
def drawn_looks() -> dict[str, np.ndarray]:
    """Each digit's drawings as glyphs are learned (normalised, centred), one row
    per font: what a learned template of that digit should look most like."""
    from vision import fontmatch
    from vision.cells import normalise

    rows: dict[str, list[np.ndarray]] = {}
    for d, g in fontmatch.drawn_digits():
        rows.setdefault(d, []).append(centred(normalise(g)))
    return {d: np.stack(v) for d, v in rows.items()}
