"""The real screenshots (../shared/realshots, labelled by hand in labels.json) read as far as their
evidence goes: the tablet's exactly, sharp or under a 1 px blur; the 216x475 phone's small digits
where tesseract and the digits drawn in phone fonts agree clearly; never a digit read wrong."""

import json
from pathlib import Path

import cv2
import pytest

import vision

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "realshots"
LABELS = json.loads((REAL / "labels.json").read_text())


def label_cells(name: str) -> list[int]:
    return [0 if c == "." else int(c) for c in LABELS[name]["board"].replace(" ", "")]


def numbers(reading) -> tuple:
    return reading.board.adds_left, reading.board.stage, reading.board.score


def want_numbers(name: str) -> tuple:
    label = LABELS[name]
    return label["refills_left"], label["stage"], label["score"]


@pytest.mark.parametrize("sigma", [0, 1])
def test_the_tablet_screenshot_reads_exactly_sharp_or_blurred(sigma):
    name = "tablet_1600x2560_stage1.jpg"
    image = vision.load_image(REAL / name)
    if sigma:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    reading = vision.read(image)
    assert reading.sure, reading.describe_unsure()
    assert list(reading.board.cells) == label_cells(name) and numbers(reading) == want_numbers(name)


def test_the_small_phone_screenshot_reads_what_its_evidence_supports():
    name = "phone_216x475_stage10.jpg"
    reading = vision.read(vision.load_image(REAL / name))
    want = label_cells(name)
    assert len(reading.board.cells) == len(want)
    assert [k for k, c in enumerate(reading.board.cells) if k not in reading.unsure and c != want[k]] == []
    # 12 px digits: all but a glyph or two read (the drawn 5 and 6 are too near alike to settle
    # one 5 there), where this read once gave up on every cell as too small to be sure of
    assert len(reading.unsure) <= 2 and not reading.parts_unsure, reading.describe_unsure()
    assert numbers(reading) == want_numbers(name)
