"""docs/json.md against the commands: each section's command, run afresh, prints one JSON document
on stdout whose keys are the ones the section's table lists and its example shows, each of a type
the table gives. The expected keys come from the page, never from the code under test."""

import json
import re
from pathlib import Path

import pytest

from helpers import ROOT, tapsolve

PAGE = ROOT / "docs" / "json.md"
TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None),
         "array": list, "object": dict, "map": dict}
# commands that start the virtual phone and an adb server: the phone-marked set runs them
ON_THE_VIRTUAL_PHONE = ("demo", "bench play")


def sections(text: str) -> list[dict]:
    """Each `## ` section with a command: its title, command words, table {key: types} and example."""
    out = []
    for part in text.split("\n## ")[1:]:
        command = re.search(r"```sh\n\$ tapsolve (.+)\n```", part)
        example = re.search(r"```json\n(.+?)\n```", part, re.S)
        if command is None:
            continue
        table = {m[1]: re.findall("|".join(TYPES), m[2])
                 for m in re.finditer(r"^\| `([^`]+)` \| ([^|]+) \|", part, re.M)}
        out.append({"title": part.splitlines()[0], "command": command[1], "table": table,
                    "example": json.loads(example[1])})
    return out


def keys(value, maps: set, prefix: str = "") -> dict:
    """Every key of a JSON document as the page names it (``a.b``, ``a[].b``, ``a.*.b``), each
    with the values found there; a map's own keys are data and are not listed."""
    found = {}
    if isinstance(value, dict):
        for k, v in value.items():
            name = prefix + k
            found.setdefault(name, []).append(v)
            inner = v.values() if name in maps and isinstance(v, dict) else [v]
            for x in inner:
                for path, values in keys(x, maps, name + (".*." if name in maps else ".")).items():
                    found.setdefault(path, []).extend(values)
    elif isinstance(value, list):
        for x in value:
            if isinstance(x, dict):
                for path, values in keys(x, maps, prefix.rstrip(".") + "[].").items():
                    found.setdefault(path, []).extend(values)
    return found


def words(command: str) -> list[str]:
    import shlex

    return shlex.split(command)


SECTIONS = sections(PAGE.read_text())


def commands_with_json(parser, prefix=()) -> set:
    """The commands (as "bench play") whose parser has a --json option, found in the parser."""
    import argparse

    found = {" ".join(prefix)} if "--json" in parser._option_string_actions else set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= commands_with_json(sub, (*prefix, name))
    return found


def test_the_page_documents_every_command_that_prints_json():
    from assistant.cli import build_parser

    documented = {" ".join(w for w in words(s["command"])[:2] if not w.startswith(("-", "fixtures")))
                  for s in SECTIONS}
    assert documented == commands_with_json(build_parser())


@pytest.mark.slow  # (the fast set leaves it: whole-fixture sweeps and processes)
@pytest.mark.parametrize("section", [pytest.param(s, id=s["title"], marks=[pytest.mark.phone] if s["command"].startswith(ON_THE_VIRTUAL_PHONE) else []) for s in SECTIONS])
def test_a_command_prints_the_json_its_section_documents(section):
    table, maps = section["table"], {k for k, t in section["table"].items() if t == ["map"]}
    shown = keys(section["example"], maps)
    assert set(shown) == set(table), "the example and the table list different keys"
    run = tapsolve(*words(section["command"]), timeout=300)
    assert run.returncode == 0, run.stderr
    fresh = keys(json.loads(run.stdout), maps)  # one document: nothing else is on stdout
    assert set(fresh) == set(shown)
    for key, values in fresh.items():
        allowed = tuple(TYPES[t] for t in table[key])
        for v in values:
            assert isinstance(v, allowed) and not (isinstance(v, bool) and bool not in allowed), (key, v)
