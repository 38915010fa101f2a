"""The loaded points as columns: what planning, validation and selection read of every point,
with each point made (a pydantic object) only when a page's side first selects it.

A file read in bulk (loaders/bulk.py) gives a `Part` whose points are made on demand, in the
process that needs them (under a process pool, the worker making the page); points read one at
a time are a part of points already made. The pool holds, for every point in load order, its
configuration object, dataset, source file, workload and concurrency: enough to drop
duplicates (a repeated point's date is read from the point, made then), warn of unknown GPUs,
plan pages and group points into the index's cells without making a point. Iterating the pool
(or indexing it) makes points, so it is a sequence of `BenchmarkPoint`s like any other.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, overload

import numpy as np
import numpy.typing as npt

from site_builder.points import BenchmarkPoint, Configuration

Positions = npt.NDArray[np.intp]
Ints = npt.NDArray[np.int64]
Made = TypeVar("Made")


class Part(Protocol):
    """Points of one origin as columns (one value a row); `make` gives the points of some rows."""

    @property
    def configs(self) -> Sequence[Configuration]: ...  # distinct configuration objects
    @property
    def config_codes(self) -> Positions: ...  # a row's index into `configs`
    @property
    def datasets(self) -> Sequence[str]: ...
    @property
    def dataset_codes(self) -> Positions: ...
    @property
    def files(self) -> Sequence[str]: ...
    @property
    def file_codes(self) -> Positions: ...
    @property
    def isl(self) -> Ints: ...
    @property
    def osl(self) -> Ints: ...
    @property
    def concurrency(self) -> Ints: ...

    def make(self, rows: Sequence[int]) -> list[BenchmarkPoint]: ...


class MadePoints:
    """Points already made (read one at a time, or given by a caller) as a part."""

    def __init__(self, points: Sequence[BenchmarkPoint]) -> None:
        self.points = list(points)
        self.configs, self.config_codes = _codes([p.config for p in self.points], by=id)
        self.datasets, self.dataset_codes = _codes([p.provenance.dataset for p in self.points])
        self.files, self.file_codes = _codes([p.provenance.source_file for p in self.points])
        self.isl = np.array([p.isl for p in self.points], dtype=np.int64)
        self.osl = np.array([p.osl for p in self.points], dtype=np.int64)
        self.concurrency = np.array([p.concurrency for p in self.points], dtype=np.int64)

    def make(self, rows: Sequence[int]) -> list[BenchmarkPoint]:
        return [self.points[r] for r in rows]


def _codes(values: list[Any], by: Any = None) -> tuple[list[Any], Positions]:
    """The distinct values (by `by(value)`, else by equality) in order of appearance, and each
    value's index among them."""
    seen: dict[Any, int] = {}
    distinct: list[Any] = []
    codes = np.empty(len(values), dtype=np.intp)
    for i, value in enumerate(values):
        key = by(value) if by is not None else value
        code = seen.get(key)
        if code is None:
            code = seen[key] = len(distinct)
            distinct.append(value)
        codes[i] = code
    return distinct, codes


class PoolBuilder:
    """The pool as a loader fills it: points made one at a time, and rows of bulk parts, in order."""

    def __init__(self) -> None:
        self._segments: list[tuple[Part, Positions]] = []
        self._loose: list[BenchmarkPoint] = []
        self._built: PointPool | None = None

    def append(self, point: BenchmarkPoint) -> None:
        self._loose.append(point)
        self._built = None

    def extend(self, points: Sequence[BenchmarkPoint]) -> None:
        self._loose.extend(points)
        self._built = None

    def add_rows(self, part: Part, rows: Positions) -> None:
        """These rows of `part` (made on demand), after every point added so far."""
        if len(rows) == 0:
            return
        self._close_loose()
        self._segments.append((part, rows))
        self._built = None

    def _close_loose(self) -> None:
        if self._loose:
            part: Part = MadePoints(self._loose)
            self._segments.append((part, np.arange(len(self._loose), dtype=np.intp)))
            self._loose = []

    def pool(self) -> PointPool:
        """The points added so far, as a pool (the same one until more are added)."""
        if self._built is None:
            self._close_loose()
            self._built = PointPool(self._segments)
        return self._built


class PointPool(Sequence[BenchmarkPoint]):
    """Every loaded point in order, as columns; a point is made when it is first read."""

    def __init__(self, segments: Sequence[tuple[Part, Positions]]) -> None:
        parts: list[Part] = []
        part_index: dict[int, int] = {}
        configs: dict[int, int] = {}
        self.configs: list[Configuration] = []
        self.datasets: list[str] = []
        self.files: list[str] = []
        datasets: dict[str, int] = {}
        files: dict[str, int] = {}
        columns: dict[str, list[npt.NDArray[Any]]] = {
            k: [] for k in ("part", "row", "config", "dataset", "file", "isl", "osl", "concurrency")
        }
        for part, rows in segments:
            number = part_index.get(id(part))
            if number is None:
                number = part_index[id(part)] = len(parts)
                parts.append(part)
            config_map = np.array(
                [_number(configs, id(c), self.configs, c) for c in part.configs], dtype=np.intp
            )
            dataset_map = np.array(
                [_number(datasets, d, self.datasets, d) for d in part.datasets], dtype=np.intp
            )
            file_map = np.array([_number(files, f, self.files, f) for f in part.files], dtype=np.intp)
            columns["part"].append(np.full(len(rows), number, dtype=np.intp))
            columns["row"].append(np.asarray(rows, dtype=np.intp))
            columns["config"].append(config_map[part.config_codes[rows]] if len(config_map) else rows[:0])
            columns["dataset"].append(dataset_map[part.dataset_codes[rows]] if len(dataset_map) else rows[:0])
            columns["file"].append(file_map[part.file_codes[rows]] if len(file_map) else rows[:0])
            columns["isl"].append(part.isl[rows])
            columns["osl"].append(part.osl[rows])
            columns["concurrency"].append(part.concurrency[rows])
        self._parts = parts

        def joined(key: str, dtype: Any) -> npt.NDArray[Any]:
            found = columns[key]
            return np.concatenate(found).astype(dtype, copy=False) if found else np.zeros(0, dtype=dtype)

        self.part_of: Positions = joined("part", np.intp)
        self.row_of: Positions = joined("row", np.intp)
        self.config_of: Positions = joined("config", np.intp)  # index into self.configs
        self.dataset_of: Positions = joined("dataset", np.intp)
        self.file_of: Positions = joined("file", np.intp)
        self.isl: Ints = joined("isl", np.int64)
        self.osl: Ints = joined("osl", np.int64)
        self.concurrency: Ints = joined("concurrency", np.int64)

    @classmethod
    def of(cls, points: Sequence[BenchmarkPoint]) -> PointPool:
        """`points` as a pool (itself if it is one)."""
        if isinstance(points, PointPool):
            return points
        builder = PoolBuilder()
        builder.extend(points)
        return builder.pool()

    def subset(self, positions: Positions) -> PointPool:
        """The points at these positions, in this order (made once: shared with this pool)."""
        out = object.__new__(PointPool)
        out._parts = self._parts
        out.configs, out.datasets, out.files = self.configs, self.datasets, self.files
        for name in ("part_of", "row_of", "config_of", "dataset_of", "file_of", "isl", "osl", "concurrency"):
            setattr(out, name, getattr(self, name)[positions])
        return out

    def take(self, positions: Sequence[int] | Positions) -> list[BenchmarkPoint]:
        """The points at these positions, made where not made yet (a part's rows in one go)."""
        where = np.asarray(positions, dtype=np.intp)
        if len(where) == 0:
            return []
        parts = self.part_of[where]
        rows = self.row_of[where]
        first = int(parts[0])
        if (parts == first).all():
            return self._parts[first].make(rows.tolist())
        out: list[BenchmarkPoint | None] = [None] * len(where)
        for number in np.unique(parts).tolist():
            here = np.flatnonzero(parts == number)
            for at, point in zip(here.tolist(), self._parts[number].make(rows[here].tolist()), strict=True):
                out[at] = point
        return [p for p in out if p is not None]

    def __len__(self) -> int:
        return len(self.part_of)

    @overload
    def __getitem__(self, index: int) -> BenchmarkPoint: ...
    @overload
    def __getitem__(self, index: slice) -> list[BenchmarkPoint]: ...
    def __getitem__(self, index: int | slice) -> BenchmarkPoint | list[BenchmarkPoint]:
        if isinstance(index, slice):
            return self.take(np.arange(len(self))[index])
        position = range(len(self))[index]  # IndexError as a list raises it
        return self.take([position])[0]

    def __iter__(self) -> Iterator[BenchmarkPoint]:
        return iter(self.take(np.arange(len(self), dtype=np.intp)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PointPool({len(self)} points)"

    def first_of(self, *columns: npt.NDArray[Any]) -> Positions:
        """The positions where each distinct combination of these columns' values first
        appears, in pool order."""
        order, starts = grouped(*columns)
        return np.sort(order[starts])

    def cells(self) -> list[Positions]:
        """The pool's positions grouped by (configuration object, dataset), cells in order of
        first appearance, each in pool order: points of a cell answer every filter alike."""
        if len(self) == 0:
            return []
        codes = self.config_of * len(self.datasets) + self.dataset_of
        distinct, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        bounds = np.cumsum(np.bincount(inverse, minlength=len(distinct)))[:-1]
        groups = np.split(order, bounds)
        return [groups[i] for i in np.argsort(first, kind="stable").tolist()]

    def representatives(self) -> PointPool:
        """One point per (configuration object, dataset, source file), in pool order: what
        every fact about a point but its workload and measurements needs."""
        return self.subset(self.first_of(self.config_of, self.dataset_of, self.file_of))


def grouped(*columns: npt.NDArray[Any]) -> tuple[Positions, Positions]:
    """Positions ordered by these (equally long) columns' values, stably (within a combination,
    in their order), and where in that order each distinct combination starts."""
    order = np.lexsort(columns[::-1])
    changed = np.zeros(len(order), dtype=bool)
    changed[:1] = True
    for column in columns:
        ordered = column[order]
        changed[1:] |= ordered[1:] != ordered[:-1]
    return order, np.flatnonzero(changed)


def _number(seen: dict[Any, int], key: Any, distinct: list[Any], value: Any) -> int:
    found = seen.get(key)
    if found is None:
        found = seen[key] = len(distinct)
        distinct.append(value)
    return found


def made_without_collection(make: Callable[[], list[Made]]) -> list[Made]:
    """`make()` with the cyclic collector paused: it makes many objects that all live on, which
    the young generations' collections would walk again and again (loaders._no_collection)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return make()
    finally:
        if was_enabled:
            gc.enable()
