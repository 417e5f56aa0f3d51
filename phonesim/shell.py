"""The virtual phone's shell: the few commands the assistant and adbutils send, answered as Android does.

One shell line may hold several commands joined by `;`, `&&` or `||`; they run in order, so a
line of taps plays them one after the other. Output goes to ``write`` as each command produces
it (a screenshot streams straight into the ADB stream). Anything else answers like Android's
mksh: "/system/bin/sh: NAME: inaccessible or not found", exit status 127.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import struct
import time
from typing import Callable

import cv2
import numpy as np

from phonesim.phone import Phone

Write = Callable[[bytes], None]

# Android's PixelFormat and the colour space screencap writes in its raw header.
PIXEL_FORMAT_RGBA_8888 = 1
COLOR_SPACE_SRGB = 1

_PNG_OPTIONS = [cv2.IMWRITE_PNG_COMPRESSION, 1, cv2.IMWRITE_PNG_STRATEGY, cv2.IMWRITE_PNG_STRATEGY_RLE]
if hasattr(cv2, "IMWRITE_PNG_FILTER"):  # OpenCV >= 4.10: one cheap filter is 2-3x faster
    _PNG_OPTIONS += [cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_UP]

KEYCODES = {"3": "KEYCODE_HOME", "4": "KEYCODE_BACK", "24": "KEYCODE_VOLUME_UP",
            "25": "KEYCODE_VOLUME_DOWN", "26": "KEYCODE_POWER", "66": "KEYCODE_ENTER",
            "82": "KEYCODE_MENU", "187": "KEYCODE_APP_SWITCH", "223": "KEYCODE_SLEEP", "224": "KEYCODE_WAKEUP"}


def png(rgb: np.ndarray) -> bytes:
    """The screen as `screencap -p` writes it, encoded fast rather than small.

    A real phone writes an RGBA PNG; we write RGB, which encodes and decodes a third faster,
    and a reader decoding to colour (cv2.IMREAD_COLOR) sees the same pixels either way."""
    ok, data = cv2.imencode(".png", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), _PNG_OPTIONS)
    if not ok:
        raise RuntimeError("PNG encoding failed")
    return data.tobytes()


def raw(rgb: np.ndarray, colour_space: bool = True) -> bytearray:
    """The screen as plain `screencap` writes it: width, height, format, colour space (since
    Android 9: ``colour_space``), then RGBA."""
    height, width = rgb.shape[:2]
    header = 16 if colour_space else 12
    out = bytearray(header + width * height * 4)
    struct.pack_into("<4I" if colour_space else "<3I", out, 0, width, height, PIXEL_FORMAT_RGBA_8888,
                     *([COLOR_SPACE_SRGB] if colour_space else []))
    rgba = np.frombuffer(out, np.uint8, offset=header).reshape(height, width, 4)
    cv2.cvtColor(rgb, cv2.COLOR_RGB2RGBA, dst=rgba)
    return out


# The physical displays' ids (SurfaceFlinger's PhysicalDisplayId, what `screencap -d` takes), as
# an emulator with two displays lists them in `dumpsys SurfaceFlinger --display-id`.
MAIN_DISPLAY_ID = "4619827259835644672"
COVER_DISPLAY_ID = "4619827551948147201"
COVER_LOGICAL_ID = 1  # the cover's logical display (the main screen is the default, 0)
COLOUR_SPACE_SDK = 28  # raw screencap's colour-space word: Android 9 (screencap.cpp)
SURFACE_DISPLAY_SDK = 29  # `dumpsys SurfaceFlinger --display-id` and `screencap -d <physical id>`: Android 10
FOCUS_IN_DISPLAY_SDK = 29  # DisplayContent prints the focus from Android 10; the policy before
KEYGUARD_DELEGATE_SDK = 23  # PhoneWindowManager dumps its KeyguardServiceDelegate from Android 6
# screencap.cpp (main): with several physical displays and no -d, these three lines on stderr
# (the same stream on `exec:`), then the first display's image
MULTIPLE_DISPLAYS_WARNING = (
    "[Warning] Multiple displays were found, but no display id was specified! Defaulting to the first "
    "display found, however this default is not guaranteed to be consistent across captures. A display "
    "id should be specified.\nA display ID can be specified with the [-d display-id] option.\n"
    "See \"dumpsys SurfaceFlinger --display-id\" for valid display IDs.\n")
COVER_SHADE = 18  # the cover screen's grey: a clock face, not the game


class Usage(Exception):
    """A command used wrongly: the message is what Android prints, the exit status is 1."""


class ShellCommandFailed(Exception):
    """An exception inside a `cmd` service (``input`` since Android 12 is `cmd input`): Android's
    BasicShellCommandHandler.exec prints it with its stack and the command's status is 255."""

    def __init__(self, command: str, exception: str):
        super().__init__(f"\nException occurred while executing '{command}':\n{exception}\n"
                         "\tat com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java)")


# Java's Float.parseFloat (Double.valueOf's grammar): surrounding whitespace, a sign, NaN,
# Infinity, decimal or hex (with its binary exponent) digits, an f/d suffix; nothing else:
# no "nan", "inf" or "1_0" as Python's float() takes.
_JAVA_FLOAT = re.compile(r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"
                         r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)", re.ASCII)
INT_RANGE = (-(2 ** 31), 2 ** 31 - 1)  # phonesim taps in ints: a coordinate past them is clamped to them
OFF_SCREEN = -1  # where a tap at NaN lands: no window contains it


def _coordinate(text: str, command: str) -> int:
    """A coordinate as `input` parses it (InputShellCommand: Float.parseFloat), where phonesim
    taps it: a non-number is the NumberFormatException the phone answers with (onCommand turns
    it into "Error: Invalid arguments for command: tap"); Infinity (or 1e999) is far off the
    screen, NaN nowhere."""
    number = text.strip("".join(map(chr, range(33))))  # (parseFloat trims what is <= a space)
    if not _JAVA_FLOAT.fullmatch(number):
        raise ShellCommandFailed(command, "java.lang.IllegalArgumentException: Error: Invalid arguments "
                                          f"for command: {command}")
    body = number.rstrip("fFdD")  # (the type suffix; a hex float's exponent is decimal)
    value = float.fromhex(body) if "x" in body.lower() else float(body)  # ("NaN", "Infinity": float's too)
    if math.isnan(value):
        return OFF_SCREEN
    return INT_RANGE[value > 0] if math.isinf(value) else min(max(round(value), INT_RANGE[0]), INT_RANGE[1])


def _duration(text: str, command: str) -> int:
    """A swipe's duration as `input` parses it (Integer.parseInt: a sign and decimal digits in
    int range)."""
    if not re.fullmatch(r"[+-]?\d+", text) or not -(2 ** 31) <= int(text) < 2 ** 31:
        raise ShellCommandFailed(command, "java.lang.IllegalArgumentException: Error: Invalid arguments "
                                          f"for command: {command}")
    return int(text)


class Shell:
    """Runs shell lines against a Phone. Thread-safe as far as the Phone is."""

    def __init__(self, phone: Phone):
        self.phone = phone

    def run(self, line: str, write: Write, kept_open: bool = False) -> int:
        """Run one shell line, writing its output; returns the last command's exit status.

        kept_open: the line came on a shell already running (`adb shell` fed lines), not a
        one-shot call, whose start the phone charges before its first `input`."""
        try:
            lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError as exc:  # an unclosed quote
            write(f"/system/bin/sh: syntax error: {exc}\n".encode())
            return 1
        status = 0
        skip = False
        words: list[str] = []
        for token in tokens + [";"]:
            if token not in (";", "&&", "||", "&", "|", ";;"):
                words.append(token.replace("$?", str(status)))
                continue
            if token in ("|", "&", ";;"):
                write(f"/system/bin/sh: '{token}' is not supported on phonesim\n".encode())
                return 1
            if words and not skip:
                if words[0] == "input" and not kept_open:
                    self.phone.charge_shell_call()
                    kept_open = True  # one call, however many `input`s it runs
                status = self.command(words, write)
            words = []
            skip = (token == "&&" and status != 0) or (token == "||" and status == 0)
        return status

    def command(self, words: list[str], write: Write) -> int:
        """One command with its arguments; returns its exit status."""
        env = {}  # leading NAME=VALUE words: the command's environment
        while words and "=" in words[0] and words[0].partition("=")[0].isidentifier():
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if not words:
            return 0
        name, args = words[0], words[1:]
        if name == "app_process":  # scrcpy's server (phonesim.scrcpy), started with CLASSPATH=
            from phonesim import scrcpy
            return scrcpy.app_process(self.phone, env, args, write)
        handler = getattr(self, "cmd_" + name, None) if name.isidentifier() else None
        if handler is None:
            write(f"/system/bin/sh: {name}: inaccessible or not found\n".encode())
            return 127
        try:
            return handler(args, write) or 0
        except Usage as exc:
            write(f"{exc}\n".encode())
            return 1
        except ShellCommandFailed as exc:
            write(f"{exc}\n".encode())
            return 255  # (onCommand's -1)

    # -- the commands ------------------------------------------------------------------------
    @property
    def sdk(self) -> int:
        return int(self.phone.properties()["ro.build.version.sdk"])

    def displays(self) -> list[tuple[str, int, int]]:
        """(physical id, width, height) of each physical display in SurfaceFlinger's order: a
        cover screen first (which `screencap` untold takes), then the main one."""
        p = self.phone.preset
        cover = [(COVER_DISPLAY_ID, *p.cover)] if p.cover else []
        return cover + [(MAIN_DISPLAY_ID, p.width, p.height)]

    def cmd_screencap(self, args: list[str], write: Write) -> int:
        as_png = False
        rest = list(args)
        chosen = None
        while rest and rest[0].startswith("-"):
            flag = rest.pop(0)
            if flag == "-p":
                as_png = True
            elif flag == "-d" and rest:
                chosen = rest.pop(0)
            elif flag == "-a":
                pass
            else:
                raise Usage(f"screencap: unknown option {flag}")
        if rest:
            raise Usage("screencap: writing to a file is not supported on phonesim; "
                        "use stdout (exec-out screencap -p)")
        displays = self.displays()
        if chosen is None:
            if len(displays) > 1:
                write(MULTIPLE_DISPLAYS_WARNING.encode())
            display = displays[0][0]
        elif chosen in [d[0] for d in displays] or (chosen == "0" and self.sdk < SURFACE_DISPLAY_SDK):
            display = chosen if chosen != "0" else MAIN_DISPLAY_ID  # (before Android 10: the built-in id)
        else:  # screencap::capture's error, then main's
            write(f"Display Id '{chosen}' is not valid.\nCapturing failed.\n".encode())
            return 1
        # the frame is the one on screen when the command starts; the profile's cost (encoding,
        # or the cable for raw bytes) passes before its bytes arrive
        start = time.monotonic()
        if display == MAIN_DISPLAY_ID:
            screen = self.phone.screen()
        else:
            width, height = next((w, h) for d, w, h in displays if d == display)
            screen = np.full((height, width, 3), COVER_SHADE, np.uint8)
        data = png(screen) if as_png else raw(screen, self.sdk >= COLOUR_SPACE_SDK)
        self.phone.charge_capture(len(data), as_png, spent=time.monotonic() - start)
        write(data)
        return 0

    def cmd_input(self, args: list[str], write: Write) -> int:
        rest = list(args)
        if rest and rest[0] in ("touchscreen", "touchpad", "mouse", "keyboard", "stylus", "dpad",
                                "gamepad", "trackball", "joystick", "touchnavigation"):
            rest.pop(0)
        elsewhere = False
        if len(rest) >= 2 and rest[0] == "-d":
            elsewhere = rest[1] != "0"  # another display than the game's (a cover screen)
            rest = rest[2:]
        if not rest:
            raise Usage("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]")
        verb, rest = rest[0], rest[1:]
        if elsewhere:
            return 0  # (nothing of the game's is there)
        if self.phone.faults.refuse_input:  # what `input` prints there (InputManager's refusal)
            write(f"Exception occurred while executing '{verb}':\njava.lang.SecurityException: Injecting "
                  "to another application requires INJECT_EVENTS permission\n".encode())
            return 255
        if verb == "tap" and len(rest) == 2:
            self.phone.tap(*(_coordinate(text, verb) for text in rest))
        elif verb in ("swipe", "draganddrop") and len(rest) in (4, 5):
            points = [_coordinate(text, verb) for text in rest[:4]]
            duration = _duration(rest[4], verb) if len(rest) == 5 else -1
            self.phone.swipe(*points, duration if duration >= 0 else 300)  # (a negative one is 300)
        elif verb == "keyevent" and rest:
            for key in rest:
                if key in ("--longpress", "--doubletap"):
                    continue
                self.phone.keyevent(KEYCODES.get(key, key if key.startswith("KEYCODE_") else
                                                 "KEYCODE_" + key.upper()))
        else:
            raise Usage(f"Error: Unknown command or wrong arguments: input {' '.join(args)}")
        return 0

    def cmd_wm(self, args: list[str], write: Write) -> int:
        if args == ["size"]:
            # the natural, unrotated size (WindowManagerShellCommand.java, getInitialDisplaySize)
            width, height = self.phone.preset.natural
            write(f"Physical size: {width}x{height}\n".encode())
        elif args == ["density"]:
            write(f"Physical density: {self.phone.preset.density}\n".encode())
        else:
            raise Usage(f"Error: phonesim's wm knows only 'size' and 'density', not {' '.join(args)!r}")
        return 0

    def cmd_dumpsys(self, args: list[str], write: Write) -> int:
        p = self.phone.preset
        if args[:1] == ["display"]:
            write(self.dump_display().encode())
            return 0
        if args[:1] == ["SurfaceFlinger"]:
            write(self.dump_surface_flinger(args[1:]).encode())
            return 0
        if args[:1] in (["window"], ["activity"], ["power"]):
            dump = {"window": self.dump_window, "activity": self.dump_activity, "power": self.dump_power}[args[0]]
            write(dump(args[1:]).encode())
            return 0
        if not args:
            raise Usage("dumpsys: phonesim answers only 'dumpsys display', 'SurfaceFlinger', 'window', "
                        "'activity' and 'power'")
        write(f"Can't find service: {args[0]}\n".encode())
        return 0

    # -- what is in front: the formats are upstream's (frameworks/base, services/core/java/com/
    # android/server/): wm/DisplayContent.java dump() prints "  mCurrentFocus=" and "  mFocusedApp="
    # (`dumpsys window displays`); wm/WindowState.java toString() is "Window{HASH uUSER TITLE}",
    # an activity's window titled "package/full.Class"; wm/ActivityRecord.java toString() is
    # "ActivityRecord{HASH uUSER package/.Class tTASK}" (the component's short form);
    # policy/PhoneWindowManager.java dump() prints "mShowingDream=.. mDreamingLockscreen=..
    # mDreamingSleepToken=.." (`dumpsys window policy`); power/PowerManagerService.java
    # dumpInternal() prints "  mWakefulness=Awake" (or Asleep, Dreaming, Dozing).
    def _records(self):
        """(task id, activity) of each activity on the phone, the front one last."""
        return [(task_id, a) for task_id, task in enumerate(self.phone.tasks, 11) for a in task]

    @staticmethod
    def _hash(a, window: bool = False) -> str:
        """A stable hex "identity hash" for an activity (its window's differs from its record's)."""
        return f"{(id(a) >> 4) + window & 0xFFFFFFF:x}"

    def _record(self, task_id: int, a) -> str:
        short = a.activity[len(a.package):] if a.activity.startswith(a.package + ".") else a.activity
        return f"ActivityRecord{{{self._hash(a)} u0 {a.package}/{short} t{task_id}}}"

    def dump_display(self) -> str:
        """`dumpsys display`: its viewports (DisplayViewport.toString) in the phone's version's
        shape: before Android 10 one "mDefaultViewport=" without a uniqueId (4.4's
        DisplayManagerService.dumpInternal), since then "mViewports=[...]" naming each display's
        physical id (uniqueId='local:<id>'); a cover screen's first. Each viewport's orientation
        is its rotation and deviceWidth/deviceHeight its natural size."""
        p = self.phone.preset
        (width, height), turn = p.natural, (p.rotation + self.phone.turned) % 4
        logical = self.phone.screen_size()
        if self.sdk < SURFACE_DISPLAY_SDK:
            return ("DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n"
                    f"  mDefaultViewport=DisplayViewport{{valid=true, displayId=0, orientation={turn}, "
                    f"logicalFrame=Rect(0, 0 - {logical[0]}, {logical[1]}), physicalFrame=Rect(0, 0 - {width}, "
                    f"{height}), deviceWidth={width}, deviceHeight={height}}}\n"
                    "  mExternalTouchViewport=DisplayViewport{valid=false, displayId=0, orientation=0, "
                    "logicalFrame=Rect(0, 0 - 0, 0), physicalFrame=Rect(0, 0 - 0, 0), deviceWidth=0, "
                    "deviceHeight=0}\n")
        ports = []
        for physical, w, h in self.displays():
            main = physical == MAIN_DISPLAY_ID
            number = 0 if main else COVER_LOGICAL_ID
            (dw, dh), rot, frame = ((width, height), turn, logical) if main else ((w, h), 0, (w, h))
            ports.append(f"DisplayViewport{{type=INTERNAL, valid=true, isActive={str(main).lower()}, "
                         f"displayId={number}, uniqueId='local:{physical}', physicalPort={number}, "
                         f"orientation={rot}, logicalFrame=Rect(0, 0 - {frame[0]}, {frame[1]}), "
                         f"physicalFrame=Rect(0, 0 - {frame[0]}, {frame[1]}), deviceWidth={dw}, deviceHeight={dh}}}")
        return ("DISPLAY MANAGER (dumpsys display)\n  mOnlyCore=false\n"
                f"Display Devices: size={len(ports)}\n"
                f"  mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {logical[0]} x "
                f"{logical[1]}, density {p.density} ({p.density} x {p.density}) dpi, rotation {turn}, state ON}}\n"
                f"  mViewports=[{', '.join(ports)}]\n")

    def dump_surface_flinger(self, args: list[str]) -> str:
        """`dumpsys SurfaceFlinger --display-id`: one line per physical display (SurfaceFlinger.cpp
        dumpDisplayIdentificationData), Android 10+; before, the option is unknown and the whole
        dump comes (here its first line)."""
        if args[:1] != ["--display-id"] or self.sdk < SURFACE_DISPLAY_SDK:
            return "Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=0]\n"
        return "".join(f'Display {physical} (HWC display {k}): port={k} pnpId=SEC displayName="{name}"\n'
                       for k, (physical, name) in enumerate(
                           (d, "Cover" if d == COVER_DISPLAY_ID else "Main") for d, _w, _h in self.displays()))

    def _window(self) -> str:
        """The focused window as WindowState.toString prints it (the lock screen's when locked)."""
        phone = self.phone
        task_id, top = self._records()[-1]
        window = phone.lockscreen if phone.locked else top
        title = self.lock_window() if phone.locked else f"{top.package}/{top.activity}"
        return f"Window{{{self._hash(window, True)} u0 {title}}}"

    def lock_window(self) -> str:
        """The keyguard's window title in the phone's Android version: NotificationShade from 11,
        StatusBar from 5.0 (the keyguard moved into SystemUI's status bar), Keyguard on 4.4."""
        sdk = self.sdk
        return "NotificationShade" if sdk >= 30 else "StatusBar" if sdk >= 21 else "Keyguard"

    def dump_window(self, args: list[str]) -> str:
        """`dumpsys window` in the phone's Android version's shape: from Android 10 each display's
        DisplayContent prints its focus (a cover screen's section first, its own launcher
        focused); before, the displays print none and the policy holds the focus
        (PhoneWindowManager.dump: mFocusedWindow, mFocusedApp as a Token around the record,
        mShowingLockscreen); from Android 6 the policy dumps its KeyguardServiceDelegate."""
        phone, sdk = self.phone, self.sdk
        task_id, top = self._records()[-1]
        p = phone.preset
        displays = "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
        if p.cover and sdk >= FOCUS_IN_DISPLAY_SDK:
            w, h = p.cover
            displays += (f"  Display: mDisplayId={COVER_LOGICAL_ID}\n    init={w}x{h} {p.density}dpi\n"
                         "  mCurrentFocus=Window{5a1c0de u0 com.sec.android.app.launcher/"
                         "com.android.launcher3.uioverrides.SubDisplayLauncher}\n"
                         "  mFocusedApp=ActivityRecord{5a1c0df u0 com.sec.android.app.launcher/"
                         "com.android.launcher3.uioverrides.SubDisplayLauncher t3}\n")
        displays += f"  Display: mDisplayId=0\n    init={p.width}x{p.height} {p.density}dpi\n"
        locked = str(phone.locked).lower()
        policy = "WINDOW MANAGER POLICY STATE (dumpsys window policy)\n    mSafeMode=false mSystemReady=true\n"
        policy += f"    mAwake={str(phone.awake).lower()}\n"
        if sdk >= FOCUS_IN_DISPLAY_SDK:
            displays += f"  mCurrentFocus={self._window()}\n  mFocusedApp={self._record(task_id, top)}\n"
            policy += f"    mShowingDream=false mDreamingLockscreen={locked} mDreamingSleepToken=null\n"
        else:
            policy += (f"    mFocusedWindow={self._window()}\n"
                       f"    mFocusedApp=Token{{{self._hash(top, True)} {self._record(task_id, top)}}}\n"
                       f"    mShowingLockscreen={locked} mShowingDream=false mDreamingLockscreen={locked}\n")
        if sdk >= KEYGUARD_DELEGATE_SDK:  # (appium-adb test/unit/lockmgmt.spec.ts's real sample's shape)
            policy += (f"    KeyguardServiceDelegate\n      showing={locked}\n      inputRestricted={locked}\n"
                       f"      screenState=SCREEN_STATE_{'ON' if phone.awake else 'OFF'}\n"
                       f"      KeyguardStateMonitor\n        mIsShowing={locked}\n        mSimSecure=false\n"
                       f"        mInputRestricted={locked}\n")
        if args[:1] in (["displays"], ["windows"]):
            return displays
        if args[:1] == ["policy"]:
            return policy
        return displays + "\n" + policy

    def dump_activity(self, args: list[str]) -> str:
        """`dumpsys activity activities`: the tasks top to bottom, then the resumed activity
        (RootWindowContainer's dump: "  ResumedActivity: " per display, "topResumedActivity=")."""
        records = self._records()
        lines = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)", "Display #0 (activities from top to bottom):"]
        lines += [f"    * Hist #{k}: {self._record(t, a)}" for k, (t, a) in enumerate(reversed(records))]
        top = self._record(*records[-1])
        return "\n".join(lines + [f"  ResumedActivity: {top}", "", f" topResumedActivity={top}", ""])

    def dump_power(self, args: list[str]) -> str:
        """PowerManagerService.dumpInternal's state; Samsung names the wakefulness by its getter
        (flutter dev/devicelab/lib/framework/devices.dart: "A Samsung phone returns
        getWakefullnessLocked()=Awake"; appium-adb lib/tools/lockmgmt.ts isInDozingMode)."""
        name = "getWakefulnessLocked()" if self.phone.preset.maker == "samsung" else "mWakefulness"
        return ("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n"
                f"  {name}={'Awake' if self.phone.awake else 'Asleep'}\n  mWakefulnessChanging=false\n"
                "  mIsPowered=true\n")

    def cmd_monkey(self, args: list[str], write: Write) -> int:
        """`monkey -p PACKAGE -c android.intent.category.LAUNCHER 1`: the app's launcher activity
        to the front (its task as it was left), as scripts bring an app back."""
        if "-p" not in args or args.index("-p") + 1 >= len(args):
            raise Usage("** Error: phonesim's monkey only starts a package: monkey -p PACKAGE -c "
                        "android.intent.category.LAUNCHER 1")
        if not self.phone.to_front(args[args.index("-p") + 1]):
            write(b"** No activities found to run, monkey aborted.\n")  # (Monkey.java's words)
            return 0
        write(b"Events injected: 1\n")
        return 0

    def cmd_am(self, args: list[str], write: Write) -> int:
        """`am start -n PACKAGE/ACTIVITY` (ActivityManagerShellCommand's answers)."""
        if args[:1] != ["start"] or "-n" not in args or args.index("-n") + 1 >= len(args):
            raise Usage("Error: phonesim's am knows only 'am start -n PACKAGE/ACTIVITY'")
        component = args[args.index("-n") + 1]
        package = component.split("/")[0]
        write(f"Starting: Intent {{ cmp={component} }}\n".encode())
        if not self.phone.to_front(package):
            write(f"Error type 3\nError: Activity class {{{component}}} does not exist.\n".encode())
            return 1
        return 0

    def cmd_getprop(self, args: list[str], write: Write) -> int:
        props = self.phone.properties()
        if args:
            write((props.get(args[0], args[1] if len(args) > 1 else "") + "\n").encode())
        else:
            write("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())).encode())
        return 0

    def cmd_echo(self, args: list[str], write: Write) -> int:
        if args[:1] == ["-n"]:
            write(" ".join(args[1:]).encode())
        else:
            write((" ".join(args) + "\n").encode())
        return 0

    def cmd_sleep(self, args: list[str], write: Write) -> int:
        if len(args) != 1:
            raise Usage("usage: sleep SECONDS")
        try:
            seconds = float(args[0])
        except ValueError:
            raise Usage(f"sleep: invalid number '{args[0]}'") from None
        time.sleep(min(max(seconds, 0.0), 60.0))
        return 0

    def cmd_true(self, args: list[str], write: Write) -> int:
        return 0

    def cmd_false(self, args: list[str], write: Write) -> int:
        return 1

    def cmd_phonesim(self, args: list[str], write: Write) -> int:
        """`phonesim truth`: the app's ground truth as JSON, for tests across processes (a real
        phone has no such command; the assistant never uses it)."""
        if args != ["truth"]:
            raise Usage("usage: phonesim truth")
        write((json.dumps(self.phone.truth()) + "\n").encode())
        return 0
