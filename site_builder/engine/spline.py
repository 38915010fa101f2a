"""Monotone cubic Hermite interpolation with Steffen tangents, as d3's curveMonotoneX draws.

The charts on the public pages use d3's curveMonotoneX, so a number read off our table equals
the curve a reader sees. Interior tangents follow Steffen (1990); end tangents follow d3's
one-sided rule (3·secant − neighbour tangent) / 2. Two knots give the straight line, one knot a
value at that exact interactivity only. Outside the knots there is no value: None, never a
clamped or extrapolated number. The polynomial pieces are scipy's CubicHermiteSpline through
the knots with these tangents; the page script (assets/engine.js) evaluates the same pieces.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


def steffen_tangents(xs: Sequence[float] | Floats, ys: Sequence[float] | Floats) -> Floats:
    """Tangents at each knot (xs strictly increasing); `ys` one curve, or a column per curve."""
    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)
    if len(x) < 2:
        return np.zeros_like(y)
    gaps = (x[1:] - x[:-1]).reshape(-1, *[1] * (y.ndim - 1))  # a knot's gap, against each curve
    secants = (y[1:] - y[:-1]) / gaps
    if len(x) == 2:
        return np.stack([secants[0], secants[0]])
    h0, h1, s0, s1 = gaps[:-1], gaps[1:], secants[:-1], secants[1:]
    p = (s0 * h1 + s1 * h0) / (h0 + h1)
    tangents = np.empty_like(y)
    tangents[1:-1] = (np.sign(s0) + np.sign(s1)) * np.minimum(
        np.minimum(np.abs(s0), np.abs(s1)), 0.5 * np.abs(p)
    )
    tangents[0] = (3 * secants[0] - tangents[1]) / 2
    tangents[-1] = (3 * secants[-1] - tangents[-2]) / 2
    return tangents


def _checked(xs: Sequence[float] | Floats, columns: Sequence[Sequence[float] | Floats]) -> None:
    """Knots a spline accepts: strictly rising x, every value finite, as many values as knots."""
    x = np.asarray(xs, dtype=float)
    if (x[1:] <= x[:-1]).any():
        raise ValueError("knots must have strictly increasing x")
    for ys in columns:
        if len(ys) != len(x):
            raise ValueError("xs and ys differ in length")
        if not np.isfinite(np.asarray(ys, dtype=float)).all():
            raise ValueError("knots must be finite")
    if not np.isfinite(x).all():
        raise ValueError("knots must be finite")


class MonotoneCurves:
    """Several curves on the same knots (a side's curve quantities), read together: `at(xs)`
    gives each curve's value at each x — the knot's own value at a knot, the spline between
    knots, nothing outside them."""

    def __init__(self, xs: Sequence[float] | Floats, columns: Sequence[Sequence[float] | Floats]) -> None:
        _checked(xs, columns)
        self.xs = np.asarray(xs, dtype=float)
        self.columns = np.asarray(columns, dtype=float).reshape(len(columns), len(self.xs)).T  # knot by curve
        self.tangents = steffen_tangents(self.xs, self.columns)
        self._knots = {x: n for n, x in enumerate(self.xs.tolist())}
        self._spline = None
        if len(self.xs) >= 2 and self.columns.shape[1]:
            # imported here: a build that makes no page (a rebuild from the page cache) needs none
            from scipy.interpolate import CubicHermiteSpline

            self._spline = CubicHermiteSpline(self.xs, self.columns, self.tangents, extrapolate=False)

    def covers(self, x: float) -> bool:
        return bool(len(self.xs)) and self.xs[0] <= x <= self.xs[-1]

    def knot(self, x: float) -> int | None:
        """The index of the knot at exactly x, if one is."""
        return self._knots.get(x)

    def at(self, xs: Sequence[float]) -> list[list[float] | None]:
        """Each curve's value at each x (exact at a knot), or None outside the knots."""
        found: list[list[float] | None] = [None] * len(xs)
        between: list[int] = []  # not at a knot, inside them: the spline's
        for i, x in enumerate(xs):
            knot = self.knot(x)
            if knot is not None:  # exact at knots, whatever floating point makes of the polynomial
                found[i] = self.columns[knot].tolist()
            elif self.covers(x):
                between.append(i)
        if between and self._spline is not None:
            rows = self._spline(np.asarray(xs, dtype=float)[between]).tolist()
            for i, row in zip(between, rows, strict=True):
                found[i] = row
        return found


class MonotoneSpline:
    """One curve through its knots: `value(x)` is None outside [x_first, x_last] (the page
    script's engine.js mirrors it)."""

    def __init__(self, xs: Sequence[float], ys: Sequence[float]) -> None:
        self._curves = MonotoneCurves(xs, [ys])
        self.xs = self._curves.xs.tolist()
        self.ys = [float(y) for y in ys]
        self.tangents = self._curves.tangents[:, 0].tolist() if len(self.xs) else []

    def covers(self, x: float) -> bool:
        return self._curves.covers(x)

    def value(self, x: float) -> float | None:
        found = self._curves.at([x])[0]
        return None if found is None else found[0]

    def values(self, xs: Sequence[float]) -> list[float | None]:
        return [None if found is None else found[0] for found in self._curves.at(xs)]
