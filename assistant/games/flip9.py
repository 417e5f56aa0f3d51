"""Flip 9 as the assistant plays it: plan the fewest swaps, tap the card buttons, draw a swap."""

from __future__ import annotations

import copy
import time
from dataclasses import replace

import numpy as np

from assistant.games import Game, InPlace, Plan
from solver import flip9
from solver.errors import TapsolveError
from solver.words import count


# A card's box, in card pitches (the distance between two cards' centres): as wide as a card
# (a digit of the line of digits, and the room about it), a card's height (1.5 of its width)
CARD_WIDE = 0.9
CARD_TALL = 1.5
# How far a card on its way to its new place may leave the row, in card heights, over or under it
SWAP_ARC = 0.6


class Flip9(Game):
    """Flip 9: a position is a State; a move is a swap (a, b) by card values."""

    name = "flip9"
    APP_PACKAGES = ("org.phonesim.flip9",)  # the virtual phone's app (no one real app is known)
    moves_word = "swaps"
    won_word = "sorted"

    def position(self, reading) -> flip9.State:
        return flip9.State(reading.state.cards, reading.state.must)

    def plan(self, state: flip9.State) -> Plan:
        return Plan(flip9.solve(state), "solved", optimal=True)

    @staticmethod
    def prepare() -> None:
        flip9.solve(flip9.State.parse("213456789"))  # the distance table and the compiled walk

    @staticmethod
    def add_bench_play_options(parser) -> None:
        parser.add_argument("--layout", choices=("buttons", "cards"), default="buttons",
                            help="Flip 9: the inventor's line of digits, or cards that swap (as `tapsolve phone --layout`)")

    def same(self, seen: flip9.State, expected: flip9.State) -> bool:
        return seen.cards == expected.cards and (seen.must == expected.must or seen.is_won())

    def finished(self, state: flip9.State | None, reading) -> bool:
        return reading.screen == "stage_complete" or (state is not None and state.is_won())

    def tap_points(self, move, reading) -> list[tuple[int, int]]:
        a, b = move
        buttons = reading.buttons
        if str(a) not in buttons or str(b) not in buttons:
            raise TapsolveError("the card buttons are not on screen")
        must = reading.state.must
        if must == a:
            return [buttons[str(b)]]
        if must == b:
            return [buttons[str(a)]]
        return [buttons[str(a)], buttons[str(b)]]

    def planned_tap_points(self, move, state: flip9.State, reading) -> list[tuple[tuple[int, int], str]]:
        shown = copy.copy(reading)  # the screen read at the start, with the card that must move by then
        shown.state = type(reading.state)(reading.state.cards, state.must)
        return [(point, "") for point in self.tap_points(move, shown)]

    def animation(self, state, move) -> str:
        return "swap"

    def in_place(self, state: flip9.State, move, reading) -> InPlace | None:
        """A swap changes its two cards' places in the row; on their way they may pass over the
        cards between them, a card's height over or under the row (CLS-CLS/Flip9's arcs), so that
        band may change too (aside), as may the card outlined as the one that must move and all under the
        buttons (the comment, the moves, the time). A next touch waits out the two cards'
        buttons (a swap of a card on its way), and every button when the card that must move is
        one of the two: a swap of two other cards goes at once. The swap that sorts too."""
        cells, buttons = reading.cells, reading.buttons
        keys = [buttons.get(str(card)) for card in range(1, 10)]
        if reading.screen != "board" or reading.state is None or len(cells) != 9 or None in keys:
            return None
        after = self.after(state, move)
        pitch = (cells[8][0] - cells[0][0]) / 8
        half_w, half_h = pitch * CARD_WIDE / 2, pitch * CARD_TALL / 2

        def box(x, y, w=half_w, h=half_h):
            return round(x - w), round(y - h), round(x + w), round(y + h)

        a, b = move
        (xa, ya), (xb, yb) = cells[state.cards.index(a)], cells[state.cards.index(b)]
        parts = [box(xa, ya), box(xb, yb)]
        band = box((xa + xb) / 2, (ya + yb) / 2, abs(xb - xa) / 2 + half_w, half_h * (1 + 2 * SWAP_ARC))
        below = (0, round(max(y for _, y in keys) + pitch), 1 << 20, 1 << 20)
        aside = [band, below] + ([box(*cells[after.cards.index(after.must)])] if after.must is not None else [])
        moving = range(1, 10) if after.must in move else move
        reach = [box(*buttons[str(card)], pitch / 2, pitch / 2) for card in moving]
        return InPlace(parts, aside, replace(reading, state=after), reach=reach, shows="moving")

    def describe(self, state: flip9.State, move) -> str:
        return f"swap {move[0]} and {move[1]}"

    def progress(self, state: flip9.State) -> str:
        return f"cards {state.format()}" + (f", must swap {state.must}" if state.must else "")

    def where(self, cell: int, reading) -> str:
        return f"card {cell + 1}"

    def draw_next(self, image: np.ndarray, reading, move) -> np.ndarray:
        from assistant import overlay

        buttons = reading.buttons
        size = overlay.cell_pitch({k: v for k, v in buttons.items() if k.isdigit()})
        points = [buttons[str(c)] for c in move] if move else []
        return overlay.mark_points(image, points, size, False)

    def diagram(self, state: flip9.State, move, cell: int = 64) -> np.ndarray:
        """A clean drawing of the nine Flip 9 cards with the swap's cards highlighted."""
        import cv2
        from assistant import overlay

        image = np.full((cell * 2, cell * 10, 3), 255, np.uint8)
        centres = {}
        for k, value in enumerate(state.cards):
            x0, y0 = cell // 2 + k * cell, cell // 2
            cv2.rectangle(image, (x0 + 3, y0), (x0 + cell - 3, y0 + cell), (180, 190, 205), 2)
            cv2.putText(image, str(value), (x0 + cell // 3, y0 + int(cell * 0.7)), cv2.FONT_HERSHEY_SIMPLEX,
                        cell / 40, overlay.INK, 2, cv2.LINE_AA)
            centres[value] = (x0 + cell // 2, y0 + cell // 2)
        if move:
            image = overlay.mark_points(image, [centres[c] for c in move], cell, True)
        return image


# -- `tapsolve solve flip9` -------------------------------------------------------------------

def add_solve_command(games) -> None:
    """Register `tapsolve solve flip9` on the `solve` command's games."""
    from assistant.options import card

    f9 = games.add_parser(Flip9.name, help="Flip 9: sort the cards in the fewest swaps")
    f9.add_argument("cards", help="the cards in order: 315927486 or 3,1,5,9,2,7,4,8,6")
    f9.add_argument("--must", type=card, default=None, help="the card the next swap must include")
    f9.add_argument("--json", action="store_true", help="print the Solution JSON")
    f9.set_defaults(run=solve_flip9)


def solution(state) -> dict:
    """The Solution JSON of `tapsolve solve flip9 --json` (docs/json.md): a fewest-swaps line."""
    t0 = time.perf_counter()
    swaps = flip9.solve(state)
    return {"game": Flip9.name, "board": state.to_json(), "status": "solved", "moves": [{"swap": list(s)} for s in swaps],
            "seconds": round(time.perf_counter() - t0, 4), "optimal": True}


def solve_json(board: str | dict, objective: str = "fast", budget: float = 1.0) -> dict:
    """``solution`` for cards as text or board JSON: ``tapsolve.solve``'s (every line is the fewest swaps)."""
    return solution(flip9.State.from_json(board) if isinstance(board, dict) else flip9.State.parse(board))


def solve_flip9(args) -> int:
    from assistant.options import print_json

    state = flip9.State.parse(args.cards, must=args.must)
    out = solution(state)
    if args.json:
        print_json(args, out)
        return 0
    print(f"Cards {state.format()}" + (f", must swap {state.must}" if state.must else ""))
    swaps = [move["swap"] for move in out["moves"]]
    for step, (a, b) in enumerate(swaps, 1):
        state.push((a, b))
        print(f"{step:3d}. swap {a} and {b}  -> {state.format()}")
    print(f"{count(len(swaps), 'swaps')} (optimal)")
    return 0


GAME = Flip9
