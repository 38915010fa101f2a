"""The throughput–interactivity frontier of one side."""

from __future__ import annotations

from collections.abc import Sequence

from site_builder.points import BenchmarkPoint


def pareto_frontier(points: Sequence[BenchmarkPoint]) -> list[BenchmarkPoint]:
    """Points that no other point beats or equals on both interactivity and throughput.

    Sorted by interactivity the result has strictly rising interactivity and strictly falling
    throughput. Of points at equal interactivity only the highest throughput can survive; of
    exact duplicates only the first (input order) does, so the result is deterministic.
    """
    order = [(-p.interactivity, -p.throughput_per_gpu, i) for i, p in enumerate(points)]
    order.sort()
    kept: list[BenchmarkPoint] = []
    best_throughput = float("-inf")
    for _, _, i in order:
        point = points[i]
        if point.throughput_per_gpu > best_throughput:
            kept.append(point)
            best_throughput = point.throughput_per_gpu
    kept.reverse()
    return kept


def frontier_of_ordered(
    points: Sequence[BenchmarkPoint], order: Sequence[tuple[float, float, int, int]]
) -> list[BenchmarkPoint]:
    """`pareto_frontier(points)`, read off the points already ordered by (interactivity,
    −throughput, concurrency, index) as SideCurves lists them, without sorting them again.

    Walking the interactivities from the highest, a group of equal interactivity can only give
    its highest throughput, and that only if it beats every higher interactivity's; of exact
    duplicates there the first in input order (the lowest index: the order puts concurrency
    before it)."""
    kept: list[BenchmarkPoint] = []
    best = float("-inf")
    end = len(order)
    while end:
        x = order[end - 1][0]
        start = end - 1
        while start and order[start - 1][0] == x:
            start -= 1
        _, negative, _, first = order[start]
        if -negative > best:
            best = -negative
            for _, other, _, index in order[start + 1 : end]:
                if other != negative:
                    break
                first = min(first, index)
            kept.append(points[first])
        end = start
    kept.reverse()
    return kept
