"""A phone or a link that stalls is waited out, and a slow phone is played at its pace: never
taken for a screen that keeps changing nor for a phone that ignores taps (issue 43, item 6)."""

import os
import signal
import threading
import time

from assistant import autoplay
from assistant.link import Link
from assistant.loop import Loop
from assistant.phone import device as devices
from assistant.session import Session
from phonesim import apps
from phonesim.harness import Harness
from phonesim.phone import PRESETS, REALISM, Faults, Phone

PRESET = PRESETS["1080x2400"]


def test_a_usb_stall_on_the_scrcpy_channel_is_waited_out_and_play_goes_on():
    """The adb server frozen for 10 s mid-play (SIGSTOP, then SIGCONT, as a USB stall does; the
    last round's sweep): the video held back arrives in a burst, and the capture that waited
    through it is not a screen that kept changing. Play goes on to the end with no wrong tap."""
    with Harness() as harness:
        phone = Phone(PRESET, apps.create("numbermatch", PRESET, seed=4, size=12), Faults(seed=4),
                      realism=REALISM["fast"])
        vp = harness.add(phone)
        said = []
        link = Link(devices.connect(vp.serial, client=harness.client, channel="scrcpy"), say=said.append,
                    reconnect_timeout=30)
        loop = Loop(Session(link), game="numbermatch", say=said.append, wait_unknown=30)
        server = harness._process.pid

        def stall():
            while phone.moves < 3:
                time.sleep(0.01)
            os.kill(server, signal.SIGSTOP)
            time.sleep(10)
            os.kill(server, signal.SIGCONT)

        staller = threading.Thread(target=stall, daemon=True)
        staller.start()
        try:
            assert autoplay.play(loop, say=said.append) == 0, said
        finally:
            staller.join(timeout=15)
            os.kill(server, signal.SIGCONT)
        assert link.device.channel.name == "scrcpy" and vp.wrong_taps == 0
        assert phone.app.truth()["screen"] == "stage_complete"
        link.device.close()


def test_a_slow_phone_on_the_scrcpy_channel_is_played_at_its_pace_never_misdiagnosed(harness):
    """Each tap acts 2 s after it is sent (scrcpy's server injects a touch as it comes and a busy
    phone acts on it later: Controller.java, INJECT_MODE_ASYNC; phonesim's control thread takes
    the fault's latency a tap). A screen unchanged just after a move's taps is watched before
    they go again, so no tap lands twice; the phone is said to be slow, never to ignore taps."""
    phone = Phone(PRESET, apps.create("numbermatch", PRESET, seed=4, size=6), Faults(seed=4, tap_latency=2.0),
                  realism=REALISM["fast"])
    vp = harness.add(phone)
    said = []
    link = Link(devices.connect(vp.serial, client=harness.client, channel="scrcpy"), say=said.append)
    loop = Loop(Session(link), game="numbermatch", say=said.append, wait_unknown=30)
    assert autoplay.play(loop, say=said.append) == 0, said
    assert vp.wrong_taps == 0 and phone.app.truth()["screen"] == "stage_complete"
    assert any("the phone acts on taps about" in line for line in said), said
    assert not any("ignores taps" in line or "security settings" in line for line in said)
    link.device.close()
