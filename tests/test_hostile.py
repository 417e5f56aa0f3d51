"""Hostile inputs as a person hands them over: special files, images whose header lies about
their size, JSON built to break a parser, digits of other scripts, output that cannot be
written, cache files that claim a terabyte. Each is one line and an exit code, never a traceback,
a hang or memory without end."""

import io
import json
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from PIL import Image

from helpers import ROOT, tapsolve

from solver import cache
from solver.errors import InputError
from solver.files import FileInputError, is_digits, parse_json, read_bytes, whole_number
from vision.image import ImageInputError, header_size, load_image

FIXTURE = ROOT / "fixtures" / "1080x2400" / "light" / "numbermatch_fresh.png"
BOARD = {"game": "numbermatch", "cells": [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9]}


def one_line_error(run, code=2):
    assert run.returncode == code, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    return run.stderr


# -- special files -------------------------------------------------------------------------------

@pytest.mark.parametrize("special", ["/dev/zero", "symlink", "fifo"])
def test_special_files_are_refused_before_reading(tmp_path, special):
    def made(name):
        if special == "/dev/zero":
            return "/dev/zero"
        path = tmp_path / name
        if special == "symlink":
            path.symlink_to("/dev/zero")
        else:
            os.mkfifo(path)  # nothing writes to it: reading it would wait forever
        return str(path)

    with pytest.raises(ImageInputError, match="not a regular file"):
        load_image(made("shot.png"))
    board = made("board.json") if special != "/dev/zero" else "/dev/zero"
    if board.endswith(".json"):
        assert "not a regular file" in one_line_error(tapsolve("solve", "numbermatch", board, timeout=60))
    assert "not a regular file" in one_line_error(tapsolve("read", made("shot2.png"), timeout=60))


def test_a_file_over_the_bound_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(10 << 20)  # sparse: the bound is judged from the size, not by reading
    with pytest.raises(FileInputError, match="too large"):
        read_bytes(path, 1 << 20, "a board JSON file")


def test_a_stored_profile_on_a_special_file_is_rebuilt(tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path))
    folder = tmp_path / "tapsolve" / "profiles"
    folder.mkdir(parents=True)
    (folder / "image_1080x2400_numbermatch_light.json").symlink_to("/dev/zero")
    run = tapsolve("read", str(FIXTURE), "--model", "image", env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "not a regular file" in run.stderr and "rebuilt it" in run.stderr


def test_a_path_too_long_is_one_line(tmp_path):
    long = "/".join(["d" * 200] * 30) + ".png"
    assert "too long" in one_line_error(tapsolve("read", long))
    assert "too long" in one_line_error(tapsolve("solve", "numbermatch", "c" * 300 + ".json"))


# -- the size limit, from every format's header ------------------------------------------------------

def encoded(fmt: str, size=(321, 654), **options) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (250, 250, 250)).save(out, fmt, **options)
    return out.getvalue()


@pytest.mark.parametrize("fmt,options", [("PNG", {}), ("JPEG", {}), ("JPEG", {"progressive": True}),
                                         ("WEBP", {"lossless": True}), ("WEBP", {"quality": 60}),
                                         ("TIFF", {}), ("TIFF", {"compression": "tiff_lzw"}), ("BMP", {})])
def test_header_size_of_every_format(fmt, options):
    assert header_size(encoded(fmt, **options)) == (321, 654)


def test_webp_extended_header():
    out = io.BytesIO()
    Image.new("RGBA", (321, 654)).save(out, "WEBP", lossless=True, exif=b"Exif\0\0tapsolve")
    data = out.getvalue()
    assert data[12:16] == b"VP8X" and header_size(data) == (321, 654)


def jpeg_with_segments(data: bytes, kilobytes: int) -> bytes:
    """``data`` with APP1 segments of ``kilobytes`` in all before its frame header."""
    segment = b"\xff\xe1" + struct.pack(">H", 65535) + b"\0" * 65533
    return data[:2] + segment * (kilobytes // 64 + 1) + data[2:]


def test_jpeg_frame_header_after_more_than_64_kb_of_segments():
    assert header_size(jpeg_with_segments(encoded("JPEG"), 200)) == (321, 654)


@pytest.mark.parametrize("fmt", ["WEBP", "TIFF", "JPEG-padded", "BMP"])
def test_huge_images_are_refused_from_the_header(tmp_path, fmt):
    # a small image whose header is rewritten to claim 12000x12000: were it decoded first, the
    # decoder would fail on it ("damaged"), not the size check
    big = 12000
    if fmt == "WEBP":
        data = bytearray(encoded("WEBP", lossless=True))
        bits = (big - 1) | ((big - 1) << 14) | (int.from_bytes(data[21:25], "little") & ~((1 << 28) - 1))
        data[21:25] = bits.to_bytes(4, "little")
    elif fmt == "TIFF":
        data = bytearray(encoded("TIFF"))
        assert data[:2] == b"II"
        ifd = int.from_bytes(data[4:8], "little")
        for k in range(int.from_bytes(data[ifd:ifd + 2], "little")):
            at = ifd + 2 + 12 * k
            if int.from_bytes(data[at:at + 2], "little") in (256, 257):
                kind = int.from_bytes(data[at + 2:at + 4], "little")
                data[at + 8:at + 8 + (2 if kind == 3 else 4)] = big.to_bytes(2 if kind == 3 else 4, "little")
    elif fmt == "BMP":
        data = bytearray(encoded("BMP"))
        data[18:26] = struct.pack("<ii", big, big)
    else:
        data = bytearray(jpeg_with_segments(encoded("JPEG"), 130))
        sof = data.index(b"\xff\xc0")
        data[sof + 5:sof + 9] = struct.pack(">HH", big, big)
    path = tmp_path / "shot.img"
    path.write_bytes(bytes(data))
    with pytest.raises(ImageInputError, match="12000x12000: larger than any phone screen"):
        load_image(path)


def test_an_unknown_format_is_not_decoded(tmp_path):
    path = tmp_path / "shot.ppm"
    path.write_bytes(b"P6\n12000 12000\n255\n" + b"\0" * 100)
    with pytest.raises(ImageInputError, match="not an image"):
        load_image(path)


# -- JSON, text and digits ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,words", [
    ('{"game": "numbermatch", "cells": ' + "[" * 5000 + "]" * 5000 + "}", "nests deeper"),
    ('{"game": "numbermatch", "cells": [' + "9" * 5000 + "]}", "number of 5000"),
    ('{"game": "numbermatch", "cells": [1, 2', "does not parse"),
])
def test_board_json_built_to_break_the_parser(tmp_path, text, words):
    path = tmp_path / "board.json"
    path.write_text(text)
    assert words in one_line_error(tapsolve("solve", "numbermatch", str(path)))
    assert words in one_line_error(tapsolve("solve", "numbermatch", text))


def test_parse_json_keeps_ordinary_json():
    assert parse_json(json.dumps(BOARD)) == BOARD
    assert parse_json('{"a": "[[[[{{{{", "b": [1.5e3, -2]}') == {"a": "[[[[{{{{", "b": [1500.0, -2]}
    with pytest.raises(InputError):
        parse_json(b"\xff\xfe")


def test_a_board_file_not_in_utf8(tmp_path):
    path = tmp_path / "board.json"
    path.write_bytes(json.dumps({**BOARD, "note": "x"}).encode().replace(b'"x"', b'"\xe9\xff"'))
    assert "not UTF-8" in one_line_error(tapsolve("solve", "numbermatch", str(path)))


@pytest.mark.parametrize("text", ["14", "0"])
def test_ascii_digits(text):
    assert is_digits(text) and whole_number(text) == int(text)


@pytest.mark.parametrize("text", ["²", "١٥", "1²", "", "1_0", "٣"])
def test_other_digits_are_not_numbers(text):
    assert not is_digits(text)
    with pytest.raises(ValueError):
        whole_number(text)


@pytest.mark.parametrize("args,words", [
    (("solve", "fifteen", "1 2 3 4, 5 6 7 8, 9 10 11 12, 13 14 ² 15"), "tile 15 is '²'"),
    (("solve", "fifteen", "1 2 3 4, 5 6 7 8, 9 10 11 12, 13 14 _ ١٥"), "tile 16 is '١٥'"),
    (("solve", "flip9", "31592748²"), "not '²'"),
    (("solve", "flip9", "315927486", "--must", "٣"), "is not a card"),
    (("phone", "--points", "gap=²"), "points are kind=number"),
    (("demo", "--seed", "١"), "is not a whole number"),
])
def test_unicode_digits_are_one_line(args, words):
    assert words in one_line_error(tapsolve(*args, timeout=60))


# -- output that cannot be written, and a closed stderr --------------------------------------------

def shell(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, TAPSOLVE=f"{sys.executable} -m assistant"))


def test_a_full_device_as_stdout_is_one_line():
    run = shell("$TAPSOLVE solve flip9 315927486 > /dev/full")
    assert "cannot write the output: No space left on device" in one_line_error(run, 1)


def test_a_closed_stdout_is_one_line():
    run = shell("$TAPSOLVE solve flip9 315927486 >&-")
    assert "standard output is closed" in one_line_error(run, 1)


@pytest.mark.parametrize("args", ["solve flip9 3159x7486", "read /nonexistent.png", "solve fifteen ²"])
def test_bad_input_exits_2_with_stderr_closed(args):
    run = shell(f"$TAPSOLVE {args} 2>&-; echo exit=$?")
    assert run.stdout.strip().splitlines()[-1] == "exit=2"


# -- cache files -----------------------------------------------------------------------------------

def npy_header(shape, descr="|u1") -> bytes:
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()


def test_a_terabyte_npy_header_is_refused_before_allocating(tmp_path):
    path = tmp_path / "table.npy"
    path.write_bytes(npy_header((1 << 40,)) + b"\0" * 64)
    with pytest.raises(ValueError, match="claiming"):
        cache.load_array(path, 1 << 30)
    archive = tmp_path / "tables.npz"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("table.npy", path.read_bytes())
    with pytest.raises(ValueError):
        cache.load_arrays(archive, 1 << 30)


def test_load_array_gives_back_what_was_saved(tmp_path):
    table = np.arange(24, dtype=np.int16).reshape(4, 6)
    np.save(tmp_path / "t.npy", table)
    np.save(tmp_path / "f.npy", np.asfortranarray(table))
    assert np.array_equal(cache.load_array(tmp_path / "t.npy", 1 << 20), table)
    assert np.array_equal(cache.load_array(tmp_path / "f.npy", 1 << 20), table)
    np.savez(tmp_path / "z.npz", table=table, sha256=np.array("abc"))
    loaded = cache.load_arrays(tmp_path / "z.npz", 1 << 20)
    assert np.array_equal(loaded["table"], table) and str(loaded["sha256"]) == "abc"
    with pytest.raises(ValueError):
        np.save(tmp_path / "o.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
        cache.load_array(tmp_path / "o.npy", 1 << 20)


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
def test_damaged_caches_are_built_again(tmp_path):
    # every cache file claims a terabyte: the solvers and the drawn digits are made again, not blamed
    folder = tmp_path / "tapsolve"
    folder.mkdir()
    real = cache.cache_dir()
    huge = npy_header((1 << 40,)) + b"\0" * 64
    for name in os.listdir(real) if real.is_dir() else []:
        if name.endswith(".npz"):
            with zipfile.ZipFile(folder / name, "w") as z:
                z.writestr("table.npy", huge)
                z.writestr("sha256.npy", huge)
        elif name.endswith(".npy"):
            (folder / name).write_bytes(huge)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    run = tapsolve("solve", "flip9", "315927486", env=env)
    assert run.returncode == 0 and "6 swaps" in run.stdout, run.stderr
    drawn = subprocess.run([sys.executable, "-c", "from vision import fontmatch; print(len(fontmatch.drawn_digits()))"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert drawn.returncode == 0 and int(drawn.stdout) >= 10, drawn.stderr


def test_bad_input_exits_2_with_stderr_on_a_full_device():
    run = shell("$TAPSOLVE solve flip9 3159x7486 2>/dev/full; echo exit=$?")
    assert run.stdout.strip().splitlines()[-1] == "exit=2"
