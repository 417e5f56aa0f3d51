"""The reader on phonesim's fixtures and on real screenshots: every cell, the badge, stage and
score, the geometry taps use, Flip 9, the screens between boards, profiles and bad input."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from assistant import session
from calibration import store
from helpers import tapsolve
from vision.glyphs import Templates
from vision.profile import Profile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
REAL = ROOT.parent / "shared" / "realshots"
INDEX = json.loads((FIXTURES / "index.json").read_text())
GROUPS = sorted({(e["preset"], e["theme"]) for e in INDEX})
STATES = ["fresh", "midgame", "after_adds", "tall_scrolled", "tall_partial"]


def fixture(entry):
    return vision.load_image(FIXTURES / entry["png"]), json.loads((FIXTURES / entry["json"]).read_text())


def entries(game, preset, theme):
    return [e for e in INDEX if e["game"] == game and e["preset"] == preset and e["theme"] == theme]


def centre(rect):
    x, y, w, h = rect
    return x + w / 2, y + h / 2


def near(point, rect, share=1 / 3):
    """Whether a tap point lies within a third of the rect's size of its centre."""
    cx, cy = centre(rect)
    return abs(point[0] - cx) <= rect[2] * share and abs(point[1] - cy) <= rect[3] * share


def check_numbermatch(reading, truth):
    """The reading shows exactly the truth's visible cells, badge, stage, score, selection,
    scrolling, and puts every cell and the "+" where the phone drew them."""
    assert reading.game == "numbermatch" and reading.screen == "board"
    shown = sorted(int(k) for k in truth["cells"])
    want = [truth["board"]["cells"][i] for i in shown]
    assert reading.board.cells == want
    assert reading.unsure == [] and reading.sure, reading.unsure_why
    b = truth["board"]
    assert (reading.board.adds_left, reading.board.stage, reading.board.score) == (b["adds_left"], b["stage"], b["score"])
    assert reading.selected == truth["selected"]
    assert (reading.more_above, reading.more_below) == (truth["more_above"], truth["more_below"])
    assert sorted(reading.cells) == shown
    for index, rect in truth["cells"].items():
        assert near(reading.cells[int(index)], rect), index
    assert near(reading.add_button, truth["add_button"])


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("preset,theme", GROUPS)
def test_number_match_fixtures_read_exactly(preset, theme):
    """A session on one phone: the first screenshot is read on first contact (tesseract), the
    next ones with the profile it built, as the assistant does."""
    profile = None
    for state in STATES:
        entry = next(e for e in entries("numbermatch", preset, theme) if e["state"] == state)
        image, truth = fixture(entry)
        reading = vision.read(image, profile=profile, first_row=truth["first_row"])
        check_numbermatch(reading, truth)
        assert not reading.profile_stale
        reading.learn()
        profile = reading.profile
        if state == "tall_partial":  # a row cut by the top border shows the board goes on above
            assert vision.read(image, profile=profile).more_above
    # what was learned is what the boards showed: every digit that appeared, no other
    shown = {str(c) for e in entries("numbermatch", preset, theme) if e["state"] in STATES
             for c in json.loads((FIXTURES / e["json"]).read_text())["board"]["cells"] if c}
    assert set(profile.font("cell").known()) <= shown


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("preset,theme", GROUPS)
def test_screens_between_boards(preset, theme):
    for entry in entries("numbermatch", preset, theme):
        if entry["screen"] == "board":
            continue
        image, truth = fixture(entry)
        reading = vision.read(image)
        assert (reading.screen, reading.board) == (truth["screen"], None)
        assert sorted(reading.buttons) == sorted(truth["buttons"])
        for name, rect in truth["buttons"].items():
            assert near(reading.buttons[name], rect), name


# Flip 9 first contact costs a few tesseract calls per screen: half the groups here, every
# fixture in `benchmarks/bench_read.py` (which reports the cell accuracy over all of them)
FLIP9_GROUPS = [("720x1600", "light"), ("1080x2400", "dark"), ("1440x3200", "light"),
                ("tablet-1600x2560", "dark"), ("1080x2340-2022", "light")]


@pytest.mark.slow
@pytest.mark.parametrize("preset,theme", FLIP9_GROUPS)
def test_flip9_fixtures_read_exactly(preset, theme):
    profile = None
    for entry in entries("flip9", preset, theme):
        image, truth = fixture(entry)
        reading = vision.read(image, profile=profile)
        assert reading.game == "flip9" and reading.screen == "board"
        if entry["state"].endswith("winner"):
            # sorted: the card the last swap forced is drawn nowhere (and no longer matters)
            assert list(reading.state.cards) == truth["state"]["cards"] == list(range(1, 10))
        else:
            assert reading.state.to_json() == truth["state"], entry["png"]
        assert sorted(reading.buttons) == sorted(truth["buttons"])
        for name, rect in truth["buttons"].items():
            assert near(reading.buttons[name], rect), name
        for position, rect in truth["cards"].items():
            assert near(reading.cells[int(position)], rect), position
        reading.learn()
        profile = reading.profile


# the 216x475 screenshot's 12 px digits read where tesseract and the drawn phone fonts agree
# clearly, the rest unsure, never wrong (tests/test_realshots.py, tests/test_trust.py)
@pytest.mark.parametrize("name", ["tablet_1600x2560_stage1.jpg"])
def test_real_screenshots_read_exactly(name):
    label = json.loads((REAL / "labels.json").read_text())[name]
    reading = vision.read(vision.load_image(REAL / name))
    assert reading.game == "numbermatch" and reading.screen == "board"
    assert reading.board.format() == label["board"]
    assert reading.unsure == []
    assert (reading.board.adds_left, reading.board.stage, reading.board.score) == (
        label["refills_left"], label["stage"], label["score"])
    # every cell is tapped inside itself: centres one pitch apart, nine to a row
    xs = sorted({x for x, _ in reading.cells.values()})
    assert len(xs) == 9 and np.allclose(np.diff(xs), reading.pitch, atol=2)


def jpeg_half(image):
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(small, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 70])
    return cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("png", ["1080x2400/light/numbermatch_midgame.png", "1080x2400/dark/numbermatch_after_adds.png",
                                 "1440x3200/light/numbermatch_tall_scrolled.png"])
def test_jpeg_and_half_size_still_read_exactly(png):
    image, truth = vision.load_image(FIXTURES / png), json.loads((FIXTURES / png.replace(".png", ".json")).read_text())
    reading = vision.read(jpeg_half(image), first_row=truth["first_row"])
    half = json.loads(json.dumps(truth))
    half["cells"] = {k: [v / 2 for v in r] for k, r in truth["cells"].items()}
    half["add_button"] = [v / 2 for v in truth["add_button"]]
    check_numbermatch(reading, half)


def test_flip9_jpeg_and_half_size():
    png = "1080x2400/dark/flip9_cards_midgame.png"
    truth = json.loads((FIXTURES / png.replace(".png", ".json")).read_text())
    reading = vision.read(jpeg_half(vision.load_image(FIXTURES / png)))
    assert reading.state.to_json() == truth["state"]


def test_a_profile_reads_without_tesseract_and_survives_storing(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    image, truth = fixture(next(e for e in INDEX if e["png"] == "1080x2400/light/numbermatch_after_adds.png"))
    reading = session.read(image, "Pixel 7")
    path = store.profile_path("Pixel 7", 1080, 2400, "numbermatch", "light")
    assert path.exists()
    profile = store.load(path)
    again = vision.read(image, profile=profile, use_tesseract=False)
    check_numbermatch(again, truth)
    assert not again.profile_stale and reading.board.cells == again.board.cells


def board_drawn(cells, ghost, preset="1080x2400"):
    """phonesim's Number Match board of these cells (0: crossed out, its digit the ghost's), still."""
    from phonesim import apps
    from phonesim.phone import PRESETS
    from solver.numbermatch import Board

    app = apps.create("numbermatch", PRESETS[preset], seed=1)
    app.board = Board(cells=list(cells), adds_left=4, score=221, stage=1, rules=app.board.rules)
    app.ghost = list(ghost)
    return app.render()


def test_few_live_numbers_among_many_crossed_out_read_as_the_only_live_ones():
    """The live digits' ink is the strongest cells' (not a share of all cells': on a board
    of one live number a row among 32 crossed out, those would be crossed-out ones, read live;
    a row with none live is on its way out, see below)."""
    digits = [1 + (k * 7) % 9 for k in range(36)]
    cells = [d if k % 9 == 2 else 0 for k, d in enumerate(digits)]
    reading = vision.read(board_drawn(cells, digits))
    assert reading.sure and reading.board.cells == cells


def test_a_board_whose_numbers_are_all_crossed_out_is_never_read_for_sure(tmp_path, monkeypatch):
    """The moment a stage's last pair has faded, before its rows go, no number on the board is
    live. Read with the profile that learned this phone's live ink, its cells are crossed out
    and the read is not sure (caught moving): not a board the game ever stands still on, and
    the profile is not rebuilt from it (a fresh read, without that ink, takes them for live)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    digits = [4, 4, 3, 6, 6, 2, 3, 8, 5, 3, 8, 1]
    session.read(board_drawn(digits, digits), "Pixel 7")
    before = [0, 0, 3, 0, 0, 0, 0, 0, 0, 3, 0, 0]
    assert session.read(board_drawn(before, digits), "Pixel 7").board.cells == before  # (its ink learned)
    path = store.profile_path("Pixel 7", 1080, 2400, "numbermatch", "light")
    assert store.load(path).colours["live_ink"] > 0
    stored = path.read_text()
    notes = []
    reading = session.read(board_drawn([0] * 12, digits), "Pixel 7", note=notes.append)
    assert not reading.sure and vision.CAUGHT_MOVING in reading.unsure_why
    assert not any(reading.board.cells) and notes == [] and path.read_text() == stored
    assert session.read(board_drawn([0] * 12, digits), "Pixel 7", stored_only=True) is None  # (a video frame)


def test_a_row_whose_numbers_are_all_crossed_out_is_a_row_on_its_way_out(tmp_path, monkeypatch):
    """No still board shows a row with every number crossed out: it goes with its pair, or (the
    row-removal window of seed 004, phonesim's --row-window) a moment later. Caught waiting, the
    board is read as it stands but not for sure (caught moving: looked at again), so play that
    does not plan for the window never takes the row for the board it waits for."""
    from phonesim import apps
    from phonesim.phone import PRESETS
    from solver.numbermatch import Board

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = apps.create("numbermatch", PRESETS["1080x2400"], seed=1, row_window=0.5)
    now = [100.0]
    app.clock = lambda: now[0]
    app.board = Board.parse("234567822 19....... 834567822 5", adds_left=4, rules=app.rules)
    app.tap_on_cell(9)
    app.tap_on_cell(10)
    reading = session.read(app.render(), "Pixel 7")
    assert reading.board.cells == app.board.cells == [2, 3, 4, 5, 6, 7, 8, 2, 2] + [0] * 9 + [8, 3, 4, 5, 6, 7, 8,
                                                                                            2, 2, 5]
    assert not reading.sure and vision.CAUGHT_MOVING in reading.unsure_why
    now[0] += 1  # the window's seconds ran out: the row went
    reading = session.read(app.render(), "Pixel 7")
    assert reading.sure and reading.board.cells == app.board.cells and len(app.board.cells) == 19


def test_a_read_leaves_its_profile_as_it_was_and_learn_takes_in_what_it_learned():
    """Reading is a question: what a read learns (here the cells' glyphs, their templates
    dropped) is given apart, in ``reading.learned``, and only ``reading.learn()`` puts it in
    the profile the read was given."""
    fresh, _ = fixture(next(e for e in INDEX if e["png"] == "1080x2400/light/numbermatch_fresh.png"))
    first = vision.read(fresh)
    assert first.learned is first.profile  # first contact: the profile built is what it learned
    data = first.profile.to_json()
    data["fonts"]["cell"] = {}
    profile = Profile.from_json(data)
    image, truth = fixture(next(e for e in INDEX if e["png"] == "1080x2400/light/numbermatch_midgame.png"))
    reading = vision.read(image, profile=profile)
    check_numbermatch(reading, truth)
    assert profile.to_json() == data and not profile.changed  # the read changed nothing
    assert reading.profile is profile and reading.learned is not profile
    assert reading.learned.changed and len(reading.learned.font("cell")) > 0
    reading.learn()
    assert profile.changed and profile.font("cell").known() == reading.learned.font("cell").known()
    check_numbermatch(vision.read(image, profile=profile, use_tesseract=False), truth)  # learned for good


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_a_profile_that_no_longer_fits_is_rebuilt():
    light, _ = fixture(next(e for e in INDEX if e["png"] == "1080x2400/light/numbermatch_fresh.png"))
    profile = vision.read(light).profile
    for png in ("720x1600/light/numbermatch_midgame.png", "1080x2400/dark/numbermatch_midgame.png"):
        image, truth = vision.load_image(FIXTURES / png), json.loads((FIXTURES / png.replace(".png", ".json")).read_text())
        reading = vision.read(image, profile=profile)
        assert reading.profile_stale
        check_numbermatch(reading, truth)
    # the grid moved sideways on the same screen size: the profile's lines are not there any more
    moved = np.full_like(light, 255)
    moved[:, :-30] = light[:, 30:]
    reading = vision.read(moved, profile=profile)
    assert reading.profile_stale and reading.board.format().startswith("518452922")
    # up or down is what scrolling does: the rows are found again on every read
    moved = np.roll(light, 37, axis=0)
    reading = vision.read(moved, profile=profile)
    assert not reading.profile_stale and reading.board.format().startswith("518452922")


def test_a_doubtful_cell_is_reported_not_guessed():
    image, truth = fixture(next(e for e in INDEX if e["png"] == "1080x2400/light/numbermatch_fresh.png"))
    image = image.copy()
    for index, symbol in ((4, "#"), (13, "X")):
        x, y, w, h = truth["cells"][str(index)]
        image[y + 8:y + h - 8, x + 8:x + w - 8] = 255
        cv2.putText(image, symbol, (x + 25, y + 85), cv2.FONT_HERSHEY_SIMPLEX, 2.2, (0, 0, 0), 5)
    reading = vision.read(image)
    assert reading.unsure == [4, 13]
    cells = truth["board"]["cells"]
    assert [c for i, c in enumerate(reading.board.cells) if i not in (4, 13)] == \
        [c for i, c in enumerate(cells) if i not in (4, 13)]


def test_not_a_board_and_black_screens():
    rng = np.random.default_rng(1)
    photo = cv2.GaussianBlur(rng.integers(0, 255, (1200, 540, 3), dtype=np.uint8), (0, 0), 9)
    cv2.putText(photo, "Hello 123", (40, 300), cv2.FONT_HERSHEY_SIMPLEX, 2, (0, 0, 0), 3)
    for image in (photo, np.full((800, 400, 3), 255, np.uint8)):
        with pytest.raises(vision.ReadError, match=r"^no Number Match, Flip 9 or 15-puzzle board found$"):
            vision.read(image)
    with pytest.raises(vision.ReadError, match=r"^the screenshot is black: screen off or a secure window$"):
        vision.read(np.zeros((2400, 1080, 3), np.uint8))
    with pytest.raises(vision.ReadError, match="not an image"):
        vision.read("screen.png")


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_read_command(tmp_path):
    png = str(FIXTURES / "1080x2400/light/numbermatch_midgame.png")
    truth = json.loads(Path(png.replace(".png", ".json")).read_text())
    out = tapsolve("read", png, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["board"] == truth["board"] | {"cells": truth["board"]["cells"][:len(data["board"]["cells"])]}
    assert data["selected"] == truth["selected"] and near(data["add_button"], truth["add_button"])
    text = tapsolve("read", str(REAL / "phone_216x475_stage10.jpg"))
    assert text.returncode == 0
    rows = text.stdout.splitlines()[1:4]  # a digit not read for sure shows as "?", never guessed
    assert all(a in (b, "?") for row, want in zip(rows, ["761541629", "587238354", "149416182"])
               for a, b in zip(row, want)) and "?" in "".join(rows)
    assert "stage 10, score 14992, 4 adds left" in text.stdout
    assert text.stdout.splitlines()[-1].startswith("unsure: row ")


def test_the_text_names_rows_and_the_selected_cell_as_a_person_counts_them():
    scrolled = FIXTURES / "1080x2400/light/numbermatch_tall_partial.png"
    truth = json.loads(scrolled.with_suffix(".json").read_text())
    image, first, rows = vision.load_image(str(scrolled)), truth["first_row"], len(truth["cells"]) // 9
    unnumbered = vision.read(image, "numbermatch").text().splitlines()[0]  # where it stands is not on screen
    assert f"({rows} rows on screen, more above and below: rows counted from the top of the screen)" in unnumbered
    numbered = vision.read(image, "numbermatch", first_row=first).text().splitlines()[0]
    assert numbered.endswith(f"(rows {first + 1}-{first + rows} shown)")
    midgame = FIXTURES / "1080x2400/light/numbermatch_midgame.png"
    selected = json.loads(midgame.with_suffix(".json").read_text())["selected"]
    text = vision.read(vision.load_image(str(midgame)), "numbermatch").text()
    assert text.splitlines()[-1] == f"selected: row {selected // 9 + 1} column {selected % 9 + 1}"


def test_bad_input_on_the_command_line(tmp_path):
    not_image = tmp_path / "notes.png"
    not_image.write_text("hello")
    black = tmp_path / "black.png"
    cv2.imwrite(str(black), np.zeros((800, 400, 3), np.uint8))
    cases = [(str(tmp_path / "missing.png"), 2, "no such file"), (str(not_image), 2, "is not an image"),
             (str(black), 1, "the screenshot is black: screen off or a secure window")]
    for path, code, message in cases:
        out = tapsolve("read", path)
        assert out.returncode == code and message in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_corrupt_stored_profile_is_rebuilt_with_one_line(tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    env = dict(os.environ)
    png = str(FIXTURES / "720x1600/light/numbermatch_fresh.png")
    assert tapsolve("calibrate", "--image", png, "--model", "Galaxy A12", env=env).returncode == 0
    path = tmp_path / "tapsolve/profiles/galaxy-a12_720x1600_numbermatch_light.json"
    assert path.exists()
    path.write_text('{"version": 1, "game": "numbermatch", "fonts": {"cell": {"5": ')
    out = tapsolve("read", png, "--model", "Galaxy A12", env=env)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == f"tapsolve: the stored profile {path} is corrupt (not JSON): rebuilt it"
    assert store.load(path) is not None
    # a phone's read (through the store) does the same
    path.write_bytes(b"\x89\xff\x00garbage")
    notes = []
    reading = session.read(vision.load_image(png), "Galaxy A12", note=notes.append)
    assert reading.board is not None and "corrupt" in notes[0] and store.load(path) is not None


def test_templates_round_trip():
    t = Templates()
    g = np.zeros((24, 24), np.float32)
    g[4:20, 10:14] = 1
    t.add("1", g)
    back = Templates.from_json(json.loads(json.dumps(t.to_json())))
    assert back.known() == "1" and back.match([g])[0][0] == "1"
    with pytest.raises(ValueError):
        Profile.from_json({"version": 1, "game": "chess"})


def test_drawn_digits_are_drawn_once_and_kept(tmp_path, monkeypatch):
    from vision import fontmatch

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    drawn = fontmatch.draw(fontmatch.font_files())
    assert len(drawn) >= 10  # scripts/setup installs the fonts
    fontmatch.drawn_digits.cache_clear()
    try:
        first = fontmatch.drawn_digits()
        kept = list((tmp_path / "tapsolve").glob("drawn-digits-*.npy"))
        assert len(kept) == 1
        fontmatch.drawn_digits.cache_clear()
        monkeypatch.setattr(fontmatch, "draw", lambda fonts: pytest.fail("drawn again, not loaded"))
        loaded = fontmatch.drawn_digits()
        for got in (first, loaded):
            assert [d for d, _ in got] == [d for d, _ in drawn]
            assert all(a.dtype == b.dtype and np.array_equal(a, b) for (_, a), (_, b) in zip(got, drawn))
        # a file cut short is drawn again and replaced, not trusted
        kept[0].write_bytes(kept[0].read_bytes()[:300])
        monkeypatch.undo()
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        fontmatch.drawn_digits.cache_clear()
        again = fontmatch.drawn_digits()
        assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(again, drawn)) and len(again) == len(drawn)
        assert fontmatch.unpack(np.load(kept[0])) and len(fontmatch.unpack(np.load(kept[0]))) == len(drawn)
    finally:
        fontmatch.drawn_digits.cache_clear()


@pytest.mark.phone
def test_read_and_calibrate_from_a_phone(tmp_path):
    """`tapsolve calibrate --serial` and `tapsolve read --serial` on phonesim through real adb."""
    from phonesim import apps
    from phonesim.harness import Harness
    from phonesim.phone import PRESETS, Phone

    preset = PRESETS["1080x2400"]
    phone = Phone(preset, apps.create("numbermatch", preset, seed=3, theme="dark"))
    with Harness() as harness:
        vp = harness.add(phone)
        env = dict(harness.env, XDG_CONFIG_HOME=str(tmp_path))
        out = tapsolve("calibrate", "--serial", vp.serial, env=env)
        assert out.returncode == 0, out.stderr
        assert "calibrated Number Match on Pixel 7 (1080x2400, dark theme): learned the digits " in out.stdout
        assert (tmp_path / "tapsolve/profiles/pixel-7_1080x2400_numbermatch_dark.json").exists()
        out = tapsolve("read", "--serial", vp.serial, "--json", env=env)
        assert out.returncode == 0, out.stderr
        truth = phone.app.truth()
        assert json.loads(out.stdout)["board"] == truth["board"]
        out = tapsolve("read", "--serial", "nosuchphone", env=env)
        assert out.returncode != 0 and len(out.stderr.strip().splitlines()) == 1
        vp.stop()


def test_a_profile_keeps_the_learned_points_and_refuses_bad_ones():
    from vision.profile import Profile

    profile = Profile("numbermatch", 1080, 2400, points={"gap": 3})
    data = profile.to_json()
    assert data["points"] == {"gap": 3} and Profile.from_json(data).points == {"gap": 3}
    assert "points" not in Profile("numbermatch", 1080, 2400).to_json()   # optional
    for bad in ({"gapp": 3}, {"gap": -1}, {"gap": "3"}, [3]):
        with pytest.raises(ValueError):
            Profile.from_json({**data, "points": bad})


def test_a_tiny_screenshot_reads_no_cell_wrong_and_says_its_one_reason_once():
    png = FIXTURES / "1080x2400" / "light" / "numbermatch_fresh.png"
    image, truth = vision.load_image(png), json.loads(png.with_suffix(".json").read_text())["board"]["cells"]
    tiny = cv2.resize(image, (250, 555), interpolation=cv2.INTER_AREA)  # cells of 25 px, blurred
    reading = vision.read(tiny)  # tesseract and the drawn fonts agree on its digits, or it is unsure
    assert [k for k, c in enumerate(reading.board.cells) if k not in reading.unsure and c != truth[k]] == []
    reading = vision.read(tiny, use_tesseract=False)  # no template yet: no cell reads, for one reason
    unsure = reading.text().splitlines()[-1]
    assert unsure.startswith(f"unsure: all {len(reading.cells)} cells (") and len(reading.unsure) > 1
    assert unsure.count(reading.unsure_why[str(reading.unsure[0])]) == 1


def test_a_long_list_of_unsure_cells_is_said_as_the_rows_they_are_in():
    from vision.numbermatch import NumberMatchReading

    reading = NumberMatchReading("numbermatch", "board", cells={i: (0, 0) for i in range(63)})
    for i in range(9, 36):
        reading.doubt(i, "covered")
    for i in (37, 38, 39, 40, 41, 42, 43, 60):
        reading.doubt(i, "the digit did not read")
    words = reading.describe_unsure()
    assert words == "27 cells in rows 2–4 (covered), 8 cells in rows 5 and 7 (the digit did not read)"
    assert reading.text().splitlines()[-1] == "unsure: " + words  # (`read` too: never dozens of cells)


def test_each_reason_is_said_once_for_the_cells_it_holds_for():
    from vision.reading import Reading

    reading = Reading("numbermatch", "board", cells={i: (0, 0) for i in range(9)})
    for cell, why in ((0, "covered"), (1, "covered"), (2, "covered"), (7, "blurred"), ("adds_left", "no badge")):
        reading.doubt(cell, why)
    assert reading.describe_unsure(cells=2) == "3 cells (covered), 1 cell (blurred), the adds left (no badge)"
    assert reading.describe_unsure() == "cell 0, cell 1, cell 2 (covered), cell 7 (blurred), the adds left (no badge)"
