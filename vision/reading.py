"""What a read of one screenshot gives the assistant: the game, the screen, the board, geometry,
and what it could not read for sure (never guessed: a value not read is None and named)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Reading:
    """One screenshot read. Coordinates are in the image's own pixels (taps use them)."""

    game: str  # "numbermatch" or "flip9"
    screen: str  # "board", "stage_complete", "game_over", "unknown"
    board: object | None = None  # solver.numbermatch.Board of the visible cells
    state: object | None = None  # solver.flip9.State
    first_row: int = 0  # board row shown at the top of the grid
    more_above: bool = False
    more_below: bool = False
    cells: dict[int, tuple[int, int]] = field(default_factory=dict)  # index -> screen centre
    add_button: tuple[int, int] | None = None
    buttons: dict[str, tuple[int, int]] = field(default_factory=dict)
    selected: int | None = None
    unsure: list[int] = field(default_factory=list)  # cells not read for sure
    # why each unsure part was not read: cell indices (as text) and "adds_left", "stage",
    # "score", "rows", "screen", "cards", "must"
    unsure_why: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    theme: str = "light"
    pitch: float = 0.0  # cell size in pixels
    rows_visible: int = 0
    profile: object | None = None  # the vision.profile.Profile used and extended by this read
    profile_stale: bool = False  # a profile was given but did not fit this screen
    notes: list[str] = field(default_factory=list)

    def doubt(self, part, why: str) -> None:
        """Mark a cell (an index) or a part (a name) as not read for sure, saying why."""
        if isinstance(part, int) and part not in self.unsure:
            self.unsure.append(part)
            self.unsure.sort()
        self.unsure_why.setdefault(str(part), why)

    @property
    def parts_unsure(self) -> list[str]:
        """The names of the parts other than cells not read for sure."""
        return [k for k in self.unsure_why if not k.isdigit()]

    @property
    def sure(self) -> bool:
        """Every value was read for sure: the only kind of reading the assistant acts on."""
        return not self.unsure and not self.parts_unsure

    def describe_unsure(self, cells: int = 4) -> str:
        """What was not read for sure, in words: "row 2 column 3 (covered), the adds left (...)"."""
        out = []
        for i in self.unsure[:cells]:
            why = self.unsure_why.get(str(i))
            out.append(f"row {i // 9 + 1} column {i % 9 + 1}" + (f" ({why})" if why else ""))
        if len(self.unsure) > cells:
            out.append(f"{len(self.unsure) - cells} more cells")
        out += [f"the {k.replace('_', ' ')} ({self.unsure_why[k]})" for k in self.parts_unsure]
        return ", ".join(out)

    def to_json(self) -> dict:
        """The contract's board (or state) JSON plus the geometry, for `tapsolve read --json`;
        a value not read for sure is null and named in ``unsure`` with its reason in ``unsure_why``."""
        out = {"game": self.game, "screen": self.screen}
        if self.board is not None:
            out["board"] = self.board.to_json()
            base = self.first_row * 9
            for i in self.unsure:
                if 0 <= i - base < len(out["board"]["cells"]):
                    out["board"]["cells"][i - base] = None
        if self.state is not None:
            out["state"] = self.state.to_json()
        if self.game == "numbermatch":
            out.update({"first_row": self.first_row, "rows_visible": self.rows_visible,
                        "more_above": self.more_above, "more_below": self.more_below,
                        "selected": self.selected, "pitch": round(self.pitch, 2),
                        "add_button": list(self.add_button) if self.add_button else None})
        out["cells"] = {str(k): list(v) for k, v in self.cells.items()}
        out["buttons"] = {k: list(v) for k, v in self.buttons.items()}
        out["unsure"] = list(self.unsure) + self.parts_unsure
        out["unsure_why"] = dict(self.unsure_why)
        out["theme"] = self.theme
        out["seconds"] = round(self.seconds, 4)
        return out

    def text(self) -> str:
        """The board as board text (one row a line) with a line of facts, for `tapsolve read`."""
        if self.game == "flip9" and self.state is not None:
            s = self.state
            lines = [f"Flip 9: cards {s.format()}" + (f", must swap {s.must}" if s.must else "")]
        elif self.board is None:
            lines = [f"{'Flip 9' if self.game == 'flip9' else 'Number Match'}: {self.screen.replace('_', ' ')} screen"]
        else:
            b = self.board
            first = self.first_row
            # unsure cells show as "?": never a digit the reader is not sure of
            text = "".join("?" if first * 9 + k in self.unsure else ("." if c == 0 else str(c))
                           for k, c in enumerate(b.cells))
            rows = [text[k:k + 9] for k in range(0, len(text), 9)]
            known = lambda v: "?" if v is None else v  # noqa: E731
            lines = [f"Number Match, stage {known(b.stage)}, score {known(b.score)}, {known(b.adds_left)} adds left"
                     + (f" (rows {first + 1}-{first + len(rows)} shown)" if self.more_above or self.more_below else "")]
            lines += rows
            if self.selected is not None:
                lines.append(f"selected: cell {self.selected}")
        if not self.sure:
            lines.append("unsure: " + self.describe_unsure(cells=len(self.unsure)))
        return "\n".join(lines)
