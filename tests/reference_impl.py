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
    """The matched range: the overlap of both frontiers, only where it has width and holds a
    whole tok/s/user (a one-point side, or frontiers that touch, have none)."""
    if not a or not b:
        return None
    lo = max(x_of(a[0]), x_of(b[0]))
    hi = min(x_of(a[-1]), x_of(b[-1]))
    return (lo, hi) if lo < hi and math.ceil(lo) <= math.floor(hi) else None


def targets(b: tuple[float, float]) -> list[int]:
    """25/50/75% of the band, rounded half-up, each target once."""
    lo, hi = b
    found: list[int] = []
    for f in (0.25, 0.5, 0.75):
        t = half_up(lo + f * (hi - lo))
        if t not in found:
            found.append(t)
    return found


# the raw row's fields that identify a serving configuration (everything but the run and load)
DEPLOYMENT_FIELDS = (
    "hardware", "framework", "model", "precision", "spec_method", "disagg", "is_multinode",
    "prefill_tp", "prefill_ep", "prefill_dp_attention", "prefill_num_workers",
    "decode_tp", "decode_ep", "decode_dp_attention", "decode_num_workers",
    "num_prefill_gpu", "num_decode_gpu",
)  # fmt: skip


def deployment(row: Row) -> tuple[Any, ...]:
    return tuple(row.get(name) for name in DEPLOYMENT_FIELDS)


def gpu_count(row: Row) -> int | None:
    """All GPUs of the deployment; unknown for early disaggregated rows without multinode topology."""
    if not row["disagg"] and not row["is_multinode"]:
        return int(row["prefill_tp"])
    if row["is_multinode"]:
        return int(row["num_prefill_gpu"]) + int(row["num_decode_gpu"])
    return None


def concurrency_at(knots: list[Row], x: float) -> float | None:
    """Concurrency only where a deployment ran it: at a knot, or between two knots of one
    deployment whose concurrency does not rise with interactivity."""
    xs = [x_of(k) for k in knots]
    if x in xs:
        return float(knots[xs.index(x)]["conc"])
    right = next(i for i, v in enumerate(xs) if v > x)
    low, high = knots[right - 1], knots[right]
    if deployment(low) != deployment(high) or low["conc"] < high["conc"]:
        return None
    return curve_value(knots, lambda k: k["conc"], x)


def users_per_gpu_at(knots: list[Row], x: float) -> float | None:
    counts = [gpu_count(k) for k in knots]
    if any(c is None for c in counts):
        return None
    return curve_value(knots, lambda k: k["conc"] / gpu_count(k), x)


def metrics(knots: list[Row], x: float, usd: float, watts: float) -> dict[str, float | None] | None:
    tput = curve_value(knots, y_of, x)
    if tput is None:
        return None
    conc = concurrency_at(knots, x)
    assert math.isfinite(tput)
    return {
        "throughput_per_gpu": tput,
        "cost_per_million_tokens": usd * 1e6 / (3600 * tput),
        "tokens_per_sec_per_mw": tput * 1e6 / watts,
        "joules_per_token": watts / tput,
        "concurrency_interpolated": conc,
        "concurrency": None if conc is None else half_up(conc),
        "users_per_gpu": users_per_gpu_at(knots, x),
    }


def throughput_bounds(knots: list[Row], x: float) -> tuple[float, float] | None:
    """The lowest and highest throughput of the frontier knots that bracket x (the knot itself
    at a knot): an interpolated value on a monotone curve lies between them."""
    xs = [x_of(k) for k in knots]
    if not xs or x < xs[0] or x > xs[-1]:
        return None
    if x in xs:
        y = y_of(knots[xs.index(x)])
        return (y, y)
    right = next(i for i, v in enumerate(xs) if v > x)
    ys = (y_of(knots[right - 1]), y_of(knots[right]))
    return (min(ys), max(ys))


def claim_grade(
    a: float, b: float, a_bounds: tuple[float, float], b_bounds: tuple[float, float], tie: float = 0.01
) -> tuple[int | None, str, float | None]:
    """What tok/s/GPU (higher is better) at one target lets a page claim: (leader, grade, the
    leader's worst-case ratio). The leader is the higher interpolated value unless they are within
    `tie`; it is determined only if at its worst (its lowest bound against the other's highest)
    it still leads by more than `tie`; then a best case more than twice its worst is stated as a
    bound ("bounded"), else as a point ratio ("decided")."""

    def tied(p: float, q: float) -> bool:
        return abs(p - q) <= tie * max(p, q)

    if tied(a, b):
        both = tied(a_bounds[0], b_bounds[1]) and tied(a_bounds[1], b_bounds[0])
        return None, ("tied" if both else "undetermined"), None
    lead, other = (a_bounds, b_bounds) if a > b else (b_bounds, a_bounds)
    leader = 0 if a > b else 1
    worst, best = lead[0] / other[1], lead[1] / other[0]
    if lead[0] <= other[1] or tied(lead[0], other[1]):
        return leader, "undetermined", worst
    return leader, ("bounded" if best / worst > 2.0 else "decided"), worst
