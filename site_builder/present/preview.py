"""A comparison page's preview image (its `og:image`) as a Plotly figure: the chart the page opens
on — its default workload, throughput per GPU against interactivity, each side's frontier,
measured points and values at the targets, the band both sides measured — under the page's title,
with the "Example data" mark where the page carries it. The figure is plain JSON; the build draws
it to a PNG in a headless browser (render/images.py) only with `--preview-images`.

The page draws its own chart in the browser (templates/assets/site.js); this is the same picture
at one fixed size, in the default theme's light colours, for sites that show a link's image.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from site_builder import metrics
from site_builder.engine.spline import MonotoneSpline
from site_builder.present.charts import AXIS_TITLE, axis_title, base_layout, plotly_text, trace_names
from site_builder.present.result import ShownPoints
from site_builder.present.schema import EXAMPLE_MARK, ComparisonResult, SequenceResult

WIDTH, HEIGHT = 1200, 630  # pixels: the size sites that show a link's image expect (1.91:1)
METRIC = metrics.BY_KEY["throughput"]  # the metric the page's chart opens on (site.js DEFAULT_METRIC)
CURVE_SAMPLES = 64  # even steps along a frontier, besides its knots (engine.js CURVE_SAMPLES)
TITLE_LINE = 70  # characters in a line of the title at its size; a longer title wraps
TITLE_LINES = 2  # at most; a longer title is cut with an ellipsis (the page has it whole)
EXAMPLE_WORDS = f"{EXAMPLE_MARK}: not measurements"
# The default theme's light colours (templates/assets/site.css: --bg, --fg, --grid, --side0,
# --side1; tests/test_preview.py holds them equal).
COLOURS = {
    "bg": "#ffffff",
    "fg": "#1b1f24",
    "grid": "rgba(0, 0, 0, 0.10)",
    "sides": ["#2a62c9", "#b45309"],
    "band": "rgba(128,128,128,0.14)",
    "example": "#b91c1c",
}


def sample_xs(knot_xs: Sequence[float], count: int = CURVE_SAMPLES) -> list[float]:
    """Where a frontier is drawn: its knots and `count` even steps between the first and last
    (engine.js sampleXs)."""
    if len(knot_xs) < 2:
        return list(knot_xs)
    lo, hi = knot_xs[0], knot_xs[-1]
    steps = [min(hi, max(lo, lo + (hi - lo) * i / (count - 1))) for i in range(count)]
    return sorted(set([*knot_xs, *steps]))


def title_text(comparison: ComparisonResult, sequence: str) -> str:
    """The page's title (wrapped, at most TITLE_LINES lines) over the workload and the metric."""
    lines = textwrap.wrap(comparison.title, TITLE_LINE, max_lines=TITLE_LINES, placeholder=" …")
    shown = "<br>".join(plotly_text(line) for line in lines)
    return f"<b>{shown}</b><br><span style='font-size:18px'>{plotly_text(sequence)} · {METRIC.label}</span>"


def side_traces(sequence: SequenceResult, shown: Sequence[ShownPoints]) -> list[dict[str, Any]]:
    """Per side: its frontier, its measured points (those off the frontier faint), its values at
    the targets as diamonds."""
    traces: list[dict[str, Any]] = []
    for n, (side, points) in enumerate(zip(sequence.sides, shown, strict=True)):
        colour, names = COLOURS["sides"][n % len(COLOURS["sides"])], trace_names(side.label)
        knot_xs = [k.interactivity for k in side.frontier]
        knot_ys = [getattr(k, METRIC.attribute) for k in side.frontier]
        xs = sample_xs(knot_xs)
        curve = MonotoneSpline(knot_xs, knot_ys).values(xs)
        traces.append(_trace(names["curve"], xs, curve, colour, "lines"))
        point_xs = points.rows.column("interactivity").tolist()
        point_ys = points.rows.column(METRIC.attribute).tolist()
        measured = _trace(names["points"], point_xs, point_ys, colour, "markers")
        measured["marker"]["opacity"] = [1 if on else 0.35 for on in points.on_frontier]
        traces.append(measured)
        traces.append(_target_trace(sequence, n, names["targets"], colour))
    return traces


def _target_trace(sequence: SequenceResult, side: int, name: str, colour: str) -> dict[str, Any]:
    """A side's values at the targets, as diamonds (none where the side was not measured)."""
    at = [(r.interactivity, r.sides[side]) for r in sequence.results]
    shown = [
        (x, m.values[METRIC.attribute])
        for x, m in at
        if m.measured and m.values.get(METRIC.attribute) is not None
    ]
    targets = _trace(name, [x for x, _ in shown], [y for _, y in shown], colour, "markers")
    targets["marker"].update(symbol="diamond", size=18, line={"width": 2, "color": COLOURS["fg"]})
    targets["showlegend"] = False  # as on the page
    return targets


def _trace(
    name: str, xs: Sequence[float], ys: Sequence[float | None], colour: str, mode: str
) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": mode,
        "name": plotly_text(name),
        "x": list(xs),
        "y": list(ys),
        "line": {"width": 3, "color": colour},
        "marker": {"size": 10, "color": colour, "line": {"width": 1, "color": COLOURS["bg"]}},
    }


def _layout(comparison: ComparisonResult, sequence: SequenceResult) -> dict[str, Any]:
    axis = {"gridcolor": COLOURS["grid"], "linecolor": COLOURS["fg"], "tickfont": {"size": 16}}
    layout = base_layout()
    layout.update(
        width=WIDTH,
        height=HEIGHT,
        title={
            "text": title_text(comparison, sequence.sequence),
            "font": {"size": 26},
            **{"x": 0.03, "xanchor": "left", "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 44}},
        },
        font={"color": COLOURS["fg"], "size": 16},
        paper_bgcolor=COLOURS["bg"],
        plot_bgcolor=COLOURS["bg"],
        margin={"l": 96, "r": 40, "t": 150, "b": 112},  # room for two title lines, and the legend below
        legend={"orientation": "h", "x": 0, "y": -0.17, "yanchor": "top", "font": {"size": 16}},
        showlegend=True,
    )
    layout["xaxis"] = {**layout["xaxis"], **axis, "title": {"text": AXIS_TITLE, "font": {"size": 18}}}
    layout["yaxis"] = {**layout["yaxis"], **axis, "title": {"text": axis_title(METRIC), "font": {"size": 18}}}
    band = sequence.band
    if band.overlap and band.lo is not None and band.hi is not None:
        layout["shapes"] = [
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": band.lo,
                "x1": band.hi,
                "y0": 0,
                "y1": 1,
                "line": {"width": 0},
                "fillcolor": COLOURS["band"],
                "layer": "below",
            }
        ]
    if comparison.example_data:
        layout["annotations"] = [_example_mark()]
    return layout


def _example_mark() -> dict[str, Any]:
    """The "Example data" mark, in the plot's top right corner, as plainly as the page says it."""
    return {
        "text": f"<b>{EXAMPLE_WORDS}</b>",
        "xref": "paper",
        "yref": "paper",
        "x": 0.99,
        "y": 0.97,
        "xanchor": "right",
        "yanchor": "top",
        "showarrow": False,
        "font": {"size": 24, "color": COLOURS["example"]},
        "bgcolor": COLOURS["bg"],
        "bordercolor": COLOURS["example"],
        "borderwidth": 2,
        "borderpad": 6,
    }


def preview_figure(
    comparison: ComparisonResult, shown: Sequence[Sequence[ShownPoints]]
) -> dict[str, Any] | None:
    """The page's preview image as a Plotly figure (None: the page has no workload to show)."""
    for sequence, points in zip(comparison.sequences, shown, strict=True):
        if sequence.sequence == comparison.default_sequence:
            return {"data": side_traces(sequence, points), "layout": _layout(comparison, sequence)}
    return None


def alt_text(comparison: ComparisonResult) -> str:
    """The preview image's text alternative: what the chart shows."""
    shows = f"{METRIC.label} against interactivity, {comparison.default_sequence}"
    return f"Chart: {shows}: {comparison.title}"
