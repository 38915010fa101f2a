"""Band, targets, metrics at targets, provenance, and 'not measured' outside the frontier."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.catalog import AppliedConstants
from site_builder.engine.compare import (
    AtTarget,
    Constants,
    SideCurves,
    band_of,
    default_targets,
    metrics_at,
)
from site_builder.engine.frontier import pareto_frontier
from tests.factories import Point, SideInput, compare_sequence, constants, point, side_points


def side(label: str, points: list[Point], const: AppliedConstants | None = None) -> SideInput:
    return SideInput(
        label=label,
        filters={"precision": label.lower()},
        pooling="best available",
        hardware="mi355x",
        constants=const or constants(),
        points=points,
    )


def test_band_and_default_targets() -> None:
    band = band_of((23.5, 90.0), (10.0, 85.2))
    assert band.overlap and (band.lo, band.hi) == (23.5, 85.2)
    assert band.display == (24, 85)
    # 23.5 + 0.25·61.7 = 38.925 → 39; 54.35 → 54; 69.775 → 70 (the MI355X Kimi page's targets)
    assert default_targets(band) == [39.0, 54.0, 70.0]


def test_targets_round_half_up() -> None:
    band = band_of((10.0, 16.0), (10.0, 16.0))
    # 11.5, 13.0, 14.5: half-up gives 12 and 15, where Python's round would give 12 and 14
    assert default_targets(band) == [12.0, 13.0, 15.0]


def test_narrow_band_never_repeats_a_target() -> None:
    band = band_of((10.0, 12.0), (10.0, 12.0))
    # 10.5, 11.0, 11.5 round half-up to 11, 11 and 12: the repeated 11 is one target
    assert default_targets(band) == [11.0, 12.0]


@pytest.mark.parametrize(
    ("range_a", "range_b"),
    [
        ((18.41, 18.41), (6.79, 145.22)),  # one knot inside the other side's range
        ((10.0, 20.0), (20.0, 30.0)),  # frontiers that touch at one interactivity
        ((18.2, 18.9), (10.0, 30.0)),  # overlap with no whole tok/s/user inside: 19–18
        ((10.0, 20.0), (30.0, 40.0)),  # apart
    ],
)
def test_no_matched_range(range_a: tuple[float, float], range_b: tuple[float, float]) -> None:
    band = band_of(range_a, range_b)
    assert not band.overlap and band.display is None and default_targets(band) == []
    if band.lo is not None and band.hi is not None:
        assert band.lo <= band.hi


def test_no_overlap() -> None:
    band = band_of((10.0, 20.0), (30.0, 40.0))
    assert not band.overlap and band.display is None
    assert default_targets(band) == []
    result = compare_sequence(
        1024,
        1024,
        "1k/1k",
        [side("A", [point(10, 900), point(20, 500)]), side("B", [point(30, 400), point(40, 100)])],
    )
    assert result.targets == [] and result.results == []
    assert not result.band.overlap


def test_band_with_a_missing_side() -> None:
    assert not band_of(None, (1.0, 2.0)).overlap


def test_metrics_at_a_knot_and_between() -> None:
    a = side("FP4", [point(40, 1000, 64), point(60, 600, 32), point(80, 400, 16)])
    b = side("FP8", [point(30, 800, 64), point(70, 300, 16)])
    result = compare_sequence(1024, 1024, "1k/1k", [a, b], pinned_targets=[60, 50])
    at60 = result.results[0].sides[0]
    assert (
        at60.measured
        and at60.model_dump()["throughput_per_gpu"] == 600
        and at60.model_dump()["concurrency"] == 32
    )
    assert [result.sides[0].frontier[k].interactivity for k in at60.brackets] == [60]
    assert at60.model_dump()["cost_per_million_tokens"] == pytest.approx(1.48e6 / (3600 * 600), rel=1e-12)
    assert at60.model_dump()["tokens_per_sec_per_mw"] == pytest.approx(600e6 / 2650, rel=1e-12)
    assert at60.model_dump()["joules_per_token"] == pytest.approx(2650 / 600, rel=1e-12)
    fp8_at50 = result.results[1].sides[1]
    assert fp8_at50.model_dump()["throughput_per_gpu"] == pytest.approx(
        550.0, rel=1e-12
    )  # two knots: the line
    assert fp8_at50.model_dump()["concurrency"] == 40  # 64 → 16 linearly: 40 at the midpoint
    assert [result.sides[1].frontier[k].interactivity for k in fp8_at50.brackets] == [30, 70]
    assert result.targets_pinned


def test_not_measured_outside_a_frontier() -> None:
    a = side("FP4", [point(40, 1000), point(60, 600)])
    b = side("FP8", [point(30, 800), point(90, 300)])
    result = compare_sequence(1024, 1024, "1k/1k", [a, b], pinned_targets=[35, 95])
    for target in result.results:
        fp4 = target.sides[0]
        assert (
            not fp4.measured
            and fp4.model_dump()["throughput_per_gpu"] is None
            and fp4.model_dump()["cost_per_million_tokens"] is None
        )
        assert fp4.reason and "not measured" in fp4.reason and "40.0–60.0" in fp4.reason
    assert result.results[0].sides[1].measured
    assert not result.results[1].sides[1].measured


def test_missing_constants_are_unavailable_not_zero() -> None:
    const = constants(usd=None, watts=None)
    result = compare_sequence(
        1024,
        1024,
        "1k/1k",
        [side("A", [point(10, 900), point(20, 500)], const), side("B", [point(10, 800), point(20, 400)])],
    )
    metrics = result.results[0].sides[0]
    assert metrics.measured and metrics.model_dump()["throughput_per_gpu"] is not None
    assert (
        metrics.model_dump()["cost_per_million_tokens"] is None
        and metrics.model_dump()["tokens_per_sec_per_mw"] is None
    )
    assert set(metrics.unavailable) == {
        "cost_per_million_tokens",
        "tokens_per_sec_per_mw",
        "joules_per_token",
    }


def test_side_summary_names_engines_and_dates() -> None:
    pts = [
        point(40, 1000, framework="atom", spec_method="mtp", date="2026-02-01"),
        point(60, 600, framework="sglang", date="2025-12-05"),
        point(50, 500, framework="trt", date="2026-05-01"),  # dominated
    ]
    result = compare_sequence(1024, 1024, "1k/1k", [side("A", pts), side("B", pts)])
    summary = result.sides[0]
    assert summary.engines == ["atom", "sglang"]
    assert summary.spec_methods == ["mtp", "none"]
    assert summary.dates == ("2025-12-05", "2026-02-01")
    assert [p.interactivity for p in summary.frontier] == [40, 60] and summary.point_count == 3


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(5, 200), st.floats(10, 5000)), min_size=1, max_size=8),
    st.floats(0.5, 5.0),
    st.floats(0, 1),
)
def test_cost_times_throughput_is_the_hourly_rate(
    pairs: list[tuple[float, float]], usd: float, where: float
) -> None:
    pts = [point(x, y) for x, y in pairs]
    a = side("A", pts, constants(usd=usd))
    frontier = pareto_frontier(np.array([x for x, _ in pairs]), np.array([y for _, y in pairs]))
    lo, hi = pts[frontier[0]]["interactivity"], pts[frontier[-1]]["interactivity"]
    target = min(hi, lo + where * (hi - lo))
    result = compare_sequence(1024, 1024, "1k/1k", [a, a], pinned_targets=[target])
    m = result.results[0].sides[0]
    assert m.measured
    assert (
        m.model_dump()["cost_per_million_tokens"] is not None
        and m.model_dump()["throughput_per_gpu"] is not None
    )
    # $/Mtok × tok/s/GPU × 3600 s/h ÷ 10^6 tok/Mtok = $/GPU-hour
    assert m.model_dump()["cost_per_million_tokens"] * m.model_dump()[
        "throughput_per_gpu"
    ] * 3600 / 1e6 == pytest.approx(usd, rel=1e-12)


# -- concurrency only where a deployment ran it; users per GPU; sparse stretches ------------------


def _at(points: list[Point], target: float) -> AtTarget:
    return metrics_at(SideCurves(side_points(points)), [target], Constants(1.0, 1000.0))[0]


def test_concurrency_interpolates_within_one_deployment_whose_load_falls() -> None:
    # one deployment (sglang TP8) run at concurrency 64 and 16: halfway between its knots the
    # straight line (two knots) gives 40
    at = _at([point(20, 2000, 64), point(40, 1000, 16)], 30.0)
    assert at.values["concurrency"] == 40.0 and "concurrency" not in at.missing
    assert at.values["users_per_gpu"] == 40.0 / 8  # 8 and 2 users per GPU, halfway: 5


def test_concurrency_between_two_deployments_is_none_with_the_reason() -> None:
    # TP8 at concurrency 64 next to TP4 at 16: no deployment ran anything in between
    at = _at([point(20, 2000, 64, tp=8), point(40, 1000, 16, tp=4)], 30.0)
    assert at.values["concurrency"] is None and at.missing["concurrency"] == ("deployment",)
    # users per GPU is comparable across sizes: 64 ÷ 8 = 8 and 16 ÷ 4 = 4, halfway 6
    assert at.values["users_per_gpu"] == 6.0
    assert _at([point(20, 2000, 64, tp=8), point(40, 1000, 16, tp=4)], 40.0).values["concurrency"] == 16.0


def test_targets_read_together_keep_each_targets_own_gaps() -> None:
    # knots 20 (TP8, c=64), 40 (TP8, c=16), 60 (TP4, c=8): 30 lies within TP8's falling load, 50
    # between TP8 and TP4, 70 outside; one call for the three (the gaps of 50 must not leak to 30)
    curves = SideCurves(side_points([point(20, 2000, 64), point(40, 1000, 16), point(60, 500, 8, tp=4)]))
    within, between, outside = metrics_at(curves, [30.0, 50.0, 70.0], Constants(None, 1000.0))
    assert within.measured and within.values["concurrency"] is not None
    assert "concurrency" not in within.missing
    assert between.values["concurrency"] is None and between.missing["concurrency"] == ("deployment",)
    # cost needs the unknown price at every measured target, said the same way
    assert within.missing["cost"] == between.missing["cost"] == ("usd_per_gpu_hour",)
    assert within.values["cost"] is None
    assert not outside.measured and outside.measured_range == (20.0, 60.0)
    assert within.missing is not between.missing  # each target's own mapping


def test_concurrency_that_would_rise_with_interactivity_is_none() -> None:
    at = _at([point(20, 2000, 16), point(40, 1000, 64)], 30.0)
    assert at.values["concurrency"] is None and at.missing["concurrency"] == ("deployment",)


def test_users_per_gpu_needs_every_knots_gpu_count() -> None:
    at = _at([point(20, 2000, 64), point(40, 1000, 16, gpu_count=None)], 30.0)
    assert at.values["users_per_gpu"] is None and at.missing["users_per_gpu"] == ("gpu_count",)


def test_sparse_stretches() -> None:
    three = [point(20, 5000, 64), point(40, 1000, 16), point(60, 900, 8)]
    assert _at(three, 30.0).sparse  # 5000 → 1000: more than 2× apart
    assert not _at(three, 50.0).sparse  # 1000 → 900
    assert not _at(three, 40.0).sparse  # at a knot: measured, not interpolated
    assert _at(three[1:], 50.0).sparse  # a frontier of two points is a straight line
