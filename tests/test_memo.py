"""What a build derives once a process and shares between pages: the memos, a point's summary,
a side's curves, and a spline built only when evaluated between knots."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import CubicHermiteSpline

from site_builder.engine.compare import SideCurves, side_curves
from site_builder.engine.spline import MonotoneSpline, hermite_spline, steffen_tangents
from site_builder.memo import IdentityMemo, SequenceMemo
from site_builder.present.result import summarize
from site_builder.present.schema import PointSummary
from tests.factories import point


class Thing:
    """A key whose equality is not identity: the memo must not confuse equal things."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Thing)

    def __hash__(self) -> int:
        return 0


def test_identity_memo_makes_once_per_object_and_stays_bounded() -> None:
    made: list[Thing] = []

    def make(thing: Thing) -> int:
        made.append(thing)
        return len(made)

    memo: IdentityMemo[Thing, int] = IdentityMemo(limit=2)
    a, b, c = Thing(), Thing(), Thing()
    assert (memo.get(a, make), memo.get(a, make), memo.get(b, make)) == (1, 1, 2)
    assert len(made) == 2  # a once, b once; equal but separate objects are separate entries
    assert memo.get(c, make) == 3  # full: cleared, then c kept
    assert len(memo._entries) == 1
    assert memo.get(a, make) == 4  # a was dropped with the rest: made again


def test_identity_memo_get_each_gives_each_object_its_own_value_in_order() -> None:
    made: list[Thing] = []

    def make(thing: Thing) -> int:
        made.append(thing)
        return len(made)

    memo: IdentityMemo[Thing, int] = IdentityMemo(limit=8)
    a, b, c = Thing(), Thing(), Thing()
    assert memo.get(b, make) == 1
    # a and c made (in order), b held; equal things are never each other's entry
    assert memo.get_each([a, b, c, a], make) == [2, 1, 3, 2]
    assert made == [b, a, c]
    assert memo.get_each(iter([c, b]), make) == [3, 1] and len(made) == 3
    full: IdentityMemo[Thing, int] = IdentityMemo(limit=2)
    assert full.get_each([a, b, c], make) == [4, 5, 6]  # full before c: cleared, c kept
    assert list(full._entries) == [id(c)]


def test_sequence_memo_keys_on_the_same_objects_in_the_same_order() -> None:
    calls: list[tuple[Thing, ...]] = []

    def make(items: tuple[Thing, ...]) -> int:
        calls.append(items)
        return len(calls)

    memo: SequenceMemo[Thing, int] = SequenceMemo(limit=8)
    a, b = Thing(), Thing()
    assert memo.get([a, b], make) == 1
    assert memo.get((a, b), make) == 1  # another container, the same objects: the same entry
    assert memo.get([b, a], make) == 2  # another order is another sequence
    assert memo.get([a, Thing()], make) == 3  # an equal object is not the same object
    assert memo.get([], make) == 4


def test_summary_equals_the_validated_model_and_is_made_once() -> None:
    p = point(30.0, 1000.0, 16, tp=4, date="2026-02-03")
    for on_frontier in (False, True):
        summary = summarize(p, on_frontier)
        validated = PointSummary(
            interactivity=30.0,
            interactivity_source="tpot",
            throughput_per_gpu=1000.0,
            output_throughput_per_gpu=None,
            concurrency=16,
            gpu_count=4,
            users_per_gpu=4.0,  # 16 users on 4 GPUs
            model="dsr1",
            hardware="mi355x",
            precision="fp8",
            framework="sglang",
            spec_method="none",
            disagg=False,
            parallelism="TP4",
            configuration="sglang TP4 (agg, 4 GPUs)",
            date="2026-02-03",
            run_url=None,
            dataset="test",
            source_file="test.json",
            record="record 1",
            client=None,
            on_frontier=on_frontier,
        )
        assert summary == validated
        assert summary.model_dump_json() == validated.model_dump_json()
        assert summary.model_fields_set == validated.model_fields_set
        assert summary.__pydantic_extra__ is None and summary.__pydantic_private__ is None
        assert summarize(p, on_frontier) is summary
        assert pickle.loads(pickle.dumps(summary)) == validated
    assert summarize(p, True) != summarize(p, False)


def test_summary_of_an_equal_but_separate_point_is_its_own() -> None:
    a, b = point(30.0, 1000.0), point(30.0, 1000.0, record="record 2")
    assert summarize(a, False).record == "record 1"
    assert summarize(b, False).record == "record 2"


def test_side_curves_are_shared_for_the_same_points_only() -> None:
    points = [point(10.0, 900.0, 64), point(20.0, 600.0, 32), point(40.0, 200.0, 8)]
    curves = side_curves(points)
    assert side_curves(list(points)) is curves
    assert (
        side_curves(points[::-1]) is not curves
    )  # another order: pareto_frontier may keep another duplicate
    fresh = SideCurves(points)
    assert (
        [p.interactivity for p in curves.frontier]
        == [p.interactivity for p in fresh.frontier]
        == [10.0, 20.0, 40.0]
    )
    assert curves.quantities(15.0) == fresh.quantities(15.0)
    assert [p.concurrency for p in curves.points] == [64, 32, 8]


knot_lists = st.lists(
    st.tuples(st.floats(0.5, 500.0), st.floats(1.0, 50_000.0)),
    min_size=1,
    max_size=8,
    unique_by=lambda k: k[0],
)


@settings(max_examples=200, deadline=None)
@given(knot_lists, st.lists(st.floats(0.0, 600.0), max_size=6))
def test_lazy_spline_gives_exactly_what_an_eager_scipy_spline_gives(
    knots: list[tuple[float, float]], probes: list[float]
) -> None:
    knots.sort()
    xs, ys = [k[0] for k in knots], [k[1] for k in knots]
    lazy = MonotoneSpline(xs, ys)
    eager = (
        CubicHermiteSpline(np.array(xs), np.array(ys), np.array(steffen_tangents(xs, ys)), extrapolate=False)
        if len(xs) >= 2
        else None
    )
    probes = [*probes, *xs]
    for x in probes:
        expected: float | None
        if not xs[0] <= x <= xs[-1]:
            expected = None
        elif x in xs:
            expected = ys[xs.index(x)]
        else:
            assert eager is not None
            expected = float(eager(x))
        got = lazy.value(x)
        assert got == expected or (
            got is not None and expected is not None and math.isnan(got) and math.isnan(expected)
        )
    assert lazy.values(probes) == [lazy.value(x) for x in probes]


def test_spline_read_at_its_knots_builds_no_scipy_spline() -> None:
    spline = MonotoneSpline([1.0, 2.0, 4.0], [30.0, 20.0, 5.0])
    assert [spline.value(x) for x in (1.0, 2.0, 4.0, 0.5, 5.0)] == [30.0, 20.0, 5.0, None, None]
    assert spline._built is None
    assert spline.value(3.0) is not None
    assert spline._built is not None


@settings(max_examples=200, deadline=None)
@given(knot_lists.filter(lambda knots: len(knots) >= 2), st.lists(st.floats(0.0, 600.0), max_size=6))
def test_hermite_spline_is_scipys_constructor_bit_for_bit(
    knots: list[tuple[float, float]], probes: list[float]
) -> None:
    knots.sort()
    xs, ys = [k[0] for k in knots], [k[1] for k in knots]
    tangents = steffen_tangents(xs, ys)
    ours = hermite_spline(xs, ys, tangents)
    scipys = CubicHermiteSpline(np.array(xs), np.array(ys), np.array(tangents), extrapolate=False)
    assert ours.c.tobytes() == scipys.c.tobytes() and ours.c.shape == scipys.c.shape
    assert ours.x.tobytes() == scipys.x.tobytes()
    assert (ours.extrapolate, ours.axis) == (scipys.extrapolate, scipys.axis) == (False, 0)
    grid = np.array([*probes, *xs])
    assert ours(grid).tobytes() == scipys(grid).tobytes()


def test_hermite_spline_refuses_what_scipy_refuses() -> None:
    with pytest.raises(ValueError, match="finite"):
        hermite_spline([1.0, 2.0], [1.0, 2.0], [math.inf, 1.0])


def test_prepared_targets_are_the_values_read_one_by_one() -> None:
    points = [point(10.0, 900.0, 64), point(20.0, 600.0, 32), point(40.0, 200.0, 8)]
    prepared, fresh = SideCurves(points), SideCurves(points)
    prepared.prepare([12.5, 20.0, 33.3, 50.0])
    for x in (12.5, 20.0, 33.3, 50.0):
        assert prepared.quantities(x) == fresh.quantities(x)
