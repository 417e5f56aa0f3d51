"""The 15-puzzle reader on every phonesim fixture (both looks, light and dark, PNG, JPEG and
half-size), on random app skins at screens of 320x569 to 1440x2960 and in a store image, its
place in the game detection, and tiles it must not guess."""

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision
from vision.image import ReadError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
INDEX = json.loads((FIXTURES / "index.json").read_text())
FIFTEEN = [e for e in INDEX if e["game"] == "fifteen"]
GROUPS = sorted({(e["preset"], e["theme"]) for e in FIFTEEN})


def load(entry):
    return vision.load_image(FIXTURES / entry["png"]), json.loads((FIXTURES / entry["json"]).read_text())


def jpeg(image, scale=1.0, quality=70):
    h, w = image.shape[:2]
    if scale != 1.0:
        image = cv2.resize(image, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def check(reading, truth, scale=1.0):
    """The reading is the truth's board and screen, sure of every tile, each cell's centre
    inside the cell the phone drew."""
    assert reading.game == "fifteen" and reading.unsure == []
    assert reading.board.tiles == truth["board"]["tiles"]
    assert reading.screen == truth["screen"]
    assert sorted(reading.cells) == sorted(int(k) for k in truth["cells"])
    for cell, (x, y, w, h) in truth["cells"].items():
        cx, cy = reading.cells[int(cell)]
        assert abs(cx - (x + w / 2) * scale) <= w * scale / 4 and abs(cy - (y + h / 2) * scale) <= h * scale / 4


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("preset,theme", GROUPS)
def test_every_fixture_reads_exactly_as_png_jpeg_and_half_size(preset, theme):
    """The first screen of a group is recognised with no game given; the rest are read as a
    phone is, with the profile the earlier reads built."""
    profiles = {}
    for entry in [e for e in FIFTEEN if e["preset"] == preset and e["theme"] == theme]:
        image, truth = load(entry)
        for variant, picture, scale in (("png", image, 1.0), ("jpeg", jpeg(image), 1.0),
                                        ("half", jpeg(image, 0.5), 0.5)):
            profile = profiles.get(variant)
            reading = vision.read(picture, "auto" if profile is None else "fifteen", profile)
            check(reading, truth, scale)
            reading.learn()
            profiles[variant] = reading.profile


@pytest.mark.parametrize("png", ["1080x2400/light/numbermatch_fresh.png", "720x1600/dark/numbermatch_midgame.png",
                                 "1080x2400/light/flip9_cards_fresh.png", "1440x3200/dark/flip9_buttons_midgame.png",
                                 "1080x2400/light/numbermatch_stage_complete.png"])
def test_other_games_are_not_read_as_a_15_puzzle(png):
    with pytest.raises(ReadError, match="15-puzzle"):
        vision.read(vision.load_image(FIXTURES / png), "fifteen")


def paint_over(image, rect, symbol):
    x, y, w, h = rect
    out = image.copy()
    face = out[y + h // 10, x + w // 2].tolist()
    out[y + h // 5:y + h - h // 5, x + w // 5:x + w - w // 5] = face
    cv2.putText(out, symbol, (x + w // 3, y + 2 * h // 3), cv2.FONT_HERSHEY_SIMPLEX, w / 60, (0, 0, 0), max(2, w // 25))
    return out


def test_a_doubtful_tile_is_unsure_not_guessed():
    image, truth = load(next(e for e in FIFTEEN if e["png"] == "1080x2400/light/fifteen_tiles_fresh.png"))
    tiles = truth["board"]["tiles"]
    cell = next(c for c, t in enumerate(tiles) if t)
    reading = vision.read(paint_over(image, truth["cells"][str(cell)], "#"), "fifteen")
    # the painted tile is unsure; if its mark was taken for a number, the tile that really
    # has that number clashes with it and is unsure too: neither is guessed
    assert reading.board is None and cell in reading.unsure and len(reading.unsure) <= 2
    assert "unsure" in reading.text()


def test_two_tiles_swapped_on_screen_are_not_trusted():
    """Two tiles swapped is a board the rules cannot reach: some tile must be misread."""
    image, truth = load(next(e for e in FIFTEEN if e["png"] == "1080x2400/dark/fifteen_grid_midgame.png"))
    tiles = truth["board"]["tiles"]
    a, b = [c for c, t in enumerate(tiles) if t][:2]
    ra, rb = truth["cells"][str(a)], truth["cells"][str(b)]
    swapped = image.copy()
    pa = image[ra[1]:ra[1] + ra[3], ra[0]:ra[0] + ra[2]]
    pb = image[rb[1]:rb[1] + rb[3], rb[0]:rb[0] + rb[2]]
    swapped[ra[1]:ra[1] + ra[3], ra[0]:ra[0] + ra[2]] = pb
    swapped[rb[1]:rb[1] + rb[3], rb[0]:rb[0] + rb[2]] = pa
    reading = vision.read(swapped, "fifteen")
    assert reading.board is None and len(reading.unsure) == len(tiles) - 1
    assert any("cannot be a real board" in note for note in reading.notes)


def test_read_command_prints_the_board(tmp_path):
    from helpers import tapsolve

    run = tapsolve("read", str(FIXTURES / "1440x3200/light/fifteen_grid_midgame.png"), "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    truth = json.loads((FIXTURES / "1440x3200/light/fifteen_grid_midgame.json").read_text())
    assert out["game"] == "fifteen" and out["board"] == truth["board"] and out["unsure"] == []
    text = tapsolve("read", str(FIXTURES / "1440x3200/light/fifteen_grid_solved.png"))
    assert text.stdout.splitlines() == ["15-puzzle 3x3, solved", "1 2 3", "4 5 6", "7 8 _"]


def test_a_phone_with_another_games_profile_still_recognises_the_15_puzzle():
    """A Number Match profile stored for this phone is tried first, not alone."""
    from assistant import session

    image, _ = load(next(e for e in INDEX if e["png"] == "1080x2400/light/numbermatch_fresh.png"))
    assert session.read(image, "Test Phone", "auto").game == "numbermatch"
    image, truth = load(next(e for e in FIFTEEN if e["png"] == "1080x2400/light/fifteen_tiles_fresh.png"))
    reading = session.read(image, "Test Phone", "auto")
    assert reading.game == "fifteen" and reading.board.tiles == truth["board"]["tiles"]
    assert not reading.profile_stale


# -- any app's look: phonesim's random skins ------------------------------------------------------

from phonesim import apps  # noqa: E402
from phonesim.app import Preset  # noqa: E402

# screens from the smallest real 15-puzzle screenshots (320x569) to a 1440x2960 phone
SCREENS = ((320, 569), (720, 1280), (1080, 2400), (1440, 2960))


def skin_app(skin: int, screen=(1080, 2400), **options):
    w, h = screen
    preset = Preset(f"{w}x{h}", w, h, 160, "Skin phone", "skin", "skin", "roboto", max(20, w // 15))
    return apps.create("fifteen", preset, seed=skin, skin=skin, **options)


def check_skin(reading, app, scale=1.0, offset=(0, 0)):
    """Read exactly, sure, each tap point inside its cell as the app drew it."""
    assert reading.game == "fifteen" and reading.sure, reading.text()
    assert reading.board.tiles == app.board.tiles
    for cell, (x, y, w, h) in app.cell_rects().items():
        cx, cy = reading.cells[cell]
        assert abs(cx - offset[0] - (x + w / 2) * scale) <= w * scale / 4
        assert abs(cy - offset[1] - (y + h / 2) * scale) <= h * scale / 4


# skins drawn at random (seeded), each at one of the screens in turn: no one skin is tuned for
@pytest.mark.parametrize("skin", random.Random(38).sample(range(10_000, 100_000), 24))
def test_a_random_skin_reads_exactly_on_any_screen(skin):
    app = skin_app(skin, SCREENS[skin % len(SCREENS)])
    check_skin(vision.read(app.render(), "auto"), app)


@pytest.mark.slow
@pytest.mark.parametrize("skin", random.Random(39).sample(range(10_000, 100_000), 16))
def test_a_random_skin_reads_exactly_as_jpeg_and_with_the_profile_it_built(skin):
    """A first read learns the app's glyphs; a read with that profile needs no tesseract."""
    app = skin_app(skin, SCREENS[skin % len(SCREENS)])
    first = vision.read(jpeg(app.render(), quality=85), "auto")
    check_skin(first, app)
    first.learn()
    app.tap_on_cell(app.board.tiles.index(app.board.legal_moves()[0]))  # a slide: the board changed
    again = vision.read(app.render(), "fifteen", first.profile, use_tesseract=False)
    check_skin(again, app)


def in_store_frame(screen: np.ndarray) -> tuple[np.ndarray, float, tuple[int, int]]:
    """A store image: the screenshot shrunk inside a dark phone body on a coloured backdrop, a
    caption above it. The image, the screenshot's scale and its top-left corner in it."""
    scale = 0.45
    small = cv2.resize(screen, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    out = np.full((int(h * 1.45), int(w * 1.6), 3), (70, 110, 160), np.uint8)
    x0, y0 = (out.shape[1] - w) // 2, int(h * 0.35)
    cv2.rectangle(out, (x0 - 24, y0 - 60), (x0 + w + 24, y0 + h + 60), (25, 25, 28), -1)
    cv2.putText(out, "Classic mode", (x0, y0 - 100), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (255, 255, 255), 3)
    out[y0:y0 + h, x0:x0 + w] = small
    return out, scale, (x0, y0)


@pytest.mark.parametrize("skin", [20_001, 20_002, 20_003])
def test_a_store_image_of_the_screen_inside_a_device_frame_reads(skin):
    app = skin_app(skin, (1080, 2400))
    image, scale, offset = in_store_frame(app.render())
    check_skin(vision.read(image, "auto"), app, scale, offset)


def test_a_timer_ticking_in_the_header_is_left_out_of_stillness_but_not_the_board():
    app = skin_app(next(k for k in range(30_000, 31_000) if skin_app(k).skin.header))
    reading = vision.read(app.render(), "fifteen")
    rects = app.cell_rects().values()
    top, bottom = min(r[1] for r in rects), max(r[1] + r[3] for r in rects)
    ticking = reading.ticking
    assert any(y0 <= app.preset.status_bar + 2 * app.unit <= y1 for _, y0, _, y1 in ticking)  # the timer's line
    assert not any(y0 < bottom and y1 > top for _, y0, _, y1 in ticking)  # no tile


def test_glyphs_are_learned_only_from_a_sure_read():
    app = skin_app(40_001)
    rect = app.cell_rects()[app.board.tiles.index(app.board.legal_moves()[0])]
    painted = vision.read(paint_over(app.render(), rect, "#"), "fifteen")
    assert not painted.sure and "tile" not in painted.learned.fonts
    sure = vision.read(app.render(), "fifteen")
    assert sure.sure and len(sure.learned.fonts["tile"]) >= 9
    assert sure.learned.geometry["size"] == app.width


def test_a_board_that_is_no_permutation_is_unsure_with_why():
    """Two tiles showing one number: neither is guessed, each says why."""
    app = skin_app(40_002, width=4)
    tiles = app.board.tiles
    a, b = [c for c, t in enumerate(tiles) if t][:2]
    image = app.render()
    ra, rb = app.cell_rects()[a], app.cell_rects()[b]
    image[rb[1]:rb[1] + rb[3], rb[0]:rb[0] + rb[2]] = image[ra[1]:ra[1] + ra[3], ra[0]:ra[0] + ra[2]]
    reading = vision.read(image, "fifteen")
    assert reading.board is None and {a, b} <= set(reading.unsure)
    assert reading.unsure_why[str(a)] == f"{tiles[a]} read on two tiles"


@pytest.mark.slow
def test_no_other_games_screen_is_taken_for_a_15_puzzle():
    """Every Number Match and Flip 9 fixture and real screenshot: no 15-puzzle board, sure or not."""
    others = [FIXTURES / e["png"] for e in INDEX if e["game"] != "fifteen"]
    others += sorted((ROOT.parent / "shared" / "realshots").glob("*.jpg"))  # (where CI lays shared/)
    # a phone that played a 15-puzzle app: its stored board's place is searched first, never alone
    stored = {}
    for theme in ("light", "dark"):
        app = skin_app(next(k for k in range(70_000, 71_000) if (skin_app(k).theme.name == theme)), (1080, 2400))
        first = vision.read(app.render(), "fifteen")
        first.learn()
        stored[theme] = first.profile
    for png in others:
        image = vision.load_image(png)
        with pytest.raises(ReadError, match="15-puzzle"):
            vision.read(image, "fifteen")
        profile = stored[vision.image.theme(vision.image.background(image))]
        if profile.fits(image):
            with pytest.raises(ReadError, match="15-puzzle"):
                vision.read(image, "fifteen", profile)


def test_a_stored_geometry_is_checked():
    from vision.schema import problem

    base = {"version": 1, "game": "fifteen", "width": 1080, "height": 2400, "theme": "light", "model": "P",
            "colours": {}, "fonts": {}}
    assert problem({**base, "geometry": {"board": [50, 400, 980, 980], "size": 4}}) is None
    assert problem({**base, "geometry": {}, "points": {"slides_by_swipe": 1}}) is None  # (play's one entry)
    assert "slides_by_swipe" in problem({**base, "geometry": {}, "points": {"touching": 1}})
    assert "inside" in problem({**base, "geometry": {"board": [500, 400, 980, 980], "size": 4}})
    assert "size" in problem({**base, "geometry": {"board": [50, 400, 980, 980], "size": 9}})
