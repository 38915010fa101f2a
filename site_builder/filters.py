"""The one rule of a stub's filters (content.Filters): what a side, a page or a section selects.

Points (read/table.py, a column at a time), evaluation runs (read/evals.py) and node-level sweep
rows (read/sweeps.py) are all selected by it: text compared without case, a list as "any of",
anything else (a flag) exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from site_builder.content import FilterValue

# the filters that narrow a side beyond "best available" when the page does not vary them
NARROWING_KEYS = ("framework", "disagg", "spec_method")


def accepts(have: object, wanted: FilterValue) -> bool:
    """Whether a value passes one filter."""
    if isinstance(wanted, list):
        return any(accepts(have, w) for w in wanted)
    if isinstance(wanted, str) and isinstance(have, str):
        return have.lower() == wanted.lower()
    return bool(have == wanted)


def matches(value_of: Callable[[str], object], filters: Mapping[str, FilterValue]) -> bool:
    """Whether a thing whose values `value_of` gives passes every filter."""
    return all(accepts(value_of(key), wanted) for key, wanted in filters.items())


def describe(filters: Mapping[str, FilterValue]) -> str:
    """'key=value, key=a,b' for messages."""
    return ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in filters.items())
