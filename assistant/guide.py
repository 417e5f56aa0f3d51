"""`tapsolve guide`: shows the next move over the live screenshot and follows the player."""

from __future__ import annotations

import html
import os
import time
from pathlib import Path

import cv2
import numpy as np

from assistant import overlay
from assistant.loop import Loop
from assistant.options import GUIDE_KEYS as KEYS
from solver.errors import InputError, TapsolveError

WINDOW = "tapsolve guide"


def open_window() -> None:
    """The guide's window, without OpenCV's Qt toolbar; Qt is pointed at the system's fonts
    (the opencv-python wheel ships none, and Qt complains on every start without them)."""
    os.environ.setdefault("QT_QPA_FONTDIR", "/usr/share/fonts/truetype/dejavu")
    cv2.namedWindow(WINDOW, cv2.WINDOW_AUTOSIZE | cv2.WINDOW_GUI_NORMAL)


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def step_header(loop: Loop, offset: int = 0) -> list[str]:
    """The lines above the picture: which step, what to do, how the game stands."""
    plan = loop.plan
    total = len(plan.moves) if plan else 0
    k = loop.step + offset
    if loop.reading is not None and loop.game.finished(loop.position, loop.reading):
        first = loop.game.won_header()
    elif plan is None or k >= total:
        first = "No move planned"
    else:
        position = planned_position(loop, k)
        first = f"Step {k + 1}/{total}: {loop.game.describe(position, plan.moves[k])}"
        if offset:
            first += "   (preview)"
    return [first, loop.game.progress(loop.position), KEYS]


def planned_position(loop: Loop, k: int):
    """The position the plan predicts before its step k (k >= the current step)."""
    position = loop.position
    for move in loop.plan.moves[loop.step:k]:
        position = loop.game.after(position, move)
    return position


def frame(loop: Loop, offset: int, paused: bool) -> np.ndarray:
    """What the window shows now: the live screen with the next move, or a planned step."""
    header = step_header(loop, offset)
    if paused:
        header[0] = "[paused] " + header[0]
    move = loop.next_move
    if offset == 0 and loop.reading.screen == "board" and not loop.reading.sure:
        return overlay.caption(overlay.mark_unsure(loop.image, loop.reading),
                               header + ["not sure of: " + loop.reading.describe_unsure()])
    if offset == 0 and loop.reading.screen == "board" and move is not None:
        return overlay.draw_on_screen(loop.image, loop.reading, move, loop.game, header)
    if offset and loop.plan and loop.step + offset < len(loop.plan.moves):
        k = loop.step + offset
        return overlay.caption(loop.game.diagram(planned_position(loop, k), loop.plan.moves[k]), header)
    return overlay.caption(loop.image, header)


def fit(image: np.ndarray, height: int = 900) -> np.ndarray:
    """Scaled to a window's height, as BGR for OpenCV's window."""
    scale = min(1.0, height / image.shape[0])
    if scale < 1:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(image, cv2.COLOR_RGB2BGR)


def follow(loop: Loop) -> str | None:
    """Read the phone once and move the plan along with what the player did."""
    shown_before = loop.reading.screen if loop.reading is not None else None
    reading = loop.look()
    if reading.screen == "stage_complete":
        return None
    if reading.screen != "board":
        return "the phone shows something that is not a board"
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
            cv2.imshow(WINDOW, fit(frame(loop, offset, paused)))
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
    say(f"guide closed at step {loop.step}/{len(loop.plan.moves) if loop.plan else 0}")
    return 0


def export_folder(folder: str | Path) -> Path:
    """The folder an export goes to, made if needed; a path that cannot be one is bad input."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot write the export to {folder}: {exc.strerror}; give a folder you can write") from None
    return folder


def export(loop: Loop, folder: str | Path, say=print) -> int:
    """Write the whole plan as step PNGs and an index.html that pages through them."""
    folder = export_folder(folder)
    reading = loop.start()
    if reading.screen != "board" or loop.plan is None:
        raise TapsolveError("no board on the phone to plan for")
    loop.show(loop.next_move)
    pages = []

    def page(image, title):  # the next step-NNN.png
        pages.append((f"step-{len(pages):03d}.png", title))
        save_png(folder / pages[-1][0], image)

    page(overlay.draw_on_screen(loop.image, loop.reading, loop.next_move, loop.game, step_header(loop))
         if loop.next_move is not None else overlay.caption(loop.image, step_header(loop)),
         "The phone now, with the first move")
    position = loop.position
    total = len(loop.plan.moves)
    for k, move in enumerate(loop.plan.moves, 1):
        title = f"Step {k}/{total}: {loop.game.describe(position, move)}"
        page(overlay.caption(loop.game.diagram(position, move), [title, loop.game.progress(position)]), title)
        position = loop.game.after(position, move)
    page(overlay.caption(loop.game.diagram(position, None), ["Done", loop.game.progress(position)]), "Done")
    (folder / "index.html").write_text(index_html(pages))
    say(f"wrote {len(pages)} step pictures and index.html to {folder}")
    return 0


def save_png(path: Path, image_rgb: np.ndarray) -> None:
    if not cv2.imwrite(str(path), cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR)):
        raise TapsolveError(f"cannot write {path}")


def index_html(pages: list[tuple[str, str]]) -> str:
    items = ",\n".join(f'  ["{html.escape(n)}", "{html.escape(t)}"]' for n, t in pages)
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>tapsolve plan</title>
<style>body{{font-family:sans-serif;text-align:center}} img{{max-height:80vh;max-width:95vw}}</style>
</head><body>
<h2 id="title"></h2>
<p><button id="prev">&larr; previous</button> <span id="count"></span> <button id="next">next &rarr;</button></p>
<img id="step" alt="step">
<script>
const pages = [
{items}
];
let k = 0;
function show() {{
  document.getElementById("step").src = pages[k][0];
  document.getElementById("title").textContent = pages[k][1];
  document.getElementById("count").textContent = (k + 1) + " / " + pages.length;
}}
document.getElementById("prev").onclick = () => {{ if (k > 0) {{ k--; show(); }} }};
document.getElementById("next").onclick = () => {{ if (k < pages.length - 1) {{ k++; show(); }} }};
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowRight") document.getElementById("next").click();
  if (e.key === "ArrowLeft") document.getElementById("prev").click();
}});
show();
</script>
<noscript>{"".join(f'<p><img src="{html.escape(n)}" alt="{html.escape(t)}"></p>' for n, t in pages)}</noscript>
</body></html>
"""
