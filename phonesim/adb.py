"""The ADB device side over TCP: the transport messages, streams and services a phone's adbd offers.

The real adb server connects here exactly as it connects to a phone over Wi-Fi
(`adb connect 127.0.0.1:PORT`). Every message is a 24-byte header (command, arg0, arg1, payload
length, payload checksum, command ^ 0xffffffff) and its payload:

- CNXN(version, maxdata, "host::...") from the host; we answer CNXN with our banner, without
  AUTH (unless the phone plays "unauthorized"). Version 0x01000001 means no checksums.
- OPEN(host-id, 0, "service\\0") opens a stream; we answer OKAY(our-id, host-id) or CLSE(0, host-id).
- WRTE(from-id, to-id, data) carries data; the receiver answers OKAY. A sender keeps one WRTE
  in flight per stream until its OKAY comes back.
- CLSE(from-id, to-id) ends a stream.

Services: `shell:CMD` (legacy shell, no PTY when a command is given, so binary output is safe),
`shell:` alone (a tiny interactive shell) and `exec:CMD`. The commands themselves live in
``phonesim.shell``. Bad input from a client (random bytes, a bad magic, a payload too long, a
client vanishing mid-write) closes that client's connection only; the server keeps serving.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import struct
import threading
import time

from phonesim.phone import Phone
from phonesim.shell import Shell

log = logging.getLogger(__name__)


# a command is its four letters read as a little-endian word
A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_WRTE, A_CLSE, A_SYNC, A_STLS = COMMANDS = [
    int.from_bytes(name, "little") for name in (b"CNXN", b"AUTH", b"OPEN", b"OKAY", b"WRTE", b"CLSE", b"SYNC", b"STLS")]

AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3

VERSION = 0x01000001  # skips payload checksums
MAX_PAYLOAD = 1 << 20  # 1 MiB, what current adbd offers
RECV_CHUNK = 1 << 16  # a payload is read as it arrives, never set aside whole from its header
# Clients at once (an adb server is one; tests open a few more): not each given a thread
# without end. Streams per client likewise (a service runs in a thread of its own). A real adbd
# caps neither and times nothing out (system/core/adb/transport_local.cpp, server_socket_thread:
# every accepted socket becomes a transport), but a phone is not a thread a client: phonesim
# makes room for a new client by dropping an idle one (IDLE_EVICT_AFTER), and refuses it only
# when every client is busy.
MAX_CLIENTS = 32
MAX_STREAMS = 64
# Seconds a client may take to send its first message: the adb server sends CNXN the moment it
# connects (transport.cpp, fdevent_register_transport -> send_connect), so a silent socket is
# not an adb server.
HANDSHAKE_TIMEOUT = 10.0
# Seconds without a message after which a client with no open stream is idle: it gives way to
# a new client when all MAX_CLIENTS are taken (a client that never spoke gives way at once).
# The adb server itself sends nothing between commands, so an idle client is never dropped
# while there is room.
IDLE_EVICT_AFTER = 5.0
HEADER = struct.Struct("<6I")
# Bytes of one line the interactive shell keeps: a terminal's line in canonical mode holds
# N_TTY_BUF_SIZE (4096, Linux include/linux/tty.h); what is typed past it is dropped.
MAX_LINE = 4096

LEGACY_SHELL_BEFORE_SDK = 21  # Android 5.0's adbd brought `exec:` (and the PTY-less shell)

# The emulator console/adb ports: the adb server probes them on its own, so a phone there
# would be picked up by every adb server on the machine.
EMULATOR_PORTS = range(5554, 5586)


class ProtocolError(Exception):
    """A client sent something that is not the ADB transport protocol."""


def pack(command: int, arg0: int, arg1: int, payload: bytes = b"") -> bytes:
    """One message's header (checksum left 0: version 0x01000001 does not check it)."""
    return HEADER.pack(command, arg0 & 0xFFFFFFFF, arg1 & 0xFFFFFFFF, len(payload), 0,
                       command ^ 0xFFFFFFFF)


def banner(phone: Phone) -> bytes:
    """The CNXN payload: the device's system type and the properties `adb devices -l` shows."""
    props = phone.properties()
    keys = ("ro.product.name", "ro.product.model", "ro.product.device")
    return ("device::" + "".join(f"{k}={props[k]};" for k in keys) + "features=").encode()


class StreamClosed(Exception):
    """The other side closed the stream (or the whole connection) while we were writing."""


class Stream:
    """One open service: our id, the host's id, a queue of data the host wrote to us."""

    def __init__(self, connection: "Connection", local_id: int, remote_id: int):
        self.connection = connection
        self.local_id = local_id
        self.remote_id = remote_id
        self.incoming: queue.Queue[bytes | None] = queue.Queue()
        self.acked = threading.Event()
        self.closed = False
        # a WRTE from the host not yet acknowledged: OKAY goes back once the service has read it
        # (the host sends one WRTE at a time), so one stream holds at most one payload
        self.unread = False

    def write(self, data: bytes | memoryview) -> None:
        """Send data in WRTEs of at most maxdata, each only after the previous one's OKAY."""
        view = memoryview(data).cast("B")
        step = self.connection.maxdata
        for start in range(0, len(view), step):
            if self.closed:
                raise StreamClosed()
            self.acked.clear()
            self.connection.send(A_WRTE, self.local_id, self.remote_id, view[start:start + step])
            while not self.acked.wait(1.0):
                if self.closed:
                    raise StreamClosed()
            if self.closed:
                raise StreamClosed()

    def read(self, timeout: float | None = None) -> bytes | None:
        """The next data the host wrote, or None once the stream is closed."""
        if self.closed and self.incoming.empty():
            return None
        data = self.incoming.get(timeout=timeout)
        if data is not None and not self.closed:
            self.unread = False
            try:
                self.connection.send(A_OKAY, self.local_id, self.remote_id)  # ready for the next
            except OSError:
                pass
        return data

    def peer_closed(self) -> None:
        self.closed = True
        self.acked.set()
        self.incoming.put(None)

    def close(self) -> None:
        """Close from our side: CLSE to the host, unless it closed first."""
        if not self.closed:
            self.closed = True
            self.acked.set()
            try:
                self.connection.send(A_CLSE, self.local_id, self.remote_id)
            except OSError:
                pass
        self.connection.forget(self)


class Connection:
    """One TCP client (normally an adb server): reads messages, runs each stream's service."""

    def __init__(self, server: "AdbServer", sock: socket.socket, address):
        self.server = server
        self.sock = sock
        self.address = address
        self.maxdata = MAX_PAYLOAD
        self.online = False
        self.streams: dict[int, Stream] = {}
        self._next_id = 1
        self._send_lock = threading.Lock()
        self._streams_lock = threading.Lock()
        self._alive = True
        self._auth_token = b""
        self.spoke = False  # a whole message has come from this client
        self.last_heard = time.monotonic()

    # -- sending ---------------------------------------------------------------------------
    def send(self, command: int, arg0: int, arg1: int, payload: bytes | memoryview = b"") -> None:
        header = pack(command, arg0, arg1, payload)
        with self._send_lock:
            if not self._alive:
                raise OSError("connection closed")
            try:
                if len(payload) > 65536:
                    self.sock.sendall(header)
                    self.sock.sendall(payload)
                else:
                    self.sock.sendall(header + bytes(payload))
            except OSError:
                self._alive = False
                raise

    # -- receiving -------------------------------------------------------------------------
    def _read_exact(self, n: int) -> bytes:
        """n bytes, in chunks as they come: a header's length alone reserves no memory."""
        chunks, got = [], 0
        while got < n:
            chunk = self.sock.recv(min(n - got, RECV_CHUNK))
            if not chunk:
                raise EOFError("client went away")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _read_message(self) -> tuple[int, int, int, bytes]:
        command, arg0, arg1, length, _check, magic = HEADER.unpack(self._read_exact(HEADER.size))
        if magic != command ^ 0xFFFFFFFF:
            raise ProtocolError(f"bad magic in header {command:#x}/{magic:#x}")
        if command not in COMMANDS:
            raise ProtocolError(f"unknown command {command:#x}")
        if length > MAX_PAYLOAD:
            raise ProtocolError(f"payload of {length} bytes is over {MAX_PAYLOAD}")
        payload = self._read_exact(length) if length else b""
        return command, arg0, arg1, payload

    def idle_for(self) -> float | None:
        """Seconds since this client's last message (or its connecting) when it may give way to
        a new client (``AdbServer._make_room``): no stream open, and silent since it connected
        or for IDLE_EVICT_AFTER; else None."""
        with self._streams_lock:
            if self.streams:
                return None
        seconds = time.monotonic() - self.last_heard
        return seconds if not self.spoke or seconds >= IDLE_EVICT_AFTER else None

    def run(self) -> None:
        """Serve this client until it leaves or breaks the protocol."""
        try:
            self.sock.settimeout(HANDSHAKE_TIMEOUT)
            while self._alive:
                message = self._read_message()
                if not self.spoke:
                    self.spoke = True
                    self.sock.settimeout(None)
                self.last_heard = time.monotonic()
                self._handle(*message)
        except (EOFError, OSError, ProtocolError) as exc:
            log.debug("connection %s ends: %s", self.address, exc)
        except Exception:  # a bug here must not take the other clients down
            log.exception("connection %s failed", self.address)
        finally:
            self.shutdown()

    def _handle(self, command: int, arg0: int, arg1: int, payload: bytes) -> None:
        mode = self.server.mode
        if command == A_CNXN:
            self._drop_streams()
            self.maxdata = max(4096, min(arg1 or MAX_PAYLOAD, MAX_PAYLOAD))
            if mode == "silent":  # a phone that never answers: the host lists it "offline"
                return
            if mode == "unauthorized":
                self._auth_token = os.urandom(20)
                self.send(A_AUTH, AUTH_TOKEN, 0, self._auth_token)
                return
            self.online = True
            self.send(A_CNXN, VERSION, self.maxdata, banner(self.server.phone))
        elif command == A_AUTH:
            # We accept no key: a signature gets a fresh token, a public key "shows the prompt"
            # on the phone, which nobody accepts; the host lists the phone "unauthorized".
            if arg0 == AUTH_SIGNATURE:
                self._auth_token = os.urandom(20)
                self.send(A_AUTH, AUTH_TOKEN, 0, self._auth_token)
        elif not self.online:
            return  # adbd ignores everything before the handshake
        elif command == A_OPEN:
            self._open(arg0, payload)
        elif command == A_OKAY:
            stream = self.streams.get(arg1)
            if stream is not None and stream.remote_id == arg0:
                stream.acked.set()
        elif command == A_WRTE:
            stream = self.streams.get(arg1)
            if stream is None or stream.remote_id != arg0:
                self.send(A_CLSE, 0, arg0)
                return
            if stream.unread:  # a second WRTE before our OKAY: not the protocol, the stream ends
                stream.peer_closed()
                self.forget(stream)
                self.send(A_CLSE, stream.local_id, stream.remote_id)
                return
            stream.unread = True
            stream.incoming.put(payload)
        elif command == A_CLSE:
            stream = self.streams.get(arg1)
            if stream is not None and stream.remote_id == arg0:
                stream.peer_closed()
                self.forget(stream)

    def _open(self, remote_id: int, payload: bytes) -> None:
        if remote_id == 0:
            return
        name = payload.rstrip(b"\0").decode("utf-8", "replace")
        service = self.server.service(name)
        with self._streams_lock:
            full = len(self.streams) >= MAX_STREAMS
        if service is None or full:
            self.send(A_CLSE, 0, remote_id)
            return
        with self._streams_lock:
            local_id = self._next_id
            self._next_id = self._next_id % 0x7FFFFFFF + 1
            stream = Stream(self, local_id, remote_id)
            self.streams[local_id] = stream
        self.send(A_OKAY, local_id, remote_id)
        threading.Thread(target=self._serve_stream, args=(stream, service), daemon=True,
                         name=f"phonesim-stream-{local_id}").start()

    def _serve_stream(self, stream: Stream, service) -> None:
        try:
            service(stream)
        except (StreamClosed, OSError):
            pass
        except Exception:
            log.exception("service failed")
        finally:
            stream.close()

    def forget(self, stream: Stream) -> None:
        with self._streams_lock:
            if self.streams.get(stream.local_id) is stream:
                del self.streams[stream.local_id]

    def _drop_streams(self) -> None:
        with self._streams_lock:
            streams, self.streams = list(self.streams.values()), {}
        for stream in streams:
            stream.peer_closed()

    def shutdown(self) -> None:
        """End the connection and wake every stream still writing to it."""
        # No send lock here: a writer may hold it, stuck in sendall to a client that never
        # reads; shutting the socket down is what frees it.
        self._alive = False
        self._drop_streams()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.server.forget(self)


class AdbServer:
    """A virtual phone's adbd listening on 127.0.0.1 (``start()`` it, `adb connect` to its ``serial``,
    ``stop()`` it): serves up to MAX_CLIENTS clients in threads.

    mode "device" is a normal phone; "unauthorized" answers CNXN with AUTH and accepts no key;
    "silent" never answers CNXN (the host lists it "offline")."""

    def __init__(self, phone: Phone, port: int = 0, host: str = "127.0.0.1", mode: str = "device"):
        if mode not in ("device", "unauthorized", "silent"):
            raise ValueError(f"unknown mode {mode!r}")
        if port in EMULATOR_PORTS:
            raise ValueError(f"port {port} is an emulator port (5554-5585): the adb server "
                             "would pick it up on its own; choose another")
        self.phone = phone
        self.host = host
        self.mode = mode
        self.shell = Shell(phone)
        self.port = port  # 0 until started: then the port it listens on
        self._listener: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[Connection] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    @property
    def serial(self) -> str:
        """The serial the adb server gives the phone once connected: HOST:PORT."""
        return f"{self.host}:{self.port}"

    def start(self) -> "AdbServer":
        self._listener = bind(self.host, self.port)
        self.port = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True,
                                        name=f"phonesim-adb-{self.port}")
        self._thread.start()
        return self

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, address = self._listener.accept()
            except OSError:
                break
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            connection = Connection(self, sock, address)
            with self._lock:
                if self._stopping.is_set():
                    sock.close()
                    break
                idle = self._make_room()
                if idle is None and len(self._connections) >= MAX_CLIENTS:
                    log.warning("refused client %s: %d clients already, none idle", address, MAX_CLIENTS)
                    sock.close()
                    continue
                self._connections.add(connection)
            if idle is not None:
                log.warning("dropped idle client %s for %s", idle.address, address)
                idle.shutdown()
            threading.Thread(target=connection.run, daemon=True,
                             name=f"phonesim-conn-{address[1]}").start()

    def _make_room(self) -> Connection | None:
        """With every client slot taken, the client idle longest (IDLE_EVICT_AFTER), taken out
        of the set to be shut down; None when there is room or nobody is idle. Under _lock."""
        if len(self._connections) < MAX_CLIENTS:
            return None
        idle = [(seconds, c) for c in self._connections if (seconds := c.idle_for()) is not None]
        if not idle:
            return None
        connection = max(idle, key=lambda pair: pair[0])[1]
        self._connections.discard(connection)
        return connection

    def forget(self, connection: Connection) -> None:
        with self._lock:
            self._connections.discard(connection)

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._connections)

    def stop(self) -> None:
        """Stop listening and drop every client; the adb server then sees the phone go away."""
        self._stopping.set()
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._listener.close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            connection.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "AdbServer":
        return self.start() if self._listener is None else self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- services --------------------------------------------------------------------------
    def service(self, name: str):
        """The function serving an OPENed service name, or None when the phone has no such service."""
        kind, colon, command = name.partition(":")
        if colon and kind in ("sync", "localabstract"):  # scrcpy's push and sockets
            from phonesim import scrcpy
            return scrcpy.service(self.phone, kind, command)
        # "shell,raw:" / "shell,pty:" (adb daemon/services.cpp, ShellService); no shell protocol v2 here
        kind, *shell_args = kind.split(",")
        if not colon or kind not in ("shell", "exec") or "v2" in shell_args or (kind == "exec" and shell_args):
            return None
        if int(self.phone.properties()["ro.build.version.sdk"]) < LEGACY_SHELL_BEFORE_SDK:
            # Android 4.4's adbd: no `exec:` (it came with 5.0) and no shell arguments; its
            # `shell:` runs every command in a PTY, whose line discipline (ONLCR) writes "\r\n" for
            # each "\n" of the output, binary or not (system/core adb/services.cpp, create_subproc_pty)
            if kind == "exec" or shell_args:
                return None
            if not command.strip():
                return lambda stream: self._interactive(stream, write=through_pty(stream.write))
            return lambda stream: self.shell.run(command, through_pty(stream.write))
        if kind == "shell" and not command.strip():
            # no command: a PTY (a prompt) unless raw asked, as adbd's default for interactive shells
            return lambda stream: self._interactive(stream, prompt="raw" not in shell_args)
        return lambda stream: self.shell.run(command, stream.write)

    def _interactive(self, stream: Stream, prompt: bool = True, write=None) -> None:
        """`adb shell` without a command: a prompt (none raw), lines in, their output out
        (through ``write``, a PTY's, when given)."""
        prompt = f"{self.phone.preset.device}:/ $ ".encode() if prompt else b""
        write = write or stream.write
        write(prompt)
        pending = b""
        while True:
            data = stream.read()
            if data is None:
                return
            pending += data.replace(b"\r", b"\n")
            while b"\n" in pending or len(pending) > MAX_LINE:
                line, newline, pending = pending.partition(b"\n")
                if not newline:  # (a line longer than the terminal keeps: the rest is dropped)
                    pending = line[:MAX_LINE]
                    break
                text = line[:MAX_LINE].decode("utf-8", "replace").strip()
                if text == "exit":
                    return
                if text:
                    self.shell.run(text, write, kept_open=True)
                write(prompt)


def through_pty(write):
    """A writer as a PTY's output side passes bytes on: each "\n" as "\r\n" (termios ONLCR)."""
    return lambda data: write(bytes(data).replace(b"\n", b"\r\n"))


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or on a free port outside the emulator range when port is 0."""
    for _ in range(50):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        if sock.getsockname()[1] in EMULATOR_PORTS:
            sock.close()
            continue
        sock.listen(16)
        return sock
    raise OSError("no free port outside 5554-5585")
