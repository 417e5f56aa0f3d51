"""The command line as a person meets it: each command's --help says first what it does, and the
README names every option and only files the repository holds (issue 42, item 9)."""

import argparse
import re

from assistant.cli import build_parser
from helpers import ROOT, tapsolve


def commands(parser, path=()):
    """(words typed, parser) of every command and subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from commands(sub, (*path, name))


def test_each_commands_help_starts_with_a_line_saying_what_it_does():
    found = list(commands(build_parser()))
    assert len(found) > 15
    for words, parser in found:
        first = parser.format_help().splitlines()[0]
        assert first and not first.startswith("usage:") and not first[0].islower(), (words, first)
    out = tapsolve("play", "--help")
    assert out.stdout.splitlines()[0] == "Tap the moves on the phone, checking the screen after each."


def test_every_option_of_every_command_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    missing = sorted({(" ".join(words), option) for words, parser in commands(build_parser())
                      for action in parser._actions for option in action.option_strings
                      if option.startswith("--") and option != "--help" and option not in readme})
    assert missing == []


def test_the_readme_names_only_files_the_repository_holds():
    readme = (ROOT / "README.md").read_text()
    named = set(re.findall(r"(?<![\w/.~$\\-])((?:[\w-]+/)+[\w.-]+|[\w-]+\.(?:py|md|toml|json|ps1|txt))(?![\w/])", readme))
    named = {n for n in named if not n.startswith(("http", "www.")) and "." in n.rsplit("/", 1)[-1] or n.startswith("scripts/")}
    absent = sorted(n for n in named if not (ROOT / n).exists() and not list(ROOT.glob(f"**/{n}")))
    assert absent == []


def test_calibrate_and_solve_flip9_print_words_and_say_the_model_a_screenshot_is_filed_under(tmp_path):
    import os

    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path))
    out = tapsolve("calibrate", "--image", str(ROOT / "fixtures/1080x2400/light/flip9_cards_fresh.png"), env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        'calibrated Flip 9 on image (1080x2400, light theme): learned the digits 1–9 of the cards',
        f'profile stored in {tmp_path}/tapsolve/profiles/image_1080x2400_flip9_light.json under the model name '
        '"image" (give --model to file it under the phone\'s)']
    out = tapsolve("solve", "flip9", "315927486", "--must", "2")
    assert out.stdout.splitlines()[0] == "Cards 315927486, must swap 2" and "[" not in out.stdout
