"""Checks across all loaded points (each record was validated as it loaded).

Duplicates keep the newest, and the build says which it dropped; a GPU the hardware catalog does
not know gets one warning, since its pages can show no cost or energy figures.
"""

from __future__ import annotations

from collections.abc import Sequence

from site_builder.catalog import HardwareCatalog
from site_builder.points import BenchmarkPoint, Configuration
from site_builder.problems import ProblemLog, Severity


def drop_duplicates(points: Sequence[BenchmarkPoint], log: ProblemLog) -> list[BenchmarkPoint]:
    """One point per (configuration, workload, concurrency): the newest; ties go to the later file."""
    kept: dict[tuple[int, int, int, int], BenchmarkPoint] = {}
    # a number per distinct configuration, found once per configuration object (a file's points
    # share theirs) rather than hashing every point's; `points` keeps every object, so every id
    numbers: dict[Configuration, int] = {}
    by_object: dict[int, int] = {}
    for point in points:
        config = point.config
        number = by_object.get(id(config))
        if number is None:
            number = by_object[id(config)] = numbers.setdefault(config, len(numbers))
        key = (number, point.isl, point.osl, point.concurrency)
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


def unknown_hardware(points: Sequence[BenchmarkPoint], catalog: HardwareCatalog, log: ProblemLog) -> None:
    """One warning per GPU key the catalog lacks, naming the files that use it and how to add it."""
    files: dict[str, dict[str, BenchmarkPoint]] = {}
    seen: set[tuple[int, str]] = set()
    for point in points:
        marker = (id(point.config), point.provenance.source_file)  # the config outlives the loop
        if marker in seen:
            continue
        seen.add(marker)
        files.setdefault(point.config.hardware, {}).setdefault(point.provenance.source_file, point)
    for key, used in sorted(files.items()):
        if key in catalog.gpus:
            continue
        first = next(iter(used.values()))
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
) -> list[BenchmarkPoint]:
    """The points to build from, with every cross-point problem logged."""
    kept = drop_duplicates(points, log)
    if catalog is not None:
        unknown_hardware(kept, catalog, log)
    return kept
