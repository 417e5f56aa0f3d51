"""numba's ``njit`` for the kernels, with cached kernels loaded without numba's full refresh.

Before loading a cached kernel, numba refreshes its target context: it imports and installs
every implementation registry (arrays, linear algebra, random numbers, typed containers, ...),
about half a second, so that the compiles that may follow find them. Loading compiled code
needs none of that, only the runtime the code calls into. So a cached kernel is loaded with the
runtime set up and nothing more; a compile (a cache miss) still refreshes on its own, and a
load that fails this way is tried again the way numba does it.

A compile (the first run after an install, a minute or more on a slow machine: `tapsolve warm`
does it ahead) is said once on stderr, from numba's own compile event: a cached kernel loads
without one.
"""

import sys

from numba import njit  # noqa: F401  (the kernels' decorator)
from numba.core import caching, event
from numba.core.runtime import rtsys

_numba_load_overload = caching.Cache.load_overload


def _load_overload(self, sig, target_context):
    try:
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
    except Exception:
        return _numba_load_overload(self, sig, target_context)


# patched only where numba has the methods this relies on (written against numba 0.68); any other
# numba loads its own way
if all(hasattr(caching.Cache, name) for name in ("load_overload", "_load_overload",
                                                   "_guard_against_spurious_io_errors")):
    caching.Cache.load_overload = _load_overload


class SayCompiling(event.Listener):
    """Says once a process, on stderr (stdout may be JSON), that a kernel is being compiled; a
    caller that says it its own way (`tapsolve warm`) sets ``said``."""

    said = False

    def on_start(self, ev):
        if not SayCompiling.said:
            SayCompiling.said = True
            print("tapsolve: compiling the solver (first run only; `tapsolve warm` does it ahead)...",
                  file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


event.register("numba:compile", SayCompiling())
