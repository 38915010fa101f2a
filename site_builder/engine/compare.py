"""Two sides compared at matched interactivity: band, targets, metrics and the knots behind them.

Pure: points and constants in, numbers out. No wording and no output schema here; a value that
cannot be given comes with a structured reason (the side's measured range, or the constants a
metric lacks) that the presentation side words.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from site_builder import metrics
from site_builder.engine.frontier import frontier_of_ordered
from site_builder.engine.spline import MonotoneCurves
from site_builder.formatting import round_half_up_int
from site_builder.memo import SequenceMemo
from site_builder.points import BenchmarkPoint, Configuration

TARGET_FRACTIONS = (0.25, 0.50, 0.75)
TIE_TOLERANCE = 0.01  # within 1% is "essentially tied" (DESIGN.md)
# A value interpolated between two knots rests on sparse data when the side's whole frontier is
# those two knots (a straight line), or when their throughputs differ by more than this factor.
SPARSE_RATIO = 2.0


def is_tie(a: float, b: float) -> bool:
    return abs(a - b) <= TIE_TOLERANCE * max(abs(a), abs(b))


def winner(a: float | None, b: float | None, better: str) -> int | None:
    """0 or 1 for the side whose value is better (higher or lower wins), None for a tie or no rule."""
    if not better or a is None or b is None or is_tie(a, b):
        return None
    if better == "higher":
        return 0 if a > b else 1
    return 0 if a < b else 1


@dataclass(frozen=True)
class Constants:
    """The per-GPU constants a side's metrics use; None where unknown."""

    usd_per_gpu_hour: float | None
    watts_all_in: float | None

    def as_values(self) -> dict[str, float | None]:
        return {name: getattr(self, name) for name in metrics.CONSTANTS}


class SideCurves:
    """A side's frontier and a spline per curve quantity its knots all have, on those knots
    (read together: MonotoneCurves).

    Concurrency is the whole deployment's, so it is interpolated only between two knots of the
    same deployment (configuration) where it falls as interactivity rises; between different
    deployments, or where it would rise, no number describes a deployment and there is none.
    """

    def __init__(self, points: Sequence[BenchmarkPoint]) -> None:
        # every point by rising interactivity (the order the table and the chart list them in)
        # (the index keeps points that tie in input order, as a stable sort does)
        order = [(p.interactivity, -p.throughput_per_gpu, p.concurrency, i) for i, p in enumerate(points)]
        order.sort()
        self.points = tuple([points[key[-1]] for key in order])
        self.frontier = frontier_of_ordered(points, order)  # pareto_frontier(points), from the order
        self.knots = tuple(self.frontier)  # the frontier as every page using these curves holds it
        self._xs = [p.interactivity for p in self.frontier]
        # the quantities every knot has are splined (all in one MonotoneCurves); the others have
        # no curve
        columns: dict[str, list[float]] = {}
        for name, attribute in metrics.CURVE_QUANTITIES.items():
            ys = [getattr(p, attribute) for p in self.frontier]
            if ys and None not in ys:
                columns[name] = [float(y) for y in ys]
        self.splined = tuple(columns)
        self.curves = MonotoneCurves(self._xs, list(columns.values()))
        # per stretch between knot i and i+1: whether one deployment's concurrency falls across it
        self.one_deployment = [
            a.concurrency >= b.concurrency and same_configuration(a.config, b.config)
            for a, b in zip(self.frontier, self.frontier[1:], strict=False)
        ]
        self._range = (self._xs[0], self._xs[-1]) if self._xs else None

    @property
    def range(self) -> tuple[float, float] | None:
        """The frontier's interactivity span (None without a knot)."""
        return self._range

    def quantities(self, x: float) -> dict[str, float | None] | None:
        """Every curve quantity at x, or None outside the measured range."""
        if "throughput" not in self.splined:
            return None
        values = self.curves.at(x)
        if values is None:
            return None
        return self._quantities(values, self._gaps(self.stretch(x)))

    def _quantities(self, values: list[float], gaps: Mapping[str, str]) -> dict[str, float | None]:
        found = dict(zip(self.splined, values, strict=True))
        return {name: None if name in gaps else found.get(name) for name in metrics.CURVE_QUANTITIES}

    def prepare(self, targets: Sequence[float]) -> None:
        """Evaluate every curve at the targets in one vectorised call (the values are the ones
        `quantities` then reads, bit for bit: the curves remember them)."""
        self.curves.prepare(targets)

    def gaps(self, x: float) -> dict[str, str]:
        """Why a curve quantity has no value at x inside the measured range (metrics.QUANTITY_GAPS):
        a knot lacks it, or x lies between two deployments' concurrencies."""
        return self._gaps(self.stretch(x))

    def _gaps(self, stretch: int | None) -> dict[str, str]:
        found = {"users_per_gpu": "gpu_count"} if "users_per_gpu" not in self.splined else {}
        if stretch is not None and not self.one_deployment[stretch]:
            found["concurrency"] = "deployment"
        return found

    def stretch(self, x: float) -> int | None:
        """i where knot i < x < knot i+1; None at a knot or outside the frontier."""
        xs = self._xs
        i = bisect.bisect_left(xs, x)  # the first knot at or above x (knots rise strictly)
        if i == len(xs) or xs[i] == x or i == 0:
            return None
        return i - 1

    def sparse(self, x: float) -> bool:
        """Whether the value at x is interpolated over a sparse stretch (SPARSE_RATIO)."""
        return self._sparse(self._brackets(x, self.stretch(x)))

    def _sparse(self, brackets: Sequence[BenchmarkPoint]) -> bool:
        if len(brackets) != 2:
            return False
        low, high = sorted(k.throughput_per_gpu for k in brackets)
        return len(self.frontier) == 2 or high / low > SPARSE_RATIO

    def brackets(self, target: float) -> list[BenchmarkPoint]:
        """The knots on either side of the target, or the one knot it sits on."""
        return self._brackets(target, self.stretch(target))

    def _brackets(self, target: float, stretch: int | None) -> list[BenchmarkPoint]:
        if stretch is not None:
            return [self.frontier[stretch], self.frontier[stretch + 1]]
        knot = self.curves.knot(target)
        return [] if knot is None else [self.frontier[knot]]


# Pairs of configurations compared by SideCurves, and whether they are equal: a frontier crosses
# between the same deployments on many sides, and comparing two models field by field is slow
CONFIGURATION_PAIRS_KEPT = 4096
_SAME_CONFIGURATION: SequenceMemo[Configuration, bool] = SequenceMemo(CONFIGURATION_PAIRS_KEPT)


def same_configuration(a: Configuration, b: Configuration) -> bool:
    """`a == b`, remembered for the very same pair (memo.py: the entry holds both)."""
    return a is b or _SAME_CONFIGURATION.get((a, b), _equal)


def _equal(pair: tuple[Configuration, ...]) -> bool:
    return pair[0] == pair[1]


# Sides of the pages one process builds (a side's points are on several pages: the same points,
# the same curves); bounded, as a side's curves hold its points (memo.py)
SIDES_KEPT = 256
_SIDE_CURVES: SequenceMemo[BenchmarkPoint, SideCurves] = SequenceMemo(SIDES_KEPT)


def side_curves(points: Sequence[BenchmarkPoint]) -> SideCurves:
    """The side's curves, built once a process for the very same points in the same order:
    what a SideCurves computes depends on nothing else, and nothing changes it once built."""
    return _SIDE_CURVES.get(points, SideCurves)


@dataclass(frozen=True)
class Band:
    """Overlap of the two frontiers' interactivity ranges; shown as ceil(lo)–floor(hi).

    A matched range needs width and a whole tok/s/user inside it: sides that meet at one
    interactivity (a side with one knot, or touching frontiers) have none."""

    lo: float | None
    hi: float | None

    @property
    def overlap(self) -> bool:
        return (
            self.lo is not None
            and self.hi is not None
            and self.lo < self.hi
            and math.ceil(self.lo) <= math.floor(self.hi)
        )

    @property
    def display(self) -> tuple[int, int] | None:
        if not self.overlap or self.lo is None or self.hi is None:
            return None
        return math.ceil(self.lo), math.floor(self.hi)


def band_of(range_a: tuple[float, float] | None, range_b: tuple[float, float] | None) -> Band:
    """The intersection (lo ≤ hi, possibly one point), or no bounds where the ranges are apart."""
    if range_a is None or range_b is None:
        return Band(None, None)
    lo, hi = max(range_a[0], range_b[0]), min(range_a[1], range_b[1])
    return Band(lo, hi) if lo <= hi else Band(None, None)


def default_targets(band: Band) -> list[float]:
    """lo + 25/50/75% of the band width, rounded half-up to whole tok/s/user; a narrow band whose
    fractions round alike gives fewer targets, never one twice."""
    if not band.overlap or band.lo is None or band.hi is None:
        return []
    width = band.hi - band.lo
    rounded = [float(round_half_up_int(band.lo + f * width)) for f in TARGET_FRACTIONS]
    return list(dict.fromkeys(rounded))


@dataclass(frozen=True)
class AtTarget:
    """One side at one target. Not measured: `values` is empty and `measured_range` says why."""

    measured: bool
    values: Mapping[str, float | None] = field(default_factory=dict)  # metric key -> value
    missing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # metric key -> constants
    measured_range: tuple[float, float] | None = None  # the side's frontier span
    brackets: tuple[BenchmarkPoint, ...] = ()
    sparse: bool = False  # interpolated over a sparse stretch of frontier (SideCurves.sparse)


def metrics_at(curves: SideCurves, target: float, constants: Constants) -> AtTarget:
    """Every registered metric at the target, derived from the interpolated curve quantities."""
    return metrics_at_targets(curves, [target], constants)[0]


def metrics_at_targets(curves: SideCurves, targets: Sequence[float], constants: Constants) -> list[AtTarget]:
    """`metrics_at` at each target: what the targets share (the constants, the metrics, the
    side's range, which names a metric lacks for a set of gaps) found once."""
    measured_range = curves.range
    if "throughput" not in curves.splined:
        return [AtTarget(measured=False, measured_range=measured_range) for _ in targets]
    constant_values = constants.as_values()
    unknown_constants = {name for name in metrics.CONSTANTS if constant_values[name] is None}
    compiled = metrics.compiled()
    missing_for: dict[tuple[tuple[str, str], ...], dict[str, tuple[str, ...]]] = {}
    found: list[AtTarget] = []
    for target in targets:
        values_there = curves.curves.at(target)
        if values_there is None:
            found.append(AtTarget(measured=False, measured_range=measured_range))
            continue
        stretch = curves.stretch(target)
        gaps = curves._gaps(stretch)
        known = {**curves._quantities(values_there, gaps), **constant_values}
        values = {metric.key: formula(known) for metric, formula, _ in compiled}
        gaps_key = tuple(gaps.items())
        missing = missing_for.get(gaps_key)
        if missing is None:
            # the names a metric can lack here: a quantity with a gap, a constant without a value
            unknown = gaps.keys() | unknown_constants
            missing = missing_for[gaps_key] = {
                metric.key: tuple(gaps.get(name, name) for name in names if name in unknown)
                for metric, _, names in compiled
                if not unknown.isdisjoint(names)
            }
        brackets = curves._brackets(target, stretch)
        found.append(
            AtTarget(
                measured=True,
                values=values,
                missing=dict(missing),
                measured_range=measured_range,
                brackets=tuple(brackets),
                sparse=curves._sparse(brackets),
            )
        )
    return found


@dataclass(frozen=True)
class SideNumbers:
    """A side on one workload: all its points (sorted by interactivity) and its frontier."""

    points: tuple[BenchmarkPoint, ...]
    frontier: tuple[BenchmarkPoint, ...]
    range: tuple[float, float] | None
    one_deployment: tuple[bool, ...] = ()  # per stretch between knots: concurrency interpolates


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


def compare_sequence(
    isl: int,
    osl: int,
    points: Sequence[Sequence[BenchmarkPoint]],
    constants: Sequence[Constants],
    pinned_targets: Sequence[float] | None = None,
) -> SequenceNumbers:
    """Both sides of one workload at the pinned targets, or at 25/50/75% of the band."""
    if len(points) != 2 or len(constants) != 2:
        raise ValueError("a comparison has exactly two sides")
    curves = [side_curves(side) for side in points]
    band = band_of(curves[0].range, curves[1].range)
    targets = [float(t) for t in pinned_targets] if pinned_targets else default_targets(band)
    for c in curves:
        c.prepare(targets)
    results = tuple(
        zip(
            metrics_at_targets(curves[0], targets, constants[0]),
            metrics_at_targets(curves[1], targets, constants[1]),
            strict=True,
        )
    )
    sides = tuple(
        SideNumbers(
            points=c.points,
            frontier=c.knots,
            range=c.range,
            one_deployment=tuple(c.one_deployment),
        )
        for c in curves
    )
    return SequenceNumbers(
        isl=isl,
        osl=osl,
        band=band,
        targets=tuple(targets),
        targets_pinned=bool(pinned_targets),
        sides=(sides[0], sides[1]),
        results=results,
    )
