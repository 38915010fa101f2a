"""Small builders of points and constants for tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_builder import compute
from site_builder.catalog import AppliedConstants
from site_builder.compute import ComputedSide
from site_builder.engine import compare as engine
from site_builder.engine.compare import Constants, SidePoints
from site_builder.present.result import ShownPoints, sequence_result, shown_side
from site_builder.present.schema import SequenceResult
from site_builder.read.table import PointTable
from site_builder.workload import Workload

Point = dict[str, Any]  # a point as a row of the point table (read/table.py)


def point(
    interactivity: float,
    throughput: float,
    concurrency: int = 8,
    *,
    framework: str = "sglang",
    precision: str = "fp8",
    spec_method: str = "none",
    hardware: str = "mi355x",
    model: str = "dsr1",
    tp: int = 8,
    isl: int = 1024,
    osl: int = 1024,
    date: str | None = "2026-01-01",
    output: float | None = None,
    record: str = "record 1",
    gpu_count: int | None = -1,  # -1: as many GPUs as the tensor-parallel degree
) -> Point:
    return {
        "model": model,
        "hardware": hardware,
        "framework": framework,
        "precision": precision,
        "spec_method": spec_method,
        "tp": tp,
        "gpu_count": tp if gpu_count == -1 else gpu_count,
        "isl": isl,
        "osl": osl,
        "concurrency": concurrency,
        "throughput_per_gpu": float(throughput),
        "output_throughput_per_gpu": output,
        "interactivity": float(interactivity),
        "dataset": "test",
        "source_file": "test.json",
        "record": record,
        "date": date,
    }


def table(points: Sequence[Point]) -> PointTable:
    return PointTable.from_records(points)


def side_points(points: Sequence[Point]) -> SidePoints:
    """A side's points as the engine reads them."""
    return compute.side_points(table(points))


def constants(
    usd: float | None = 1.48, watts: float | None = 2650.0, hardware: str = "mi355x"
) -> AppliedConstants:
    return AppliedConstants(
        hardware=hardware,
        hardware_name=hardware.upper(),
        cost_tier="hyperscaler",
        usd_per_gpu_hour=usd,
        watts_all_in=watts,
        source="test constants",
        as_of="2026-04",
    )


@dataclass(frozen=True)
class SideInput:
    """One side of a test comparison, as the tests have always written it."""

    label: str
    filters: dict[str, str | bool | int | list[str] | list[int]]
    pooling: str  # "best available", or "narrowed: key=value"
    hardware: str
    constants: AppliedConstants
    points: Sequence[Point]


def _narrowing(pooling: str) -> dict[str, str | bool | int | list[str] | list[int]]:
    """'narrowed: framework=sglang' -> {'framework': 'sglang'}; 'best available' -> {}."""
    if pooling in ("", "best available"):
        return {}
    key, value = pooling.removeprefix("narrowed: ").split("=", 1)
    return {key: value}


def compare_sequence(
    isl: int,
    osl: int,
    sequence: str,
    sides: Sequence[SideInput],
    pinned_targets: Sequence[float] | None = None,
) -> SequenceResult:
    """The engine's numbers for one workload, presented as comparison.json holds them."""
    return sequence_and_points(isl, osl, sequence, sides, pinned_targets)[0]


def sequence_and_points(
    isl: int,
    osl: int,
    sequence: str,
    sides: Sequence[SideInput],
    pinned_targets: Sequence[float] | None = None,
) -> tuple[SequenceResult, list[ShownPoints]]:
    """`compare_sequence`, and each side's points as the page lists them (points.csv, the charts,
    the page data)."""
    rows = [table(s.points) for s in sides]
    numbers = engine.compare_sequence(
        isl,
        osl,
        [compute.side_points(r) for r in rows],
        [Constants(**s.constants.values()) for s in sides],
        pinned_targets,
    )
    computed = [
        ComputedSide(
            s.label,
            s.filters,
            _narrowing(s.pooling),
            s.hardware,
            s.constants,
        )
        for s in sides
    ]
    shown = [shown_side(side, r) for side, r in zip(numbers.sides, rows, strict=True)]
    return sequence_result(computed, Workload(numbers.isl, numbers.osl), numbers, rows), shown


SHARED_EDITS = ("catalog", "template", "guide", "site config")


def edit_shared_input(project: Path, change: str) -> None:
    """One of the edits every page depends on (SHARED_EDITS), as the cache tests make them."""
    if change == "catalog":
        catalog = project / "data" / "hardware.yaml"
        catalog.write_text(catalog.read_text().replace("hyperscaler: 1.41", "hyperscaler: 1.99"))
    elif change == "template":
        base = project / "templates" / "base.html"
        base.write_text(base.read_text().replace("<main", "<!-- edited --><main"))
    elif change == "guide":
        (project / "docs").mkdir()
        (project / "docs" / "extra.md").write_text("# Extra\n\nMore.\n")
    elif change == "site config":
        (project / "content" / "site.yaml").write_text("title: Renamed\n")
    else:
        raise ValueError(f"not a shared edit: {change}")
