"""A "Rate us!" dialog drawn over whatever the phone shows: a card with a title, a line of text,
its button and (with ``dismiss``) a second one such as "Not now"; either closes it.
Self-contained (any app, any screen) so that faults and other
profiles of the virtual phone can pop it up over a game.

>>> d = Dialog(1080, 2400)
>>> x, y, w, h = d.button
>>> d.closes(x + w // 2, y + h // 2), d.closes(10, 10), Dialog(1080, 2400, dismiss="Not now").dismiss is not None
(True, False, True)
"""

from __future__ import annotations

import numpy as np

from phonesim.apps import draw

LOOKS = {  # card, title, text, button, button text, shadow: as Android's light and dark dialogs
    "light": ("#FFFFFF", "#1C1B1F", "#49454F", "#1E88F0", "#FFFFFF", "#9AA0AA"),
    "dark": ("#2B2D33", "#E6E1E5", "#CAC4D0", "#4EA1F5", "#10131A", "#000000"),
}


class Dialog:
    """A dialog card centred across the screen, ``top`` (a share of the height) from the top."""

    def __init__(self, width: int, height: int, theme: str = "light", family: str = "roboto",
                 top: float = 0.2, title: str = "Rate us!",
                 text: str = "Enjoying the game? Tell us!", label: str = "Rate now", dismiss: str = ""):
        self.width, self.height, self.family = width, height, family
        self.look = LOOKS[theme]
        self.title, self.text, self.label = title, text, label
        u = width / 10  # a unit: a tenth of the screen's width
        w, h = round(8.4 * u), round(3.4 * u)
        self.card = [(width - w) // 2, round(height * top), w, h]
        bw, bh = round(3.2 * u), round(0.9 * u)
        x, y = self.card[0], self.card[1]
        self.button = [x + w - bw - round(0.5 * u), y + h - bh - round(0.45 * u), bw, bh]
        self.dismiss_label = dismiss  # the second button, left of the first ("": none)
        self.dismiss = [self.button[0] - bw - round(0.3 * u), self.button[1], bw, bh] if dismiss else None

    def closes(self, x: int, y: int) -> bool:
        """Whether a tap at (x, y) is on the dialog's button (which closes it)."""
        return any(bx <= x < bx + bw and by <= y < by + bh
                   for bx, by, bw, bh in filter(None, (self.button, self.dismiss)))

    def draw(self, screen: np.ndarray) -> np.ndarray:
        """The screen with the dialog drawn over it (a new array)."""
        out = screen.copy()
        card, title, text, button, label, shadow = (draw.hex_rgb(c) for c in self.look)
        x, y, w, h = self.card
        u = self.width / 10
        r = round(0.35 * u)
        s = max(2, round(0.04 * u))  # a soft edge under the card, as a raised surface casts
        draw.put_rounded_rect(out, x - s, y - s // 2, w + 2 * s, h + 2 * s, r + s, shadow)
        draw.put_rounded_rect(out, x, y, w, h, r, card)
        f = self.family
        draw.put_text(out, f, "bold", draw.cap_size(f, 0.38 * u), self.title, x + round(0.55 * u),
                      y + round(1.0 * u), title)
        draw.put_text(out, f, "regular", draw.cap_size(f, 0.22 * u), self.text, x + round(0.55 * u),
                      y + round(1.65 * u), text)
        for rect, words in ((self.button, self.label), (self.dismiss, self.dismiss_label)):
            if rect:
                bx, by, bw, bh = rect
                draw.put_rounded_rect(out, bx, by, bw, bh, bh // 2, button)
                draw.put_text_centered(out, f, "bold", draw.cap_size(f, 0.24 * u), words, bx + bw // 2,
                                       by + bh // 2, label)
        return out

    def truth(self) -> dict:
        return {"title": self.title, "card": list(self.card), "button": list(self.button),
                **({"dismiss": list(self.dismiss)} if self.dismiss else {})}
