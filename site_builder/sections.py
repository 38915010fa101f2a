"""The page-section registry: the parts of a comparison page, in order, each a theme partial.

`templates/sections/<key>.html` renders a section from the page's context (`c` the comparison,
`n` its narrative, `tables`, `charts`, `related` …). A theme overrides a section by its own
file of that name; adding a section is one entry here plus its partial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    key: str
    title: str  # for people: the contributor guide, messages
    template: str
    # the stub's `sections:` entries that put it on the page; () = on every page
    analyses: tuple[str, ...] = ()


def _section(key: str, title: str, *analyses: str) -> Section:
    return Section(key, title, f"sections/{key}.html", analyses)


MATCHED = "matched-interactivity"
# what a stub's `sections:` may ask for, in the page's default order; the sweep analyses read
# node-level sweep rows (sweeps.py)
SWEEP_ANALYSES = ("matched-concurrency", "peak", "latency", "latency-sla", "power")
ANALYSES = (MATCHED, *SWEEP_ANALYSES)
DEFAULT_ANALYSES = (MATCHED,)

SECTIONS: tuple[Section, ...] = (
    # the table before its prose, so a desktop's first screen shows numbers, not only words
    _section("matched-interactivity", "Matched-interactivity table", MATCHED),
    _section("findings", "Findings at three operating points", MATCHED),
    _section("charts", "Charts", MATCHED),
    _section("matched-concurrency", "Output throughput at matched concurrency", "matched-concurrency"),
    _section("peak", "Each side's peak throughput", "peak"),
    _section("latency", "TTFT and TPOT at matched concurrency", "latency"),
    _section("latency-sla", "Users within a latency limit", "latency-sla"),
    _section("power", "Tokens per second per watt", "power"),
    _section("sweep-charts", "Throughput against concurrency", *SWEEP_ANALYSES),
    _section("latency-view", "Latency against concurrency: TTFT, E2E and TPOT at median, p90 and p99"),
    _section("accuracy", "Accuracy: evaluation scores with 95% intervals (one line when there are none)"),
    _section("notes", "Notes and caveats"),
    _section("provenance", "Provenance"),
    _section("downloads", "Downloads"),
    _section("related", "Related pages"),
)
BY_KEY: dict[str, Section] = {s.key: s for s in SECTIONS}


def page_sections(chosen: Sequence[str]) -> list[Section]:
    """The sections of a page whose stub asked for `chosen` analyses: each analysis's sections in
    the stub's order, then the shared sweep charts, then the sections every page has."""
    ordered = [s for key in chosen for s in SECTIONS if s.analyses == (key,)]
    shared = [s for s in SECTIONS if len(s.analyses) > 1 and set(s.analyses) & set(chosen)]
    return ordered + shared + [s for s in SECTIONS if not s.analyses]
