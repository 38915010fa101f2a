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
