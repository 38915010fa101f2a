"""The throughput–interactivity frontier of one side (DESIGN.md, "Frontier")."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Positions = npt.NDArray[np.intp]


def pareto_frontier(interactivity: Floats, throughput: Floats) -> Positions:
    """The positions of the points that no other point beats or equals on both interactivity
    and throughput, by rising interactivity (and so strictly falling throughput).

    Of points at equal interactivity only the highest throughput can survive; of exact
    duplicates only the first in input order does, so the result is deterministic. Walking the
    points from the highest interactivity down (ties: higher throughput first, then input
    order), a point is on the frontier when its throughput beats every one walked before it.
    """
    x = np.asarray(interactivity, dtype=float)
    y = np.asarray(throughput, dtype=float)
    if len(x) == 0:
        return np.zeros(0, dtype=np.intp)
    walk = np.lexsort((np.arange(len(x)), -y, -x))
    walked = y[walk]
    best_before = np.concatenate(([-np.inf], np.maximum.accumulate(walked)[:-1]))
    return walk[walked > best_before][::-1]


def listing_order(interactivity: Floats, throughput: Floats, concurrency: Floats) -> Positions:
    """The order a side's points are listed in (table, chart, downloads): by rising
    interactivity, then falling throughput, then rising concurrency, then input order."""
    x = np.asarray(interactivity, dtype=float)
    return np.lexsort((np.arange(len(x)), np.asarray(concurrency), -np.asarray(throughput, dtype=float), x))
