"""Checks across points: duplicates keep the newest, and the build says which it dropped."""

from __future__ import annotations

from collections.abc import Sequence

from site_builder.models import BenchmarkPoint
from site_builder.problems import ProblemLog, Severity


def _identity(point: BenchmarkPoint) -> tuple[object, ...]:
    return (point.config, point.isl, point.osl, point.concurrency)


def drop_duplicates(points: Sequence[BenchmarkPoint], log: ProblemLog) -> list[BenchmarkPoint]:
    """One point per (configuration, workload, concurrency): the newest; ties go to the later file."""
    kept: dict[tuple[object, ...], BenchmarkPoint] = {}
    for point in points:
        key = _identity(point)
        previous = kept.get(key)
        if previous is None:
            kept[key] = point
            continue
        newer, older = (
            (point, previous)
            if (point.provenance.date or "") >= (previous.provenance.date or "")
            else (previous, point)
        )
        kept[key] = newer
        log.add(
            older.provenance.source_file,
            older.provenance.record,
            "",
            f"duplicate point ({point.config.label()}, {point.sequence}, concurrency "
            f"{point.concurrency}); kept the newer one from {newer.provenance.source_file} "
            f"{newer.provenance.record} (date {newer.provenance.date or 'unknown'})",
            Severity.WARNING,
        )
    return list(kept.values())
