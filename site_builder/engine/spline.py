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

import numpy as np
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
        self._spline = (
            CubicHermiteSpline(
                np.array(self.xs), np.array(self.ys), np.array(self.tangents), extrapolate=False
            )
            if len(self.xs) >= 2
            else None
        )

    def covers(self, x: float) -> bool:
        return bool(self.xs) and self.xs[0] <= x <= self.xs[-1]

    def value(self, x: float) -> float | None:
        if not self.covers(x):
            return None
        if self._spline is None:
            return self.ys[0]
        # Exact at knots, whatever floating point makes of the polynomial there.
        for knot_x, knot_y in zip(self.xs, self.ys, strict=True):
            if x == knot_x:
                return knot_y
        return float(self._spline(x))

    def values(self, xs: Sequence[float]) -> list[float | None]:
        """`value` at many points in one vectorised call (charts sample curves densely)."""
        if self._spline is None or not xs:
            return [self.value(x) for x in xs]
        computed = self._spline(np.asarray(xs, dtype=float))
        exact = dict(zip(self.xs, self.ys, strict=True))
        out: list[float | None] = []
        for x, y in zip(xs, computed.tolist(), strict=True):
            if not self.covers(x):
                out.append(None)
            else:
                out.append(exact.get(x, y))
        return out
