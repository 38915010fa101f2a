"""A page's two sides as point rows: what each side's filters select, read on one throughput
basis, workload by workload.

The plan (which pages are published and which sequences each shows) and the compute stage read
the very same rows, through these functions; the compute stage words what they found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from site_builder.content import Stub
from site_builder.engine.compare import band_of
from site_builder.engine.frontier import pareto_frontier
from site_builder.read.table import PointTable
from site_builder.workload import Workload, labelled, sorted_workloads


@dataclass(frozen=True)
class PageSides:
    """Each side's rows as its filters select them, then on one basis (output tok/s throughout
    when any point gives output only: `dropped` points lacked it), by workload, and every
    workload either side measured, the stub's first."""

    selected: tuple[PointTable, PointTable]
    rows: tuple[PointTable, PointTable]
    basis: str
    dropped: tuple[int, int]
    by_workload: tuple[dict[Workload, PointTable], dict[Workload, PointTable]]
    workloads: tuple[Workload, ...]

    @property
    def empty(self) -> bool:
        """A side selects no point (or none with an output throughput where the page needs one)."""
        return not all(len(rows) for rows in self.rows)


def page_sides(stub: Stub, table: PointTable) -> PageSides:
    """The page's sides from the table."""
    selected = (table.select(stub.sides[0].filters), table.select(stub.sides[1].filters))
    rows, basis = on_one_basis(selected)
    groups = (by_workload(rows[0]), by_workload(rows[1]))
    return PageSides(
        selected=selected,
        rows=(rows[0], rows[1]),
        basis=basis,
        dropped=(len(selected[0]) - len(rows[0]), len(selected[1]) - len(rows[1])),
        by_workload=groups,
        workloads=tuple(ordered_workloads(stub.sequence, groups)),
    )


def on_one_basis(selected: Sequence[PointTable]) -> tuple[list[PointTable], str]:
    """Sides' rows on one throughput basis, and which: output tok/s throughout when any point
    gives output only (a page, or the index's scorecard, never mixes the two)."""
    output = any((rows.column("throughput_basis") == "output").any() for rows in selected)
    return ([_output_only(side) for side in selected] if output else list(selected)), (
        "output" if output else "total"
    )


def _output_only(rows: PointTable) -> PointTable:
    """A side's points with an output throughput, read as output tok/s: a page never mixes the
    two bases."""
    return rows.rows(~np.isnan(rows.column("output_throughput_per_gpu").astype(float))).as_output_only()


def by_workload(rows: PointTable) -> dict[Workload, PointTable]:
    """A side's points by workload, workloads in order of first appearance, each one's points in
    table order: a point with a `workload:` label is that label's, whatever its lengths; any
    other is its (isl, osl)'s."""
    if not len(rows):
        return {}
    isl, osl = rows.column("isl").astype(np.int64), rows.column("osl").astype(np.int64)
    codes, distinct = pd.factorize(rows.column("workload"))  # -1: no label
    labels = [str(label) for label in distinct]
    # lengths are counts below 2**31 (files.MAX_COUNT), so a label's key (negative) is no pair's
    key = np.where(codes >= 0, -1 - codes, isl * 2**32 + osl)
    _, first, which = np.unique(key, return_index=True, return_inverse=True)
    return {
        _workload_of(int(isl[f]), int(osl[f]), int(codes[f]), labels): rows.rows(np.flatnonzero(which == k))
        for k, f in ((k, first[k]) for k in np.argsort(first, kind="stable").tolist())
    }


def _workload_of(isl: int, osl: int, code: int, labels: Sequence[str]) -> Workload:
    return labelled(labels[code]) if code >= 0 else Workload(isl, osl)


def ordered_workloads(default: Workload, groups: Sequence[dict[Workload, PointTable]]) -> list[Workload]:
    """Every workload either side measured, the stub's own first, then fixed lengths by size,
    then labelled workloads by label."""
    return sorted_workloads(set(groups[0]) | set(groups[1]), default)


def frontier_range(rows: PointTable) -> tuple[float, float] | None:
    """The interactivity span of a side's frontier on one workload (None without a point)."""
    x = rows.column("interactivity").astype(float)
    knots = pareto_frontier(x, rows.column("throughput_per_gpu").astype(float))
    return (float(x[knots[0]]), float(x[knots[-1]])) if len(knots) else None


def matched_workloads(sides: PageSides) -> list[Workload]:
    """The workloads where the sides' frontiers overlap as a matched range (engine.compare.Band),
    in the page's order."""
    return [
        workload
        for workload in sides.workloads
        if (a := sides.by_workload[0].get(workload)) is not None
        and (b := sides.by_workload[1].get(workload)) is not None
        and band_of(frontier_range(a), frontier_range(b)).overlap
    ]


@dataclass(frozen=True)
class NarrowSide:
    """A side whose frontier on a workload is one interactivity (`points` points, most often
    one): it has no range to match, only a value the other side's range may hold."""

    side: int
    workload: Workload
    points: int
    interactivity: float


def narrow_sides(sides: PageSides) -> list[NarrowSide]:
    """Each side, on each workload it measured (page order), whose frontier spans no range."""
    found = []
    for side, groups in enumerate(sides.by_workload):
        for workload in sides.workloads:
            rows = groups.get(workload)
            span = frontier_range(rows) if rows is not None else None
            if rows is not None and span is not None and span[0] == span[1]:
                found.append(NarrowSide(side, workload, len(rows), span[0]))
    return found


def matched_somewhere(sides: PageSides) -> bool:
    """Whether the sides' frontiers overlap as a matched range on some workload: a generated page
    without one is not published."""
    return bool(matched_workloads(sides))
