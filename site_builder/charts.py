"""Plotly figures for a comparison: one per (sequence, metric), as plain JSON-ready dicts.

Each side's frontier is drawn as the very spline the engine interpolates on (sampled densely,
knots included), so the chart and the table cannot disagree. Colours are roles (`meta.side`):
the page script paints them from the theme's CSS (`--side0`, `--side1`, `--fg`, `--grid`), so a
theme sets them once, for light and dark.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from site_builder import metrics
from site_builder.comparison_json import ComparisonResult, PointSummary, SequenceResult, SideResult
from site_builder.engine.spline import MonotoneSpline
from site_builder.metrics import Metric
from site_builder.numbers import fixed, grouped

SAMPLES = 64
Quantities = dict[str, float | None]  # a curve quantity's value by name (metrics.CURVE_QUANTITIES)
ValueOf = Callable[[Quantities], float | None]


def metric_function(metric: Metric, side: SideResult) -> ValueOf:
    """Curve quantities -> the metric's value for this side, by the registry's formula."""
    constants = side.constants.values()

    def value_of(quantities: Quantities) -> float | None:
        return metrics.evaluate(metric.formula, {**constants, **quantities})

    return value_of


def point_quantities(point: PointSummary) -> Quantities:
    values: Quantities = {}
    for name, attribute in metrics.CURVE_QUANTITIES.items():
        value = getattr(point, attribute)
        values[name] = None if value is None else float(value)
    return values


def sample_xs(knots: list[float]) -> list[float]:
    if len(knots) < 2:
        return list(knots)
    lo, hi = knots[0], knots[-1]
    even = [min(hi, max(lo, lo + (hi - lo) * i / (SAMPLES - 1))) for i in range(SAMPLES)]
    return sorted(set(even) | set(knots))


def hover(point: PointSummary, metric: Metric, value: float | None) -> str:
    shown = "n/a" if value is None else f"{grouped(fixed(value, metric.decimals))} {metric.unit}".strip()
    lines = [
        escape(point.configuration),
        f"concurrency {point.concurrency}" + (f" · {escape(point.date)}" if point.date else ""),
        f"{fixed(point.interactivity, 1)} tok/s/user · {shown}",
    ]
    if not point.on_frontier:
        lines.append("(not on the frontier)")
    return "<br>".join(lines)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


Curve = tuple[list[float], list[Quantities]]


def sample_curve(side: SideResult) -> Curve | None:
    """(x, curve quantities) densely along the side's frontier splines, knots included."""
    knots = side.frontier
    if not knots:
        return None
    xs = [k.interactivity for k in knots]
    samples = sample_xs(xs)
    columns: dict[str, list[float | None]] = {}
    for name in metrics.CURVE_QUANTITIES:
        ys = [point_quantities(k)[name] for k in knots]
        known = [y for y in ys if y is not None]
        columns[name] = (
            MonotoneSpline(xs, known).values(samples) if len(known) == len(ys) else [None] * len(samples)
        )
    return samples, [{name: column[i] for name, column in columns.items()} for i in range(len(samples))]


def side_traces(side: SideResult, index: int, metric: Metric, curve: Curve | None) -> list[dict[str, Any]]:
    value_of = metric_function(metric, side)
    traces: list[dict[str, Any]] = []
    if curve is not None:
        samples, quantities = curve
        curve_x = [round(x, 4) for x in samples]
        curve_y = [_round(value_of(q)) for q in quantities]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{side.label} frontier",
                "legendgroup": side.label,
                "x": curve_x,
                "y": curve_y,
                "line": {"width": 2.5},
                "hovertemplate": f"{escape(side.label)} frontier: %{{x:.1f}} tok/s/user"
                f"<br>%{{y:,.{metric.decimals}f}}<extra></extra>",
                "meta": {"role": "curve", "side": index},
            }
        )
    points = side.points
    values = [value_of(point_quantities(p)) for p in points]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": f"{side.label} measured",
            "legendgroup": side.label,
            "x": [p.interactivity for p in points],
            "y": [_round(v, 6) for v in values],
            "marker": {
                "size": [9 if p.on_frontier else 7 for p in points],
                "opacity": [1.0 if p.on_frontier else 0.35 for p in points],
                "line": {"width": 1, "color": "#ffffff"},
            },
            "hovertext": [hover(p, metric, v) for p, v in zip(points, values, strict=True)],
            "hoverinfo": "text",
            "meta": {"role": "points", "side": index},
        }
    )
    return traces


def target_trace(sequence: SequenceResult, side_index: int, metric: Metric) -> dict[str, Any] | None:
    side = sequence.sides[side_index]
    xs: list[float] = []
    ys: list[float | None] = []
    texts = []
    for target in sequence.results:
        m = target.sides[side_index]
        if not m.measured:
            continue
        value = m.value(metric.key)
        xs.append(target.interactivity)
        ys.append(value)
        texts.append(f"{escape(side.label)} at {target.interactivity:g} tok/s/user")
    if not xs:
        return None
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{side.label} at targets",
        "legendgroup": side.label,
        "showlegend": False,
        "x": xs,
        "y": ys,
        "marker": {
            "symbol": "diamond",
            "size": 12,
            "line": {"width": 2, "color": "#000000"},
        },
        "hovertext": texts,
        "hoverinfo": "text+y",
        "meta": {"role": "targets", "side": side_index},
    }


def figure(
    sequence: SequenceResult, metric: Metric, curves: list[Curve | None] | None = None
) -> dict[str, Any]:
    curves = curves if curves is not None else [sample_curve(side) for side in sequence.sides]
    data: list[dict[str, Any]] = []
    for i, (side, curve) in enumerate(zip(sequence.sides, curves, strict=True)):
        data.extend(side_traces(side, i, metric, curve))
    for i in range(len(sequence.sides)):
        trace = target_trace(sequence, i, metric)
        if trace is not None:
            data.append(trace)
    better = f" ({metric.better} is better)" if metric.better else ""
    shapes = []
    if sequence.band.overlap and sequence.band.lo is not None and sequence.band.hi is not None:
        shapes.append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": sequence.band.lo,
                "x1": sequence.band.hi,
                "y0": 0,
                "y1": 1,
                "line": {"width": 0},
                "fillcolor": "rgba(128,128,128,0.10)",
                "layer": "below",
            }
        )
    layout = {
        "xaxis": {"title": {"text": "Interactivity (tok/s/user)"}, "zeroline": False},
        "yaxis": {"title": {"text": metric.axis + better}, "rangemode": "tozero"},
        "legend": {"orientation": "h", "x": 0, "y": 1.12},
        "margin": {"l": 64, "r": 16, "t": 48, "b": 56},
        "hovermode": "closest",
        "shapes": shapes,
    }
    return {"data": data, "layout": layout}


def _figures(sequence: SequenceResult) -> dict[str, dict[str, Any]]:
    curves = [sample_curve(side) for side in sequence.sides]
    return {m.key: figure(sequence, m, curves) for m in metrics.SHOWN}


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
            labels.append(f"{task.task_name} · {side.label}")
            for number, run in enumerate(side.runs, 1):
                ci = ""
                if run.ci_lo is not None and run.ci_hi is not None:
                    ci = f" (95% CI {fixed(run.ci_lo * 100, 1)}–{fixed(run.ci_hi * 100, 1)})"
                data.append(
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "x": [_percent(run.score)],
                        "y": [round(row + RUN_BAND * number / (len(side.runs) + 1), 4)],
                        "error_x": {**_errors(run.score, run.ci_lo, run.ci_hi), "thickness": 1, "width": 2},
                        "marker": {"size": 6, "symbol": "circle-open" if run.pooled else "x-thin-open"},
                        "opacity": 0.6 if run.pooled else 0.35,
                        "hovertext": [
                            f"{escape(side.label)} run: {fixed(run.score * 100, 1)}%{ci}<br>"
                            f"{escape(run.setup or 'setup not recorded')}<br>"
                            f"{escape(run.date or 'date not recorded')}"
                            + ("" if run.pooled else "<br>left out of the pooled score")
                        ],
                        "hoverinfo": "text",
                        "showlegend": False,
                        "meta": {"role": "run", "side": index},
                    }
                )
            if side.score is not None:
                data.append(
                    {
                        "type": "scatter",
                        "mode": "markers",
                        "name": side.label,
                        "x": [_percent(side.score)],
                        "y": [row],
                        "error_x": _errors(side.score, side.ci_lo, side.ci_hi),
                        "marker": {"size": 13, "symbol": "diamond"},
                        "hovertext": [
                            f"{escape(side.label)}, {escape(task.task_name)}: {fixed(side.score * 100, 1)}% "
                            f"(95% CI {fixed((side.ci_lo or 0) * 100, 1)}–"
                            f"{fixed((side.ci_hi or 0) * 100, 1)}), "
                            f"{side.pooled_runs} run{'s' if side.pooled_runs != 1 else ''}"
                        ],
                        "hoverinfo": "text",
                        "showlegend": False,
                        "meta": {"role": "pooled", "side": index},
                    }
                )
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


def sweep_figures(comparison: ComparisonResult) -> list[dict[str, Any]]:
    """Per workload: each side's output tok/s against concurrency (log₂ axis, tested points joined,
    nothing between them claimed), and where the SLA section is on, each side's largest
    concurrency within the limit as a dashed line."""
    sweep = comparison.sweep
    if sweep is None:
        return []
    labels = [s.label for s in comparison.sides]
    figures = []
    for w in sweep.workloads:
        data: list[dict[str, Any]] = []
        concurrencies: set[int] = set()
        for index, label in enumerate(labels):
            pairs = [p for p in w.output_throughput if p.values[index] is not None]
            concurrencies |= {p.concurrency for p in pairs}
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": label,
                    "x": [p.concurrency for p in pairs],
                    "y": [p.values[index] for p in pairs],
                    "hovertext": [
                        f"{escape(label)}: {grouped(fixed(p.values[index] or 0, 0))} tok/s "
                        f"at concurrency {p.concurrency}"
                        for p in pairs
                    ],
                    "hoverinfo": "text",
                    "meta": {"role": "curve", "side": index},
                }
            )
        shapes = []
        if w.sla is not None:
            for index, result in enumerate(w.sla):
                if result.concurrency is not None:
                    shapes.append(
                        {
                            "type": "line",
                            "xref": "x",
                            "yref": "paper",
                            "x0": result.concurrency,
                            "x1": result.concurrency,
                            "y0": 0,
                            "y1": 1,
                            "line": {"dash": "dash", "width": 2},
                            "meta": {"side": index},
                        }
                    )
        ticks = sorted(concurrencies)
        layout = {
            "xaxis": {
                "title": {"text": "Concurrent requests (log₂ scale)"},
                "type": "log",
                "tickvals": ticks,
                "ticktext": [str(t) for t in ticks],
            },
            "yaxis": {"title": {"text": "Output tok/s (whole deployment)"}, "rangemode": "tozero"},
            "shapes": shapes,
            "margin": {"l": 64, "r": 16, "t": 16, "b": 56},
            "height": 360,
            "hovermode": "closest",
            "showlegend": True,
        }
        figures.append({"data": data, "layout": layout})
    return figures


def chart_data(comparison: ComparisonResult) -> dict[str, Any]:
    """Everything the page's charts need: figures by sequence and metric, plus the metric names."""
    return {
        "metrics": [{"key": m.key, "label": m.label} for m in metrics.SHOWN],
        "sequences": [s.sequence for s in comparison.sequences],
        "default_sequence": comparison.default_sequence,
        "figures": {s.sequence: _figures(s) for s in comparison.sequences},
        "accuracy": accuracy_figure(comparison),
        "sweeps": sweep_figures(comparison),
    }
