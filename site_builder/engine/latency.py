"""Latency at each tested concurrency: one side's points on one workload, one measured point a
concurrency, every statistic of it.

Pure numbers, no words. A statistic is a column of values (NaN: the point's files do not give
it); nothing is interpolated between concurrencies, and a value a point lacks stays None ("not
measured"), never zero. At a concurrency where a side ran several configurations, the point
with the highest throughput per GPU among those that measured the latency speaks for it (the
deployment a reader would run at that load), so every statistic of a row comes from one run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LatencyAt:
    """One tested concurrency of a side: the point that speaks for it and its statistics."""

    concurrency: int
    point: int  # position among the side's points on the workload
    values: tuple[float | None, ...]  # per statistic, in the order asked; None: not measured


def measured(values: Floats) -> tuple[bool, ...]:
    """Per statistic (a row of `values`, a column a point), whether any point measured it."""
    return tuple(bool(np.isfinite(row).any()) for row in values)


def by_concurrency(
    concurrency: npt.NDArray[np.int64], throughput: Floats, values: Floats
) -> tuple[LatencyAt, ...]:
    """Per tested concurrency, ascending, the point of highest throughput among those that
    measured any statistic (`values`: a row per statistic, a column per point, NaN where not
    measured); the first such point on a tie. A concurrency where no point measured any is left out."""
    best: dict[int, int] = {}
    for point in np.flatnonzero(np.isfinite(values).any(axis=0)).tolist():
        level = int(concurrency[point])
        held = best.get(level)
        if held is None or _above(throughput[point], throughput[held]):
            best[level] = point
    return tuple(
        LatencyAt(level, point, tuple(float(v) if np.isfinite(v) else None for v in values[:, point]))
        for level, point in sorted(best.items())
    )


def _above(value: float, than: float) -> bool:
    """value > than, an unknown (NaN) throughput below any known one."""
    return bool(np.isnan(than) and not np.isnan(value)) or bool(value > than)
