"""Short outputs, one rule for every format: a point whose measured mean output length falls well
below its nominal OSL (read.fields.short_output_share) is warned about once, after every reader
has made its points, never inside a reader.

Such outputs stopped at end-of-sequence (or the client drew lengths from a range it was not told
of), so the point's tok/s are not those of full-length outputs. The warning is said once per
folder: the folder of the metadata file that describes the runs (the load gives it: a sweep's
`_meta.yaml` above its `concurrency_N/` folders, an MLPerf system's above each
`performance/run_1/`), else the file's own; one warning a folder names the files, the measured
means against the nominal length, the share short and the next step.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from posixpath import dirname
from typing import TYPE_CHECKING, Any

from site_builder.formatting import fixed
from site_builder.read.fields import short_output_share

if TYPE_CHECKING:  # the table's module imports pandas
    from site_builder.read.table import PointTable

_COLUMNS = ("source_file", "workload", "osl", "osl_mean", "random_range_ratio")
FILES_NAMED = 3  # a warning names this many of its files, then counts the rest


@dataclass
class _Short:
    """The short points of one nominal length (and draw range) in one folder."""

    means: list[float] = field(default_factory=list)
    shares: list[float] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def short_outputs(table: PointTable, folders: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(where, reason) once per folder that holds points with short outputs: `folders` gives
    the folder a file's points are said under (its own where it has none); `where` is that
    folder (ending in '/'), or the file where only one file there is short."""
    found: dict[str, dict[tuple[int, float | None], _Short]] = {}
    for file, label, osl, mean, ratio in _rows(table):
        if label is not None or mean is None or osl is None:  # a labelled workload has no nominal
            continue
        share = short_output_share(osl, mean, ratio)
        if share is None:
            continue
        folder = folders.get(file) or (dirname(file) or ".") + "/"
        short = found.setdefault(folder, {}).setdefault((osl, ratio), _Short())
        short.means.append(mean)
        short.shares.append(share)
        if file not in short.files:
            short.files.append(file)
    for folder, by_length in found.items():
        files = list(dict.fromkeys(f for short in by_length.values() for f in short.files))
        where = files[0] if len(files) == 1 else folder
        yield where, _reason(by_length, files, where)


def _rows(table: PointTable) -> Iterator[tuple[str, str | None, int | None, float | None, float | None]]:
    columns = [table.column(name).tolist() for name in _COLUMNS]
    for file, label, osl, mean, ratio in zip(*columns, strict=True):
        yield (
            file,
            label if isinstance(label, str) else None,
            int(osl) if _given(osl) else None,
            float(mean) if _given(mean) else None,
            float(ratio) if _given(ratio) else None,
        )


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _reason(by_length: dict[tuple[int, float | None], _Short], files: Sequence[str], where: str) -> str:
    said = [_against(osl, ratio, short) for (osl, ratio), short in by_length.items()]
    named = "" if where in files else f" ({_files(files, where)})"
    drawn = all(ratio is not None for _, ratio in by_length)
    step = (
        "the lengths were drawn from the range random_range_ratio gives, so"
        if drawn
        else "if the client drew output lengths from a range (--random-range-ratio), give "
        "random_range_ratio in the metadata file; else"
    )
    return (
        f"short outputs: {'; '.join(said)}{named}. The points are kept, and their pages say it; "
        f"{step} the requests stopped at end-of-sequence (outputs that stop at end-of-sequence are "
        "shorter): rerun with end-of-sequence ignored (--ignore-eos) for full-length outputs"
    )


def _against(osl: int, ratio: float | None, short: _Short) -> str:
    """'measured mean output 340 tokens against the nominal OSL 1024, 67% short'."""
    low, high = min(short.means), max(short.means)
    means = _span(low, high, lambda v: fixed(v, 0, thousands=True))
    shares = _span(min(short.shares), max(short.shares), lambda v: fixed(v * 100, 0))
    runs = "" if len(short.means) == 1 else f" over {len(short.means)} runs"
    lowest = "" if ratio is None else f", below the {fixed(max(1.0, ratio * osl), 0, thousands=True)}–"
    lowest += (
        "" if ratio is None else f"{fixed(osl, 0, thousands=True)} range of random_range_ratio {ratio:g}"
    )
    return (
        f"measured mean output {means} tokens{runs} against the nominal OSL "
        f"{fixed(osl, 0, thousands=True)}, {shares}% short{lowest}"
    )


def _span(low: float, high: float, said: Any) -> str:
    return said(low) if said(low) == said(high) else f"{said(low)}–{said(high)}"


def _files(files: Sequence[str], folder: str) -> str:
    """'3 files: c4/profile_export_aiperf.json, …': each named from the folder down."""
    names = [file.removeprefix(folder) for file in files[:FILES_NAMED]]
    more = ", …" if len(files) > FILES_NAMED else ""
    count = "1 file" if len(files) == 1 else f"{len(files)} files"
    return f"{count}: {', '.join(names)}{more}"
