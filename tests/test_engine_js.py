"""The page's engine (templates/assets/engine.js) gives the Python engine's answers, run by Node.

Each test draws batches of cases with Hypothesis (a fixed seed, a few batches), computes the
Python engine's answer to every case, writes all cases to one JSON file and has one Node process
(tests/js/engine_check.cjs) answer them. Numbers must agree to 1e-12 relative (in practice they
are equal: the script does the same float operations in the same order), text exactly. A failure
lists the differing cases with their inputs and the largest difference seen.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from site_builder.catalog import AppliedConstants
from site_builder.engine.compare import TIE_TOLERANCE, Constants, SideCurves, metrics_at, winner
from site_builder.engine.frontier import pareto_frontier
from site_builder.engine.spline import MonotoneSpline, steffen_tangents
from site_builder.formatting import fixed, round_half_up
from site_builder.metrics import CONSTANTS, CURVE_QUANTITIES, METRICS, SHOWN, Expr, evaluate, page_table
from site_builder.present.schema import ComparisonResult, SequenceResult, SideIdentity
from site_builder.present.tables import target_cells
from site_builder.render.pages import page_data
from tests.factories import Point, SideInput, point, sequence_and_points, table
from tests.factories import side_points as engine_points

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "tests" / "js" / "engine_check.cjs"
ENGINE = ROOT / "templates" / "assets" / "engine.js"
RELATIVE = 1e-12
BATCHES = 20
EXPORTS = sorted(
    [
        "CURVE_SAMPLES",
        "MonotoneSpline",
        "bandBounds",
        "bandOf",
        "defaultTargets",
        "knotRange",
        "paretoFrontier",
        "sideKnots",
        "SPARSE_RATIO",
        "SPREAD_LIMIT",
        "claim",
        "SideCurves",
        "TIE_TOLERANCE",
        "cells",
        "columnSummary",
        "measuredPoints",
        "curveSamples",
        "decodePoints",
        "latencyAt",
        "latencySeries",
        "latencyRows",
        "LATENCY_STATISTICS",
        "markerValue",
        "deploymentText",
        "evaluate",
        "fixed",
        "grouped",
        "isTie",
        "knownValues",
        "metricsAt",
        "notMeasuredText",
        "reason",
        "roundHalfUp",
        "rowClaim",  # cells' winner and claim without the words (the explorer's rows of 3+ sides)
        "sampleXs",
        "sideCell",
        "steffenTangents",
        "valueText",
        "winner",
        "words",
        # a reader's view of a page (tests/test_views.py, tests/browser/test_views.py)
        "viewMeasuredPoints",
        "viewPoints",
        "viewWords",
    ]
)
Case = TypeVar("Case")
SKIP = object()  # a case the Python engine cannot answer (it raises where JavaScript gives Infinity)


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        reason = "node is not installed: the page engine (templates/assets/engine.js) cannot be checked"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def collect(
    batches: st.SearchStrategy[list[Case]],
    python: Callable[[Case], Any],
    explicit: Sequence[list[Case]] = (),
    batches_drawn: int = BATCHES,
) -> tuple[list[Case], list[Any]]:
    """Cases drawn by Hypothesis, batch by batch (a fixed seed), with the Python engine's answers."""
    cases: list[Case] = []
    answers: list[Any] = []

    @settings(
        max_examples=batches_drawn,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )
    @given(batches)
    def draw(batch: list[Case]) -> None:
        for case in batch:
            answer = python(case)
            if answer is not SKIP:
                cases.append(case)
                answers.append(answer)

    for batch in explicit:
        draw = example(batch)(draw)
    draw()
    return cases, answers


def run_engine(node: str, kind: str, cases: list[Any]) -> list[Any]:
    """All cases in one JSON file, answered by one Node process."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{kind}.json"
        path.write_text(json.dumps({kind: cases}, allow_nan=False), encoding="utf-8")
        done = subprocess.run(
            [node, str(CHECK), str(path)], capture_output=True, text=True, check=False, timeout=120
        )
    if done.returncode != 0:
        pytest.fail(f"{CHECK.name} failed ({done.returncode}):\n{done.stderr}")
    answers: list[Any] = json.loads(done.stdout)[kind]
    return answers


class Comparison:
    """Walks expected (Python) and actual (Node) answers side by side."""

    def __init__(self) -> None:
        self.mismatches: list[str] = []
        self.numbers = 0
        self.largest = 0.0
        self.largest_at = ""

    def check(self, expected: Any, actual: Any, where: str) -> None:
        if isinstance(expected, bool) or isinstance(actual, bool):
            if expected is not actual:
                self.mismatches.append(f"{where}: python {expected!r}, js {actual!r}")
        elif isinstance(expected, int | float) and isinstance(actual, int | float):
            self.numbers += 1
            if expected != actual:
                scale = max(abs(expected), abs(actual))
                difference = abs(expected - actual) / scale if math.isfinite(scale) else math.inf
                if not difference <= self.largest:
                    self.largest, self.largest_at = difference, f"{where}: python {expected!r}, js {actual!r}"
                if not difference <= RELATIVE:
                    self.mismatches.append(
                        f"{where}: python {expected!r}, js {actual!r} (rel {difference:.3g})"
                    )
        elif isinstance(expected, dict) and isinstance(actual, dict):
            if sorted(expected) != sorted(actual):
                self.mismatches.append(f"{where}: keys {sorted(expected)} vs {sorted(actual)}")
            for key in expected:
                if key in actual:
                    self.check(expected[key], actual[key], f"{where}.{key}")
        elif isinstance(expected, list | tuple) and isinstance(actual, list):
            if len(expected) != len(actual):
                self.mismatches.append(f"{where}: {len(expected)} items vs {len(actual)}")
            for i, (e, a) in enumerate(zip(expected, actual, strict=False)):
                self.check(e, a, f"{where}[{i}]")
        elif expected != actual or type(expected) is not type(actual):
            self.mismatches.append(f"{where}: python {expected!r}, js {actual!r}")


def assert_same(kind: str, cases: list[Any], expected: list[Any], actual: list[Any]) -> None:
    """Python's and Node's answers agree case by case; the failing cases are shown with their input."""
    comparison = Comparison()
    failing: list[str] = []
    assert len(actual) == len(expected), f"{kind}: {len(expected)} cases sent, {len(actual)} answered"
    for i, (case, e, a) in enumerate(zip(cases, expected, actual, strict=True)):
        before = len(comparison.mismatches)
        comparison.check(e, a, f"{kind}[{i}]")
        if len(comparison.mismatches) > before and len(failing) < 5:
            failing.append(f"case {i}: {json.dumps(case, allow_nan=False)[:2000]}")
    summary = f"{len(cases)} cases, {comparison.numbers} numbers, largest relative difference {comparison.largest:.3g}"
    if comparison.largest_at:
        summary += f" ({comparison.largest_at})"
    assert not comparison.mismatches, "\n".join(
        [f"{len(comparison.mismatches)} differences; {summary}", *comparison.mismatches[:20], *failing]
    )


# -- fixed and roundHalfUp ---------------------------------------------------------------------------

SPECIAL_VALUES = [
    12.25, 0.125, 2.675, 1.005, 0.5, 1.5, 2.5, -0.5, -2.5, -12.25, -0.125, -0.04, 0.0, -0.0, 9.995,
    99.95, 999.9999, 1e-7, 1.5e-7, -1e-7, 5e-324, 1e-5, 0.0001, 1e15, 1e16, 1e17, 123456789012345678.0,
    1e21, -1e21, 1.7976931348623157e308, 0.1 + 0.2, 1 / 3, 2 / 3, 84.5, 1234.5,
]  # fmt: skip


def halfway(digits: int, places: int) -> float:
    """A value whose shortest form ends in 5 just past `places` decimals: the half-up case."""
    return float(Decimal(digits).scaleb(-places) + Decimal(5).scaleb(-places - 1))


values = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e6, max_value=1e6),
    st.integers(0, 6)
    .flatmap(lambda places: st.decimals(min_value=-(10**6), max_value=10**6, places=places, allow_nan=False))
    .map(float),
    st.builds(halfway, st.integers(-(10**7), 10**7), st.integers(0, 5)),
    st.sampled_from(SPECIAL_VALUES),
    st.sampled_from([math.inf, -math.inf, math.nan]),
)
FixedCase = tuple[float, int]


def python_fixed(case: FixedCase) -> dict[str, Any]:
    value, decimals = case
    text: str | None
    rounded: float | None
    try:
        text = fixed(value, decimals)
    except InvalidOperation:  # infinities, or more digits than the decimal context holds
        text = None
    try:
        rounded = round_half_up(value, decimals)
    except (ValueError, InvalidOperation):
        rounded = None
    return {"text": text, "rounded": rounded}


def test_fixed_and_round_half_up(node: str) -> None:
    cases, expected = collect(
        st.lists(st.tuples(values, st.integers(0, 3) | st.integers(-3, 10)), min_size=50, max_size=50),
        python_fixed,
        explicit=[
            [(v, d) for v in SPECIAL_VALUES for d in (0, 1, 2, 3)],
            [(1e-7, 7), (0.0, 7), (1e21, 10), (1e21, 1), (1234.5, -2), (math.nan, 2), (-0.0, 1), (1e-7, 1)],
        ],
    )
    sent = [{"value": repr(v), "decimals": d} for v, d in cases]  # repr: every float arrives exactly
    assert_same("fixed", sent, expected, run_engine(node, "fixed", sent))


# -- spline ------------------------------------------------------------------------------------------


# Strategies are built once, here: drawing from a strategy made inside a draw is slow.
FRACTION = st.floats(0, 1)
INDEX = st.integers(0, 63)  # a knot, modulo their number
FIRST_X = st.floats(0.1, 300) | st.integers(1, 300).map(float)
X_GAPS = st.lists(st.floats(1e-3, 200), max_size=7)
YS = st.lists(st.floats(-1e6, 1e6), min_size=8, max_size=8)
BEYOND = st.floats(1e-9, 100)


@st.composite
def knot_xs(draw: st.DrawFn) -> list[float]:
    """1–8 strictly increasing interactivities, from round numbers to arbitrary floats."""
    xs = [draw(FIRST_X)]
    for gap in draw(X_GAPS):
        xs.append(xs[-1] + gap)
    return xs


def probes(xs: list[float], fractions: list[float], outside: tuple[float, float]) -> list[float]:
    """Every knot, points between knots, beyond both ends, and the floats next to the ends."""
    lo, hi = xs[0], xs[-1]
    return [
        *xs,
        *(lo + f * (hi - lo) for f in fractions),
        lo - outside[0],
        hi + outside[1],
        math.nextafter(lo, -math.inf),
        math.nextafter(hi, math.inf),
    ]


@st.composite
def spline_case(draw: st.DrawFn) -> dict[str, Any]:
    xs = draw(knot_xs())
    ys = draw(YS)[: len(xs)]
    fractions = draw(st.lists(FRACTION, min_size=2, max_size=6))
    outside = (draw(BEYOND), draw(BEYOND))
    return {"xs": xs, "ys": ys, "at": probes(xs, fractions, outside)}


def python_spline(case: dict[str, Any]) -> dict[str, Any]:
    spline = MonotoneSpline(case["xs"], case["ys"])
    return {
        "tangents": steffen_tangents(case["xs"], case["ys"]).tolist(),
        "values": [spline.value(x) for x in case["at"]],
    }


def test_spline(node: str) -> None:
    cases, expected = collect(
        st.lists(spline_case(), min_size=20, max_size=20),
        python_spline,
        batches_drawn=10,
        explicit=[
            [
                {"xs": [10.0, 30.0], "ys": [500.0, 100.0], "at": [10.0, 25.0, 30.0, 31.0]},
                {"xs": [10.0], "ys": [5.0], "at": [10.0, 9.0, 11.0]},
                {"xs": [1.0, 2.0, 3.0, 4.0], "ys": [3.0, 3.0, 7.0, 7.0], "at": [1.5, 2.5, 3.5]},
            ]
        ],
    )
    assert_same("spline", cases, expected, run_engine(node, "spline", cases))


# -- evaluate ----------------------------------------------------------------------------------------

NAMES = [*CURVE_QUANTITIES, *CONSTANTS]
leaves = st.one_of(
    st.sampled_from([*NAMES, "unknown_name"]),
    st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3) | st.just(0.0),
    st.integers(-100, 100),
)
formulas: st.SearchStrategy[Expr] = st.recursive(
    leaves,
    lambda inner: st.builds(
        lambda op, operands: [op, *operands], st.sampled_from("+-*/"), st.lists(inner, min_size=2, max_size=3)
    ),
    max_leaves=6,
)
variable_values = st.fixed_dictionaries(
    {name: st.none() | st.floats(1e-3, 1e4) | st.floats(-1e4, -1e-3) | st.just(0.0) for name in NAMES}
)
EvaluateCase = tuple[Expr, dict[str, float | None]]


def python_evaluate(case: EvaluateCase) -> Any:
    try:
        return evaluate(*case)
    except ZeroDivisionError:
        return SKIP  # Python raises; JavaScript gives ±Infinity or NaN


def test_evaluate(node: str) -> None:
    registry = {"throughput": 1234.5, "concurrency": 64.0, "output_throughput": None}
    cases, expected = collect(
        st.lists(st.tuples(formulas, variable_values), min_size=30, max_size=30),
        python_evaluate,
        batches_drawn=10,
        explicit=[
            [
                (m.formula, {**registry, "usd_per_gpu_hour": 1.95, "watts_all_in": w})
                for m in METRICS
                for w in (None, 2170.0)
            ]
        ],
    )
    sent = [{"formula": formula, "values": known} for formula, known in cases]
    assert_same("evaluate", sent, expected, run_engine(node, "evaluate", sent))


# -- winner ------------------------------------------------------------------------------------------

magnitudes = st.floats(-1e6, 1e6) | st.integers(-1000, 1000).map(float)
pairs = st.one_of(
    st.tuples(st.none() | magnitudes, st.none() | magnitudes),
    # around the 1% tie margin, on both sides of it
    st.builds(
        lambda a, ratio: (a, a * ratio),
        magnitudes,
        st.sampled_from([1.0, 0.99, 1.01, 0.98, 1.02, 1 / 0.99, 0.9899999999, 1.0100000001, 0.99000001]),
    ),
)
WinnerCase = tuple[tuple[float | None, float | None], str]


def python_winner(case: WinnerCase) -> int | None:
    (a, b), better = case
    return winner(a, b, better)


def test_winner(node: str) -> None:
    cases, expected = collect(
        st.lists(st.tuples(pairs, st.sampled_from(["higher", "lower", ""])), min_size=50, max_size=50),
        python_winner,
        explicit=[
            [
                ((100.0, 99.0), "higher"),
                ((100.0, 101.0), "lower"),
                ((0.0, 0.0), "higher"),
                ((None, 3.0), "lower"),
                ((3.0, 1.0), ""),
                ((-5.0, 5.0), "higher"),
            ]
        ],
    )
    sent = [{"a": a, "b": b, "better": better, "tie": TIE_TOLERANCE} for (a, b), better in cases]
    assert_same("winner", sent, expected, run_engine(node, "winner", sent))


# -- metrics at targets (the table) --------------------------------------------------------------------

# A side as measured points: (interactivity, throughput, concurrency, output throughput or None,
# the deployment (0–2: the engine interpolates concurrency only within one), GPU count or None).
Knot = tuple[float, float, int, float | None, int, int | None]


LAST_THROUGHPUT = st.floats(1.0, 3000.0) | st.integers(1, 3000).map(float)
THROUGHPUT_STEPS = st.lists(st.floats(1e-3, 5000.0), min_size=7, max_size=7)
CONCURRENCIES = st.lists(st.integers(1, 20000), min_size=8, max_size=8)
OUTPUT_SHARE = st.none() | st.floats(0.01, 1.0)
EXTRAS = st.lists(st.tuples(st.booleans(), INDEX, FRACTION, st.floats(0.001, 0.999)), max_size=3)


@st.composite
def side_points(draw: st.DrawFn) -> list[Knot]:
    """A frontier of 1–8 knots (rising interactivity, falling throughput), now and then none, plus
    a few dominated points that the frontier drops."""
    if draw(st.integers(0, 9)) == 0:
        return []
    xs = draw(knot_xs())
    n = len(xs)
    throughputs = [draw(LAST_THROUGHPUT)]
    for step in draw(THROUGHPUT_STEPS)[: n - 1]:
        throughputs.append(throughputs[-1] + step)
    throughputs.reverse()
    concurrencies = draw(CONCURRENCIES)[:n]
    if draw(st.booleans()):  # one deployment's sweep: concurrency falls as interactivity rises
        concurrencies = sorted(concurrencies, reverse=True)
    share = draw(OUTPUT_SHARE)  # output throughput: none, or a share of the total …
    partial = share is not None and n > 1 and draw(st.booleans())  # … missing at one knot
    deployments = draw(st.lists(st.integers(0, 2), min_size=8, max_size=8))[:n]
    gpus = draw(st.none() | st.lists(st.none() | st.integers(1, 96), min_size=8, max_size=8))
    points: list[Knot] = [
        (x, t, c, None if share is None or (partial and i == 0) else t * share, d, gpus[i] if gpus else 8)
        for i, (x, t, c, d) in enumerate(zip(xs, throughputs, concurrencies, deployments, strict=True))
    ]
    for at_knot, index, fraction, lower in draw(EXTRAS):
        x = xs[index % n] if at_knot else xs[0] + fraction * (xs[-1] - xs[0])
        points.append((x, lower * throughputs[-1], 7, None, 0, 8))
    return points


constants = st.builds(
    Constants,
    usd_per_gpu_hour=st.none() | st.floats(0.05, 50.0) | st.sampled_from([1.95, 2.5, 3.0]),
    watts_all_in=st.none() | st.floats(100.0, 5000.0) | st.sampled_from([2170.0, 1400.0]),
)
labels = st.sampled_from(["FP4", "FP8", "MTP", "off", "B200", "H200"]) | st.text(min_size=1, max_size=12)
# where a target sits: 0 at a knot, 1 inside, 2 a whole number inside, 3 below, 4 above
TARGETS = st.lists(
    st.tuples(st.integers(0, 4), INDEX, FRACTION, st.floats(1e-6, 100.0)), min_size=3, max_size=8
)
ComparisonCase = tuple[list[list[Knot]], list[Constants], list[str], list[float]]


def target_at(xs: list[float], where: int, index: int, fraction: float, beyond: float) -> float:
    lo, hi = xs[0], xs[-1]
    inside = lo + fraction * (hi - lo)
    return [xs[index % len(xs)], inside, float(round(inside)), lo - beyond, hi + beyond][where]


@st.composite
def comparison_case(draw: st.DrawFn) -> ComparisonCase:
    sides = [draw(side_points()), draw(side_points())]
    xs = sorted(k[0] for side in sides for k in side) or [50.0]
    targets = [target_at(xs, *t) for t in draw(TARGETS)]
    return sides, [draw(constants), draw(constants)], [draw(labels), draw(labels)], targets


def benchmark_points(knots: list[Knot]) -> list[Point]:
    """The knots as point rows: framework d is the deployment, g its GPUs."""
    return [
        point(
            x,
            t,
            c,
            framework=f"f{d}",
            model="m",
            hardware="gpu",
            precision="p",
            output=o,
            gpu_count=g,
            record=str(i),
        )
        for i, (x, t, c, o, d, g) in enumerate(knots)
    ]


def _value(number: float) -> float | None:
    return None if math.isnan(number) else number


def page_side(curves: SideCurves) -> dict[str, Any]:
    """A side's knots as the page data holds them: a column per curve quantity."""
    return {
        "knots": [
            [float(x), *(_value(float(curves.knot_values[name][k])) for name in CURVE_QUANTITIES)]
            for k, x in enumerate(curves.xs)
        ],
        "joins": list(curves.one_deployment),
    }


TIERS = st.sampled_from(["hyperscaler", "neocloud", "rental"])
# GPU names as a catalog or the data writes them, with what a template or a replacement would
# read as its own syntax
GPU_NAMES = st.sampled_from(["B200", "MI355X", "H200 SXM", "{gpu}", "$&", "{tier} $1"]) | st.text(max_size=10)
PageCase = tuple[list[list[Knot]], list[Constants], list[str], list[tuple[str, str]], list[float]]


@st.composite
def page_case(draw: st.DrawFn) -> PageCase:
    sides, consts, names, targets = draw(comparison_case())
    gpus = [(draw(GPU_NAMES), draw(TIERS)) for _ in sides]
    return sides, consts, names, gpus, targets


def built_page(
    points: Sequence[Sequence[Point]],
    names: Sequence[str],
    applied: Sequence[AppliedConstants],
    targets: Sequence[float] | None,
) -> tuple[SequenceResult, dict[str, Any]]:
    """A 1k/1k page of two sides (at the targets, or the engine's own), as the build makes it:
    the engine, the presentation and render.page_data."""
    inputs = [SideInput(n, {}, "", "gpu", a, p) for n, a, p in zip(names, applied, points, strict=True)]
    sequence, shown_points = sequence_and_points(1024, 1024, "1k/1k", inputs, targets)
    page = page_data(
        ComparisonResult(
            slug="a-vs-b",
            kind="precision",
            title="A vs B",
            model="m",
            model_name="M",
            hardware=["gpu"],
            default_sequence="1k/1k",
            cost_tier="hyperscaler",
            sides=[SideIdentity(label=n, filters={}) for n in names],
            sequences=[sequence],
            constants=list(applied),
            data_sources=[],
            notices=[],
        ),
        [shown_points],
    )
    return sequence, page


def python_page(case: PageCase) -> dict[str, Any]:
    """A page of two sides at these targets, as the build makes it (the engine, the presentation's
    words, render.page_data), and what the build's table says at each target: the engine's
    numbers and, per shown metric, each side's cell (present/tables.py target_cells)."""
    sides, consts, names, gpus, targets = case
    applied = [
        AppliedConstants(
            hardware="gpu",
            hardware_name=gpu,
            cost_tier=tier,
            usd_per_gpu_hour=k.usd_per_gpu_hour,
            watts_all_in=k.watts_all_in,
            source="test",
            as_of="2026",
        )
        for (gpu, tier), k in zip(gpus, consts, strict=True)
    ]
    points = [benchmark_points(side) for side in sides]
    sequence, page = built_page(points, names, applied, targets)
    curves = [SideCurves(engine_points(p)) for p in points]
    shown = {m.key for m in SHOWN}  # the page computes the metrics it shows
    answers = []
    for target, result in zip(targets, sequence.results, strict=True):
        ats = [metrics_at(c, [target], k)[0] for c, k in zip(curves, consts, strict=True)]
        cells = target_cells(SHOWN, result.sides, names, [s.frontier for s in sequence.sides], result.claims)
        answers.append(
            {
                "sides": [
                    {
                        "measured": at.measured,
                        "range": at.measured_range,
                        "values": {key: v for key, v in at.values.items() if key in shown},
                        "missing": {key: list(lack) for key, lack in at.missing.items() if key in shown},
                        "brackets": [float(c.xs[k]) for k in at.brackets],
                        "sparse": at.sparse,
                        "bounds": {key: list(b) for key, b in at.bounds.items() if key in shown},
                    }
                    for at, c in zip(ats, curves, strict=True)
                ],
                "cells": [
                    [{"text": c.text, "note": c.note, "win": c.win, "measured": c.measured} for c in row]
                    for row in cells
                ],
            }
        )
    sent = {"page": json.loads(json.dumps(page)), "targets": targets}
    return {"sent": sent, "answer": answers}


def test_the_table_at_any_target_is_the_builds(node: str) -> None:
    """At generated targets on generated pages, the page script's numbers (values, what a metric
    lacks, the knots a target lies between, sparse stretches, each value's bounds at the bracketing
    knots) and each table cell's text, note and
    winner equal the build's, from the page data alone. The cases reach every rule of a cell."""
    _, computed = collect(st.lists(page_case(), min_size=12, max_size=12), python_page, batches_drawn=10)
    sent = [c["sent"] for c in computed]
    expected = [c["answer"] for c in computed]
    assert_same("page", sent, expected, run_engine(node, "page", sent))
    said = " | ".join(
        cell["text"] + " :: " + cell["note"]
        for answer in expected
        for column in answer
        for row in column["cells"]
        for cell in row
    )
    for words in (
        ":: interpolated between measured points: ",
        "(winner not determined) :: winner not determined by the measurements: ",
        ":: leads by between ",
        "not measured :: not measured at this interactivity: ",
        "has no measured points on this workload",
        "cost per GPU-hour for",
        "no all-in power per GPU for",
        "has no GPU count",
        "measured: ",
        "between two deployments",
        "between the same deployment, whose concurrency rises",
        "GPU count not recorded",
    ):
        assert words in said, words


# -- a side's knots from its measured points (the explorer) -------------------------------------------

# A measured point: interactivity and throughput from few values (ties at one interactivity,
# duplicates), a concurrency, an output throughput or None, a deployment (0-2), a GPU count or None.
TIED_X = st.sampled_from([10.0, 20.0, 20.5, 40.0, 80.0]) | st.floats(1.0, 200.0)
TIED_Y = st.sampled_from([100.0, 250.0, 500.0, 900.0]) | st.floats(1.0, 5000.0)
MEASURED = st.tuples(
    TIED_X,
    TIED_Y,
    st.integers(1, 512),
    st.none() | st.floats(1.0, 5000.0),
    st.integers(0, 2),
    st.none() | st.integers(1, 72),
)


@st.composite
def measured_side(draw: st.DrawFn) -> list[Knot]:
    """0-10 points, now and then one, with exact duplicates of earlier points."""
    size = draw(st.sampled_from([0, 1, 1, 2, 3, 5, 8, 10]))
    points: list[Knot] = []
    for _ in range(size):
        if points and draw(st.integers(0, 4)) == 0:
            points.append(points[draw(st.integers(0, len(points) - 1))])
        else:
            points.append(draw(MEASURED))
    return points


def explorer_columns(points: Sequence[Point]) -> dict[str, list[Any]]:
    """A side's points as the explorer's data holds them: a column each, in table order."""
    rows = table(points)
    names = {
        "interactivity": "interactivity",
        "throughput": "throughput_per_gpu",
        "concurrency": "concurrency",
        "output_throughput": "output_throughput_per_gpu",
        "users_per_gpu": "users_per_gpu",
        "deployment": "config_id",
        "gpus": "gpu_count",
        "configuration": "configuration",
    }
    return {name: rows.python_values(column) for name, column in names.items()}


def python_knots(case: list[list[Knot]]) -> dict[str, Any]:
    """Two sides' measured points, and what the build's page data says of them: each side's
    frontier (pareto_frontier) and knots (render.pages _side_data), the band and the targets."""
    points = [benchmark_points(side) for side in case]
    applied = [
        AppliedConstants(
            hardware="gpu",
            hardware_name="GPU",
            cost_tier="rental",
            usd_per_gpu_hour=2.0,
            watts_all_in=None,
            source="t",
            as_of="2026",
        )
    ] * 2
    _, page = built_page(points, ["A", "B"], applied, None)
    sequence = json.loads(json.dumps(page["sequences"]["1k/1k"]))
    columns = [explorer_columns(p) for p in points]
    frontiers = [
        pareto_frontier(
            np.array(c["interactivity"], dtype=float), np.array(c["throughput"], dtype=float)
        ).tolist()
        for c in columns
    ]
    sent = {"sides": columns, "quantities": page["quantities"]}
    return {"sent": sent, "answer": {"frontiers": frontiers, **sequence}}


def test_a_sides_knots_from_its_points_are_the_builds(node: str) -> None:
    """From a side's measured points alone, engine.js gives the page data the build writes: the
    frontier (ties at one interactivity, duplicates: the first in input order), the knots with
    every curve quantity (null where not measured), the concurrency joins, GPU counts,
    deployments and their configuration labels, and the two sides' band and default targets."""
    single: list[list[Knot]] = [[(20.0, 500.0, 8, None, 0, None)], [(20.0, 500.0, 8, 250.0, 1, 8)] * 2]
    ties: list[list[Knot]] = [
        [(10.0, 900.0, 64, None, 0, 8), (10.0, 900.0, 32, None, 1, 8), (10.0, 950.0, 16, 1.0, 2, None),
         (20.0, 500.0, 8, None, 0, 8), (20.0, 500.0, 4, None, 1, 8), (40.0, 500.0, 2, None, 0, 8)],
        [(12.0, 800.0, 64, None, 0, 8), (30.4, 300.0, 16, None, 0, 8), (30.6, 100.0, 8, None, 0, 8)],
    ]  # fmt: skip
    _, computed = collect(
        st.lists(st.lists(measured_side(), min_size=2, max_size=2), min_size=12, max_size=12),
        python_knots,
        explicit=[[single, ties, [[], ties[1]]]],
        batches_drawn=6,
    )
    sent = [c["sent"] for c in computed]
    expected = [c["answer"] for c in computed]
    assert_same("knots", sent, expected, run_engine(node, "knots", sent))
    assert any(a["targets"] for a in expected) and any(not a["targets"] for a in expected)
    assert any(len(k["knots"]) == 1 for a in expected for k in a["sides"])
    assert any(False in k["joins"] for a in expected for k in a["sides"])


# -- the chart's curves -------------------------------------------------------------------------------

CHART_SAMPLES = 64  # the page draws each frontier at 64 evenly spaced interactivities and its knots


def python_curve(case: tuple[list[Knot], Constants]) -> dict[str, Any]:
    """What the chart draws along a side's frontier, by the Python engine: at 64 evenly spaced
    interactivities across the knots' range (clamped into it) and at every knot, each once, the
    value of each shown metric there (metrics_at, the table's computation)."""
    knots, consts = case
    curves = SideCurves(engine_points(benchmark_points(knots)))
    knot_xs = curves.xs.tolist()
    if len(knot_xs) >= 2:
        lo, hi = knot_xs[0], knot_xs[-1]
        even = [min(hi, max(lo, lo + (hi - lo) * i / (CHART_SAMPLES - 1))) for i in range(CHART_SAMPLES)]
        xs = sorted(set(even) | set(knot_xs))
    else:
        xs = knot_xs
    answers = []
    for metric in SHOWN:
        ys = []
        for x in xs:
            at = metrics_at(curves, [x], consts)[0]
            ys.append(at.values.get(metric.key) if at.measured else None)
        answers.append({"x": xs, "y": ys})
    sent = {"side": page_side(curves), "constants": asdict(consts), "metrics": page_table(SHOWN)}
    return {"sent": sent, "answer": answers}


def test_chart_curves_sample_the_python_engines_values(node: str) -> None:
    """The page's chart (site.js → engine.js curveSamples) draws each frontier through the very
    values the Python engine computes: same sample interactivities, same metric values."""
    _, computed = collect(
        st.lists(st.tuples(side_points(), constants), min_size=12, max_size=12),
        python_curve,
        batches_drawn=10,
    )
    sent = [c["sent"] for c in computed]
    expected = [c["answer"] for c in computed]
    assert_same("curve", sent, expected, run_engine(node, "curve", sent))


def test_chart_curve_by_hand(node: str) -> None:
    """Three knots (10, 900), (20, 500), (40, 100) at $2.5/GPU-hour: the curve runs from the first
    knot to the last, ascending, passes through the middle one exactly, and costs
    2.5e6 / (3600 × 900) = $0.7716…/M tok at the start."""
    knots: list[Knot] = [
        (10.0, 900.0, 4, None, 0, 8),
        (20.0, 500.0, 16, None, 0, 8),
        (40.0, 100.0, 64, None, 0, 8),
    ]
    sent = python_curve((knots, Constants(2.5, None)))["sent"]
    [answers] = run_engine(node, "curve", [sent])
    by_key = dict(zip([m.key for m in SHOWN], answers, strict=True))
    xs, throughput = by_key["throughput"]["x"], by_key["throughput"]["y"]
    assert xs[0] == 10.0 and xs[-1] == 40.0 and len(xs) in (64, 65)
    assert all(a < b for a, b in itertools.pairwise(xs))
    assert throughput[0] == 900.0 and throughput[xs.index(20.0)] == 500.0 and throughput[-1] == 100.0
    assert all(a >= b for a, b in itertools.pairwise(throughput))  # monotone between falling knots
    assert by_key["cost"]["y"][0] == pytest.approx(2.5e6 / (3600 * 900), rel=1e-15)
    assert by_key["per_mw"]["y"] == [None] * len(xs)  # no power figure: no curve for tok/s per MW


# -- the file itself ---------------------------------------------------------------------------------


def test_the_page_metric_table_is_what_the_script_reads() -> None:
    """The page sends the shown metrics; every formula reads only names the script knows."""
    assert [m["key"] for m in page_table()] == [m.key for m in SHOWN]

    def names(expr: Expr) -> Iterator[str]:
        if isinstance(expr, str):
            yield expr
        elif isinstance(expr, list):
            for operand in expr[1:]:
                yield from names(operand)

    for metric in METRICS:
        assert set(names(metric.formula)) <= set(NAMES), metric.key


def test_one_file_for_node_and_the_browser(node: str) -> None:
    """engine.js is both a CommonJS module and a plain script defining window.SiteEngine."""
    done = subprocess.run(
        [node, str(CHECK), "-"], input="{}", capture_output=True, text=True, check=True, timeout=60
    )
    answers = json.loads(done.stdout)
    assert answers["node_exports"] == EXPORTS
    assert answers["browser_global"] == EXPORTS
    text = ENGINE.read_text(encoding="utf-8")
    assert '"use strict"' in text and "require(" not in text and "import " not in text
