"""A page's downloads: comparison.json and the CSV files (table, points, accuracy, sweep).

A text cell a spreadsheet would run as a formula is guarded with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from pydantic import (
    BaseModel,
)

from site_builder import metrics
from site_builder.formatting import float_texts
from site_builder.present.result import ShownPoints
from site_builder.present.schema import (
    ComparisonResult,
    PointSummary,
    SweepRowOut,
)

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet would run as a formula


NUMBER_TYPES = {float, int, bool, float | None, int | None, bool | None}


def _csv_text(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula is quoted with a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value  # None is written empty by the csv module


def text_columns(model: type[BaseModel], columns: Sequence[str]) -> tuple[int, ...]:
    """The positions of the columns that may hold text (the rest are numbers, never quoted)."""
    return tuple(i for i, c in enumerate(columns) if model.model_fields[c].annotation not in NUMBER_TYPES)


def _guarded(column: Sequence[Any], distinct: set[Any]) -> Sequence[Any]:
    """A column with the formula guard applied (`distinct`: its values), untouched when no cell
    needs it, the common case."""
    if any(isinstance(v, str) and v.startswith(FORMULA_STARTS) for v in distinct):
        return [_csv_text(v) for v in column]
    return column


def _csv_module_quotes(char: str) -> bool:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([char, ""])
    return buffer.getvalue().startswith('"')


# What makes the csv module quote a field (asked of this Python's csv module, once)
CSV_QUOTED = re.compile("[" + re.escape("".join(c for c in ',"\r\n' if _csv_module_quotes(c))) + "]")


def _csv_cells(column: Sequence[Any], distinct: set[Any] | None = None) -> list[str]:
    """One column's fields as the csv module writes them (minimal quoting): None empty, a float
    by repr, anything else by str, quoted where needed. A column at a time, with the common
    columns (one value throughout, all text, all floats or empty, all whole numbers) converted
    without a Python call per cell; `distinct`: the column's values, when known."""
    kinds = set(map(type, column))
    cells: list[str]
    if distinct is not None and len(distinct) == 1 and len(kinds) == 1 and float not in kinds:
        # one value of one type throughout (1 is True, and 0.0 is -0.0, in a set)
        return _csv_cells(list(distinct)) * len(column)
    if kinds <= {str}:
        cells = list(column)
    elif kinds <= {float, type(None)}:
        cells = float_texts(column)
    elif kinds <= {int, bool}:
        cells = list(map(str, column))
    elif kinds <= {str, type(None)}:
        cells = [v or "" for v in column]
    else:
        cells = ["" if v is None else repr(v) if isinstance(v, float) else str(v) for v in column]
    if CSV_QUOTED.search("".join(cells)):
        cells = ['"' + c.replace('"', '""') + '"' if CSV_QUOTED.search(c) else c for c in cells]
    return cells


def _csv(rows: Sequence[Sequence[Any]], text: Sequence[int] | None = None) -> bytes:
    """Rows as CSV, byte for byte what csv.writer (lineterminator "\\n") writes, built column by
    column: a page's points are thousands of cells, and this is about twice as fast."""
    return "".join(_csv_lines(rows, text)).encode()


def _csv_lines(rows: Sequence[Sequence[Any]], text: Sequence[int] | None = None) -> list[str]:
    """`_csv`'s rows, each its line (with its newline), with the formula guard (a text starting
    = + - @ tab or CR gets a leading apostrophe) on the `text` columns when given (a number
    never needs it), on any column holding text otherwise."""
    if not rows:
        return []
    columns: list[Sequence[Any]] = list(zip(*rows, strict=True))
    if len(columns) < 2:  # the csv module quotes a lone empty field: leave such rows to it
        if columns and (text is None or 0 in text):
            columns = [_guarded(columns[0], set(columns[0]))]
        lines = []
        for row in list(zip(*columns, strict=True)) if columns else rows:
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerow(row)
            lines.append(buffer.getvalue())
        return lines
    return [",".join(row) + "\n" for row in zip(*_csv_columns(columns, text), strict=True)]


def _csv_columns(columns: Sequence[Sequence[Any]], text: Sequence[int] | None = None) -> list[list[str]]:
    """Each column's fields (`_csv_cells`), with the formula guard on the `text` columns when
    given, on any column holding text otherwise (`_csv_lines`)."""
    guard = range(len(columns)) if text is None else text
    cells = []
    for i, column in enumerate(columns):
        distinct = set(column)
        if i in guard:
            guarded = _guarded(column, distinct)
            if guarded is not column:
                column, distinct = guarded, set(guarded)
        cells.append(_csv_cells(column, distinct))
    return cells


def table_layout() -> tuple[tuple[str, ...], bytes, tuple[int, ...]]:
    """table.csv's metric columns (every metric's attribute), its header line, and the positions
    of its columns that hold text (sequence, side, reason)."""
    attributes = tuple(m.attribute for m in metrics.METRICS)
    columns = ("sequence", "target_interactivity", "side", "measured", *attributes, "reason")
    return attributes, _csv([columns]), (0, 2, len(columns) - 1)


def table_csv(comparison: ComparisonResult) -> bytes:
    """The matched-interactivity table, every sequence: one row per target and side, every metric
    as comparison.json lists it (a whole-number metric rounded half up)."""
    attributes, header, text = table_layout()
    rows: list[list[Any]] = []
    for sequence in comparison.sequences:
        for target in sequence.results:
            for side, m in zip(comparison.sides, target.sides, strict=True):
                shown = m.flat_values()
                rows.append(
                    [
                        sequence.sequence,
                        target.interactivity,
                        side.label,
                        m.measured,
                        *map(shown.__getitem__, attributes),
                        m.reason,
                    ]
                )
    return header + _csv(rows, text)


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
    return _csv(rows)


# A point summary's fields, less the one-line label (its parts are columns) and on_frontier (up front).
POINT_COLUMNS = tuple(f for f in PointSummary.model_fields if f not in ("configuration", "on_frontier"))


def points_csv(comparison: ComparisonResult, shown: Sequence[Sequence[ShownPoints]]) -> bytes:
    """Every point of both sides, every sequence: its sequence, side and whether it is on the
    frontier, then a point summary's fields (but its one-line label, whose parts are columns)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["sequence", "side", "on_frontier", *POINT_COLUMNS])
    for sequence, sides in zip(comparison.sequences, shown, strict=True):
        for side, points in zip(comparison.sides, sides, strict=True):
            prefix = [_csv_text(sequence.sequence), _csv_text(side.label)]
            records = points.rows.records(range(len(points.rows)), POINT_COLUMNS)
            writer.writerows(
                [*prefix, on, *map(_csv_text, record.values())]
                for on, record in zip(points.on_frontier, records, strict=True)
            )
    return buffer.getvalue().encode()


SWEEP_COLUMNS = tuple(SweepRowOut.model_fields)


def sweep_csv(comparison: ComparisonResult) -> bytes | None:
    """Every node-level sweep row of both sides, with per-GPU and derived values (marked)."""
    if comparison.sweep is None:
        return None
    values = attrgetter(*SWEEP_COLUMNS)
    rows = [SWEEP_COLUMNS, *(values(r) for r in comparison.sweep.rows)]
    return _csv(rows, text_columns(SweepRowOut, SWEEP_COLUMNS))


def comparison_json(result: ComparisonResult) -> bytes:
    """The page's `comparison.json`, compact (read by programs, not people), then a newline."""
    return result.model_dump_json().encode() + b"\n"
