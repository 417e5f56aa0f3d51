"""The Number Match game class learns the phone's points table from the score changes it reads."""

from assistant.games.numbermatch import NumberMatch
from solver.numbermatch import POINTS, Board, Pair
from vision.profile import Profile
from vision.reading import Reading

BOARD = "192345678 234567822"  # 1 and 9 touch; crossing them out empties no row


def reading(board, profile, read_score=True):
    return Reading("numbermatch", "board", board=board, profile=profile,
                   notes=[] if read_score else ["score not read"])


def phone_scores(game, before, move, points, read_score=True):
    """The board the phone shows after ``move`` when it scores the move ``points``."""
    expected = game.after(before, move)
    shown = expected.copy()
    shown.score = before.score + points
    return expected, game.position(reading(shown, game.profile, read_score))


def test_a_move_scored_otherwise_teaches_its_kind_once_and_the_profile_keeps_it():
    profile = Profile("numbermatch", 1080, 2400)
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD), profile))
    expected, seen = phone_scores(game, before, Pair(0, 1), 3)
    assert not game.same(seen, expected)                          # the plan is to be made again
    assert game.explain(before, seen, Pair(0, 1)) == "this game scores touching pairs 3, not 1: learned"
    assert game.explain(before, seen, Pair(0, 1)) is None         # said once
    assert game.rules.point_table == {**POINTS, "touching": 3}
    assert profile.points == {"touching": 3} and profile.changed
    expected, seen = phone_scores(game, before, Pair(0, 1), 3)    # as now predicted
    assert game.same(seen, expected)


def test_a_score_not_read_teaches_nothing():
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD), Profile("numbermatch", 1080, 2400)))
    expected, seen = phone_scores(game, before, Pair(0, 1), 3, read_score=False)
    assert game.same(seen, expected) and game.learned == {}


def test_a_stored_entry_is_used_and_corrected_when_the_phone_scores_otherwise():
    profile = Profile("numbermatch", 1080, 2400, points={"touching": 2})
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD), profile))
    assert game.rules.point_table["touching"] == 2                # from the first plan
    expected, seen = phone_scores(game, before, Pair(0, 1), 1)
    assert not game.same(seen, expected)
    assert game.explain(before, seen, Pair(0, 1)) == "this game scores touching pairs 1, not 2: learned"
    assert profile.points == {"touching": 1}


def test_a_row_is_learned_once_the_pair_kind_is_known():
    profile = Profile("numbermatch", 1080, 2400)
    game = NumberMatch()
    # 1-9 touch and empty the first row: touching (unconfirmed) and row together cannot be told apart
    before = game.position(reading(Board.parse("19....... 234567822"), profile))
    expected, seen = phone_scores(game, before, Pair(0, 1), POINTS["touching"] + 25)
    assert game.same(seen, expected) and game.learned == {}
    game.confirmed.add("touching")                                # a plain touching pair bore it out
    expected, seen = phone_scores(game, before, Pair(0, 1), POINTS["touching"] + 25)
    assert not game.same(seen, expected) and game.learned == {"row": 25}



def test_a_glance_teaches_nothing_and_the_settled_screen_teaches_once():
    game = NumberMatch()
    before = game.position(reading(Board.parse(BOARD), Profile("numbermatch", 1080, 2400)))
    expected, glanced = phone_scores(game, before, Pair(0, 1), 3)
    assert not game.shows(glanced, expected)                    # judged on a settled screen instead
    assert game.learned == {} and game.kind_moves["touching"] == 0
    _, settled = phone_scores(game, before, Pair(0, 1), 3)
    assert not game.same(settled, expected)
    assert game.explain(before, settled, Pair(0, 1)) == "this game scores touching pairs 3, not 1: learned"
    expected, glanced = phone_scores(game, before, Pair(0, 1), 1)
    assert game.shows(glanced, expected)                        # the score as predicted: taken
