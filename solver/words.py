"""Words for a person: a count with its noun in the right number ("1 add", "2 adds")."""

from __future__ import annotations


def count(n, plural: str) -> str:
    """``n`` and the noun given in its plural, made singular for exactly 1 ("1 press", "3 presses";
    an unknown count, "?", keeps the plural)."""
    if n != 1:
        return f"{n} {plural}"
    cut = 2 if plural.endswith(("sses", "xes", "shes", "ches")) else 1
    return f"{n} {plural[:-cut]}"


def listing(items) -> str:
    """Items in a sentence: "a", "a and b", "a, b and c" ("" for none)."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)
