"""The command line as a newcomer meets it: a version, a help line for every option, and the
guide, play and the demo planning alike, the guide's keys in its help, every game's solve shown to a
newcomer who types `tapsolve` alone."""

import argparse
import tomllib

from assistant import cli
from helpers import ROOT, tapsolve


def every_parser(parser, path=("tapsolve",)):
    """Each (command path, parser) of the command line, sub-commands included."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from every_parser(sub, path + (name,))


def test_every_option_of_every_command_says_what_it_is_for():
    missing = [f"{' '.join(path)} {action.option_strings[0]}" for path, parser in every_parser(cli.build_parser())
               for action in parser._actions
               if action.option_strings and not isinstance(action, argparse._HelpAction) and not action.help]
    assert not missing, missing


def test_the_check_finds_an_option_without_help():
    parser = argparse.ArgumentParser()
    parser.add_subparsers().add_parser("x").add_argument("--quiet")
    assert [(path, a.option_strings) for path, p in every_parser(parser) for a in p._actions
            if a.option_strings and not a.help and not isinstance(a, argparse._HelpAction)] == [
        (("tapsolve", "x"), ["--quiet"])]


def test_version_is_the_projects():
    run = tapsolve("--version")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert run.returncode == 0 and run.stdout.strip() == f"tapsolve {version}"


def test_play_plans_as_the_guide_and_the_demo_do():
    parser = cli.build_parser()
    assert {parser.parse_args([command]).objective for command in ("guide", "play", "demo")} == {"fast"}
    assert parser.parse_args(["play", "--objective", "score"]).objective == "score"


def test_counts_of_one_read_as_one():
    from assistant.games import kind
    from solver.numbermatch import Board
    from solver.words import count

    game = kind("numbermatch")()
    assert game.progress(Board([5], 1)) == "1 number left, 1 add, score 0"
    assert game.progress(Board([5, 5], 0)) == "2 numbers left, 0 adds, score 0"
    assert [count(1, w) for w in ("presses", "swaps", "slides", "taxes", "adds")] == [
        "1 press", "1 swap", "1 slide", "1 tax", "1 add"]
    assert count("?", "adds") == "? adds" and count(3, "presses") == "3 presses"


def test_guide_help_lists_the_window_keys_without_loading_opencv():
    from test_startup import modules_after

    run = tapsolve("guide", "--help")
    assert run.returncode == 0
    assert "keys in the window:  q quit   space pause   n/p next/previous step" in run.stdout
    assert "cv2" not in modules_after("from assistant import cli\ntry:\n    cli.main(['guide', '--help'])\n"
                                      "except SystemExit:\n    pass")


def test_tapsolve_alone_shows_how_to_solve_every_game():
    from solver import games as registry

    run = tapsolve()
    assert run.returncode == 0
    assert all(f"tapsolve solve {name} " in run.stdout for name in registry.NAMES)
