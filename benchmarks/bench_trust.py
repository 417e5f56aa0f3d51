"""Trust benchmark of the reader: every board fixture and real screenshot, perturbed (JPEG,
scale, blur, gamma, noise, a banner, a dialog, a rotation, a crop), read with a fresh and with
a stored profile, each read exact / unsure-or-refused / silent misread / crash.

    nice -n 10 python3 benchmarks/bench_trust.py [--sample N] [--only jpeg30,dialog] [--mode both]

The same as `tapsolve bench trust`. Targets (issue 10): silent misreads 0 and crashes 0 over the
whole set in both modes; exact >= 95 % on the mild perturbations at phone resolutions.
Exit code 1 when any read was a silent misread or a crash.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant import trust  # noqa: E402
from assistant.bench import trust_arguments  # noqa: E402


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    trust_arguments(parser)
    os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="bench_trust_")
    sys.exit(trust.main(parser.parse_args()))
