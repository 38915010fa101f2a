"""Monotone cubic Hermite interpolation with Steffen tangents, as d3's curveMonotoneX draws.

The charts on the public pages use d3's curveMonotoneX, so a number read off our table equals
the curve a reader sees. Interior tangents follow Steffen (1990); end tangents follow d3's
one-sided rule (3·secant − neighbour tangent) / 2. Two knots give the straight line, one knot a
value at that exact interactivity only. Outside the knots there is no value: None, never a
clamped or extrapolated number.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy is imported where a spline is first built: a rebuild making no page needs none
    from scipy.interpolate import CubicHermiteSpline


def _sign(value: float) -> float:
    return 1.0 if value > 0 else -1.0 if value < 0 else 0.0


def steffen_tangents(xs: Sequence[float], ys: Sequence[float]) -> list[float]:
    """Tangents at each knot; xs must be strictly increasing."""
    n = len(xs)
    if n < 2:
        return [0.0] * n
    secants = [(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(n - 1)]
    if n == 2:
        return [secants[0], secants[0]]
    tangents = [0.0] * n
    for i in range(1, n - 1):
        h0, h1 = xs[i] - xs[i - 1], xs[i + 1] - xs[i]
        s0, s1 = secants[i - 1], secants[i]
        p = (s0 * h1 + s1 * h0) / (h0 + h1)
        tangents[i] = (_sign(s0) + _sign(s1)) * min(abs(s0), abs(s1), 0.5 * abs(p))
    tangents[0] = (3 * secants[0] - tangents[1]) / 2
    tangents[-1] = (3 * secants[-1] - tangents[-2]) / 2
    return tangents


def steffen_columns(xs: Sequence[float], columns: Sequence[Sequence[float]]) -> list[list[float]]:
    """`steffen_tangents(xs, ys)` for each curve on the same knots, bit for bit (the same
    operations on the same operands), the knots' gaps worked out once for all the curves."""
    n = len(xs)
    if n < 3:
        return [steffen_tangents(xs, ys) for ys in columns]
    gaps = [b - a for a, b in itertools.pairwise(xs)]
    inner = [(h0, h1, h0 + h1) for h0, h1 in itertools.pairwise(gaps)]
    found = []
    for ys in columns:
        secants = [(b - a) / h for a, b, h in zip(ys, ys[1:], gaps, strict=False)]
        tangents = [0.0] * n
        i = 1
        for (h0, h1, span), s0, s1 in zip(inner, secants, secants[1:], strict=False):
            p = (s0 * h1 + s1 * h0) / span
            sign = (1.0 if s0 > 0 else -1.0 if s0 < 0 else 0.0) + (1.0 if s1 > 0 else -1.0 if s1 < 0 else 0.0)
            tangents[i] = sign * min(abs(s0), abs(s1), 0.5 * abs(p))
            i += 1
        tangents[0] = (3 * secants[0] - tangents[1]) / 2
        tangents[-1] = (3 * secants[-1] - tangents[-2]) / 2
        found.append(tangents)
    return found


def load_scipy() -> None:
    """Import scipy's interpolation now: a build imports it before it forks its workers, which
    then share it rather than each importing it (about 0.6 s of CPU a worker)."""
    import scipy.interpolate  # noqa: F401


def hermite_spline(xs: Sequence[float], ys: Sequence[float], tangents: Sequence[float]) -> CubicHermiteSpline:
    """scipy's CubicHermiteSpline through knots MonotoneCurves has checked (at least two, finite,
    strictly increasing x): its coefficients computed as its constructor computes them, array
    operation for array operation (a test compares them bit for bit), without the input checks
    that cost most of its construction."""
    return _hermite(np.array(xs, dtype=float), np.array(ys, dtype=float), np.array(tangents, dtype=float))


def hermite_columns(
    xs: Sequence[float], columns: Sequence[Sequence[float]], tangents: Sequence[Sequence[float]]
) -> CubicHermiteSpline:
    """One scipy spline through several curves on the same knots (a column each): its
    coefficients, column by column, are `hermite_spline`'s of that curve, and scipy evaluates
    each column with its own arithmetic, so every value is the one curve's own spline would give,
    bit for bit (a test compares them); built and evaluated once for all the columns."""
    y = np.array(columns, dtype=float).T  # knot by column
    return _hermite(np.array(xs, dtype=float), y, np.array(tangents, dtype=float).T)


def _hermite(x: np.ndarray, y: np.ndarray, slopes: np.ndarray) -> CubicHermiteSpline:
    """CubicHermiteSpline's coefficients through a curve (y 1-D) or curves (a column each)."""
    from scipy.interpolate import CubicHermiteSpline

    if not np.isfinite(slopes).all():  # scipy's constructor says why it refuses them
        return CubicHermiteSpline(x, y, slopes, extrapolate=False)
    # np.diff and np.stack as the constructor calls them, written as the array operations they
    # are (b - a; one array filled row by row): the same values, without their calls' overhead
    dx = x[1:] - x[:-1]
    if y.ndim > 1:
        dx = dx.reshape(-1, *[1] * (y.ndim - 1))  # a knot's gap, against each column
    slope = (y[1:] - y[:-1]) / dx
    t = (slopes[:-1] + slopes[1:] - 2 * slope) / dx
    c = np.empty((4, *y[:-1].shape))
    c[0] = t / dx
    c[1] = (slope - slopes[:-1]) / dx - t
    c[2] = slopes[:-1]
    c[3] = y[:-1]
    spline: CubicHermiteSpline = CubicHermiteSpline.construct_fast(c, x, extrapolate=False)
    return spline


def _checked_knots(xs: Sequence[float]) -> None:
    """Knots a spline accepts: strictly rising x, all finite."""
    if any(map(operator.ge, xs[:-1], xs[1:])):  # some b <= a, a knot after a
        raise ValueError("knots must have strictly increasing x")
    if not all(map(math.isfinite, xs)):
        raise ValueError("knots must be finite")


class MonotoneSpline:
    """y(x) through the knots; `value` returns None outside [x_first, x_last]: MonotoneCurves
    with one curve (the page script's engine.js mirrors this one)."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        self._curves = MonotoneCurves(xs, [ys])
        self.xs, self.ys, self.tangents = self._curves.xs, self._curves.columns[0], self._curves.tangents[0]

    @property
    def _built(self) -> CubicHermiteSpline | None:
        """scipy's spline, once built (when first evaluated between knots)."""
        return self._curves._built

    def covers(self, x: float) -> bool:
        return self._curves.covers(x)

    def value(self, x: float) -> float | None:
        values = self._curves.at(x)
        return None if values is None else values[0]

    def values(self, xs: Sequence[float]) -> list[float | None]:
        """`value` at many points, those between knots in one vectorised call (a side's targets,
        a chart's samples); each remembered, as a page asks for the same targets again."""
        self._curves.prepare(xs)
        return [self.value(x) for x in xs]


class MonotoneCurves:
    """Several MonotoneSplines on the same knots (a side's curve quantities), read together:
    `at(x)` is each curve's `value(x)`, bit for bit, from one scipy spline for all of them
    (hermite_columns), built when first evaluated between knots; None outside the knots."""

    def __init__(self, xs: Sequence[float], columns: Sequence[Sequence[float]]) -> None:
        _checked_knots(xs)  # the knots once, then each curve's values
        for ys in columns:
            if len(ys) != len(xs):
                raise ValueError("xs and ys differ in length")
            if not all(map(math.isfinite, ys)):
                raise ValueError("knots must be finite")
        self.xs = list(map(float, xs))
        self.columns = [list(map(float, ys)) for ys in columns]
        self.tangents = steffen_columns(self.xs, self.columns)
        self._knot = dict(zip(self.xs, range(len(self.xs)), strict=True))
        self._built: CubicHermiteSpline | None = None
        self._between: dict[float, list[float]] = {}  # every curve's value between knots, so far

    def covers(self, x: float) -> bool:
        return bool(self.xs) and self.xs[0] <= x <= self.xs[-1]

    def knot(self, x: float) -> int | None:
        """The index of the knot at exactly x, if one is."""
        return self._knot.get(x)

    def at(self, x: float) -> list[float] | None:
        """Each curve's value at x (exact at a knot), or None outside the knots."""
        if not self.covers(x):
            return None
        knot = self._knot.get(x)
        if knot is not None:  # exact at knots, whatever floating point makes of the polynomial
            return [ys[knot] for ys in self.columns]
        known = self._between.get(x)
        if known is None:
            self.prepare([x])
            known = self._between[x]
        return known

    def prepare(self, xs: Sequence[float]) -> None:
        """Evaluate every curve between knots at these xs in one vectorised call; remembered,
        as a page asks for the same targets again."""
        between = [x for x in xs if self.covers(x) and x not in self._knot and x not in self._between]
        if not between or not self.columns:
            return
        if self._built is None:
            self._built = hermite_columns(self.xs, self.columns, self.tangents)
        rows = self._built(np.asarray(between, dtype=float)).tolist()
        self._between.update(zip(between, rows, strict=True))
