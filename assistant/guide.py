"""`tapsolve guide`: shows the next move over the live screenshot and follows the player."""

from __future__ import annotations

import html
import os
import time
from pathlib import Path

import cv2
import numpy as np

from assistant import display, overlay
from assistant.loop import Loop
from assistant.options import GUIDE_KEYS as KEYS
from solver.errors import InputError, TapsolveError

WINDOW = "tapsolve guide"
# The window's size when it opens (it can be resized, keeping its shape): it fits a 1366x768
# laptop's screen with its title bar and the desktop's panel, its text at TEXT_SCALE (capitals
# about 17 pixels tall: read at a glance) wrapped to its width.
WINDOW_SIZE = (560, 680)
TEXT_SCALE = 1.0


def open_window() -> None:
    """The guide's window, resizable keeping its shape, without OpenCV's Qt toolbar; Qt is
    pointed at the system's fonts (the opencv-python wheel ships none, and Qt complains on
    every start without them)."""
    os.environ.setdefault("QT_QPA_FONTDIR", "/usr/share/fonts/truetype/dejavu")
    cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL | cv2.WINDOW_KEEPRATIO | cv2.WINDOW_GUI_NORMAL)
    cv2.resizeWindow(WINDOW, *WINDOW_SIZE)


def show(image_rgb: np.ndarray) -> None:
    cv2.imshow(WINDOW, cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR))


def has_display() -> bool:
    return display.problem() is None  # a display Qt can use: one it cannot use aborts the process


def step_header(loop: Loop, offset: int = 0) -> list[str]:
    """The lines above the picture: which step, what to do, how the game stands then (a
    preview ``offset`` steps ahead: as the plan predicts it before that step)."""
    plan = loop.plan
    total = len(plan.moves) if plan else 0
    k = loop.step + offset
    position = planned_position(loop, k) if offset else loop.position
    if offset == 0 and loop.reading is not None and loop.reading.screen not in ("board", "stage_complete"):
        first = loop.door().waiting(loop.door().front)  # what the phone says is in front, not a stale move
    elif loop.reading is not None and loop.game.finished(loop.position, loop.reading):
        first = loop.game.won_header()
    elif plan is None or k >= total:
        first = "No move planned"
    else:
        first = f"Step {k + 1}/{total}: {loop.game.describe(position, plan.moves[k])}"
        if offset:
            first += "   (preview)"
    return [first, loop.game.progress(position)]


def planned_position(loop: Loop, k: int):
    """The position the plan predicts before its step k (k >= the current step)."""
    position = loop.position
    for move in loop.plan.moves[loop.step:k]:
        position = loop.game.after(position, move)
    return position


def picture(loop: Loop, offset: int) -> np.ndarray:
    """The step's picture: the live screen with the next move (or its unsure cells), or a planned step."""
    move = loop.next_move
    if offset == 0 and loop.reading.screen == "board" and not loop.reading.sure:
        return overlay.mark_unsure(loop.image, loop.reading)
    if offset == 0 and loop.reading.screen == "board" and move is not None:
        return loop.game.draw_next(loop.image, loop.reading, move)
    if offset and loop.plan and loop.step + offset < len(loop.plan.moves):
        k = loop.step + offset
        return loop.game.diagram(planned_position(loop, k), loop.plan.moves[k])
    return loop.image


def frame(loop: Loop, offset: int, paused: bool, size: tuple[int, int] = WINDOW_SIZE) -> np.ndarray:
    """What the window shows now (RGB, ``size`` pixels): the step's picture under its header and the keys."""
    header = step_header(loop, offset) + [KEYS]
    if paused:
        header[0] = "[paused] " + header[0]
    if offset == 0 and loop.reading.screen == "board" and not loop.reading.sure:
        header.append("not sure of: " + loop.reading.describe_unsure())
    return overlay.in_window(picture(loop, offset), header, size, TEXT_SCALE)


def follow(loop: Loop) -> str | None:
    """Read the phone once and move the plan along with what the player did."""
    shown_before = loop.reading.screen if loop.reading is not None else None
    reading = loop.look()
    if reading.screen == "stage_complete":
        return None
    if reading.screen != "board":  # the phone says what is in front (the door says it once)
        loop.door().tend(None, first=shown_before == "board")
        return None
    if not reading.sure:  # nothing is planned or judged on a guess
        return f"cannot read {reading.describe_unsure()} for sure: close anything over the board"
    if loop.plan is None or shown_before != "board":
        loop.replan(count=False)  # the first board, the next stage's, or back from a dialog
        return None
    move = loop.next_move
    if move is None:
        if not loop.game.same(loop.game.position(reading), loop.position):
            loop.replan()
        return None
    if loop.judge(move, reading) == "other":
        return "you made another move: plan made again from the board on screen"
    return None


def run_window(loop: Loop, poll: float = 0.3, say=print, max_seconds: float | None = None) -> int:
    """The guide window, until q, the window is closed, or max_seconds pass."""
    if not has_display():
        raise TapsolveError("no display for the guide window: run it on a desktop, or use --export DIR")
    loop.start()
    open_window()
    offset, paused, note = 0, False, None
    started = last = time.monotonic()
    try:
        while True:
            if not paused and time.monotonic() - last >= poll:
                last = time.monotonic()
                message = follow(loop)
                loop.show(loop.next_move)
                if message and message != note:
                    say(message)
                note = message or note
                if message:
                    offset = 0
            show(frame(loop, offset, paused))
            key = cv2.waitKey(50) & 0xFF
            if key == ord("q") or cv2.getWindowProperty(WINDOW, cv2.WND_PROP_VISIBLE) < 1:
                break
            if key == ord(" "):
                paused = not paused
            elif key == ord("n") and loop.plan and loop.step + offset + 1 < len(loop.plan.moves):
                offset += 1
            elif key == ord("p") and offset > 0:
                offset -= 1
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                break
    finally:
        cv2.destroyAllWindows()
        cv2.waitKey(1)
    say(closing_line(loop))
    return 0


def closing_line(loop: Loop) -> str:
    """What the guide says as it closes: the step the window showed, counted from 1 as it does."""
    total = len(loop.plan.moves) if loop.plan else 0
    if loop.step < total:
        return f"guide closed at step {loop.step + 1}/{total}"
    return f"guide closed after the last step ({total}/{total})" if total else "guide closed with no plan made"


def export_folder(folder: str | Path) -> Path:
    """The folder an export goes to, made if needed; a path that cannot be one is bad input."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the export to {folder}: {exc.strerror}; give a folder you can write") from None
    return folder


def export(loop: Loop, folder: str | Path, say=print) -> int:
    """Write the whole plan as step pictures, each on a page of its own that names its move and
    links to the previous and next (index.html the first: the phone now, with the first move)."""
    folder = export_folder(folder)
    reading = loop.start()
    if reading.screen != "board" or loop.plan is None:
        raise TapsolveError("no board on the phone to plan for")
    loop.show(loop.next_move)
    game, moves = loop.game, loop.plan.moves
    pages = len(moves) + 2  # the phone now, each step, the end
    now = step_header(loop)
    write_page(folder, 0, pages, picture(loop, 0), "On the phone now: " + now[0][:1].lower() + now[0][1:], now[1])
    position = loop.position
    for k, move in enumerate(moves, 1):
        write_page(folder, k, pages, game.diagram(position, move),
                   f"Step {k}/{len(moves)}: {game.describe(position, move)}", game.progress(position))
        position = game.after(position, move)
    end = f"Done: {game.won_word}" if loop.plan.status == "solved" else "The end of the plan"
    write_page(folder, pages - 1, pages, game.diagram(position, None), end, game.progress(position))
    say(f"wrote {pages} step pages to {folder}: open {folder / 'index.html'} in a browser")
    return 0


def page_name(k: int) -> str:
    return "index.html" if k == 0 else f"step-{k:03d}.html"


def write_page(folder: Path, k: int, pages: int, image: np.ndarray, title: str, progress: str) -> None:
    """Step ``k``'s picture (captioned: it may be shared alone) and its page."""
    save_png(folder / f"step-{k:03d}.png", overlay.caption(image, [title, progress]))
    (folder / page_name(k)).write_text(page_html(k, pages, title, progress))


def save_png(path: Path, image_rgb: np.ndarray) -> None:
    if not cv2.imwrite(str(path), cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR)):
        raise TapsolveError(f"cannot write {path}")


PAGE_STYLE = """body{margin:0;height:100vh;height:100dvh;display:flex;flex-direction:column;
 font-family:system-ui,sans-serif;background:#f4f5f7;color:#1e1e1e;text-align:center}
header{padding:.4em .8em}
h1{font-size:clamp(1.2rem,1rem + 1.2vw,1.9rem);margin:.2em 0;line-height:1.25}
p{margin:.2em 0;font-size:1.05rem;color:#444}
nav{display:flex;justify-content:space-between;align-items:center;max-width:32em;margin:.4em auto 0}
nav a{padding:.45em 1em;border-radius:.4em;background:#2b6cb0;color:#fff;text-decoration:none;font-size:1.1rem}
nav a:not([href]){visibility:hidden}
main{flex:1;min-height:0;display:flex;align-items:flex-start;justify-content:center;margin:.5em}
img{max-width:100%;max-height:100%;object-fit:contain}"""


def page_html(k: int, pages: int, title: str, progress: str) -> str:
    """One exported step's page: its move in words above the picture scaled to fit the screen,
    links to the previous and next step (the arrow keys follow them)."""
    def link(j: int, words: str, key: str) -> str:
        target = f' href="{page_name(j)}"' if 0 <= j < pages else ""
        return f'<a id="{key}"{target}>{words}</a>'

    t = html.escape(title)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{t} - tapsolve plan</title>
<style>{PAGE_STYLE}</style>
</head><body>
<header><h1>{t}</h1><p>{html.escape(progress)}</p>
<nav>{link(k - 1, "&larr; previous", "ArrowLeft")}<span>{k + 1} of {pages}</span>{link(k + 1, "next &rarr;", "ArrowRight")}</nav></header>
<main><img src="step-{k:03d}.png" alt="{t}"></main>
<script>
document.addEventListener("keydown", e => {{
  const a = document.getElementById(e.key);
  if (a && a.href) location.href = a.href;
}});
</script>
</body></html>
"""
