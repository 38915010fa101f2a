"""One run filed twice: an MLPerf submission's accuracy-target copies, counted once.

A submission whose run meets the stricter accuracy target files it under both benchmark folders,
`llama2-70b-99/` and `llama2-70b-99.9/`, byte for byte (LoadGen's summary and detailed log
alike). Each file without a `_dataset.yaml` is a data set of its own, and points of different
data sets never replace each other, so the run would count twice. Two points are one run when
their files differ only in the benchmark folder's accuracy target and they agree in their
configuration and every measured value; the copy under the stricter target is kept (the run
meets it, so it stands for both), and one warning per pair names both folders and how to keep
the other. Two runs that merely share a configuration (different measurements) stay two points,
for the duplicate rule (validate.py) to judge.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from site_builder.read.mlperf import accuracy_target
from site_builder.read.table import POINT_COLUMNS

if TYPE_CHECKING:
    from site_builder.read.table import PointTable

_MEASURED = list(POINT_COLUMNS)  # lengths, concurrency, throughput, latencies, power


def without_copies(table: PointTable) -> tuple[PointTable, list[tuple[str, str]]]:
    """The table with each accuracy-target copy left out, and (the copy's file, the reason) for
    each pair of files."""
    files = table.column("source_file").tolist()
    places = {file: accuracy_target(file) for file in dict.fromkeys(files)}  # a file's points share it
    placed = [places[file] for file in files]
    candidates = [(row, place) for row, place in enumerate(placed) if place is not None]
    if len(candidates) < 2:
        return table, []
    configs = table.column("config_id").tolist()
    measured = table.records([row for row, _ in candidates], _MEASURED)
    runs: dict[tuple[Any, ...], list[int]] = {}
    for (row, place), values in zip(candidates, measured, strict=True):
        runs.setdefault((place[0], configs[row], *map(_same, values.values())), []).append(row)
    dropped: dict[tuple[str, str], int] = {}  # (the copy's file, the kept one's): points
    left_out: set[int] = set()
    for rows in runs.values():
        kept, copies = _strictest(rows, placed)
        for row in copies:
            left_out.add(row)
            pair = (files[row], files[kept])
            dropped[pair] = dropped.get(pair, 0) + 1
    if not left_out:
        return table, []
    keep = np.array([row for row in range(len(files)) if row not in left_out], dtype=np.intp)
    return table.rows(keep), list(_reasons(dropped, placed, files))


def _same(value: Any) -> Any:
    """A measured value as compared: NaN (not measured) equal to itself."""
    return None if isinstance(value, float) and math.isnan(value) else value


def _strictest(rows: list[int], placed: list[tuple[str, str, float] | None]) -> tuple[int, list[int]]:
    """The row under the strictest accuracy target (of equal ones: the first, so no copy), and
    the copies of it under other targets."""
    targets = {row: place[2] for row in rows if (place := placed[row]) is not None}
    kept = max(rows, key=lambda row: targets[row])
    return kept, [row for row in rows if targets[row] != targets[kept]]


def _reasons(
    dropped: dict[tuple[str, str], int], placed: list[tuple[str, str, float] | None], files: list[str]
) -> Iterator[tuple[str, str]]:
    folder_of = {file: place[1] for file, place in zip(files, placed, strict=True) if place is not None}
    for (copy, kept), count in dropped.items():
        copy_folder, kept_folder = folder_of[copy], folder_of[kept]
        points = "its point is" if count == 1 else f"its {count} points are"
        exclude = kept_folder.split("/", 1)[-1]  # exclude: globs are relative to the data folder
        yield (
            copy,
            (
                f"an accuracy-target copy of {kept}: the benchmark folders {copy_folder.rsplit('/', 1)[-1]}/ "
                f"and {kept_folder.rsplit('/', 1)[-1]}/ hold one run (the same configuration, the very same "
                f"measured values), so it counts once, from {kept_folder.rsplit('/', 1)[-1]}/ (the stricter "
                f"accuracy target, which the run meets), and {points} left out. To keep this "
                f"copy instead, add exclude: ['{exclude}'] to content/site.yaml"
            ),
        )
