"""Two sides compared at matched interactivity: band, targets, metrics and the knots behind them.

Pure: a side's points as columns and its constants in, numbers out. No wording and no output
schema here; a value that cannot be given comes with a structured reason (the side's measured
range, or the constants a metric lacks) that the presentation side words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from site_builder import metrics
from site_builder.engine.frontier import listing_order, pareto_frontier
from site_builder.engine.spline import MonotoneCurves
from site_builder.formatting import round_half_up_int

Floats = npt.NDArray[np.float64]
Positions = npt.NDArray[np.intp]

TARGET_FRACTIONS = (0.25, 0.50, 0.75)
TIE_TOLERANCE = 0.01  # within 1% is "essentially tied" (DESIGN.md)
# A value interpolated between two knots rests on sparse data when the side's whole frontier is
# those two knots (a straight line), or when their throughputs differ by more than this factor.
SPARSE_RATIO = 2.0
# A lead the bracketing knots determine is stated as a bound ("at least 4.4×") rather than a point
# ratio when its best case is more than this many times its worst case.
SPREAD_LIMIT = 2.0


def is_tie(a: float, b: float) -> bool:
    return abs(a - b) <= TIE_TOLERANCE * max(abs(a), abs(b))


def winner(a: float | None, b: float | None, better: str) -> int | None:
    """0 or 1 for the side whose value is better (higher or lower wins), None for a tie or no rule."""
    if not better or a is None or b is None or is_tie(a, b):
        return None
    return int(a < b) if better == "higher" else int(a > b)


@dataclass(frozen=True)
class Constants:
    """The per-GPU constants a side's metrics use; None where unknown."""

    usd_per_gpu_hour: float | None
    watts_all_in: float | None

    def as_values(self) -> dict[str, float | None]:
        return {name: getattr(self, name) for name in metrics.CONSTANTS}


@dataclass(frozen=True)
class SidePoints:
    """One side's measured points on one workload, a column each: interactivity, every curve
    quantity (metrics.CURVE_QUANTITIES; NaN where a point lacks it) and a number per deployment
    (equal numbers: the same configuration)."""

    interactivity: Floats
    quantities: Mapping[str, Floats]
    deployment: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.interactivity)


class SideCurves:
    """A side's frontier and a spline per curve quantity its knots all have, on those knots.

    Concurrency is the whole deployment's, so it is interpolated only between two knots of the
    same deployment where it falls as interactivity rises; between different deployments, or
    where it would rise, no number describes a deployment and there is none.
    """

    def __init__(self, side: SidePoints) -> None:
        throughput = side.quantities["throughput"]
        concurrency = side.quantities["concurrency"]
        self.order = listing_order(side.interactivity, throughput, concurrency)
        self.frontier = pareto_frontier(side.interactivity, throughput)  # positions, rising x
        self.xs = side.interactivity[self.frontier]
        self.knot_values = {name: values[self.frontier] for name, values in side.quantities.items()}
        # the quantities every knot has are splined; the others have no curve
        self.splined = tuple(
            name for name, ys in self.knot_values.items() if len(ys) and not np.isnan(ys).any()
        )
        self.curves = MonotoneCurves(self.xs, [self.knot_values[name] for name in self.splined])
        knot_concurrency = concurrency[self.frontier]
        self.knot_deployment = knot_deployment = side.deployment[self.frontier]
        # per stretch between knot i and i+1: whether one deployment's concurrency falls across it
        self.one_deployment = tuple(
            bool(c)
            for c in (knot_concurrency[:-1] >= knot_concurrency[1:])
            & (knot_deployment[:-1] == knot_deployment[1:])
        )
        self.range = (float(self.xs[0]), float(self.xs[-1])) if len(self.xs) else None

    def stretch(self, x: float) -> int | None:
        """i where knot i < x < knot i+1; None at a knot or outside the frontier."""
        i = int(np.searchsorted(self.xs, x, side="left"))  # the first knot at or above x
        if i == len(self.xs) or self.xs[i] == x or i == 0:
            return None
        return i - 1

    def gaps(self, stretch: int | None) -> dict[str, str]:
        """Why a curve quantity has no value inside the measured range (metrics.QUANTITY_GAPS):
        a knot lacks it, or the stretch lies between two deployments' concurrencies."""
        found = {"users_per_gpu": "gpu_count"} if "users_per_gpu" not in self.splined else {}
        if stretch is not None and not self.one_deployment[stretch]:
            found["concurrency"] = "deployment"
        return found

    def brackets(self, x: float, stretch: int | None) -> tuple[tuple[int, ...], bool, bool]:
        """The knots (positions on the frontier) on either side of x, or the one it sits on; and,
        for a value between two knots, whether it rests on sparse data (SPARSE_RATIO) and whether
        the two were measured on one deployment (configuration)."""
        if stretch is None:
            knot = self.curves.knot(x)
            return (() if knot is None else (knot,)), False, False
        a, b = stretch, stretch + 1
        low, high = sorted(self.knot_values["throughput"][[a, b]].tolist())
        sparse = len(self.xs) == 2 or high / low > SPARSE_RATIO
        return (a, b), sparse, bool(self.knot_deployment[a] == self.knot_deployment[b])


@dataclass(frozen=True)
class Band:
    """Overlap of the two frontiers' interactivity ranges; shown as ceil(lo)–floor(hi).

    A matched range needs width and a whole tok/s/user inside it: sides that meet at one
    interactivity (a side with one knot, or touching frontiers) have none."""

    lo: float | None
    hi: float | None

    @property
    def bounds(self) -> tuple[float, float] | None:
        """(lo, hi) where the band is a matched range, else None."""
        if self.lo is None or self.hi is None or not self.lo < self.hi:
            return None
        return (self.lo, self.hi) if math.ceil(self.lo) <= math.floor(self.hi) else None

    @property
    def overlap(self) -> bool:
        return self.bounds is not None

    @property
    def display(self) -> tuple[int, int] | None:
        bounds = self.bounds
        return None if bounds is None else (math.ceil(bounds[0]), math.floor(bounds[1]))


def band_of(range_a: tuple[float, float] | None, range_b: tuple[float, float] | None) -> Band:
    """The intersection (lo ≤ hi, possibly one point), or no bounds where the ranges are apart."""
    if range_a is None or range_b is None:
        return Band(None, None)
    lo, hi = max(range_a[0], range_b[0]), min(range_a[1], range_b[1])
    return Band(lo, hi) if lo <= hi else Band(None, None)


def default_targets(band: Band) -> list[float]:
    """lo + 25/50/75% of the band width, rounded half-up to whole tok/s/user; a narrow band whose
    fractions round alike gives fewer targets, never one twice."""
    if band.bounds is None:
        return []
    lo, hi = band.bounds
    rounded = [float(round_half_up_int(lo + f * (hi - lo))) for f in TARGET_FRACTIONS]
    return list(dict.fromkeys(rounded))


@dataclass(frozen=True)
class AtTarget:
    """One side at one target. Not measured: `values` is empty and `measured_range` says why."""

    measured: bool
    values: Mapping[str, float | None] = field(default_factory=dict)  # metric key -> value
    missing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # metric key -> constants
    measured_range: tuple[float, float] | None = None  # the side's frontier span
    brackets: tuple[int, ...] = ()  # the knots (positions on the frontier) the value lies between
    sparse: bool = False  # interpolated over a sparse stretch of frontier (SideCurves.sparse)
    same_deployment: bool = False  # the two knots it lies between are one deployment
    # metric key -> (lowest, highest) of the metric at the bracketing knots: a value interpolated
    # on a monotone curve lies between them (absent where the metric has no value)
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)


def metrics_at(curves: SideCurves, targets: Sequence[float], constants: Constants) -> list[AtTarget]:
    """Every registered metric at each target, derived from the interpolated curve quantities."""
    if "throughput" not in curves.splined:
        return [AtTarget(measured=False, measured_range=curves.range) for _ in targets]
    constant_values = constants.as_values()
    unknown_constants = {name for name, value in constant_values.items() if value is None}
    formulas = [(m, metrics.variables(m.formula)) for m in metrics.METRICS]
    found: list[AtTarget] = []
    for target, values_there in zip(targets, curves.curves.at(targets), strict=True):
        if values_there is None:
            found.append(AtTarget(measured=False, measured_range=curves.range))
            continue
        stretch = curves.stretch(target)
        gaps = curves.gaps(stretch)
        # a quantity with a gap has no value (evaluate reads an absent name as None)
        known = dict(zip(curves.splined, values_there, strict=True)) | dict.fromkeys(gaps) | constant_values
        values = {m.key: metrics.evaluate(m.formula, known) for m, _ in formulas}
        # the names a metric lacks here: a quantity with a gap, a constant without a value
        unknown = gaps.keys() | unknown_constants
        missing = {
            m.key: tuple(gaps.get(name, name) for name in names if name in unknown)
            for m, names in formulas
            if not unknown.isdisjoint(names)
        }
        brackets, sparse, same_deployment = curves.brackets(target, stretch)
        bounds = knot_bounds(curves, brackets, gaps, constant_values, values)
        found.append(
            AtTarget(
                measured=True,
                values=values,
                missing=missing,
                measured_range=curves.range,
                brackets=brackets,
                sparse=sparse,
                same_deployment=same_deployment,
                bounds=bounds,
            )
        )
    return found


def knot_bounds(
    curves: SideCurves,
    brackets: Sequence[int],
    gaps: Mapping[str, str],
    constant_values: Mapping[str, float | None],
    values: Mapping[str, float | None],
) -> dict[str, tuple[float, float]]:
    """Each metric with a value, at its lowest and highest over the bracketing knots: every
    curve is monotone between two knots (Steffen), so the interpolated value lies in between."""
    at_knots = []
    for knot in brackets:
        known: dict[str, float | None] = {
            name: float(curves.knot_values[name][knot]) for name in curves.splined
        }
        known |= dict.fromkeys(gaps) | dict(constant_values)
        at_knots.append({m.key: metrics.evaluate(m.formula, known) for m in metrics.METRICS})
    found = {}
    for key, value in values.items():
        ends = [v[key] for v in at_knots]
        if value is not None and ends and all(e is not None for e in ends):
            numbers = [float(e) for e in ends if e is not None]
            found[key] = (min(numbers), max(numbers))
    return found


Grade = Literal["decided", "bounded", "tied", "undetermined"]


@dataclass(frozen=True)
class Claim:
    """What one metric's comparison at one target can claim, given that each side's value lies
    between its bracketing knots' values. `ratio`, `lo`, `hi`: A ÷ B at the interpolated values
    and at its lowest and highest the knots allow. `leader`: the side the interpolated values
    favour (None: tied). `worst`, `best`: the leader's advantage (its value ÷ the other's where
    higher is better, the other's ÷ its where lower is) at the knots' worst and best case for it.
    `grade`: "decided" (the knots keep the leader and the spread is narrow: a point ratio),
    "bounded" (the knots keep the leader but best ÷ worst exceeds SPREAD_LIMIT: say "at least
    worst"), "tied" (tied within TIE_TOLERANCE however the knots fall), "undetermined" (the
    knots allow either side to lead, or a tie)."""

    ratio: float
    lo: float
    hi: float
    leader: int | None
    grade: Grade
    worst: float | None = None
    best: float | None = None


def claim(
    a: float | None,
    b: float | None,
    a_bounds: tuple[float, float] | None,
    b_bounds: tuple[float, float] | None,
    better: str,
) -> Claim | None:
    """The claim two sides' values at a target support (None: a value, its bounds or the metric's
    rule is missing, or a value is not positive)."""
    if not better or a is None or b is None or a_bounds is None or b_bounds is None:
        return None
    (a_lo, a_hi), (b_lo, b_hi) = a_bounds, b_bounds
    if min(a, b, a_lo, b_lo) <= 0:
        return None
    ratio, lo, hi = a / b, a_lo / b_hi, a_hi / b_lo
    leader = winner(a, b, better)
    if leader is None:
        grade: Grade = "tied" if is_tie(a_lo, b_hi) and is_tie(a_hi, b_lo) else "undetermined"
        return Claim(ratio, lo, hi, None, grade)
    (w_lo, w_hi), (l_lo, l_hi) = (a_bounds, b_bounds) if leader == 0 else (b_bounds, a_bounds)
    if better == "higher":
        worst, best, worst_pair = w_lo / l_hi, w_hi / l_lo, (w_lo, l_hi)
    else:
        worst, best, worst_pair = l_lo / w_hi, l_hi / w_lo, (w_hi, l_lo)
    if winner(*worst_pair, better) != 0:  # at its worst the leader does not lead
        return Claim(ratio, lo, hi, leader, "undetermined", worst, best)
    grade = "bounded" if best / worst > SPREAD_LIMIT else "decided"
    return Claim(ratio, lo, hi, leader, grade, worst, best)


def claims_at(pair: Sequence[AtTarget]) -> dict[str, Claim]:
    """Per metric with a rule for the better value, the claim both sides' values support."""
    a, b = pair
    found = {}
    for m in metrics.METRICS:
        made = claim(
            a.values.get(m.key), b.values.get(m.key), a.bounds.get(m.key), b.bounds.get(m.key), m.better
        )
        if made is not None:
            found[m.key] = made
    return found


@dataclass(frozen=True)
class SideNumbers:
    """A side on one workload: its points in listing order and its frontier (positions among
    the side's points), its measured range and, per stretch between knots, whether concurrency
    interpolates there."""

    order: tuple[int, ...]
    frontier: tuple[int, ...]
    range: tuple[float, float] | None
    one_deployment: tuple[bool, ...] = ()


@dataclass(frozen=True)
class SequenceNumbers:
    """Everything computed for one workload: band, targets, and per target each side's values."""

    isl: int
    osl: int
    band: Band
    targets: tuple[float, ...]
    targets_pinned: bool
    sides: tuple[SideNumbers, SideNumbers]
    results: tuple[tuple[AtTarget, AtTarget], ...]  # per target: (side a, side b)
    claims: tuple[Mapping[str, Claim], ...]  # per target: metric key -> what it can claim


def compare_sequence(
    isl: int,
    osl: int,
    sides: Sequence[SidePoints],
    constants: Sequence[Constants],
    pinned_targets: Sequence[float] | None = None,
) -> SequenceNumbers:
    """Both sides of one workload at the pinned targets, or at 25/50/75% of the band."""
    if len(sides) != 2 or len(constants) != 2:
        raise ValueError("a comparison has exactly two sides")
    curves = [SideCurves(side) for side in sides]
    band = band_of(curves[0].range, curves[1].range)
    targets = [float(t) for t in pinned_targets] if pinned_targets else default_targets(band)
    results = tuple(
        zip(
            metrics_at(curves[0], targets, constants[0]),
            metrics_at(curves[1], targets, constants[1]),
            strict=True,
        )
    )
    numbers = tuple(
        SideNumbers(
            order=tuple(c.order.tolist()),
            frontier=tuple(c.frontier.tolist()),
            range=c.range,
            one_deployment=c.one_deployment,
        )
        for c in curves
    )
    return SequenceNumbers(
        isl=isl,
        osl=osl,
        band=band,
        targets=tuple(targets),
        targets_pinned=bool(pinned_targets),
        sides=(numbers[0], numbers[1]),
        results=results,
        claims=tuple(claims_at(pair) for pair in results),
    )
