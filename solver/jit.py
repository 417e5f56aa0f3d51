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

import os
import sys
from pathlib import Path

from solver import platforms
from solver.cache import cache_dir, usable

# the folders holding kernels (the solver package and its subpackages): numba caches each kernel
# beside its source when it can
KERNEL_FOLDERS = (Path(__file__).parent, *(p.parent for p in Path(__file__).parent.glob("*/__init__.py")))


def kernel_cache() -> tuple[str | None, str]:
    """Where compiled kernels are kept, as (NUMBA_CACHE_DIR to set, or None to leave numba's
    choice; why they cannot be kept, "" when they can). numba keeps them beside the sources when
    it can write there, else in its folder in the user's cache folder, and otherwise stops every
    solver with "cannot cache function" (numba/core/caching.py, _CacheImpl.__init__): so when the install
    folder is not writable (a system-wide install run by another user), they go to tapsolve's cache
    folder, which falls back to a private temporary one; with none writable, kernels compile
    each run."""
    own = os.environ.get("NUMBA_CACHE_DIR")
    if own and usable(Path(own)):
        return None, ""
    if not own and all(usable(folder / "__pycache__") for folder in KERNEL_FOLDERS):
        return None, ""
    folder = cache_dir() / "numba"
    if usable(folder):
        return str(folder), ""
    return None, f"no folder to keep it in ({folder} cannot be written)"


_FOLDER, UNCACHED = kernel_cache()
if _FOLDER:
    os.environ["NUMBA_CACHE_DIR"] = _FOLDER  # read as numba's configuration loads, just below

import numba  # noqa: E402  (after its cache folder is chosen)
from numba.core import caching, config, event  # noqa: E402
from numba.core.runtime import rtsys  # noqa: E402

if _FOLDER:
    config.CACHE_DIR = _FOLDER  # numba was imported before this module: its configuration is read


def njit(*args, **options):
    """numba's ``njit`` (the kernels' decorator), uncached when no folder can keep the kernels."""
    if UNCACHED:
        options.pop("cache", None)
    return numba.njit(*args, **options)

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
            if UNCACHED:
                print(f"tapsolve: compiling the solver each run: {UNCACHED}; set {platforms.CACHE_SETTING} to a "
                      "folder you can write", file=sys.stderr, flush=True)
            else:
                print("tapsolve: compiling the solver (first run only; `tapsolve warm` does it ahead)...",
                      file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


event.register("numba:compile", SayCompiling())
