"""The page's engine (templates/assets/engine.js) gives the Python engine's answers, run by Node.

Hypothesis draws batches of cases; each batch is computed here by the Python engine, written to
one JSON file and answered by one Node process (tests/js/engine_check.cjs). Numbers must agree
to 1e-12 relative (in practice they are equal: the script does the same float operations in the
same order), text exactly. The largest difference is reported when a batch fails.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from site_builder.comparison_json import range_reason
from site_builder.engine.compare import TIE_TOLERANCE, Constants, SideCurves, metrics_at, winner
from site_builder.engine.spline import MonotoneSpline, steffen_tangents
from site_builder.metrics import CONSTANTS, CURVE_QUANTITIES, METRICS, SHOWN, Expr, evaluate, page_table
from site_builder.numbers import fixed, round_half_up
from site_builder.points import BenchmarkPoint, Configuration, Provenance

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "tests" / "js" / "engine_check.cjs"
ENGINE = ROOT / "templates" / "assets" / "engine.js"
RELATIVE = 1e-12
BATCHES = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
EXPORTS = sorted(
    [
        "MonotoneSpline",
        "SideCurves",
        "TIE_TOLERANCE",
        "evaluate",
        "fixed",
        "isTie",
        "metricsAt",
        "notMeasuredText",
        "roundHalfUp",
        "steffenTangents",
        "winner",
    ]
)


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        reason = "node is not installed: the page engine (templates/assets/engine.js) cannot be checked"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def run_engine(node: str, cases: dict[str, Any]) -> dict[str, Any]:
    """All cases through one Node process."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.json"
        path.write_text(json.dumps(cases, allow_nan=False), encoding="utf-8")
        done = subprocess.run(
            [node, str(CHECK), str(path)], capture_output=True, text=True, check=False, timeout=120
        )
    if done.returncode != 0:
        pytest.fail(f"{CHECK.name} failed ({done.returncode}):\n{done.stderr}")
    answers: dict[str, Any] = json.loads(done.stdout)
    return answers


class Comparison:
    """Walks expected (Python) and actual (Node) answers side by side."""

    def __init__(self) -> None:
        self.mismatches: list[str] = []
        self.numbers = 0
        self.largest = 0.0
        self.largest_at = ""

    def check(self, expected: Any, actual: Any, where: str) -> None:
        number = (int, float)
        if isinstance(expected, bool) or isinstance(actual, bool):
            if expected is not actual:
                self.mismatches.append(f"{where}: python {expected!r}, js {actual!r}")
        elif isinstance(expected, number) and isinstance(actual, number):
            self.numbers += 1
            if expected != actual:
                scale = max(abs(expected), abs(actual))
                difference = abs(expected - actual) / scale if math.isfinite(scale) else math.inf
                if difference > self.largest:
                    self.largest, self.largest_at = difference, f"{where}: python {expected!r}, js {actual!r}"
                if not difference <= RELATIVE:
                    self.mismatches.append(f"{where}: python {expected!r}, js {actual!r} (rel {difference:.3g})")
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

    def assert_equal(self, expected: Any, actual: Any, where: str) -> None:
        self.check(expected, actual, where)
        summary = (
            f"{self.numbers} numbers compared, largest relative difference {self.largest:.3g}"
            + (f" at {self.largest_at}" if self.largest_at else "")
        )
        assert not self.mismatches, f"{len(self.mismatches)} mismatches ({summary}):\n" + "\n".join(
            self.mismatches[:20]
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
    st.integers(0, 6).flatmap(
        lambda places: st.decimals(min_value=-(10**6), max_value=10**6, places=places, allow_nan=False)
    ).map(float),
    st.builds(halfway, st.integers(-(10**7), 10**7), st.integers(0, 5)),
    st.sampled_from(SPECIAL_VALUES),
    st.sampled_from([math.inf, -math.inf, math.nan]),
)
fixed_cases = st.lists(st.tuples(values, st.integers(-3, 10) | st.integers(0, 3)), min_size=50, max_size=50)


def python_fixed(value: float, decimals: int) -> dict[str, Any]:
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


@BATCHES
@given(fixed_cases)
@example([(v, d) for v in SPECIAL_VALUES for d in (0, 1, 2, 3)])
@example([(1e-7, 7), (0.0, 7), (1e21, 10), (1e21, 1), (1234.5, -2), (math.nan, 2), (-0.0, 1), (1e-7, 1)])
def test_fixed_and_round_half_up(node: str, batch: list[tuple[float, int]]) -> None:
    expected = [python_fixed(v, d) for v, d in batch]
    answers = run_engine(node, {"fixed": [{"value": repr(v), "decimals": d} for v, d in batch]})
    Comparison().assert_equal(expected, answers["fixed"], "fixed")


# -- spline ------------------------------------------------------------------------------------------


@st.composite
def knot_xs(draw: st.DrawFn, min_size: int = 1, max_size: int = 8) -> list[float]:
    """Strictly increasing interactivities, from round numbers to arbitrary floats."""
    first = draw(st.floats(0.1, 300) | st.integers(1, 300).map(float))
    gaps = draw(
        st.lists(
            st.floats(1e-3, 200) | st.integers(1, 60).map(float) | st.sampled_from([0.5, 0.25, 1e-2]),
            min_size=min_size - 1,
            max_size=max_size - 1,
        )
    )
    xs = [first]
    for gap in gaps:
        xs.append(xs[-1] + gap)
    return xs


def probes(xs: list[float], fractions: list[float], outside: list[float]) -> list[float]:
    """Points at every knot, between knots, and beyond both ends."""
    lo, hi = xs[0], xs[-1]
    inside = [lo + f * (hi - lo) for f in fractions]
    return [*xs, *inside, lo - outside[0], hi + outside[1], math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)]


@st.composite
def spline_case(draw: st.DrawFn) -> dict[str, Any]:
    xs = draw(knot_xs())
    ys = draw(st.lists(st.floats(-1e6, 1e6) | st.integers(-50, 50).map(float), min_size=len(xs), max_size=len(xs)))
    fractions = draw(st.lists(st.floats(0, 1), min_size=4, max_size=10))
    outside = draw(st.tuples(st.floats(1e-9, 100), st.floats(1e-9, 100)))
    return {"xs": xs, "ys": ys, "at": probes(xs, fractions, list(outside))}


@BATCHES
@given(st.lists(spline_case(), min_size=20, max_size=20))
@example([{"xs": [10.0, 30.0], "ys": [500.0, 100.0], "at": [10.0, 25.0, 30.0, 31.0]},
          {"xs": [10.0], "ys": [5.0], "at": [10.0, 9.0, 11.0]},
          {"xs": [1.0, 2.0, 3.0, 4.0], "ys": [3.0, 3.0, 7.0, 7.0], "at": [1.5, 2.5, 3.5]}])  # fmt: skip
def test_spline(node: str, batch: list[dict[str, Any]]) -> None:
    expected = []
    for case in batch:
        spline = MonotoneSpline(case["xs"], case["ys"])
        expected.append(
            {"tangents": steffen_tangents(case["xs"], case["ys"]), "values": [spline.value(x) for x in case["at"]]}
        )
    answers = run_engine(node, {"spline": batch})
    Comparison().assert_equal(expected, answers["spline"], "spline")


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
    max_leaves=8,
)
variable_values = st.fixed_dictionaries(
    {name: st.none() | st.floats(1e-3, 1e4) | st.floats(-1e4, -1e-3) | st.just(0.0) for name in NAMES}
)


@BATCHES
@given(st.lists(st.tuples(formulas, variable_values), min_size=50, max_size=50))
@example([(m.formula, {"throughput": 1234.5, "concurrency": 64.0, "output_throughput": None,
                       "usd_per_gpu_hour": 1.95, "watts_all_in": None}) for m in METRICS])  # fmt: skip
def test_evaluate(node: str, batch: list[tuple[Expr, dict[str, float | None]]]) -> None:
    cases, expected = [], []
    for formula, known in batch:
        try:
            value = evaluate(formula, known)
        except ZeroDivisionError:
            continue  # Python raises, JavaScript gives ±Infinity or NaN: not comparable
        cases.append({"formula": formula, "values": known})
        expected.append(value)
    answers = run_engine(node, {"evaluate": cases})
    Comparison().assert_equal(expected, answers["evaluate"], "evaluate")


# -- winner ------------------------------------------------------------------------------------------

magnitudes = st.floats(-1e6, 1e6) | st.integers(-1000, 1000).map(float)
pairs = st.one_of(
    st.tuples(st.none() | magnitudes, st.none() | magnitudes),
    # near the 1% tie margin, both sides of it
    st.builds(
        lambda a, ratio: (a, a * ratio),
        magnitudes,
        st.sampled_from([1.0, 0.99, 1.01, 0.98, 1.02, 1 / 0.99, 0.9899999999, 1.0100000001, 0.99000001]),
    ),
)


@BATCHES
@given(st.lists(st.tuples(pairs, st.sampled_from(["higher", "lower", ""])), min_size=50, max_size=50))
@example([((100.0, 99.0), "higher"), ((100.0, 101.0), "lower"), ((0.0, 0.0), "higher"), ((None, 3.0), "lower"),
          ((3.0, 1.0), ""), ((-5.0, 5.0), "higher")])  # fmt: skip
def test_winner(node: str, batch: list[tuple[tuple[float | None, float | None], str]]) -> None:
    expected = [winner(a, b, better) for (a, b), better in batch]
    cases = [{"a": a, "b": b, "better": better, "tie": TIE_TOLERANCE} for (a, b), better in batch]
    answers = run_engine(node, {"winner": cases})
    Comparison().assert_equal(expected, answers["winner"], "winner")


# -- metrics at targets (the table) --------------------------------------------------------------------


def point(x: float, throughput: float, concurrency: int, output: float | None, i: int) -> BenchmarkPoint:
    return BenchmarkPoint(
        config=Configuration(model="m", hardware="gpu", framework="f", precision="p"),
        isl=1024,
        osl=1024,
        concurrency=concurrency,
        throughput_per_gpu=throughput,
        output_throughput_per_gpu=output,
        interactivity=x,
        provenance=Provenance(dataset="d", source_file="f", record=str(i)),
    )


@st.composite
def side_points(draw: st.DrawFn) -> list[BenchmarkPoint]:
    """A frontier of 1–8 knots (rising interactivity, falling throughput), sometimes none, plus a
    few dominated points the frontier drops."""
    if draw(st.integers(0, 9)) == 0:
        return []
    xs = draw(knot_xs())
    n = len(xs)
    throughputs = sorted(
        draw(st.lists(st.floats(1.0, 20000.0) | st.integers(1, 20000).map(float), min_size=n, max_size=n, unique=True)),
        reverse=True,
    )
    concurrencies = draw(st.lists(st.integers(1, 20000), min_size=n, max_size=n))
    output_kind = draw(st.sampled_from(["all", "none", "some"]))
    outputs: list[float | None] = [
        None if output_kind == "none" or (output_kind == "some" and i == 0) else t * draw(st.floats(0.01, 1.0))
        for i, t in enumerate(throughputs)
    ]
    points = [point(x, t, c, o, i) for i, (x, t, c, o) in enumerate(zip(xs, throughputs, concurrencies, outputs, strict=True))]
    for j in range(draw(st.integers(0, 3))):
        x = draw(st.sampled_from(xs) | st.floats(xs[0], xs[-1]))
        t = draw(st.floats(0.001, 1.0)) * throughputs[-1]
        points.append(point(x, t, draw(st.integers(1, 100)), None, n + j))
    return draw(st.permutations(points))


constants = st.builds(
    Constants,
    usd_per_gpu_hour=st.none() | st.floats(0.05, 50.0) | st.sampled_from([1.95, 2.5, 3.0]),
    watts_all_in=st.none() | st.floats(100.0, 5000.0) | st.sampled_from([2170.0, 1400.0]),
)
labels = st.sampled_from(["FP4", "FP8", "MTP", "off", "B200", "H200"]) | st.text(min_size=1, max_size=12)


@st.composite
def comparison_case(draw: st.DrawFn) -> tuple[list[list[BenchmarkPoint]], list[Constants], list[str], list[float]]:
    sides = [draw(side_points()), draw(side_points())]
    xs = sorted(p.interactivity for side in sides for p in side) or [50.0]
    lo, hi = xs[0], xs[-1]
    targets = draw(
        st.lists(
            st.one_of(
                st.sampled_from(xs),  # exactly at a knot (of one side or the other)
                st.floats(lo, hi),  # inside
                st.floats(lo, hi).map(lambda x: float(round(x))),  # a whole number, as the defaults are
                st.floats(1e-6, 100.0).map(lambda d: lo - d),  # below
                st.floats(1e-6, 100.0).map(lambda d: hi + d),  # above
            ),
            min_size=3,
            max_size=8,
        )
    )
    return sides, [draw(constants), draw(constants)], [draw(labels), draw(labels)], targets


def knots(curves: SideCurves) -> list[list[float | int | None]]:
    """The page's knots for a side, with output throughput as an optional fourth column."""
    return [
        [p.interactivity, p.throughput_per_gpu, p.concurrency, p.output_throughput_per_gpu] for p in curves.frontier
    ]


def python_column(
    curves: list[SideCurves], consts: list[Constants], names: list[str], target: float
) -> dict[str, Any]:
    """One target of the table as the build computes it (render.metric_cells)."""
    ats = [metrics_at(c, target, k) for c, k in zip(curves, consts, strict=True)]
    both = all(at.measured for at in ats)
    winners, texts = {}, {}
    for metric in METRICS:
        values = [at.values.get(metric.key) for at in ats]
        winners[metric.key] = winner(values[0], values[1], metric.better) if both else None
        texts[metric.key] = [
            "not measured" if not at.measured else "n/a" if v is None else metric.prefix + fixed(v, metric.decimals)
            for at, v in zip(ats, values, strict=True)
        ]
    return {
        "sides": [
            {
                "measured": at.measured,
                "range": at.measured_range,
                "values": dict(at.values),
                "missing": {key: list(names_) for key, names_ in at.missing.items()},
                "reason": None if at.measured else range_reason(label, at.measured_range),
            }
            for at, label in zip(ats, names, strict=True)
        ],
        "winners": winners,
        "texts": texts,
    }


@BATCHES
@given(st.lists(comparison_case(), min_size=25, max_size=25))
def test_metrics_at_targets(node: str, batch: list[Any]) -> None:
    cases, expected = [], []
    table = page_table(METRICS)  # every metric, the shown ones and the download-only ones
    for sides, consts, names, targets in batch:
        curves = [SideCurves(side) for side in sides]
        cases.append(
            {
                "labels": names,
                "tie": TIE_TOLERANCE,
                "metrics": table,
                "targets": targets,
                "sides": [
                    {"knots": knots(c), "usd_per_gpu_hour": k.usd_per_gpu_hour, "watts_all_in": k.watts_all_in}
                    for c, k in zip(curves, consts, strict=True)
                ],
            }
        )
        expected.append([python_column(curves, consts, names, t) for t in targets])
    answers = run_engine(node, {"metrics": cases})
    Comparison().assert_equal(expected, answers["metrics"], "metrics")


def test_the_page_metric_table_is_what_the_script_reads() -> None:
    """The page sends the shown metrics; every formula reads only names the script knows."""
    assert [m["key"] for m in page_table()] == [m.key for m in SHOWN]
    known = set(NAMES)

    def names(expr: Expr) -> Iterator[str]:
        if isinstance(expr, str):
            yield expr
        elif isinstance(expr, list):
            for operand in expr[1:]:
                yield from names(operand)

    for metric in METRICS:
        assert set(names(metric.formula)) <= known, metric.key


def test_one_file_for_node_and_the_browser(node: str) -> None:
    """engine.js is both a CommonJS module and a plain script defining window.SiteEngine."""
    answers = run_engine(node, {})
    assert answers["node_exports"] == EXPORTS
    assert answers["browser_global"] == EXPORTS
    text = ENGINE.read_text(encoding="utf-8")
    assert '"use strict"' in text and "require(" not in text and "import " not in text
