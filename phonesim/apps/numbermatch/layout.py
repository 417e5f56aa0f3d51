"""Where Number Match's screen puts things on a preset (header, grid, cells, buttons, banner): pure geometry."""

from __future__ import annotations

from dataclasses import dataclass

from phonesim.app import Preset

COLUMNS = 9
BANNER_DP = 50  # a standard banner ad is 320x50 dp


@dataclass(frozen=True)
class Layout:
    """Where everything sits on one preset's screen, in pixels (measured off the real game,
    in units of the cell: about 112 px on a 1080-wide phone)."""

    width: int
    height: int
    status_bar: int
    cell: int
    line: int  # grid line thickness
    border: int  # border thickness
    grid_x: int  # left border's centre; column k spans grid_x + k*cell .. + cell
    grid_top: int  # top border's centre; screen row k spans grid_top + k*cell .. + cell
    fade_start: int
    fade_end: int
    rows_fit: int  # whole rows between the top border and the fade
    toolbar_y: int  # centre line of the back arrow, coins and gear
    score_y: int  # baselines of the score, the header labels and their values
    label_y: int
    value_y: int
    panel_top: int | None  # a tablet shows a grey panel under the game card
    style: str  # the build's look: "current" or "2022" (see phonesim.app.Preset)
    add_center: tuple[int, int]
    hint_center: tuple[int, int]
    button_radius: int
    banner: int  # a banner ad's height (BANNER_DP at the preset's density)

    @classmethod
    def of(cls, preset: Preset) -> "Layout":
        W, H, sb = preset.width, preset.height, preset.status_bar
        # phones are tall enough for the width to set the cell; a tablet's height sets it
        cell = round(W * 0.104) if H / W >= 2 else round(H * 0.045)
        grid_x = (W - COLUMNS * cell) // 2
        tablet = H / W < 2
        panel_top = H - round(2.1 * cell) if tablet else None
        if preset.style == "2022":
            # measured off realshots/phone_216x475_stage10.jpg: a title bar, then the trophy score
            grid_top = sb + round(3.0 * cell)
            button_y = H - round(3.37 * cell)
            fade_end = button_y - round(1.25 * cell)
            look = dict(toolbar_y=sb + round(0.9 * cell), score_y=grid_top - round(1.15 * cell),
                        label_y=grid_top - round(0.8 * cell), value_y=grid_top - round(0.38 * cell),
                        panel_top=None, style="2022", hint_center=(W // 2 + round(2.9 * cell), button_y),
                        button_radius=round(0.72 * cell))
        else:
            grid_top = sb + round(2.6 * cell)
            button_y = panel_top - round(0.84 * cell) if tablet else H - round(3.2 * cell)
            fade_end = button_y - round(1.45 * cell)
            look = dict(toolbar_y=sb + round(0.28 * cell), score_y=grid_top - round(1.13 * cell),
                        label_y=grid_top - round(0.53 * cell), value_y=grid_top - round(0.23 * cell),
                        panel_top=panel_top, style="current", hint_center=(W // 2 + 2 * cell, button_y),
                        button_radius=round(0.54 * cell))
        fade_start = fade_end - round(0.42 * cell)
        return cls(
            width=W, height=H, status_bar=sb, cell=cell,
            line=max(1, round(cell / 40)), border=max(2, round(cell / 24)),
            grid_x=grid_x, grid_top=grid_top, fade_start=fade_start, fade_end=fade_end,
            rows_fit=(fade_start - grid_top) // cell, add_center=(W // 2, button_y),
            banner=round(BANNER_DP * preset.density / 160), **look,
        )

    def cell_rect(self, screen_row: int, column: int) -> list[int]:
        return [self.grid_x + column * self.cell, self.grid_top + screen_row * self.cell, self.cell, self.cell]

    def button_rect(self, center) -> list[int]:
        r = self.button_radius
        return [center[0] - r, center[1] - r, 2 * r, 2 * r]

    def on_grid(self, x: int, y: int) -> bool:
        """Whether (x, y) lies on the grid, a row cut by the top border or the fade included."""
        return self.grid_x <= x < self.grid_x + COLUMNS * self.cell and self.grid_top <= y < self.fade_end

    def grid_span(self) -> tuple[int, int, int, int]:
        """The scrolling part of the grid: x0, y0 (just under the top border), x1, y1 (the fade's end)."""
        b, x = self.border, self.grid_x
        return x - b // 2, self.grid_top - b // 2 + b, x + COLUMNS * self.cell - b // 2 + b, self.fade_end

    def banner_rect(self) -> list[int]:
        return [0, self.height - self.banner, self.width, self.banner]

    def message_button(self) -> list[int]:
        """The stage-complete screen's "Continue" and the game-over screen's "New game"."""
        bw, bh = round(5.5 * self.cell), round(1.05 * self.cell)
        return [(self.width - bw) // 2, round(self.height * 0.72), bw, bh]
