"""The point table: every loaded point as one row of a pandas DataFrame, in load order.

It is what the load stage gives every stage after it (validate, plan, compute, the downloads):
one row per serving configuration at one concurrency on one workload, in fixed units (latency
in seconds, throughput in tok/s per GPU, interactivity in tok/s/user, power in watts per GPU),
names normalised. A side of a page is a selection of rows (`PointTable.select`): one rule for
every filter, applied to whole columns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from site_builder.content import FILTER_COLUMNS, FILTER_KEYS, FilterValue
from site_builder.filters import accepts

# -- the columns ----------------------------------------------------------------------------------

TEXT: Any = "object"  # Python strings (None where optional)
COUNT: Any = "Int64"  # a whole number, <NA> where not given
FLAG: Any = "boolean"  # True/False, <NA> where not given
NUMBER: Any = "float64"  # NaN where not given

CONFIG_TEXT = ("model", "hardware", "framework", "precision", "spec_method", "variant")
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
    # a `workload:` label (sharegpt, a trace): every point with one is one workload whatever its
    # lengths (site_builder.workload); None for fixed-length runs, whose workload is (isl, osl)
    "workload": TEXT,
    "concurrency": "int64",
    "throughput_per_gpu": NUMBER,
    "throughput_basis": TEXT,  # "total", or "output" where the source gives output tok/s only
    "output_throughput_per_gpu": NUMBER,
    "input_throughput_per_gpu": NUMBER,
    "interactivity": NUMBER,
    "interactivity_source": TEXT,  # "tpot", "stated" or "derived"
    # the measured mean input and output lengths where the file gives them (token totals ÷
    # requests), and the range nominal lengths were drawn from ([ratio × nominal, nominal])
    "isl_mean": NUMBER,
    "osl_mean": NUMBER,
    "random_range_ratio": NUMBER,
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


NO_TP = "TP not recorded"  # a parallelism label's tensor parallelism where the source gives none


def _given(value: Any) -> bool:
    return value is not None and value is not pd.NA and value == value and bool(value)


def _group_label(prefix: str, row: Mapping[str, Any], role: str) -> str:
    parts = []
    if _given(row[f"{role}_workers"]):
        parts.append(f"{row[f'{role}_workers']}×")
    parts.append(f"TP{row[f'{role}_tp']}" if _given(row[f"{role}_tp"]) else NO_TP)
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
    parts = [f"TP{row['tp']}" if _given(row["tp"]) else NO_TP]
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
    variant = f" [{row['variant']}]" if _given(row.get("variant")) else ""
    return f"{row['framework']} {parallelism or parallelism_label(row)} ({mode}{spec}{gpus}){variant}"


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
    gpus = _comparable(columns["gpu_count"]).astype(np.float64)
    return {
        "users_per_gpu": np.asarray(columns["concurrency"], dtype=np.float64) / gpus,
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


class _Columns:
    """The whole table's columns as numpy arrays (Python values, None where not given, in the
    optional ones), made once a column when first read, and each filter column's codes: shared
    by every selection of one table."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self.arrays: dict[str, npt.NDArray[Any]] = {}
        self.codes: dict[str, tuple[npt.NDArray[np.intp], list[Any]]] = {}
        self.per_row: dict[str, npt.NDArray[np.object_]] = {}  # PointTable.per_row, by name
        self._cells: _Cells | None = None

    def cells(self) -> _Cells:
        """The table's rows grouped by what a filter reads (made once a table, when first
        selected from)."""
        if self._cells is None:
            self._cells = _Cells(self.frame)
        return self._cells

    def array(self, name: str) -> npt.NDArray[Any]:
        """A column by its name, or by the filter that reads it (content.FILTER_COLUMNS)."""
        found = self.arrays.get(name)
        if found is None:
            column = name if name in self.frame else FILTER_COLUMNS.get(name, name)
            series = self.frame[column]
            if COLUMNS.get(column) in (COUNT, FLAG):  # optional: Python values, None where not given
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


def _accepted(columns: _Columns, filters: Mapping[str, FilterValue], size: int) -> Mask:
    """The rows of `columns` every filter accepts: the filter rule (filters.accepts) asked once
    per distinct value of each column a filter reads."""
    keep = np.ones(size, dtype=bool)
    for key, wanted in filters.items():
        codes, distinct = columns.factorized(key)
        accepted = np.array([accepts(value, wanted) for value in distinct] + [False], dtype=bool)
        keep &= accepted[codes]  # a missing value (code -1) is never accepted
    return keep


class _Cells:
    """A table's rows grouped by the columns a filter reads (content.Filters): the rows of one
    group answer every filter alike, so a selection asks the filters of each group, not of each
    row."""

    def __init__(self, frame: pd.DataFrame) -> None:
        keys = [key for key in FILTER_KEYS if FILTER_COLUMNS.get(key, key) in frame]
        names = [FILTER_COLUMNS.get(key, key) for key in keys]
        groups = frame.groupby(names, sort=False, dropna=False).indices if len(frame) else {}
        self.positions = [np.asarray(found, dtype=np.intp) for found in groups.values()]
        firsts = frame.iloc[[int(found[0]) for found in self.positions]][names]
        self.columns = _Columns(firsts.set_axis(keys, axis="columns"))

    def select(self, filters: Mapping[str, FilterValue]) -> npt.NDArray[np.intp]:
        """The positions of the rows every filter accepts, in table order."""
        accepted = np.flatnonzero(_accepted(self.columns, filters, len(self.positions)))
        if not len(accepted):
            return np.zeros(0, dtype=np.intp)
        return np.sort(np.concatenate([self.positions[n] for n in accepted.tolist()]))


class PointTable:
    """Every loaded point, a row each, in load order (see the module's docstring); or a
    selection of them (`select`, `rows`), which shares the whole table's columns and holds only
    the positions of its rows."""

    def __init__(self, frame: pd.DataFrame) -> None:
        """`frame` holds the columns of COLUMNS (the derived ones are made here if missing)."""
        if "config_id" not in frame:
            frame = _with_configurations(_typed(frame)) if len(frame) else _empty()
        self._columns = _Columns(frame.reset_index(drop=True))
        self.positions: npt.NDArray[np.intp] = np.arange(len(frame), dtype=np.intp)
        self._whole = True  # every row of its columns, in their order (a selection: False)

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> PointTable:
        """A table of these points (each a dict of columns; left-out columns take their default)."""
        listed = [{k: v for k, v in record.items() if k not in DERIVED_COLUMNS} for record in records]
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
    def concat(cls, tables: Sequence[PointTable]) -> PointTable:
        frames = [t.frame.drop(columns=list(DERIVED_COLUMNS)) for t in tables if len(t)]
        if not frames:
            return cls.from_records([])
        return cls(pd.concat(frames, ignore_index=True))

    @property
    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame (the whole table's own; a selection's, copied out)."""
        whole = self._columns.frame
        return whole if self._whole else whole.iloc[self.positions].reset_index(drop=True)

    def __len__(self) -> int:
        return len(self.positions)

    def __reduce__(self) -> tuple[type[PointTable], tuple[pd.DataFrame]]:
        """Pickled (to another process) as its own rows only, not the whole table it selects from."""
        return (PointTable, (self.frame,))

    def __repr__(self) -> str:
        return f"PointTable({len(self)} points)"

    def column(self, name: str) -> npt.NDArray[Any]:
        """A column's values, a row each (Python values, None where an optional one is not given)."""
        values = self._columns.array(name)
        return values if self._whole else values[self.positions]

    # -- selecting a side's rows -----------------------------------------------------------------

    def mask(self, filters: Mapping[str, FilterValue]) -> Mask:
        """Which rows every filter accepts (filters.accepts)."""
        found = np.zeros(len(self._columns.frame), dtype=bool)
        found[self._columns.cells().select(filters)] = True
        return found if self._whole else found[self.positions]

    def select(self, filters: Mapping[str, FilterValue]) -> PointTable:
        """The rows every filter accepts, in table order."""
        if self._whole:
            return self._view(self._columns.cells().select(filters))
        return self.rows(self.mask(filters))

    def rows(self, which: Mask | npt.NDArray[np.intp] | Sequence[int]) -> PointTable:
        """These rows (a mask, or positions among this table's rows), in the order given."""
        return self._view(self.positions[which if _is_mask(which) else np.asarray(which, dtype=np.intp)])

    def _view(self, positions: npt.NDArray[np.intp]) -> PointTable:
        """These rows of the whole table (positions into it), sharing its columns."""
        selection = object.__new__(PointTable)
        selection._columns = self._columns
        selection.positions = positions
        selection._whole = False
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

    def per_row(self, name: str, make: Callable[[PointTable], Sequence[Any]]) -> list[Any]:
        """These rows' values of what `make` derives a row from (a later stage's text of a
        point, the same on every page listing it): kept under `name` for the whole table, each
        row's made when first asked for, and shared by every selection of the table."""
        made = self._columns.per_row.setdefault(name, np.full(len(self._columns.frame), None, dtype=object))
        wanted = np.unique(self.positions[[value is None for value in made[self.positions].tolist()]])
        if len(wanted):
            made[wanted] = list(make(self._view(wanted)))
        return list(made[self.positions].tolist())

    def records(
        self, positions: Sequence[int] | None = None, columns: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """These rows' (by position; every row) values of these columns (every column) as Python
        values, None where not given."""
        columns = list(COLUMNS) if columns is None else columns
        lists = [self.python_values(name, positions) for name in columns]
        return [dict(zip(columns, values, strict=True)) for values in zip(*lists, strict=True)]

    def values(self, key: str) -> list[Any]:
        """The distinct values of a column, in order of first appearance."""
        return list(dict.fromkeys(self.column(key).tolist()))

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


def _missing(value: Any) -> bool:
    """NaN, <NA> or None: a value not given."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _is_mask(which: Any) -> bool:
    return isinstance(which, np.ndarray) and which.dtype == np.bool_
