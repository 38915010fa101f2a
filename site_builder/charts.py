"""Plotly figures for a comparison: one per (sequence, metric), as plain JSON-ready dicts.

Each side's frontier is drawn as the very spline the engine interpolates on (sampled densely,
knots included), so the chart and the table cannot disagree. Theme colours for text and grid are
applied in the browser (light or dark); the side colours read on both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

from site_builder.engine.spline import MonotoneSpline
from site_builder.models import AppliedConstants
from site_builder.results import ComparisonResult, PointSummary, SequenceResult, SideResult

SIDE_COLORS = ("#2f6fd6", "#e0701a")
SAMPLES = 64


@dataclass(frozen=True)
class Metric:
    """One metric as the page shows it: in the table (attribute, prefix, decimals) and the chart."""

    key: str
    attribute: str  # its field in MetricsAtTarget
    label: str
    row_title: str
    axis: str
    unit: str
    better: str  # "higher", "lower", or "" where neither is better
    decimals: int
    prefix: str = ""


METRICS = (
    Metric(
        "throughput",
        "throughput_per_gpu",
        "Throughput per GPU",
        "Throughput (tok/s/GPU)",
        "Throughput (tok/s/GPU)",
        "tok/s/GPU",
        "higher",
        1,
    ),
    Metric(
        "cost",
        "cost_per_million_tokens",
        "Cost per million tokens",
        "Cost ($ per million tokens)",
        "Cost (USD per million tokens)",
        "$/M tok",
        "lower",
        3,
        "$",
    ),
    Metric(
        "per_mw",
        "tokens_per_sec_per_mw",
        "Tokens per second per MW",
        "tok/s per MW",
        "tok/s per MW (all-in power)",
        "tok/s/MW",
        "higher",
        0,
    ),
    Metric(
        "concurrency",
        "concurrency",
        "Concurrency",
        "Concurrency",
        "Concurrency (whole deployment)",
        "",
        "",
        0,
        "~",
    ),
)


def metric_function(key: str, constants: AppliedConstants) -> Callable[[float, float], float | None]:
    """(throughput, concurrency) -> the metric's value; cost and energy derive from throughput."""
    if key == "throughput":
        return lambda tput, conc: tput
    if key == "cost":
        usd = constants.usd_per_gpu_hour
        return lambda tput, conc: usd * 1e6 / (3600 * tput) if usd is not None else None
    if key == "per_mw":
        watts = constants.watts_all_in
        return lambda tput, conc: tput * 1e6 / watts if watts is not None else None
    return lambda tput, conc: conc


def sample_xs(knots: list[float]) -> list[float]:
    if len(knots) < 2:
        return list(knots)
    lo, hi = knots[0], knots[-1]
    even = [min(hi, max(lo, lo + (hi - lo) * i / (SAMPLES - 1))) for i in range(SAMPLES)]
    return sorted(set(even) | set(knots))


def hover(point: PointSummary, metric: Metric, value: float | None) -> str:
    shown = "n/a" if value is None else f"{value:,.{metric.decimals}f} {metric.unit}".strip()
    lines = [
        escape(point.configuration),
        f"concurrency {point.concurrency}" + (f" · {escape(point.date)}" if point.date else ""),
        f"{point.interactivity:.1f} tok/s/user · {shown}",
    ]
    if not point.on_frontier:
        lines.append("(not on the frontier)")
    return "<br>".join(lines)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


Curve = tuple[list[float], list[float], list[float]]


def sample_curve(side: SideResult) -> Curve | None:
    """(x, throughput, concurrency) densely along the side's frontier spline, knots included."""
    knots = side.frontier
    if not knots:
        return None
    xs = [k.interactivity for k in knots]
    samples = sample_xs(xs)
    throughput = MonotoneSpline(xs, [k.throughput_per_gpu for k in knots]).values(samples)
    concurrency = MonotoneSpline(xs, [float(k.concurrency) for k in knots]).values(samples)
    return (
        samples,
        [float(v) for v in throughput if v is not None],
        [float(v) for v in concurrency if v is not None],
    )


def side_traces(side: SideResult, index: int, metric: Metric, curve: Curve | None) -> list[dict[str, Any]]:
    color = SIDE_COLORS[index % len(SIDE_COLORS)]
    value_of = metric_function(metric.key, side.constants)
    traces: list[dict[str, Any]] = []
    if curve is not None:
        samples, throughput, concurrency = curve
        curve_x = [round(x, 4) for x in samples]
        curve_y = [_round(value_of(t, c)) for t, c in zip(throughput, concurrency, strict=True)]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": f"{side.label} frontier",
                "legendgroup": side.label,
                "x": curve_x,
                "y": curve_y,
                "line": {"color": color, "width": 2.5},
                "hovertemplate": f"{escape(side.label)} frontier: %{{x:.1f}} tok/s/user"
                f"<br>%{{y:,.{metric.decimals}f}}<extra></extra>",
            }
        )
    points = side.points
    values = [value_of(p.throughput_per_gpu, float(p.concurrency)) for p in points]
    traces.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": f"{side.label} measured",
            "legendgroup": side.label,
            "x": [p.interactivity for p in points],
            "y": [_round(v, 6) for v in values],
            "marker": {
                "color": color,
                "size": [9 if p.on_frontier else 7 for p in points],
                "opacity": [1.0 if p.on_frontier else 0.35 for p in points],
                "line": {"width": 1, "color": "#ffffff"},
            },
            "hovertext": [hover(p, metric, v) for p, v in zip(points, values, strict=True)],
            "hoverinfo": "text",
        }
    )
    return traces


def target_trace(sequence: SequenceResult, side_index: int, metric: Metric) -> dict[str, Any] | None:
    side = sequence.sides[side_index]
    value_of = metric_function(metric.key, side.constants)
    xs, ys, texts = [], [], []
    for target in sequence.results:
        m = target.sides[side_index]
        if not m.measured or m.throughput_per_gpu is None or m.concurrency_interpolated is None:
            continue
        value = value_of(m.throughput_per_gpu, m.concurrency_interpolated)
        if metric.key == "concurrency":
            value = m.concurrency
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
            "color": SIDE_COLORS[side_index % 2],
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
    return {m.key: figure(sequence, m, curves) for m in METRICS}


def chart_data(comparison: ComparisonResult) -> dict[str, Any]:
    """Everything the page's charts need: figures by sequence and metric, plus the metric names."""
    return {
        "metrics": [{"key": m.key, "label": m.label} for m in METRICS],
        "sequences": [s.sequence for s in comparison.sequences],
        "default_sequence": comparison.default_sequence,
        "figures": {s.sequence: _figures(s) for s in comparison.sequences},
    }
