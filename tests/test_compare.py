"""Band, targets, metrics at targets, provenance, and 'not measured' outside the frontier."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.catalog import AppliedConstants
from site_builder.engine.compare import band_of, default_targets
from site_builder.engine.frontier import pareto_frontier
from site_builder.points import BenchmarkPoint
from tests.factories import SideInput, compare_sequence, constants, point


def side(label: str, points: list[BenchmarkPoint], const: AppliedConstants | None = None) -> SideInput:
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
    band = band_of((10.0, 12.0), (10.0, 12.0))
    # 10.5, 11.0, 11.5: half-up gives 11 and 12, where Python's round would give 10 and 12
    assert default_targets(band) == [11.0, 11.0, 12.0]


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
    assert [k.interactivity for k in at60.brackets] == [60]
    assert at60.model_dump()["cost_per_million_tokens"] == pytest.approx(1.48e6 / (3600 * 600), rel=1e-12)
    assert at60.model_dump()["tokens_per_sec_per_mw"] == pytest.approx(600e6 / 2650, rel=1e-12)
    assert at60.model_dump()["joules_per_token"] == pytest.approx(2650 / 600, rel=1e-12)
    fp8_at50 = result.results[1].sides[1]
    assert fp8_at50.model_dump()["throughput_per_gpu"] == pytest.approx(
        550.0, rel=1e-12
    )  # two knots: the line
    assert fp8_at50.model_dump()["concurrency"] == 40  # 64 → 16 linearly: 40 at the midpoint
    assert [k.interactivity for k in fp8_at50.brackets] == [30, 70]
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
    assert [p.on_frontier for p in summary.points] == [True, False, True]


@settings(max_examples=200, deadline=None)
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
    frontier = pareto_frontier(pts)
    lo, hi = frontier[0].interactivity, frontier[-1].interactivity
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
