"""One owner of a read (assistant.session): only the session changes and saves a reading
profile; the link captures and touches without reading; what is saved is what the loader takes."""

import copy
import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import vision
from assistant import session as sessions
from assistant.animation import AnimationClock
from assistant.games.numbermatch import NumberMatch
from assistant.link import Link
from assistant.loop import Loop
from assistant.session import Session
from calibration import store
from helpers import ROOT, sound_profile
from phonesim import apps
from phonesim.phone import PRESETS
from test_architecture import import_graph, product_sources

SHOTS = ROOT / "fixtures" / "1080x2400" / "light"


def test_the_link_imports_no_reader_store_or_game():
    """The link captures and touches; what it captures is read by the session."""
    imported = import_graph(product_sources())["assistant.link"]
    assert not {m for m in imported if m.split(".")[0] in ("vision", "calibration")
                or m.startswith("assistant.games") or m == "assistant.session"}, imported


class TappedApp:
    """Just enough of a phone's Device for a link: phonesim's Number Match app, drawn and tapped
    in process (no Screen of a phone: captures only)."""

    screen = None
    serial = "in-process"

    def __init__(self, app, model):
        self.app, self.model = app, model

    def capture(self):
        return self.app.render()

    def taps(self, points):
        for x, y in points:
            self.app.tap(x, y)


def count_writers(monkeypatch) -> list[str]:
    """A store stand-in: the list it fills with the file of each caller of ``store.save``."""
    writers, save = [], store.save

    def counted(profile, path, note=None):
        writers.append(Path(inspect.stack()[1].filename).relative_to(ROOT).as_posix())
        return save(profile, path, note)

    monkeypatch.setattr(store, "save", counted)
    return writers


def test_only_the_session_saves_a_profile_through_a_whole_game(tmp_path, monkeypatch):
    """A store stand-in counts who writes: a whole stage played (reads, judgements, points and
    animation times learned) writes the profile only from assistant/session.py."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    writers = count_writers(monkeypatch)
    preset = PRESETS["1080x2400"]
    app = apps.create("numbermatch", preset, seed=2, size=10)
    loop = Loop(Session(Link(TappedApp(app, preset.model), say=lambda _: None), keep=True),
                game="numbermatch", say=lambda _: None, wait_unknown=1)
    loop.start()
    while loop.next_move is not None:
        move = loop.next_move
        loop.link.tap_all(loop.game.tap_points(move, loop.reading), kind=loop.game.animation(loop.position, move))
        assert loop.judge(move) == "done"
    assert app.screen == "stage_complete"
    sessions.save_counts()  # (as at exit)
    assert writers and set(writers) == {"assistant/session.py"}, writers
    stored = json.loads(next((tmp_path / "tapsolve" / "profiles").glob("*numbermatch*.json")).read_text())
    kept = stored["channels"]["exec"]  # (a stand-in with no channel of its own: an `input` call's times)
    assert kept["animations"] and kept["touches"]  # what play taught it, kept for the next game


def test_a_profile_its_loader_would_reject_is_never_written(tmp_path, monkeypatch):
    """Seen in the field: an animation bracket stored crossed ([latest seen moving, earliest seen
    still] = [0.3644, 0.3454]); the next command rejected the file and rebuilt it, losing what it
    had learned. The store now refuses to write what its loader would refuse, and says so."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    profile = sound_profile(model="Pixel 7", channels={"scrcpy": {"animations": {"pair": [0.3644, 0.3454]}}})
    path = store.profile_path("Pixel 7", 200, 400, "numbermatch", "light")
    notes = []
    assert store.save(profile, path, notes.append) is False and not path.exists()
    assert len(notes) == 1 and "not storing the reading profile" in notes[0]
    profile.channels = {"scrcpy": {"animations": {"pair": [0.3454, 0.3644]}}}
    assert store.save(profile, path, notes.append) and store.load(path).timing("scrcpy")[0] == {"pair": [0.3454, 0.3644]}


def test_an_animation_bracket_never_crosses_where_it_is_learned():
    """A time forgotten after early frames came too soon keeps the moment seen moving; a settle
    of two frames may then see the screen still sooner than that: the bracket is mended there,
    so the profile never holds latest-moving after earliest-still."""
    clock = AnimationClock()
    clock.touch("pair")
    clock.touched_at = 10.0
    clock.animation["pair"] = [0.3644, None]  # (as early_result leaves a time it forgets)
    clock.learn([10.3454, 10.40])  # two equal frames: still by the first, 0.3454 after the touch
    moving, still = clock.animation["pair"]
    assert moving <= still and abs(still - 0.3454) < 1e-9
    animations, _ = clock.known()
    kept = sound_profile(model="x", channels={"exec": {"animations": animations}}).to_json()
    assert kept["channels"]["exec"]["animations"]["pair"] == [moving, still]


def test_a_broken_profile_of_another_game_is_never_warned_about(tmp_path, monkeypatch):
    """A broken 15-puzzle profile stored for this phone warned in every Number Match read; only
    the game on screen's own stored file is the read's concern (and then rebuilt)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    image = vision.load_image(SHOTS / "numbermatch_fresh.png")
    broken = store.profile_path("Pixel 7", 1080, 2400, "fifteen", "light")
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json")
    notes = []
    assert sessions.read(image, "Pixel 7", "auto", note=notes.append).game == "numbermatch"
    assert notes == []
    own = store.profile_path("Pixel 7", 1080, 2400, "numbermatch", "light")
    own.write_text("{not json")
    sessions.read(image, "Pixel 7", "auto", note=notes.append)
    assert notes == [f"the stored profile {own} is corrupt (not JSON): rebuilt it"] and store.load(own) is not None


def test_a_question_and_a_position_change_nothing_in_the_game():
    """position() is pure: reading a board twice leaves the game as it was (it used to take the
    reading's profile's points into the game and write them to disk)."""
    game = NumberMatch()
    profile = sound_profile(1080, 2400, points={"touching": 3})
    board = vision.read(vision.load_image(SHOTS / "numbermatch_fresh.png"), "numbermatch").board
    reading = vision.Reading("numbermatch", "board", board=board, profile=profile)
    state = copy.deepcopy(vars(game))
    for _ in range(2):
        game.position(reading)
    assert vars(game) == state and game.rules.point_table["touching"] == 1


def test_the_session_chooses_the_quality_of_what_it_captures():
    """The session tells the link which capture it needs: lossless until a board is read for
    sure with a profile, video frames after; a screen that reads as nothing known is kept."""
    preset = PRESETS["1080x2400"]
    app = apps.create("numbermatch", preset, seed=2, size=10)
    link = Link(TappedApp(app, preset.model), say=lambda _: None)
    asked = []
    link.quality = lambda lossless: asked.append(lossless)
    session = Session(link)
    session.look("numbermatch")
    assert asked == [False] and session.profile is not None  # (a board read for sure: video next)
    app.render = lambda: np.full((2400, 1080, 3), 128, np.uint8)  # a screen with nothing on it
    try:
        session.look("numbermatch")
    except vision.ReadError:
        pass
    assert session.last_image[0, 0, 0] == 128


def test_times_learned_on_one_channel_never_start_another_channels_clock(monkeypatch):
    """A video frame's time is not a screencap's, nor is a touch handed over (scrcpy) one run
    before returning (`input`): the times a profile kept for scrcpy do not start a clock on the
    plain channel, each channel's are kept apart, and a channel that changes mid-run (the video
    ended) keeps what the clock learned on the one before."""
    preset = PRESETS["1080x2400"]
    link = Link(TappedApp(apps.create("numbermatch", preset, seed=2, size=10), preset.model), say=lambda _: None)
    profile = sound_profile(model=preset.model, channels={"scrcpy": {"animations": {"pair": [0.05, 0.06]},
                                                                      "touches": {"pair": 40}}})
    session = Session(link)
    session.profile = profile
    session.save()
    assert link.channel_name == "exec" and link.clock.animation == {} and link.clock.known() == ({}, {})
    link.clock.touch("pair")
    link.clock.touched_at = 10.0
    link.clock.learn([10.25, 10.5, 10.75])  # moving at 0.25 s, still by 0.5 s
    session.save()
    assert profile.timing("exec") == ({"pair": [0.25, 0.5]}, {"pair": 1})
    assert profile.timing("scrcpy") == ({"pair": [0.05, 0.06]}, {"pair": 40})  # as it was
    monkeypatch.setattr(Link, "channel_name", property(lambda self: "scrcpy"))
    session.save()  # (the channel changed: the clock starts from scrcpy's times)
    assert link.clock.animation == {"pair": [0.05, 0.06]} and profile.timing("exec")[0] == {"pair": [0.25, 0.5]}
    stored = store.Profile.from_json(json.loads(json.dumps(profile.to_json())))
    assert stored.channels == profile.channels


@pytest.mark.parametrize("kept", [False, 0.38])
def test_a_game_that_ignores_taps_while_it_animates_is_known_in_the_next_game(tmp_path, monkeypatch, kept):
    """Play found out that the game ignores a tap sent while it animates (losing taps to learn
    it): the session keeps it in the profile, and the next game on the phone starts sending no
    tap so (but one move, to see, when the phone lost other taps too, kept as their share:
    autoplay's recheck), saying why once."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    writers = count_writers(monkeypatch)
    preset = PRESETS["1080x2400"]

    def game():
        said = []
        link = Link(TappedApp(apps.create("numbermatch", preset, seed=2, size=10), preset.model), say=said.append)
        return Session(link, keep=True), said

    first, said = game()
    first.profile = sound_profile(model=preset.model)
    first.save()
    assert first.link.overlap and not said
    first.accepted(sessions.TAPS_WHILE_ANIMATING, kept)
    assert writers and set(writers) == {"assistant/session.py"}
    path = next((tmp_path / "tapsolve" / "profiles").glob("*numbermatch*.json"))
    second, said = game()
    second.profile = store.load(path)
    second.save()
    second.save()
    assert not second.link.overlap and second.accepts(sessions.TAPS_WHILE_ANIMATING) == kept
    assert said == [sessions.IGNORES_TAPS + " (seen in an earlier game on this phone)"]
