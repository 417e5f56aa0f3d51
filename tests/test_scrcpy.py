"""The scrcpy channel: its messages byte for byte (layouts written from upstream's reader, not
from our encoder), the jar's checksum, and the whole channel against phonesim's server: the
push, the start, the handshake, taps landing, frames matching the screen, the one-line refusals
(checksum, an old Android, MIUI's refused injection) and nothing left running after close()."""

import time

import numpy as np
import pytest

from assistant.phone import scrcpy
from assistant.phone.scrcpy import control as scrcpy_control
from assistant.phone.scrcpy import server as scrcpy_server
from assistant.phone.channel import ChannelUnavailable
from helpers import standin_phone
from phonesim import scrcpy as simscrcpy


# -- messages: ControlMessageReader.java reads, after the type byte --------------------------
# parseInjectTouchEvent: action (u8), pointerId (long), x, y (int), screenWidth, screenHeight
# (u16), pressure (u16 fixed point), actionButton (int), buttons (int); big-endian (DataInputStream)
def test_touch_message_is_the_readers_32_bytes():
    message = scrcpy_control.touch_message(scrcpy_control.ACTION_DOWN, 100, 2000, 1080, 2400)
    expected = bytes.fromhex(
        "02"                  # TYPE_INJECT_TOUCH_EVENT
        "00"                  # MotionEvent.ACTION_DOWN
        "fffffffffffffffe"    # POINTER_ID_GENERIC_FINGER (-2)
        "00000064" "000007d0"  # x 100, y 2000
        "0438" "0960"         # 1080 x 2400
        "ffff"                # pressure 1.0
        "00000000" "00000000")  # no buttons
    assert message == expected and len(message) == 32


def test_touch_up_and_move_carry_their_action():
    assert scrcpy_control.touch_message(scrcpy_control.ACTION_UP, 1, 2, 3, 4)[1] == 1
    assert scrcpy_control.touch_message(scrcpy_control.ACTION_MOVE, 1, 2, 3, 4)[1] == 2


# parseInjectKeycode: action (u8), keycode, repeat, metaState (int each)
def test_keycode_message_is_the_readers_14_bytes():
    message = scrcpy_control.keycode_message(scrcpy_control.ACTION_UP, scrcpy_control.keycode("KEYCODE_BACK"))
    assert message == bytes.fromhex("00" "01" "00000004" "00000000" "00000000")


def test_key_names():
    assert scrcpy_control.keycode("BACK") == scrcpy_control.keycode("4") == scrcpy_control.keycode("keycode_back") == 4
    with pytest.raises(ValueError, match="unknown key"):
        scrcpy_control.keycode("KEYCODE_NOPE")


def test_the_packaged_jar_is_upstreams_3_3_4():
    assert len(scrcpy_server.server_jar()) == 90_980


def test_a_jar_with_another_checksum_is_refused_in_one_line():
    with pytest.raises(ChannelUnavailable) as caught:
        scrcpy_server.check_jar(scrcpy_server.server_jar() + b"\0")
    assert "\n" not in str(caught.value) and "checksum" in str(caught.value)


def test_video_size_follows_size_limit_and_round8():
    # Size.limit: the major side becomes max_size, the minor 1024 * 1080 / 2400 = 460 (int);
    # round8: the minor to the nearest multiple of 8 (464), the major down (1024)
    assert simscrcpy.limit(1080, 2400, 1024) == (464, 1024)
    assert simscrcpy.limit(1080, 2400, 0) == (1080, 2400)
    assert simscrcpy.limit(720, 1600, 2048) == (720, 1600)


# -- phonesim's app_process, as the phone's shell runs it ------------------------------------
def run_server(phone, *args, classpath=scrcpy_server.DEVICE_PATH):
    out = []
    status = simscrcpy.app_process(phone, {"CLASSPATH": classpath},
                                   ["/", "com.genymobile.scrcpy.Server", *args], out.append)
    return status, b"".join(out).decode()


def pushed(phone):
    simscrcpy.files(phone)[scrcpy_server.DEVICE_PATH] = scrcpy_server.server_jar()
    return phone


def test_another_client_version_gets_the_servers_own_error():
    status, output = run_server(pushed(standin_phone()), "3.3.3", "scid=1")
    assert status == 1
    assert "The server version (3.3.4) does not match the client (3.3.3)" in output.splitlines()[0]


def test_an_old_android_aborts_app_process(monkeypatch):
    phone = pushed(standin_phone())
    monkeypatch.setattr(phone, "properties", lambda: {"ro.build.version.sdk": "19",
                                                      "ro.build.version.release": "4.4"})
    assert run_server(phone, "3.3.4") == (simscrcpy.ABORTED_STATUS, "Aborted\n")


def test_without_the_jar_app_process_finds_no_class():
    status, _ = run_server(standin_phone(), "3.3.4")
    assert status == simscrcpy.ABORTED_STATUS


# -- the channel against phonesim ------------------------------------------------------------
def connected(harness, **faults):
    from assistant.phone.device import Device

    phone = standin_phone(**faults)
    vp = harness.add(phone)
    return phone, Device(harness.client, vp.serial)


def wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_taps_land_and_frames_show_the_screen_and_close_leaves_nothing(harness):
    phone, device = connected(harness)
    channel = scrcpy.start(device, video=True)
    try:
        assert channel.name == "scrcpy" and channel.why == "scrcpy server 3.3.4, control+video 1080x2400"
        assert channel.server.device_name == phone.preset.model
        channel.taps([(100, 500), (540, 1800)])
        assert wait_for(lambda: len(phone.app.taps) == 2)
        assert phone.app.taps == [(100, 500), (540, 1800)]
        assert [t.target for t in phone.tap_log] == ["unknown", "unknown"]
        channel.swipe(500, 1500, 500, 600, 150)
        channel.key("KEYCODE_BACK")
        assert wait_for(lambda: phone.app.keys == ["KEYCODE_BACK"])
        assert phone.app.swipes and phone.app.swipes[0][:4] == (500, 1500, 500, 600)
        # two taps: the stand-in shows its third colour; the newest frame shows it too
        want = phone.screen(log=False).astype(int)  # (RGB, as a capture is)
        assert wait_for(lambda: np.abs(channel.frame()[0].astype(int) - want).mean() < 2)
        image, arrived = channel.frame()
        assert image.shape == (2400, 1080, 3) and arrived <= time.monotonic()
        # decoded as RGB, as a capture is: taken as one with no conversion (kept unwritable: the
        # video's own frame, shared), its pixels its own (a view would hold the decoder's buffers)
        assert not image.flags.writeable and image.flags.owndata and device.screen.from_frame(image) is image
        assert simscrcpy.running(phone) == 1
    finally:
        channel.close()
    assert wait_for(lambda: simscrcpy.running(phone) == 0)


def test_max_size_scales_the_stream_and_taps_still_land(harness):
    phone, device = connected(harness)
    channel = scrcpy.start(device, video=True, max_size=1024)
    try:
        assert channel.video.size == (464, 1024)
        assert channel.frame()[0].shape == (1024, 464, 3)
        channel.taps([(540, 1200)])
        assert wait_for(lambda: len(phone.app.taps) == 1)
        x, y = phone.app.taps[0]
        assert abs(x - 540) <= 3 and abs(y - 1200) <= 3  # a video pixel is 2.3 screen pixels
    finally:
        channel.close()


def test_control_only_has_no_frames(harness):
    phone, device = connected(harness)
    channel = scrcpy.start(device, video=False)
    try:
        assert channel.frame() is None and channel.why == "scrcpy server 3.3.4, control"
        channel.taps([(10, 20)])
        assert wait_for(lambda: phone.app.taps == [(10, 20)])
    finally:
        channel.close()
    assert wait_for(lambda: simscrcpy.running(phone) == 0)


def one_line_refusal(device) -> str:
    with pytest.raises(ChannelUnavailable) as caught:
        scrcpy.start(device)
    text = str(caught.value)
    assert text and "\n" not in text
    return text


def test_a_checksum_mismatch_pushes_nothing(harness, monkeypatch):
    phone, device = connected(harness)
    monkeypatch.setattr(scrcpy_server, "SERVER_SHA256", "0" * 64)
    assert "checksum" in one_line_refusal(device)
    assert simscrcpy.files(phone) == {}


def test_an_old_android_is_said_in_one_line(harness, monkeypatch):
    phone, device = connected(harness)
    monkeypatch.setattr(phone, "properties", lambda: {"ro.build.version.sdk": "19",
                                                      "ro.build.version.release": "4.4",
                                                      "ro.product.model": "old"})
    assert one_line_refusal(device) == ("the phone runs Android 4.4 (API 19); the scrcpy server needs "
                                        "Android 5.0 (API 21)")


def test_a_phone_refusing_injection_is_said_in_one_line_and_left_clean(harness):
    phone, device = connected(harness, refuse_input=True)  # MIUI's refusal (Faults.refuse_input)
    assert "refuses injected taps" in one_line_refusal(device)
    assert phone.app.taps == [] and phone.app.keys == []
    assert wait_for(lambda: simscrcpy.running(phone) == 0)


def test_a_server_gone_mid_play_is_said_in_one_line(harness):
    phone, device = connected(harness)
    channel = scrcpy.start(device)
    try:
        harness.phones[-1].stop()  # the phone unplugged: every socket to it closes
        assert wait_for(lambda: channel.broken is not None)
        for use in (lambda: channel.taps([(1, 2)]), channel.frame):
            with pytest.raises(ChannelUnavailable) as caught:
                use()
            assert "\n" not in str(caught.value) and "scrcpy server" in str(caught.value)
    finally:
        channel.close()
    assert wait_for(lambda: simscrcpy.running(phone) == 0)


def test_phonesims_dropped_taps_apply_to_touch_messages_too(harness):
    phone, device = connected(harness, drop_taps=1.0)
    channel = scrcpy.start(device, video=False)
    try:
        channel.taps([(10, 20), (30, 40)])
        assert wait_for(lambda: len(phone.tap_log) == 2)
        assert [t.target for t in phone.tap_log] == ["dropped", "dropped"] and phone.app.taps == []
    finally:
        channel.close()


def test_the_start_line_is_short_and_sets_what_the_channel_needs():
    line = scrcpy_server.server_command(0x1234ABCD, video=True, max_size=1024)
    assert len(line) < 256  # some phones' app_process fails past 256 characters (scrcpy #4481)
    env, _, rest = line.partition(" ")
    assert env == "CLASSPATH=/data/local/tmp/scrcpy-server.jar"
    words = rest.split()
    assert words[:4] == ["app_process", "/", "com.genymobile.scrcpy.Server", "3.3.4"]
    server = simscrcpy.Server(standin_phone(), lambda data: None)
    server.parse(words[3:])
    assert (server.scid, server.video, server.audio, server.control, server.tunnel_forward,
            server.max_size) == (0x1234ABCD, True, False, True, True, 1024)


def test_the_servers_own_error_is_the_one_line(harness, monkeypatch):
    phone, device = connected(harness)
    monkeypatch.setattr(scrcpy_server, "SERVER_VERSION", "3.3.3")  # a client for another server version
    assert one_line_refusal(device) == ("the scrcpy server did not start: The server version (3.3.4) "
                                        "does not match the client (3.3.3)")
    assert simscrcpy.running(phone) == 0


@pytest.mark.parametrize("preset", ["1080x2400", "720x1280"])
def test_whole_games_play_on_the_scrcpy_channel_without_a_wrong_tap(harness, preset):
    """The default channel of a phone that runs the server, end to end: touches by message,
    looks by video frame (an emulator-sized game once had a tap judged on a frame older than it)."""
    from assistant import autoplay
    from assistant.link import Link
    from assistant.loop import Loop
    from assistant.session import Session
    from assistant.phone import device as devices
    from phonesim import apps
    from phonesim.phone import PRESETS, Phone

    p = PRESETS[preset]
    phone = Phone(p, apps.create("numbermatch", p, seed=3))
    vp = harness.add(phone)
    said = []
    link = Link(devices.connect(vp.serial, client=harness.client, channel="scrcpy"), say=said.append)
    loop = Loop(Session(link), game="numbermatch", objective="fast", budget=1.0, say=said.append)
    try:
        assert autoplay.play(loop, say=said.append) == 0
        assert phone.app.truth()["screen"] == "stage_complete" and phone.wrong_taps == 0
        assert link.device.channel.name == "scrcpy" and link.device.screen.frames > 0  # judged on video
    finally:
        link.device.close()
        vp.stop()


# -- the video's size changes (issue 37): the server writes its size once, then retries a size the
# encoder refuses smaller (SurfaceEncoder.java, prepareRetry) and restarts at a turned size on a
# rotation; it ignores a touch of another size than the current video's (PositionMapper.map);
# the client takes the size from each frame, as app/src/screen.c does ----------------------------
def test_a_finger_lifts_with_pressure_0_as_scrcpys_client_sends_it():
    # app/src/input_manager.c, simulate_virtual_finger: "pressure = up ? 0.0f : 1.0f"
    assert scrcpy_control.touch_message(scrcpy_control.ACTION_UP, 1, 2, 3, 4)[22:24] == b"\0\0"
    assert scrcpy_control.touch_message(scrcpy_control.ACTION_DOWN, 1, 2, 3, 4)[22:24] == b"\xff\xff"
    assert scrcpy_control.touch_message(scrcpy_control.ACTION_MOVE, 1, 2, 3, 4)[22:24] == b"\xff\xff"


def test_the_servers_socket_is_tried_as_long_as_scrcpys_client_tries_it():
    # app/src/server.c: connect_to_server(server, 100 attempts, 100 ms)
    assert scrcpy_server.CONNECT_ATTEMPTS == 100 and scrcpy_server.CONNECT_RETRY == 0.1


def server_of(phone):
    """The one scrcpy server running on the phone (its ``ignored`` touches)."""
    import gc

    return next(o for o in gc.get_objects() if isinstance(o, simscrcpy.Server) and o.phone is phone
                and not o.stop.is_set())


def test_an_encoder_that_refuses_the_full_size_is_retried_smaller_and_taps_follow_it(harness):
    from assistant.phone.device import Device
    from phonesim import apps
    from phonesim.phone import PRESETS, Phone

    p = PRESETS["1440x3200-encoder-1920"]
    phone = Phone(p, apps.create("numbermatch", p, seed=3))
    vp = harness.add(phone)
    channel = scrcpy.start(Device(harness.client, vp.serial), video=True)
    try:
        assert channel.frame()[0].shape == (1920, 864, 3)  # the header said 1440x3200
        assert channel.video.size == (864, 1920)
        output = channel.server.output()
        assert "Retrying with -m2560" in output and "Retrying with -m1920" in output
        cell = phone.app.truth()["cells"]["0"]
        x, y = cell[0] + cell[2] // 2, cell[1] + cell[3] // 2
        channel.taps([(x, y)])
        assert wait_for(lambda: len(phone.tap_log) == 1)
        assert phone.tap_log[0].target == "live" and server_of(phone).ignored == 0
    finally:
        channel.close()


def test_a_rotation_mid_play_changes_the_video_size_and_taps_follow_it(harness):
    phone, device = connected(harness)
    channel = device.channel = scrcpy.start(device, video=True)
    try:  # (looks by video)
        assert device.capture(lossless=False).shape == (2400, 1080, 3)
        phone.turned = True  # a landscape ad turns the display
        assert wait_for(lambda: device.capture(lossless=False).shape == (1080, 2400, 3))
        assert channel.video.size == (2400, 1080)
        device.tap(2000, 300)  # in the turned screen's coordinates
        assert wait_for(lambda: len(phone.app.taps) == 1)
        assert phone.app.taps == [(1079 - 300, 2000)] and server_of(phone).ignored == 0
        phone.turned = False
        assert wait_for(lambda: device.capture(lossless=False).shape == (2400, 1080, 3))
        device.tap(100, 500)
        assert wait_for(lambda: len(phone.app.taps) == 2) and phone.app.taps[1] == (100, 500)
    finally:
        channel.close()


def test_a_reader_waiting_for_a_newer_frame_is_woken_by_the_decoder_not_by_polling(monkeypatch):
    """The newest-frame buffer wakes the capture that waits for a frame the moment the decoder
    keeps one (no sleep-and-look loop): a frame that shows a move is taken as soon as it exists."""
    import threading

    from assistant.phone.scrcpy.video import Video

    video = Video(None, (2, 4))  # (a stream: its frames come from the thread below)
    video._frame = (np.zeros((4, 2, 3), np.uint8), 1.0)
    monkeypatch.setattr(time, "sleep", lambda s: pytest.fail("polled for a frame"))

    def decode():
        with video._frame_ready:
            video._frame = (np.ones((4, 2, 3), np.uint8), 2.0)
            video._frame_ready.notify_all()

    threading.Timer(0.05, decode).start()
    image, shown = video.next_frame(1.5, 1.0, time.monotonic() + 30)
    assert shown == 2.0 and image[0, 0, 0] == 1
    assert video.next_frame(3.0, 2.0, time.monotonic() + 0.05) is None  # none that new by then


def test_the_encoders_repeat_of_a_still_screen_shows_it_settled_since_it_first_looked_so():
    """scrcpy's encoder sends a frame when the screen drew one, and a still screen's last frame
    again after 100 ms (server SurfaceEncoder.java, REPEAT_FRAME_DELAY_US): the video tells, for
    such a repeat, when the screen first looked as it does (the first of the frames drawn in a
    row alike to it: an eased end draws its last frames a shade apart; the encoder refines a
    repeat within the noise). The channel takes a screen as settled on a repeat of a screen that
    first looked so after the last touch could show. Frames drawn in a row, however alike (an
    animation's eased end and the next one's eased start), are no repeat; nor is a repeat of a
    screen that looked so before the touch showed (a change that eases in unseen, a touch not
    acted on)."""
    from types import SimpleNamespace

    from assistant.phone.scrcpy.video import Video

    video = Video(None, (8, 40))
    before, moved = np.zeros((40, 8, 3), np.uint8), np.full((40, 8, 3), 120, np.uint8)
    eased = moved.copy()
    eased[20, 2:7] = 131  # (drawn a shade on: within the noise of the frame before)
    refined = eased.copy()
    refined[10, 2:7] = 150  # (15 values past the noise: the encoder refining a still frame)
    frames = ((before, 1.0), (moved, 1.033), (eased, 1.066), (eased, 1.166), (refined, 1.266), (before, 1.3))
    for image, shown in frames:
        video._keep(image, shown)
    # (the refined repeat is the same screen sent sharper, nothing drawn between: the time of the
    # repeat before it, though it is a shade further from the first frame alike)
    assert [video.still_since(t) for _, t in frames] == [None, None, None, 1.033, 1.033, None]
    assert video.still_since(0.5) is None  # (not a frame it kept)
    channel = scrcpy.ScrcpyChannel.__new__(scrcpy.ScrcpyChannel)
    channel.video, channel.device = video, SimpleNamespace(touched_at=0.9)
    assert channel.settled_since(1.166) == 1.033 and channel.settled_since(1.266) == 1.033
    assert channel.settled_since(1.066) is None  # (drawn: an animation may go on)
    channel.device.touched_at = 1.0  # the screen may have looked so before the touch showed
    assert channel.settled_since(1.166) is None
    channel.video = None
    assert channel.settled_since(1.166) is None


def test_a_repeat_that_stands_for_a_screen_still_past_the_encoders_repeats_shows_it_settled_then_too():
    """Android's encoder repeats a still screen's frame ten times, then sends nothing
    (GraphicBufferSource.cpp, kRepeatLastFrameCount): a capture asked for later is answered
    with the last repeat, standing for the screen at the time asked. That time shows the screen
    settled since it first looked so, as the repeat's own does: the first look of a game whose
    screen stood still for a while (or a guide's look) settles on that one frame (before, it
    waited for a second frame that never came, and took the last repeat again 70 ms on)."""
    from types import SimpleNamespace

    from assistant.phone.scrcpy.video import Video

    video = Video(None, (8, 40))
    still = np.full((40, 8, 3), 90, np.uint8)
    for shown in (1.0, 1.1, 1.2):  # (drawn, then the encoder's repeats)
        video._keep(still, shown)
    video._idle = True  # (every byte sent decoded: the decoder waits for the next packet)
    image, stands = video.next_frame(5.0, float("-inf"), time.monotonic() + 1, quiet_from=0.0, quiet_after=0.9)
    assert stands == 5.0 and video.still_since(5.0) == 1.0
    channel = scrcpy.ScrcpyChannel.__new__(scrcpy.ScrcpyChannel)
    channel.video, channel.device = video, SimpleNamespace(touched_at=float("-inf"))
    assert channel.settled_since(5.0) == 1.0  # (the settle takes it: one frame)
    # a watch asking again and again (a row-window trial's glances) forgets neither the repeats
    # nor the times they stood for last (a first try kept those among the repeats, and 64 such
    # answers pushed the repeat itself out: the next captures waited for frames that never came)
    for k in range(1, 201):
        assert video.next_frame(5.0 + k, 4.0 + k, time.monotonic() + 1, quiet_from=0.0, quiet_after=0.9)[1] == 5.0 + k
    assert video.still_since(1.2) == video.still_since(205.0) == 1.0


def test_phonesims_server_sends_a_still_screen_again_100_ms_after_its_frame():
    """SurfaceEncoder.java's REPEAT_FRAME_DELAY_US: a still screen's last frame again after
    100 ms, posted on a timer from that frame (AOSP GraphicBufferSource.cpp, queueFrameRepeat_l:
    msg->post(mFrameRepeatIntervalUs)), never sooner: not on phonesim's looks at its screen,
    MAX_FPS a second, whose third falls a hair either side of 100 ms (a repeat 83 ms after its
    frame is no repeat to a client that allows a frame's jitter, REPEAT_GAP; 133 ms is late)."""
    look = 1 / simscrcpy.MAX_FPS
    assert simscrcpy.repeat_due(10.1, 10.0) and simscrcpy.repeat_due(10.0 + simscrcpy.REPEAT_S - 1e-4, 10.0)
    assert not simscrcpy.repeat_due(10.0 + 3 * look - 0.01, 10.0)


def test_a_still_screens_repeats_keep_the_time_it_first_looked_so_as_the_encoder_sharpens_them(monkeypatch):
    """A still screen's frame comes again every 100 ms, ten times, each sharper ("a single
    repeat might not get rid of encoder ghosting completely, refresh a couple more times": AOSP
    GraphicBufferSource.cpp, repeatLatestBuffer_l): a repeat alike to the repeat before it has
    that one's time, though it drifted from the frames drawn by more than the noise allowed,
    and those frames are not compared again."""
    from assistant.phone.scrcpy import video as video_module
    from assistant.settle import PIXEL_NOISE, STILL_PIXELS

    video = video_module.Video(None, (8, 40))
    drawn = np.full((40, 8, 3), 120, np.uint8)
    sharper = drawn.copy()
    sharper[10:12, :, 0] += PIXEL_NOISE + 2  # (16 values: alike to the frame drawn, just)
    sharpest = sharper.copy()
    sharpest[12:14, :, 0] += PIXEL_NOISE + 2  # (16 more: alike to the last repeat, not to the frame drawn)
    assert 2 * 8 <= STILL_PIXELS < 4 * 8
    for image, shown in ((np.zeros((40, 8, 3), np.uint8), 1.0), (drawn, 1.033), (sharper, 1.133)):
        video._keep(image, shown)
    compared = []
    same = video_module.same_picture
    monkeypatch.setattr(video_module, "same_picture", lambda a, b: compared.append(1) or same(a, b))
    video._keep(sharpest, 1.233)
    assert video.still_since(1.233) == video.still_since(1.133) == 1.033 and compared == [1]  # (only with the last)
    assert not same(drawn, sharpest)


def test_the_screen_a_touch_found_is_the_newest_frame_shown_by_its_sending_and_later_ones_are_kept():
    """``Video.frame_by``: the newest decoded frame shown by the time a touch was sent (caught
    before it acted, which it does after it is sent); ``frames_between``: those shown between
    two times, newest first (the rows' last picture, come after the touch was sent)."""
    from assistant.phone.scrcpy.video import Video

    video = Video(None, (8, 40))
    assert video.frame_by(1.0) is None
    for value, shown in ((0, 1.0), (60, 1.033), (120, 1.066), (180, 1.1)):
        video._keep(np.full((40, 8, 3), value, np.uint8), shown)
    image, shown = video.frame_by(1.05)
    assert image[0, 0, 0] == 60 and shown == 1.033
    assert [shown for _, shown in video.frames_between(1.033, 1.1)] == [1.066]
    assert [image[0, 0, 0] for image, _ in video.frames_between(0.9, 2.0)] == [180, 120, 60, 0]


def test_a_screen_taken_as_still_is_the_newest_frame_without_waiting_for_the_repeat():
    """After rows collapse, the next pair's early frames need a frame of the screen still to be
    compared with; the encoder sends nothing once the last frame of the collapse is drawn, its
    repeat only 100 ms on (SurfaceEncoder.java, REPEAT_FRAME_DELAY_US). A caller that takes the
    screen as still by a time (the collapse's learned end: ``repeats_only`` False) gets the
    newest frame drawn, once a frame of a change by then would have come; any other caller
    still waits for a repeat, which shows the stream flowing (a stalled connection sends
    nothing either)."""
    from assistant.phone.scrcpy.video import Video

    video = Video(None, (8, 40))
    for value, shown in ((0, 1.0), (60, 1.033), (120, 1.066)):  # (the collapse's last frames, drawn)
        video._keep(np.full((40, 8, 3), value, np.uint8), shown)
    video._idle = True  # (every byte sent decoded: the decoder waits for the next packet)
    soon = time.monotonic() + 0.05
    assert video.next_frame(1.1, float("-inf"), soon, quiet_from=0.0, quiet_after=0.9) is None
    image, shown = video.next_frame(1.1, float("-inf"), soon, quiet_from=0.0, quiet_after=0.9, repeats_only=False)
    assert image[0, 0, 0] == 120 and shown == 1.1  # (it stands for the screen at the time asked)
    # (a frame from before the last touch showed stands for nothing after it)
    assert video.next_frame(1.1, float("-inf"), soon, quiet_from=0.0, quiet_after=1.07, repeats_only=False) is None
