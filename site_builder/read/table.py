"""The point table: every loaded point as one row of a pandas DataFrame, in load order.

It is what the load stage gives every stage after it (validate, plan, compute, the downloads):
one row per serving configuration at one concurrency on one workload, in fixed units (latency
in seconds, throughput in tok/s per GPU, interactivity in tok/s/user, power in watts per GPU),
names normalised. A side of a page is a selection of rows (`PointTable.select`): one rule for
every filter, applied to whole columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
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


def configuration_label(row: Mapping[str, Any], parallelism: str | None = None) -> str:
    """One line naming a configuration, for hover text and provenance tables (`parallelism`:
    its parallelism_label, where worked out already)."""
    if row["framework"] == "unknown":
        return "configuration not published"
    mode = "disagg" if row["disagg"] else "agg"
    spec = "" if row["spec_method"] == "none" else f", {row['spec_method'].upper()}"
    gpus = f", {row['gpu_count']} GPUs" if _given(row["gpu_count"]) else ""
    return f"{row['framework']} {parallelism or parallelism_label(row)} ({mode}{spec}{gpus})"


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
            if name in DEFAULTS and values.hasnans:
                values = values.astype(object).where(values.notna(), DEFAULTS[name])
        else:
            values = pd.Series([DEFAULTS.get(name)] * size, index=frame.index, dtype=object)
        if dtype == TEXT:
            values = values.astype(object)
            columns[name] = values.where(values.notna(), None) if values.hasnans else values
        else:
            columns[name] = values.astype(dtype)
    return pd.DataFrame(columns, index=pd.RangeIndex(size))


def _config_ids(columns: Mapping[str, Any]) -> npt.NDArray[np.int64]:
    """A number per distinct configuration (equal ones alike, <NA> equal to <NA>), numbered in
    order of first appearance: each configuration column's codes combined into one, found for
    the first row of each run of rows of one configuration (a file lists a configuration's
    points together, as a rule)."""
    values = {name: _comparable(columns[name]) for name in CONFIG_COLUMNS}
    changed = np.zeros(len(values["model"]), dtype=bool)
    changed[:1] = True
    for column in values.values():
        changed[1:] |= _differs(column[1:], column[:-1])
    starts = np.flatnonzero(changed)
    codes = np.zeros(len(starts), dtype=np.int64)
    combinations = 1  # how many values `codes` can take
    for column in values.values():
        found, distinct = pd.factorize(column[starts])  # NaN (<NA>): -1
        if combinations * (len(distinct) + 1) >= 2**62:  # renumbered before the product overflows
            codes, numbered = pd.factorize(codes)
            combinations = len(numbered)
        codes = codes * (len(distinct) + 1) + found + 1
        combinations *= len(distinct) + 1
    numbered = pd.factorize(codes)[0].astype(np.int64)
    return np.repeat(numbered, np.diff(np.append(starts, len(changed))))


def _comparable(values: Any) -> npt.NDArray[Any]:
    """A column as a numpy array whose equal values compare equal: a number or flag <NA> as NaN."""
    array = values.array if isinstance(values, pd.Series) else values
    if isinstance(array, pd.arrays.IntegerArray | pd.arrays.BooleanArray):
        return array.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.asarray(array)


def _differs(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> Mask:
    """Where two columns' values differ (NaN equal to NaN)."""
    differ: Mask = np.asarray(a != b, dtype=bool)
    if a.dtype.kind == "f":
        differ &= ~(np.isnan(a) & np.isnan(b))
    return differ


def _rows_of(values: Any, rows: npt.NDArray[np.intp]) -> Any:
    return (values.array if isinstance(values, pd.Series) else values)[rows]


def _as_python(values: Any) -> list[Any]:
    """A column's values as Python objects: None where not given (NaN, <NA>)."""
    array = values.array if isinstance(values, pd.Series) else values
    if isinstance(array, pd.arrays.IntegerArray | pd.arrays.BooleanArray):
        return [
            None if missing else value for value, missing in zip(array.tolist(), array.isna(), strict=True)
        ]
    array = np.asarray(array)
    if array.dtype.kind == "f":
        out = array.astype(object)
        out[np.isnan(array)] = None
        return list(out.tolist())
    return list(array.tolist())


def _derived(columns: Mapping[str, Any]) -> dict[str, Any]:
    """The derived columns of these columns: a number per distinct configuration and its two
    labels, worded once per configuration."""
    config_id = _config_ids(columns)
    first = np.unique(config_id, return_index=True)[1]
    firsts = {name: _as_python(_rows_of(columns[name], first)) for name in CONFIG_COLUMNS}
    rows = [dict(zip(firsts, values, strict=True)) for values in zip(*firsts.values(), strict=True)]
    parallelism = np.array([parallelism_label(row) for row in rows], dtype=object)
    configuration = np.array(
        [configuration_label(row, label) for row, label in zip(rows, parallelism, strict=True)], dtype=object
    )
    return {
        "config_id": config_id,
        "parallelism": pd.Series(parallelism[config_id], dtype=object, copy=False),
        "configuration": pd.Series(configuration[config_id], dtype=object, copy=False),
    }


def _with_configurations(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its derived columns (`_derived`)."""
    columns = {str(name): frame[name] for name in frame.columns}
    return pd.DataFrame({**columns, **_derived(columns)}, copy=False)


NUMERIC = (NUMBER, COUNT, FLAG, "int64", "bool")  # dtypes whose parts come as floats (`_piece`)


def _piece(values: Any, size: int, dtype: Any) -> npt.NDArray[Any]:
    """A part's column as an array of `size` values: floats for a number, count or flag column
    (NaN: not given; a flag 1 or 0), else objects (None: not given)."""
    numeric = dtype in NUMERIC
    if isinstance(values, np.ndarray) and (values.dtype != object or not numeric):
        return values
    if isinstance(values, list | np.ndarray):
        if numeric:
            return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        out = np.empty(size, dtype=object)
        out[:] = values
        return out
    return np.full(size, np.nan if values is None and numeric else values, dtype=None if numeric else object)


def _joined(
    parts: Sequence[Mapping[str, Any]], sizes: Sequence[int], name: str, dtype: Any
) -> npt.NDArray[Any]:
    """One column of every part, in order (`_piece`); a value a part gives every row of its
    own is repeated."""
    given = [part.get(name) for part in parts]
    if all(value is None or isinstance(value, str) for value in given):
        single = np.array(given, dtype=object if dtype not in NUMERIC else np.float64)
        return np.repeat(single, sizes)
    return np.concatenate([_piece(value, size, dtype) for value, size in zip(given, sizes, strict=True)])


def _typed_array(values: npt.NDArray[Any], name: str, dtype: Any) -> Any:
    """A column joined from the parts (`_joined`) in its dtype, a value not given its default."""
    if name in DEFAULTS:
        values = np.where(pd.isna(values), DEFAULTS[name], values)
    if dtype == COUNT:
        given = ~np.isnan(values)
        return pd.arrays.IntegerArray(np.where(given, values, 0).astype(np.int64), ~given)
    if dtype == FLAG:
        return pd.arrays.BooleanArray(values == 1, np.isnan(values))
    if dtype == "bool":
        return values == 1
    return values.astype(dtype, copy=False)


def _empty() -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in COLUMNS.items()})


class PointTable:
    """Every loaded point, a row each, in load order (see the module's docstring)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        """`frame` holds the columns of COLUMNS (the derived ones are made here if missing)."""
        if "config_id" not in frame:
            frame = _with_configurations(_typed(frame)) if len(frame) else _empty()
        elif not frame.index.equals(pd.RangeIndex(len(frame))):
            frame = frame.reset_index(drop=True)
        self.frame = frame
        self._codes: dict[str, tuple[npt.NDArray[np.intp], dict[str, int]]] = {}

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> PointTable:
        """A table of these points (each a dict of columns; left-out columns take their default)."""
        listed = list(records)
        return cls(pd.DataFrame.from_records(listed) if listed else pd.DataFrame(columns=list(COLUMNS)))

    @classmethod
    def from_parts(cls, parts: Sequence[Mapping[str, Any]]) -> PointTable:
        """A table of rows given a part at a time (a file's): each part a column a key, every
        column as long as the part (a single value: the same in every row); a column a part
        lacks is not given in its rows (its default, where it has one)."""
        if not parts:
            return cls.from_records([])
        sizes = [next(len(v) for v in part.values() if isinstance(v, list | np.ndarray)) for part in parts]
        columns: dict[str, Any] = {}
        for name, dtype in COLUMNS.items():
            if name in DERIVED_COLUMNS:
                continue
            typed = _typed_array(_joined(parts, sizes, name, dtype), name, dtype)
            # text stays Python objects (pandas would make it its own string type)
            columns[name] = pd.Series(typed, dtype=object, copy=False) if dtype == TEXT else typed
        return cls(pd.DataFrame({**columns, **_derived(columns)}, copy=False))

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

    def records(self) -> list[dict[str, Any]]:
        """Every row as a dict of Python values (None where not given), in table order."""
        columns = {str(name): _as_python(self.frame[name]) for name in self.frame.columns}
        return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]

    def distinct(self, keys: Sequence[str]) -> pd.DataFrame:
        """The distinct combinations of these columns' values, in order of first appearance
        (found among the rows that start a run of equal ones: a file lists a configuration's
        points together, as a rule)."""
        columns = [_comparable(self.frame[key]) for key in keys]
        starts = np.ones(len(self), dtype=bool)
        starts[1:] = np.logical_or.reduce([_differs(c[1:], c[:-1]) for c in columns]) if columns else False
        return self.frame.loc[starts, list(keys)].drop_duplicates()

    def files_of_model(self) -> dict[str, set[str]]:
        """The data files each model's points came from."""
        found: dict[str, set[str]] = {}
        for model, file in self.distinct(["model", "source_file"]).itertuples(index=False):
            found.setdefault(model, set()).add(file)
        return found


def _is_mask(which: Any) -> bool:
    return isinstance(which, np.ndarray) and which.dtype == np.bool_


# -- TEMPORARY bridge (issue 23) --------------------------------------------------------------------


def to_points(table: PointTable) -> list[Any]:
    """TEMPORARY (issue 23): the table's rows as `points.BenchmarkPoint`s, in order, for the
    stages that still take them (compute, select, engine, present) until they read the table.
    Made with pydantic's public `model_construct` from values the load validated, a column at
    a time; the rows of one configuration share one Configuration. Removed with BenchmarkPoint."""
    from site_builder.points import BenchmarkPoint, LatencyStats, Power
    from site_builder.read.provenance import Provenance

    frame = table.frame
    if frame.empty:
        return []
    value = {str(name): _as_python(frame[name]) for name in frame.columns if name not in CONFIG_COLUMNS}
    configs = _configurations(frame)
    parts: dict[str, list[Any]] = {"config": [configs[c] for c in value["config_id"]]}
    parts |= {key: value[key] for key in POINT_COLUMNS if key in BenchmarkPoint.model_fields}
    for metric in LATENCY_METRICS:
        stats = [f"{metric}_{stat}" for stat in LATENCY_STATS]
        given = frame[stats].notna().any(axis=1).tolist()
        parts[metric] = _each(
            LatencyStats, dict(zip(LATENCY_STATS, (value[s] for s in stats), strict=True)), given
        )
    watts = ("avg_watts_per_gpu", "joules_per_total_token", "joules_per_output_token")
    given = frame["avg_watts_per_gpu"].notna().tolist()
    parts["power"] = _each(Power, {key: value[key] for key in watts}, given)
    parts["provenance"] = _each(Provenance, {key: value[key] for key in PROVENANCE_COLUMNS})
    return _each(BenchmarkPoint, {name: parts[name] for name in BenchmarkPoint.model_fields})


def _each(model: Any, columns: Mapping[str, list[Any]], given: list[bool] | None = None) -> list[Any]:
    """`model.model_construct` of each row of these columns (a field a column), None for a row
    not `given`."""
    keys = list(columns)
    fields = set(keys)
    rows = zip(*columns.values(), strict=True)
    return [
        model.model_construct(fields, **dict(zip(keys, row, strict=True))) if here else None
        for row, here in zip(rows, given or repeat(True), strict=False)
    ]


def _configurations(frame: pd.DataFrame) -> dict[int, Any]:
    """One `points.Configuration` per configuration of the table, by its config_id."""
    from site_builder.points import Configuration, WorkerGroup

    first = np.unique(frame["config_id"].to_numpy(), return_index=True)[1]
    configs = {}
    for row in PointTable(frame.iloc[first]).records():
        groups: dict[str, Any] = {}
        for role in ROLES:
            group = {key: row[f"{role}_{key}"] for key in (*WORKER_GROUP_KEYS, "dp_attention")}
            has = any(v is not None for v in group.values())
            groups[role] = WorkerGroup.model_construct(**group) if has else None
        fields = {key: row[key] for key in Configuration.model_fields if key not in ROLES}
        configs[row["config_id"]] = Configuration.model_construct(**fields, **groups)
    return configs
