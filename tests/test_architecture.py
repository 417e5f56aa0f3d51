"""The product's import graph: no cycle between its packages, none between its files.

A cycle makes two parts one (neither can be read, tested or changed alone) and breaks at import
time when the order changes. The graph is read from the source with ``ast``, function-level
imports included: an import deferred into a function (to load a module only when it is used)
is still a dependency, and a cycle hidden that way is still a cycle.

Two kinds of edge are left out, on purpose:
- a game's module found through the registry (``solver.games.module``, an ``importlib`` call):
  the registry is how every layer finds a game without naming it, so it is no import of one;
- the parent package a module's import runs first (``vision.image`` runs ``vision/__init__``):
  Python finishes a package's ``__init__`` before its modules use it, so it closes no loop.
"""

from __future__ import annotations

import ast

from helpers import ROOT

# the product's packages (tests/, benchmarks/ and scripts/ use them; nothing in them uses those)
PACKAGES = ("solver", "vision", "calibration", "phonesim", "assistant", "tapsolve")


def module_name(path) -> str:
    """``vision/schema.py`` -> ``vision.schema``; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def product_sources() -> dict[str, tuple[str, bool]]:
    """Every product module's name -> (its source, whether it is a package's ``__init__``)."""
    return {module_name(p): (p.read_text(), p.name == "__init__.py")
            for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Each module -> the modules among ``sources`` it imports anywhere in its code."""
    def known(name: str) -> str | None:  # ``vision.image.distance`` is in ``vision.image``
        while name and name not in sources:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, (source, is_package) in sources.items():
        found = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the module's own package upwards
                    package = module if is_package else module.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}".rstrip(".")
                # ``from vision import schema`` imports the module vision.schema; ``from vision
                # import read`` a name of the package vision
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in sources else base for a in node.names]
            else:
                continue
            found |= {m for m in map(known, names) if m and m != module}
        graph[module] = found
    return graph


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The top-level packages the modules of each top-level package import."""
    out: dict[str, set[str]] = {}
    for module, imported in graph.items():
        top = module.split(".")[0]
        out.setdefault(top, set()).update(m.split(".")[0] for m in imported if m.split(".")[0] != top)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (each holds a cycle), sorted;
    found with Tarjan's algorithm, iteratively (no recursion limit on a long chain)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(sorted(part))
    return sorted(found)


def where(graph: dict[str, set[str]], part: list[str]) -> str:
    """A cycle's imports, one a line, for the failure message."""
    return "\n".join(f"  {m} imports {', '.join(sorted(graph[m] & set(part)))}" for m in part)


def test_no_cycle_between_the_packages():
    graph = package_graph(import_graph(product_sources()))
    assert set(graph) == set(PACKAGES)
    assert graph["calibration"] >= {"vision"}  # the store of profiles uses the readers ...
    found = cycles(graph)
    assert not found, "\n".join(where(graph, part) for part in found)


def test_no_cycle_between_the_files():
    graph = import_graph(product_sources())
    assert "vision.schema" in graph["calibration.store"]  # ... and their schema, never the reverse
    assert "assistant.options" in graph["assistant.bench"]
    found = cycles(graph)
    assert not found, "\n\n".join(where(graph, part) for part in found)


def with_parents(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph plus each module's edges to the packages above it (whose ``__init__`` runs first)."""
    out = {m: set(edges) for m, edges in graph.items()}
    for module in graph:
        parts = module.split(".")
        out[module] |= {".".join(parts[:k]) for k in range(1, len(parts)) if ".".join(parts[:k]) in graph}
    return out


def within_one_package(part: list[str]) -> bool:
    """Whether a cycle's modules are one package and its own modules (its ``__init__`` gathering them)."""
    top = min(part, key=len)
    return all(m == top or m.startswith(top + ".") for m in part)


def test_no_cycle_runs_through_a_package_init_from_outside_the_package():
    """A module that imports a package whose ``__init__`` imports it back is a hidden cycle
    (phonesim.phone imported the apps, whose package imported phonesim.phone for the App base):
    counted with the parents' edges, a cycle may only be a package and its own modules."""
    graph = with_parents(import_graph(product_sources()))
    found = [part for part in cycles(graph) if not within_one_package(part)]
    assert not found, "\n\n".join(where(graph, part) for part in found)


def test_the_checks_would_catch_a_cycle():
    """A cycle through a function-level import, between files and between packages, is found
    (so the checks above cannot pass vacuously)."""
    sources = {
        "vision": ("from vision.profile import Profile\n", True),
        "vision.profile": ("import math\n", False),
        "vision.reader": ("from . import profile\n\ndef check():\n    from calibration.schema import ok\n", False),
        "calibration": ("", True),
        "calibration.schema": ("from vision.profile import VERSION\n", False),
        "calibration.store": ("import vision\nfrom calibration import schema\n", False),
        "assistant.cli": ("def main():\n    from assistant import bench\n", False),
        "assistant.bench": ("from assistant.cli import add_fault_options\n", False),
    }
    graph = import_graph(sources)
    assert graph["vision.reader"] == {"vision.profile", "calibration.schema"}
    assert graph["calibration.store"] == {"vision", "calibration.schema"}
    assert cycles(graph) == [["assistant.bench", "assistant.cli"]]
    assert cycles(package_graph(graph)) == [["calibration", "vision"]]
    # a cycle hidden behind a package's __init__ is found once the parents' edges are counted
    hidden = {"phonesim": ("", True), "phonesim.phone": ("def start():\n    from phonesim.apps import others\n", False),
              "phonesim.apps": ("from phonesim.phone import App\n", True), "phonesim.apps.others": ("import math\n", False)}
    assert cycles(import_graph(hidden)) == []
    assert [p for p in cycles(with_parents(import_graph(hidden))) if not within_one_package(p)] == [
        ["phonesim.apps", "phonesim.apps.others", "phonesim.phone"]]
    # and a chain without one is no cycle
    del sources["vision.reader"], sources["assistant.bench"]
    assert cycles(import_graph(sources)) == [] and cycles(package_graph(import_graph(sources))) == []
