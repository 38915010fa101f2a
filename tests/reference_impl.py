"""An independent implementation of the DESIGN.md definitions, on raw API rows, for cross-checks.

Deliberately shares no code with site_builder: O(n²) dominance for the frontier, d3's Bézier
form for the curve, Decimal for half-up rounding.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from tests.test_spline import bezier_y_at, d3_monotone_x_segments

Row = dict[str, Any]


def x_of(row: Row) -> float:
    return 1.0 / float(row["metrics"]["median_tpot"])


def y_of(row: Row) -> float:
    return float(row["metrics"]["tput_per_gpu"])


def frontier(rows: list[Row]) -> list[Row]:
    """Points no other point beats or equals on both axes (ties at equal x: the higher y)."""
    kept = []
    for i, r in enumerate(rows):
        beaten = False
        for j, q in enumerate(rows):
            if i == j:
                continue
            ge = x_of(q) >= x_of(r) and y_of(q) >= y_of(r)
            same = x_of(q) == x_of(r) and y_of(q) == y_of(r)
            if ge and (not same or j < i):
                beaten = True
                break
        if not beaten:
            kept.append(r)
    return sorted(kept, key=x_of)


def curve_value(knots: list[Row], value_of: Any, x: float) -> float | None:
    xs = [x_of(k) for k in knots]
    ys = [float(value_of(k)) for k in knots]
    if not xs or x < xs[0] or x > xs[-1]:
        return None
    if len(xs) == 1:
        return ys[0] if x == xs[0] else None
    if x in xs:
        return ys[xs.index(x)]
    if len(xs) == 2:
        return ys[0] + (ys[1] - ys[0]) * (x - xs[0]) / (xs[1] - xs[0])
    return bezier_y_at(d3_monotone_x_segments(xs, ys), x)


def half_up(value: float) -> int:
    return int(Decimal(repr(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def band(a: list[Row], b: list[Row]) -> tuple[float, float] | None:
    if not a or not b:
        return None
    lo = max(x_of(a[0]), x_of(b[0]))
    hi = min(x_of(a[-1]), x_of(b[-1]))
    return (lo, hi) if lo <= hi else None


def targets(b: tuple[float, float]) -> list[int]:
    lo, hi = b
    return [half_up(lo + f * (hi - lo)) for f in (0.25, 0.5, 0.75)]


def metrics(knots: list[Row], x: float, usd: float, watts: float) -> dict[str, float] | None:
    tput = curve_value(knots, y_of, x)
    if tput is None:
        return None
    conc = curve_value(knots, lambda k: k["conc"], x)
    assert conc is not None and math.isfinite(tput)
    return {
        "throughput_per_gpu": tput,
        "cost_per_million_tokens": usd * 1e6 / (3600 * tput),
        "tokens_per_sec_per_mw": tput * 1e6 / watts,
        "joules_per_token": watts / tput,
        "concurrency_interpolated": conc,
        "concurrency": half_up(conc),
    }
