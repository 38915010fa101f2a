"""Select each side's points, by the filters its stub declares."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from site_builder.content import FilterValue
from site_builder.points import BenchmarkPoint, Configuration

NARROWING_KEYS = ("framework", "disagg", "spec_method")
SELECTIONS_KEPT = 4096  # sides a PointIndex remembers (a side's tuple is its points' pointers)


def value_of(point: BenchmarkPoint, key: str) -> str | bool:
    return config_value(point.config, point.provenance.dataset, key)


def config_value(config: Configuration, dataset: str, key: str) -> str | bool:
    """What a filter on `key` reads of a point: its dataset or a field of its configuration."""
    if key == "dataset":
        return dataset
    value: str | bool = getattr(config, key)
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
    """The points, grouped so a side's selection tests a few groups, not every point.

    Points that share a configuration and a dataset answer every filter alike (`value_of`
    reads nothing else), so they form one cell; cells are bucketed by (model, hardware) and
    (model, hardware, precision). A selection tests each cell in its bucket with the filters'
    own rules and returns the accepted cells' points in order: the same list as
    `select(self.points, filters)`.
    """

    def __init__(self, points: Sequence[BenchmarkPoint]) -> None:
        self.points = list(points)
        cells: dict[tuple[Configuration, str], list[int]] = {}
        for position, point in enumerate(self.points):
            cells.setdefault((point.config, point.provenance.dataset), []).append(position)
        self._cells = [np.array(positions, dtype=np.intp) for positions in cells.values()]
        self._cell_of = list(cells)  # what a filter reads of a cell's points: configuration, dataset
        self._buckets: dict[tuple[str, ...], list[int]] = defaultdict(list)  # cell numbers
        self._selections: dict[tuple[tuple[str, object], ...], tuple[BenchmarkPoint, ...]] = {}
        for number, (c, _) in enumerate(self._cell_of):
            key = (c.model.lower(), c.hardware.lower())
            self._buckets[key].append(number)
            self._buckets[(*key, c.precision.lower())].append(number)

    def select(self, filters: Mapping[str, FilterValue]) -> list[BenchmarkPoint]:
        return list(self.selection(filters))

    def selection(self, filters: Mapping[str, FilterValue]) -> tuple[BenchmarkPoint, ...]:
        """`select`'s points as a tuple, the same tuple for the same filters (pages share sides,
        and what is derived from a side's points is then derived once: compute.side_facts)."""
        key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in filters.items()))
        found = self._selections.get(key)
        if found is None:
            if len(self._selections) >= SELECTIONS_KEPT:
                self._selections.clear()
            found = self._selections[key] = tuple(self._select(filters))
        return found

    def _select(self, filters: Mapping[str, FilterValue]) -> list[BenchmarkPoint]:
        model, hardware, precision = filters.get("model"), filters.get("hardware"), filters.get("precision")
        candidates: Iterable[int] = range(len(self._cells))
        if isinstance(model, str) and isinstance(hardware, str):
            key: tuple[str, ...] = (model.lower(), hardware.lower())
            if isinstance(precision, str):
                key = (*key, precision.lower())
            candidates = self._buckets.get(key, [])
        accepted = [self._cells[n] for n in candidates if self._cell_matches(n, filters)]
        positions = np.sort(np.concatenate(accepted)).tolist() if accepted else []
        return [self.points[p] for p in positions]

    def _cell_matches(self, number: int, filters: Mapping[str, FilterValue]) -> bool:
        config, dataset = self._cell_of[number]
        return matches_filters(lambda key: config_value(config, dataset, key), filters)


def by_sequence(points: Sequence[BenchmarkPoint]) -> dict[tuple[int, int], list[BenchmarkPoint]]:
    groups: dict[tuple[int, int], list[BenchmarkPoint]] = defaultdict(list)
    for point in points:
        groups[(point.isl, point.osl)].append(point)
    return dict(groups)


def describe(filters: Mapping[str, FilterValue]) -> str:
    return ", ".join(f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in filters.items())
