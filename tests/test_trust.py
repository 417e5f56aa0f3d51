"""Readings that never guess: every value is read for sure or null and named unsure with a reason;
damaged, tiny, landscape, huge or unreadable images get one line; a fixed sample of the trust
benchmark has no silent misread; phonesim's "Rate us!" dialog."""

import json
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from assistant import trust
from calibration import store
from helpers import tapsolve
from vision import schema
from phonesim import apps
from phonesim.apps.dialog import Dialog
from phonesim.phone import PRESETS, Faults, Phone
from vision import glyphs
from vision.cells import GLYPH

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REAL = ROOT.parent / "shared" / "realshots"


def fixture(png):
    return vision.load_image(FIXTURES / png), json.loads((FIXTURES / png.replace(".png", ".json")).read_text())


def claims_nothing_wrong(reading, truth):
    """Every value the reading did not name unsure equals the truth (cells, adds, stage, score)."""
    b, want = reading.board, truth["board"]
    for key in ("adds_left", "stage", "score"):
        assert key in reading.unsure_why or getattr(b, key) == want[key], key
    if "rows" in reading.unsure_why or "screen" in reading.unsure_why:
        return  # where the rows are is itself unsure: no cell is claimed at an index
    for k, value in enumerate(b.cells):
        if k not in reading.unsure:
            assert value == want["cells"][k], k


def test_a_dialog_over_the_board_makes_the_covered_cells_and_the_screen_unsure(monkeypatch):
    image, truth = fixture("1080x2400/light/numbermatch_after_adds.png")
    top = truth["cells"]["9"][1] / image.shape[0]  # the card's top at the second row
    covered = Dialog(1080, 2400, top=top).draw(image)
    named = vision.read(covered)  # its button read: the dialog is named, no cell under it claimed
    assert (named.screen, named.board, list(named.buttons)) == ("dialog", None, ["rate_now"])
    assert "board" not in named.to_json()
    monkeypatch.setattr(vision, "over_the_board", lambda *a: None)  # a card whose buttons do not read:
    reading = vision.read(covered)  # the board reader itself says what it covers
    assert not reading.sure and "screen" in reading.unsure_why
    assert {9, 10, 17, 18} <= set(reading.unsure)
    assert reading.unsure_why["9"] == "covered"
    assert all(reading.unsure_why[str(k)] == "covered" for k in range(18, 27))
    claims_nothing_wrong(reading, truth)
    data = reading.to_json()
    assert "screen" in data["unsure"] and data["board"]["cells"][9] is None


def through_video(screen: np.ndarray) -> np.ndarray:
    """The screen (RGB) as phonesim's scrcpy server encodes it and our client decodes it."""
    import av
    from phonesim import scrcpy as simscrcpy

    height, width = screen.shape[:2]
    encoder = simscrcpy.open_encoder(width, height)
    packets = [*encoder.encode(simscrcpy.video_frame(screen, width, height)), *encoder.encode(None)]
    decoder = av.CodecContext.create("h264", "r")
    # the config packet merged into the first, as the client's packet merger does
    frames = decoder.decode(av.Packet(bytes(encoder.extradata) + bytes(packets[0])))
    return frames[0].to_ndarray(format="rgb24")


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("preset", ["1080x2400", "720x1600"])
def test_a_selected_cell_on_a_video_frame_is_not_taken_for_something_drawn_over_the_board(preset):
    """A video frame keeps one colour for two pixels side by side (4:2:0 chroma): the pixel at a
    highlight's edge may take the grey of the grid line beside it. That is no card over the board."""
    from phonesim import apps
    from phonesim.phone import PRESETS

    app = apps.create("numbermatch", PRESETS[preset], seed=309, size=42)
    for selected in range(0, 27, 4):
        app.selected = selected
        reading = vision.read(through_video(app.render()), "numbermatch")
        assert "screen" not in reading.unsure_why and reading.selected == selected, (selected, reading.unsure_why)
        assert reading.sure and reading.board.cells == app.board.cells


def test_a_faint_top_grid_line_never_drops_the_first_row():
    image, truth = fixture("720x1600/light/numbermatch_midgame.png")
    y = truth["cells"]["0"][1]  # the top border
    faint, gone = image.copy(), image.copy()
    faint[y - 6:y + 4, 10:-10] = np.maximum(faint[y - 6:y + 4, 10:-10], 250)  # barely off white
    gone[y - 6:y + 4, 10:-10] = 255
    reading = vision.read(faint)
    assert reading.sure and reading.board.cells == truth["board"]["cells"]
    reading = vision.read(gone)  # before: read sure, one row short, every cell shifted
    assert "rows" in reading.unsure_why and "top line" in reading.unsure_why["rows"]
    assert not reading.sure
    claims_nothing_wrong(reading, truth)


def test_a_missing_badge_is_null_and_unsure_never_zero():
    image, truth = fixture("1080x2400/light/numbermatch_fresh.png")
    x, y, w, h = truth["add_button"]
    smudged = image.copy()
    # a grey smudge where the badge sits (up and right of the "+"): a badge that does not read
    smudged[y - h // 4:y + h // 3, x + w // 2 + 8:x + w + w // 3] = (90, 120, 200)
    reading = vision.read(smudged)
    assert reading.board.adds_left is None and "adds_left" in reading.unsure_why
    assert reading.to_json()["board"]["adds_left"] is None and "adds_left" in reading.to_json()["unsure"]
    # the game draws no badge at 0 adds left: a clean "+" with nothing beside it reads 0, for sure
    zero, truth0 = fixture("1080x2340-2022/dark/numbermatch_tall_scrolled.png")
    assert truth0["board"]["adds_left"] == 0
    assert vision.read(zero, first_row=truth0["first_row"]).board.adds_left == 0


def test_a_grayscale_screenshot_reads_right_or_unsure():
    """Issue 13: a grayscale screenshot read score 890 (the coins) and adds 0, silently."""
    image, truth = fixture("1080x2400/light/numbermatch_midgame.png")
    gray = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
    reading = vision.read(gray)
    assert not reading.sure
    claims_nothing_wrong(reading, truth)


def test_unsure_cells_show_as_question_marks_and_the_rest_is_named():
    image, truth = fixture("1080x2400/light/numbermatch_fresh.png")
    x, y, w, h = truth["cells"]["4"]
    image = image.copy()
    image[y + 8:y + h - 8, x + 8:x + w - 8] = 255
    cv2.putText(image, "#", (x + 25, y + 85), cv2.FONT_HERSHEY_SIMPLEX, 2.2, (0, 0, 0), 5)
    reading = vision.read(image)
    lines = reading.text().splitlines()
    assert lines[1][4] == "?" and lines[1][:4] == "".join(map(str, truth["board"]["cells"][:4]))
    assert lines[-1].startswith("unsure: row 1 column 5")


def test_the_small_real_screenshot_claims_nothing_wrong():
    label = json.loads((REAL / "labels.json").read_text())["phone_216x475_stage10.jpg"]
    reading = vision.read(vision.load_image(REAL / "phone_216x475_stage10.jpg"))
    want = [int(c) for c in label["board"].replace(" ", "")]
    assert all(c == want[k] for k, c in enumerate(reading.board.cells) if k not in reading.unsure)
    for key, value in (("adds_left", 4), ("stage", 10), ("score", 14992)):
        got = getattr(reading.board, key)
        assert got == value or (got is None and key in reading.unsure_why), key


def tenpair_page(width=1600, height=900):
    """A web page of a game like Number Match (TenPair): a grid of digits, no "+", no header."""
    page = np.full((height, width, 3), 255, np.uint8)
    cell, x0, y0 = 60, 530, 150
    rng = np.random.default_rng(3)
    for r in range(8):
        for c in range(9):
            if r < 4:
                cv2.putText(page, str(rng.integers(1, 10)), (x0 + c * cell + 16, y0 + r * cell + 44),
                            cv2.FONT_HERSHEY_SIMPLEX, 1.4, (20, 20, 20), 2, cv2.LINE_AA)
    for c in range(10):
        cv2.line(page, (x0 + c * cell, y0), (x0 + c * cell, y0 + 8 * cell), (200, 204, 212), 2)
    for r in range(9):
        cv2.line(page, (x0, y0 + r * cell), (x0 + 9 * cell, y0 + r * cell), (200, 204, 212), 2)
    cv2.putText(page, "TenPair - play online", (40, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (40, 40, 40), 2)
    return page


def test_a_landscape_web_page_of_a_similar_game_is_not_read_as_number_match(tmp_path):
    page = tenpair_page()
    with pytest.raises(vision.ImageInputError, match="landscape"):
        vision.read(page)
    # cut upright around its grid it is still not Number Match: no "+" button, no stage header
    upright = np.ascontiguousarray(page[:, 450:1150])
    with pytest.raises(vision.ReadError, match="no Number Match board found"):
        vision.read(upright)
    path = tmp_path / "tenpair.png"
    cv2.imwrite(str(path), page)
    out = tapsolve("read", str(path))
    assert out.returncode == 2 and "landscape" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def png_header(width, height):
    """A PNG that only claims its size (IHDR) and holds one tiny compressed row."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def test_bad_images_get_one_line(tmp_path):
    """Tiny, scaled-down, huge, damaged images: one line, exit 2, no traceback from vision."""
    small = cv2.resize(cv2.imread(str(REAL / "phone_216x475_stage10.jpg")), None, fx=0.6, fy=0.6)
    cases = {"tiny.png": (np.full((40, 30, 3), 255, np.uint8), "too small"),
             "scaled.png": (small, "too small to read for sure"),
             "rotated.png": (np.rot90(cv2.imread(str(FIXTURES / "720x1600/light/numbermatch_fresh.png"))),
                             "landscape")}
    for name, (image, words) in cases.items():
        cv2.imwrite(str(tmp_path / name), np.ascontiguousarray(image))
    (tmp_path / "huge.png").write_bytes(png_header(20000, 20000))
    cases["huge.png"] = (None, "larger than any phone screen")
    good = (FIXTURES / "720x1600/light/numbermatch_fresh.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(good[:len(good) // 3])
    cases["cut.png"] = (None, "damaged image")
    for name, (_, words) in cases.items():
        out = tapsolve("read", str(tmp_path / name))
        assert out.returncode == 2, (name, out.stderr)
        assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1, (name, out.stderr)
    # the size is refused from the header, before a pixel is decoded
    with pytest.raises(vision.ImageInputError, match="20000x20000"):
        vision.load_image(tmp_path / "huge.png")


# the trust benchmark's samples read each screenshot once per perturbation: 10-15 s of a core
# each (in the whole suite, not the fast set)
@pytest.mark.slow
def test_a_fixed_sample_of_the_trust_benchmark_has_no_silent_misread():
    cases = [c for c in trust.load_cases() if c.name in (
        "1080x2400/dark/numbermatch_midgame.png", "720x1600/light/numbermatch_tall_partial.png",
        "tablet_1600x2560_stage1.jpg")]
    assert len(cases) == 3
    perturbations = ["jpeg30", "scale0.6", "blur2", "gamma1.4", "banner", "dialog", "rotate90", "crop"]
    tally = trust.run(cases, perturbations, modes=("stored",))
    total = tally.total()
    assert total["misread"] == 0 and total["crash"] == 0, tally.misreads
    assert tally.total(perturbations=["dialog", "rotate90", "crop"])["exact"] == 0
    assert tally.total(perturbations=["banner", "gamma1.4"])["exact"] >= 5


@pytest.mark.slow
def test_the_fifteen_puzzle_under_the_trust_benchmark_has_no_silent_misread():
    cases = [c for c in trust.load_cases() if c.name in (
        "1080x2400/light/fifteen_tiles_midgame.png", "720x1600/dark/fifteen_grid_fresh.png")]
    assert len(cases) == 2
    perturbations = ["jpeg30", "scale0.6", "blur2", "noise", "banner", "dialog", "rotate90", "crop"]
    tally = trust.run(cases, perturbations, modes=("fresh",))
    total = tally.total()
    assert total["misread"] == 0 and total["crash"] == 0, tally.misreads
    assert tally.total(perturbations=["rotate90", "crop"])["exact"] == 0  # refused or unsure
    assert tally.total(perturbations=["jpeg30", "noise"])["exact"] >= 2


def test_the_dialog_takes_every_tap_until_its_button_closes_it():
    preset = PRESETS["1080x2400"]
    phone = Phone(preset, apps.create("numbermatch", preset, seed=1), Faults(dialog_after=1))
    cells = phone.truth()["cells"]
    pair = next(p for p in phone.app.board.pairs() if str(p.i) in cells and str(p.j) in cells)
    for k in (pair.i, pair.j):
        x, y, w, h = cells[str(k)]
        phone.tap(x + w // 2, y + h // 2)
    assert phone.moves == 1 and phone.truth()["dialog"]["title"] == "Rate us!"
    board = phone.truth()["board"]
    x, y, w, h = phone.truth()["add_button"]
    phone.tap(x + w // 2, y + h // 2)  # "+" under a dialog: nothing happens to the board
    assert phone.truth()["board"] == board and phone.taps_blocked == 1
    assert not np.array_equal(phone.screen(), phone.app.render())  # the dialog is drawn
    bx, by, bw, bh = phone.truth()["dialog"]["button"]
    phone.tap(bx + bw // 2, by + bh // 2)
    assert phone.truth().get("dialog") is None and np.array_equal(phone.screen(), phone.app.render())


def test_a_dialog_between_stages():
    preset = PRESETS["720x1600"]
    phone = Phone(preset, apps.create("numbermatch", preset, seed=1, size=2), Faults(dialog_between_stages=True))
    phone.app.board = phone.app.board.__class__([3, 7], 5)
    for k in ("0", "1"):
        x, y, w, h = phone.truth()["cells"][k]
        phone.tap(x + w // 2, y + h // 2)
    assert phone.truth()["screen"] == "stage_complete" and phone.truth().get("dialog") is None
    x, y, w, h = phone.truth()["buttons"]["continue"]
    phone.tap(x + w // 2, y + h // 2)
    assert phone.truth()["screen"] == "board" and phone.truth().get("dialog") is not None
    phone.keyevent("KEYCODE_BACK")  # Back dismisses it, as on Android
    assert phone.truth().get("dialog") is None and phone.dialogs_shown == 1


def test_tapsolve_phone_takes_the_dialog_faults():
    from assistant.cli import build_parser
    from phonesim.serve import build_phone

    args = build_parser().parse_args(["phone", "--dialog-after", "3", "--dialog-between-stages"])
    faults = build_phone(args).faults
    assert (faults.dialog_after, faults.dialog_between_stages) == (3, True)


def template(mean: float, sd: float, n: int = 10) -> glyphs.Templates:
    """A "3" template whose n glyphs matched it at ``mean`` correlation give or take ``sd``, as
    a stored profile keeps it (the JSON of one glyph: count, fit, spread, mean)."""
    pixels = np.zeros((GLYPH, GLYPH))
    pixels[4:20, 8:16] = 1
    return glyphs.Templates.from_json({"3": {"count": n, "fit": [mean * n, n],
                                             "spread": n * (sd * sd + mean * mean),
                                             "mean": pixels.flatten().tolist()}})


def test_a_digit_is_judged_against_its_own_glyphs_spread():
    sloppy = 0.88  # a match 0.05 under the mean: a fixed margin of 0.06 would have taken it
    tight, loose = template(0.93, 0.004), template(0.93, 0.02)
    assert sloppy >= 0.93 - 0.06
    assert not tight.sure("3", sloppy, margin=0.3)  # 12 of its own deviations off: not this "3"
    assert tight.sure("3", 0.92, margin=0.3)
    assert loose.sure("3", sloppy, margin=0.3)  # glyphs that varied that much: within its spread
    assert not loose.sure("3", sloppy, margin=0.01)  # and still clearly ahead of the runner-up


def test_the_spread_is_learned_from_the_glyphs_and_survives_storing():
    t = glyphs.Templates()
    rng = np.random.default_rng(3)
    base = np.zeros((GLYPH, GLYPH), np.float32)
    base[4:20, 10:14] = 1
    fits = []
    for k in range(6):
        g = np.clip(base + rng.normal(0, 0.15, base.shape).astype(np.float32), 0, 1)
        if k:
            fits.append(float(glyphs.centred(g) @ glyphs.centred(t.sums["1"])))
        t.add("1", g)
    mean, sd, n = t.spread("1")
    assert n == 5 and mean == pytest.approx(np.mean(fits)) and sd == pytest.approx(np.std(fits), abs=1e-6)
    data = json.loads(json.dumps(t.to_json()))
    assert schema.check_glyph("fonts.cell", "1", data["1"]) is None
    back = glyphs.Templates.from_json(data)
    assert back.spread("1") == pytest.approx(t.spread("1")) and back.bar("1") == pytest.approx(t.bar("1"))


def test_a_profile_stored_before_the_spread_loads_and_reads_right_or_unsure(tmp_path):
    png = "1080x2400/light/numbermatch_midgame.png"
    image, truth = fixture(png)
    data = vision.read(image).profile.to_json()
    for font in data["fonts"].values():
        for entry in font.values():
            del entry["spread"]  # as profiles were stored before the spread was kept
    assert schema.problem(data) is None
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    profile = store.load(path)
    font = profile.font("cell")
    assert all(font.bar(d) == glyphs.NEW_BAR for d in font.known())  # judged as never compared
    reading = vision.read(image, profile=profile)
    claims_nothing_wrong(reading, truth)
    assert reading.sure  # the same screen's glyphs match at NEW_BAR or better


def blot_cards(image, truth, cards):
    """The screenshot with the same blot over each of ``cards``: the permutation cannot settle
    two of them."""
    out = image.copy()
    for k in cards:
        x, y, w, h = truth["cards"][str(k)]
        cv2.rectangle(out, (x + w // 5, y + h // 6), (x + 4 * w // 5, y + 5 * h // 6), (255, 255, 255), -1)
        cv2.putText(out, "#", (x + w // 4, y + 2 * h // 3), cv2.FONT_HERSHEY_SIMPLEX, 2, (30, 30, 30), 6)
    return out


def test_flip9_cards_it_cannot_read_are_named_unsure_and_the_rest_read():
    image, truth = fixture("1080x2400/light/flip9_cards_midgame.png")
    reading = vision.read(blot_cards(image, truth, (2, 5)))
    assert reading.game == "flip9" and reading.state is None and not reading.sure
    assert {2, 5} <= set(reading.unsure) and "must" in reading.unsure_why
    for k, card in enumerate(reading.cards):
        assert card is None if k in reading.unsure else card == truth["state"]["cards"][k]
    data = reading.to_json()
    assert data["board"]["cards"] == reading.cards and set(data["unsure"]) >= {2, 5, "must"}
    words = reading.describe_unsure()  # each reason said once, after the cards it holds for
    assert words.startswith("card 3") and f"({reading.unsure_why['2']})" in words and "?" in reading.text()


class ScreensInTurn:
    """A stand-in phone for assistant.link.Link: each capture the next screenshot (the last one
    stays), no Screen of its own; asked what is in front, it names nothing."""

    screen = None
    serial, model = "in-turn", "In Turn"

    def __init__(self, images):
        self.images, self.captures = list(images), 0

    def capture(self):
        image = self.images[min(self.captures, len(self.images) - 1)]
        self.captures += 1
        return image

    def shell(self, command):
        return ""


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_the_assistant_pauses_on_unsure_flip9_cards_and_goes_on_when_they_read():
    from assistant.link import Link
    from assistant.loop import Loop
    from assistant.session import Session

    image, truth = fixture("1080x2400/light/flip9_cards_midgame.png")
    blotted = blot_cards(image, truth, (2, 5))
    said = []
    link = Link(ScreensInTurn([blotted] * 8 + [image]), say=said.append)  # (a settled look: two equal captures)
    loop = Loop(Session(link), game="flip9", say=said.append, wait_unknown=30)
    reading = loop.look_until_known()
    assert reading.sure and list(reading.state.cards) == truth["state"]["cards"]
    assert len(said) == 1 and said[0].startswith("paused:") and "card 3" in said[0] and "card 6" in said[0]


def test_flip9_cards_under_a_notification_are_covered_and_the_rest_read():
    image, truth = fixture("1080x2400/dark/flip9_cards_midgame.png")
    x, y, w, h = truth["cards"]["2"]
    note = image.copy()  # a toast over the first three cards, short of the keys below them
    cv2.rectangle(note, (0, y - h // 3), (x + w + w // 10, y + h + h // 4), (236, 236, 240), -1)
    cv2.putText(note, "Saved to Photos", (20, y + h // 2), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (30, 30, 30), 2)
    reading = vision.read(note)
    assert reading.state is None and reading.unsure == [0, 1, 2] and "screen" in reading.unsure_why
    assert all(reading.unsure_why[str(k)] == "covered" for k in (0, 1, 2))
    assert reading.cards[3:] == truth["state"]["cards"][3:]
    assert set(reading.cells) == set(range(9))  # the covered cards keep their place over their keys


@pytest.mark.slow
def test_flip9_cards_cut_by_the_screenshots_edge_are_never_claimed():
    cases = [c for c in trust.load_cases() if c.name in (
        "1080x2400/dark/flip9_cards_fresh.png", "1440x3200/dark/flip9_cards_notvalid.png")]
    tally = trust.run(cases, ["crop", "noise"], modes=("fresh",))
    assert tally.total()["misread"] == 0 and tally.total()["crash"] == 0, tally.misreads
    assert tally.total(perturbations=["crop"])["exact"] == 0
    assert tally.total(perturbations=["noise"])["exact"] == 2  # dark cards under camera noise read


def scribble(image, box):
    """The screenshot with the text in ``box`` (x0, y0, x1, y1) swapped for marks that read as nothing."""
    out = image.copy()
    x0, y0, x1, y1 = box
    cv2.rectangle(out, (x0, y0), (x1, y1), (255, 255, 255), -1)
    cv2.putText(out, "~#%&~#%", (x0, y1 - (y1 - y0) // 4), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (30, 30, 30), 4)
    return out


@pytest.mark.parametrize("line, why", [((400, 1030, 680, 1100), "comment"), ((80, 1160, 300, 1230), "moves")])
def test_a_flip9_comment_or_moves_line_that_does_not_read_leaves_the_card_that_must_move_unsure(line, why):
    """"3 not valid." names the card that must move; unread, it was taken as no card at all."""
    image, truth = fixture("1080x2400/light/flip9_buttons_notvalid.png")
    assert vision.read(image).state.must == truth["state"]["must"] == 3
    reading = vision.read(scribble(image, line))
    assert list(reading.state.cards) == truth["state"]["cards"] and reading.state.must is None
    assert not reading.sure and why in reading.unsure_why["must"]


def test_the_trust_benchmark_holds_a_row_read_at_the_faded_edge_to_the_whole_board():
    """A tall board's last row on screen fades out under the "+" bar: a read that takes it in is
    exact when its digits are the board's, and a silent misread when they are not."""
    image, truth = fixture("tablet-1600x2560/light/numbermatch_tall_partial.png")
    b = truth["board"]
    visible = {int(k): b["cells"][int(k)] for k in truth["cells"]}
    case = trust.Case("tall", image, "numbermatch", visible,
                      {"adds_left": b["adds_left"], "stage": b["stage"], "score": b["score"]},
                      first_row=truth["first_row"], board=dict(enumerate(b["cells"])))
    reading = vision.read(image, first_row=truth["first_row"])
    assert reading.sure and trust.classify(case, "none", reading) == "exact"
    last = max(visible) + 1
    edge_row = b["cells"][last:last + 9]  # the row under the fade, as the game has it
    reading.board.cells.extend(edge_row)
    assert trust.classify(case, "none", reading) == "exact"
    reading.board.cells[-1] = 1 + reading.board.cells[-1] % 9
    assert trust.classify(case, "none", reading) == "misread"
    del reading.board.cells[-18:]  # a row on screen lost
    assert trust.classify(case, "none", reading) == "misread"


def test_an_8_drawn_like_the_3s_is_not_outvoted_into_a_3():
    """With camera-like noise on a small dark screen the 8s correlate with the 3s enough to join
    their group; tesseract read each 8 as 8 at both ink levels, and the 3s' majority made them 3s
    (a silent misread the trust benchmark found). Now they are unsure, never 3."""
    png = "720x1600/dark/numbermatch_midgame.png"
    image, truth = fixture(png)
    noisy = trust.noise(trust.Case(png, image, "numbermatch"), image)
    reading = vision.read(noisy, first_row=truth["first_row"])
    claims_nothing_wrong(reading, truth)
    eights = [k for k, v in enumerate(truth["board"]["cells"]) if v == 8]
    assert eights and all(reading.board.cells[k] == 8 or k in reading.unsure for k in eights)
