"""What a read of one screenshot gives the assistant: the game, the screen, the board, geometry."""

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
    unsure: list[int] = field(default_factory=list)  # cells read with low confidence
    seconds: float = 0.0
    theme: str = "light"
    pitch: float = 0.0  # cell size in pixels
    rows_visible: int = 0
    profile: object | None = None  # the vision.profile.Profile used and extended by this read
    profile_stale: bool = False  # a profile was given but did not fit this screen
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The contract's board (or state) JSON plus the geometry, for `tapsolve read --json`."""
        out = {"game": self.game, "screen": self.screen}
        if self.board is not None:
            out["board"] = self.board.to_json()
        if self.state is not None:
            out["state"] = self.state.to_json()
        if self.game == "numbermatch":
            out.update({"first_row": self.first_row, "rows_visible": self.rows_visible,
                        "more_above": self.more_above, "more_below": self.more_below,
                        "selected": self.selected, "pitch": round(self.pitch, 2),
                        "add_button": list(self.add_button) if self.add_button else None})
        out["cells"] = {str(k): list(v) for k, v in self.cells.items()}
        out["buttons"] = {k: list(v) for k, v in self.buttons.items()}
        out["unsure"] = list(self.unsure)
        out["theme"] = self.theme
        out["seconds"] = round(self.seconds, 4)
        return out

    def text(self) -> str:
        """The board as board text (one row a line) with a line of facts, for `tapsolve read`."""
        if self.game == "flip9":
            s = self.state
            return f"Flip 9: cards {s.format()}" + (f", must swap {s.must}" if s.must else "")
        if self.board is None:
            return f"Number Match: {self.screen.replace('_', ' ')} screen"
        b = self.board
        rows = b.format().split()
        first = self.first_row
        lines = [f"Number Match, stage {b.stage}, score {b.score}, {b.adds_left} adds left"
                 + (f" (rows {first + 1}-{first + len(rows)} shown)" if self.more_above or self.more_below else "")]
        lines += rows
        if self.selected is not None:
            lines.append(f"selected: cell {self.selected}")
        if self.unsure:
            lines.append("unsure: " + ", ".join(f"cell {i} (row {i // 9 + 1}, column {i % 9 + 1})" for i in self.unsure))
        return "\n".join(lines)
