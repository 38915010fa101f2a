"""The page's tables as data for the templates: the matched table's cells (each side's value,
the better one marked, or why there is none) and each accuracy task's rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from site_builder import metrics
from site_builder.catalog import HardwareCatalog, hardware_name
from site_builder.engine.compare import winner
from site_builder.engine.power import DISAGREEMENT, PowerCheck, WorkloadPower
from site_builder.formatting import fixed
from site_builder.metrics import Metric
from site_builder.present.narrate import (
    BRACKETING,
    NOT_DETERMINED,
    bounds_text,
    interval_text,
    lead_bounds_text,
    method_name,
    points_text,
    score_interval,
    score_text,
    side_labels,
)
from site_builder.present.result import deployment_text, power_disagreement
from site_builder.present.schema import (
    AccuracyRun,
    AccuracySide,
    AccuracyTask,
    Claim,
    ComparisonResult,
    MetricsAtTarget,
    PointSummary,
    SequenceResult,
)
from site_builder.workload import Workload


@dataclass(frozen=True, slots=True)
class SideCell:
    """One side's value in a table cell (templates/sections/matched-interactivity.html)."""

    label: str
    text: str
    note: str
    win: bool
    value: float | None
    measured: bool
    side: int  # 0 or 1: which side (a field, so the template's loop needs no loop variable)


@dataclass(frozen=True, slots=True)
class TableRow:
    """One metric's row of the matched table: per target, each side's cell."""

    key: str
    title: str
    cells: list[list[SideCell]]


def target_cells(
    shown: Sequence[Metric],
    sides: Sequence[MetricsAtTarget],
    labels: Sequence[str],
    knots: Sequence[Sequence[PointSummary]],
    claims: Mapping[str, Claim],
) -> list[list[SideCell]]:
    """One target's table cells, a list per shown metric: each side's formatted value, the
    better one marked (higher or lower wins) where both sides were measured and the bracketing
    knots determine it (`claims`: per metric attribute)."""
    columns = []
    for metric in shown:
        values = [m.values.get(metric.attribute) for m in sides]  # none where a side was not measured
        best = winner(values[0], values[1], metric.better)
        made = claims.get(metric.attribute)
        if made is not None and made.grade == "undetermined":
            best = None
        column = []
        for i, (label, m, value) in enumerate(zip(labels, sides, values, strict=True)):
            text, note = _cell_words(metric, m, value, knots[i])
            text, note = _claim_words(text, note, made, labels, i, best == i)
            column.append(SideCell(label, text, note, best == i, value, m.measured, i))
        columns.append(column)
    return columns


def _claim_words(
    text: str, note: str, made: Claim | None, labels: Sequence[str], side: int, leads: bool
) -> tuple[str, str]:
    """A cell's text and note with what the bracketing knots let the row claim: where they do
    not determine the winner, no side is marked and the second cell says so; where the lead is
    stated as a bound, the leader's note gives it."""
    if made is None:
        return text, note
    said = ""
    if made.grade == "undetermined":
        said = f"{NOT_DETERMINED}: {bounds_text(labels, made)}"
        text = f"{text} (winner not determined)" if side == 1 else text
    elif made.grade == "bounded" and leads:
        said = f"leads by {lead_bounds_text(made)} {BRACKETING}"
    return text, "; ".join(filter(None, [said, note]))


def _cell_words(
    metric: Metric, m: MetricsAtTarget, value: float | None, knots: Sequence[PointSummary]
) -> tuple[str, str]:
    """A side's text in a metric's row, and the note a reader sees over it (`knots`: the side's
    frontier, which the brackets index)."""
    if not m.measured:
        return "not measured", m.reason or ""
    if value is not None:
        bounds = m.bounds.get(metric.attribute)
        if bounds is None or bounds[0] == bounds[1]:
            return _value_text(metric, value), ""
        lo, hi = (_value_text(metric, v) for v in bounds)
        return _value_text(metric, value), f"interpolated between measured points: {lo} to {hi}"
    if metric.key == "concurrency" and len(m.brackets) == 2:
        # between two deployments: the two measured concurrencies, never a number in between
        low, high = (knots[k] for k in m.brackets)
        text = (
            f"measured: {deployment_text(low.concurrency, low.gpu_count)}, "
            f"{deployment_text(high.concurrency, high.gpu_count)}"
        )
        return text, m.unavailable.get(metric.attribute, "")
    return "n/a", m.unavailable.get(metric.attribute, "unavailable")


def _value_text(metric: Metric, value: float) -> str:
    return metric.prefix + fixed(value, metric.decimals, thousands=True)


def table(comparison: ComparisonResult, sequence: SequenceResult) -> list[TableRow]:
    labels = side_labels(comparison)
    knots = [side.frontier for side in sequence.sides]
    columns = [
        target_cells(metrics.SHOWN, target.sides, labels, knots, target.claims) for target in sequence.results
    ]
    return [
        TableRow(m.key, m.row_title, [column[row] for column in columns])
        for row, m in enumerate(metrics.SHOWN)
    ]


def _run_row(label: str, run: AccuracyRun, catalog: HardwareCatalog) -> dict[str, Any]:
    return {
        "side": label,
        "score": score_text(run.score),
        "interval": score_interval(run.ci_lo, run.ci_hi),
        "questions": f"{run.questions:,}" if run.questions else "—",
        "hardware": hardware_name(catalog, run.hardware) if run.hardware else "not recorded",
        "setup": run.setup or "not recorded",
        "method": method_name(run.spec_method),
        "date": run.date or "not recorded",
        "source": f"{run.source_file}, {run.record}",
        "note": run.excluded_reason or ("per-question results" if run.per_question else ""),
        "pooled": run.pooled,
    }


def accuracy_table(task: AccuracyTask, catalog: HardwareCatalog) -> dict[str, Any]:
    """One task's table for the page: each side's score and interval, the difference, the runs."""
    return {
        "task": task.task,
        "pooling": _pooling_note(task),
        "caption": f"{task.task_name} ({task.metric_label}), "
        f"{'higher' if task.higher_is_better else 'lower'} is better",
        "rows": [_side_row(side) for side in task.sides],
        "difference": _difference_row(task),
        "runs": [_run_row(side.label, run, catalog) for side in task.sides for run in side.runs],
    }


def _side_row(side: AccuracySide) -> dict[str, Any]:
    hardware = ", ".join(side.hardware) + (" (other hardware)" if side.other_hardware else "")
    return {
        "label": side.label,
        "score": score_text(side.score),
        "interval": score_interval(side.ci_lo, side.ci_hi),
        "runs": f"{side.pooled_runs} of {len(side.runs)}" if side.runs else "0",
        "hardware": hardware if side.hardware else "not recorded",
    }


def _difference_row(task: AccuracyTask) -> dict[str, Any] | None:
    d = task.difference
    if d is None:
        return None
    a, b = (s.label for s in task.sides)
    return {
        "label": f"{a} − {b}",
        "value": f"{points_text(d.value)} points",
        "interval": interval_text(d.ci_lo, d.ci_hi, True),
        "verdict": f"{d.better} better" if d.better else "within noise",
        "method": f"paired over {d.questions:,} questions" if d.method == "paired" else "unpaired",
    }


def _pooling_note(task: AccuracyTask) -> str | None:
    """How a side's several runs are pooled (None: no side pools more than one)."""
    methods = {side.pool_method for side in task.sides if side.pooled_runs > 1}
    if not methods:
        return None
    how = (
        "it comes from the per-question means across runs."
        if methods == {"per-question"}
        else "it is the root-mean-square of the runs' standard errors, never narrower than the truth."
    )
    return (
        "A side with several runs gets their mean. The runs answer the same questions, so averaging "
        "does not narrow the interval: " + how
    )


def _power_row(check: PowerCheck) -> dict[str, Any]:
    """One measured point's cells: measured watts and tok/s per MW, the catalog's, and the flag."""
    ratio = check.ratio
    catalog = check.catalog_per_mw
    return {
        "concurrency": check.concurrency,
        "measured_w": fixed(check.measured_w, 0, thousands=True),
        "measured": fixed(check.measured_per_mw, 0, thousands=True),
        "catalog": "n/a" if catalog is None else fixed(catalog, 0, thousands=True),
        "ratio": "" if ratio is None else fixed(ratio, 2) + "×",
        "flag": f"disagree by more than {fixed(DISAGREEMENT, 0)}×" if check.disagrees else "",
    }


def power_tables(powers: Sequence[WorkloadPower], labels: Sequence[str]) -> list[dict[str, Any]]:
    """The power section's measured-vs-catalog rows: per workload, each side that has any."""
    return [
        {
            "sequence": Workload(w.isl, w.osl, w.label).name,
            "sides": [
                {
                    "label": label,
                    "rows": [_power_row(c) for c in checks],
                    "note": power_disagreement(label, Workload(w.isl, w.osl, w.label).name, checks),
                }
                for label, checks in zip(labels, w.sides, strict=True)
                if checks
            ],
        }
        for w in powers
    ]
