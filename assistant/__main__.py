"""`python -m assistant`: the same as the `tapsolve` command."""

import sys

from assistant.cli import main

sys.exit(main())
