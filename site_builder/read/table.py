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
COLUMNS: dict[str, Any] = {**CONFIG_COLUMNS, **POINT_COLUMNS, **PROVENANCE_COLUMNS, **DERIVED_COLUMNS}
# what a point is given when a record leaves it out
DEFAULTS: dict[str, Any] = {"spec_method": "none", "disagg": False, "multinode": False}
DEFAULTS |= {"throughput_basis": "total", "interactivity_source": "tpot"}

# the filters a stub may set (content.Filters): text compared without case, a list as "any of"
TEXT_FILTERS = ("model", "hardware", "precision", "spec_method", "framework", "dataset")
FLAG_FILTERS = ("disagg",)

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
    columns = {}
    size = len(frame)
    for name, dtype in COLUMNS.items():
        if name in DERIVED_COLUMNS:
            continue
        if name in frame:
            values = frame[name]
            if name in DEFAULTS:
                values = values.astype(object).where(values.notna(), DEFAULTS[name])
        else:
            values = pd.Series([DEFAULTS.get(name)] * size, index=frame.index, dtype=object)
        if dtype == TEXT:
            columns[name] = values.astype(object).where(values.notna(), None)
        else:
            columns[name] = values.astype(dtype)
    return pd.DataFrame(columns, index=pd.RangeIndex(size))


def _with_configurations(frame: pd.DataFrame) -> pd.DataFrame:
    """The derived columns: a number per distinct configuration (equal ones alike, numbered in
    order of first appearance) and its two labels, worded once per configuration."""
    if frame.empty:
        return frame.assign(config_id=pd.Series(dtype="int64"), parallelism=[], configuration=[])
    keys = list(CONFIG_COLUMNS)
    config_id = frame.groupby(keys, dropna=False, sort=False).ngroup().to_numpy(dtype=np.int64)
    first = np.unique(config_id, return_index=True)[1]
    rows = [{str(k): v for k, v in row.items()} for row in frame.iloc[first][keys].to_dict("records")]
    labels = pd.DataFrame(
        {
            "parallelism": pd.Series([parallelism_label(row) for row in rows], dtype=object),
            "configuration": pd.Series([configuration_label(row) for row in rows], dtype=object),
        }
    ).iloc[config_id]
    derived = frame.copy()
    derived["config_id"] = config_id
    for name in ("parallelism", "configuration"):
        derived[name] = pd.Series(labels[name].to_numpy(), index=frame.index, dtype=object)
    return derived


class PointTable:
    """Every loaded point, a row each, in load order (see the module's docstring)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        """`frame` holds the columns of COLUMNS (the derived ones are made here if missing)."""
        if "config_id" not in frame:
            frame = _with_configurations(_typed(frame))
        self.frame = frame.reset_index(drop=True)
        self._codes: dict[str, tuple[npt.NDArray[np.intp], dict[str, int]]] = {}

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> PointTable:
        """A table of these points (each a dict of columns; left-out columns take their default)."""
        listed = list(records)
        return cls(pd.DataFrame.from_records(listed) if listed else pd.DataFrame(columns=list(COLUMNS)))

    @classmethod
    def from_points(cls, points: Iterable[Any]) -> PointTable:
        """A table of BenchmarkPoints (points.py). TEMPORARY bridge while the loaders move to
        the table (issue 23): removed with BenchmarkPoint."""
        records = []
        for p in points:
            c = p.config
            record: dict[str, Any] = {k: getattr(c, k) for k in (*CONFIG_TEXT, "disagg", "multinode")}
            record |= {k: getattr(c, k) for k in ("tp", "ep", "pp", "dp_attention", "gpu_count")}
            for role in ROLES:
                group = getattr(c, role)
                for key in (*WORKER_GROUP_KEYS, "dp_attention"):
                    record[f"{role}_{key}"] = getattr(group, key) if group is not None else None
            record |= {k: getattr(p, k) for k in POINT_COLUMNS if hasattr(p, k)}
            for metric in LATENCY_METRICS:
                stats = getattr(p, metric)
                for stat in LATENCY_STATS:
                    record[f"{metric}_{stat}"] = getattr(stats, stat) if stats is not None else None
            power = p.power
            record["avg_watts_per_gpu"] = power.avg_watts_per_gpu if power else None
            record["joules_per_total_token"] = power.joules_per_total_token if power else None
            record["joules_per_output_token"] = power.joules_per_output_token if power else None
            record |= {k: getattr(p.provenance, k) for k in PROVENANCE_COLUMNS}
            records.append(record)
        return cls.from_records(records)

    @classmethod
    def concat(cls, tables: Sequence[PointTable]) -> PointTable:
        frames = [t.frame.drop(columns=list(DERIVED_COLUMNS)) for t in tables if len(t)]
        if not frames:
            return cls.from_records([])
        return cls(pd.concat(frames, ignore_index=True))

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        return f"PointTable({len(self)} points)"

    def column(self, name: str) -> npt.NDArray[Any]:
        return self.frame[name].to_numpy()

    # -- selecting a side's rows -----------------------------------------------------------------

    def _lowered(self, key: str) -> tuple[npt.NDArray[np.intp], dict[str, int]]:
        """A text column as a code a row, by its lower-cased value (worked out once a table: a
        build selects thousands of sides from one table)."""
        found = self._codes.get(key)
        if found is None:
            lowered = self.frame[key].str.lower()
            codes, uniques = pd.factorize(lowered)
            found = self._codes[key] = (codes, {str(u): n for n, u in enumerate(uniques)})
        return found

    def matches(self, key: str, wanted: FilterValue) -> Mask:
        """The rows one filter accepts: text without case, a list as any of, a flag exactly."""
        if key in FLAG_FILTERS or isinstance(wanted, bool):
            return np.asarray(self.frame[key].to_numpy() == wanted, dtype=bool)
        codes, lookup = self._lowered(key)
        values = wanted if isinstance(wanted, list) else [wanted]
        known = [lookup[v.lower()] for v in values if v.lower() in lookup]
        return np.isin(codes, known)

    def mask(self, filters: Mapping[str, FilterValue]) -> Mask:
        keep = np.ones(len(self), dtype=bool)
        for key, wanted in filters.items():
            keep &= self.matches(key, wanted)
        return keep

    def select(self, filters: Mapping[str, FilterValue]) -> PointTable:
        """The rows every filter accepts, in table order."""
        return self.rows(self.mask(filters))

    def rows(self, which: Mask | npt.NDArray[np.intp] | Sequence[int]) -> PointTable:
        """These rows (a mask or positions), in the order given."""
        return PointTable(self.frame[which] if _is_mask(which) else self.frame.iloc[list(which)])

    def values(self, key: str) -> list[Any]:
        """The distinct values of a column, in order of first appearance."""
        return list(dict.fromkeys(self.frame[key].tolist()))

    def files_of_model(self) -> dict[str, set[str]]:
        """The data files each model's points came from."""
        pairs = self.frame[["model", "source_file"]].drop_duplicates()
        found: dict[str, set[str]] = {}
        for model, file in pairs.itertuples(index=False):
            found.setdefault(model, set()).add(file)
        return found


def _is_mask(which: Any) -> bool:
    return isinstance(which, np.ndarray) and which.dtype == np.bool_
