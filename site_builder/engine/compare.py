"""Two sides compared at matched interactivity: band, targets, metrics, provenance."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from site_builder.engine.frontier import pareto_frontier
from site_builder.engine.spline import MonotoneSpline
from site_builder.models import AppliedConstants, BenchmarkPoint
from site_builder.numbers import round_half_up_int
from site_builder.results import (
    Band,
    MetricsAtTarget,
    PointSummary,
    SequenceResult,
    SideResult,
    TargetComparison,
)

TARGET_FRACTIONS = (0.25, 0.50, 0.75)


@dataclass(frozen=True)
class SideInput:
    """One side of a comparison on one workload, as selected from the data."""

    label: str
    filters: dict[str, str | bool | list[str]]
    pooling: str
    hardware: str
    constants: AppliedConstants
    points: Sequence[BenchmarkPoint]


class SideCurves:
    """A side's frontier and the splines that share its knots."""

    def __init__(self, points: Sequence[BenchmarkPoint]) -> None:
        self.frontier = pareto_frontier(points)
        xs = [p.interactivity for p in self.frontier]
        self.throughput = MonotoneSpline(xs, [p.throughput_per_gpu for p in self.frontier])
        self.concurrency = MonotoneSpline(xs, [float(p.concurrency) for p in self.frontier])
        outputs = [p.output_throughput_per_gpu for p in self.frontier]
        self.output_throughput = (
            MonotoneSpline(xs, [float(o) for o in outputs if o is not None])
            if xs and all(o is not None for o in outputs)
            else None
        )

    @property
    def range(self) -> tuple[float, float] | None:
        if not self.frontier:
            return None
        return (self.frontier[0].interactivity, self.frontier[-1].interactivity)

    def brackets(self, target: float) -> list[BenchmarkPoint]:
        """The knots on either side of the target, or the one knot it sits on."""
        for i, knot in enumerate(self.frontier):
            if knot.interactivity == target:
                return [knot]
            if knot.interactivity > target:
                return [self.frontier[i - 1], knot] if i > 0 else []
        return []


def band_of(range_a: tuple[float, float] | None, range_b: tuple[float, float] | None) -> Band:
    if range_a is None or range_b is None:
        return Band(overlap=False, lo=None, hi=None, display_lo=None, display_hi=None)
    lo, hi = max(range_a[0], range_b[0]), min(range_a[1], range_b[1])
    if lo > hi:
        return Band(overlap=False, lo=lo, hi=hi, display_lo=None, display_hi=None)
    return Band(overlap=True, lo=lo, hi=hi, display_lo=math.ceil(lo), display_hi=math.floor(hi))


def default_targets(band: Band) -> list[float]:
    """lo + 25/50/75% of the band width, rounded half-up to whole tok/s/user."""
    if not band.overlap or band.lo is None or band.hi is None:
        return []
    width = band.hi - band.lo
    return [float(round_half_up_int(band.lo + f * width)) for f in TARGET_FRACTIONS]


def summarize(point: BenchmarkPoint, on_frontier: bool) -> PointSummary:
    c = point.config
    return PointSummary(
        interactivity=point.interactivity,
        interactivity_source=point.interactivity_source,
        throughput_per_gpu=point.throughput_per_gpu,
        output_throughput_per_gpu=point.output_throughput_per_gpu,
        concurrency=point.concurrency,
        gpu_count=c.gpu_count,
        model=c.model,
        hardware=c.hardware,
        precision=c.precision,
        framework=c.framework,
        spec_method=c.spec_method,
        disagg=c.disagg,
        parallelism=c.parallelism_label(),
        configuration=c.label(),
        date=point.provenance.date,
        run_url=point.provenance.run_url,
        dataset=point.provenance.dataset,
        source_file=point.provenance.source_file,
        record=point.provenance.record,
        on_frontier=on_frontier,
    )


def metrics_at(curves: SideCurves, target: float, label: str, constants: AppliedConstants) -> MetricsAtTarget:
    throughput = curves.throughput.value(target)
    if throughput is None:
        span = curves.range
        where = (
            f"{label} has no measured points on this workload"
            if span is None
            else f"{label}'s frontier spans {span[0]:.1f}–{span[1]:.1f} tok/s/user"
        )
        return MetricsAtTarget(measured=False, reason=f"not measured at this interactivity: {where}")
    concurrency = curves.concurrency.value(target)
    assert concurrency is not None  # same knots as throughput
    output = curves.output_throughput.value(target) if curves.output_throughput else None
    unavailable: dict[str, str] = {}
    cost = per_mw = joules = None
    if constants.usd_per_gpu_hour is None:
        unavailable["cost_per_million_tokens"] = (
            f"no {constants.cost_tier} cost per GPU-hour for {constants.hardware_name}"
        )
    else:
        cost = constants.usd_per_gpu_hour * 1e6 / (3600 * throughput)
    if constants.watts_all_in is None:
        reason = f"no all-in power per GPU for {constants.hardware_name}"
        unavailable["tokens_per_sec_per_mw"] = reason
        unavailable["joules_per_token"] = reason
    else:
        per_mw = throughput * 1e6 / constants.watts_all_in
        joules = constants.watts_all_in / throughput
    return MetricsAtTarget(
        measured=True,
        throughput_per_gpu=throughput,
        output_throughput_per_gpu=output,
        cost_per_million_tokens=cost,
        tokens_per_sec_per_mw=per_mw,
        joules_per_token=joules,
        concurrency=round_half_up_int(concurrency),
        concurrency_interpolated=concurrency,
        unavailable=unavailable,
        brackets=[summarize(knot, on_frontier=True) for knot in curves.brackets(target)],
    )


def _side_result(side: SideInput, curves: SideCurves) -> SideResult:
    on_frontier = {id(p) for p in curves.frontier}
    ordered = sorted(side.points, key=lambda p: (p.interactivity, -p.throughput_per_gpu, p.concurrency))
    dates = sorted(p.provenance.date for p in curves.frontier if p.provenance.date)
    return SideResult(
        label=side.label,
        filters=side.filters,
        pooling=side.pooling,
        hardware=side.hardware,
        constants=side.constants,
        interactivity_range=curves.range,
        engines=sorted({p.config.framework for p in curves.frontier}),
        spec_methods=sorted({p.config.spec_method for p in curves.frontier}),
        modes=sorted({"disagg" if p.config.disagg else "agg" for p in curves.frontier}),
        parallelisms=sorted({p.config.parallelism_label() for p in curves.frontier}),
        dates=(dates[0], dates[-1]) if dates else None,
        frontier=[summarize(p, True) for p in curves.frontier],
        points=[summarize(p, id(p) in on_frontier) for p in ordered],
    )


def compare_sequence(
    isl: int,
    osl: int,
    sequence: str,
    sides: Sequence[SideInput],
    pinned_targets: Sequence[float] | None = None,
) -> SequenceResult:
    """Everything a page shows for one workload: band, targets, metrics per side and target."""
    if len(sides) != 2:
        raise ValueError("a comparison has exactly two sides")
    curves = [SideCurves(side.points) for side in sides]
    band = band_of(curves[0].range, curves[1].range)
    targets = [float(t) for t in pinned_targets] if pinned_targets else default_targets(band)
    results = [
        TargetComparison(
            interactivity=target,
            sides=[
                metrics_at(c, target, side.label, side.constants)
                for c, side in zip(curves, sides, strict=True)
            ],
        )
        for target in targets
    ]
    return SequenceResult(
        sequence=sequence,
        isl=isl,
        osl=osl,
        band=band,
        targets=targets,
        targets_pinned=bool(pinned_targets),
        results=results,
        sides=[_side_result(side, c) for side, c in zip(sides, curves, strict=True)],
    )
