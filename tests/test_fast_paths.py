"""The compute stage's fast paths give exactly what the plain definitions they replace give.

Each fast path (one scipy spline for all of a side's curves, compiled metric formulas, a knot
found by bisection, a summary copied from its configuration's template) is compared here, bit
for bit, with a plain computation written in the test: a spline a curve, `metrics.evaluate`
walking the formula, a scan over the knots, a validated `PointSummary`.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder import metrics
from site_builder.engine import compare
from site_builder.engine.compare import SPARSE_RATIO, AtTarget, Constants, SideCurves, metrics_at
from site_builder.engine.frontier import pareto_frontier
from site_builder.engine.spline import (
    MonotoneCurves,
    MonotoneSpline,
    hermite_columns,
    hermite_spline,
    steffen_columns,
    steffen_tangents,
)
from site_builder.points import BenchmarkPoint, Configuration
from site_builder.present import result as comparison_json
from site_builder.present.result import metrics_at as output_metrics_at
from site_builder.present.result import summarize
from site_builder.present.schema import MetricsAtTarget, PointSummary, SideResult
from site_builder.read.provenance import Provenance
from tests.factories import SideInput, compare_sequence, constants, point


def bits(value: float | None) -> bytes | None:
    """A float's exact bits (so -0.0 and 0.0, or two NaNs, are told apart as floats are)."""
    return None if value is None else struct.pack("<d", value)


# -- one scipy spline for several curves on the same knots ------------------------------------

knot_xs = st.lists(st.floats(0.5, 500.0), min_size=1, max_size=9, unique=True).map(sorted)


@st.composite
def curve_set(draw: st.DrawFn) -> tuple[list[float], list[list[float]], list[float]]:
    xs = draw(knot_xs)
    count = draw(st.integers(1, 4))
    columns = [draw(st.lists(st.floats(0.01, 1e6), min_size=len(xs), max_size=len(xs))) for _ in range(count)]
    probes = draw(st.lists(st.floats(0.0, 600.0), max_size=6))
    # between knots, at knots, and halfway across
    return xs, columns, [*probes, *xs, (xs[0] + xs[-1]) / 2]


@settings(max_examples=200, deadline=None)
@given(curve_set())
def test_curves_read_together_are_each_curves_own_spline_bit_for_bit(
    case: tuple[list[float], list[list[float]], list[float]],
) -> None:
    xs, columns, probes = case
    together = MonotoneCurves(xs, columns)
    singles = [MonotoneSpline(xs, ys) for ys in columns]
    together.prepare(probes[: len(probes) // 2])  # some prepared in one call, the rest one by one
    for x in probes:
        got = together.at(x)
        expected = [spline.value(x) for spline in singles]
        if not xs[0] <= x <= xs[-1]:
            assert got is None and expected == [None] * len(columns)
        else:
            assert got is not None
            assert [bits(v) for v in got] == [bits(v) for v in expected]


@settings(max_examples=200, deadline=None)
@given(curve_set().filter(lambda case: len(case[0]) >= 2))
def test_hermite_columns_are_hermite_spline_column_by_column(
    case: tuple[list[float], list[list[float]], list[float]],
) -> None:
    xs, columns, probes = case
    tangents = [steffen_tangents(xs, ys) for ys in columns]
    together = hermite_columns(xs, columns, tangents)
    grid = np.array(probes)
    for j, (ys, slopes) in enumerate(zip(columns, tangents, strict=True)):
        alone = hermite_spline(xs, ys, slopes)
        assert together.c[:, :, j].tobytes() == alone.c.tobytes()
        assert together(grid)[:, j].tobytes() == alone(grid).tobytes()


def test_curves_at_a_knot_are_the_knots_values_and_build_no_spline() -> None:
    curves = MonotoneCurves([1.0, 2.0, 4.0], [[30.0, 20.0, 5.0], [1.0, 2.0, 3.0]])
    assert curves.at(2.0) == [20.0, 2.0] and curves.at(0.5) is None and curves.at(4.5) is None
    assert curves._built is None
    assert curves.knot(4.0) == 2 and curves.knot(3.0) is None
    assert curves.at(3.0) is not None and curves._built is not None
    # two knots are a straight line: halfway from (1, 30) to (3, 10) is 20, from (1, 1) to (3, 3) is 2
    line = MonotoneCurves([1.0, 3.0], [[30.0, 10.0], [1.0, 3.0]])
    assert line.at(2.0) == [20.0, 2.0]


# -- compiled metric formulas ---------------------------------------------------------------------

names = st.sampled_from([*metrics.CURVE_QUANTITIES, *metrics.CONSTANTS])
leaves = st.one_of(names, st.floats(-1e6, 1e6), st.integers(-1000, 1000))
expressions = st.recursive(
    leaves,
    lambda inner: st.tuples(
        st.sampled_from(["+", "-", "*", "/"]), st.lists(inner, min_size=2, max_size=4)
    ).map(lambda t: [t[0], *t[1]]),
    max_leaves=10,
)
value_maps = st.fixed_dictionaries(
    {
        name: st.one_of(st.none(), st.floats(-1e9, 1e9))
        for name in [*metrics.CURVE_QUANTITIES, *metrics.CONSTANTS]
    }
)


def outcome(run: Any) -> Any:
    try:
        return ("value", bits(run()))
    except ZeroDivisionError:
        return ("raises", ZeroDivisionError)


@settings(max_examples=300, deadline=None)
@given(expressions, value_maps)
def test_a_compiled_formula_is_evaluate_bit_for_bit(
    expr: metrics.Expr, values: dict[str, float | None]
) -> None:
    compiled = metrics.compile_formula(expr)
    assert outcome(lambda: compiled(values)) == outcome(lambda: metrics.evaluate(expr, values))


def test_every_registered_formula_compiles_to_its_evaluation() -> None:
    values = {"throughput": 1234.5, "concurrency": 48.0, "output_throughput": 600.25, "users_per_gpu": 6.0}
    values |= {"usd_per_gpu_hour": 2.5, "watts_all_in": 1500.0}
    for metric, formula, read in metrics.compiled():
        assert formula(values) == metrics.evaluate(metric.formula, values)
        assert list(read) == metrics.variables(metric.formula)
    # cost: (2.5 × 10⁶) ÷ (3600 × 1234.5), by hand
    cost = next(f for m, f, _ in metrics.compiled() if m.key == "cost")
    assert cost(values) == 2.5e6 / 4444200.0
    assert cost({**values, "usd_per_gpu_hour": None}) is None


@settings(max_examples=300, deadline=None)
@given(curve_set())
def test_tangents_of_curves_on_shared_knots_are_each_curves_own_bit_for_bit(
    case: tuple[list[float], list[list[float]], list[float]],
) -> None:
    xs, columns, _ = case
    together = steffen_columns(xs, columns)
    assert [[bits(t) for t in ts] for ts in together] == [
        [bits(t) for t in steffen_tangents(xs, ys)] for ys in columns
    ]


def test_tangents_of_a_flat_and_a_turning_curve_by_hand() -> None:
    # knots 0, 1, 3: gaps 1 and 2. Flat: every secant 0, every tangent 0. Turning (0, 2, 0):
    # secants 2 and -1 differ in sign, so the middle tangent is 0 and the ends (3s - 0) / 2
    flat, turning = steffen_columns([0.0, 1.0, 3.0], [[5.0, 5.0, 5.0], [0.0, 2.0, 0.0]])
    assert flat == [0.0, 0.0, 0.0]
    assert turning == [3.0, 0.0, -1.5]


# -- a side's curves at a target: the plain definitions -------------------------------------------


def plain_stretch(curves: SideCurves, x: float) -> int | None:
    for i, knot in enumerate(curves.frontier):
        if knot.interactivity == x:
            return None
        if knot.interactivity > x:
            return i - 1 if i > 0 else None
    return None


def plain_metrics(curves: SideCurves, x: float, constants: Constants) -> dict[str, Any]:
    """metrics_at as the definitions say: a spline a complete quantity, evaluate() a metric."""
    frontier = curves.frontier
    xs = [p.interactivity for p in frontier]
    splines: dict[str, MonotoneSpline | None] = {}
    for name, attribute in metrics.CURVE_QUANTITIES.items():
        ys = [getattr(p, attribute) for p in frontier]
        splines[name] = MonotoneSpline(xs, [float(y) for y in ys]) if xs and None not in ys else None
    throughput = splines["throughput"]
    if throughput is None or throughput.value(x) is None:
        return {"measured": False}
    stretch = plain_stretch(curves, x)
    gaps = {"users_per_gpu": "gpu_count"} if splines["users_per_gpu"] is None else {}
    if stretch is not None and not (
        frontier[stretch].config == frontier[stretch + 1].config
        and frontier[stretch].concurrency >= frontier[stretch + 1].concurrency
    ):
        gaps["concurrency"] = "deployment"
    known: dict[str, float | None] = {
        name: spline.value(x) if spline is not None and name not in gaps else None
        for name, spline in splines.items()
    }
    known |= {"usd_per_gpu_hour": constants.usd_per_gpu_hour, "watts_all_in": constants.watts_all_in}
    values = {m.key: bits(metrics.evaluate(m.formula, known)) for m in metrics.METRICS}
    missing = {}
    for m in metrics.METRICS:
        lacking = tuple(
            gaps.get(n, n)
            for n in metrics.variables(m.formula)
            if n in gaps or (n in metrics.CONSTANTS and known[n] is None)
        )
        if lacking:
            missing[m.key] = lacking
    if stretch is not None:
        brackets = [frontier[stretch], frontier[stretch + 1]]
    else:
        brackets = [k for k in frontier if k.interactivity == x][:1]
    sparse = False
    if len(brackets) == 2:
        low, high = sorted(k.throughput_per_gpu for k in brackets)
        sparse = len(frontier) == 2 or high / low > SPARSE_RATIO
    return {"measured": True, "values": values, "missing": missing, "brackets": brackets, "sparse": sparse}


@st.composite
def side_points(draw: st.DrawFn) -> list[BenchmarkPoint]:
    count = draw(st.integers(1, 8))
    found = []
    for i in range(count):
        deployment = draw(st.integers(0, 2))  # few deployments: neighbours often share one
        gpus = draw(st.sampled_from([None, 4, 8]))
        found.append(
            BenchmarkPoint(
                config=Configuration(
                    model="m", hardware="gpu", framework=f"f{deployment}", precision="p", gpu_count=gpus
                ),
                isl=1024,
                osl=1024,
                concurrency=draw(st.integers(1, 512)),
                throughput_per_gpu=draw(st.floats(1.0, 50_000.0)),
                output_throughput_per_gpu=draw(st.one_of(st.none(), st.floats(1.0, 20_000.0))),
                interactivity=draw(st.sampled_from([5.0, 12.5, 20.0, 33.3, 40.0, 75.0, 120.0])),
                provenance=Provenance(dataset="d", source_file="f", record=str(i)),
            )
        )
    return found


@st.composite
def tied_points(draw: st.DrawFn) -> list[BenchmarkPoint]:
    """Points on a few interactivities, throughputs and concurrencies: ties and exact duplicates."""
    count = draw(st.integers(0, 12))
    return [
        point(
            draw(st.sampled_from([5.0, 10.0, 20.0, 40.0])),
            draw(st.sampled_from([100.0, 200.0, 300.0, 400.0])),
            draw(st.sampled_from([1, 2, 4])),
        )
        for _ in range(count)
    ]


@settings(max_examples=300, deadline=None)
@given(tied_points())
def test_a_sides_frontier_read_off_its_order_is_pareto_frontier(points: list[BenchmarkPoint]) -> None:
    plain = pareto_frontier(points)
    curves = SideCurves(points)
    assert len(curves.frontier) == len(plain)
    assert all(a is b for a, b in zip(curves.frontier, plain, strict=True))  # the same duplicate kept


def test_of_exact_duplicates_the_frontier_keeps_the_first_given_whatever_its_concurrency() -> None:
    # three points at 10 tok/s/user and 300 tok/s: the second-given has the lowest concurrency, so
    # it sorts first among them, yet the frontier keeps the first given (pareto_frontier's rule)
    first, second, third = point(10.0, 300.0, 4), point(10.0, 300.0, 1), point(10.0, 300.0, 2)
    low = point(20.0, 100.0, 8)
    curves = SideCurves([first, second, low, third])
    assert [p is q for p, q in zip(curves.frontier, [first, low], strict=True)] == [True, True]


@settings(max_examples=200, deadline=None)
@given(
    side_points(),
    st.lists(st.floats(0.0, 150.0) | st.sampled_from([5.0, 12.5, 20.0, 40.0, 120.0]), max_size=5),
    st.sampled_from([Constants(1.5, 1000.0), Constants(None, 800.0), Constants(2.0, None)]),
)
def test_metrics_at_is_the_plain_definition(
    points: list[BenchmarkPoint], targets: list[float], constants: Constants
) -> None:
    curves = SideCurves(points)
    curves.prepare(targets[:2])
    for x in targets:
        assert curves.stretch(x) == plain_stretch(curves, x)
        at = metrics_at(curves, x, constants)
        expected = plain_metrics(curves, x, constants)
        assert at.measured == expected["measured"]
        if at.measured:
            assert {k: bits(v) for k, v in at.values.items()} == expected["values"]
            assert dict(at.missing) == expected["missing"]
            assert list(at.brackets) == expected["brackets"]
            assert all(a is b for a, b in zip(at.brackets, expected["brackets"], strict=True))
            assert at.sparse == expected["sparse"]


# -- a point's summary, copied from its configuration's template ---------------------------------


@settings(max_examples=100, deadline=None)
@given(side_points(), st.booleans())
def test_summaries_of_points_sharing_a_configuration_are_each_their_own_validated_summary(
    points: list[BenchmarkPoint], on_frontier: bool
) -> None:
    shared = points[0].config
    for i, p in enumerate(points):
        p = p.model_copy(
            update={"config": shared, "provenance": p.provenance.model_copy(update={"record": f"r{i}"})}
        )
        summary = summarize(p, on_frontier)
        gpus = shared.gpu_count
        validated = PointSummary(
            interactivity=p.interactivity,
            interactivity_source="tpot",
            throughput_per_gpu=p.throughput_per_gpu,
            output_throughput_per_gpu=p.output_throughput_per_gpu,
            concurrency=p.concurrency,
            gpu_count=gpus,
            users_per_gpu=p.concurrency / gpus if gpus else None,
            model="m",
            hardware="gpu",
            precision="p",
            framework=shared.framework,
            spec_method="none",
            disagg=False,
            parallelism="TP?",
            configuration=shared.label(),
            date=None,
            run_url=None,
            dataset="d",
            source_file="f",
            record=f"r{i}",
            client=None,
            on_frontier=on_frontier,
        )
        assert summary == validated
        assert summary.model_dump_json() == validated.model_dump_json()
        assert list(summary.__dict__) == list(PointSummary.model_fields)  # field order kept


# -- output models made without validation are what validation makes ------------------------------


@settings(max_examples=60, deadline=None)
@given(side_points(), side_points(), st.sampled_from([None, 1.5]), st.sampled_from([None, 900.0]))
def test_a_sides_and_a_targets_results_are_what_validating_the_same_fields_makes(
    a: list[BenchmarkPoint], b: list[BenchmarkPoint], usd: float | None, watts: float | None
) -> None:
    sides = [
        SideInput(
            "A",
            {"precision": "fp8", "framework": ["f0", "f1"]},
            "best available",
            "gpu",
            constants(usd, watts),
            a,
        ),
        SideInput(
            "B",
            {"precision": "fp4", "disagg": False},
            "narrowed: framework=f0",
            "gpu",
            constants(usd, watts),
            b,
        ),
    ]
    result = compare_sequence(1024, 1024, "1k/1k", sides, [5.0, 12.5, 30.0, 100.0])
    for side in result.sides:
        validated = SideResult(**side.__dict__)
        assert side == validated and side.model_dump_json() == validated.model_dump_json()
        assert side.model_fields_set == validated.model_fields_set
        assert side.filters is not sides[0].filters and side.filters is not sides[1].filters
    for target in result.results:
        for at in target.sides:
            given_fields = {k: v for k, v in at.__dict__.items() if k in at.model_fields_set}
            validated_at = MetricsAtTarget(**given_fields)
            assert at == validated_at and at.model_dump_json() == validated_at.model_dump_json()
            assert at.model_fields_set == validated_at.model_fields_set


def test_a_metric_value_that_is_not_a_float_goes_through_validation() -> None:
    # an engine value that is an int (a registry formula reading a constant alone could give one)
    # is made a float by validation, as before; a float-only result is made without it
    knots = (point(20.0, 2000.0, 64), point(40.0, 1000.0, 16))
    at = AtTarget(measured=True, values={"throughput": 1500.0, "concurrency": 40}, brackets=knots)
    made = output_metrics_at(at, "A", constants())
    assert made.values == {"throughput_per_gpu": 1500.0, "concurrency": 40.0}
    assert type(made.values["concurrency"]) is float
    assert [k.interactivity for k in made.brackets] == [20.0, 40.0]
    assert all(k.on_frontier for k in made.brackets)


# -- what a side shows of its frontier, made once for the pages that show it ----------------------


@settings(max_examples=60, deadline=None)
@given(side_points(), side_points())
def test_a_sides_frontier_facts_are_read_off_its_frontier_and_pages_showing_it_share_its_result(
    a: list[BenchmarkPoint], b: list[BenchmarkPoint]
) -> None:
    # the memos a side's result passes through are emptied when full (memo.py), so the sharing
    # holds while they have room: each example starts them empty, or one filling up between two
    # calls of this example (after the suite's other tests and examples) would part them
    for memo in (compare._SIDE_CURVES, comparison_json._SIDES_SHOWN, comparison_json._SIDE_RESULTS):
        memo.clear()
    sides = [
        SideInput("A", {"precision": "p"}, "best available", "gpu", constants(1.5, 900.0), a),
        SideInput("B", {"precision": "p"}, "best available", "gpu", constants(1.5, 900.0), b),
    ]
    first = compare_sequence(1024, 1024, "1k/1k", sides, [12.5, 30.0])
    again = compare_sequence(1024, 1024, "1k/1k", sides, [12.5, 30.0])  # another page, same sides
    renamed = [dataclasses.replace(side, label="C") for side in sides]  # the same points under another label
    named_otherwise = compare_sequence(1024, 1024, "1k/1k", renamed, [12.5, 30.0])
    for side, other, points, renamed_side in zip(
        first.sides, again.sides, (a, b), named_otherwise.sides, strict=True
    ):
        frontier = pareto_frontier(points)
        assert side.engines == sorted({p.config.framework for p in frontier})
        assert side.precisions == ["p"] and side.spec_methods == ["none"] and side.modes == ["agg"]
        assert side.parallelisms == ["TP?"]
        assert side.unknown_gpu_counts == sum(1 for p in frontier if p.config.gpu_count is None)
        assert side.dates is None  # no point has a date
        assert [s.interactivity for s in side.frontier] == [p.interactivity for p in frontier]
        assert sorted(s.record for s in side.points) == sorted(p.provenance.record for p in points)
        assert side is other  # the very same result: what is derived from it is derived once
        assert renamed_side is not side and renamed_side.label == "C"
        assert renamed_side.model_dump(exclude={"label"}) == side.model_dump(exclude={"label"})
        # the summaries' lists are the side's whatever it is called (keys of the JSON, CSV and
        # chart memos); a list of points all on the frontier is the frontier's
        assert renamed_side.frontier is side.frontier and renamed_side.points is side.points
        assert (side.points is side.frontier) == (len(side.points) == len(side.frontier))
