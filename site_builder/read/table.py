"""The point table: every loaded point as one row of a pandas DataFrame, in load order.

It is what the load stage gives every stage after it (validate, plan, compute, the downloads):
one row per serving configuration at one concurrency on one workload, in fixed units (latency
in seconds, throughput in tok/s per GPU, interactivity in tok/s/user, power in watts per GPU),
names normalised. A side of a page is a selection of rows (`PointTable.select`): one rule for
every filter, applied to whole columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from site_builder.content import FilterValue
from site_builder.filters import accepts

# -- the columns ----------------------------------------------------------------------------------

TEXT: Any = "object"  # Python strings (None where optional)
COUNT: Any = "Int64"  # a whole number, <NA> where not given
FLAG: Any = "boolean"  # True/False, <NA> where not given
NUMBER: Any = "float64"  # NaN where not given

CONFIG_TEXT = ("model", "hardware", "framework", "precision", "spec_method")
WORKER_GROUP_KEYS = ("tp", "ep", "workers", "gpus")
ROLES = ("prefill", "decode")
CONFIG_COLUMNS: dict[str, Any] = {
    **dict.fromkeys(CONFIG_TEXT, TEXT),
    "disagg": "bool",
    "multinode": "bool",
    "tp": COUNT,
    "ep": COUNT,
    "pp": COUNT,
    "dp_attention": FLAG,
    **{f"{role}_{key}": COUNT for role in ROLES for key in WORKER_GROUP_KEYS},
    **{f"{role}_dp_attention": FLAG for role in ROLES},
    "gpu_count": COUNT,
}
LATENCY_METRICS = ("ttft", "tpot", "itl", "e2el")
LATENCY_STATS = ("mean", "median", "std", "p90", "p99", "p99_9")
LATENCY_COLUMNS = tuple(f"{metric}_{stat}" for metric in LATENCY_METRICS for stat in LATENCY_STATS)
POINT_COLUMNS: dict[str, Any] = {
    "isl": "int64",
    "osl": "int64",
    "concurrency": "int64",
    "throughput_per_gpu": NUMBER,
    "throughput_basis": TEXT,  # "total", or "output" where the source gives output tok/s only
    "output_throughput_per_gpu": NUMBER,
    "input_throughput_per_gpu": NUMBER,
    "interactivity": NUMBER,
    "interactivity_source": TEXT,  # "tpot", "stated" or "derived"
    **dict.fromkeys(LATENCY_COLUMNS, NUMBER),
    "avg_watts_per_gpu": NUMBER,
    "joules_per_total_token": NUMBER,
    "joules_per_output_token": NUMBER,
}
PROVENANCE_COLUMNS: dict[str, Any] = dict.fromkeys(
    ("dataset", "source_file", "record", "client", "date", "run_url", "image", "note"), TEXT
)
# made from the configuration columns, once per distinct configuration
DERIVED_COLUMNS: dict[str, Any] = {"config_id": "int64", "parallelism": TEXT, "configuration": TEXT}
# made from each point's own columns: concurrency per GPU of the deployment (NaN without a GPU count)
DERIVED_COLUMNS["users_per_gpu"] = NUMBER
COLUMNS: dict[str, Any] = {**CONFIG_COLUMNS, **POINT_COLUMNS, **PROVENANCE_COLUMNS, **DERIVED_COLUMNS}
# what a point is given when a record leaves it out
DEFAULTS: dict[str, Any] = {"spec_method": "none", "disagg": False, "multinode": False}
DEFAULTS |= {"throughput_basis": "total", "interactivity_source": "tpot"}


Mask = npt.NDArray[np.bool_]


# -- a configuration's words ----------------------------------------------------------------------


def _given(value: Any) -> bool:
    return value is not None and value is not pd.NA and value == value and bool(value)


def _group_label(prefix: str, row: Mapping[str, Any], role: str) -> str:
    parts = []
    if _given(row[f"{role}_workers"]):
        parts.append(f"{row[f'{role}_workers']}×")
    parts.append(f"TP{row[f'{role}_tp']}" if _given(row[f"{role}_tp"]) else "TP?")
    if _given(row[f"{role}_ep"]) and row[f"{role}_ep"] > 1:
        parts.append(f" EP{row[f'{role}_ep']}")
    if _given(row[f"{role}_dp_attention"]):
        parts.append(" DPA")
    return f"{prefix} " + "".join(parts)


def _has_group(row: Mapping[str, Any], role: str) -> bool:
    keys = [f"{role}_{key}" for key in (*WORKER_GROUP_KEYS, "dp_attention")]
    return any(row[key] is not None and row[key] is not pd.NA for key in keys)


def parallelism_label(row: Mapping[str, Any]) -> str:
    """Short human label of a configuration: 'TP8 EP8 DPA' or 'P 2×TP4 + D 1×TP8'."""
    if row["disagg"] and _has_group(row, "prefill") and _has_group(row, "decode"):
        return _group_label("P", row, "prefill") + " + " + _group_label("D", row, "decode")
    parts = [f"TP{row['tp']}" if _given(row["tp"]) else "TP?"]
    if _given(row["pp"]) and row["pp"] > 1:
        parts.append(f"PP{row['pp']}")
    if _given(row["ep"]) and row["ep"] > 1:
        parts.append(f"EP{row['ep']}")
    if _given(row["dp_attention"]):
        parts.append("DPA")
    return " ".join(parts)


def configuration_label(row: Mapping[str, Any]) -> str:
    """One line naming a configuration, for hover text and provenance tables."""
    if row["framework"] == "unknown":
        return "configuration not published"
    mode = "disagg" if row["disagg"] else "agg"
    spec = "" if row["spec_method"] == "none" else f", {row['spec_method'].upper()}"
    gpus = f", {row['gpu_count']} GPUs" if _given(row["gpu_count"]) else ""
    return f"{row['framework']} {parallelism_label(row)} ({mode}{spec}{gpus})"


# -- the table ------------------------------------------------------------------------------------


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Every column of COLUMNS but the derived ones, in order, in its dtype (missing ones filled
    with their default, or as not given)."""
    size = len(frame)
    columns = {}
    for name, dtype in COLUMNS.items():
        if name in DERIVED_COLUMNS:
            continue
        values = frame[name].tolist() if name in frame else [None] * size
        if name in DEFAULTS:
            values = [DEFAULTS[name] if _missing(v) else v for v in values]
        elif dtype == TEXT:
            values = [None if _missing(v) else v for v in values]
        columns[name] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(columns)


def configuration_ids(frame: pd.DataFrame) -> npt.NDArray[np.int64]:
    """A number per distinct configuration (equal ones alike), numbered in order of first
    appearance: each configuration column's codes folded into one key."""
    key = np.zeros(len(frame), dtype=np.int64)
    for name in CONFIG_COLUMNS:
        codes, distinct = pd.factorize(frame[name], use_na_sentinel=False)
        key, _ = pd.factorize(key * (len(distinct) + 1) + codes)
    return key.astype(np.int64)


def _with_configurations(frame: pd.DataFrame) -> pd.DataFrame:
    """The derived columns: a number per distinct configuration and its two labels, worded once
    per configuration; concurrency per GPU."""
    derived = frame.copy()
    config_id = configuration_ids(frame)
    first = np.unique(config_id, return_index=True)[1]
    rows = [
        {str(k): v for k, v in row.items()}
        for row in frame.iloc[first][list(CONFIG_COLUMNS)].to_dict("records")
    ]
    parallelism = [parallelism_label(row) for row in rows]
    configuration = [configuration_label(row) for row in rows]
    gpus = frame["gpu_count"].to_numpy(dtype=float, na_value=np.nan)
    derived["users_per_gpu"] = frame["concurrency"].to_numpy(dtype=float) / gpus
    derived["config_id"] = config_id
    derived["parallelism"] = pd.Series([parallelism[c] for c in config_id], dtype=object)
    derived["configuration"] = pd.Series([configuration[c] for c in config_id], dtype=object)
    return derived


class _Columns:
    """The whole table's columns as numpy arrays (Python values, None where not given, in the
    optional ones), made once a column when first read, and each filter column's codes: shared
    by every selection of one table."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.arrays: dict[str, npt.NDArray[Any]] = {}
        self.codes: dict[str, tuple[npt.NDArray[np.intp], list[Any]]] = {}
        self.models: dict[str, npt.NDArray[np.intp]] = {}  # a model's rows (lower case), once asked for

    def array(self, name: str) -> npt.NDArray[Any]:
        found = self.arrays.get(name)
        if found is None:
            series = self.frame[name]
            if COLUMNS.get(name) in (COUNT, FLAG):  # optional: Python values, None where not given
                found = np.empty(len(series), dtype=object)
                found[:] = [None if _missing(v) else v for v in series.tolist()]
            else:
                found = series.to_numpy()
            self.arrays[name] = found
        return found

    def factorized(self, name: str) -> tuple[npt.NDArray[np.intp], list[Any]]:
        """A column as a code a row, and its distinct values."""
        found = self.codes.get(name)
        if found is None:
            codes, uniques = pd.factorize(self.array(name))
            found = self.codes[name] = (codes, list(uniques))
        return found


class PointTable:
    """Every loaded point, a row each, in load order (see the module's docstring); or a
    selection of them (`select`, `rows`), which shares the whole table's columns and holds only
    the positions of its rows."""

    def __init__(self, frame: pd.DataFrame) -> None:
        """`frame` holds the columns of COLUMNS (the derived ones are made here if missing)."""
        if "config_id" not in frame:
            frame = _with_configurations(_typed(frame))
        self._columns = _Columns(frame.reset_index(drop=True))
        self.positions: npt.NDArray[np.intp] = np.arange(len(frame), dtype=np.intp)

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> PointTable:
        """A table of these points (each a dict of columns; left-out columns take their default)."""
        listed = list(records)
        return cls(pd.DataFrame.from_records(listed) if listed else pd.DataFrame(columns=list(COLUMNS)))

    @classmethod
    def from_points(cls, points: Iterable[Any]) -> PointTable:
        """A table of BenchmarkPoints (points.py). TEMPORARY bridge while the loaders move to
        the table (issue 23): removed with BenchmarkPoint."""
        columns: dict[str, list[Any]] = {}

        def add(name: str, value: Any) -> None:
            columns.setdefault(name, []).append(value)

        for p in points:
            c = p.config
            for key in (*CONFIG_TEXT, "disagg", "multinode", "tp", "ep", "pp", "dp_attention", "gpu_count"):
                add(key, getattr(c, key))
            for role in ROLES:
                group = getattr(c, role)
                for key in (*WORKER_GROUP_KEYS, "dp_attention"):
                    add(f"{role}_{key}", getattr(group, key) if group is not None else None)
            for key in POINT_COLUMNS:
                if not key.startswith(LATENCY_METRICS) and hasattr(p, key):
                    add(key, getattr(p, key))
            for metric in LATENCY_METRICS:
                stats = getattr(p, metric)
                for stat in LATENCY_STATS:
                    add(f"{metric}_{stat}", getattr(stats, stat) if stats is not None else None)
            power = p.power
            for key in ("avg_watts_per_gpu", "joules_per_total_token", "joules_per_output_token"):
                add(key, getattr(power, key) if power else None)
            for key in PROVENANCE_COLUMNS:
                add(key, getattr(p.provenance, key))
        return cls(pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()}))

    @classmethod
    def concat(cls, tables: Sequence[PointTable]) -> PointTable:
        frames = [t.frame.drop(columns=list(DERIVED_COLUMNS)) for t in tables if len(t)]
        if not frames:
            return cls.from_records([])
        return cls(pd.concat(frames, ignore_index=True))

    @property
    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (the whole table's own; a selection's, copied out)."""
        whole = self._columns.frame
        if len(self.positions) == len(whole) and (self.positions == np.arange(len(whole))).all():
            return whole
        return whole.iloc[self.positions].reset_index(drop=True)

    def __len__(self) -> int:
        return len(self.positions)

    def __reduce__(self) -> tuple[type[PointTable], tuple[pd.DataFrame]]:
        """Pickled (to another process) as its own rows only, not the whole table it selects from."""
        return (PointTable, (self.frame,))

    def __repr__(self) -> str:
        return f"PointTable({len(self)} points)"

    def column(self, name: str) -> npt.NDArray[Any]:
        """A column's values, a row each (Python values, None where an optional one is not given)."""
        return self._columns.array(name)[self.positions]

    # -- selecting a side's rows -----------------------------------------------------------------

    def matches(self, key: str, wanted: FilterValue) -> Mask:
        """The rows one filter accepts: the filter rule (filters.accepts) asked once per
        distinct value of the column."""
        codes, distinct = self._columns.factorized(key)
        accepted = np.array([accepts(value, wanted) for value in distinct] + [False], dtype=bool)
        return accepted[codes[self.positions]]  # a missing value (code -1) is never accepted

    def mask(self, filters: Mapping[str, FilterValue]) -> Mask:
        keep = np.ones(len(self), dtype=bool)
        for key, wanted in filters.items():
            keep &= self.matches(key, wanted)
        return keep

    def of_model(self, model: str) -> PointTable:
        """The rows of one model (compared without case): what a page's sides select from,
        worked out once a model for the whole table."""
        whole = self._columns
        key = model.lower()
        if key not in whole.models:
            codes, distinct = whole.factorized("model")
            accepted = np.array([accepts(value, model) for value in distinct] + [False], dtype=bool)
            whole.models[key] = np.flatnonzero(accepted[codes]).astype(np.intp)
        found = whole.models[key]
        return self._view(
            found[np.isin(found, self.positions)] if len(self.positions) != len(whole.frame) else found
        )

    def select(self, filters: Mapping[str, FilterValue]) -> PointTable:
        """The rows every filter accepts, in table order."""
        return self.rows(self.mask(filters))

    def rows(self, which: Mask | npt.NDArray[np.intp] | Sequence[int]) -> PointTable:
        """These rows (a mask, or positions among this table's rows), in the order given."""
        return self._view(self.positions[which if _is_mask(which) else np.asarray(which, dtype=np.intp)])

    def _view(self, positions: npt.NDArray[np.intp]) -> PointTable:
        """These rows of the whole table (positions into it), sharing its columns."""
        selection = object.__new__(PointTable)
        selection._columns = self._columns
        selection.positions = positions
        return selection

    def as_output_only(self) -> PointTable:
        """The points read on an output-only basis: their throughput is their output tok/s per
        GPU (a page never mixes the two bases: compute.one_basis)."""
        frame = self.frame.copy()
        frame["throughput_per_gpu"] = frame["output_throughput_per_gpu"]
        frame["throughput_basis"] = "output"
        return PointTable(frame)

    def python_values(self, name: str, positions: Sequence[int] | None = None) -> list[Any]:
        """A column's values (of these rows, by position) as Python values, None where not given."""
        values = self._columns.array(name)
        chosen = values[
            self.positions if positions is None else self.positions[np.asarray(positions, dtype=np.intp)]
        ]
        found: list[Any] = chosen.tolist()
        if chosen.dtype.kind == "f":
            empty = np.isnan(chosen)
            if empty.any():
                return [None if gap else value for value, gap in zip(found, empty.tolist(), strict=True)]
        return found

    def records(self, positions: Sequence[int], columns: Sequence[str]) -> list[dict[str, Any]]:
        """These rows' values of these columns as Python values, None where not given."""
        lists = [self.python_values(name, positions) for name in columns]
        return [dict(zip(columns, values, strict=True)) for values in zip(*lists, strict=True)]

    def values(self, key: str) -> list[Any]:
        """The distinct values of a column, in order of first appearance."""
        return list(dict.fromkeys(self.column(key).tolist()))

    def files_of_model(self) -> dict[str, set[str]]:
        """The data files each model's points came from."""
        found: dict[str, set[str]] = {}
        for model, file in set(
            zip(self.column("model").tolist(), self.column("source_file").tolist(), strict=True)
        ):
            found.setdefault(model, set()).add(file)
        return found


def _missing(value: Any) -> bool:
    """NaN, <NA> or None: a value not given."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _is_mask(which: Any) -> bool:
    return isinstance(which, np.ndarray) and which.dtype == np.bool_
