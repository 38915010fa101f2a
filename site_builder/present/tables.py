"""The page's tables as data for the templates: the matched table's cells (each side's value,
the better one marked, or why there is none) and each accuracy task's rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from site_builder import metrics
from site_builder.catalog import HardwareCatalog, hardware_name
from site_builder.engine.compare import winner
from site_builder.formatting import fixed
from site_builder.metrics import Metric
from site_builder.present.narrate import SPARSE_MARK, interval_text, points_text, score_text
from site_builder.present.result import deployment_text
from site_builder.present.schema import (
    AccuracyRun,
    AccuracyTask,
    ComparisonResult,
    MetricsAtTarget,
    PointSummary,
    SequenceResult,
)


class SideCell(NamedTuple):
    """One side's value in a table cell. A class, not a dict: templates read these by the
    thousand, and Jinja tries an attribute before a key (a dict would fail over every time); a
    named tuple, as a page makes ≈ 270 of them (a frozen dataclass sets each field by a call)."""

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
) -> list[list[SideCell]]:
    """One target's table cells, a list per shown metric: each side's formatted value, the
    better one marked (higher or lower wins). Each side's fields are read once for all metrics
    (a pydantic model's attribute costs more than a local's)."""
    facts = [(label, m, m.measured, m.values) for label, m in zip(labels, sides, strict=True)]
    both = all([measured for _, _, measured, _ in facts])
    columns = []
    for metric in shown:
        attribute = metric.attribute
        values = [side_values.get(attribute) for _, _, _, side_values in facts]
        best = winner(values[0], values[1], metric.better) if both else None
        cells = []
        for i, (label, m, measured, _) in enumerate(facts):
            value = values[i]
            if not measured:
                text, note = "not measured", m.reason or ""
            elif value is not None:
                text, note = metric.prefix + fixed(value, metric.decimals, thousands=True), ""
                if m.sparse and metric.key == "throughput":
                    text += f" ({SPARSE_MARK})"
                    note = (
                        "interpolated between two distant measured points (see the notes and the provenance)"
                    )
            elif metric.key == "concurrency" and len(m.brackets) == 2:
                # between two deployments: the two measured concurrencies, never a number in between
                low, high = (knots[i][k] for k in m.brackets)
                text = (
                    f"measured: {_deployment_text(low.concurrency, low.gpu_count)}, "
                    f"{_deployment_text(high.concurrency, high.gpu_count)}"
                )
                note = m.unavailable.get(attribute, "")
            else:
                text, note = "n/a", m.unavailable.get(attribute, "unavailable")
            cells.append(SideCell(label, text, note, best == i, value, measured, i))
        columns.append(cells)
    return columns


# A deployment's words, remembered: a page's sides run a few deployments, named at many targets
_deployment_text = lru_cache(maxsize=1024)(deployment_text)


def table(comparison: ComparisonResult, sequence: SequenceResult) -> list[TableRow]:
    labels = [s.label for s in comparison.sides]
    knots = [side.frontier for side in sequence.sides]
    columns = [target_cells(metrics.SHOWN, target.sides, labels, knots) for target in sequence.results]
    return [
        TableRow(m.key, m.row_title, [column[row] for column in columns])
        for row, m in enumerate(metrics.SHOWN)
    ]


def _run_row(label: str, run: AccuracyRun, catalog: HardwareCatalog) -> dict[str, Any]:
    has_interval = run.ci_lo is not None and run.ci_hi is not None
    return {
        "side": label,
        "score": score_text(run.score),
        "interval": interval_text(run.ci_lo, run.ci_hi, False) if has_interval else "—",  # type: ignore[arg-type]
        "questions": f"{run.questions:,}" if run.questions else "—",
        "hardware": hardware_name(catalog, run.hardware) if run.hardware else "not recorded",
        "setup": run.setup or "not recorded",
        "method": "no speculative decoding" if run.spec_method == "none" else run.spec_method.upper(),
        "date": run.date or "not recorded",
        "source": f"{run.source_file}, {run.record}",
        "note": run.excluded_reason or ("per-question results" if run.per_question else ""),
        "pooled": run.pooled,
    }


def accuracy_table(task: AccuracyTask, catalog: HardwareCatalog) -> dict[str, Any]:
    """One task's table for the page: each side's score and interval, the difference, the runs."""
    rows = []
    for side in task.sides:
        scored = side.score is not None and side.ci_lo is not None and side.ci_hi is not None
        rows.append(
            {
                "label": side.label,
                "score": score_text(side.score) if side.score is not None else "no usable result",
                "interval": interval_text(side.ci_lo, side.ci_hi, False) if scored else "—",  # type: ignore[arg-type]
                "runs": f"{side.pooled_runs} of {len(side.runs)}" if side.runs else "0",
                "hardware": ", ".join(side.hardware) + (" (other hardware)" if side.other_hardware else "")
                if side.hardware
                else "not recorded",
            }
        )
    difference = None
    d = task.difference
    if d is not None:
        a, b = (s.label for s in task.sides)
        difference = {
            "label": f"{a} − {b}",
            "value": f"{points_text(d.value)} points",
            "interval": interval_text(d.ci_lo, d.ci_hi, True),
            "verdict": f"{d.better} better" if d.better else "within noise",
            "method": f"paired over {d.questions:,} questions" if d.method == "paired" else "unpaired",
        }
    methods = {side.pool_method for side in task.sides if side.pooled_runs > 1}
    pooling = None
    if methods:
        exact = methods == {"per-question"}
        pooling = (
            "A side with several runs gets their mean. The runs answer the same questions, so averaging "
            "does not narrow the interval: "
            + (
                "it comes from the per-question means across runs."
                if exact
                else "it is the root-mean-square of the runs' standard errors, never narrower than the truth."
            )
        )
    return {
        "task": task.task,
        "pooling": pooling,
        "caption": f"{task.task_name} ({task.metric_label}), "
        f"{'higher' if task.higher_is_better else 'lower'} is better",
        "rows": rows,
        "difference": difference,
        "runs": [_run_row(side.label, run, catalog) for side in task.sides for run in side.runs],
    }
