"""The examples in the rules' docstrings run as written."""

import doctest

import solver.fifteen
import solver.flip9
import solver.numbermatch


def test_rule_docstring_examples_hold():
    for module in (solver.numbermatch, solver.flip9, solver.fifteen):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
