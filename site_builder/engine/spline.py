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


def hermite_spline(xs: Sequence[float], ys: Sequence[float], tangents: Sequence[float]) -> CubicHermiteSpline:
    """scipy's CubicHermiteSpline through knots MonotoneSpline has checked (at least two, finite,
    strictly increasing x): its coefficients computed as its constructor computes them, array
    operation for array operation (a test compares them bit for bit), without the input checks
    that cost most of its construction."""
    from scipy.interpolate import CubicHermiteSpline

    x, y, slopes = np.array(xs, dtype=float), np.array(ys, dtype=float), np.array(tangents, dtype=float)
    if not np.all(np.isfinite(slopes)):  # scipy's constructor says why it refuses them
        return CubicHermiteSpline(x, y, slopes, extrapolate=False)
    dx = np.diff(x)
    slope = np.diff(y) / dx
    t = (slopes[:-1] + slopes[1:] - 2 * slope) / dx
    c = np.stack((t / dx, (slope - slopes[:-1]) / dx - t, slopes[:-1], y[:-1]))
    spline: CubicHermiteSpline = CubicHermiteSpline.construct_fast(c, x, extrapolate=False)
    return spline


class MonotoneSpline:
    """y(x) through the knots; `value` returns None outside [x_first, x_last]."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        if len(xs) != len(ys):
            raise ValueError("xs and ys differ in length")
        if any(b <= a for a, b in itertools.pairwise(xs)):
            raise ValueError("knots must have strictly increasing x")
        if not all(math.isfinite(v) for v in (*xs, *ys)):
            raise ValueError("knots must be finite")
        self.xs = [float(x) for x in xs]
        self.ys = [float(y) for y in ys]
        self.tangents = steffen_tangents(self.xs, self.ys)
        self._exact = dict(zip(self.xs, self.ys, strict=True))
        self._built: CubicHermiteSpline | None = None
        self._between: dict[float, float] = {}  # values between knots computed so far

    @property
    def _spline(self) -> CubicHermiteSpline | None:
        """scipy's spline, built when first evaluated between knots (a curve read at its knots
        only, or not at all, never builds one); None with fewer than two knots."""
        if self._built is None and len(self.xs) >= 2:
            self._built = hermite_spline(self.xs, self.ys, self.tangents)
        return self._built

    def covers(self, x: float) -> bool:
        return bool(self.xs) and self.xs[0] <= x <= self.xs[-1]

    def value(self, x: float) -> float | None:
        if not self.covers(x):
            return None
        # Exact at knots, whatever floating point makes of the polynomial there.
        exact = self._exact.get(x)
        if exact is not None:
            return exact
        if len(self.xs) < 2:
            return self.ys[0]
        known = self._between.get(x)
        if known is None:
            self.values([x])
            known = self._between[x]
        return known

    def values(self, xs: Sequence[float]) -> list[float | None]:
        """`value` at many points, those between knots in one vectorised call (a side's targets,
        a chart's samples); each remembered, as a page asks for the same targets again."""
        between = [x for x in xs if self.covers(x) and x not in self._exact and x not in self._between]
        spline = self._spline if between else None
        if spline is not None:
            computed = spline(np.asarray(between, dtype=float)).tolist()
            self._between.update(zip(between, computed, strict=True))
        return [
            None
            if not self.covers(x)
            else self._exact.get(x, self.ys[0] if len(self.xs) < 2 else self._between.get(x))
            for x in xs
        ]
