"""The Number Match app of the virtual phone: draws the board like the real game and plays taps.

The rules are ``solver.numbermatch.Board``'s; the app only decides what a tap means (select,
cross out, move the selection, add) and draws the screens: the board, stage complete, game over
and, with ``ads``, an interstitial ad (an ad SDK's activity, phonesim.apps.others) after each
stage complete. Under a real-phone profile the game animates as the real one does
(``ANIMATIONS``): the game's state changes at once, the picture follows over the animation's
time, and a screenshot shows the frame of that moment. Three parts, each depending only on the
ones before: ``layout`` (where things lie), ``drawing`` (the pixels), ``behaviour`` (the app).
"""

from phonesim.apps.numbermatch.behaviour import APP, NumberMatchApp, play_pairs, start_cells

__all__ = ["APP", "NumberMatchApp", "play_pairs", "start_cells"]
