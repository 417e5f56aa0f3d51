"""Reading a Flip 9 screen: the nine cards, the card that must be swapped, the buttons."""

from __future__ import annotations

from vision.image import ReadError


def read_flip9(image, bg, dist, profile, use_tesseract=True):
    raise ReadError("no Flip 9 board found")
