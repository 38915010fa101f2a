"""Native records in bulk: the rules of `common.finish_point`, a column at a time.

A result file of native records is checked column by column (numbers parsed by numpy with
Python's own `float`, text and flags judged once per distinct value), and every record that
passes every check becomes a point without per-point validation. A record that any check
flags is left to the per-record path (`common.finish_point`), which names the file, record and
field exactly as it always has: this module only decides which records are plainly sound, and
never words a problem itself. The two paths build equal points (tests/test_bulk_loading.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd
from pydantic import BaseModel, ValidationError

from site_builder import inputs
from site_builder.loaders.common import (
    LATENCY_METRICS,
    LATENCY_STATS,
    configuration,
    date_from_stamp,
    parse_bool,
)
from site_builder.loaders.native import COLUMNS
from site_builder.points import (
    BenchmarkPoint,
    Configuration,
    LatencyStats,
    Power,
    Provenance,
    WorkerGroup,
)

Model = TypeVar("Model", bound=BaseModel)
Mask = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
TEXT_FIELDS = ("model", "hardware", "framework", "precision", "spec_method")
REQUIRED = ("model", "hardware", "framework", "precision", "isl", "osl", "concurrency", "throughput_per_gpu")
GROUP_KEYS = ("tp", "ep", "workers", "gpus")
POINT_NUMBERS = (
    "isl",
    "osl",
    "concurrency",
    "throughput_per_gpu",
    "output_throughput_per_gpu",
    "input_throughput_per_gpu",
    "interactivity",
    "interactivity_source",
)
_BAD = object()  # a value a per-value rule refused


class _Columns:
    """The records as columns: each field's values (None where a record lacks it) and where a
    value is present the way `PointDraft.set` counts it (not None, not blank text)."""

    def __init__(self, columns: Mapping[str, list[Any]], size: int, flagged: Mask) -> None:
        self.columns = columns
        self.size = size
        self.flagged = flagged.copy()
        self._present: dict[str, Mask] = {}

    def values(self, key: str) -> list[Any]:
        found = self.columns.get(key)
        return found if found is not None else [None] * self.size

    def present(self, key: str) -> Mask:
        if key not in self._present and key not in self.columns:
            self._present[key] = np.zeros(self.size, dtype=bool)
        if key not in self._present:
            values = self.values(key)
            if _all_text(values):  # a CSV column: stripped in C
                self._present[key] = np.char.str_len(np.char.strip(np.asarray(values, dtype=np.str_))) > 0
            else:
                self._present[key] = np.fromiter(
                    (v is not None and not (isinstance(v, str) and not v.strip()) for v in values),
                    dtype=bool,
                    count=self.size,
                )
        return self._present[key]

    def per_value(self, key: str, rule: Callable[[Any], Any]) -> list[Any]:
        """`rule` applied once per distinct value (None where absent, _BAD where it raised)."""
        values = self.values(key)
        if _all_text(values):
            codes, distinct = pd.factorize(np.asarray(values, dtype=object))
            judged = np.empty(len(distinct), dtype=object)
            judged[:] = [_apply(rule, v) if v.strip() else None for v in distinct]
            bad = np.fromiter((v is _BAD for v in judged), dtype=bool, count=len(distinct))
            self.flagged |= bad[codes]
            return list(judged[codes].tolist())
        else:
            seen: dict[Hashable, Any] = {}
            out: list[Any] = []
            for value, here in zip(values, self.present(key), strict=True):
                if not here:
                    out.append(None)
                    continue
                try:
                    marker = (type(value), value)
                    if marker not in seen:
                        seen[marker] = _apply(rule, value)
                    out.append(seen[marker])
                except TypeError:  # unhashable (a list or object where a value belongs)
                    out.append(_BAD)
        self.flagged |= np.fromiter((v is _BAD for v in out), dtype=bool, count=self.size)
        return out

    def numbers(self, key: str, *, positive: bool = False) -> Floats:
        """`parse_number` and the numeric rule (finite, at most LIMIT, ≥ 0, > 0 if `positive`) for
        a column: NaN where absent; a record whose value fails is flagged."""
        present = self.present(key)
        out = np.full(self.size, np.nan)
        if not present.any():
            return out
        values = self.values(key)
        cells = np.fromiter(values, dtype=object, count=self.size)[present]  # a list in a cell stays one
        if _all_text(values):  # a CSV column: lengths in C
            sound = np.char.str_len(cells.astype(np.str_)) <= inputs.MAX_NUMBER_CHARS
        else:
            sound = np.fromiter(
                (
                    (type(v) is str and len(v) <= inputs.MAX_NUMBER_CHARS)
                    or type(v) is int
                    or type(v) is float
                    for v in cells
                ),
                dtype=bool,
                count=len(cells),
            )
        cells[~sound] = "nan"
        try:
            parsed = cells.astype(np.float64)  # Python's float() on each cell, in C
        except (ValueError, OverflowError):
            parsed = np.array([_float(v) for v in cells], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            sound &= np.isfinite(parsed) & (np.abs(parsed) <= inputs.LIMIT) & (parsed >= 0)
            if positive:
                sound &= parsed > 0
        out[present] = np.where(sound, parsed, np.nan)  # a flagged record's value is never used
        bad = np.zeros(self.size, dtype=bool)
        bad[present] = ~sound
        self.flagged |= bad
        return out

    def counts(self, key: str, *, positive: bool) -> Floats:
        """Whole numbers ≥ 0 (> 0 if `positive`), at most MAX_COUNT, as `_integer` and `Count` hold them."""
        numbers = self.numbers(key)
        with np.errstate(invalid="ignore"):
            wrong = (numbers != np.floor(numbers)) | (numbers > inputs.MAX_COUNT)
            if positive:
                wrong |= numbers <= 0
        self.flagged |= wrong & self.present(key)
        return numbers

    def flags(self, key: str) -> list[Any]:
        return self.per_value(key, parse_bool)


def trusted(cls: type[Model], values: dict[str, Any]) -> Model:
    """A model from values already checked (what `model_construct` does, without its per-call
    default lookups): the fields in declaration order, defaults for those not given."""
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = {
            name: None if field.is_required() else field.get_default(call_default_factory=True)
            for name, field in cls.model_fields.items()
        }
    return _instance(cls, {**defaults, **values}, set(values))


def _instance(cls: type[Model], data: dict[str, Any], fields_set: set[str]) -> Model:
    """A model holding `data` (every field, in declaration order) as validated; `fields_set` as
    pydantic records the fields given (shared between instances: a frozen model never changes it)."""
    model = cls.__new__(cls)
    object.__setattr__(model, "__dict__", data)
    object.__setattr__(model, "__pydantic_fields_set__", fields_set)
    object.__setattr__(model, "__pydantic_extra__", None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}


def _all_text(values: list[Any]) -> bool:
    return bool(values) and pd.api.types.infer_dtype(values, skipna=False) == "string"


def _apply(rule: Callable[[Any], Any], value: Any) -> Any:
    try:
        return rule(value)
    except ValueError:
        return _BAD


def _float(value: Any) -> float:
    try:
        return float(value)
    except (ValueError, OverflowError, TypeError):
        return float("nan")


def rows_to_columns(rows: Sequence[Mapping[str, Any]]) -> tuple[dict[str, list[Any]], Mask]:
    """Records (JSON objects) as columns, and which records hold a field the format lacks."""
    keys = {k for row in rows for k in row}
    unknown = np.zeros(len(rows), dtype=bool)
    for key in keys - set(COLUMNS):
        unknown |= np.fromiter((key in row for row in rows), dtype=bool, count=len(rows))
    return {key: [row.get(key) for row in rows] for key in keys & set(COLUMNS)}, unknown


def native_points(
    columns: Mapping[str, list[Any]], flagged: Mask, labels: Sequence[str], dataset: str, source_file: str
) -> list[BenchmarkPoint | None]:
    """The point of each native record that passes every check in bulk; None for a record the
    per-record path must read (`flagged` ones, and any with a problem to report)."""
    n = len(labels)
    if n == 0:
        return []
    table = _Columns(columns, n, flagged)
    for key in REQUIRED:
        table.flagged |= ~table.present(key)
    text = {key: table.per_value(key, inputs.identifier) for key in TEXT_FIELDS}
    isl = table.counts("isl", positive=True)
    osl = table.counts("osl", positive=True)
    concurrency = table.counts("concurrency", positive=True)
    gpu_count = table.counts("gpu_count", positive=True)
    ints = {key: table.counts(key, positive=False) for key in ("tp", "ep", "pp")}
    groups = {
        role: (
            {k: table.counts(f"{role}_{k}", positive=False) for k in GROUP_KEYS},
            table.flags(f"{role}_dp_attention"),
        )
        for role in ("prefill", "decode")
    }
    flags = {key: table.flags(key) for key in ("disagg", "multinode", "dp_attention")}
    throughput = table.numbers("throughput_per_gpu", positive=True)
    output = table.numbers("output_throughput_per_gpu", positive=True)
    input_tput = table.numbers("input_throughput_per_gpu")
    stated = table.numbers("interactivity", positive=True)
    watts = table.numbers("avg_power_w", positive=True)
    joules = {
        k: table.numbers(k, positive=True) for k in ("joules_per_total_token", "joules_per_output_token")
    }
    latency: dict[str, dict[str, Floats]] = {}
    for metric in LATENCY_METRICS:
        for stat, name in LATENCY_STATS.items():
            key = f"{stat}_{metric}_ms"
            if table.present(key).any():
                latency.setdefault(metric, {})[name] = (
                    table.numbers(key, positive=(metric, stat) == ("tpot", "median")) / 1000.0
                )
    tpot = latency.get("tpot", {}).get("median", np.full(n, np.nan))
    with np.errstate(divide="ignore", invalid="ignore"):
        from_tpot = 1.0 / tpot
        derived = output * gpu_count / concurrency
    has_tpot, has_stated = ~np.isnan(tpot), table.present("interactivity")
    interactivity = np.where(has_tpot, from_tpot, np.where(has_stated, stated, derived))
    with np.errstate(invalid="ignore"):
        table.flagged |= ~(np.isfinite(interactivity) & (interactivity > 0) & (interactivity <= inputs.LIMIT))
    source = np.where(has_tpot, "tpot", np.where(has_stated, "stated", "derived"))
    written = table.values("date")
    stamps = {v: date_from_stamp(v) for v in {v for v in written if isinstance(v, str)}}
    dates = [stamps[v] if isinstance(v, str) else None for v in written]

    def optional(numbers: Floats, whole: bool = False) -> list[Any]:
        if np.isnan(numbers).all():
            return [None] * n
        return [None if v != v else int(v) if whole else v for v in numbers.tolist()]

    def groups_of(role: str) -> list[Any]:
        numbers, dpa = groups[role]
        if all(np.isnan(numbers[k]).all() for k in GROUP_KEYS) and all(flag is None for flag in dpa):
            return [None] * n  # an aggregated deployment: no roles
        columns = [optional(numbers[k], whole=True) for k in GROUP_KEYS]
        return [
            (tuple(zip(GROUP_KEYS, values, strict=True)), flag)
            if flag is not None or any(v is not None for v in values)
            else None
            for *values, flag in zip(*columns, dpa, strict=True)
        ]

    identities = zip(
        zip(*(text[k] for k in TEXT_FIELDS), strict=True),
        zip(*(flags[k] for k in ("disagg", "multinode", "dp_attention")), strict=True),
        zip(*(optional(ints[k], whole=True) for k in ("tp", "ep", "pp")), strict=True),
        zip(groups_of("prefill"), groups_of("decode"), strict=True),
        optional(gpu_count, whole=True),
        strict=True,
    )
    powers = [
        None
        if w is None
        else trusted(
            Power,
            {"avg_watts_per_gpu": w, "joules_per_total_token": total, "joules_per_output_token": out},
        )
        for w, total, out in zip(
            optional(watts),
            optional(joules["joules_per_total_token"]),
            optional(joules["joules_per_output_token"]),
            strict=True,
        )
    ]
    latencies: list[dict[str, LatencyStats]] = [{} for _ in range(n)]
    for metric, by_stat in latency.items():
        stat_columns = {name: optional(values) for name, values in by_stat.items()}
        for i, values in enumerate(zip(*stat_columns.values(), strict=True)):
            given = {name: v for name, v in zip(stat_columns, values, strict=True) if v is not None}
            if given:
                latencies[i][metric] = trusted(LatencyStats, given)
    configurations: dict[tuple[Any, ...], Configuration | None] = {}
    fields_sets: dict[tuple[str, ...], set[str]] = {}
    provenance_set = set(Provenance.model_fields)
    points: list[BenchmarkPoint | None] = []
    rows = zip(
        table.flagged.tolist(),
        identities,
        optional(isl, whole=True),
        optional(osl, whole=True),
        optional(concurrency, whole=True),
        throughput.tolist(),
        optional(output),
        optional(input_tput),
        interactivity.tolist(),
        source.tolist(),
        powers,
        latencies,
        labels,
        dates,
        *(table.values(k) for k in ("run_url", "image", "note")),
        strict=True,
    )
    for flagged_row, identity, *numbers, power, stats, label, date, run_url, image, note in rows:
        if flagged_row:
            points.append(None)
            continue
        if identity not in configurations:
            configurations[identity] = _configuration(identity)
        config = configurations[identity]
        if config is None:
            points.append(None)
            continue
        provenance = _instance(
            Provenance,
            {
                "dataset": dataset,
                "source_file": source_file,
                "record": label or "whole file",
                "client": None,
                "date": date,
                "run_url": _text(run_url),
                "image": _text(image),
                "note": _text(note),
            },
            provenance_set,
        )
        metrics = tuple(stats)
        if metrics not in fields_sets:
            fields_sets[metrics] = {"config", *POINT_NUMBERS, "power", "provenance", *metrics}
        isl_, osl_, concurrency_, throughput_, output_, input_, interactivity_, source_ = numbers
        data = {  # BenchmarkPoint's fields in their order (tests/test_bulk_loading.py holds it)
            "config": config,
            "isl": isl_,
            "osl": osl_,
            "concurrency": concurrency_,
            "throughput_per_gpu": throughput_,
            "throughput_basis": "total",
            "output_throughput_per_gpu": output_,
            "input_throughput_per_gpu": input_,
            "interactivity": interactivity_,
            "interactivity_source": source_,
            "ttft": stats.get("ttft"),
            "tpot": stats.get("tpot"),
            "itl": stats.get("itl"),
            "e2el": stats.get("e2el"),
            "power": power,
            "provenance": provenance,
        }
        points.append(_instance(BenchmarkPoint, data, fields_sets[metrics]))
    return points


def _configuration(identity: tuple[Any, ...]) -> Configuration | None:
    """One configuration, made as `finish_point` makes it (None where that would fail)."""
    (model, hardware, framework, precision, spec), flags, numbers, groups, gpus = identity
    text = {"model": model, "hardware": hardware, "framework": framework, "precision": precision}
    if spec is not None:
        text["spec_method"] = spec
    try:
        prefill, decode = (
            WorkerGroup(dp_attention=g[1], **dict(g[0])) if g is not None else None for g in groups
        )
        return configuration(
            text, flags, dict(zip(("tp", "ep", "pp"), numbers, strict=True)), (prefill, decode), gpus
        )
    except ValidationError:
        return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
