"""`python -m assistant`: the same as the `tapsolve` command."""

from assistant.cli import program

program()
