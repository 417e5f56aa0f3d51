"""The Flip 9 app of the virtual phone: the inventor's app (a card line and buttons 1-9) or cards in a row.

The rules are ``solver.flip9.State``'s. The first swap takes two button taps (card 1, then card
2); every later swap one tap, since the card that must move is already chosen. The comment line
says what the app expects: ``card 1: 6``, ``6 not valid.`` after a bad pick, ``Winner!``.

Under a real-phone profile the cards layout plays a swap (``animate``): the two cards change
places along arcs, one under the row and one over it, as CLS-CLS/Flip9 draws it
(src/cls/lytsiware/flipnine/ui/animation/SwapAnimation.java: two PathTransitions of 400 ms on
quadratic curves, eased both ways); the cards change at once, the picture follows. This app
takes a button meanwhile (a card swapped again mid-swap starts again from its place); that one
ignores every click while a swap plays (ui/ApplicationMouseHandler.java, swapCards: ``if
(app.fxAnimate.isRunning()) return;``), which is phonesim's ``--ignore-taps-while-animating``.
The inventor's line of digits is text: it changes at once.
"""

from __future__ import annotations

import math
import random
import time

import numpy as np

from phonesim.apps import choose, draw
from phonesim.apps.draw import cap_size
from phonesim.app import App, Preset, inside
from solver.flip9 import State


def deal(seed: int, number: int) -> tuple[int, ...]:
    """The ``number``-th deal of a seed: a shuffled, unsorted row of the nine cards."""
    rng = random.Random(f"flip9:{seed}:{number}")
    cards = list(range(1, 10))
    while cards == sorted(cards):
        rng.shuffle(cards)
    return tuple(cards)


class Flip9App(App):
    """Flip 9 on the virtual phone, in the "buttons" (inventor's) or "cards" layout."""

    # phonesim's own package (no one real app is this game): the assistant's game declares it
    PACKAGE = "org.phonesim.flip9"
    ACTIVITY = "org.phonesim.flip9.MainActivity"

    def __init__(self, preset: Preset, *, seed: int = 0, theme: str = "light", layout: str = "buttons"):
        self.preset, self.seed, self.layout = preset, seed, layout
        self.theme = draw.THEMES[theme]
        self.clock = time.monotonic  # tests and fixtures put a fixed clock here
        self.deals = 0
        self.unit = preset.width / 10
        self._static: np.ndarray | None = None
        self._cards: dict[tuple, np.ndarray] = {}
        self.swap_s = 0.0  # seconds two cards take to change places (0: at once)
        # the cards still on their way: (start, from position, to position, card) each
        self._swaps: list[tuple[float, int, int, int]] = []
        self.new_deal()

    def animate(self, durations: dict[str, float], banner: bool = False) -> None:
        """Play a swap for the profile's length in the cards layout (the line of digits is text)."""
        self.swap_s = durations.get("swap", 0.0) if self.layout == "cards" else 0.0

    # -- the game --------------------------------------------------------------------------

    def new_deal(self) -> None:
        self.deals += 1
        self.state = State(deal(self.seed, self.deals))
        self.picked: int | None = None  # card 1 of the first swap, before it is made
        self.moves = 0
        self.comment = ""
        self.started = self.clock()
        self.stopped: float | None = None

    def press(self, value: int) -> None:
        """Button ``value``: pick card 1 of the first swap, or swap with the card that must move."""
        state = self.state
        if state.is_won():
            return
        first = state.must if state.must is not None else self.picked
        if first is None:
            self.picked = value
            self.comment = f"card 1: {value}"
            return
        if value == first:
            self.comment = f"{value} not valid."
            return
        if self.swap_s > 0:
            a, b = state.cards.index(first), state.cards.index(value)
            now = self.clock()
            self._swaps = [swap for swap in self._swaps if swap[3] not in (first, value)]
            self._swaps += [(now, a, b, first), (now, b, a, value)]
            self.animated_s += self.swap_s
        state.push((first, value))
        self.picked = None
        self.moves += 1
        if state.is_won():
            self.comment = "Winner!"
            self.stopped = self.clock()
        else:
            self.comment = f"card 1: {state.must}"

    def _swapping(self, now: float | None = None) -> list[tuple[int, int, int, float]]:
        """The cards on their way now: (from position, to position, card, progress 0-1) each."""
        self._swaps, swapping = draw.under_way(self._swaps, self.clock() if now is None else now, self.swap_s)
        return swapping

    def motion(self, now: float | None = None) -> str | None:
        """The animation playing now ("swap"), None when the screen is still."""
        return "swap" if self._swapping(now) else None

    def moving_cards(self, now: float | None = None) -> set[int]:
        """The cards on their way now."""
        return {card for _, _, card, _ in self._swapping(now)}

    def elapsed(self) -> int:
        end = self.stopped if self.stopped is not None else self.clock()
        return max(0, int(end - self.started))

    # -- the phone's events ----------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        for name, rect in self.buttons().items():
            if inside(rect, x, y):
                if name == "new":
                    self.new_deal()
                else:
                    self.press(int(name))
                return

    def landed(self, x: int, y: int) -> str:
        """What a tap at (x, y) lands on (phonesim.app.TAP_TARGETS): a button or nothing."""
        return "button" if any(inside(rect, x, y) for rect in self.buttons().values()) else "nothing"

    # -- geometry --------------------------------------------------------------------------

    def _y(self, units: float) -> int:
        return round(self.preset.status_bar + units * self.unit)

    def buttons(self) -> dict[str, list[int]]:
        u, W = self.unit, self.preset.width
        out = {}
        if self.layout == "buttons":
            # three rows of three, as the inventor's app lays them out
            bw, bh, gap = round(2.6 * u), round(1.3 * u), round(0.3 * u)
            left = (W - 3 * bw - 2 * gap) // 2
            top = self._y(3.6)
            for v in range(1, 10):
                r, c = divmod(v - 1, 3)
                out[str(v)] = [left + c * (bw + gap), top + r * (bh + gap), bw, bh]
            out["new"] = [(W - bw) // 2, self._y(12.6), bw, bh]
        else:
            # one row of nine under the cards
            gap = max(2, round(0.12 * u))
            bw = (W - round(0.6 * u) - 8 * gap) // 9
            bh = round(1.2 * u)
            left = (W - 9 * bw - 8 * gap) // 2
            for v in range(1, 10):
                out[str(v)] = [left + (v - 1) * (bw + gap), self._y(5.0), bw, bh]
            out["new"] = [(W - round(2.6 * u)) // 2, self._y(9.0), round(2.6 * u), bh]
        return out

    def _line_font(self) -> int:
        return cap_size(self.preset.font, 0.42 * self.unit)

    def card_rects(self) -> dict[str, list[int]]:
        """Where each position's card is drawn: its digit in the line, or the card itself."""
        u, W = self.unit, self.preset.width
        if self.layout == "cards":
            gap = max(2, round(0.15 * u))
            cw = (W - round(0.6 * u) - 8 * gap) // 9
            ch = round(1.5 * cw)
            left = (W - 9 * cw - 8 * gap) // 2
            return {str(k): [left + k * (cw + gap), self._y(2.6), cw, ch] for k in range(9)}
        family, size = self.preset.font, self._line_font()
        text = self.line_text()
        m = draw.text_mask(family, "regular", size, text)
        x0 = (W - m.advance) / 2
        baseline = self._line_baseline()
        out = {}
        for k in range(9):
            prefix = text[:1 + 3 * k]  # "[" then "d, " per card
            x = x0 + draw.font(family, "regular", size).getlength(prefix)
            d = draw.text_mask(family, "regular", size, str(self.state.cards[k]))
            out[str(k)] = [round(x + d.left), round(baseline + d.top), d.width, d.height]
        return out

    def _line_baseline(self) -> int:
        return self._y(1.9) + round(0.21 * self.unit)

    def line_text(self) -> str:
        return "[" + ", ".join(map(str, self.state.cards)) + "]"

    def truth(self) -> dict:
        return {
            "game": "flip9", "preset": self.preset.name, "theme": self.theme.name, "layout": self.layout,
            "screen": "board", "state": self.state.to_json(), "moves": self.moves, "comment": self.comment,
            "buttons": self.buttons(), "cards": self.card_rects(),
        }

    # -- drawing ---------------------------------------------------------------------------

    def _title(self, screen) -> None:
        """The inventor's app has a plain title bar; the cards layout a centred heading."""
        u, W, t, family = self.unit, self.preset.width, self.theme, self.preset.font
        sb = self.preset.status_bar
        if self.layout == "buttons":
            bar = (63, 81, 181) if t.name == "light" else (38, 50, 56)
            draw.fill_rect(screen, 0, sb, W, round(1.1 * u), bar)
            draw.put_text(screen, family, "regular", cap_size(family, 0.36 * u), "Flip 9", round(0.4 * u),
                          sb + round(0.55 * u), (255, 255, 255), valign="middle")
        else:
            draw.put_text_centered(screen, family, "bold", cap_size(family, 0.45 * u), "Flip 9", W // 2,
                                   sb + round(1.0 * u), t.rgb("text"))

    def _static_layer(self) -> np.ndarray:
        if self._static is None:
            screen = draw.blank(self.preset, self.theme)
            self._title(screen)
            family, t = self.preset.font, self.theme
            size = cap_size(family, 0.4 * self.unit)
            for name, (x, y, w, h) in self.buttons().items():
                draw.put_rounded_rect(screen, x, y, w, h, max(3, round(0.08 * self.unit)), t.rgb("key"))
                draw.put_text_centered(screen, family, "medium", size, "New" if name == "new" else name,
                                       x + w // 2, y + h // 2, t.rgb("key_text"))
            screen.setflags(write=False)
            self._static = screen
        return self._static

    def _card(self, value: int, chosen: bool, w: int, h: int) -> np.ndarray:
        """A card's picture (cached): a rounded face with its digit, edged in blue when chosen."""
        key = (value, chosen, w, h)
        tile = self._cards.get(key)
        if tile is None:
            t, family = self.theme, self.preset.font
            tile = np.empty((h, w, 3), np.uint8)
            tile[...] = t.rgb("background")
            r = max(3, round(0.12 * w))
            draw.put_rounded_rect(tile, 0, 0, w, h, r, t.rgb("accent" if chosen else "card_edge"))
            b = max(2, round(0.05 * w)) * (2 if chosen else 1)
            draw.put_rounded_rect(tile, b, b, w - 2 * b, h - 2 * b, max(2, r - b), t.rgb("card"))
            draw.put_text_centered(tile, family, "bold", cap_size(family, 0.5 * self.unit), str(value),
                                   w // 2, h // 2, t.rgb("text"))
            self._cards[key] = tile
        return tile

    def render(self) -> np.ndarray:
        u, W, t, family = self.unit, self.preset.width, self.theme, self.preset.font
        screen = self._static_layer().copy()
        text = t.rgb("text")
        chosen = self.state.must if self.state.must is not None else self.picked
        if self.state.is_won():
            chosen = None  # the game is won: no card waits for a swap
        if self.layout == "buttons":
            draw.put_text(screen, family, "regular", self._line_font(), self.line_text(), W / 2,
                          self._line_baseline(), text, align="center")
            comment_y, info_y = self._y(9.2), self._y(10.4)
        else:
            rects, swapping = self.card_rects(), self._swapping()
            moving = {card for _, _, card, _ in swapping}  # their places stay empty until they arrive
            for k, (x, y, w, h) in rects.items():
                value = self.state.cards[int(k)]
                if value not in moving:
                    screen[y:y + h, x:x + w] = self._card(value, value == chosen, w, h)
            for source, target, card, progress in swapping:  # one under the row, one over it
                (ax, y, w, h), (zx, _, _, _) = rects[str(source)], rects[str(target)]
                lift = round(SWAP_ARC * h * math.sin(math.pi * progress)) * (1 if source < target else -1)
                x = round(ax + (zx - ax) * progress)
                screen[y + lift:y + lift + h, x:x + w] = self._card(card, card == chosen, w, h)
            comment_y, info_y = self._y(7.0), self._y(8.1)
        size = cap_size(family, 0.34 * u)
        if self.comment:
            draw.put_text_centered(screen, family, "regular", size, self.comment, W // 2, comment_y, text)
        seconds = self.elapsed()
        draw.put_text(screen, family, "regular", size, f"Moves: {self.moves}", round(0.8 * u), info_y, text,
                      valign="middle")
        draw.put_text(screen, family, "regular", size, f"Time: {seconds // 60}:{seconds % 60:02d}",
                      W - round(0.8 * u), info_y, text, align="right", valign="middle")
        return screen

    # -- options and fixtures ----------------------------------------------------------------

    OPTIONS = {"layout": "buttons"}  # "buttons": the inventor's app; "cards": cards drawn in a row
    FIXTURES = """Flip 9 states, per layout (`buttons`: the inventor's app, `cards`): `fresh`, `midgame` (three
swaps, comment `card 1: N`), `notvalid` (then the card that must move tapped: `N not valid.`),
`winner` (the last swap made: `Winner!`)."""

    @classmethod
    def create(cls, preset, seed: int, theme: str, options: dict) -> "Flip9App":
        choose("layout", options["layout"], LAYOUTS)
        return cls(preset, seed=seed, theme=theme, layout=options["layout"])

    @classmethod
    def add_options(cls, parser, types) -> None:
        parser.add_argument("--layout", choices=LAYOUTS, default=cls.OPTIONS["layout"], help="Flip 9 layout")

    @classmethod
    def fixture_states(cls, preset, theme: str, seed: int):
        for layout in LAYOUTS:
            app = cls(preset, seed=seed, theme=theme, layout=layout)
            app.clock = lambda: 0.0
            app.new_deal()
            yield f"{layout}_fresh", app
            app.clock = lambda: 47.0
            cards = app.state.cards
            buttons = app.truth()["buttons"]
            # the first swap takes two taps, then one tap per swap (with any card but the one that must move)
            app.tap_rect(buttons[str(cards[0])])
            app.tap_rect(buttons[str(cards[4])])
            for wanted in (2, 7):
                app.tap_rect(buttons[str(wanted if wanted != app.state.must else wanted + 1)])
            yield f"{layout}_midgame", app
            app.tap_rect(buttons[str(app.state.must)])  # the card that must move: "N not valid."
            yield f"{layout}_notvalid", app
            # one swap from sorted: the last tap wins
            app.state = State.parse("123456798")
            app.tap_rect(buttons["9"])
            app.tap_rect(buttons["8"])
            app.clock = lambda: 95.0
            yield f"{layout}_winner", app


LAYOUTS = ("buttons", "cards")
# how far a swapping card leaves the row at the middle of its way, in card heights (clear of the
# buttons under the row)
SWAP_ARC = 0.4
APP = Flip9App
