"""The settings that can confound a comparison: one side's frontier uses something the other's
lacks (speculative decoding, disaggregated serving, a precision), so part of a gap may come from
it rather than from what the page compares.

One registry for the three places that need it: the plan's like-for-like links (a page whose
two sides fix the setting, `preferred` value first), the headline's caveat naming what one side
uses (`value_words`, reading the side's frontier values `frontier_values`, where `unused` means
the setting is not used) and the link's words (`shared_words`). Adding a confounder is one entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Confounder:
    setting: str  # the stub filter key and point table column
    preferred: Any  # the like-for-like page's preferred shared value (None: any)
    frontier_values: str  # the SideResult list holding the values a side's frontier uses
    unused: str | None  # the value meaning "not used" (never named as a confounder)
    value_words: Callable[[str], str]  # a value a side uses, as the caveat names it
    shared_words: str  # what a like-for-like page's two sides share


def _method(value: str) -> str:
    return f"{value.upper()} speculative decoding"


CONFOUNDERS: dict[str, Confounder] = {
    c.setting: c
    for c in (
        Confounder(
            "spec_method",
            "none",
            "spec_methods",
            "none",
            _method,
            "the same speculative decoding on both sides",
        ),
        Confounder(
            "disagg",
            False,
            "modes",
            "agg",
            lambda _: "disaggregated serving",
            "the same serving mode on both sides",
        ),
        Confounder(
            "precision",
            None,
            "precisions",
            None,
            lambda value: f"{value.upper()} precision",
            "the same precision on both sides",
        ),
    )
}
