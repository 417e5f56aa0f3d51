"""Words for a person: a count with its noun in the right number ("1 add", "2 adds")."""

from __future__ import annotations


def count(n, plural: str) -> str:
    """``n`` and the noun given in its plural, made singular for exactly 1 ("1 press", "3 presses";
    an unknown count, "?", keeps the plural)."""
    if n != 1:
        return f"{n} {plural}"
    cut = 2 if plural.endswith(("sses", "xes", "shes", "ches")) else 1
    return f"{n} {plural[:-cut]}"
