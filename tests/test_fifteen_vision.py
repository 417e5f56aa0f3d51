"""The 15-puzzle reader on every phonesim fixture (both looks, light and dark, PNG, JPEG and
half-size), its place in the game detection, and tiles it must not guess."""

import json
from pathlib import Path

import cv2
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
