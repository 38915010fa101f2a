"""The page-section registry: the parts of a comparison page, in order, each a theme partial.

`templates/sections/<key>.html` renders a section from the page's context (`c` the comparison,
`n` its narrative, `tables`, `charts`, `related` …). A theme overrides a section by its own
file of that name; adding a section is one entry here plus its partial.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    key: str
    title: str  # for people: the contributor guide, messages
    template: str


def _section(key: str, title: str) -> Section:
    return Section(key, title, f"sections/{key}.html")


SECTIONS: tuple[Section, ...] = (
    _section("findings", "Findings at three operating points"),
    _section("matched-interactivity", "Matched-interactivity table"),
    _section("charts", "Charts"),
    _section("accuracy", "Accuracy: evaluation scores with 95% intervals (one line when there are none)"),
    _section("notes", "Notes and caveats"),
    _section("provenance", "Provenance"),
    _section("downloads", "Downloads"),
    _section("related", "Related pages"),
)
BY_KEY: dict[str, Section] = {s.key: s for s in SECTIONS}
