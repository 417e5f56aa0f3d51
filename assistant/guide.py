"""`tapsolve guide`: shows the next move over the live screenshot and follows the player."""

from __future__ import annotations

import html
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from assistant import display, overlay
from assistant.loop import Loop
from assistant.options import GUIDE_KEYS as KEYS
from solver import platforms, words
from solver.errors import InputError, TapsolveError
from solver.files import shown
from vision.image import save_png

WINDOW = "tapsolve guide"
# The window's size when it opens (it can be resized, keeping its shape): it fits a 1366x768
# laptop's screen with its title bar and the desktop's panel, its text at TEXT_SCALE (capitals
# about 17 pixels tall: read at a glance) wrapped to its width.
WINDOW_SIZE = (560, 680)
TEXT_SCALE = 1.0
NO_PICTURE = (800, 360, 3)  # a phone-shaped blank picture shown before the first capture
CONNECTING = "connecting to the phone..."  # the window's first words, shown before the phone answers
# ms the window waits for a key between two pictures: a 60 Hz video feed is shown at up to
# 1000 / (this + the drawing) frames a second, well above the 15 aimed at
MIRROR_WAIT_MS = 10


def open_window() -> None:
    """The guide's window, resizable keeping its shape, without OpenCV's Qt toolbar; Qt is
    pointed at the system's fonts (the opencv-python wheel ships none, and Qt complains on
    every start without them)."""
    if platforms.X11:  # (Qt draws the window there only)
        os.environ.setdefault("QT_QPA_FONTDIR", str(platforms.font_folders()[0] / "dejavu"))
    cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL | cv2.WINDOW_KEEPRATIO | cv2.WINDOW_GUI_NORMAL)
    cv2.resizeWindow(WINDOW, *WINDOW_SIZE)


def show(image_rgb: np.ndarray) -> None:
    cv2.imshow(WINDOW, cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR))


def has_display() -> bool:
    return display.problem() is None  # a display Qt can use: one it cannot use aborts the process


def step_header(loop: Loop, offset: int = 0) -> list[str]:
    """The lines above the picture: which step, what to do, how the game stands then (a
    preview ``offset`` steps ahead: as the plan predicts it before that step)."""
    if loop.reading is None:
        return ["looking at the phone...", ""]
    plan = loop.plan
    total = len(plan.moves) if plan else 0
    k = loop.step + offset
    position = planned_position(loop, k) if offset else loop.position
    if offset == 0 and (loop.reading.screen != "board" or loop.game is None):
        # what is in front (a stage's end, a dialog, an ad...), never a stale move or count
        return [loop.door().waiting(loop.door().front, loop.reading), ""]
    if loop.finished():
        first = loop.game.won_header()
    elif plan is None or k >= total:
        first = "No move planned"
    else:
        first = f"Step {k + 1}/{total}: {loop.game.describe(position, plan.moves[k])}"
        if offset:
            first += "   (preview)"
    return [first, loop.game.progress(position) if loop.game is not None and position is not None else ""]


def planned_position(loop: Loop, k: int):
    """The position the plan predicts before its step k (k >= the current step)."""
    position = loop.position
    for move in loop.plan.moves[loop.step:k]:
        position = loop.game.after(position, move)
    return position


def picture(loop: Loop, offset: int) -> np.ndarray:
    """The step's picture: the live screen with the next move (or its unsure cells), or a planned step."""
    move = loop.next_move
    if loop.reading is None or loop.image is None:
        return np.full(NO_PICTURE, overlay.PANEL, np.uint8)  # (nothing captured yet, or a black screen)
    if offset == 0 and loop.reading.screen == "board" and not loop.reading.sure:
        return overlay.mark_unsure(loop.image, loop.reading)
    if offset == 0 and loop.reading.screen == "board" and move is not None and loop.game is not None:
        return loop.game.draw_next(loop.image, loop.reading, move)
    if offset and loop.plan and loop.step + offset < len(loop.plan.moves):
        k = loop.step + offset
        return loop.game.diagram(planned_position(loop, k), loop.plan.moves[k])
    return loop.image


def header(loop: Loop, offset: int, paused: bool, keys: str = KEYS) -> list[str]:
    """The window's text lines: the step's header, the keys, and what is not read for sure."""
    lines = step_header(loop, offset) + [keys]
    if paused:
        lines[0] = "[paused] " + lines[0]
    if offset == 0 and loop.reading is not None and loop.reading.screen == "board" and not loop.reading.sure:
        lines.append("not sure of: " + loop.reading.describe_unsure())
    return lines


def frame(loop: Loop, offset: int, paused: bool, size: tuple[int, int] = WINDOW_SIZE) -> np.ndarray:
    """What the window shows now (RGB, ``size`` pixels): the step's picture under its header and the keys."""
    return overlay.in_window(picture(loop, offset), header(loop, offset, paused), size, TEXT_SCALE)


def follow(loop: Loop) -> str | None:
    """Read the phone once and move the plan along with what the player did. The first board
    seen makes the first plan: the guide starts on whatever the phone shows and waits for it."""
    shown_before = loop.reading.screen if loop.reading is not None else None
    reading = loop.look()
    if reading.screen == "stage_complete":  # (said by the header: press Continue)
        return None
    if reading.screen != "board":  # the phone says what is in front (the door says it once)
        loop.door().tend(reading, first=shown_before != reading.screen)
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


@dataclass(eq=False)  # (compared by identity: one per read)
class View:
    """What the reader thread last made of the phone, for the window to draw on every frame:
    its header lines, the screenshot read (RGB) and the move drawn over it at the picture's size
    (``marks``, with ``mask`` where they are)."""

    lines: list
    image: np.ndarray
    marks: np.ndarray | None = None
    mask: np.ndarray | None = None
    place: tuple = (0, 0, 1, 1)  # where the picture sits in the window (x, y, w, h)
    panel: np.ndarray | None = None  # the window without its picture


def make_view(loop: Loop | None, paused: bool, keys: str, size=WINDOW_SIZE) -> View:
    """The window's parts for the phone as last read: drawn once per read, so that each live
    frame costs only a resize and a masked copy (``Mirror.compose``). No loop yet: the phone is
    being connected to (the window shows at once, before it)."""
    if loop is None:
        image = np.full(NO_PICTURE, overlay.PANEL, np.uint8)
        panel, place = overlay.window_panel([CONNECTING, "", keys], size, TEXT_SCALE, image.shape[:2])
        return View([CONNECTING, "", keys], image, place=place, panel=panel)
    image = loop.image if loop.image is not None and loop.reading is not None else picture(loop, 0)
    drawn = picture(loop, 0)
    lines = header(loop, 0, paused, keys)
    panel, place = overlay.window_panel(lines, size, TEXT_SCALE, image.shape[:2])
    view = View(lines, image, place=place, panel=panel)
    if drawn is not image and drawn.shape == image.shape:
        x, y, w, h = place
        changed = np.any(drawn != image, axis=2).astype(np.uint8)
        view.mask = cv2.resize(changed, (w, h), interpolation=cv2.INTER_AREA) > 0
        view.marks = cv2.resize(drawn, (w, h), interpolation=cv2.INTER_AREA)
    return view


def compose(view: View, live: np.ndarray | None = None) -> np.ndarray:
    """The window now (RGB): the view's panel, with the live frame (RGB, from the phone's video)
    or else the screenshot read, and the move's marks over it."""
    x, y, w, h = view.place
    out = view.panel.copy()
    if live is None:
        source = view.image
        small = cv2.resize(source, (w, h), interpolation=cv2.INTER_AREA)
    else:
        small = cv2.resize(live, (w, h), interpolation=cv2.INTER_LINEAR)
    if view.mask is not None:
        small[view.mask] = view.marks[view.mask]
    out[y:y + h, x:x + w] = small
    return out


def to_screen(view: View, x: int, y: int):
    """The screenshot's pixel under the window's pixel (x, y), or None off the picture."""
    px, py, w, h = view.place
    if not (px <= x < px + w and py <= y < py + h):
        return None
    height, width = view.image.shape[:2]
    return int((x - px + 0.5) * width / w), int((y - py + 0.5) * height / h)


class Mirror:
    """The guide's window kept live: a reader thread follows the player (``follow``: a capture
    and a read, up to a second each) while the window thread shows the newest video frame with
    the move drawn over it, and turns a click on the picture into a tap (``tap_on_click``)."""

    def __init__(self, loop, poll: float = 0.3, say=print, tap_on_click: bool = False):
        # loop: the Loop, or what makes it (connects to the phone: the reader thread's first step)
        self.loop = loop if isinstance(loop, Loop) else None
        self.make = None if self.loop is not None else loop
        self.poll, self.say, self.tap_on_click = poll, say, tap_on_click
        self.keys = KEYS + ("   click: tap the phone there" if tap_on_click else "")
        self.lock = threading.Lock()  # held while the reader thread changes the loop
        self.paused, self.offset, self.note = False, 0, None
        self.view = make_view(self.loop, False, self.keys)
        self.clicks: list[tuple[int, int]] = []  # screenshot points clicked, tapped by the reader thread
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.shown = 0  # frames shown, and of them live video frames
        self.live = 0
        self._last_at = None

    def channel_frame(self):
        """(RGB frame, monotonic time) newest from the phone's video channel, or None."""
        # (a stream that ended, the phone gone or the server dead: None, and the last read is
        # shown; the reader thread's next capture hands over to the next channel, in one line)
        return self.loop.session.live_frame() if self.loop is not None else None

    def read_forever(self) -> None:
        """The reader thread: follow the player every ``poll`` s, tap what was clicked."""
        last = float("-inf")
        try:
            if self.loop is None:
                self.loop = self.make()
            while not self.stop.is_set():
                while self.clicks:
                    x, y = self.clicks.pop(0)
                    with self.lock:
                        self.loop.link.tap(x, y)
                if self.paused or time.monotonic() - last < self.poll:
                    time.sleep(0.02)
                    continue
                last = time.monotonic()
                with self.lock:
                    message = follow(self.loop)
                    self.loop.show(self.loop.next_move)
                    self.view = make_view(self.loop, self.paused, self.keys)
                if message and message != self.note:
                    self.say(message)
                self.note = message or self.note
                if message:
                    self.offset = 0
        except BaseException as exc:  # (said by the window thread, which ends the guide)
            self.error = exc
            self.stop.set()

    def next_picture(self) -> np.ndarray | None:
        """The window's next picture (RGB): a preview, the newest live frame, or the last read;
        None when nothing new is to be shown (the same video frame, the same view)."""
        if self.offset:
            if self._last_at == (self.offset, self.loop.step):
                return None
            self._last_at = self.offset, self.loop.step
            with self.lock:
                return frame(self.loop, self.offset, self.paused)
        view = self.view
        got = self.channel_frame()
        if got is not None:
            live, at = got
            if self._last_at == (at, view):
                return None
            self._last_at = at, view
            self.live += 1
            return compose(view, live)
        if view is self._last_at:
            return None
        self._last_at = view
        return compose(view)

    def click(self, event, x, y, flags, param) -> None:
        """OpenCV's mouse callback: x, y are the shown image's pixels (the Qt backend divides the
        window's coordinates by its zoom: opencv modules/highgui/src/window_QT.cpp,
        DefaultViewPort::icvmouseProcessing)."""
        if not self.tap_on_click or event != cv2.EVENT_LBUTTONDOWN or self.offset:
            return
        point = to_screen(self.view, x, y)
        if point is not None:
            self.clicks.append(point)


def run_window(loop, poll: float = 0.3, say=print, max_seconds: float | None = None,
               tap_on_click: bool = False) -> int:
    """The guide window, opened at once on whatever the phone shows, until q, the window is
    closed, Ctrl-C, or max_seconds pass; it never times out waiting for a board. ``loop``: the
    Loop, or what makes it (called behind the open window: connecting takes seconds)."""
    if not has_display():
        raise TapsolveError("no display for the guide window: run it on a desktop, or use --no-window or "
                            "--export DIR")
    mirror = Mirror(loop, poll, say, tap_on_click)
    open_window()
    cv2.setMouseCallback(WINDOW, mirror.click)
    show(mirror.next_picture())  # at once, before the phone is reached ("connecting to the phone...")
    cv2.waitKey(1)
    reader = threading.Thread(target=mirror.read_forever, daemon=True)
    reader.start()
    started = time.monotonic()
    try:
        while not mirror.stop.is_set():
            shown = mirror.next_picture()
            if shown is not None:
                show(shown)
                mirror.shown += 1
            key = cv2.waitKey(MIRROR_WAIT_MS) & 0xFF
            if key == ord("q") or cv2.getWindowProperty(WINDOW, cv2.WND_PROP_VISIBLE) < 1:
                break
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                break
            loop = mirror.loop
            if loop is None:  # (still connecting: no step to page through yet)
                continue
            if key == ord(" "):
                mirror.paused = not mirror.paused
                with mirror.lock:
                    mirror.view = make_view(loop, mirror.paused, mirror.keys)
            elif key == ord("n") and loop.plan and loop.step + mirror.offset + 1 < len(loop.plan.moves):
                mirror.offset += 1
            elif key == ord("p") and mirror.offset > 0:
                mirror.offset -= 1
                mirror._last_at = None
    except KeyboardInterrupt:
        pass
    finally:
        mirror.stop.set()
        reader.join(timeout=5)
        cv2.destroyAllWindows()
        cv2.waitKey(1)
    if mirror.error is not None and not isinstance(mirror.error, KeyboardInterrupt):
        raise mirror.error
    say(closing_line(mirror.loop) if mirror.loop is not None else "guide closed before the phone answered")
    return 0


def run_text(loop: Loop, poll: float = 0.3, say=print, max_seconds: float | None = None) -> int:
    """The guide without a window: each step said once on stdout as it comes (what is in front
    of the game is said by the loop, on stderr, once), until Ctrl-C or max_seconds."""
    started, last = time.monotonic(), None
    try:
        while max_seconds is None or time.monotonic() - started < max_seconds:
            message = follow(loop)
            if message:
                say(message)
            # (what else is in front the door says, on stderr)
            if loop.reading is not None and loop.reading.screen in ("board", "stage_complete"):
                line = " - ".join(part for part in step_header(loop) if part)
                if line != last:
                    say(line)
                    last = line
            time.sleep(poll)
    except KeyboardInterrupt:
        pass
    say(closing_line(loop))
    return 0


def closing_line(loop: Loop) -> str:
    """What the guide says as it closes: the step the window showed, counted from 1 as it does."""
    total = len(loop.plan.moves) if loop.plan else 0
    if loop.step < total:
        return f"guide closed at step {loop.step + 1}/{total}"
    return f"guide closed after the last step ({total}/{total})" if total else "guide closed with no plan made"


def export_folder(folder: str | Path) -> Path:
    """The folder an export goes to, made if needed and tried with a file of ours (removed at
    once): a path that cannot be one, or a folder that cannot be written (read-only, another
    user's, a read-only file system), is bad input, said before the phone is looked at."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".tapsolve-", suffix=".tmp"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write the export to {shown(folder)}: {exc.strerror or exc}; "
                         "give a folder you can write") from None
    return folder


def export(loop: Loop, folder: str | Path, say=print) -> int:
    """Write the plan as one page per step, each naming its move above its picture and linking
    to the previous and next (index.html the first: the phone's screen now, its move drawn on
    it; the others the plan's drawings), then a last page with the board the plan leaves."""
    folder = export_folder(folder)
    reading = loop.start()
    if reading.screen != "board" or loop.plan is None:
        raise TapsolveError("no board on the phone to plan for")
    loop.show(loop.next_move)
    game, moves = loop.game, loop.plan.moves
    pages = len(moves) + 1  # each step, then the end
    position = loop.position
    for k, move in enumerate(moves):
        image = picture(loop, 0) if k == 0 else game.diagram(position, move)
        write_page(folder, k, pages, image, game.describe(position, move), game.progress(position),
                   f"step {k + 1} of {len(moves)}")
        position = game.after(position, move)
    end = f"Done: {game.won_word}" if loop.plan.status == "solved" else "The end of the plan"
    write_page(folder, pages - 1, pages, game.diagram(position, None), end, game.progress(position), "the end")
    say(f"wrote {words.count(len(moves), 'steps')} and the end to {shown(folder)}: open {shown(folder / 'index.html')} "
        "in a browser")
    return 0


def page_name(k: int) -> str:
    return "index.html" if k == 0 else f"step-{k + 1:03d}.html"


def picture_name(k: int) -> str:
    return f"step-{k + 1:03d}.png"


def write_page(folder: Path, k: int, pages: int, image: np.ndarray, title: str, progress: str, counter: str) -> None:
    """Page ``k``'s picture (the page says its move: the picture carries no words of its own) and the page."""
    save_png(folder / picture_name(k), image)
    try:
        (folder / page_name(k)).write_text(page_html(k, pages, title, progress, counter), encoding="utf-8")
    except OSError as exc:
        raise TapsolveError(f"cannot write {shown(folder / page_name(k))}: {exc.strerror or exc}") from None


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


def page_html(k: int, pages: int, title: str, progress: str, counter: str) -> str:
    """One exported step's page: its move in words above the picture scaled to fit the screen,
    links to the previous and next step (the arrow keys follow them) around its one counter."""
    def link(j: int, label: str, key: str) -> str:
        target = f' href="{page_name(j)}"' if 0 <= j < pages else ""
        return f'<a id="{key}"{target}>{label}</a>'

    t = html.escape(title)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(counter.capitalize())}: {t} - tapsolve plan</title>
<style>{PAGE_STYLE}</style>
</head><body>
<header><h1>{t}</h1><p>{html.escape(progress)}</p>
<nav>{link(k - 1, "&larr; previous", "ArrowLeft")}<span>{html.escape(counter)}</span>{link(k + 1, "next &rarr;", "ArrowRight")}</nav></header>
<main><img src="{picture_name(k)}" alt="{t}"></main>
<script>
document.addEventListener("keydown", e => {{
  const a = document.getElementById(e.key);
  if (a && a.href) location.href = a.href;
}});
</script>
</body></html>
"""
