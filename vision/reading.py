"""What a read of one screenshot gives the assistant: the game, the screen, the board, geometry,
and what it could not read for sure (never guessed: a value not read is None and named)."""

from __future__ import annotations

from dataclasses import dataclass, field

from solver import games as registry


# The part a reader doubts when the screen shows what no still screen of its game does (caught
# in an animation): looked at again, never taken as the profile failing (assistant.session.recheck).
CAUGHT_MOVING = "animation"


@dataclass
class Reading:
    """One screenshot read. Coordinates are in the image's own pixels (taps use them)."""

    game: str  # a game's name in solver.games
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
    profile: object | None = None  # the vision.profile.Profile to keep: the one given (as it was), or one built
    learned: object | None = None  # a draft of ``profile`` with what this read learned (or the one built)
    profile_stale: bool = False  # a profile was given but did not fit this screen
    notes: list[str] = field(default_factory=list)
    # (x0, y0, x1, y1) of parts of the screen that change on their own (a clock): a link that
    # compares two frames to see whether an animation is over leaves them out
    ticking: list[tuple[int, int, int, int]] = field(default_factory=list)
    LISTED = 4  # how many cells unsure describe_unsure names (the rest are counted)
    PART_WORDS = {}  # a part unsure in words, where "the" and its name are not enough
    CELL = "cell"  # what the game calls a cell (its plural takes an s)
    NOT_READ = ""  # the reason given for a cell doubted without one

    def learn(self) -> None:
        """Take what this read learned into the profile it read with (the caller's step, never the read's)."""
        if self.learned is not None and self.learned is not self.profile:
            self.profile.learn(self.learned)

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

    def cell_words(self, i: int) -> str:
        """A cell (an index) as a person finds it on screen; each game's reading says it its way."""
        return f"cell {i}"

    def first_index(self) -> int:
        """The board index of the first cell on screen (0 unless the game scrolls its board)."""
        return 0

    def describe_unsure(self, cells: int | None = None) -> str:
        """What was not read for sure, in words, each reason said once for the cells it holds for:
        "row 2 column 3, row 2 column 4 (covered), the adds left (...)"; at most ``cells`` cells
        named (LISTED by default), the rest counted ("all 35 cells" when every cell on screen shares one
        reason)."""
        cells = self.LISTED if cells is None else cells
        by_why: dict[str, list[int]] = {}
        for i in self.unsure:
            by_why.setdefault(self.unsure_why.get(str(i), self.NOT_READ), []).append(i)
        out, room = [], cells
        for why, group in by_why.items():
            if len(group) > 1 and len(group) == len(self.cells) == len(self.unsure):
                words = [f"all {len(group)} {self.CELL}s"]
            else:
                words = [self.cell_words(i) for i in group[:room]]
                if len(group) > room:
                    n = len(group) - room
                    words.append(f"{n} more" if words else f"{n} {self.CELL}{'s' * (n != 1)}")
            room = max(0, room - len(group))
            out.append(", ".join(words) + (f" ({why})" if why else ""))
        out += [f"{self.PART_WORDS.get(k, 'the ' + k.replace('_', ' '))} ({self.unsure_why[k]})"
                for k in self.parts_unsure]
        return ", ".join(out)

    def to_json(self) -> dict:
        """The position's JSON as ``board`` (every game's, Flip 9's state too) plus the geometry, for
        `tapsolve read --json` (docs/json.md); a value not read for sure is null and named in
        ``unsure`` with its reason in ``unsure_why``."""
        out = {"game": self.game, "screen": self.screen}
        if self.board is not None:
            out["board"] = self.board.to_json()
            base = self.first_index()
            for i in self.unsure:
                if 0 <= i - base < len(out["board"]["cells"]):
                    out["board"]["cells"][i - base] = None
        if self.state is not None:
            out["board"] = self.state.to_json()
        out.update(self.layout_json(), cells={str(k): list(v) for k, v in self.cells.items()},
                   buttons={k: list(v) for k, v in self.buttons.items()}, unsure=list(self.unsure) + self.parts_unsure,
                   unsure_why=dict(self.unsure_why), theme=self.theme, seconds=round(self.seconds, 4))
        return out

    def layout_json(self) -> dict:
        """What a game's reading adds to the JSON about where its board is (none by default)."""
        return {}

    def lines(self) -> list[str]:
        """The board in text, one row a line, after a line of facts (default: the screen's name)."""
        title = registry.entry(self.game).title if self.game in registry.NAMES else self.game
        return [f"{title}: {self.screen.replace('_', ' ')} screen"]

    def refused(self) -> str:
        """The line saying which of the given profile's templates this read did not trust and
        why ("" when it trusted them all): their glyphs were read afresh (vision.profile.draft)."""
        words = self.learned.refusal() if self.learned is not None else ""
        return f"profile: {words} not trusted: those digits read afresh" if words else ""

    def text(self) -> str:
        """The board as board text (one row a line) with a line of facts, for `tapsolve read`;
        a line on the profile's templates when they were not trusted, and what was not read for sure."""
        lines = self.lines()
        if self.refused():
            lines.append(self.refused())
        if not self.sure:
            lines.append("unsure: " + self.describe_unsure(cells=len(self.unsure)))
        return "\n".join(lines)
