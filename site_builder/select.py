"""Select each side's points from the pool, by the filters its stub declares."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from site_builder.content import FilterValue
from site_builder.points import BenchmarkPoint

NARROWING_KEYS = ("framework", "disagg", "spec_method")


def value_of(point: BenchmarkPoint, key: str) -> str | bool:
    if key == "dataset":
        return point.provenance.dataset
    value: str | bool = getattr(point.config, key)
    return value


def matches(point: BenchmarkPoint, filters: Mapping[str, FilterValue]) -> bool:
    for key, wanted in filters.items():
        have = value_of(point, key)
        if isinstance(wanted, list):
            if have not in wanted:
                return False
        elif isinstance(wanted, str) and isinstance(have, str):
            if have.lower() != wanted.lower():
                return False
        elif have != wanted:
            return False
    return True


def select(points: Iterable[BenchmarkPoint], filters: Mapping[str, FilterValue]) -> list[BenchmarkPoint]:
    return [p for p in points if matches(p, filters)]


class PointIndex:
    """Points bucketed by (model, hardware) and (model, hardware, precision), so a side filters
    its bucket, not the whole pool."""

    def __init__(self, points: Sequence[BenchmarkPoint]) -> None:
        self.points = list(points)
        self._buckets: dict[tuple[str, ...], list[BenchmarkPoint]] = defaultdict(list)
        for point in self.points:
            c = point.config
            key = (c.model.lower(), c.hardware.lower())
            self._buckets[key].append(point)
            self._buckets[(*key, c.precision.lower())].append(point)

    def select(self, filters: Mapping[str, FilterValue]) -> list[BenchmarkPoint]:
        model, hardware, precision = filters.get("model"), filters.get("hardware"), filters.get("precision")
        pool: Sequence[BenchmarkPoint] = self.points
        if isinstance(model, str) and isinstance(hardware, str):
            key: tuple[str, ...] = (model.lower(), hardware.lower())
            if isinstance(precision, str):
                key = (*key, precision.lower())
            pool = self._buckets.get(key, [])
        return select(pool, filters)


def by_sequence(points: Sequence[BenchmarkPoint]) -> dict[tuple[int, int], list[BenchmarkPoint]]:
    groups: dict[tuple[int, int], list[BenchmarkPoint]] = defaultdict(list)
    for point in points:
        groups[(point.isl, point.osl)].append(point)
    return dict(groups)


def describe(filters: Mapping[str, FilterValue]) -> str:
    return ", ".join(f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in filters.items())
