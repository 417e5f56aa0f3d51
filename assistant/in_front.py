"""What is in front on the phone, named one way for every command (`read`, `guide`, `play`, the
API): the board, a stage's end, the game over, a dialog of the game with its buttons, an ad,
another app, the lock screen, a screen off; and the one line each says about it: what is in front
and what to do (the guide, `read`, `--no-dismiss`) or what tapsolve does about it (play).

The screen read (``vision.Reading.screen``) names what the picture shows; the phone's own answer
(``assistant.phone.front.Front``, asked only when no board shows) names what no picture can:
an ad SDK's activity, another app, the lock screen, a screen off.

>>> from vision import Reading
>>> InFront.of(Reading("", "dialog", buttons={"rate_now": (1, 1), "not_now": (2, 2)})).line()
'a dialog of the game is in front ("Rate now", "Not now"): close it with "Not now" on the phone and I will go on'
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.games import kind
from assistant.phone.front import AD, APP, GAME, LOCKED, OFF, UNKNOWN, Front
from solver import games as registry

BOARD, STAGE_COMPLETE, GAME_OVER, DIALOG = "board", "stage_complete", "game_over", "dialog"
# the only buttons play presses on a dialog of the game: each closes it without buying, rating
# or watching
DISMISS_WORDS = ("not now", "later", "no thanks", "close", "continue")
GO_ON = "I will go on"  # what follows the player's part while tapsolve watches the phone
RUN_AGAIN = "run again"  # ... and after a screenshot read once (`read`)


@dataclass(frozen=True)
class InFront:
    """What is in front: ``kind`` one of BOARD, STAGE_COMPLETE, GAME_OVER, DIALOG, AD, APP, LOCKED,
    OFF, UNKNOWN; a dialog's ``buttons`` (labels as read: "not now") with their centres; the
    phone's answer, when it was asked."""

    kind: str
    buttons: tuple = ()  # ((label, (x, y)), ...)
    front: Front | None = None
    won: str = ""  # a stage's end of a game with no next stage: its word for a won board ("solved")

    @classmethod
    def of(cls, reading, front: Front | None = None) -> "InFront":
        """From the screen read (None: not read) and the phone's answer (None: not asked): what
        the phone names that no picture can (an ad SDK's activity, another app, the lock screen,
        the screen off) first, else what the picture shows (a board, a stage's end, a dialog)."""
        screen = reading.screen if reading is not None else UNKNOWN
        if front is not None and front.kind not in (GAME, UNKNOWN):
            return cls(front.kind, (), front)
        if screen in (BOARD, STAGE_COMPLETE, GAME_OVER, DIALOG):
            buttons = tuple((label.replace("_", " "), centre) for label, centre in reading.buttons.items())
            game = kind(reading.game) if reading.game in registry.NAMES else None
            won = game.won_word if game is not None and not game.more_stages else ""
            return cls(screen, buttons, front, won)
        return cls(AD if screen == AD else UNKNOWN, (), front)

    @property
    def dismiss(self) -> tuple[str, tuple[int, int]] | None:
        """A dialog's button that only closes it (label, centre), else None."""
        found = dict(self.buttons)
        return next(((word, found[word]) for word in DISMISS_WORDS if word in found), None)

    def line(self, act: bool = False, then: str = GO_ON, dry: bool = False) -> str:
        """The one line for it: what is in front and what to do (``then``: what follows the
        player's part), or, with ``act`` (play), what tapsolve does about it; ``dry``: what play
        would do (`play --dry-run`)."""
        kind, front = self.kind, self.front
        if kind == STAGE_COMPLETE and self.won:  # (the game is over, won: no next stage)
            return f"{self.won.capitalize()}!" if then == GO_ON and not dry else f"{self.won}: no move left to play"
        if kind == STAGE_COMPLETE and dry:
            return "stage complete: play presses Continue and plays the next stage (a dry run taps nothing)"
        if kind == STAGE_COMPLETE:
            return ("stage complete: pressing Continue for the next stage" if act else
                    "stage complete: press Continue on the phone for the next stage"
                    + (" and I will guide it" if then == GO_ON else ", then run again"))
        if kind == GAME_OVER:
            return "the game is over on the phone (no pair and no add left): start a new game and " + then
        if kind == DIALOG:
            labels = ", ".join(f'"{label.capitalize()}"' for label, _ in self.buttons)
            shown = f"a dialog of the game is in front ({labels})"
            dismiss = self.dismiss
            if dismiss is None:
                return (f"{shown}, none of them a button I close dialogs with ({', '.join(DISMISS_WORDS)}): "
                        f"close it on the phone and {then}")
            word = dismiss[0].capitalize()
            if dry:
                return f'{shown}: play closes it with "{word}" (a dry run taps nothing)'
            return f'{shown}: closing it with "{word}"' if act else \
                f'{shown}: close it with "{word}" on the phone and {then}'
        if kind == AD:
            what = str(front) if front is not None and front.kind == AD else "an ad"
            return f"{what} is showing: waiting until BACK closes it" if act else \
                f"an ad is showing: close it on the phone and {then}"
        if kind == APP:
            return f"{front} is in front of the game: bring the game back on the phone and {then}"
        if kind == LOCKED:
            return f"the phone is locked: unlock it and {then}"
        if kind == OFF:
            return f"the phone's screen is off: turn it on and unlock it, and {then}"
        if kind == BOARD:
            return "the game's board"
        if front is not None and front.kind == GAME:
            return f"the game shows a screen that is not its board: bring the board back on the phone and {then}"
        return f"the phone shows no board nor anything I know: open the game on it and {then}"
