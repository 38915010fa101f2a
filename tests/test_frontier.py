"""The frontier: dominated points out, equal interactivity, one point, empty, and its invariants."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.engine.frontier import pareto_frontier
from tests.factories import Point, point


def frontier_of(points: list[Point]) -> list[Point]:
    x = np.array([p["interactivity"] for p in points], dtype=float)
    y = np.array([p["throughput_per_gpu"] for p in points], dtype=float)
    return [points[i] for i in pareto_frontier(x, y)]


def xy(points: list[Point]) -> list[tuple[float, float]]:
    return [(p["interactivity"], p["throughput_per_gpu"]) for p in points]


def test_dominated_points_are_dropped() -> None:
    pts = [point(10, 1000), point(20, 800), point(15, 700), point(30, 300), point(25, 200)]
    assert xy(frontier_of(pts)) == [(10, 1000), (20, 800), (30, 300)]


def test_equal_interactivity_keeps_the_higher_throughput() -> None:
    pts = [point(20, 500), point(20, 650), point(10, 900)]
    assert xy(frontier_of(pts)) == [(10, 900), (20, 650)]


def test_equal_throughput_keeps_the_higher_interactivity() -> None:
    pts = [point(10, 500), point(20, 500)]
    assert xy(frontier_of(pts)) == [(20, 500)]


def test_exact_duplicates_keep_one() -> None:
    a, b = point(10, 500, record="a"), point(10, 500, record="b")
    frontier = frontier_of([a, b])
    assert len(frontier) == 1 and frontier[0]["record"] == "a"


def test_one_point_and_empty() -> None:
    assert xy(frontier_of([point(33, 444)])) == [(33, 444)]
    assert frontier_of([]) == []


points_strategy = st.lists(
    st.tuples(st.integers(1, 60).map(float), st.integers(1, 60).map(float)), min_size=0, max_size=30
)


@settings(max_examples=300, deadline=None)
@given(points_strategy)
def test_frontier_invariants(pairs: list[tuple[float, float]]) -> None:
    pts = [point(x, y, record=str(i)) for i, (x, y) in enumerate(pairs)]
    frontier = frontier_of(pts)
    fxy = xy(frontier)
    # strictly rising interactivity, strictly falling throughput
    assert all(a[0] < b[0] and a[1] > b[1] for a, b in itertools.pairwise(fxy))
    # no frontier point is beaten or equalled on both axes by another point
    for f in frontier:
        assert not any(
            q is not f
            and q["interactivity"] >= f["interactivity"]
            and q["throughput_per_gpu"] >= f["throughput_per_gpu"]
            and (q["interactivity"], q["throughput_per_gpu"]) != (f["interactivity"], f["throughput_per_gpu"])
            for q in pts
        )
    # every other point is dominated or equalled by a frontier point
    for p in pts:
        assert any(
            f["interactivity"] >= p["interactivity"] and f["throughput_per_gpu"] >= p["throughput_per_gpu"]
            for f in frontier
        )
