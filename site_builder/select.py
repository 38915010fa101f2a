"""Select each side's points from the pool, by the filters its stub declares."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from site_builder.content import FilterValue
from site_builder.points import BenchmarkPoint

NARROWING_KEYS = ("framework", "disagg", "spec_method")


def value_of(point: BenchmarkPoint, key: str) -> str | bool:
    if key == "dataset":
        return point.provenance.dataset
    value: str | bool = getattr(point.config, key)
    return value


def filter_accepts(have: object, wanted: FilterValue) -> bool:
    """Whether a value passes one filter: text compared without case, a list as "any of"."""
    if isinstance(wanted, list):
        return any(filter_accepts(have, w) for w in wanted)
    if isinstance(wanted, str) and isinstance(have, str):
        return have.lower() == wanted.lower()
    return have == wanted


def matches_filters(value_of: Callable[[str], object], filters: Mapping[str, FilterValue]) -> bool:
    """Whether a thing (a point, a sweep row, …) whose values `value_of` gives passes every filter."""
    return all(filter_accepts(value_of(key), wanted) for key, wanted in filters.items())


def matches(point: BenchmarkPoint, filters: Mapping[str, FilterValue]) -> bool:
    return matches_filters(lambda key: value_of(point, key), filters)


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
