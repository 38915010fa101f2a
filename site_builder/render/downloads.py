"""A page's downloads: comparison.json (the schema's own serialiser) and the CSV files (table,
points, accuracy, sweep), written by the csv module.

A text cell a spreadsheet would run as a formula is guarded with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from site_builder import metrics
from site_builder.present.result import ShownPoints
from site_builder.present.schema import ComparisonResult, PointSummary, SweepRowOut
from site_builder.read.table import PointTable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


def guarded(value: Any) -> Any:
    """A text a spreadsheet would run as a formula, with a leading apostrophe; anything else as
    it is (None is written empty by the csv module, a float by repr)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_bytes(rows: Iterable[Sequence[Any]], *, guard: bool = True) -> bytes:
    """Rows as CSV (the csv module's minimal quoting, a newline ending each line), every text
    cell guarded (unless the rows come guarded already)."""
    return "".join(csv_lines(([guarded(value) for value in row] for row in rows) if guard else rows)).encode()


def comparison_json(result: ComparisonResult) -> bytes:
    """The page's `comparison.json`, compact (read by programs, not people), one line."""
    return result.model_dump_json().encode() + b"\n"


def table_csv(comparison: ComparisonResult) -> bytes:
    """The matched-interactivity table, every sequence: one row per target and side, every metric
    as comparison.json lists it (a whole-number metric rounded half up)."""
    attributes = [m.attribute for m in metrics.METRICS]
    rows: list[list[Any]] = [["sequence", "target_interactivity", "side", "measured", *attributes, "reason"]]
    for sequence in comparison.sequences:
        for target in sequence.results:
            for side, m in zip(comparison.sides, target.sides, strict=True):
                flat = m.flat_values()
                values = [flat[attribute] for attribute in attributes]
                row = [sequence.sequence, target.interactivity, side.label, m.measured, *values, m.reason]
                rows.append(row)
    return csv_bytes(rows)


def accuracy_csv(comparison: ComparisonResult) -> bytes | None:
    """Every run, each side's pooled score and the difference, per task (None: no results)."""
    if comparison.accuracy is None:
        return None
    header = [
        "task", "metric", "row", "side", "score", "stderr", "ci_lo", "ci_hi", "questions", "runs",
        "method", "verdict", "hardware", "precision", "spec_method", "framework", "setup", "date",
        "dataset", "source_file", "record", "excluded_reason",
    ]  # fmt: skip
    rows: list[list[Any]] = [header]
    blank = [None] * 9
    for task in comparison.accuracy.tasks:
        for side in task.sides:
            for run in side.runs:
                rows.append(
                    [task.task, task.metric, "run", side.label, run.score, run.stderr, run.ci_lo, run.ci_hi,
                     run.questions, 1, None, None, run.hardware, run.precision, run.spec_method,
                     run.framework, run.setup, run.date, run.dataset, run.source_file, run.record,
                     run.excluded_reason]
                )  # fmt: skip
            rows.append(
                [task.task, task.metric, "pooled", side.label, side.score, side.stderr, side.ci_lo,
                 side.ci_hi, None, side.pooled_runs, side.pool_method, None, *blank, None]
            )  # fmt: skip
        d = task.difference
        if d is not None:
            a, b = (s.label for s in task.sides)
            rows.append(
                [task.task, task.metric, "difference", f"{a} - {b}", d.value, d.stderr, d.ci_lo, d.ci_hi,
                 d.questions, None, d.method, d.verdict, *blank, None]
            )  # fmt: skip
    return csv_bytes(rows)


# A point summary's fields, less the one-line label (its parts are columns) and on_frontier (up front)
POINT_COLUMNS = tuple(f for f in PointSummary.model_fields if f not in ("configuration", "on_frontier"))


def points_csv(comparison: ComparisonResult, shown: Sequence[Sequence[ShownPoints]]) -> bytes:
    """Every point of both sides, every sequence, its side's sequence and label first: the
    page's point rows. A point's own cells (`point_cells`) are written once a table, since every
    page listing the point writes them alike; a row is its page's three cells, then those."""
    lines = csv_lines([["sequence", "side", "on_frontier", *POINT_COLUMNS]])
    for sequence, sides in zip(comparison.sequences, shown, strict=True):
        for side, points in zip(comparison.sides, sides, strict=True):
            first = [guarded(sequence.sequence), guarded(side.label)]
            on, off = csv_lines([[*first, True], [*first, False]])
            starts = {True: on[:-1] + ",", False: off[:-1] + ","}  # the line's newline a comma
            cells = points.rows.per_row("points.csv", point_cells)
            lines += [starts[on] + text for on, text in zip(points.on_frontier, cells, strict=True)]
    return "".join(lines).encode()


def point_cells(rows: PointTable) -> list[str]:
    """Each point's POINT_COLUMNS as a CSV line (a text column guarded: `_guarded_column`)."""
    return csv_lines(zip(*[_guarded_column(rows, name) for name in POINT_COLUMNS], strict=True))


def csv_lines(rows: Iterable[Sequence[Any]]) -> list[str]:
    """Each row as its own CSV line (the csv module's minimal quoting, ending in a newline): what
    every CSV file of a page is made of."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    lines = []
    for row in rows:
        writer.writerow(row)
        lines.append(buffer.getvalue())
        buffer.seek(0)
        buffer.truncate()
    return lines


def _guarded_column(rows: PointTable, name: str) -> list[Any]:
    """A column's values, a text one guarded: judged once per distinct value (a column of
    numbers never needs it)."""
    values = rows.python_values(name)
    if rows.column(name).dtype != object or not any(
        isinstance(value, str) and value.startswith(FORMULA_STARTS) for value in set(values)
    ):
        return values
    return [guarded(value) for value in values]


SWEEP_COLUMNS = tuple(SweepRowOut.model_fields)


def sweep_csv(comparison: ComparisonResult) -> bytes | None:
    """Every node-level sweep row of both sides, with per-GPU and derived values (marked); the
    columns comparison.json lists (mean latencies only where a row gives them)."""
    if comparison.sweep is None:
        return None
    dumped = [row.model_dump() for row in comparison.sweep.rows]
    columns = [column for column in SWEEP_COLUMNS if any(column in row for row in dumped)]  # as the JSON
    return csv_bytes([columns, *([row.get(column) for column in columns] for row in dumped)])
