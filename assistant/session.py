"""A read's life on one phone: which capture it takes, which profile reads it, what the profile
learns, and when it is saved: the one place outside vision's own draft that changes a profile.

The link (``assistant.link``) captures and touches; the store (``calibration.store``) loads and
saves; a game learns from a judgement and says what it learned as a value (``Learned``). This
module is where those meet: a read learns into its profile here (``Reading.learn``, once), the
profile is rebuilt or rechecked here, what the game and the animation clock learned is taken
into it here, and it is saved here, by one method (``Session.save``).
"""

from __future__ import annotations

import atexit
import time
from pathlib import Path
from typing import Callable

import numpy as np

import vision
from calibration import store
from solver import games as registry
from vision.image import background, check_image, theme as screen_theme

# seconds between two fresh reads of a board its profile did not read for sure (``recheck``):
# a dialog over the board fails both for as long as it stays, a profile that misleads only its own
RECHECK_EVERY = 3.0

# what a phone's game accepts (``Profile.accepts``): taps sent while it animates (False: it
# ignores them), and the line said when it does not
TAPS_WHILE_ANIMATING = "taps_while_animating"
IGNORES_TAPS = "this game ignores taps while it animates: each move now waits for the last one's"
TAKES_TAPS = ("this game took a tap while it animated after all (an earlier game lost such taps): moves go "
              "during the last one's animation again")

COVERED = "screen"  # the part a reader doubts when it sees something drawn over the board (a dialog, a banner)


def trusted(reading: vision.Reading) -> bool:
    """Whether a profile may learn from this reading: the game's board read for sure, so nothing
    (a dialog, an ad, a banner) is over it. A profile built or extended from anything else reads
    the clean board wrong later ("the digit did not read"), in this run and the next."""
    return reading.screen == "board" and reading.sure


def _path(profile: vision.Profile) -> Path:
    return store.profile_path(profile.model, profile.width, profile.height, profile.game, profile.theme)


# the profiles in use, by id, with where they are stored: what only counts touches is saved at exit
_in_use: dict[int, tuple[vision.Profile, Path]] = {}


def save(profile: vision.Profile | None, note: Callable[[str], None] | None = None, *, counted: bool = False) -> None:
    """Store a profile when it learned something since it was stored (a digit first seen in
    play: without this the next game on the phone asks tesseract for it again); ``counted``:
    when only its touch counts changed too (else those wait for something learned, or the exit:
    a move's count is not worth rewriting the profile for)."""
    if profile is None or not profile.model:
        return
    path = _path(profile)
    _in_use[id(profile)] = profile, path
    if profile.changed or counted and profile.counted:
        store.save(profile, path, note)


@atexit.register
def save_counts() -> None:
    """At exit: store the profiles in use whose touch counts changed since they were stored."""
    for profile, _ in list(_in_use.values()):
        save(profile, counted=True)


def recheck(image: np.ndarray, reading: vision.Reading, model: str,
            note: Callable[[str], None] | None = None) -> vision.Reading:
    """A board read with a profile but not for sure, read again afresh (no profile): when the
    fresh read is sure the profile was what failed, and the fresh one replaces it (stored);
    otherwise the screen itself is not clear (something over the board) and ``reading`` stands."""
    if (reading.screen != "board" or reading.sure or reading.profile is None or COVERED in reading.unsure_why
            or vision.CAUGHT_MOVING in reading.unsure_why):
        # (something seen over the board: a fresh read would see it too; a moment no still
        # screen shows, which a fresh read, without what the profile knows, may take for one)
        return reading
    try:
        fresh = vision.read(image, reading.game)
    except vision.ReadError:
        return reading
    if not trusted(fresh) or fresh.profile is None:
        return reading
    fresh.profile.model = model
    if note:
        note(f"the reading profile {_path(fresh.profile)} failed to read a clear board (a fresh read did): rebuilt it")
    fresh.profile.changed = True
    save(fresh.profile, note)
    return fresh


def read(image: np.ndarray, model: str, game: str = "auto", *, rebuild: bool = False,
         note: Callable[[str], None] | None = None, stored_only: bool = False) -> vision.Reading | None:
    """Read a screenshot with the stored profiles for this device (building and storing one on
    first contact, or when ``rebuild``, or when the stored one no longer fits or is wrong).
    Only a ``trusted`` reading teaches or stores a profile; a stored one that fails to read a
    board a fresh read reads for sure is replaced (``recheck``). ``stored_only`` (a compressed
    video frame, which never builds a profile): read with a stored profile and for sure, else
    None, and the caller reads a lossless screenshot instead.

    Every game's stored profile is offered to its own reader: which game is on screen is
    decided by the screen, never by which profile happened to be stored first. A stored file
    that cannot be used is said only when its game is the one on screen (then it is rebuilt):
    another game's broken file is no concern of this read."""
    image = check_image(image)
    h, w = image.shape[:2]
    theme = screen_theme(background(image))
    games = list(registry.NAMES) if game == "auto" else [game]
    profiles, broken = {}, {}
    if not rebuild:
        for g in games:
            try:
                stored = store.load(store.profile_path(model, w, h, g, theme))
            except store.ProfileError as exc:
                broken[g] = exc
                continue
            if stored is not None:
                profiles[g] = stored
    if stored_only and not profiles:
        return None
    try:
        reading = vision.read(image, game, profiles=profiles)
    except vision.ReadError:
        if stored_only:
            return None
        raise
    if stored_only and (reading.profile is None or reading.profile is not profiles.get(reading.game)
                        or not reading.sure or reading.screen == "unknown"):
        return None
    if reading.profile is not None and reading.profile is profiles.get(reading.game):
        checked = recheck(image, reading, model, note)
        if checked is not reading:
            return checked  # (stored already)
    if not trusted(reading):
        return reading  # (nothing learned, nothing stored: the profile, if built, is this read's only)
    reading.learn()  # what the read learned goes into the stored profile it read with, then to disk
    new = reading.profile
    if new is None:
        return reading
    if note and reading.game in broken:
        note(f"{broken[reading.game]}: rebuilt it")
    new.model = model
    if reading.profile_stale and note:
        note(f"the stored profile {_path(new)} no longer fits this screen: rebuilt it")
    if rebuild or reading.profile_stale or new.game not in profiles:
        new.changed = True
    save(new, note)
    return reading


class Session:
    """One phone's reads: the link that captures them, the profile that reads them (None until
    a board is read for sure), and what play teaches that profile."""

    def __init__(self, link, say=None, keep: bool = False):
        self.link, self.say = link, say or link.say  # (what it says: the link's lines' way, unless given)
        # keep: what play teaches the profile is stored for the next game (False: the profile
        # built or loaded by the first read is stored as it was, and play's lessons stay in memory)
        self.keep = keep
        self.profile: vision.Profile | None = None
        self._reconnects = 0  # the link's count when the profile was taken (one that came back may be another phone)
        # the profile and channel whose animation times the link's clock started from
        self._clocked: tuple[vision.Profile, str] | None = None
        self._said_ignoring = False  # the line that the game ignores taps while it animates was said
        self._first_by_video: bool | None = None  # the first read tried on a video frame (None: not yet decided)
        self._rechecked = float("-inf")  # when a board read unsure with the profile was last read afresh
        self.last_image = None
        self.recorder = link.recorder  # (assistant.record: every read's screen and verdict)

    @property
    def model(self) -> str:
        return self.link.device.model

    def look(self, game: str = "auto", glance: bool = False, expect: dict | None = None):
        """Capture and read the screen: (image, reading). The first read builds or loads the
        device's profile; later ones reuse it and teach it what they learned (stored).
        ``glance``: one capture, maybe unsettled (``Link.glance``). ``expect``: the numbers the
        screen is predicted to show (``vision.read``'s), for a read with the profile."""
        link = self.link
        if link.reconnects != self._reconnects:
            # (the next read takes the profile of what came back: maybe another phone)
            self.profile, self._reconnects = None, link.reconnects
        if self.profile is None and self._first_by_video is None and link.video_size:
            # a phone with a stored profile needs no lossless screenshot to start from: its
            # first read may be a video frame, read with that profile for sure
            self._first_by_video = store.stored_for(self.model, *link.video_size)
            link.quality(lossless=not self._first_by_video)
        image = link.glance() if glance else link.capture()
        self.last_image = image  # (what the screen showed, even when it reads as nothing known)
        self.recorder.screen(image, "glance" if glance else "look")
        video = link.from_video
        if self.profile is None or self.profile.game != (game if game != "auto" else self.profile.game):
            reading = read(image, self.model, game, note=self.say, stored_only=video)
            if reading is None:  # (a video frame no stored profile read for sure: never built on)
                self._first_by_video = False
                link.quality(lossless=True)
                return self.look(game, glance, expect)
        else:
            try:
                reading = vision.read(image, game, self.profile, expect=expect)
            except vision.ReadError:
                if not video:
                    raise
                reading = None
            if video and (reading is None or not reading.sure or reading.screen == "unknown"):
                # a compressed video frame not read for sure is never judged nor learned from:
                # the screen is captured again by a lossless screencap and read from that
                link.quality(lossless=True)
                return self.look(game, glance, expect)
            reading = self._settle_profile(image, reading, game, glance)
        if reading.profile is not None and trusted(reading):
            self.profile = reading.profile  # (a profile built under a dialog or an ad is never kept)
        # video frames (compressed) once the profile is built on a lossless screencap, and
        # while what is on screen reads for sure
        link.quality(lossless=self.profile is None or not reading.sure or reading.screen == "unknown")
        if reading.screen == "board" and reading.sure:
            link.ticking = reading.ticking
        self.save()
        self.recorder.read(reading)
        return image, reading

    def _settle_profile(self, image, reading, game: str, glance: bool):
        """A read with the profile in use: what it learned taken in, or the profile rebuilt,
        swapped for the other game's, or rechecked afresh (``recheck``)."""
        if trusted(reading):
            reading.learn()  # into the profile in use (stored by ``save``, with what play taught it)
        if reading.profile_stale:
            return read(image, self.model, game, rebuild=True, note=self.say)
        if reading.profile is not None and reading.profile.game != self.profile.game:
            # the other game is on screen now: its own stored profile, not a blank one
            return read(image, self.model, reading.game, note=self.say)
        if not glance and time.monotonic() - self._rechecked >= RECHECK_EVERY:
            # (a glance may catch an animation: only a settled screen is worth a fresh read)
            checked = recheck(image, reading, self.model, note=self.say)
            if checked is not reading or not reading.sure:
                self._rechecked = time.monotonic()
            return checked
        return reading

    def capture(self):
        """The screen once settled, not read (a scroll compares it with the last before reading)."""
        self.last_image = self.link.capture()
        return self.last_image

    def reread(self, image, game: str):
        """A screenshot just captured (a scroll's), read with the profile in use: the reading
        when it is a board read for sure with that profile, else None (the caller looks again)."""
        if image is None or self.profile is None:
            return None
        try:
            reading = vision.read(image, game, self.profile)
        except vision.ReadError:
            return None
        if reading.profile_stale or not reading.sure or reading.screen != "board":
            return None
        reading.learn()  # (trusted: a board read for sure)
        self.last_image = image
        return reading

    def misled(self, image, game: str) -> bool:
        """Whether the profile in use misread ``image``: a fresh read (tesseract alone) reads
        another board. Then the profile is rebuilt from it and stored (True); a question the
        loop asks only when the game refused a move the reading said was legal."""
        try:
            fresh = vision.read(image, game, None)
            with_profile = vision.read(image, game, self.profile)
        except vision.ReadError:
            return False
        if (fresh.board, fresh.state) == (with_profile.board, with_profile.state):
            return False
        self.profile = read(image, self.model, game, rebuild=True, note=self.say).profile
        return True

    def take(self, learned) -> None:
        """What a judgement taught the game (``assistant.games.Learned``), kept in the profile and saved."""
        if learned is not None and learned.points is not None and self.profile is not None \
                and self.profile.points != learned.points:
            self.profile.points, self.profile.changed = dict(learned.points), True
        if learned is not None and learned.touch is not None and self.profile is not None:
            touch = None if learned.touch == "tap" else learned.touch  # (a tap, as most apps take: kept as none)
            if self.profile.touch != touch:
                self.profile.touch, self.profile.changed = touch, True
        self.save()

    def save(self) -> None:
        """Take the animation clock's learned times into the profile, under the channel they
        were timed on, and store it when it learned anything: the one step that saves a profile
        in play. A profile new to the link (or a channel new to it: the phone's video ended, say)
        starts the clock from what that profile kept for that channel, and the link from what
        its game was seen to accept (``accepted``)."""
        profile = self.profile
        if profile is None:
            return
        link, clock = self.link, self.link.clock
        channel = link.channel_name
        if self._clocked is None or self._clocked[0] is not profile or self._clocked[1] != channel:
            if self._clocked is not None and self._clocked[1] != channel:
                self._keep_times(*self._clocked)  # (the last channel's, before the clock forgets them)
                clock.forget()
            self._clocked = profile, channel
            clock.start_from(*profile.timing(channel))
            self._start_accepting(profile)
        self._keep_times(profile, channel)
        if self.keep:
            save(profile, self.say)

    def _keep_times(self, profile: vision.Profile, channel: str) -> None:
        """The clock's learned times and touch counts into ``profile`` under ``channel``."""
        animations, touches = self.link.clock.known()
        kept_animations, kept_touches = profile.timing(channel)
        if animations == kept_animations and touches == kept_touches:
            return
        profile.channels[channel] = {"animations": animations, "touches": touches}
        if animations != kept_animations:
            profile.changed = True
        else:  # (touch counts alone: stored with the next thing learned, or at exit)
            profile.counted = True

    def _start_accepting(self, profile: vision.Profile) -> None:
        """The link starts from what earlier games on this phone showed its game accepts: one
        that ignores taps while it animates gets none sent so (said once, not found out again
        at the cost of lost taps)."""
        kept = profile.accepts.get(TAPS_WHILE_ANIMATING)
        if kept is not None and kept is not True and self.link.overlap:  # (False, or a share)
            self.link.overlap = False
            if not self._said_ignoring:  # (once: a phone that came back brings its profile again)
                self._said_ignoring = True
                self.say(IGNORES_TAPS + " (seen in an earlier game on this phone)")

    def accepts(self, what: str):
        """What earlier play saw this phone's game accept of ``what`` (see ``accepted``); None:
        nothing seen yet, or no profile. A question: nothing changes."""
        return None if self.profile is None else self.profile.accepts.get(what)

    def accepted(self, what: str, value) -> None:
        """Play saw this phone's game accept ``what`` (``TAPS_WHILE_ANIMATING``: True, it takes
        taps while it animates; False, it ignores them; a share, it ignored them on a phone
        that lost that share of its other moves' taps too; a game's own, as
        ``Profile.accepts``): kept in the profile for later games."""
        profile = self.profile
        if profile is not None and profile.accepts.get(what) != value:
            profile.accepts[what], profile.changed = value, True
            self.save()

    def live_frame(self):
        """(RGB frame, monotonic time) newest from the phone's video, for the guide's mirror; None without one."""
        return self.link.live_frame()


class CaptureChoice:
    """Which screencap a phone model captures faster (``assistant.phone.device.connect``'s
    ``kept``): timed on the first start, kept in the store so that later starts skip it."""

    @staticmethod
    def recall(model: str) -> dict | None:
        return store.load_capture(model)

    @staticmethod
    def keep(model: str, size, method: str) -> None:
        store.save_capture(model, size, method)
