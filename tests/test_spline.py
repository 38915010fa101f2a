"""The Steffen monotone spline: exact at knots, monotone, linear for two knots, d3-identical."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.engine.spline import MonotoneSpline, steffen_tangents


def d3_monotone_x_segments(
    xs: list[float], ys: list[float]
) -> list[tuple[float, float, float, float, float, float, float, float]]:
    """The cubic Béziers d3-shape's curveMonotoneX emits, written out from its source.

    d3 (ISC licence) computes slope3 at interior points, slope2 at the ends, and draws each
    segment as bezierCurveTo(x0 + dx/3, y0 + dx*t0/3, x1 - dx/3, y1 - dx*t1/3, x1, y1).
    """

    def sign(v: float) -> int:
        return -1 if v < 0 else 1  # d3's sign(): 0 counts as positive

    def slope3(x0: float, y0: float, x1: float, y1: float, x2: float, y2: float) -> float:
        h0, h1 = x1 - x0, x2 - x1
        s0, s1 = (y1 - y0) / h0, (y2 - y1) / h1
        p = (s0 * h1 + s1 * h0) / (h0 + h1)
        return (sign(s0) + sign(s1)) * min(abs(s0), abs(s1), 0.5 * abs(p)) or 0.0

    def slope2(x0: float, y0: float, x1: float, y1: float, t: float) -> float:
        h = x1 - x0
        return (3 * (y1 - y0) / h - t) / 2 if h else t

    n = len(xs)
    tangents = [0.0] * n
    for i in range(1, n - 1):
        tangents[i] = slope3(xs[i - 1], ys[i - 1], xs[i], ys[i], xs[i + 1], ys[i + 1])
    tangents[0] = slope2(xs[0], ys[0], xs[1], ys[1], tangents[1])
    tangents[-1] = slope2(xs[-2], ys[-2], xs[-1], ys[-1], tangents[-2])
    segments = []
    for i in range(n - 1):
        x0, y0, x1, y1 = xs[i], ys[i], xs[i + 1], ys[i + 1]
        dx = (x1 - x0) / 3
        segments.append((x0, y0, x0 + dx, y0 + dx * tangents[i], x1 - dx, y1 - dx * tangents[i + 1], x1, y1))
    return segments


def bezier_y_at(segments: Sequence[tuple[float, ...]], x: float) -> float:
    for x0, y0, _cx1, cy1, _cx2, cy2, x1, y1 in segments:
        if x0 <= x <= x1:
            # Control x's are evenly spaced, so the Bézier parameter is linear in x.
            t = (x - x0) / (x1 - x0)
            u = 1 - t
            return u**3 * y0 + 3 * u * u * t * cy1 + 3 * u * t * t * cy2 + t**3 * y1
    raise ValueError("outside")


def test_exact_at_knots() -> None:
    xs, ys = [10.0, 20.5, 33.0, 60.0], [900.0, 610.2, 300.0, 120.0]
    spline = MonotoneSpline(xs, ys)
    assert [spline.value(x) for x in xs] == ys


def test_two_knots_is_the_straight_line() -> None:
    spline = MonotoneSpline([10.0, 30.0], [500.0, 100.0])
    assert spline.value(15.0) == pytest.approx(400.0, rel=1e-12)
    assert spline.value(20.0) == pytest.approx(300.0, rel=1e-12)


def test_one_knot_has_a_value_only_there() -> None:
    spline = MonotoneSpline([42.0], [777.0])
    assert spline.value(42.0) == 777.0
    assert spline.value(42.0001) is None
    assert spline.value(41.9999) is None


def test_no_value_outside_the_knots() -> None:
    spline = MonotoneSpline([10.0, 20.0, 40.0], [900.0, 500.0, 100.0])
    assert spline.value(9.999) is None
    assert spline.value(40.001) is None
    assert spline.value(10.0) == 900.0


def test_known_values() -> None:
    # Worked by hand: tangents at x=2 and x=4 are Steffen's, ends d3's one-sided rule.
    spline = MonotoneSpline([1, 2, 4, 7], [10, 8, 3, 1])
    # secants -2, -2.5, -2/3; interior: -2·min(2, 2.5, 13/12) and -2·min(2.5, 2/3, 53/60);
    # ends: (3·(-2) + 13/6) / 2 and (3·(-2/3) + 4/3) / 2.
    assert spline.tangents == pytest.approx([-23 / 12, -13 / 6, -4 / 3, -1 / 3], rel=1e-12)
    assert spline.value(3.0) == pytest.approx(5.291666666666667, rel=1e-12)
    assert spline.value(1.5) == pytest.approx(9.03125, rel=1e-12)


def test_flat_neighbour_gives_zero_tangent() -> None:
    tangents = steffen_tangents([0.0, 1.0, 2.0], [5.0, 5.0, 3.0])
    assert tangents[1] == 0.0


def test_rejects_unsorted_knots() -> None:
    with pytest.raises(ValueError):
        MonotoneSpline([1.0, 1.0], [2.0, 3.0])


knot_sets = st.integers(min_value=3, max_value=9).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.5, 50.0), min_size=n - 1, max_size=n - 1),
        st.floats(1.0, 200.0),
        st.lists(st.floats(-500.0, 500.0), min_size=n, max_size=n),
    )
)


def _knots(data: tuple[list[float], float, list[float]]) -> tuple[list[float], list[float]]:
    gaps, start, ys = data
    xs = [start]
    for gap in gaps:
        xs.append(xs[-1] + gap)
    return xs, ys


@settings(max_examples=300, deadline=None)
@given(knot_sets, st.floats(0.0, 1.0))
def test_equals_d3_curve_monotone_x(data: tuple[list[float], float, list[float]], where: float) -> None:
    xs, ys = _knots(data)
    x = min(xs[0] + where * (xs[-1] - xs[0]), xs[-1])  # rounding may step past the last knot
    ours = MonotoneSpline(xs, ys).value(x)
    theirs = bezier_y_at(d3_monotone_x_segments(xs, ys), x)
    assert ours is not None
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(knot_sets)
def test_monotone_between_knots_and_no_overshoot(data: tuple[list[float], float, list[float]]) -> None:
    xs, ys = _knots(data)
    spline = MonotoneSpline(xs, ys)
    for i in range(len(xs) - 1):
        lo, hi = min(ys[i], ys[i + 1]), max(ys[i], ys[i + 1])
        samples = [spline.value(xs[i] + k / 20 * (xs[i + 1] - xs[i])) for k in range(21)]
        values = [v for v in samples if v is not None]
        assert len(values) == 21
        tol = 1e-9 * max(1.0, abs(lo), abs(hi))
        assert all(lo - tol <= v <= hi + tol for v in values)
        steps = [b - a for a, b in itertools.pairwise(values)]
        if ys[i + 1] >= ys[i]:
            assert all(s >= -tol for s in steps)
        else:
            assert all(s <= tol for s in steps)
        assert all(math.isfinite(v) for v in values)


@settings(max_examples=100, deadline=None)
@given(knot_sets, st.lists(st.floats(-10.0, 600.0), min_size=1, max_size=20))
def test_vectorised_values_equal_scalar_value(
    data: tuple[list[float], float, list[float]], probes: list[float]
) -> None:
    xs, ys = _knots(data)
    spline = MonotoneSpline(xs, ys)
    probes = probes + xs
    for one, many in zip([spline.value(x) for x in probes], spline.values(probes), strict=True):
        assert (one is None) == (many is None)
        if one is not None and many is not None:
            assert many == pytest.approx(one, rel=1e-12, abs=1e-12)
