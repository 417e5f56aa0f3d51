"""The Number Match game class learns the phone's points table from the score changes it reads,
in its one learning step (``learn``), called by the loop once per judgement."""

import copy
import json

import numpy as np

from assistant import autoplay
from assistant.phone.device import connect
from assistant.games import Judgement
from assistant.games.numbermatch import NumberMatch
from assistant.link import Link
from assistant.loop import Loop
from assistant.record import Recorder
from assistant.session import Session
from phonesim import apps
from phonesim.phone import PRESETS, Faults, Phone
from solver.numbermatch import POINTS, Board, Pair
from vision.profile import Profile
import vision
from vision import ReadError
from vision.reading import Reading

BOARD = "192345678 234567822"  # 1 and 9 touch; crossing them out empties no row


def reading(board, profile=None):
    return Reading("numbermatch", "board", board=board, profile=profile)


def game_with(points=None):
    """A Number Match game that starts from the points a profile kept (``recall``)."""
    game = NumberMatch()
    game.recall(points or {})
    return game


def learn(game, expected, seen, before=None, move=None, how="settled"):
    """The game's one learning step on a judgement (the next stage's first board when there is
    no board before); the line it says, None when nothing."""
    how = "stage" if before is None and how == "settled" else how
    return game.learn(Judgement(before, move, expected, seen, how)).note


def phone_scores(game, before, move, points, read_score=True):
    """The board the phone shows after ``move`` when it scores the move ``points`` (its score
    not read: None, as the reader gives it)."""
    expected = game.after(before, move)
    shown = expected.copy()
    shown.score = before.score + points if read_score else None
    return expected, game.position(reading(shown))


def test_a_move_scored_otherwise_teaches_its_kind_once_and_the_profile_keeps_it():
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 3)
    assert game.same(seen, expected)                              # the board as predicted, but
    assert learn(game, expected, seen, before, Pair(0, 1)) == "this game scores touching pairs 3, not 1: learned"
    assert game.rules.point_table == {**POINTS, "touching": 3}   # (the plan is to be made again)
    assert game.points.kept() == {"touching": 3}
    expected, seen = phone_scores(game, before, Pair(0, 1), 3)    # as now predicted: nothing to say
    assert learn(game, expected, seen, before, Pair(0, 1)) is None and game.same(seen, expected)


def test_a_score_not_read_teaches_nothing():
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 3, read_score=False)
    assert learn(game, expected, seen, before, Pair(0, 1)) is None and game.points.learned == {}


def test_a_stored_entry_is_used_and_corrected_when_the_phone_scores_otherwise():
    game = game_with({"touching": 2})
    before = game.position(reading(Board.parse(BOARD)))
    assert game.rules.point_table["touching"] == 2                # from the first plan
    expected, seen = phone_scores(game, before, Pair(0, 1), 1)
    assert learn(game, expected, seen, before, Pair(0, 1)) == "this game scores touching pairs 1, not 2: learned"
    assert game.points.kept() == {"touching": 1}


ROW_GOES = "19....... 234567822"          # 1-9 touch and empty the first row
TWO_ROWS_GO = "1........ 9........ 55"    # 1 over 9 touch and empty two rows


def test_a_row_is_learned_from_a_pair_whose_kind_a_plain_move_bore_out():
    game = NumberMatch()
    before = game.position(reading(Board.parse(ROW_GOES)))
    game.points.confirmed.add("touching")                                # a plain touching pair bore it out
    expected, seen = phone_scores(game, before, Pair(0, 1), POINTS["touching"] + 25)
    assert learn(game, expected, seen, before, Pair(0, 1)) and game.points.learned == {"row": 25}


def test_a_row_is_learned_from_a_pair_whose_kind_the_profile_stored_without_a_plain_move():
    game = game_with({"touching": 3})
    before = game.position(reading(Board.parse(ROW_GOES)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 3 + 25)
    assert learn(game, expected, seen, before, Pair(0, 1)) == "this game scores each removed row 25, not 10: learned"
    assert game.points.kept() == {"touching": 3, "row": 25}


def test_a_row_worked_out_from_a_stored_entry_is_learned_again_when_that_entry_is_corrected():
    game = game_with({"touching": 3})
    before = game.position(reading(Board.parse(ROW_GOES)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 1 + 10)          # the phone: touching 1, row 10
    assert learn(game, expected, seen, before, Pair(0, 1)) and game.points.learned["row"] == 8  # from the stored touching 3
    plain = game.position(reading(Board.parse(BOARD)))
    expected, seen = phone_scores(game, plain, Pair(0, 1), 1)
    assert learn(game, expected, seen, plain, Pair(0, 1)) and game.points.learned == {"touching": 1, "row": 8}
    before = game.position(reading(Board.parse(ROW_GOES)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 1 + 10)
    assert learn(game, expected, seen, before, Pair(0, 1)) and game.points.learned == {"touching": 1, "row": 10}


def test_a_pair_and_its_rows_both_unknown_wait_and_are_solved_from_two_moves():
    game = NumberMatch()
    one = game.position(reading(Board.parse(ROW_GOES)))
    expected, seen = phone_scores(game, one, Pair(0, 1), 3 + 25)             # the phone: touching 3, row 25
    assert learn(game, expected, seen, one, Pair(0, 1)) is None and game.points.learned == {}  # cannot tell which differs
    assert game.summary() == ("; not learned yet: a move scoring touching pairs + each removed row got 28, "
                              "not 11: which of touching pairs and each removed row differs shows once a move "
                              "scores one of them without the others, or in other numbers")
    two = game.position(reading(Board.parse(TWO_ROWS_GO)))
    expected, seen = phone_scores(game, two, Pair(0, 9), 3 + 2 * 25)
    assert learn(game, expected, seen, two, Pair(0, 9)) == ("this game scores touching pairs 3, not 1: learned; "
                                                         "this game scores each removed row 25, not 10: learned")
    assert game.summary() == "; points learned: touching pairs 3, each removed row 25"


def test_the_cleared_board_bonus_is_learned_from_the_next_stage_header():
    game = NumberMatch()
    before = game.position(reading(Board.parse("19", score=100)))
    game.points.confirmed.update({"touching", "row"})                    # borne out earlier in the stage
    won = game.after(before, Pair(0, 1))
    assert game.ends(won)
    header = 100 + POINTS["touching"] + POINTS["row"] + 300       # the phone's bonus: 300
    for stage, cells in ((3, BOARD), (2, "1.2345678 234567822")):  # not the next stage; a pair played
        board = game.position(reading(Board.parse(cells, stage=stage, score=header)))
        assert learn(game, won, board) is None and game.points.learned == {}
    board = game.position(reading(Board.parse(BOARD, stage=2, score=header)))
    assert learn(game, won, board) == "this game scores a cleared board 300, not 150: learned"
    assert board.rules.point_table["clear"] == 300
    assert game.points.kept() == {"touching": 1, "row": 10, "clear": 300}   # what was borne out, and learned
    assert game.points.learned_after == {"clear": 1}


def test_a_glance_teaches_nothing_and_the_settled_screen_teaches_once():
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD)))
    expected, glanced = phone_scores(game, before, Pair(0, 1), 3)
    assert not game.shows(glanced, expected)                    # judged on a settled screen instead
    assert game.points.learned == {} and game.points.kind_moves["touching"] == 0
    _, settled = phone_scores(game, before, Pair(0, 1), 3)
    assert learn(game, expected, settled, before, Pair(0, 1)) == "this game scores touching pairs 3, not 1: learned"
    expected, glanced = phone_scores(game, before, Pair(0, 1), 1)
    assert game.shows(glanced, expected)                        # the score as predicted: taken


def test_a_kind_not_borne_out_waits_for_a_settled_screen_and_a_glanced_move_is_judged_with_the_next():
    game = NumberMatch()
    game.points.trusted = False  # (a score in this game differed from the table already)
    before = game.position(reading(Board.parse(BOARD)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 1)
    assert not game.shows(seen, expected)                       # touching pairs not borne out yet
    assert learn(game, expected, seen, before, Pair(0, 1)) is None and game.points.confirmed == {"touching"}
    expected, glanced = phone_scores(game, before, Pair(0, 1), 1)
    assert game.shows(glanced, expected)
    learn(game, expected, glanced, how="glance")                # taken, not judged
    assert game.points.kind_moves["touching"] == 1
    # 8 and 2 across the row break, judged on a settled screen whose score holds both moves
    expected, seen = phone_scores(game, glanced, Pair(8, 9), 5)
    assert learn(game, expected, seen, glanced, Pair(8, 9)) and game.points.learned == {"row_break": 5}
    assert game.points.kind_moves["touching"] == 2


def test_a_kind_an_earlier_game_bore_out_is_taken_on_a_glance():
    game = game_with({"touching": 1})
    game.points.trusted = False  # (even where kinds not borne out are judged alone)
    before = game.position(reading(Board.parse(BOARD), ))
    expected, glanced = phone_scores(game, before, Pair(0, 1), 1)
    assert game.shows(glanced, expected) and game.points.confirmed == set()


def test_kinds_not_borne_out_share_the_next_settled_score_until_one_does_not_add_up():
    """The table is most often right: until a score in the game differs from it, a move scoring
    a kind not borne out is judged as any other (on its early frame, ``in_place``, or a
    glance), and the next score read settled bears out every kind since, when it adds up. One
    that does not holds several unknowns: from then on such moves are judged alone."""
    game = NumberMatch()
    start = reading(Board.parse(BOARD))
    before = game.position(start)
    start.cells = {k: (100 + 50 * (k % 9), 300 + 50 * (k // 9)) for k in range(len(before.cells))}
    start.pitch, start.rows_visible = 50.0, 2
    assert game.in_place(before, Pair(0, 1), start) is not None  # judged on its early frame
    expected, glanced = phone_scores(game, before, Pair(0, 1), 1)
    assert game.shows(glanced, expected)
    learn(game, expected, glanced, how="glance")
    # 8 and 2 across the row break, settled: 1 + 2 as the table says bears out both kinds
    expected, seen = phone_scores(game, glanced, Pair(8, 9), 2)
    assert learn(game, expected, seen, glanced, Pair(8, 9)) is None
    assert game.points.confirmed == {"touching", "row_break"} and game.points.trusted
    # a phone that scores a gap 3, not 4: the score does not add up, and a gap is judged alone after
    other = NumberMatch()
    before = other.position(reading(Board.parse("1......98 234567822")))  # 1 and 9 across a gap
    expected, glanced = phone_scores(other, before, Pair(0, 7), 3)
    assert not other.shows(glanced, expected)  # (a score that differs: the settled screen's)
    assert learn(other, expected, glanced, before, Pair(0, 7)) and not other.points.trusted
    assert other.points.learned == {"gap": 3}
    assert other.points.judged_alone(other.after(expected, Pair(8, 9)))  # 8 and 2 across the row break: not borne out, alone now
    # a plan for the most points rests on the table: such a move is judged alone from the start
    scoring = NumberMatch("score")
    assert scoring.points.judged_alone(scoring.after(scoring.position(reading(Board.parse(BOARD))), Pair(0, 1)))


def test_questions_change_nothing():
    """same, shows and tap_points are questions: asked any number of times, the game is as it was."""
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD)))
    state = copy.deepcopy(vars(game))
    for points in (1, 3):  # as predicted, and a score that would teach the table
        expected, seen = phone_scores(game, before, Pair(0, 1), points)
        shown = reading(seen)
        shown.cells = {k: (100 + 50 * (k % 9), 300 + 50 * (k // 9)) for k in range(len(seen.cells))}
        for _ in range(2):
            game.same(seen, expected), game.same(seen, before), game.shows(seen, expected)
            game.tap_points(Pair(16, 17), shown)
    assert vars(game) == state


class ScriptedPhone:
    """A link to a phone whose screens are given in advance: each look reads the next board (the
    last one stays), a move's early frame is there only while ``frames`` last, and a glance
    never reads (a frame caught mid-animation): moves are judged early or on settled screens."""

    reconnects = 0  # (it never loses its phone)
    last_image = None
    recorder = Recorder(on=False)  # (the run's recording: none)

    def __init__(self, boards, frames=0):
        self.boards, self.frames = list(boards), frames
        self.profile = Profile("numbermatch", 1080, 2400, geometry={"top": 250, "bottom": 1750, "pitch": 50})
        self.link = self  # (it is the session and its link both)
        self.learned = []  # what the loop gave the session to keep

    def say(self, line):
        pass

    def take(self, learned):
        self.learned.append(learned)

    def look(self, game, glance=False, expect=None):
        if glance:
            raise ReadError("still moving")
        board = self.boards.pop(0) if len(self.boards) > 1 else self.boards[0]
        cells = {k: (100 + 50 * (k % 9), 300 + 50 * (k // 9)) for k in range(len(board.cells))}
        image = np.zeros((2000, 600, 3), np.uint8)
        for k, (x, y) in cells.items():  # each number a shade of its own
            image[y - 20:y + 20, x - 20:x + 20] = 25 * board.cells[k]
        return image, Reading("numbermatch", "board", board=board.copy(), cells=cells, pitch=50.0,
                              rows_visible=len(board.cells) // 9, profile=self.profile)

    def early(self, parts, aside, reach=(), shows="fading", shifted=(), last=False):
        self.frames -= 1
        return np.zeros((2000, 600, 3), np.uint8) if self.frames >= 0 else None

    def early_result(self, ok):
        pass

    def settle_in_full(self):
        return False  # (its screens are given settled)

    def glance_settles(self):
        return False  # (a glance is a frame caught mid-animation, never a settled capture)

    def accept(self, image):
        pass


def test_a_judged_move_is_counted_once_after_lost_taps():
    """A pair judged on an early frame, then the next pair's taps lost twice (the screen still
    shows the board the first left), then landed: each pair's kind is counted once, on the
    settled screen that shows its score (the lost taps' screens judged the first pair again)."""
    start = Board.parse(BOARD)
    first, second = Pair(0, 1), Pair(16, 17)  # two touching pairs; neither takes a row
    one = start.copy()
    one.push(first)
    two = one.copy()
    two.push(second)
    one, two = (Board(list(b.cells), b.adds_left, b.score) for b in (one, two))  # as read: no history
    phone = ScriptedPhone([start])
    loop = Loop(phone, game="numbermatch", say=lambda _: None, wait_unknown=1)
    loop.start()
    loop.game.points.confirmed.add("touching")  # borne out earlier: the first pair is judged early
    phone.boards, phone.frames = [one], 1
    assert loop.judge(first) == "done" and loop.position.move_stack  # on its early frame
    for _ in range(2):
        assert loop.judge(second) == "same"  # a lost tap: the screen unchanged
    phone.boards = [two]
    assert loop.judge(second) == "done"
    assert loop.game.points.kind_moves["touching"] == 2


def test_a_move_seen_otherwise_on_a_screen_taken_as_still_too_soon_is_judged_on_one_settled_in_full():
    """A pair whose screen was taken as still on its kind's learned time alone shows neither the
    board before it nor the one predicted (one of its numbers still live: caught as it fades):
    the move is judged again on a screen settled in full, which shows it made; nothing is
    planned anew."""
    start = Board.parse(BOARD)
    made = start.copy()
    made.push(Pair(0, 1))
    made = Board(list(made.cells), made.adds_left, made.score)
    moving = Board([start.cells[0], *made.cells[1:]], made.adds_left, made.score)

    class TooSoon(ScriptedPhone):
        asked = 0

        def settle_in_full(self):
            self.asked += 1
            self.boards = [made]
            return self.asked == 1

    phone = TooSoon([start])
    loop = Loop(phone, game="numbermatch", say=lambda _: None, wait_unknown=1)
    loop.start()
    phone.boards = [moving]  # (the capture taken as still too soon)
    assert loop.judge(Pair(0, 1)) == "done" and loop.position.cells == made.cells
    assert phone.asked == 1 and loop.tally.replans == 0
    # a screen as before the move (a lost tap) is judged on at once: its taps are sent again
    phone = TooSoon([start])
    loop = Loop(phone, game="numbermatch", say=lambda _: None, wait_unknown=1)
    loop.start()
    assert loop.judge(Pair(0, 1)) == "same" and phone.asked == 0


def test_a_board_caught_as_its_last_pair_fades_is_looked_at_again_quietly():
    """The stage's last pair: the screens read just after it show the board with no live number
    (caught moving, never sure), then the stage-complete screen. The move is judged on that,
    with no pause said (nothing covers the board: the game was between two screens)."""
    start = Board.parse("55")
    moving = Reading("numbermatch", "board", board=Board([0, 0]), cells={0: (100, 300), 1: (150, 300)},
                     pitch=50.0, rows_visible=1)
    moving.doubt(vision.CAUGHT_MOVING, "no live number on the board")
    complete = Reading("numbermatch", "stage_complete", buttons={"continue": (300, 1500)})

    class Ending(ScriptedPhone):
        def look(self, game, glance=False, expect=None):
            if self.readings and not glance:
                return np.zeros((2000, 600, 3), np.uint8), self.readings.pop(0)
            return super().look(game, glance)

    phone = Ending([start])
    phone.readings = []
    said = []
    loop = Loop(phone, game="numbermatch", say=said.append, wait_unknown=5)
    loop.start()
    phone.readings = [moving] * 4 + [complete]
    assert loop.judge(Pair(0, 1)) == "done" and loop.position.is_won()
    assert phone.readings == [] and said == []


# -- on phonesim, through the real adb server ------------------------------------------------

LAST_TWO_ROWS = "19....... 55"  # two touching pairs, each emptying a row: the second clears the board


def phone_loop(harness, points, board=LAST_TWO_ROWS, **options):
    """A phonesim scoring by ``points``, its stage 1 set to ``board`` (no adds), and a loop with
    a link to it that plays it (lines said go to ``loop.said``)."""
    p = PRESETS["1080x2400"]
    app = apps.create("numbermatch", p, points=points, **options)
    app.board = Board.parse(board, adds_left=0, rules=app.rules)
    phone = Phone(p, app, Faults())
    vp = harness.add(phone)
    said = []
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    return vp, phone, Loop(Session(link, keep=True), game="numbermatch", say=said.append, wait_unknown=5), said


def test_the_cleared_board_bonus_is_learned_at_the_first_stage_cleared_and_kept(harness, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # this test's profiles only
    vp, phone, loop, said = phone_loop(harness, {"clear": 300}, size=2)  # stage 2: one pair
    assert autoplay.play(loop, stages=2, say=said.append) == 0
    game = loop.game
    assert game.points.learned == {"clear": 300} and game.points.learned_after == {"clear": 1}
    assert [line for line in said if "cleared board" in line] == [
        "this game scores a cleared board 300, not 150: learned", said[-1]]           # said once, then summed up
    assert said[-1].endswith("; points learned: a cleared board 300")
    assert loop.tally.replans == 0                         # learned before stage 2 was planned
    shown = phone.app.truth()["board"]
    assert shown["stage"] == 2 and loop.position.score == shown["score"]   # stage 2 predicted with it
    stored = list((tmp_path / "tapsolve" / "profiles").glob("*numbermatch*.json"))
    # kept: what stage 1 bore out (its first pair: touching, a row) and what it taught
    assert len(stored) == 1 and json.loads(stored[0].read_text())["points"] == {"touching": 1, "row": 10, "clear": 300}

    phone.app.new_game()                                   # the next game plays by it from its first plan
    link = Link(connect(vp.serial, client=harness.client), say=said.append, reconnect_timeout=4)
    again = Loop(Session(link, keep=True), game="numbermatch", say=said.append, wait_unknown=5)
    again.start()
    assert again.position.rules.point_table["clear"] == 300
    vp.stop()


def test_a_row_is_learned_from_the_first_pair_that_removes_one_when_its_kind_is_stored(harness, monkeypatch,
                                                                                      tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # its odd table must not reach other tests' phones
    vp, phone, loop, said = phone_loop(harness, {"touching": 3, "row": 25})
    loop.session.look("numbermatch")
    loop.session.profile.points = {"touching": 3}             # a game before learned touching pairs
    assert autoplay.play(loop, say=said.append) == 0
    game = loop.game
    # the first pair judged taught the row: no plain touching pair bore its kind out before
    assert game.points.learned_after == {"row": 1} and game.points.kind_moves["touching"] == 1
    assert [line for line in said if "learned" in line][:1] == ["this game scores each removed row 25, not 10: learned"]
    assert loop.position.score == phone.app.truth()["board"]["score"]    # the last pair predicted with it
    vp.stop()
