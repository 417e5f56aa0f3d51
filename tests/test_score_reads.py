"""Reads during play: the score, adds and stage of every screen of a phonesim game equal the
truth, and a digit read once is matched by template, in this game and the next on the phone."""

import pytest

from assistant.link import Link
from assistant.session import Session
from phonesim import apps
from phonesim.phone import PRESETS


class StubDevice:
    """Just enough of assistant.phone.device.Device for a session's look: a model and a capture."""

    screen = None  # (no Screen of a phone: captures only)

    def __init__(self, app, model):
        self.app, self.model, self.serial = app, model, "stub"

    def capture(self):
        return self.app.render()


@pytest.fixture
def tesseract_calls(monkeypatch):
    """Every tesseract process run, counted."""
    from vision import tesseract

    calls = []
    real = tesseract.call

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(tesseract, "call", counted)
    return calls


def play(session, app, calls, moves=16, expect=None):
    """Make ``moves`` moves (a pair on screen, else an add) reading the screen before each;
    the tesseract calls made by each read. ``expect``: the numbers predicted for a board (its
    truth), given to every read but the first."""
    per_read = []
    for k in range(moves):
        truth = app.truth()
        assert truth["screen"] == "board"
        n = len(calls)
        _, reading = session.look("numbermatch", expect=expect(truth["board"]) if expect and k else None)
        per_read.append(len(calls) - n)
        b = truth["board"]
        assert (reading.board.score, reading.board.adds_left, reading.board.stage) == \
            (b["score"], b["adds_left"], b["stage"]), f"read {len(per_read)}"
        assert reading.board.cells == b["cells"][:len(reading.board.cells)]
        cells = truth["cells"]
        pair = next((p for p in app.board.pairs() if str(p.i) in cells and str(p.j) in cells), None)
        taps = [cells[str(pair.i)], cells[str(pair.j)]] if pair else [truth["add_button"]]
        for x, y, w, h in taps:
            app.tap(x + w // 2, y + h // 2)
    return per_read


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_score_digits_are_learned_once_per_phone(tmp_path, monkeypatch, tesseract_calls):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    preset = PRESETS["720x1600"]
    # the first game on the phone: tesseract only for a digit not seen before in its font
    app = apps.create("numbermatch", preset, seed=3)
    first = play(Session(Link(StubDevice(app, preset.model), say=lambda _: None), keep=True), app, tesseract_calls)
    assert sum(first[1:]) <= 10, first  # score 0-9 and a few badge digits, each once
    # the next game on the same phone, with the stored profile: no tesseract at all
    app = apps.create("numbermatch", preset, seed=3)
    second = play(Session(Link(StubDevice(app, preset.model), say=lambda _: None), keep=True), app, tesseract_calls)
    assert sum(second) == 0, second


def test_a_number_read_as_predicted_needs_no_tesseract_and_one_read_otherwise_still_does(
        tmp_path, monkeypatch, tesseract_calls):
    """The loop gives a settled read the numbers its prediction says the screen shows: a score
    the phone's drawn fonts read as one of them is taken without tesseract (a tenth of a second
    a read, on the judging path, each time a digit is new to the score in a phone's first game)
    and learned; a number the prediction got wrong is read by tesseract as before."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    preset = PRESETS["720x1600"]
    app = apps.create("numbermatch", preset, seed=3)

    def predicted(board):
        return {"score": {board["score"]}, "adds_left": {board["adds_left"]}, "stage": {board["stage"]}}

    session = Session(Link(StubDevice(app, preset.model), say=lambda _: None), keep=True)
    first = play(session, app, tesseract_calls, expect=predicted)
    assert first[0] > 0 and sum(first[1:]) == 0, first  # (the first read has no prediction)
    # the digits taken on the prediction were learned: the next game reads them by template
    app = apps.create("numbermatch", preset, seed=3)
    second = play(Session(Link(StubDevice(app, preset.model), say=lambda _: None), keep=True), app, tesseract_calls)
    assert sum(second) == 0, second

    def wrong(board):  # (a points table that scores the phone's moves otherwise)
        return {"score": {board["score"] + 7}}

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "another"))  # (a phone new to tapsolve again)
    app = apps.create("numbermatch", preset, seed=3)
    n = len(tesseract_calls)
    play(Session(Link(StubDevice(app, preset.model), say=lambda _: None)), app, tesseract_calls, moves=12,
         expect=wrong)  # (``play`` asserts every score read is the truth, not the prediction)
    assert len(tesseract_calls) > n


def test_scores_with_thousands_separators(tesseract_calls):
    """A score of thousands is drawn with commas: they are no digits (so the digits are still
    learned, then matched), and a score of seven glyphs is still the score line (not the row of
    cleared numbers below it)."""
    import vision

    app = apps.create("numbermatch", PRESETS["720x1600"], seed=1)
    profile, calls = None, []
    for score in (0, 1234, 56789, 1234, 901234, 56789, 998, 1000):
        app.board.score = score
        n = len(tesseract_calls)
        reading = vision.read(app.render(), "numbermatch", profile)
        reading.learn()
        profile = reading.profile
        calls.append(len(tesseract_calls) - n)
        assert reading.board.score == score
    assert sum(calls[3:]) == 0, calls  # every digit 0-9 was seen by the third screen


def test_a_prediction_counts_only_for_the_digits_as_drawn(monkeypatch):
    """The prediction stands in for tesseract only when the drawn fonts read its very digits:
    glyphs read "07" (an icon taken for a 0 beside a 7) are no score of 7, and tesseract is
    asked, as for any number not predicted."""
    import numpy as np

    from vision import digits, glyphs

    ink = np.zeros((30, 50), np.float32)
    ink[5:25, 5:15] = ink[5:25, 30:40] = 1.0  # (two glyphs)
    asked = []
    monkeypatch.setattr(digits, "ocr_number", lambda line: asked.append(1) or None)
    monkeypatch.setattr(digits, "drawn_font_read", lambda parts: "07")
    digits.read_number(ink, glyphs.Templates(), expect={7})
    assert asked == [1]
    monkeypatch.setattr(digits, "drawn_font_read", lambda parts: "17")
    value, learned = digits.read_number(ink, glyphs.Templates(), expect={17})
    assert asked == [1] and value == 17 and learned
