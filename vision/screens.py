"""Buttons on the screens between boards: labelled pills (continue, new game), a dialog's, and an ad's close button."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np

from vision.image import distance
from vision.shapes import fill_holes
from vision.text import read_text, saturation


_last_pills: tuple[bytes, list] = (b"", [])  # the last screen's pills: one screen is asked about twice


def pill_buttons(image: np.ndarray) -> list[tuple[str, tuple[int, int]]]:
    """Wide coloured buttons with a label: (label as a name, centre)."""
    global _last_pills
    key = hashlib.blake2b(np.ascontiguousarray(image).data, digest_size=16).digest() + bytes(str(image.shape), "ascii")
    if _last_pills[0] != key:
        _last_pills = key, _pills(image)
    return list(_last_pills[1])


def dialog_buttons(image: np.ndarray, own) -> dict[str, tuple[int, int]]:
    """The buttons of a dialog over the screen (a "Rate us!" card): the labelled pills but the
    game's ``own`` (the labels of its screens between boards); empty when there is none."""
    pills = [(name, centre) for name, centre in pill_buttons(image) if name not in own]
    return dict(pills)


def _pills(image: np.ndarray) -> list[tuple[str, tuple[int, int]]]:
    H, W = image.shape[:2]
    mask = (saturation(image) > 60).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if w < W * 0.3 or h < H * 0.025 or w / h < 3 or w > W * 0.95:
            continue
        if fill_holes(labels[y:y + h, x:x + w] == i).mean() < 0.8:
            continue
        crop = image[y:y + h, x:x + w]
        colour = np.median(crop[labels[y:y + h, x:x + w] == i], axis=0)
        ink = distance(crop, colour).astype(np.float32)
        m = h // 6
        ink = ink[m:h - m, h // 2:w - h // 2]
        if ink.max() < 60:
            continue
        text = read_text(np.clip(ink / ink.max() * 1.3, 0, 1))
        name = "_".join("".join(ch for ch in text.lower() if ch.isalpha() or ch == " ").split())
        if name:
            out.append((name, (int(x + w // 2), int(y + h // 2))))
    return out


def close_button(image: np.ndarray, bg) -> tuple[int, int] | None:
    """A round button with an X in the top corner of the screen (an ad's close button)."""
    H, W = image.shape[:2]
    y1, x0 = int(H * 0.15), int(W * 0.6)
    region = image[:y1, x0:]
    dist = distance(region, bg)
    mask = (dist > 20).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if w < max(10, W * 0.04) or not 0.8 < w / h < 1.25:
            continue
        solid = fill_holes(labels[y:y + h, x:x + w] == i)
        if not 0.7 < solid.mean() < 0.85:  # a disc fills pi/4 of its box
            continue
        crop = region[y:y + h, x:x + w]
        colour = np.median(crop[labels[y:y + h, x:x + w] == i], axis=0)
        ink = distance(crop, colour) > 60
        k = np.arange(int(w * 0.35), int(w * 0.65))
        diag = ink[k, k].mean() > 0.6 and ink[k, w - 1 - k].mean() > 0.6
        flat = ink[h // 2, int(w * 0.2):int(w * 0.3)].mean() < 0.5
        if diag and flat:
            return int(x0 + x + w // 2), int(y + h // 2)
    return None
