"""A page's downloads: comparison.json and the CSV files (table, points, accuracy, sweep).

A text cell a spreadsheet would run as a formula is guarded with a leading apostrophe.
"""

from __future__ import annotations

import csv
import functools
import io
import re
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

import pydantic_core
from pydantic import (
    BaseModel,
    TypeAdapter,
)

from site_builder.formatting import float_texts
from site_builder.memo import IdentityMemo
from site_builder.metrics import Metric
from site_builder.present.schema import (
    ComparisonResult,
    MetricsAtTarget,
    PointSummary,
    SequenceResult,
    SweepRowOut,
    per_registry,
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


@per_registry
def table_layout(registry: tuple[Metric, ...]) -> tuple[tuple[str, ...], bytes, tuple[int, ...]]:
    """table.csv's metric columns (every metric's attribute), its header line, and the positions
    of its columns that hold text (sequence, side, reason)."""
    attributes = tuple(m.attribute for m in registry)
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


# A point's line in parts: its own values and its provenance's, a column at a time, and between
# them its configuration's fields (text and a bool, the same for the points of one), written once
# for each distinct configuration
_OWN_COLUMNS = ("on_frontier", *POINT_COLUMNS[: POINT_COLUMNS.index("model")])


_CONFIGURATION_COLUMNS = POINT_COLUMNS[len(_OWN_COLUMNS) - 1 : POINT_COLUMNS.index("date")]


_UNSHARED_COLUMNS = (*_OWN_COLUMNS, *POINT_COLUMNS[POINT_COLUMNS.index("date") :])


_UNSHARED_VALUES = attrgetter(*_UNSHARED_COLUMNS)


_UNSHARED_TEXT = text_columns(PointSummary, _UNSHARED_COLUMNS)


_CONFIGURATION_VALUES = attrgetter(*_CONFIGURATION_COLUMNS)


_CONFIGURATION_TEXT = text_columns(PointSummary, _CONFIGURATION_COLUMNS)


def points_csv(comparison: ComparisonResult) -> bytes:
    """Every point of both sides, every sequence. A side's lines are written once a process for
    the very same points (pages share sides) and prefixed with the page's sequence and label,
    the prefix joined in as the lines' separator (one join a side, no copy a line)."""
    parts = [POINTS_HEADER]
    for sequence in comparison.sequences:
        for side in sequence.sides:
            if side.points:
                prefix = _row_prefix(sequence.sequence, side.label)  # b"seq,label,"
                parts += (prefix, (b"\n" + prefix).join(_POINT_LINES.get(side.points, _point_lines)), b"\n")
    return b"".join(parts)


@functools.lru_cache(maxsize=1024)
def _row_prefix(sequence: str, label: str) -> bytes:
    """A points.csv line's first cells, a sequence and a side's label, and the comma after them."""
    return _csv_lines([(sequence, label, "")])[0][:-1].encode()


def _point_lines(points: Sequence[PointSummary]) -> list[bytes]:
    return _POINT_LINE.get_many(points, _new_point_lines)


def _new_point_lines(points: Sequence[PointSummary]) -> list[bytes]:
    """The points' lines, without their newlines (points_csv joins them), made a column at a
    time, a configuration's fields written once for its points."""
    cells = _csv_columns(list(zip(*map(_UNSHARED_VALUES, points), strict=True)), _UNSHARED_TEXT)
    configurations = list(map(_CONFIGURATION_VALUES, points))
    distinct = list(dict.fromkeys(configurations))
    distinct_cells = _csv_columns(list(zip(*distinct, strict=True)), _CONFIGURATION_TEXT)
    written = dict(zip(distinct, map(",".join, zip(*distinct_cells, strict=True)), strict=True))
    cells.insert(len(_OWN_COLUMNS), list(map(written.__getitem__, configurations)))
    return [",".join(line).encode() for line in zip(*cells, strict=True)]


POINTS_HEADER = "".join(_csv_lines([("sequence", "side", "on_frontier", *POINT_COLUMNS)])).encode()


# A side's lines (≈ 25 KB an entry), keyed by the side's list of points (pages showing the side
# share it, and nothing changes it: comparison_json.side_result), and each point's (a point is on
# sides paired differently)
_POINT_LINES: IdentityMemo[list[PointSummary], list[bytes]] = IdentityMemo(256)


_POINT_LINE: IdentityMemo[PointSummary, bytes] = IdentityMemo(32_768)


SWEEP_COLUMNS = tuple(SweepRowOut.model_fields)


def sweep_csv(comparison: ComparisonResult) -> bytes | None:
    """Every node-level sweep row of both sides, with per-GPU and derived values (marked)."""
    if comparison.sweep is None:
        return None
    values = attrgetter(*SWEEP_COLUMNS)
    rows = [SWEEP_COLUMNS, *(values(r) for r in comparison.sweep.rows)]
    return _csv(rows, text_columns(SweepRowOut, SWEEP_COLUMNS))


def comparison_json(result: ComparisonResult) -> bytes:
    """The page's `comparison.json`, compact (read by programs, not people): byte for byte
    `result.model_dump_json()`, with each side's points and frontier and each target's brackets
    serialised once a process (pages share a side's summaries: `side_result`), not once a page.
    The page's fragments are gathered in one list and joined once (a page is ≈ 200 KB)."""
    sequences = _list_parts([_sequence_parts(sequence) for sequence in result.sequences])
    return b"".join([*_object_parts(result, {"sequences": sequences}), b"\n"])


def _sequence_parts(sequence: SequenceResult) -> list[bytes]:
    results = [
        _object_parts(target, {"sides": _list_parts([[_at_target_json(at)] for at in target.sides])})
        for target in sequence.results
    ]
    sides = [
        _object_parts(
            side, {"frontier": [_summaries_json(side.frontier)], "points": [_summaries_json(side.points)]}
        )
        for side in sequence.sides
    ]
    return _object_parts(sequence, {"results": _list_parts(results), "sides": _list_parts(sides)})


def _list_parts(items: Sequence[list[bytes]]) -> list[bytes]:
    """A JSON list's fragments, from each item's."""
    parts = [b"["]
    for item in items:
        parts += item
        parts.append(b",")
    if items:
        parts.pop()
    parts.append(b"]")
    return parts


def _at_target_json(at: MetricsAtTarget) -> bytes:
    """`MetricsAtTarget._flat`'s JSON, its brackets made once a process."""
    head: dict[str, Any] = {"measured": at.measured, "reason": at.reason}
    head.update(at.flat_values())
    head["unavailable"] = at.unavailable
    text = pydantic_core.to_json(head)  # the values are plain (bool, str, float, int, None)
    sparse = b"true" if at.sparse else b"false"
    brackets = b",".join(_SUMMARY_JSON.get_many(at.brackets, _summaries_each)) if at.brackets else b""
    return text[:-1] + b',"brackets":[' + brackets + b'],"sparse":' + sparse + b"}"


def _summaries_json(summaries: list[PointSummary]) -> bytes:
    """A list of summaries' JSON: once a process for the very same list (pages showing the same
    side share it: side_result), else joined from each summary's, made once a process (a point
    is on many sides)."""
    return _SUMMARIES_JSON.get(summaries, _joined_summaries)


def _joined_summaries(summaries: Sequence[PointSummary]) -> bytes:
    return b"[" + b",".join(_SUMMARY_JSON.get_many(summaries, _summaries_each)) + b"]"


def _summaries_each(summaries: Sequence[PointSummary]) -> list[bytes]:
    """Each summary's JSON, the summaries written as one list by the serialiser and cut apart
    where one object ends and the next begins (`},{"interactivity":`, which a string cannot
    hold: its quotes are escaped, and a summary holds no object or list)."""
    if _PLAIN_SUMMARIES:  # their fields as they are, in order: each summary's values as a dict
        text: bytes = pydantic_core.to_json([s.__dict__ for s in summaries], inf_nan_mode="null")
    else:
        text = _summaries_adapter().dump_json(list(summaries))
    pieces = text[len(SUMMARY_START) + 1 : -2].split(b"}," + SUMMARY_START)
    assert len(pieces) == len(summaries)
    return [SUMMARY_START + piece + b"}" for piece in pieces]


# A summary's JSON is its values' as they are (no field renamed, left out or written by a
# serialiser of its own, floats that are not finite written null as the model writes them), so
# a list of summaries is written as a list of their dicts, without the model's serialiser
_PLAIN_SUMMARIES = (
    all(
        f.alias is None and f.serialization_alias is None and not f.exclude
        for f in PointSummary.model_fields.values()
    )
    and not PointSummary.__pydantic_decorators__.field_serializers
    and not PointSummary.__pydantic_decorators__.model_serializers
    and PointSummary.model_config.get("ser_json_inf_nan", "null") == "null"
)


SUMMARY_START = b'{"' + next(iter(PointSummary.model_fields)).encode() + b'":'  # how every summary begins


@functools.cache
def _summaries_adapter() -> TypeAdapter[list[PointSummary]]:
    """The serialiser of a list of summaries as the models' own write them (made on first use,
    like the models' schemas, which it needs built)."""
    PointSummary.model_rebuild(force=True)
    return TypeAdapter(list[PointSummary])


def _object_parts(model: BaseModel, given: Mapping[str, list[bytes]]) -> list[bytes]:
    """`model.model_dump_json()` as fragments, the fields in `given` written as given (their
    JSON's fragments, made elsewhere) and the rest by the model's serialiser, in field order."""
    parts: list[bytes] = []
    for names, name, key in _field_runs(type(model), frozenset(given)):
        if names:
            text: bytes = model.__pydantic_serializer__.to_json(model, include=names)
            parts.append(b"," + text[1:-1])
        if name is not None:
            parts.append(key)
            parts += given[name]
    parts[0] = b"{" + parts[0][1:]  # the first field's comma
    parts.append(b"}")
    return parts


_RUNS: dict[tuple[type[BaseModel], frozenset[str]], list[tuple[set[str], str | None, bytes]]] = {}


def _field_runs(model: type[BaseModel], given: frozenset[str]) -> list[tuple[set[str], str | None, bytes]]:
    """A model's serialised fields in order, as runs of fields its serialiser writes, each run
    followed by one field written as given (None after the last run) with its key's JSON
    (`,"name":`); made once a model."""
    runs = _RUNS.get((model, given))
    if runs is None:
        runs = []
        run: set[str] = set()
        for name, field in model.model_fields.items():
            if field.exclude:
                continue
            if name in given:
                assert field.alias is None and field.serialization_alias is None, name
                runs.append((run, name, b',"' + name.encode() + b'":'))
                run = set()
            else:
                run.add(name)
        runs.append((run, None, b""))
        _RUNS[(model, given)] = runs
    return runs


# A side's frontier or points as JSON, keyed by the list (pages that show the same side share
# it, and nothing changes it: _SideShown); ≈ 30 KB an entry at most
_SUMMARIES_JSON: IdentityMemo[list[PointSummary], bytes] = IdentityMemo(512)


# A bracketing point's summary as JSON (a frontier point brackets targets on several pages)
_SUMMARY_JSON: IdentityMemo[PointSummary, bytes] = IdentityMemo(16_384)
