"""What a reader's own view of a comparison page needs: the page script's filters, which narrow
what each side pools, and its interactivity basis (median, p90 or p99 TPOT).

A view is recomputed in the browser from each side's measured points on each workload, carried
column by column (`view_data`): the page script keeps the points the reader's filters and basis
keep and works out each side's frontier, the band, the default targets, the table and the chart
from them with the engine's rules (templates/assets/engine.js). Offered are the configuration
fields whose values differ among some side's points (a stub's filter keys, which the URL uses
too), and each TPOT percentile some point was measured at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from site_builder import metrics
from site_builder.compute import LATENCY_VIEW_METRICS, LATENCY_VIEW_STATISTICS
from site_builder.present.columns import BASES, Deployments, field_column, field_values, point_columns
from site_builder.present.result import ShownPoints
from site_builder.present.schema import SequenceResult


def _upper(value: Any) -> str:
    return str(value).upper()


def _plain(value: Any) -> str:
    return str(value)


def _yes_no(value: Any) -> str:
    return "yes" if value else "no"


def _mode(value: Any) -> str:
    return "disaggregated" if value else "aggregated"


def _method(value: Any) -> str:
    return "none" if str(value).lower() == "none" else str(value).upper()


@dataclass(frozen=True)
class ViewField:
    """A configuration field a reader may narrow a page by: its stub filter key (the URL's too),
    its label and how one of its values reads."""

    key: str
    label: str
    words: Callable[[Any], str] = _plain


# In the order the controls show them: the three a reader asks about first, then the rest of
# the stub's filter keys (content.Filters) but the model, which a page fixes.
VIEW_FIELDS: tuple[ViewField, ...] = (
    ViewField("framework", "Engine"),
    ViewField("disagg", "Serving", _mode),
    ViewField("spec_method", "Speculative decoding", _method),
    ViewField("hardware", "GPU", _upper),
    ViewField("precision", "Precision", _upper),
    ViewField("tp", "TP"),
    ViewField("ep", "EP"),
    ViewField("pp", "PP"),
    ViewField("gpus", "GPUs per deployment"),
    ViewField("dp_attention", "DP attention", _yes_no),
    ViewField("multinode", "Multi-node", _yes_no),
    ViewField("dataset", "Dataset"),
    ViewField("variant", "Variant"),
)
NOT_RECORDED = "not recorded"  # a value a point's file does not give

BASIS_LABELS = {"median": "median TPOT", "p90": "p90 TPOT", "p99": "p99 TPOT"}
# The latency view's columns (seconds), which the page script reads to follow a reader's filters
LATENCY_COLUMNS = tuple(f"{m}_{s}" for m in LATENCY_VIEW_METRICS for s in LATENCY_VIEW_STATISTICS)


def _column(shown: ShownPoints, key: str) -> list[Any]:
    return field_column(shown.rows, key)


def _offered_fields(shown: Sequence[Sequence[ShownPoints]]) -> list[tuple[ViewField, list[Any]]]:
    """The fields some side's points differ in (over every workload), each with every value the
    page's points have."""
    offered = []
    for field in VIEW_FIELDS:
        per_side: list[set[Any]] = [set(), set()]
        for workload in shown:
            for side, points in enumerate(workload):
                per_side[side].update(_column(points, field.key))
        if any(len(values) > 1 for values in per_side):
            offered.append((field, field_values(per_side[0] | per_side[1])))
    return offered


def _offered_bases(shown: Sequence[Sequence[ShownPoints]]) -> list[str]:
    """The percentiles at which, on some workload, each side has a point measured: only there
    can a reader's basis compare the sides."""

    def measured(points: ShownPoints, column: str) -> bool:
        return any(value is not None for value in _column(points, column))

    return [
        basis
        for basis, column in BASES.items()
        if any(all(measured(points, column) for points in workload) for workload in shown)
    ]


def _measured_latencies(shown: Sequence[Sequence[ShownPoints]]) -> list[str]:
    """The latency view's columns some point of the page gives."""
    return [
        column
        for column in LATENCY_COLUMNS
        if any(v is not None for workload in shown for points in workload for v in _column(points, column))
    ]


def _side_points(
    shown: ShownPoints,
    quantities: Sequence[str],
    fields: Sequence[tuple[ViewField, list[Any]]],
    numbers: Sequence[str],
    deployments: Deployments,
    side: int,
) -> dict[str, Any]:
    """One side's points on one workload, in the order the page lists them (the chart data's),
    in the site's point columns (present/columns.py): the median interactivity, the curve
    quantities but concurrency per GPU (concurrency ÷ `gpus`, as the point table derives it),
    the GPU count, each of `numbers` (point-table columns: the offered TPOT percentiles and the
    latency view's columns, in seconds), the deployment (numbered by side and configuration) and
    each offered field's code."""
    columns = {q: metrics.CURVE_QUANTITIES[q] for q in quantities if q != "users_per_gpu"}
    columns |= {"gpus": "gpu_count"} | {name: name for name in numbers}
    return point_columns(shown.rows, columns, {f.key: values for f, values in fields}, deployments, side)


def _field_data(field: ViewField, values: Sequence[Any]) -> dict[str, Any]:
    """An offered field as its control shows it: each value's words and its URL token."""
    return {
        "key": field.key,
        "label": field.label,
        "names": [NOT_RECORDED if v is None else field.words(v) for v in values],
        "tokens": [url_token(v) for v in values],
    }


def view_data(
    shown: Sequence[Sequence[ShownPoints]], sequences: Sequence[SequenceResult], latency: bool = False
) -> dict[str, Any] | None:
    """What the page script's filters and interactivity basis read (None where a page offers
    neither): the fields offered, with their values and words; the bases offered; every
    deployment's configuration label; the sequences whose targets the author pinned (a view
    keeps them); per sequence, each side's points (`_side_points`), with the latency view's
    columns where the page has one (`latency`), so that view follows the filters too."""
    fields = _offered_fields(shown)
    bases = _offered_bases(shown)
    if not fields and not bases:
        return None
    quantities = metrics.shown_quantities()
    numbers = [BASES[b] for b in bases]
    numbers += [c for c in _measured_latencies(shown) if latency and c not in numbers]
    deployments = Deployments()  # numbered by side and configuration
    points = {
        sequence.sequence: [
            _side_points(rows, quantities, fields, numbers, deployments, side)
            for side, rows in enumerate(workload)
        ]
        for sequence, workload in zip(sequences, shown, strict=True)
    }
    return {
        "fields": [_field_data(field, values) for field, values in fields],
        "bases": [{"key": key, "label": BASIS_LABELS[key]} for key in ("median", *bases)] if bases else [],
        "configurations": deployments.labels,
        "pinned": [s.sequence for s in sequences if s.targets_pinned],
        "points": points,
    }


def without_latency(view: dict[str, Any]) -> dict[str, Any]:
    """A view without the latency view's columns (but the bases' TPOT percentiles): what a page
    without a latency view (its embed) reads."""
    kept = {BASES[b["key"]] for b in view["bases"] if b["key"] in BASES}
    dropped = set(LATENCY_COLUMNS) - kept
    points = {
        sequence: [{name: column for name, column in side.items() if name not in dropped} for side in sides]
        for sequence, sides in view["points"].items()
    }
    return view | {"points": points}


def url_token(value: Any) -> str:
    """A field's value as the URL writes it (`f=key:value,…`): as a stub writes it (true/false
    for a flag), '-' for not recorded."""
    if value is None:
        return "-"
    return str(value).lower() if isinstance(value, bool) else str(value)
