"""The command line's phone commands: `tapsolve devices` lists the phones the adb server knows
(and finds local emulators), `connect`, `disconnect` and `pair` add and drop network phones."""

from __future__ import annotations

import os
import socket

from assistant.phone import choice
from assistant.phone.device import CONNECT_WAIT, Device, note
from assistant.phone.server import (NO_PHONE, Client, NoPhone, PhoneLost, PhoneNotReady, adb_client, advice,
                                    choose, connect_address, disconnect, forget_failed, list_phones, pair,
                                    phone_state, wait_ready)
from solver.errors import TapsolveError

# The adb ports the usual emulators listen on, on this computer: BlueStacks 5 and LDPlayer 5555
# (adb lists LDPlayer's as emulator-5554 by itself), MuMu 12 16384 and 32 more per further
# instance, MuMu 6 7555, Nox 62001, MEmu 21503.
EMULATOR_PORTS = (5555, 7555, 16384, 16416, 16448, 16480, 21503, 62001)
SCAN_PORTS_ENV = "TAPSOLVE_SCAN_PORTS"  # ports to scan instead, comma-separated (for tests)
SCAN_TIMEOUT = 0.3  # seconds a local port may take to accept before it counts as closed


def scan(client: Client, ports=None) -> list[str]:
    """Connect the emulators answering on this computer's usual adb ports: the addresses connected."""
    text = os.environ.get(SCAN_PORTS_ENV)
    ports = ports or ([int(p) for p in text.split(",") if p.strip().isdigit()] if text else EMULATOR_PORTS)
    listed = {p.serial for p in list_phones(client)}
    found = []
    for port in ports:
        address = f"127.0.0.1:{port}"
        # the server lists an emulator on 5555-5585 by itself as emulator-(port - 1)
        if address in listed or f"emulator-{port - 1}" in listed:
            continue
        try:
            socket.create_connection(("127.0.0.1", port), timeout=SCAN_TIMEOUT).close()
        except OSError:
            continue
        try:
            connect_address(client, address)
        except NoPhone as exc:
            forget_failed(client, address, listed)
            note(str(exc))
            continue
        try:
            wait_ready(client, address, CONNECT_WAIT)  # until it lists as ready
        except PhoneLost:
            forget_failed(client, address, listed)  # an offline one is dropped; another state is listed
        if any(p.serial == address for p in list_phones(client)):
            found.append(address)
    return found


def run_devices(args) -> int:
    """List the phones with their state, model and screen size, and what to do about the others."""
    client = adb_client()
    found = scan(client) if args.scan else []
    missed = "no emulator answered on the usual adb ports (is it running, with ADB on in its settings?)"
    phones = list_phones(client)
    if not phones:
        raise NoPhone(f"{missed}; {NO_PHONE}" if args.scan else NO_PHONE)
    if args.scan:
        note(f"connected {', '.join(found)}" if found else missed.replace("no emulator", "no new emulator"))
    for phone in phones:
        if phone.ready:
            try:
                device = Device(client, phone.serial)
                phone.model = device.shell("getprop ro.product.model").strip() or phone.model
                phone.size = device.input_size()
            except TapsolveError:
                pass
    header = ("SERIAL", "STATE", "MODEL", "SCREEN")
    rows = [(p.serial, p.state, p.model or "-", f"{p.size[0]}x{p.size[1]}" if p.size else "-")
            for p in phones]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    for phone, row in zip(phones, rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if not phone.ready:
            print(f"  -> {advice(phone.state, phone.serial)}")
    for phone in phones if vars(args).get("verbose") else ():
        if phone.ready:
            device = Device(client, phone.serial)
            try:
                device.use_channel(choice.asked(None))
                print(f"{phone.serial}: {device.channel_why}")
            except TapsolveError as exc:
                print(f"{phone.serial}: no channel: {exc}")
            finally:
                device.close()
    if len(phones) > 1:
        try:  # (what play does without --serial: a single ready phone beside network leftovers is used)
            chosen = choose(phones, None).serial
        except TapsolveError:
            chosen = None
        print(f"{len(phones)} phones: without --serial tapsolve uses {chosen}, the one ready phone" if chosen else
              f"{len(phones)} phones: choose one with --serial SERIAL")
    return 0


def run_connect(args) -> int:
    """`tapsolve connect HOST:PORT`: a phone on Wi-Fi or an emulator, added to the adb server."""
    client = adb_client()
    listed = {p.serial for p in list_phones(client)}
    try:
        print(connect_address(client, args.address))
    except NoPhone:
        forget_failed(client, args.address, listed)
        raise
    try:
        wait_ready(client, args.address, CONNECT_WAIT)
    except PhoneLost:
        state = phone_state(client, args.address) or "not listed"
        forget_failed(client, args.address, listed)
        raise PhoneNotReady(f"{args.address} is {state}: {advice(state, args.address)}") from None
    print(f"{args.address}: ready ({Device(client, args.address).model}); play on it with --serial {args.address}")
    return 0


def run_disconnect(args) -> int:
    """`tapsolve disconnect [HOST:PORT]`: drop one network phone, or all of them."""
    print(disconnect(adb_client(), args.address))
    return 0


def run_pair(args) -> int:
    """`tapsolve pair HOST:PORT CODE`: pair with a phone's Wireless debugging (Android 11+)."""
    print(pair(adb_client(), args.address, args.code))
    print("now connect with `tapsolve connect HOST:PORT`, the address under Wireless debugging "
          "(not the pairing one)")
    return 0
