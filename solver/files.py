"""Reading what a person hands tapsolve (screenshots, board files, stored profiles, typed numbers):
regular files only, bounded in size, JSON within limits, numbers in ASCII digits; anything else
is one InputError line naming the file or the text and what is wrong."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

from solver import platforms
from solver.errors import InputError

# JSON tapsolve reads is a few levels deep (a profile: object, list, object, list); deeper is not
# one of its files, and Python's decoder would exhaust its recursion limit some 1000 levels down
MAX_JSON_DEPTH = 64
# the most digits one JSON number tapsolve reads may have: a float as Python writes it has up to
# 17 significant digits after up to 4 zeros (0.00012345678901234567, below that an exponent), a
# count or score far fewer; the threat is thousands (an int of over 4300 digits is a ValueError)
MAX_JSON_DIGITS = 32

_ASCII_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)


class FileInputError(InputError):
    """A file that cannot be used as input: missing, special, too large, not text (exit code 2)."""


class MissingFile(FileInputError):
    """No file at the path (or a part of the path is not a folder)."""


def is_digits(text: str) -> bool:
    """``text`` is one or more ASCII digits 0-9 (``str.isdigit`` also takes "²" and the digits of
    other scripts, which ``int`` refuses or silently reads)."""
    return text.isascii() and text.isdigit()


def whole_number(text: str) -> int:
    """The whole number ``text`` spells in ASCII digits (a sign and surrounding blanks allowed);
    ValueError otherwise, as ``int`` raises for words (``int`` alone reads "١٢" as 12)."""
    if not _ASCII_WHOLE.fullmatch(text.strip()):
        raise ValueError(f"not a whole number: {text!r}")
    return int(text)


# a path longer than this is shown cut in the middle: the line stays one line
SHOWN_PATH = 100


def shown(path) -> str:
    """``path`` for a one-line message: whole, or its start and end around "..." when very long."""
    text = str(path)
    return text if len(text) <= SHOWN_PATH else f"{text[:SHOWN_PATH // 2 - 2]}...{text[-(SHOWN_PATH // 2 - 2):]}"


def _why(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "the path is too long for the file system"
    return exc.strerror or str(exc)


def read_bytes(path, limit: int, what: str = "the file") -> bytes:
    """The bytes of the regular file at ``path`` (a symlink to one is fine), at most ``limit``
    bytes. A device (/dev/zero), a named pipe, a socket or a folder is refused before it is opened
    for reading, so nothing can grow memory without end or wait for a writer forever."""
    path = Path(path)
    name = shown(path)
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise MissingFile(f"cannot read {what} {name}: no such file") from None
    except OSError as exc:
        raise FileInputError(f"cannot read {what} {name}: {_why(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise FileInputError(f"{name} is a folder, not {what}")
    if not stat.S_ISREG(info.st_mode):
        raise FileInputError(f"{name} is not a regular file (a device, pipe or socket): give {what} as a file")
    if info.st_size > limit:
        raise FileInputError(f"{name} is {info.st_size:,} bytes: too large for {what} (at most {limit:,})")
    try:
        # (should the path have been swapped for a pipe since the stat, opening it does not wait)
        fd = os.open(path, platforms.READ_FLAGS)
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                raise FileInputError(f"{name} is not a regular file: give {what} as a file")
            data = file.read(limit + 1)  # a file growing while read is cut at the bound, and refused
    except OSError as exc:
        raise FileInputError(f"cannot read {what} {name}: {_why(exc)}") from None
    if len(data) > limit:
        raise FileInputError(f"{name} is larger than {what} can be (at most {limit:,} bytes)")
    return data


def read_text(path, limit: int, what: str = "the file") -> str:
    """``read_bytes`` decoded as UTF-8; a file in another encoding (or binary) is named."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileInputError(f"{shown(path)} is not UTF-8 text (byte {exc.start} is {data[exc.start]:#04x}): "
                             f"give {what} as UTF-8 JSON or text") from None


def _depth(text: str) -> int:
    """How deep the JSON text's brackets nest (those inside strings do not count)."""
    deepest = depth = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        ch = token.group()[0]
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def parse_json(text: str | bytes, what: str = "the JSON"):
    """The JSON value of ``text``; InputError for broken JSON, nesting deeper than
    MAX_JSON_DEPTH or a number longer than MAX_JSON_DIGITS digits (each a traceback, or a
    decoder's stack overflow, in ``json.loads``)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{what} is not UTF-8 text") from None
    if _depth(text) > MAX_JSON_DEPTH:
        raise InputError(f"{what} nests deeper than {MAX_JSON_DEPTH} levels: it is not one tapsolve wrote or reads")

    def number(kind):
        def convert(word: str):
            if len(word.lstrip("-").replace(".", "").split("e")[0].split("E")[0]) > MAX_JSON_DIGITS:
                raise InputError(f"{what} holds a number of {len(word)} characters: "
                                 f"no value tapsolve reads has more than {MAX_JSON_DIGITS} digits")
            return kind(word)
        return convert

    try:
        return json.loads(text, parse_int=number(int), parse_float=number(float))
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} does not parse: {exc.msg} at character {exc.pos}") from None
    except RecursionError:  # the depth check above makes this a backstop
        raise InputError(f"{what} nests too deep") from None
