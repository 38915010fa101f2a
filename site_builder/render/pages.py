"""A comparison page's files (HTML, comparison.json, CSV downloads), the data its script reads,
and its entry in the index.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from site_builder import metrics
from site_builder.catalog import CONSTANTS, HardwareCatalog, hardware_name
from site_builder.engine.compare import SPARSE_RATIO, SPREAD_LIMIT, TIE_TOLERANCE
from site_builder.plan import RelatedLink
from site_builder.present.narrate import Narrative
from site_builder.present.result import ShownPoints
from site_builder.present.schema import ComparisonResult, SequenceResult, SideResult
from site_builder.present.views import view_data
from site_builder.render.downloads import accuracy_csv, comparison_json, points_csv, sweep_csv, table_csv

if TYPE_CHECKING:
    from site_builder.render.site import SiteRenderer


@dataclass(frozen=True)
class PageSource:
    """A comparison plus what its page needs beyond the numbers."""

    comparison: ComparisonResult
    points: Sequence[Sequence[ShownPoints]]  # per workload, each side's points (points.csv, chart)
    body_markdown: str
    generated: bool  # found in the data, not written as a stub
    # the power section's measured-vs-catalog rows (present.tables.power_tables)
    measured_power: Sequence[dict[str, Any]] = ()


def page_url(slug: str) -> str:
    return f"{slug}/index.html"


def page_data(comparison: ComparisonResult, shown: Sequence[Sequence[ShownPoints]]) -> dict[str, Any]:
    """What the page script needs to work out the table and the chart at a reader's targets, and
    to word them as the build does (engine.js `cells`): per side its label, GPU, cost tier and
    constants; the registries' words (shown metrics, the constants' reasons); per sequence the
    targets, the band and each side's knots; and what a reader's filters and interactivity basis
    read (`view`: present/views.py), where the page offers any."""
    quantities = metrics.shown_quantities()
    sides = comparison.sequences[0].sides if comparison.sequences else []  # alike in every sequence
    found = {
        "slug": comparison.slug,
        "sides": [
            {
                "label": side.label,
                "gpu": side.constants.hardware_name,
                "tier": side.constants.cost_tier,
                "constants": side.constants.values(),
            }
            for side in sides
        ],
        "tie": TIE_TOLERANCE,
        "sparse_ratio": SPARSE_RATIO,
        "spread_limit": SPREAD_LIMIT,
        "metrics": metrics.page_table(metrics.SHOWN),
        "constants": [{"key": c.key, "missing": c.missing} for c in CONSTANTS.values()],
        "quantities": quantities,
        "default_sequence": comparison.default_sequence,
        "sequences": {
            s.sequence: _sequence_data(s, quantities, points)
            for s, points in zip(comparison.sequences, shown, strict=True)
        },
    }
    latency = comparison.latency is not None and any(w.tables for w in comparison.latency.workloads)
    view = view_data(shown, comparison.sequences, latency)
    return found if view is None else found | {"view": view}


def _sequence_data(
    sequence: SequenceResult, quantities: list[str], shown: Sequence[ShownPoints]
) -> dict[str, Any]:
    return {
        "targets": sequence.targets,
        "band": [sequence.band.lo, sequence.band.hi] if sequence.band.overlap else None,
        "sides": [
            _side_data(side, quantities, points) for side, points in zip(sequence.sides, shown, strict=True)
        ],
    }


def _side_data(side: SideResult, quantities: list[str], shown: ShownPoints) -> dict[str, Any]:
    """A side's knots (interactivity, then the curve quantities the shown metrics read), whether
    each stretch between knots is one deployment, and per knot its GPU count and deployment (an
    index into the deployments' configuration labels: equal configurations alike), which a
    reason names."""
    attributes = [metrics.CURVE_QUANTITIES[q] for q in quantities]
    knot_deployments = list(itertools.compress(shown.rows.column("config_id").tolist(), shown.on_frontier))
    # each deployment's configuration label (its last knot's), in the order deployments first come
    configurations = dict(zip(knot_deployments, (k.configuration for k in side.frontier), strict=True))
    numbered = {deployment: n for n, deployment in enumerate(configurations)}
    return {
        "knots": [[k.interactivity, *(getattr(k, a) for a in attributes)] for k in side.frontier],
        "joins": side.concurrency_joins,
        "gpus": [k.gpu_count for k in side.frontier],
        "deployments": [numbered[d] for d in knot_deployments],
        "configurations": list(configurations.values()),
    }


def index_entry(page: PageSource, narrative: Narrative, catalog: HardwareCatalog) -> dict[str, Any]:
    comparison = page.comparison
    names = " vs ".join(dict.fromkeys(hardware_name(catalog, h) for h in comparison.hardware))
    return {
        "kind": comparison.kind,
        "group": f"{comparison.model_name} · {names}",
        "title": comparison.title,
        "href": page_url(comparison.slug),
        "summary": narrative.summary,
        "auto": page.generated,
        "sequences": [s.sequence for s in comparison.sequences],
        "published": any(d.published_values for d in comparison.data_sources),
        "accuracy": narrative.accuracy_mark,
        "listing": page_listing(comparison),
    }


def page_listing(comparison: ComparisonResult) -> dict[str, Any]:
    """The page as the site-wide index.json lists it (docs/comparison-json.md): what it compares
    and its headline figures, each side's values of the scorecard metrics at the targets of
    its default sequence (None where a side was not measured there)."""
    default = next((s for s in comparison.sequences if s.sequence == comparison.default_sequence), None)
    targets, results = (default.targets, default.results) if default is not None else ([], [])
    return {
        "slug": comparison.slug,
        "title": comparison.title,
        "kind": comparison.kind,
        "model": comparison.model,
        "model_name": comparison.model_name,
        "hardware": comparison.hardware,
        "sides": [{"label": side.label, "filters": side.filters} for side in comparison.sides],
        "sequences": [s.sequence for s in comparison.sequences],
        "default_sequence": comparison.default_sequence,
        "page": page_url(comparison.slug),
        "comparison_json": f"{comparison.slug}/comparison.json",
        "embed": embed_html(comparison.slug),
        "headline": {
            "targets": targets,
            "sides": [
                {
                    "label": side.label,
                    **{
                        m.attribute: [target.sides[n].values.get(m.attribute) for target in results]
                        for m in metrics.SCORECARD
                    },
                }
                for n, side in enumerate(comparison.sides)
            ],
        },
    }


def page_html(slug: str) -> str:
    """Where a page's HTML is."""
    return f"{slug}/index.html"


EMBEDS = "embed/"  # the folder every page's chart-only page is in


def embed_html(slug: str) -> str:
    """Where a page's chart-only page for iframes is."""
    return f"{EMBEDS}{slug}/index.html"


PREVIEW = "preview.png"  # a page's preview image, beside its HTML (built with --preview-images)


def preview_png(slug: str) -> str:
    """Where a page's preview image is."""
    return f"{slug}/{PREVIEW}"


def render_page(
    renderer: SiteRenderer,
    page: PageSource,
    related: Sequence[RelatedLink],
    like_for_like: Sequence[tuple[str, RelatedLink]] = (),
    preview: bool = False,
) -> tuple[dict[str, bytes], Narrative]:
    """The files of one comparison page (the HTML missing if its template failed), its related
    section linking to `related`, its headline's caveat to the like-for-like page of a setting it
    names (the plan decides them); `preview`: its head names its preview image (`preview_png`,
    which the build draws and adds)."""
    comparison = page.comparison
    narrative = renderer.narrative(comparison)
    prefix = f"{comparison.slug}/"
    files = {
        prefix + "comparison.json": comparison_json(comparison),
        prefix + "table.csv": table_csv(comparison),
        prefix + "points.csv": points_csv(comparison, page.points),
    }
    accuracy = accuracy_csv(comparison)
    if accuracy is not None:
        files[prefix + "accuracy.csv"] = accuracy
    sweep = sweep_csv(comparison)
    if sweep is not None:
        files[prefix + "sweep.csv"] = sweep
    chart = renderer.chart_context(page)
    html = renderer.comparison_page(page, narrative, related, chart, like_for_like, preview)
    if html is not None:
        files[page_html(comparison.slug)] = html
    embed = renderer.embed_page(page, chart)
    if embed is not None:
        files[embed_html(comparison.slug)] = embed
    return dict(sorted(files.items())), narrative
