"""Native records in bulk: the rules of `common.finish_point`, a column at a time.

A result file of native records is checked column by column (numbers parsed by numpy with
Python's own `float`, text and flags judged once per distinct value), and the records that
pass every check are kept as columns (`NativeRows`, a part of the pool: pool.py), each made
into a point without per-point validation when it is first read. A record that any check
flags is left to the per-record path (`common.finish_point`), which names the file, record and
field exactly as it always has: this module only decides which records are plainly sound, and
never words a problem itself. The two paths build equal points (tests/test_bulk_loading.py,
tests/test_pool.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence, Set
from itertools import repeat
from typing import Any, cast, overload

import numpy as np
import numpy.typing as npt
import pandas as pd

from site_builder.files import LIMIT, MAX_COUNT, MAX_NUMBER_CHARS, identifier
from site_builder.loaders.common import (
    LATENCY_METRICS,
    LATENCY_STATS,
    configuration_fields,
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
    prevalidated,
    prevalidated_each,
)
from site_builder.pool import made_without_collection

Mask = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
Positions = npt.NDArray[np.intp]
Column = Sequence[Any] | npt.NDArray[Any]  # a field's value in each record (a list, or an array)
TEXT_FIELDS = ("model", "hardware", "framework", "precision", "spec_method")
FLAG_FIELDS = ("disagg", "multinode", "dp_attention", "prefill_dp_attention", "decode_dp_attention")
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
    value is present the way `PointDraft.set` counts it (not None, not blank text).

    A column of text only is judged once per distinct value (`coded`); a column in `parsed` was
    read as numbers already (a CSV column pandas parsed: NaN where a cell is empty)."""

    def __init__(
        self, columns: Mapping[str, Column], size: int, flagged: Mask, parsed: Mapping[str, Floats]
    ) -> None:
        self.columns = columns
        self.parsed = parsed
        self.size = size
        self.flagged = flagged.copy()
        self._present: dict[str, Mask] = {}
        self._coded: dict[str, tuple[Positions, list[str]] | None] = {}
        self.judged_codes: dict[str, Positions] = {}  # per_value's result for a text column, as codes

    def values(self, key: str) -> Column:
        found = self.columns.get(key)
        return found if found is not None else [None] * self.size

    def coded(self, key: str) -> tuple[Positions, list[str]] | None:
        """For a column whose every value is text (a CSV column): each row's index into its
        distinct values, and those (None for any other column)."""
        if key not in self._coded:
            found = None
            values = self.columns.get(key)
            if values is not None and self.size:
                cells = values if isinstance(values, np.ndarray) else np.fromiter(values, object, self.size)
                try:
                    codes, distinct = _factorize(cells)  # None or NaN: code -1
                except (TypeError, ValueError):  # unhashable (a list or object where a value belongs)
                    distinct = None
                if distinct is not None and all(isinstance(v, str) for v in distinct) and codes.min() >= 0:
                    found = (codes.astype(np.intp, copy=False), list(distinct))
            self._coded[key] = found
        return self._coded[key]

    def is_text(self, key: str) -> bool:
        """Whether every value of a column is text (a CSV column): judged once a column."""
        return self.coded(key) is not None

    def present(self, key: str) -> Mask:
        if key not in self._present:
            self._present[key] = self._presence(key)
        return self._present[key]

    def _presence(self, key: str) -> Mask:
        if key in self.parsed:
            return ~np.isnan(self.parsed[key])
        if key not in self.columns:
            return np.zeros(self.size, dtype=bool)
        coded = self.coded(key)
        if coded is not None:  # not blank: neither empty nor only whitespace (what strip removes)
            codes, distinct = coded
            return np.array([v != "" and not v.isspace() for v in distinct], dtype=bool)[codes]
        return np.fromiter(
            (v is not None and not (isinstance(v, str) and not v.strip()) for v in self.values(key)),
            dtype=bool,
            count=self.size,
        )

    def per_value(self, key: str, rule: Callable[[Any], Any]) -> list[Any]:
        """`rule` applied once per distinct value (None where absent, _BAD where it raised)."""
        if key not in self.columns:
            return [None] * self.size
        coded = self.coded(key)
        if coded is not None:
            codes, distinct = coded
            judged = np.empty(len(distinct), dtype=object)
            judged[:] = [_apply(rule, v) if v.strip() else None for v in distinct]
            bad = np.fromiter((v is _BAD for v in judged), dtype=bool, count=len(distinct))
            self.flagged |= bad[codes]
            # equal judgements alike: a row's code among the distinct judgements
            same = pd.factorize(judged, use_na_sentinel=False)[0] if len(judged) > 1 else np.zeros(1, np.intp)
            self.judged_codes[key] = same.astype(np.intp, copy=False)[codes]
            return list(judged[codes].tolist())
        seen: dict[Hashable, Any] = {}
        out: list[Any] = []
        for value, here in zip(self.values(key), self.present(key), strict=True):
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
        if key in self.parsed:
            parsed = self.parsed[key][present]
            sound = np.ones(len(parsed), dtype=bool)
        else:
            parsed, sound = self._parse(key, present)
        with np.errstate(invalid="ignore"):
            sound &= np.isfinite(parsed) & (np.abs(parsed) <= LIMIT) & (parsed >= 0)
            if positive:
                sound &= parsed > 0
        out[present] = np.where(sound, parsed, np.nan)  # a flagged record's value is never used
        bad = np.zeros(self.size, dtype=bool)
        bad[present] = ~sound
        self.flagged |= bad
        return out

    def _parse(self, key: str, present: Mask) -> tuple[Floats, Mask]:
        """The present values of a column of cells as `parse_number` reads them (NaN where it
        fails), and which are short enough to be read."""
        cells = np.fromiter(self.values(key), dtype=object, count=self.size)[present]  # a list stays one
        if self.is_text(key):  # a CSV column: lengths in C
            if max(map(len, cells), default=0) <= MAX_NUMBER_CHARS:
                sound = np.ones(len(cells), dtype=bool)
            else:
                sound = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells)) <= MAX_NUMBER_CHARS
        else:
            sound = np.fromiter(
                (
                    (type(v) is str and len(v) <= MAX_NUMBER_CHARS) or type(v) is int or type(v) is float
                    for v in cells
                ),
                dtype=bool,
                count=len(cells),
            )
        cells[~sound] = "nan"
        return _parse_numbers(cells, self.is_text(key)), sound

    def counts(self, key: str, *, positive: bool) -> Floats:
        """Whole numbers ≥ 0 (> 0 if `positive`), at most MAX_COUNT, as `_integer` and `Count` hold them."""
        numbers = self.numbers(key)
        with np.errstate(invalid="ignore"):
            wrong = (numbers != np.floor(numbers)) | (numbers > MAX_COUNT)
            if positive:
                wrong |= numbers <= 0
        self.flagged |= wrong & self.present(key)
        return numbers

    def flags(self, key: str) -> list[Any]:
        return self.per_value(key, parse_bool)


def _factorize(cells: npt.NDArray[np.object_]) -> tuple[npt.NDArray[np.intp], npt.NDArray[Any]]:
    """`pd.factorize` of a column, where it repeats in runs (a file written configuration by
    configuration) from the first cell of each run."""
    starts = np.flatnonzero(np.append(True, cells[1:] != cells[:-1]))
    if len(starts) * 4 > len(cells):
        return pd.factorize(cells)
    codes, distinct = pd.factorize(cells[starts])
    return np.repeat(codes, np.diff(np.append(starts, len(cells)))), distinct


def _parse_numbers(cells: npt.NDArray[np.object_], text: bool) -> Floats:
    """Python's `float` of each cell (NaN where it fails), in C: for text that repeats a few
    values (a count, a setting) once per distinct value, else once per cell."""
    if text and len(cells) > 1024 and len(set(cells[:256].tolist())) <= 32:
        codes, distinct = pd.factorize(cells, use_na_sentinel=False)
        return _parse_numbers(np.asarray(distinct, dtype=object), text=False)[codes]
    try:
        return cells.astype(np.float64)
    except (ValueError, OverflowError, TypeError):
        return np.array([_float(v) for v in cells], dtype=np.float64)


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
    columns: Mapping[str, Column],
    flagged: Mask,
    labels: Sequence[str],
    dataset: str,
    source_file: str,
    parsed: Mapping[str, Floats] | None = None,
) -> NativeRows | None:
    """The native records that pass every check in bulk, as rows whose points are made on
    demand (None if none does); every other record (`flagged` ones, and any with a problem to
    report) is for the per-record path to read. `parsed`: columns read as numbers already, each
    exactly as `parse_number` reads its cell (NaN where empty; a cell too long to be read flagged)."""
    n = len(labels)
    if n == 0:
        return None
    table = _Columns(columns, n, flagged, parsed or {})
    for key in REQUIRED:
        table.flagged |= ~table.present(key)
    text = {key: table.per_value(key, identifier) for key in TEXT_FIELDS}
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
        table.flagged |= ~(np.isfinite(interactivity) & (interactivity > 0) & (interactivity <= LIMIT))
    source = np.where(has_tpot, "tpot", np.where(has_stated, "stated", "derived"))

    # The identity of each row's configuration, as codes: one Configuration per distinct one.
    judged = table.judged_codes  # a text column's judgements as codes, where it has them
    identity_columns: list[Column] = [
        *(judged.get(k, text[k]) for k in TEXT_FIELDS),
        *(judged.get(k, flags[k]) for k in ("disagg", "multinode", "dp_attention")),
        *(ints[k] for k in ("tp", "ep", "pp")),
        *(groups[role][0][k] for role in ("prefill", "decode") for k in GROUP_KEYS),
        judged.get("prefill_dp_attention", groups["prefill"][1]),
        judged.get("decode_dp_attention", groups["decode"][1]),
        gpu_count,
    ]
    kept = np.flatnonzero(~table.flagged)
    codes = _row_codes(identity_columns, kept)
    first = np.unique(codes, return_index=True)[1]  # codes are 0, 1, …: a row of each
    roles = {
        role
        for role in groups
        for key in (*GROUP_KEYS, "dp_attention")
        if table.present(f"{role}_{key}").any()
    }
    configurations = [
        _configuration(identity)
        for identity in _identities(text, flags, ints, groups, gpu_count, roles, kept[first])
    ]
    if any(c is None for c in configurations):  # a normalised name the identifier rule refuses
        sound = np.array([c is not None for c in configurations])[codes]
        kept, codes = kept[sound], codes[sound]
        made = [i for i, c in enumerate(configurations) if c is not None]
        renumbered = np.zeros(len(configurations), dtype=np.intp)
        renumbered[made] = np.arange(len(made))
        codes = renumbered[codes]
    sound_configurations = [c for c in configurations if c is not None]
    if len(kept) == 0:
        return None
    return NativeRows(
        configs=sound_configurations,
        config_codes=codes,
        kept=kept,
        dataset=dataset,
        source_file=source_file,
        counts=(isl[kept], osl[kept], concurrency[kept]),
        measured=(throughput[kept], output[kept], input_tput[kept], interactivity[kept]),
        sources=source[kept],
        latency={m: {stat: v[kept] for stat, v in by_stat.items()} for m, by_stat in latency.items()},
        power=None if np.isnan(watts[kept]).all() else (watts[kept], {k: v[kept] for k, v in joules.items()}),
        labels=labels,
        dates=_dates(table, kept),
        texts={k: _texts(table.columns.get(k), kept) for k in ("run_url", "image", "note")},
    )


class Numbered(Sequence[str]):
    """The labels of numbered records ('line 2', 'line 3', …), each made when asked for."""

    def __init__(self, word: str, first: int, size: int) -> None:
        self.word, self.first, self.size = word, first, size

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(self.size)[index]]
        return f"{self.word} {self.first + range(self.size)[index]}"


class NativeRows:
    """The records of one file that passed every check, as columns (a `pool.Part`): their
    points are made when first read, each exactly as `finish_point` would make it, the rows'
    Configuration objects shared. `kept` gives each row's record among the file's, and
    `labels` every record's label (a row's: `labels[kept[row]]`)."""

    def __init__(
        self,
        *,
        configs: list[Configuration],
        config_codes: npt.NDArray[np.intp],
        kept: npt.NDArray[np.intp],
        dataset: str,
        source_file: str,
        counts: tuple[Floats, Floats, Floats],
        measured: tuple[Floats, Floats, Floats, Floats],
        sources: npt.NDArray[np.str_],
        latency: dict[str, dict[str, Floats]],
        power: tuple[Floats, dict[str, Floats]] | None,
        labels: Sequence[str],
        dates: npt.NDArray[np.object_],
        texts: dict[str, list[str | None] | None],
    ) -> None:
        self.configs, self.config_codes, self.kept = configs, config_codes, kept
        self.datasets, self.files = [dataset], [source_file]
        self.dataset_codes = self.file_codes = np.zeros(len(kept), dtype=np.intp)
        self.isl, self.osl, self.concurrency = (c.astype(np.int64) for c in counts)  # whole in every row
        self.measured, self.sources, self.latency, self.power = measured, sources, latency, power
        self.labels, self.dates, self.texts = labels, dates, texts
        self._made: list[BenchmarkPoint | None] = [None] * len(kept)

    def make(self, rows: Sequence[int]) -> list[BenchmarkPoint]:
        made = self._made
        missing = [r for r in rows if made[r] is None]
        if missing:
            built = made_without_collection(lambda: self._build(missing))
            for row, point in zip(missing, built, strict=True):
                made[row] = point
        found = [made[r] for r in rows]  # every one made by now
        return cast(list[BenchmarkPoint], found)

    def _build(self, rows: Sequence[int]) -> list[BenchmarkPoint]:
        picked = np.asarray(rows, dtype=np.intp)
        throughput, output, input_tput, interactivity = (c[picked] for c in self.measured)
        latencies = {metric: _latency_stats(by_stat, picked) for metric, by_stat in self.latency.items()}
        with_stats = np.zeros(len(picked), dtype=np.int64)
        for bit, metric in enumerate(LATENCY_METRICS):
            if metric in latencies:
                given = np.fromiter((s is not None for s in latencies[metric]), bool, len(picked))
                with_stats |= given.astype(np.int64) << bit
        powers: Iterable[Power | None] = repeat(None)
        if self.power is not None and not np.isnan(self.power[0][picked]).all():
            powers = _powers(*self.power, picked)
        texts = [repeat(None) if t is None else [t[r] for r in rows] for t in self.texts.values()]
        dataset, source_file = self.datasets[0], self.files[0]
        provenances = prevalidated_each(
            Provenance,
            (
                {
                    "dataset": dataset,
                    "source_file": source_file,
                    "record": label or "whole file",
                    "client": None,
                    "date": date,
                    "run_url": run_url,
                    "image": image,
                    "note": note,
                }
                for label, date, run_url, image, note in zip(
                    self._labels(self.kept[picked].tolist()),
                    self.dates[picked].tolist(),
                    *texts,
                    strict=False,  # `repeat` for a text no row has
                )
            ),
            repeat(_PROVENANCE_FIELDS),
        )
        configs = self.configs
        rows_data = zip(
            [configs[c] for c in self.config_codes[picked].tolist()],
            self.isl[picked].tolist(),
            self.osl[picked].tolist(),
            self.concurrency[picked].tolist(),
            throughput.tolist(),
            _optional(output),
            _optional(input_tput),
            interactivity.tolist(),
            self.sources[picked].tolist(),
            *(latencies.get(metric, repeat(None)) for metric in LATENCY_METRICS),
            powers,
            provenances,
            strict=False,  # `repeat` for a column no row has
        )
        fields_sets = {
            pattern: {
                "config",
                *POINT_NUMBERS,
                "power",
                "provenance",
                *(m for bit, m in enumerate(LATENCY_METRICS) if pattern >> bit & 1),
            }
            for pattern in set(with_stats.tolist())
        }
        return prevalidated_each(
            BenchmarkPoint,
            (
                {  # BenchmarkPoint's fields in their order (tests/test_bulk_loading.py holds it)
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
                    "ttft": ttft,
                    "tpot": tpot_,
                    "itl": itl,
                    "e2el": e2el,
                    "power": power,
                    "provenance": provenance,
                }
                for (
                    config,
                    isl_,
                    osl_,
                    concurrency_,
                    throughput_,
                    output_,
                    input_,
                    interactivity_,
                    source_,
                    ttft,
                    tpot_,
                    itl,
                    e2el,
                    power,
                    provenance,
                ) in rows_data
            ),
            [fields_sets[pattern] for pattern in with_stats.tolist()],
        )

    def _labels(self, records: list[int]) -> list[str]:
        """These records' labels (a numbered record's made here, without a call each)."""
        labels = self.labels
        if isinstance(labels, Numbered):
            word, first = labels.word, labels.first
            return [f"{word} {first + record}" for record in records]
        return [labels[record] for record in records]


def _row_codes(columns: Sequence[Column], kept: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """For the `kept` rows, a code per row (0, 1, … in order of first appearance) that is equal
    exactly where every column's value is equal (NaN and None are values here); a column of
    whole numbers holds codes already."""
    codes = np.zeros(len(kept), dtype=np.int64)
    combinations = 1  # how many values `codes` can take
    for values in columns:
        if isinstance(values, np.ndarray):
            picked = values[kept]
            if picked.dtype.kind == "f" and np.isnan(picked).all():
                continue  # a field no row gives: the same (absent) everywhere
        elif values.count(None) == len(values):
            continue
        else:
            picked = np.fromiter(values, dtype=object, count=len(values))[kept]
        column_codes, distinct = pd.factorize(picked, use_na_sentinel=False)
        if len(distinct) > 1:
            if combinations * len(distinct) >= 2**62:  # renumber before the product overflows
                codes = pd.factorize(codes)[0].astype(np.int64)
                combinations = int(codes.max()) + 1
            codes = codes * len(distinct) + column_codes
            combinations *= len(distinct)
    return pd.factorize(codes)[0].astype(np.intp, copy=False)


def _identities(
    text: Mapping[str, list[Any]],
    flags: Mapping[str, list[Any]],
    ints: Mapping[str, Floats],
    groups: Mapping[str, tuple[dict[str, Floats], list[Any]]],
    gpu_count: Floats,
    roles: Set[str],
    rows: npt.NDArray[np.intp],
) -> list[tuple[Any, ...]]:
    """These rows' configuration fields, each as `_configuration` takes them."""
    listed = rows.tolist()

    def at(values: Sequence[Any]) -> list[Any]:
        return [values[r] for r in listed]

    def whole(values: Floats) -> list[int | None]:
        return [None if v != v else int(v) for v in values[rows].tolist()]

    def group(role: str) -> list[tuple[tuple[tuple[str, int | None], ...], Any] | None]:
        if role not in roles:  # an aggregated deployment: no roles
            return [None] * len(listed)
        numbers, dpa = groups[role]
        by_key = [whole(numbers[k]) for k in GROUP_KEYS]
        out: list[tuple[tuple[tuple[str, int | None], ...], Any] | None] = []
        for flag, *given in zip(at(dpa), *by_key, strict=True):
            values = tuple(zip(GROUP_KEYS, given, strict=True))
            out.append((values, flag) if flag is not None or any(v is not None for v in given) else None)
        return out

    return list(
        zip(
            zip(*(at(text[k]) for k in TEXT_FIELDS), strict=True),
            zip(*(at(flags[k]) for k in ("disagg", "multinode", "dp_attention")), strict=True),
            zip(*(whole(ints[k]) for k in ("tp", "ep", "pp")), strict=True),
            zip(group("prefill"), group("decode"), strict=True),
            whole(gpu_count),
            strict=True,
        )
    )


def _dates(table: _Columns, kept: npt.NDArray[np.intp]) -> npt.NDArray[np.object_]:
    """The date of each kept row: `date_from_stamp` once per distinct text (None where absent)."""
    out = np.full(len(kept), None, dtype=object)
    coded = table.coded("date")
    if coded is not None:  # a CSV column
        codes, distinct = coded
        judged = np.empty(len(distinct), dtype=object)
        judged[:] = [date_from_stamp(v) for v in distinct]
        return judged[codes[kept]]
    if "date" in table.columns:
        written = table.values("date")
        picked = [written[i] for i in kept.tolist()]
        stamps = {v: date_from_stamp(v) for v in {v for v in picked if isinstance(v, str)}}
        out[:] = [stamps[v] if isinstance(v, str) else None for v in picked]
    return out


def _optional(values: Floats) -> Iterable[float | None]:
    """Each value, None for NaN (a field the record lacks)."""
    absent = np.isnan(values)
    if absent.all():
        return repeat(None)
    out = values.astype(object)
    out[absent] = None
    return list(out.tolist())


def _latency_stats(by_stat: Mapping[str, Floats], kept: npt.NDArray[np.intp]) -> list[LatencyStats | None]:
    """One metric's statistics for each kept row (None where the row gives none of them)."""
    given = np.zeros(len(kept), dtype=np.int64)
    for bit, name in enumerate(_LATENCY_FIELDS):
        if name in by_stat:
            given |= (~np.isnan(by_stat[name][kept])).astype(np.int64) << bit
    fields_sets = {
        pattern: {name for bit, name in enumerate(_LATENCY_FIELDS) if pattern >> bit & 1}
        for pattern in set(given.tolist())
    }
    columns = [
        _optional(by_stat[name][kept]) if name in by_stat else repeat(None) for name in _LATENCY_FIELDS
    ]
    made = iter(
        prevalidated_each(
            LatencyStats,
            (
                {"mean": mean, "median": median, "std": std, "p90": p90, "p99": p99, "p99_9": p99_9}
                for pattern, mean, median, std, p90, p99, p99_9 in zip(given.tolist(), *columns, strict=False)
                if pattern
            ),
            [fields_sets[pattern] for pattern in given.tolist() if pattern],
        )
    )
    return [next(made) if pattern else None for pattern in given.tolist()]


def _powers(watts: Floats, joules: Mapping[str, Floats], kept: npt.NDArray[np.intp]) -> list[Power | None]:
    """The power measurement of each kept row (None without a wattage)."""
    fields_set = set(Power.model_fields)  # all three given, as finish_point gives them
    out: list[Power | None] = []
    rows = zip(
        _optional(watts[kept]),
        _optional(joules["joules_per_total_token"][kept]),
        _optional(joules["joules_per_output_token"][kept]),
        strict=False,
    )
    for w, total, output in rows:
        if w is None:
            out.append(None)
            continue
        data = {"avg_watts_per_gpu": w, "joules_per_total_token": total, "joules_per_output_token": output}
        out.append(prevalidated(Power, data, fields_set))
    return out


def _texts(values: Column | None, kept: npt.NDArray[np.intp]) -> list[str | None] | None:
    """An optional text field of each kept row: None where absent or empty (None: no row has it)."""
    if values is None:
        return None
    return [_text(values[i]) for i in kept.tolist()]


_LATENCY_FIELDS = tuple(LatencyStats.model_fields)
_PROVENANCE_FIELDS = set(Provenance.model_fields)


_CONFIGURATION_FIELDS = set(Configuration.model_fields)
_GROUP_FIELDS = set(WorkerGroup.model_fields)


def _configuration(identity: tuple[Any, ...]) -> Configuration | None:
    """One configuration, equal to the one `finish_point` makes (None where that would fail).
    Its numbers and flags passed the checks above, so only its normalised names are held to
    the identifier rule here, and the models are made without validating them again."""
    (model, hardware, framework, precision, spec), flags, numbers, groups, gpus = identity
    text = {"model": model, "hardware": hardware, "framework": framework, "precision": precision}
    if spec is not None:
        text["spec_method"] = spec
    prefill, decode = (
        None if g is None else prevalidated(WorkerGroup, {**dict(g[0]), "dp_attention": g[1]}, _GROUP_FIELDS)
        for g in groups
    )
    fields = configuration_fields(
        text, flags, dict(zip(("tp", "ep", "pp"), numbers, strict=True)), (prefill, decode), gpus
    )
    if not all(_is_identifier(fields[key]) for key in TEXT_FIELDS):
        return None
    return prevalidated(Configuration, fields, _CONFIGURATION_FIELDS)


@functools.lru_cache(maxsize=4096)
def _is_identifier(name: str) -> bool:
    """Whether a name passes the identifier rule as it is (identifier keeps it)."""
    try:
        return identifier(name) == name
    except ValueError:
        return False


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
