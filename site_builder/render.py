"""Turn computed comparisons into the files of a static site (HTML, CSV, JSON, XML), in memory.

Every internal link is relative (the site works under a sub-path and from file://), and every
value a reader wrote (model names, labels, stub bodies) is escaped or sanitised.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import hashlib
import io
import os
import re
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from operator import attrgetter
from pathlib import Path, PurePosixPath
from types import CodeType
from typing import Any, NamedTuple

import markdown
import nh3
from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.runtime import Macro
from markupsafe import Markup, escape
from pydantic import BaseModel

from site_builder import __version__, metrics
from site_builder.catalog import HardwareCatalog, hardware_name
from site_builder.charts import EncodedJSON, chart_data, script_json_text
from site_builder.comparison_json import (
    AccuracyRun,
    AccuracyTask,
    ComparisonResult,
    MetricsAtTarget,
    PointSummary,
    SequenceResult,
    SideResult,
    SweepRowOut,
    comparison_json,
    deployment_text,
    per_registry,
)
from site_builder.content import SiteConfig
from site_builder.engine.compare import SPARSE_RATIO, TIE_TOLERANCE, winner
from site_builder.inputs import Refused, read_bytes, read_bytes_checked, read_text
from site_builder.kinds import KINDS
from site_builder.memo import IdentityMemo, SequenceMemo
from site_builder.metrics import Metric
from site_builder.narrate import SPARSE_MARK, Narrative, interval_text, narrate, points_text, score_text
from site_builder.numbers import fixed, float_texts
from site_builder.problems import ProblemLog
from site_builder.project import Project
from site_builder.sections import BY_KEY, SECTIONS, page_sections
from site_builder.write import Owner

METHODOLOGY = "methodology.md"  # the guide every number's page links to
# The chart library: plotly.js's official basic partial bundle, vendored (site_builder/vendor/plotly/
# README.md says where from), published with its licence beside it.
PLOTLY_FOLDER = Path(__file__).resolve().parent / "vendor" / "plotly"
PLOTLY_ASSETS = {"plotly-basic.min.js": "plotly-basic.min.js", "plotly-basic.LICENSE.txt": "LICENSE"}
SAFE_TAGS = {
    "p",
    "a",
    "em",
    "strong",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "h2",
    "h3",
    "h4",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
}


def filters_text(filters: Mapping[str, Any]) -> Markup:
    """A side's filters as 'key=value, …' (a list's values joined by commas), escaped: the
    `filters_text` filter (a loop over a page's six sides' filters costs more in Jinja). A key
    with a string or flag recurs on every page, so its text is remembered (`_filter_text`)."""
    return Markup(
        ", ".join(
            [
                _filter_text(key, value) if type(value) in _REMEMBERED else _filter_words(key, value)
                for key, value in filters.items()
            ]
        )
    )


def _filter_words(key: str, value: Any) -> str:
    return f"{escape(key)}={escape(','.join(map(str, value)) if _listed(value) else value)}"


# The values a filter's text is remembered by: hashable, and equal only to their own kind's
# (typed: True and 1 are remembered apart)
_REMEMBERED = {str, bool}
_filter_text = lru_cache(maxsize=1024, typed=True)(_filter_words)


def _listed(value: Any) -> bool:
    """What Jinja's `is not string and is iterable` holds of a value: a list to join."""
    if isinstance(value, str):
        return False
    try:
        iter(value)
    except TypeError:
        return False
    return True


def lacking(items: Iterable[Any], attribute: str) -> int:
    """How many of the items have the attribute empty (the `lacking` filter: the frontier points
    without a recorded date), for `rejectattr(…) | list | length`."""
    return sum(1 for item in items if not getattr(item, attribute))


@dataclass(frozen=True)
class PageSource:
    """A comparison plus what its page needs beyond the numbers."""

    comparison: ComparisonResult
    body_markdown: str
    generated: bool  # found in the data, not written as a stub


# -- formatting ---------------------------------------------------------------------------------


# Where a page's related section goes until every page is known (pipeline.py fills it): the last
# occurrence in the page, since the section comes after everything an author wrote.
RELATED_SLOT = "<!-- site-builder: related pages -->"


def safe_markdown(text: str) -> Markup:
    """Author Markdown to HTML: raw HTML is shown as text, links limited to safe schemes."""
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(text)
    cleaned = nh3.clean(
        html, tags=SAFE_TAGS, url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer"
    )
    return Markup(cleaned)


def safe_url(value: str | None) -> str | None:
    """An outside link only if it is plain http(s); anything else is not linked."""
    if value and value.split(":", 1)[0].lower() in ("http", "https") and "://" in value:
        return value
    return None


def json_for_script(value: Any) -> Markup:
    """JSON safe inside <script>: no '</script>', no HTML comment openers."""
    text = script_json_text(value)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


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
    shown: Sequence[Metric], sides: Sequence[MetricsAtTarget], labels: Sequence[str]
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
                low, high = m.brackets
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


# The win mark after the better side's value (the same words the table's hint explains)
WIN_MARK = ' <span class="win-mark" aria-hidden="true">▲</span><span class="visually-hidden"> (better)</span>'


def side_values(cells: Sequence[Sequence[SideCell]]) -> Markup:
    """A matched-table row's cells (the `side_values` filter): per target a <td> holding each
    side's value in its span. Written here, not looped in the template: a page has ≈ 270 such
    spans, and Jinja's attribute lookup and escaping per field cost more than the page's other
    markup. A theme may loop over `row.cells` (SideCell) itself instead."""
    parts = []
    for cell in cells:
        parts.append("<td>\n")
        for label, text, note, win, _, measured, side in cell:
            parts.append(_span_start(label, note, win, measured, side))
            # a value's text is most often a plain number, with nothing to escape (and new on
            # each page: remembering its escaped text would not help)
            parts.append(text if type(text) is str and _ESCAPED_CHARS.isdisjoint(text) else str(escape(text)))
            parts.append(_WON if win else _END)
        parts.append("</td>\n")
    return Markup("".join(parts))


@lru_cache(maxsize=1024)
def _span_start(label: str, note: str, win: bool, measured: bool, side: int) -> str:
    """A side's span up to its value, remembered: a page's labels, notes and wins recur."""
    classes = "side-value side-" + str(side) + (" win" if win else "")
    if not measured:
        classes += " not-measured"
    title = f' title="{_escaped(note)}"' if note else ""
    label_span = f'<span class="side-label">{_escaped(label)}:</span>'
    return f'<span class="{classes}"{title}>{label_span} <span class="value">'


_END = "</span></span>\n"
_WON = "</span>" + WIN_MARK + "</span>\n"
# What Jinja's escaping changes
_ESCAPED_CHARS = frozenset("&<>'\"")


@lru_cache(maxsize=4096)
def _escaped(text: str) -> str:
    """Text escaped as Jinja escapes it, remembered: a page's labels and most of its words recur
    in every cell."""
    return str(escape(text))


def bracket_rows(sequence: SequenceResult) -> Markup:
    """The provenance's bracket table rows for a sequence (the `bracket_rows` filter): per target
    and side, a row per frontier point bracketing the target, or one row saying why the side is
    not measured there. Written here, not looped in the template: a page has ≈ 36 such rows, and
    Jinja's loops, macro calls and escaping cost more than the rest of the section; a point's
    cells are the same on every page showing it, so made once a process."""
    labels = [_escaped(side.label) for side in sequence.sides]
    rows: list[str] = []
    for target in sequence.results:
        start = "<tr><td>" + _escaped(fixed(target.interactivity, 0)) + "</td><td>"
        for i, m in enumerate(target.sides):
            lead = start + labels[i] + "</td>"
            if m.measured:
                cells = _BRACKET_CELLS.get_each(m.brackets, _bracket_cells)
                rows.extend([lead + point + "</tr>\n" for point in cells])
            else:
                rows.append(lead + '<td colspan="6" class="reason">' + str(escape(m.reason)) + "</td></tr>\n")
    return Markup("".join(rows))


def _bracket_cells(k: PointSummary) -> str:
    """A bracketing point's cells: configuration, concurrency, interactivity, throughput, date,
    source (file, record, client, run address)."""
    url = safe_url(k.run_url)
    return (
        f'<td class="configuration">{_escaped(k.configuration)}</td><td>{k.concurrency}</td>'
        f"<td>{fixed(k.interactivity, 1)}</td><td>{fixed(k.throughput_per_gpu, 1)}</td>"
        f"<td>{_escaped(k.date) if k.date else 'date not recorded'}</td>"
        f'<td class="source">{_escaped(k.source_file)}, {escape(k.record)}'
        + (f" ({escape(k.client)})" if k.client else "")
        + (f'<br><code class="url">{escape(url)}</code>' if url else "")
        + "</td>"
    )


# A frontier point's bracket cells, once a process (a point brackets targets on several pages)
_BRACKET_CELLS: IdentityMemo[PointSummary, str] = IdentityMemo(4096)


def table(comparison: ComparisonResult, sequence: SequenceResult) -> list[TableRow]:
    labels = [s.label for s in comparison.sides]
    columns = [target_cells(metrics.SHOWN, target.sides, labels) for target in sequence.results]
    return [
        TableRow(m.key, m.row_title, [column[row] for column in columns])
        for row, m in enumerate(metrics.SHOWN)
    ]


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
assert all(PointSummary.model_fields[c].annotation in (str, bool) for c in _CONFIGURATION_COLUMNS)


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


# -- the site ---------------------------------------------------------------------------------


def build_date() -> str | None:
    """Only from SOURCE_DATE_EPOCH: a build never reads the clock, so rebuilds are identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch or not epoch.isdigit():
        return None
    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%d")


class _ConfinedLoader(FileSystemLoader):
    """Jinja's file loader under the input rule: a template that is a symbolic link leaving its
    theme folder is refused, naming the link (inputs.py)."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        path = Path(filename)
        for folder in self.searchpath:
            if Path(folder) in path.parents:
                try:
                    read_bytes_checked(path, Path(folder))
                except Refused as exc:
                    raise TemplateError(f"{template}: {exc.reason}") from None
                break
        return source, filename, uptodate


class RenderedOnce:
    """`rendered_once(macro, obj)` in a template: the macro's output for an immutable object,
    rendered once a process and reused on later pages (a side's frontier points bracket targets
    on every page that shows the side). The markup stays in the template; only its output is
    kept. A macro that reads anything but its argument (a page's variable, the caller) is
    rendered every time, so a theme's macro can never show another page's text."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._memos: dict[CodeType, IdentityMemo[Any, Markup]] = {}

    def __call__(self, macro: Macro, obj: Any) -> Markup:
        code = macro._func.__code__
        memo = self._memos.get(code)
        if memo is None:
            if not _reads_only_arguments(code):
                return Markup(macro(obj))
            if len(self._memos) >= 64:  # templates recompiled by `serve` leave old code behind
                self._memos.clear()
            memo = self._memos[code] = IdentityMemo(self.limit)
        return memo.get(obj, lambda held: Markup(macro(held)))


# What a compiled Jinja macro may close over and still depend on its arguments alone: the
# environment and its helpers, and its filters and tests ('t_N'). A template's variables
# ('l_…'), the page's context, a caller: not these.
_MACRO_NEEDS = re.compile(r"t_\d+|environment|undefined|missing|concat|cond_expr_undefined")


def _reads_only_arguments(code: CodeType) -> bool:
    """Whether a compiled Jinja macro reads nothing from its template beyond its arguments."""
    return all(_MACRO_NEEDS.fullmatch(name) for name in code.co_freevars)


def environment(folders: Sequence[Path], compiled: Path | None = None) -> Environment:
    """Jinja over the theme's search path: the project's own templates first, then the default;
    with `compiled`, a folder where Jinja keeps each template's compiled code, under a checksum
    of its source (compiling the theme is ≈ 0.3 s a process; loading it from there ≈ 0.02 s).
    A template is loaded once an environment and kept, never checked again (no modification time
    asked for, no least-recently-used bookkeeping): an environment serves one build, made with
    one theme (`serve` builds again with a new environment), and a page includes a dozen
    sections."""
    env = Environment(
        loader=_ConfinedLoader([str(f) for f in folders]),
        bytecode_cache=FileSystemBytecodeCache(str(compiled)) if compiled is not None else None,
        autoescape=select_autoescape(["html", "xml"], default=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        cache_size=-1,
    )
    env.filters["fixed"] = fixed
    env.filters["script_json"] = json_for_script
    env.filters["safe_url"] = safe_url
    env.filters["side_values"] = side_values
    env.filters["filters_text"] = filters_text
    env.filters["lacking"] = lacking
    env.filters["bracket_rows"] = bracket_rows
    env.globals["rendered_once"] = RenderedOnce(4096)
    return env


def page_url(slug: str) -> str:
    return f"{slug}/index.html"


def shown_path(path: Path) -> str:
    """A theme or guide file as the user knows it: 'templates/base.html', 'docs/methodology.md'."""
    return f"{path.parent.name}/{path.name}"


@dataclass(frozen=True)
class Guide:
    """A page made from a Markdown file of the guides (methodology.md has its own address)."""

    source: Path
    text: str

    @property
    def is_methodology(self) -> bool:
        """The methodology guide has its own address, header link and title."""
        return self.source.name == METHODOLOGY

    @property
    def address(self) -> str:
        return "methodology/" if self.is_methodology else f"docs/{self.source.stem}/"

    def _title_line(self) -> tuple[list[str], int | None]:
        """The guide's lines and which is its '# Title' (None: it has none)."""
        lines = self.text.splitlines(keepends=True)
        return lines, next((n for n, line in enumerate(lines) if line.startswith("# ")), None)

    @property
    def title(self) -> str:
        lines, number = self._title_line()
        if number is None:
            return self.source.stem.replace("-", " ").capitalize()
        return lines[number][2:].strip().strip("`")

    @property
    def body(self) -> str:
        """The text below its title: the page template shows the title as the page's one h1."""
        lines, number = self._title_line()
        return self.text if number is None else "".join(lines[:number] + lines[number + 1 :])


class SiteRenderer:
    """Renders every page of a site; template and guide problems go to the log, not up the stack."""

    def __init__(
        self,
        project: Project,
        config: SiteConfig,
        catalog: HardwareCatalog,
        log: ProblemLog,
        compiled: Path | None = None,
    ) -> None:
        self.project = project
        self.env = environment(project.template_folders(), compiled)
        self.config = config
        self.catalog = catalog
        self.log = log
        self.site_url = (config.site_url.rstrip("/") + "/") if config.site_url else None
        self.built = build_date()
        self._common_at: dict[str, dict[str, Any]] = {}
        self.guides_by_name = self._read_guides()
        # the guides' Markdown as HTML, by a digest of the text: what an earlier build made (the
        # build cache's), and what this one used (for the cache to keep)
        self.known_guides_html: Mapping[str, str] = {}
        self.guides_html: dict[str, str] = {}

    def _read_guides(self) -> dict[str, Guide]:
        guides = {}
        for name, path in self.project.guide_files().items():
            text = read_text(path, shown_path(path), self.log, root=path.parent)
            if text is not None:
                guides[name] = Guide(path, text)
        return guides

    def compile_templates(self) -> None:
        """Compile a comparison page's templates now (each is compiled once an environment, on
        first use): done before workers fork, they share the compiled code. A template that fails
        is left to fail, and be reported, where a page renders it."""
        for name in ("comparison.html", "base.html", "macros.html", *(s.template for s in SECTIONS)):
            with contextlib.suppress(TemplateError, UnicodeDecodeError):
                self.env.get_template(name)

    def render(self, template: str, context: Mapping[str, Any]) -> bytes | None:
        """A template rendered, or None with the problem logged: the template file and line where
        it went wrong (an included section's, not the page's), and what went wrong."""
        try:
            return self.env.get_template(template).render(context).encode()
        except UnicodeDecodeError:
            for path in self._templates_not_utf8():
                self.log.add(self._shown_template(path), "", "", "not valid UTF-8: save it as UTF-8")
        except TemplateSyntaxError as exc:
            where = self._shown_template(Path(exc.filename)) if exc.filename else template
            self.log.add(where, f"line {exc.lineno}", "", f"template syntax error: {exc.message}")
        except TemplateNotFound as exc:
            file, line = self._failing_template(exc, template)
            self.log.add(file, line, "", f"template not found: {exc.name}")
        except Exception as exc:  # a template's own expression failed: name it, never a traceback
            file, line = self._failing_template(exc, template)
            kind = (
                "template error"
                if isinstance(exc, TemplateError)
                else f"template error ({type(exc).__name__})"
            )
            self.log.add(file, line, "", f"{kind}: {exc}")
        return None

    def _shown_template(self, path: Path) -> str:
        """'templates/sections/notes.html' for a project's file, '… (default theme)' for ours."""
        resolved = path.resolve()
        for folder in self.project.template_folders():
            if folder.resolve() in resolved.parents:
                relative = resolved.relative_to(folder.resolve()).as_posix()
                if folder == self.project.templates:
                    return f"{folder.name}/{relative}"
                return f"templates/{relative} (default theme)"
        return path.as_posix()

    def _failing_template(self, exc: BaseException, template: str) -> tuple[str, str]:
        """(file, 'line N') of the innermost template frame in the exception's traceback."""
        folders = [f.resolve() for f in self.project.template_folders()]
        found = (self._shown_template(folders[-1] / template), "")
        for frame in traceback.extract_tb(exc.__traceback__):
            path = Path(frame.filename)
            if path.is_absolute() and any(f in path.resolve().parents for f in folders):
                found = (self._shown_template(path), f"line {frame.lineno}" if frame.lineno else "")
        return found

    def _templates_not_utf8(self) -> list[Path]:
        bad = []
        for folder in self.project.template_folders():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and "assets" not in path.relative_to(folder).parts:
                    try:
                        path.read_bytes().decode("utf-8")
                    except UnicodeDecodeError:
                        bad.append(path)
        return bad

    def absolute(self, path: str) -> str | None:
        return self.site_url + path if self.site_url else None

    def _names(self, comparison: ComparisonResult) -> tuple[list[str], list[str]]:
        names, architectures = [], []
        for sequence in comparison.sequences[:1]:
            for side in sequence.sides:
                spec = self.catalog.gpus.get(side.hardware)
                names.append(hardware_name(self.catalog, side.hardware))
                vendor = f"{spec.vendor} " if spec and spec.vendor else ""
                architectures.append(f"{vendor}{spec.architecture}" if spec and spec.architecture else "")
        return names, architectures

    def narrative(self, comparison: ComparisonResult) -> Narrative:
        names, architectures = self._names(comparison)
        return narrate(comparison, comparison.sequences[0], names, architectures)

    def _common(self, root: str) -> dict[str, Any]:
        """What every page's template is given, the same for every page at one depth (made once
        a depth: guide titles read each guide's first line)."""
        common = self._common_at.get(root)
        if common is None:
            common = self._common_at[root] = {
                "guides": self.guides(root),
                "root": root,
                "site": self.config,
                "version": __version__,
                "built": self.built,
                "has_methodology": METHODOLOGY in self.guides_by_name,
            }
        return common

    def _structured_data(
        self, comparison: ComparisonResult, narrative: Narrative, root: str
    ) -> list[dict[str, Any]]:
        here = self.absolute(f"{comparison.slug}/") or "index.html"
        home = self.absolute("") or f"{root}index.html"
        dates = [d for s in comparison.sequences for side in s.sides if side.dates for d in side.dates]
        dataset: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "Dataset",
            "name": comparison.title,
            "description": f"{narrative.summary} {narrative.lede}",
            "url": here,
            "variableMeasured": [m.label for m in metrics.SHOWN] + ["Interactivity (tok/s/user)"],
            "distribution": [
                {
                    "@type": "DataDownload",
                    "encodingFormat": "application/json",
                    "contentUrl": self.absolute(f"{comparison.slug}/comparison.json") or "comparison.json",
                },
                {
                    "@type": "DataDownload",
                    "encodingFormat": "text/csv",
                    "contentUrl": self.absolute(f"{comparison.slug}/points.csv") or "points.csv",
                },
            ],
            "isBasedOn": [s.url or s.source for s in comparison.data_sources],
            "creditText": "; ".join(s.source for s in comparison.data_sources),
        }
        licences = sorted({s.licence for s in comparison.data_sources if s.licence})
        if licences:
            dataset["license"] = licences[0] if len(licences) == 1 else licences
        if dates:
            dataset["temporalCoverage"] = f"{min(dates)}/{max(dates)}"
        crumbs = {
            "@context": "https://schema.org",
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": self.config.title, "item": home},
                {"@type": "ListItem", "position": 2, "name": KINDS[comparison.kind].name},
                {"@type": "ListItem", "position": 3, "name": comparison.title, "item": here},
            ],
        }
        return [crumbs, dataset]

    def comparison_page(self, page: PageSource, narrative: Narrative) -> bytes | None:
        """The page's HTML, its related section left as RELATED_SLOT (`related_section` fills it
        once every page is known)."""
        comparison = page.comparison
        root = "../"
        context = {
            **self._common(root),
            "c": comparison,
            "n": narrative,
            "kind_name": KINDS[comparison.kind].name,
            "sections": page_sections(comparison.sections),
            "body": safe_markdown(page.body_markdown) if page.body_markdown.strip() else None,
            "auto": page.generated,
            "tables": [(s, table(comparison, s)) for s in comparison.sequences],
            "accuracy": [accuracy_table(t, self.catalog) for t in comparison.accuracy.tasks]
            if comparison.accuracy
            else [],
            "charts": chart_data(comparison),
            "page_data": page_data(comparison),
            "related_slot": Markup(RELATED_SLOT),
            "structured": self._structured_data(comparison, narrative, root),
            "canonical": self.absolute(f"{comparison.slug}/"),
        }
        return self.render("comparison.html", context)

    def related_section(self, related: Sequence[dict[str, str]]) -> bytes:
        """The related section of a page (theme partial sections/related.html, given `related`
        and the page's common context): what fills the page's RELATED_SLOT."""
        context = {**self._common("../"), "related": related}
        return self.render(BY_KEY["related"].template, context) or b""

    def index_page(self, entries: Sequence[dict[str, Any]]) -> bytes | None:
        groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for entry in entries:
            kind = KINDS[entry["kind"]].name
            groups.setdefault(kind, {}).setdefault(entry["group"], []).append(entry)
        structured = {
            "@context": "https://schema.org",
            "@type": "WebSite",
            "name": self.config.title,
            "description": self.config.description,
        }
        if self.site_url:
            structured["url"] = self.site_url
        context = {
            **self._common(""),
            "groups": groups,
            "count": len(entries),
            "structured": [structured],
            "canonical": self.site_url,
        }
        return self.render("index.html", context)

    def _guide_html(self, guide: Guide, root: str) -> Markup:
        """A guide as HTML, its links to other guides pointing at their pages in the site."""
        key = hashlib.sha256(guide.body.encode()).hexdigest()
        html = self.known_guides_html.get(key)
        if html is None:
            html = str(safe_markdown(guide.body))
        self.guides_html[key] = html

        def link(match: re.Match[str]) -> str:
            name, anchor = match.group(1), match.group(2) or ""
            target = self.guides_by_name.get(name)
            if target is not None:
                return f'href="{root}{target.address}index.html{anchor}"'
            return match.group(0)

        return Markup(re.sub(r'href="([\w.-]+\.md)(#[\w-]+)?"', link, html))

    def guide_page(self, guide: Guide) -> bytes | None:
        """A guide's page: methodology/index.html or docs/<name>/index.html."""
        root = "../" * guide.address.count("/")
        context = {
            **self._common(root),
            "content": self._guide_html(guide, root),
            "canonical": self.absolute(guide.address),
            "doc_title": "Methodology" if guide.is_methodology else guide.title,
        }
        return self.render("methodology.html", context)

    def guides(self, root: str) -> list[dict[str, str]]:
        """The footer's links: every guide but the methodology (linked on its own)."""
        return [
            {"href": f"{root}{g.address}index.html", "title": g.title}
            for g in self.guides_by_name.values()
            if not g.is_methodology
        ]

    def not_found_page(self) -> bytes | None:
        context = {**self._common(self.site_url or ""), "canonical": None}
        return self.render("404.html", context)

    def sitemap(self, slugs: Sequence[str]) -> bytes | None:
        if not self.site_url:
            return None
        guides = [g.address for g in self.guides_by_name.values() if g.is_methodology]
        urls = ["", *guides, *(f"{s}/" for s in slugs)]
        context = {"urls": [self.site_url + u for u in urls], "lastmod": self.built}
        return self.render("sitemap.xml", context)

    def robots(self) -> bytes:
        lines = ["User-agent: *", "Allow: /"]
        if self.site_url:
            lines.append(f"Sitemap: {self.site_url}sitemap.xml")
        return ("\n".join(lines) + "\n").encode()

    def assets(self) -> dict[str, bytes]:
        """The theme's assets (a project's own replacing the default's) and the chart library."""
        files = {}
        for name, path in self.project.asset_files().items():
            folder = path.parents[len(PurePosixPath(name).parts) - 1]  # the theme's assets/
            content = read_bytes(path, f"templates/assets/{name}", self.log, root=folder)
            if content is not None:
                files[f"assets/{name}"] = content
        for name, vendored in PLOTLY_ASSETS.items():
            files[f"assets/{name}"] = (PLOTLY_FOLDER / vendored).read_bytes()
        return files


def page_data(comparison: ComparisonResult) -> EncodedJSON:
    """What the page script needs to re-interpolate and redraw: knots and constants per sequence.

    Knots carry the interactivity and then the curve quantities the shown metrics read."""
    quantities, quantities_json, table, table_json = _SHOWN.get(metrics.SHOWN, _shown_metrics)
    sequences = EncodedJSON(
        [(s.sequence, seq, seq.text) for s in comparison.sequences for seq in [_sequence_data(s, quantities)]]
    )
    return EncodedJSON(
        [
            ("slug", comparison.slug, None),
            ("labels", [s.label for s in comparison.sides], None),
            ("tie", TIE_TOLERANCE, None),
            ("sparse_ratio", SPARSE_RATIO, None),
            ("metrics", table, table_json),
            ("quantities", quantities, quantities_json),
            ("default_sequence", comparison.default_sequence, None),
            ("sequences", sequences, sequences.text),
        ]
    )


def _shown_metrics(shown: Sequence[Metric]) -> tuple[list[str], str, list[dict[str, object]], str]:
    """The shown metrics' curve quantities and table for the page script, with their JSON."""
    quantities, table = metrics.shown_quantities(), metrics.page_table(shown)
    return quantities, script_json_text(quantities), table, script_json_text(table)


# The same for every page while the registry is the same object: made once a process
_SHOWN: IdentityMemo[Sequence[Metric], tuple[list[str], str, list[dict[str, object]], str]] = IdentityMemo(4)


def _sequence_data(sequence: SequenceResult, quantities: list[str]) -> EncodedJSON:
    sides = [_side_data(side, quantities) for side in sequence.sides]
    return EncodedJSON(
        [
            ("targets", sequence.targets, None),
            ("band", [sequence.band.lo, sequence.band.hi] if sequence.band.overlap else None, None),
            ("sides", sides, "[" + ",".join(side.text for side in sides) + "]"),
        ]
    )


def _side_data(side: SideResult, quantities: list[str]) -> EncodedJSON:
    """A side's knots (interactivity, then the curve quantities the shown metrics read), whether
    each stretch is one deployment, the knots' GPU counts and the side's constants."""
    knots, knots_json, gpus, gpus_json = _KNOTS.get(
        [*quantities, *side.frontier], lambda _: _knots(side.frontier, quantities)
    )
    return EncodedJSON(
        [
            ("knots", knots, knots_json),
            ("joins", side.concurrency_joins, None),
            ("gpus", gpus, gpus_json),
            *((key, value, None) for key, value in side.constants.values().items()),
        ]
    )


def _knots(
    frontier: Sequence[PointSummary], quantities: list[str]
) -> tuple[list[list[float]], str, list[int | None], str]:
    attributes = [metrics.CURVE_QUANTITIES[q] for q in quantities]
    knots = [[k.interactivity, *(getattr(k, a) for a in attributes)] for k in frontier]
    gpus = [k.gpu_count for k in frontier]
    return knots, script_json_text(knots), gpus, script_json_text(gpus)


# A side's knots and GPU counts with their JSON, once a process for the very same frontier
_KNOTS: SequenceMemo[Any, tuple[list[list[float]], str, list[int | None], str]] = SequenceMemo(512)


@dataclass(frozen=True)
class PageHead:
    """What other pages need of a page: its address, title, model, GPUs and sequences."""

    slug: str
    title: str
    model: str
    hardware: tuple[str, ...]
    sequences: tuple[str, ...]

    @classmethod
    def of(cls, comparison: ComparisonResult) -> PageHead:
        return cls(
            comparison.slug,
            comparison.title,
            comparison.model,
            tuple(comparison.hardware),
            tuple(s.sequence for s in comparison.sequences),
        )


def related_links(heads: Sequence[PageHead]) -> dict[str, list[dict[str, str]]]:
    """Links from each page to the others on the same model and GPU (in the order given), and to
    its other sequences. Pages are looked up by (model, GPU), so the cost grows with the number
    of pages times the pages each one links to, not with the square of the site."""
    order = {head.slug: n for n, head in enumerate(heads)}
    sharing: dict[tuple[str, str], list[PageHead]] = {}
    for head in heads:
        for hardware in dict.fromkeys(head.hardware):
            sharing.setdefault((head.model, hardware), []).append(head)
    links = {}
    for head in heads:
        found = [
            {"href": f"index.html?seq={sequence}", "text": f"This comparison at {sequence}"}
            for sequence in head.sequences[1:]
        ]
        others = {o.slug: o for h in head.hardware for o in sharing[(head.model, h)] if o.slug != head.slug}
        for other in sorted(others.values(), key=lambda o: order[o.slug]):
            found.append({"href": f"../{page_url(other.slug)}", "text": other.title})
        links[head.slug] = found
    return links


# -- page assembly --------------------------------------------------------------------------------


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
    }


def page_html(slug: str) -> str:
    """Where a page's HTML is, (its related links filled in after every page is made: pipeline.py)."""
    return f"{slug}/index.html"


def render_page(renderer: SiteRenderer, page: PageSource) -> tuple[dict[str, bytes], Narrative]:
    """The files of one comparison page (the HTML missing if its template failed; its related
    section a slot)."""
    comparison = page.comparison
    narrative = renderer.narrative(comparison)
    prefix = f"{comparison.slug}/"
    files = {
        prefix + "comparison.json": comparison_json(comparison),
        prefix + "table.csv": table_csv(comparison),
        prefix + "points.csv": points_csv(comparison),
    }
    accuracy = accuracy_csv(comparison)
    if accuracy is not None:
        files[prefix + "accuracy.csv"] = accuracy
    sweep = sweep_csv(comparison)
    if sweep is not None:
        files[prefix + "sweep.csv"] = sweep
    html = renderer.comparison_page(page, narrative)
    if html is not None:
        files[page_html(comparison.slug)] = html
    return dict(sorted(files.items())), narrative


def render_shared(
    renderer: SiteRenderer, slugs: Sequence[str], entries: Sequence[dict[str, Any]]
) -> list[tuple[Owner, dict[str, bytes]]]:
    """Files that list or serve every page, by owner: index, 404, robots, sitemap, guides, assets."""
    index = renderer.index_page(sorted(entries, key=lambda e: (e["kind"], e["group"], e["title"])))
    sitemap = renderer.sitemap(sorted(slugs))
    not_found = renderer.not_found_page()
    owned: list[tuple[Owner, dict[str, bytes]]] = [
        (Owner("the index page"), {"index.html": index} if index is not None else {}),
        (Owner("the 404 page"), {"404.html": not_found} if not_found is not None else {}),
        (Owner("robots.txt"), {"robots.txt": renderer.robots()}),
        (Owner("the sitemap"), {"sitemap.xml": sitemap} if sitemap is not None else {}),
        (Owner("the hosting marker"), {".nojekyll": b""}),
        (Owner("the theme's assets", "templates/assets/", group="theme"), renderer.assets()),
    ]
    for guide in renderer.guides_by_name.values():
        page = renderer.guide_page(guide)
        own = guide.source.parent == renderer.project.docs
        file = shown_path(guide.source) if own else f"docs/{guide.source.name}, packaged"
        owner = Owner("the guide", file, group="guides")
        owned.append((owner, {f"{guide.address}index.html": page} if page is not None else {}))
    return owned
