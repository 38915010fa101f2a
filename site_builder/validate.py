"""Checks across all loaded points (each record was validated as it loaded).

Duplicates keep the newest, and the build says which it dropped; a GPU the hardware catalog does
not know gets one warning, since its pages can show no cost or energy figures.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from site_builder.catalog import HardwareCatalog
from site_builder.points import BenchmarkPoint, Configuration
from site_builder.pool import PointPool, grouped
from site_builder.problems import ProblemLog, Severity


def drop_duplicates(points: Sequence[BenchmarkPoint], log: ProblemLog) -> PointPool:
    """One point per (configuration, workload, concurrency): the newest; ties go to the later file.

    Judged on the pool's columns: only the points of a key that repeats are made (to word the
    warning), and the kept points come in the order their keys first appear."""
    pool = PointPool.of(points)
    if len(pool) == 0:
        return pool
    # a number per distinct configuration (equal objects alike), found once per object
    numbers: dict[Configuration, int] = {}
    number_of = np.array([numbers.setdefault(c, len(numbers)) for c in pool.configs], dtype=np.int64)
    keys = (number_of[pool.config_of], pool.isl, pool.osl, pool.concurrency)
    order, starts = grouped(*keys)  # by key, and within a key in pool order
    sizes = np.diff(np.r_[starts, len(order)])
    if (sizes == 1).all():
        return pool
    chosen = order[starts]  # each key's first position, for now its point
    warnings: list[tuple[int, BenchmarkPoint, BenchmarkPoint, BenchmarkPoint]] = []
    for group in np.flatnonzero(sizes > 1).tolist():
        at = order[starts[group] : starts[group] + sizes[group]]
        made = pool.take(at)
        kept, previous = int(at[0]), made[0]
        for position, point in zip(at[1:].tolist(), made[1:], strict=True):
            newer, older = (
                (point, previous)
                if (point.provenance.date or "") >= (previous.provenance.date or "")
                else (previous, point)
            )
            if newer is point:
                kept, previous = position, point
            warnings.append((position, point, newer, older))
        chosen[group] = kept
    for _, point, newer, older in sorted(warnings, key=lambda found: found[0]):  # in pool order
        log.add(
            older.provenance.source_file,
            older.provenance.record,
            "",
            f"duplicate point ({point.config.label()}, {point.sequence}, concurrency "
            f"{point.concurrency}); kept the newer one from {newer.provenance.source_file} "
            f"{newer.provenance.record} (date {newer.provenance.date or 'unknown'})",
            Severity.WARNING,
        )
    first = order[starts]
    return pool.subset(chosen[np.argsort(first, kind="stable")])


def unknown_hardware(points: Sequence[BenchmarkPoint], catalog: HardwareCatalog, log: ProblemLog) -> None:
    """One warning per GPU key the catalog lacks, naming the files that use it and how to add it."""
    pool = PointPool.of(points)
    files: dict[str, dict[int, int]] = {}  # GPU → file → the first position with both
    for position in pool.first_of(pool.config_of, pool.file_of).tolist():
        config = pool.configs[pool.config_of[position]]
        files.setdefault(config.hardware, {}).setdefault(int(pool.file_of[position]), position)
    for key, used in sorted(files.items()):
        if key in catalog.gpus:
            continue
        first = pool[next(iter(used.values()))]
        others = len(used) - 1
        also = f" (and {others} other file{'s' if others > 1 else ''})" if others else ""
        log.add(
            first.provenance.source_file,
            first.provenance.record,
            "hardware",
            f"GPU '{key}' is not in the hardware catalog{also}: its pages show no cost or tok/s/MW and "
            f"name it '{key}'. Add it to data/hardware.yaml (gpus: {key}: {{name, watts_all_in, "
            f"usd_per_gpu_hour}}), or give its constants with their source under `constants:` in "
            "content/site.yaml or a stub (docs/data-format.md, 'Adding a GPU')",
            Severity.WARNING,
        )


def validate_points(
    points: Sequence[BenchmarkPoint], catalog: HardwareCatalog | None, log: ProblemLog
) -> PointPool:
    """The points to build from, with every cross-point problem logged."""
    kept = drop_duplicates(points, log)
    if catalog is not None:
        unknown_hardware(kept, catalog, log)
    return kept
