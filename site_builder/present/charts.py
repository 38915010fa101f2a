"""What the page's charts need from the build: the measured points, once, and what only Python
decides (titles, hover formats, trace names, layout); the page script draws the rest.

The page script (templates/assets/site.js) samples each side's frontier with the engine's own
spline (templates/assets/engine.js `curveSamples`, the Python engine's arithmetic; see
tests/test_engine_js.py) and builds the Plotly traces, so the chart and the table cannot disagree
and a page carries each number once. Colours are the theme's (`--side0`, `--side1`, `--fg`,
`--grid`, `--bg` in site.css), read by the table and the chart alike, in light and dark.
The accuracy and sweep charts are small and drawn as built (figures below).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from site_builder import metrics
from site_builder.formatting import fixed, grouped
from site_builder.metrics import Metric
from site_builder.present.latency import LATENCY_WORDS
from site_builder.present.narrate import plural, side_labels
from site_builder.present.result import ShownPoints
from site_builder.present.schema import (
    AccuracyRun,
    AccuracySide,
    AccuracyTask,
    ComparisonResult,
    LatencyTable,
    SweepWorkload,
)

INTERACTIVITY_HOVER = "%{x:,.1f} tok/s/user"  # d3-format, digits grouped
AXIS_TITLE = "Interactivity (tok/s/user)"


def plotly_text(text: str) -> str:
    """A string from data or a stub as Plotly shows it literally: Plotly reads tags (`<a href>`,
    `<b>`, `<br>`, `<span style>`…) and entities in every text it draws (legend, tick labels,
    hover, titles), so `&`, `<` and `>` become entities, which it turns back into the characters.
    (Only these three: Plotly decodes no `&quot;`, so a quote is left as it is.) The page
    script's `plotlyText` is the same rule for what it builds in the browser."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def value_hover(metric: Metric) -> str:
    """The metric's value in a hover (a Plotly hovertemplate part): grouped digits and its unit."""
    number = f"%{{y:,.{metric.decimals}f}}"
    return f"{number} {metric.unit}" if metric.unit else f"{metric.label.lower()} {number}"


def axis_title(metric: Metric) -> str:
    better = f" ({metric.better} is better)" if metric.better else ""
    return metric.axis + better


class StringTable:
    """Each distinct text (configuration, date) once; rows refer to it by index."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._index: dict[str | None, int | None] = {None: None}  # None: no text

    def index(self, text: str | None) -> int | None:
        if text not in self._index:
            self._index[text] = len(self.texts)
            self.texts.append(text)  # type: ignore[arg-type]  # None is always in the index
        return self._index[text]

    def indices(self, texts: Sequence[str | None]) -> list[int | None]:
        """`index` of each text, in one pass a distinct text (a side's points share a few)."""
        for text in dict.fromkeys(texts):
            self.index(text)
        return list(map(self._index.__getitem__, texts))


MARKER_DIGITS = 6  # significant digits of a marker's position: a millionth of the axis, far below a pixel


def marker_value(value: float | int | None) -> float | int | None:
    """A measured value as a marker needs it: 6 significant digits (the full 17 of a float add
    bytes to every page and nothing to the picture; the curves come from the full knots), a
    whole float written as an integer (the page script reads both alike)."""
    if not isinstance(value, float):
        return value
    rounded = float(f"{value:.{MARKER_DIGITS}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


QUANTITY_ATTRIBUTES = {"interactivity": "interactivity", "gpus": "gpu_count"}  # a point's other columns


def point_columns(quantities: list[str]) -> list[str]:
    """The columns an off-frontier point carries: interactivity and the curve quantities, except
    concurrency per GPU, which is concurrency ÷ GPUs (points.py) and which the page script
    divides out again from the point's GPU count: a column of a few GPU counts packs to almost
    nothing, one of ratios does not."""
    if "users_per_gpu" in quantities and "concurrency" in quantities:
        return ["interactivity", *(q for q in quantities if q != "users_per_gpu"), "gpus"]
    return ["interactivity", *quantities]


def script_json_text(value: Any) -> str:
    """Compact JSON as the page's scripts receive it (before `render.json_for_script` makes it
    safe inside <script>)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def side_points(shown: ShownPoints, columns: list[str], strings: StringTable) -> dict[str, Any]:
    """One side's measured points, column by column (a column of similar numbers packs better):
    per point in the side's order, on the frontier 0/1 and its configuration and date as indices
    into the page's string table; the values (`columns`) only for the points off the frontier,
    since those on it are the frontier's knots, in the same order (both sorted by
    interactivity), which the page data already carries in full."""
    rows = shown.rows
    off = [n for n, on in enumerate(shown.on_frontier) if not on]
    attribute_of = {**metrics.CURVE_QUANTITIES, **QUANTITY_ATTRIBUTES}
    attributes = [attribute_of[c] for c in columns]
    off_rows = rows.records(off, attributes)
    return {
        "frontier": [int(on) for on in shown.on_frontier],
        "configuration": strings.indices(rows.column("configuration").tolist()),
        "date": strings.indices(rows.column("date").tolist()),
        "off": [[marker_value(row[a]) for row in off_rows] for a in attributes] if off else [],
    }


def trace_names(label: str) -> dict[str, str]:
    """A side's trace names (legend and hover), by the role the script gives each trace."""
    return {"curve": f"{label} frontier", "points": f"{label} measured", "targets": f"{label} at targets"}


def base_layout() -> dict[str, Any]:
    """The interactivity chart's layout; the script adds the metric's axis title, the band,
    the axis types the reader picks and the theme's colours."""
    return {
        "xaxis": {"title": {"text": AXIS_TITLE}, "zeroline": False},
        "yaxis": {"rangemode": "tozero"},
        "legend": {"orientation": "h", "x": 0, "y": 1.12},
        "margin": {"l": 76, "r": 16, "t": 48, "b": 56},
        "hovermode": "closest",
    }


def _percent(value: float) -> float:
    return round(value * 100, 4)


def _errors(value: float, lo: float | None, hi: float | None) -> dict[str, Any]:
    if lo is None or hi is None:
        return {"visible": False}
    return {
        "type": "data",
        "symmetric": False,
        "array": [_percent(hi - value)],
        "arrayminus": [_percent(value - lo)],
        "thickness": 1.5,
        "width": 4,
    }


RUN_BAND = 0.42  # how far below its side's row a side's runs spread (rows are 1 apart)

# A run's marker: pooled into its side's score, or left out
RUN_STYLES = {
    True: {"symbol": "circle-open", "opacity": 0.6, "note": ""},
    False: {"symbol": "x-thin-open", "opacity": 0.35, "note": "<br>left out of the pooled score"},
}


def _run_marker(label: str, run: AccuracyRun, side: int, y: float) -> dict[str, Any]:
    """One evaluation run of a side, with its own interval, as a small marker at `y`."""
    style = RUN_STYLES[run.pooled]
    return {
        "type": "scatter",
        "mode": "markers",
        "x": [_percent(run.score)],
        "y": [round(y, 4)],
        "error_x": {**_errors(run.score, run.ci_lo, run.ci_hi), "thickness": 1, "width": 2},
        "marker": {"size": 6, "symbol": style["symbol"]},
        "opacity": style["opacity"],
        "hovertext": [
            f"{plotly_text(label)} run: {fixed(run.score * 100, 1)}%"
            f"{_hover_interval(run.ci_lo, run.ci_hi)}<br>"
            f"{plotly_text(run.setup or 'setup not recorded')}<br>"
            f"{plotly_text(run.date or 'date not recorded')}{style['note']}"
        ],
        "hoverinfo": "text",
        "showlegend": False,
        "meta": {"role": "run", "side": side},
    }


def _hover_interval(lo: float | None, hi: float | None) -> str:
    """' (95% CI 94.1–96.0)' in a hover, or nothing where there is no interval."""
    if lo is None or hi is None:
        return ""
    return f" (95% CI {fixed(lo * 100, 1)}–{fixed(hi * 100, 1)})"


def _pooled_marker(
    task: AccuracyTask, side: AccuracySide, score: float, index: int, row: int
) -> dict[str, Any]:
    """A side's pooled score on a task, with its interval, as the row's large marker."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": plotly_text(side.label),
        "x": [_percent(score)],
        "y": [row],
        "error_x": _errors(score, side.ci_lo, side.ci_hi),
        "marker": {"size": 13, "symbol": "diamond"},
        "hovertext": [
            f"{plotly_text(side.label)}, {plotly_text(task.task_name)}: {fixed(score * 100, 1)}%"
            f"{_hover_interval(side.ci_lo, side.ci_hi)}, "
            f"{side.pooled_runs} {plural(side.pooled_runs, 'run', 'runs')}"
        ],
        "hoverinfo": "text",
        "showlegend": False,
        "meta": {"role": "pooled", "side": index},
    }


def accuracy_figure(comparison: ComparisonResult) -> dict[str, Any] | None:
    """Scores with their 95% intervals: a row per task and side with the pooled score, and the
    side's runs spread just below it, each with its own interval."""
    accuracy = comparison.accuracy
    if accuracy is None:
        return None
    data: list[dict[str, Any]] = []
    labels: list[str] = []
    for task in accuracy.tasks:
        for index, side in enumerate(task.sides):
            row = len(labels)
            labels.append(plotly_text(f"{task.task_name} · {side.label}"))
            data.extend(
                _run_marker(side.label, run, index, row + RUN_BAND * number / (len(side.runs) + 1))
                for number, run in enumerate(side.runs, 1)
            )
            if side.score is not None:
                data.append(_pooled_marker(task, side, side.score, index, row))
    layout = {
        "xaxis": {"title": {"text": "Score (%), 95% confidence interval"}, "zeroline": False},
        "yaxis": {
            "tickvals": list(range(len(labels))),
            "ticktext": labels,
            "range": [len(labels) - 0.4, -0.4],
            "zeroline": False,
            "automargin": True,
        },
        "margin": {"l": 16, "r": 16, "t": 16, "b": 56},
        "height": 140 + 70 * len(labels),
        "hovermode": "closest",
        "showlegend": False,
    }
    return {"data": data, "layout": layout}


def _sweep_curve(w: SweepWorkload, index: int, label: str) -> dict[str, Any]:
    """One side's output tok/s at each concurrency it tested on a workload, the points joined."""
    x, y, hover = [], [], []
    for p in w.output_throughput:
        value = p.values[index]
        if value is not None:  # nothing drawn where the side did not test
            x.append(p.concurrency)
            y.append(value)
            tok_s = grouped(fixed(value, 0))
            hover.append(f"{plotly_text(label)}: {tok_s} tok/s at concurrency {p.concurrency}")
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": plotly_text(label),
        "x": x,
        "y": y,
        "hovertext": hover,
        "hoverinfo": "text",
        "meta": {"role": "curve", "side": index},
    }


def _sla_line(index: int, concurrency: int) -> dict[str, Any]:
    """A side's largest concurrency within the SLA limits, as a dashed line."""
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": concurrency,
        "x1": concurrency,
        "y0": 0,
        "y1": 1,
        "line": {"dash": "dash", "width": 2},
        "meta": {"side": index},
    }


def sweep_figures(comparison: ComparisonResult) -> list[dict[str, Any]]:
    """Per workload: each side's output tok/s against concurrency (log₂ axis, tested points joined,
    nothing between them claimed), and where the SLA section is on, each side's largest
    concurrency within the limit as a dashed line."""
    sweep = comparison.sweep
    if sweep is None:
        return []
    labels = side_labels(comparison)
    figures = []
    for w in sweep.workloads:
        data = [_sweep_curve(w, index, label) for index, label in enumerate(labels)]
        ticks = sorted({concurrency for curve in data for concurrency in curve["x"]})
        shapes = [
            _sla_line(index, result.concurrency)
            for index, result in enumerate(w.sla or ())
            if result.concurrency is not None
        ]
        layout = {
            "xaxis": {
                "title": {"text": "Concurrent requests (log₂ scale)"},
                "type": "log",
                "tickvals": ticks,
                "ticktext": [str(t) for t in ticks],
            },
            "yaxis": {"title": {"text": "Output tok/s (whole deployment)"}, "rangemode": "tozero"},
            "shapes": shapes,
            "margin": {"l": 76, "r": 16, "t": 16, "b": 56},
            "height": 360,
            "hovermode": "closest",
            "showlegend": True,
        }
        figures.append({"data": data, "layout": layout})
    return figures


# how each statistic is drawn, so the three read apart without colour (each side has its colour)
STATISTIC_STYLES = {
    "median": {"dash": "solid", "symbol": "circle"},
    "p90": {"dash": "dash", "symbol": "square"},
    "p99": {"dash": "dot", "symbol": "diamond"},
}


def _latency_trace(table: LatencyTable, side: int, label: str, statistic: str) -> dict[str, Any] | None:
    """One side's values of one statistic at each concurrency that measured it, the points joined,
    each hover naming the configuration that speaks for its concurrency and its tok/s/GPU; None
    where it measured none (the section says so in words, nothing is drawn)."""
    x, y, configurations, throughputs = [], [], [], []
    for row in table.rows:
        cell = row.sides[side]
        value = cell.values.get(statistic) if cell else None
        if cell is None or value is None:
            continue
        x.append(row.concurrency)
        y.append(marker_value(value))
        configurations.append(plotly_text(cell.configuration))
        throughputs.append(marker_value(cell.throughput_per_gpu))
    if not x:
        return None
    style = STATISTIC_STYLES[statistic]
    shown = f"%{{y:,.{table.decimals}f}} {table.unit} at concurrency %{{x}}"
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": plotly_text(f"{label} {statistic}"),
        "x": x,
        "y": y,
        "text": configurations,
        "customdata": throughputs,
        "hovertemplate": f"{plotly_text(label)}: {statistic} {plotly_text(table.label)} {shown}<br>"
        "%{text}, %{customdata:,.0f} tok/s/GPU<extra></extra>",
        "line": {"dash": style["dash"], "width": 2},
        "marker": {"symbol": style["symbol"], "size": 7},
        "meta": {"role": "curve", "side": side, "statistic": statistic},
    }


def _latency_figure(table: LatencyTable, labels: Sequence[str], sequence: str) -> dict[str, Any]:
    """One workload's metric: each side's median, p90 and p99 against concurrency (log₂ axis,
    log latency axis: a p99 can be 100× the median), tested points joined, a statistic drawn
    only where measured."""
    traces = (
        _latency_trace(table, side, label, statistic)
        for side, label in enumerate(labels)
        for statistic in table.statistics
    )
    data = [t for t in traces if t is not None]
    ticks = sorted({x for trace in data for x in trace["x"]})
    axis = f"{plotly_text(table.label)} ({table.unit}, log scale), lower is better"
    layout = {
        "xaxis": {
            "title": {"text": "Concurrent requests (log₂ scale)"},
            "type": "log",
            "tickvals": ticks,
            "ticktext": [str(t) for t in ticks],
        },
        "yaxis": {"title": {"text": axis}, "type": "log", "dtick": "D2"},  # labels at 1, 2 and 5 a decade
        "margin": {"l": 76, "r": 16, "t": 16, "b": 56},
        "height": 360,
        "hovermode": "closest",
        "showlegend": True,
    }
    # what the page script recomputes the traces from for a reader's filters (engine.js latencySeries)
    shown = {"sequence": sequence, "metric": table.metric, "scale": LATENCY_WORDS[table.metric].per_second}
    return {"data": data, "layout": layout, "view": shown}


def latency_figures(comparison: ComparisonResult) -> list[dict[str, Any]]:
    """The latency view's chart per workload and metric, in its tables' order."""
    labels = side_labels(comparison)
    workloads = comparison.latency.workloads if comparison.latency else []
    return [_latency_figure(table, labels, w.sequence) for w in workloads for table in w.tables]


def chart_data(comparison: ComparisonResult, shown: Sequence[Sequence[ShownPoints]]) -> dict[str, Any]:
    """Everything the page's charts need beyond the page data (knots, constants, targets, band)."""
    columns = point_columns(metrics.shown_quantities())
    strings = StringTable()
    points = {
        s.sequence: [side_points(side, columns, strings) for side in sides]
        for s, sides in zip(comparison.sequences, shown, strict=True)
    }
    return {
        "metrics": [
            {"key": m.key, "label": m.label, "axis": axis_title(m), "hover": value_hover(m)}
            for m in metrics.SHOWN
        ],
        "names": [trace_names(s.label) for s in comparison.sides],
        "x_hover": INTERACTIVITY_HOVER,
        "layout": base_layout(),
        "title": comparison.title,
        "point_columns": columns,
        "points": points,
        "strings": strings.texts,
        "accuracy": accuracy_figure(comparison),
        "sweeps": sweep_figures(comparison),
        "latency": latency_figures(comparison),
    }
