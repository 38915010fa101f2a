"""The one validation of result records, for every format: a file's drafts, a column a field,
checked rule by rule over whole columns; the sound records become rows of the point table.

A reader (native.py, inferencex.py, serving.py, aiperf.py, guidellm.py) gives `Drafts`: for
each of our fields the value each record wrote (None where it gives none) and the name the
user's file gives the field. Each rule below is a mask over the records; each record it flags
gets the rule's message naming the field as the file names it, and a record with any error is
dropped. Rules that read a value (a number in text, an identifier, a flag) judge each distinct
value once. Problems come back as (record, step, field, reason): `step` orders a record's
problems as the rules run (docs/data-format.md lists the rules), so the loader can log them
record by record, after the problems the reader found in the same record.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from site_builder.files import NUMBER_FAULTS, excerpt, identifier, number_faults
from site_builder.problems import Cause
from site_builder.read.fields import (
    LATENCY_METRICS,
    LATENCY_STATS,
    PointDraft,
    latency_ms_field,
    normalise_framework,
    normalise_hardware,
    normalise_precision,
    normalise_spec_method,
    parse_bool,
    parse_numbers,
)
from site_builder.workload import check_label

Mask = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
Objects = npt.NDArray[np.object_]
Problem = tuple[int, int, str, str, Cause]  # (record, step, field as the file names it, reason, cause)

IDENTITY_FIELDS = ("model", "hardware", "framework", "precision", "isl", "osl", "concurrency")
TEXT_FIELDS = ("model", "hardware", "framework", "precision", "spec_method", "variant")
GROUP_KEYS = ("tp", "ep", "workers", "gpus")
ROLES = ("prefill", "decode")
# our field → how a configuration's name is normalised (the model's is kept as written)
NORMALISED: dict[str, Callable[[Any], str]] = {
    "model": lambda name: name,
    "hardware": normalise_hardware,
    "framework": lambda name: normalise_framework(name)[0],
    "precision": normalise_precision,
    "spec_method": normalise_spec_method,  # None (not given): "none"
    "variant": lambda name: name,  # a free label (confidential-computing, lmcache), kept as written
}
SAMPLE = 1024  # values whose distinct count tells a column of measurements (_factorize)


@dataclass
class Drafts:
    """A file's records as our fields, a column each: the value each record wrote (None where
    it gives none) and the field's name in the file (one for every record, or one a record).
    `uniform`: each column holds values of one type (a CSV's text, a Parquet column), None
    aside, so its distinct values are found in C (pandas.factorize)."""

    size: int
    values: dict[str, Objects]
    names: dict[str, str | Objects] = field(default_factory=dict)
    uniform: bool = False

    @classmethod
    def of(cls, drafts: Sequence[PointDraft]) -> Drafts:
        """Records one reader drafted at a time (a JSON file's), as columns."""
        keys = list(dict.fromkeys(k for d in drafts for k in (*d.values, *d.names)))
        values: dict[str, Objects] = {}
        names: dict[str, str | Objects] = {}
        for key in keys:
            values[key] = _objects([d.values.get(key) for d in drafts])
            names[key] = _objects([d.names.get(key, key) for d in drafts])
        return cls(len(drafts), values, names)


def _objects(items: Sequence[Any]) -> Objects:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


@dataclass
class Validated:
    """What validation found: the records it keeps (`kept`), every record's row of the point
    table (columns of `table.COLUMNS` but the provenance and the derived ones; a refused
    record's row is not to be read), and every problem found."""

    kept: npt.NDArray[np.intp]
    columns: dict[str, Any]
    problems: list[Problem]


@dataclass
class _Coded:
    """A field's values as each record's index into its distinct values (`codes`), those values,
    whether they are all text, and which of them a record gives (neither None nor blank text)."""

    codes: npt.NDArray[np.intp]
    distinct: Objects
    text: bool
    given: Mask


class _Rows:
    """The records under validation, and what the rules found so far."""

    def __init__(self, drafts: Drafts) -> None:
        self.drafts = drafts
        self.size = drafts.size
        self.failed = np.zeros(self.size, dtype=bool)
        self.problems: list[Problem] = []
        self.step = 0
        self._coded: dict[str, _Coded] = {}
        self._numbers: dict[str, tuple[Floats, dict[int, str]]] = {}
        self._present: dict[str, Mask] = {}
        # what a field no record gives is, as numbers and as values (shared: never written to)
        self.no_numbers = np.full(self.size, np.nan)
        self.no_values = np.full(self.size, None, dtype=object)
        self.no_numbers.setflags(write=False)
        self.no_values.setflags(write=False)

    def coded(self, key: str) -> _Coded:
        """The field's values coded (a field no record gives: one value, None)."""
        if key not in self._coded:
            if key in self.drafts.values:
                codes, distinct = _distinct(self.drafts.values[key], self.drafts.uniform)
            else:
                codes, distinct = np.zeros(self.size, dtype=np.intp), _objects([None])
            text = pd.api.types.infer_dtype(distinct, skipna=False) == "string"
            self._coded[key] = _Coded(codes, distinct, text, _given(distinct, text))
        return self._coded[key]

    def numbers(self, key: str) -> tuple[Floats, dict[int, str]]:
        """The field's distinct values as numbers (read.fields.parse_numbers), and why each that
        is not one is not, by distinct value."""
        if key not in self._numbers:
            coded = self.coded(key)
            self._numbers[key] = parse_numbers(coded.distinct, text=coded.text)
        return self._numbers[key]

    def per_value(self, key: str, rule: Callable[[Any], Any]) -> tuple[Objects, npt.NDArray[np.intp]]:
        """`rule` of each distinct value the records give (None for a value not given), and each
        record's index among them."""
        coded = self.coded(key)
        judged = [rule(v) if given else None for v, given in zip(coded.distinct, coded.given, strict=True)]
        return _objects(judged), coded.codes

    def present(self, key: str) -> Mask:
        """The records that give the field: neither None nor blank text (as PointDraft.set)."""
        if key not in self._present:
            if key in self.drafts.values:
                coded = self.coded(key)
                self._present[key] = coded.given[coded.codes]
            else:
                self._present[key] = np.zeros(self.size, dtype=bool)
        return self._present[key]

    def raw(self, key: str, rows: npt.NDArray[np.intp]) -> list[Any]:
        return [self.drafts.values[key][r] for r in rows.tolist()]

    def names(self, key: str, rows: npt.NDArray[np.intp]) -> list[str]:
        name = self.drafts.names.get(key, key)
        if isinstance(name, str):
            return [name] * len(rows)
        return [str(name[r]) for r in rows.tolist()]

    def refuse(
        self,
        key: str,
        rows: Mask,
        reasons: Callable[[npt.NDArray[np.intp]], Sequence[str]],
        cause: Cause = Cause.OTHER,
    ) -> None:
        """An error for each record of `rows` (the next step's), naming the field as its file
        does; `reasons` words each one's."""
        self.step += 1
        where = np.flatnonzero(rows)
        if len(where) == 0:
            return
        self.failed[where] = True
        for row, name, reason in zip(where.tolist(), self.names(key, where), reasons(where), strict=True):
            self.problems.append((row, self.step, name, reason, cause))

    def refuse_all(self, key: str, rows: Mask, reason: str, cause: Cause = Cause.OTHER) -> None:
        self.refuse(key, rows, lambda where: [reason] * len(where), cause)

    def judge(self, key: str, rule: Callable[[Any], Any]) -> Objects:
        """`rule` (raising ValueError to refuse a value) of each record's value, judged once
        per distinct value: its result, None where not given or refused (an error naming the
        field, the rule's reason)."""
        if key not in self.drafts.values:
            self.step += 1
            return self.no_values
        judged, codes = self.per_value(key, _judged(rule))
        refusals = np.fromiter((isinstance(v, _Refusal) for v in judged), bool, len(judged))
        self.refuse(key, refusals[codes], lambda at: [judged[codes[r]].reason for r in at.tolist()])
        judged[refusals] = None
        return judged[codes]


def _given(distinct: Objects, text: bool) -> Mask:
    """Which values a record gives: neither None nor blank text (PointDraft.set leaves those out)."""
    if text:
        blank: Mask = np.fromiter(map(str.isspace, distinct), bool, len(distinct))
        return np.asarray(distinct != "", dtype=bool) & ~blank
    return np.fromiter(map(_is_given, distinct), bool, len(distinct))


def _is_given(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def _factorize(values: Objects) -> tuple[npt.NDArray[np.intp], Any]:
    """pandas.factorize, but from the first value of each run of equal values where the values
    come in runs (a file written configuration by configuration: fewer to hash), and each value
    on its own where a sample of them is mostly distinct (a measurement: nothing to gain)."""
    if len(values) >= SAMPLE and len(pd.unique(values[:SAMPLE])) * 2 > SAMPLE:
        return np.arange(len(values), dtype=np.intp), values
    starts = np.flatnonzero(np.append(True, values[1:] != values[:-1]))
    if len(starts) * 4 <= len(values):
        codes, uniques = pd.factorize(values[starts])
        return np.repeat(codes, np.diff(np.append(starts, len(values)))), uniques
    return pd.factorize(values)


def _distinct(values: Objects, uniform: bool) -> tuple[npt.NDArray[np.intp], Objects]:
    """Each value's index among the distinct values, and those: by pandas.factorize for a
    column of one type (None last), else by type and value (1, 1.0 and True are three values
    here), each unhashable value (a list) on its own."""
    if uniform:
        try:
            codes, uniques = _factorize(values)
        except (TypeError, ValueError):  # a value that cannot be hashed or compared (a list)
            return _distinct(values, uniform=False)
        distinct = np.asarray(uniques, dtype=object)
        if (codes < 0).any():
            codes[codes < 0] = len(distinct)
            distinct = np.append(distinct, _objects([None]))
        return codes.astype(np.intp, copy=False), distinct
    seen: dict[Hashable, int] = {}
    listed: list[Any] = []
    codes = np.empty(len(values), dtype=np.intp)
    for i, value in enumerate(values.tolist()):
        try:
            key: Hashable = (type(value), value)
            hash(key)
        except TypeError:
            key = ("unhashable", i)
        code = seen.setdefault(key, len(listed))
        if code == len(listed):
            listed.append(value)
        codes[i] = code
    return codes, _objects(listed)


# -- the rules, each over every record at once ---------------------------------------------------


def _number(rows: _Rows, key: str, *, positive: bool, where: Mask | None = None) -> Floats:
    """A number under the numeric rule (files.py): finite, at most LIMIT, never negative, > 0
    where `positive`; NaN where absent or refused. `where`: only these records are judged."""
    present = rows.present(key)
    if where is not None:
        present = present & where
    if key not in rows.drafts.values or not present.any():
        rows.step += 1
        return rows.no_numbers
    out = np.full(rows.size, np.nan)
    coded = rows.coded(key)
    floats, parsed = rows.numbers(key)
    reasons = dict(parsed)
    faults = number_faults(floats, positive=positive, nonnegative=True)
    for i in np.flatnonzero(faults >= 0).tolist():
        reasons.setdefault(i, f"{NUMBER_FAULTS[faults[i]]}, got {excerpt(coded.distinct[i])}")
    refused = np.zeros(len(floats), dtype=bool)
    refused[list(reasons)] = True
    bad = present & refused[coded.codes]
    rows.refuse(key, bad, lambda at: [reasons[c] for c in coded.codes[at].tolist()])
    ok = present & ~bad
    out[ok] = floats[coded.codes[ok]]
    return out


def _count(rows: _Rows, key: str) -> Floats:
    """A whole number ≥ 0 (NaN where absent or refused)."""
    numbers = _number(rows, key, positive=False)
    with np.errstate(invalid="ignore"):
        broken = ~np.isnan(numbers) & (numbers != np.floor(numbers))
    reason = "must be a whole number ≥ 0, got {}"
    rows.refuse(key, broken, lambda at: [reason.format(excerpt(v)) for v in rows.raw(key, at)])
    if broken.any():
        numbers[broken] = np.nan
    return numbers


def _not_zero(rows: _Rows, key: str, numbers: Floats) -> None:
    rows.refuse_all(key, numbers == 0, "must be greater than 0")


def _flag(rows: _Rows, key: str) -> Floats:
    """A flag (read.fields.parse_bool) as a number: 1 true, 0 false, NaN absent or refused."""
    judged = rows.judge(key, parse_bool)
    if judged is rows.no_values:
        return rows.no_numbers
    return np.where(judged == True, 1.0, np.where(judged == False, 0.0, np.nan))  # noqa: E712 (elementwise)


@dataclass(frozen=True)
class _Refusal:
    reason: str


def _judged(rule: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`rule` as a per-value judgement: its result, or a _Refusal where it raises ValueError."""

    def judge(value: Any) -> Any:
        try:
            return rule(value)
        except ValueError as exc:
            return _Refusal(str(exc))

    return judge


def _identifiers(rows: _Rows) -> None:
    """The configuration's names are text (files.identifier: printable, short)."""
    for key in TEXT_FIELDS:
        rows.judge(key, identifier)


def _required(rows: _Rows) -> None:
    reason = "missing: every point needs " + ", ".join(IDENTITY_FIELDS)
    for key in IDENTITY_FIELDS:
        rows.refuse_all(key, ~rows.present(key), reason, Cause.MISSING)


def _latencies(rows: _Rows) -> dict[str, Floats]:
    """Each latency statistic in seconds (NaN where not given): from milliseconds as written
    (`median_tpot_ms`), or from seconds a reader converted (`tpot_median`); never negative.
    Median TPOT in milliseconds is held to its rule by `_tpot`, and kept here unless negative."""
    found = {}
    for metric in LATENCY_METRICS:
        for stat, name in LATENCY_STATS.items():
            ms_field, column = latency_ms_field(metric, stat), f"{metric}_{name}"
            if (metric, stat) == ("tpot", "median"):
                seconds, _ = _parsed_quietly(rows, ms_field)
                seconds[seconds < 0] = np.nan
            else:
                seconds = _number(rows, ms_field, positive=False)
                seconds = seconds if seconds is rows.no_numbers else seconds / 1000.0
            given = _number(rows, column, positive=False)
            if given is not rows.no_numbers:
                seconds = np.where(np.isnan(seconds), given, seconds)
            found[column] = seconds
    return found


def _parsed_quietly(rows: _Rows, key: str) -> tuple[Floats, Callable[[int], str | None]]:
    """A number in milliseconds as seconds (NaN where absent or not a number), and why a
    record's value is not a number (None where it is one): for a rule judged later (`_tpot`)."""
    out = np.full(rows.size, np.nan)
    if key not in rows.drafts.values:
        return out, lambda row: None
    present = rows.present(key)
    coded = rows.coded(key)
    floats, reasons = rows.numbers(key)
    out[present] = floats[coded.codes[present]] / 1000.0
    return out, lambda row: reasons.get(int(coded.codes[row]))


@dataclass
class _Measured:
    """A record's interactivity and where it came from ("tpot", "stated", "derived"), and the
    field it is named by should the point refuse it."""

    value: Floats
    source: Objects
    named_by: Objects


def _tpot(rows: _Rows) -> tuple[Mask, Floats]:
    """Median TPOT in seconds, > 0: from milliseconds as written, or seconds a reader gives."""
    ms_field = latency_ms_field("tpot", "median")
    seconds, unread = _parsed_quietly(rows, ms_field)
    from_ms = rows.present(ms_field)
    bad = from_ms & ~(seconds > 0)
    rows.refuse(
        ms_field,
        bad,
        lambda at: [
            unread(r) or f"must be greater than 0, got {excerpt(float(seconds[r]))}" for r in at.tolist()
        ],
    )
    seconds[bad] = np.nan
    stated = _number(rows, "median_tpot_s", positive=True, where=~from_ms)
    has = from_ms | rows.present("median_tpot_s")
    return has, np.where(from_ms, seconds, stated)


def _interactivity(rows: _Rows, output: Floats, gpu_count: Floats, concurrency: Floats) -> _Measured:
    """1 / median TPOT; else a stated value; else output tok/s ÷ concurrency (× the GPUs that
    produce output), marked derived; else an error."""
    has_tpot, tpot = _tpot(rows)
    ms_field = latency_ms_field("tpot", "median")
    has_stated = rows.present("interactivity") & ~has_tpot
    stated = _number(rows, "interactivity", positive=True, where=has_stated)
    output_gpus = _output_gpus(rows, gpu_count)
    with np.errstate(divide="ignore", invalid="ignore"):
        derived = output * output_gpus / concurrency
    can_derive = ~has_tpot & ~has_stated & ~np.isnan(output) & (gpu_count > 0) & (concurrency > 0)
    rows.refuse_all(
        "median_tpot_s",
        ~has_tpot & ~has_stated & ~can_derive,
        "missing: need median TPOT, a stated interactivity, or output throughput with GPU count "
        "and concurrency to derive it",
        Cause.MISSING,
    )
    with np.errstate(divide="ignore"):
        value = np.where(has_tpot, 1.0 / tpot, np.where(has_stated, stated, derived))
    source = _labelled(rows.size, "derived", (has_stated, "stated"), (has_tpot, "tpot"))
    named_by = _labelled(
        rows.size, "interactivity", (has_tpot, "median_tpot_s"), (rows.present(ms_field), ms_field)
    )
    return _Measured(value, source, named_by)


def _labelled(size: int, otherwise: str, *where: tuple[Mask, str]) -> Objects:
    """A text per record: the last of `where` that holds for it, else `otherwise`."""
    out = np.full(size, otherwise, dtype=object)
    for mask, text in where:
        out[mask] = text
    return out


def _output_gpus(rows: _Rows, gpu_count: Floats) -> Floats:
    """The GPUs that produce output tokens, as the reader counted them (else all of them)."""
    given = rows.present("output_gpu_count")
    if not given.any():
        return gpu_count
    counts = rows.drafts.values["output_gpu_count"]
    return np.array([float(counts[r]) if given[r] else gpu_count[r] for r in range(rows.size)])


def _power(rows: _Rows) -> dict[str, Floats]:
    """Average watts per GPU, > 0; the energy per token only where the watts are sound."""
    watts = _number(rows, "avg_power_w", positive=True)
    measured = ~np.isnan(watts)
    return {
        "avg_watts_per_gpu": watts,
        "joules_per_total_token": _number(rows, "joules_per_total_token", positive=True, where=measured),
        "joules_per_output_token": _number(rows, "joules_per_output_token", positive=True, where=measured),
    }


def _lengths(rows: _Rows) -> dict[str, Floats]:
    """The measured mean lengths (> 0) and the range ratio nominal lengths were drawn from
    (0 ≤ ratio ≤ 1: lengths from [ratio × nominal, nominal], at least 1 token)."""
    ratio = _number(rows, "random_range_ratio", positive=False)
    too_wide = ratio > 1
    if too_wide.any():
        rows.refuse_all(
            "random_range_ratio",
            too_wide,
            "must be at most 1 (lengths drawn from ratio × nominal to nominal)",
        )
        ratio = np.where(too_wide, np.nan, ratio)
    return {
        "isl_mean": _number(rows, "isl_mean", positive=True),
        "osl_mean": _number(rows, "osl_mean", positive=True),
        "random_range_ratio": ratio,
    }


def _topology(rows: _Rows) -> dict[str, Any]:
    """Flags, parallelism and the disaggregated roles, in the order they are judged."""
    found: dict[str, Any] = {key: _flag(rows, key) for key in ("disagg", "multinode")}
    found |= {key: _count(rows, key) for key in ("tp", "ep", "pp")}
    found["dp_attention"] = _flag(rows, "dp_attention")
    for role in ROLES:
        found |= {f"{role}_{key}": _count(rows, f"{role}_{key}") for key in GROUP_KEYS}
        found[f"{role}_dp_attention"] = _flag(rows, f"{role}_dp_attention")
    return found


def _normalised(rows: _Rows) -> dict[str, Objects]:
    """The configuration's names normalised (read.fields), each held to the identifier rule
    again, for the records still sound; a name the rule refuses now is the configuration's
    error. Judged once per distinct name as written."""
    found = {}
    for key in TEXT_FIELDS:
        judged, codes = rows.per_value(key, functools.partial(_renamed_as_written, key))
        if key == "spec_method":  # not given: "none"
            judged[judged == None] = _renamed(key, None)  # noqa: E711 (elementwise)
        refusals = np.fromiter((isinstance(v, _Refusal) for v in judged), bool, len(judged))
        rows.refuse(key, refusals[codes] & ~rows.failed, functools.partial(_reasons, judged, codes))
        found[key] = judged[codes]
    return found


def _reasons(judged: Objects, codes: npt.NDArray[np.intp], rows: npt.NDArray[np.intp]) -> list[str]:
    """The reasons of these records' refused values (_Refusal), judged per distinct value."""
    return [judged[codes[row]].reason for row in rows.tolist()]


def coded_distinct(values: Objects, rule: Callable[[Any], Any]) -> tuple[npt.NDArray[np.intp], Objects]:
    """`rule` of each distinct value (text, or None), and each value's index among them."""
    codes, uniques = pd.factorize(values)  # None: -1, judged last
    judged = [rule(v) for v in uniques]
    if (codes < 0).any():
        judged.append(rule(None))
    return codes, _objects(judged)


def each_distinct(values: Objects, rule: Callable[[Any], Any]) -> Objects:
    """`rule` of each value (text, or None), worked out once per distinct value."""
    codes, judged = coded_distinct(values, rule)
    return judged[codes]


def _renamed_as_written(key: str, written: Any) -> Any:
    """`_renamed` of a name as written (None for one the identifier rule refused already)."""
    try:
        name = identifier(written)
    except ValueError:
        return None
    return _renamed(key, name)


def _renamed(key: str, name: Any) -> Any:
    """A name normalised and held to the identifier rule (a spec_method not given: "none")."""
    try:
        return identifier(NORMALISED[key](name))
    except ValueError as exc:
        return _Refusal(f"Value error, {exc}")


def _sound_interactivity(rows: _Rows, measured: _Measured) -> None:
    """The point's interactivity under the numeric rule (> 0), named by the field it came from."""
    faults = np.where(rows.failed, -1, number_faults(measured.value, positive=True))
    reason = "Value error, {}, got {}"
    for named in dict.fromkeys(measured.named_by[faults >= 0].tolist()):
        rows.refuse(
            str(named),
            (faults >= 0) & (measured.named_by == named),
            lambda at: [
                reason.format(NUMBER_FAULTS[faults[r]], excerpt(float(measured.value[r]))) for r in at
            ],
        )


def validate(drafts: Drafts) -> Validated:
    """Every rule, in the order a record's problems are reported; the sound records' rows."""
    rows = _Rows(drafts)
    latency = _latencies(rows)
    # a bad latency statistic drops its record but, like a problem its reader found, does not
    # keep its configuration and interactivity from being judged (their errors are reported too)
    bad_latency, rows.failed = rows.failed, np.zeros(rows.size, dtype=bool)
    _required(rows)
    _identifiers(rows)
    labels = rows.judge("workload", check_label)  # a variable-length dataset's name (workload.py)
    counts = {key: _count(rows, key) for key in ("isl", "osl", "concurrency")}
    for key, numbers in counts.items():
        _not_zero(rows, key, numbers)
    throughput = _number(rows, "throughput_per_gpu", positive=True)
    rows.refuse_all(
        "throughput_per_gpu",
        ~rows.present("throughput_per_gpu"),
        "missing: total throughput per GPU is required",
        Cause.MISSING,
    )
    output = _number(rows, "output_throughput_per_gpu", positive=True)
    input_tput = _number(rows, "input_throughput_per_gpu", positive=False)
    gpu_count = _count(rows, "gpu_count")
    _not_zero(rows, "gpu_count", gpu_count)
    measured = _interactivity(rows, output, gpu_count, counts["concurrency"])
    power = _power(rows)
    lengths = _lengths(rows)
    topology = _topology(rows)
    names = _normalised(rows)
    _sound_interactivity(rows, measured)
    columns: dict[str, Any] = {**names, **counts, **topology, **latency, **power, **lengths}
    columns |= {
        "workload": labels,
        "gpu_count": gpu_count,
        "throughput_per_gpu": throughput,
        "output_throughput_per_gpu": output,
        "input_throughput_per_gpu": input_tput,
        "interactivity": measured.value,
        "interactivity_source": measured.source,
        # "output" where the source has only output tok/s (MLPerf, or a native file saying so)
        "throughput_basis": rows.judge("throughput_basis", _basis),
    }
    given = {key: values for key, values in columns.items() if not _nothing(rows, values)}
    return Validated(np.flatnonzero(~rows.failed & ~bad_latency), given, rows.problems)


THROUGHPUT_BASES = ("total", "output")


def _basis(value: Any) -> str:
    """What a point's throughput_per_gpu counts: total tokens (the default) or output tokens
    only, as a source that records no input tokens gives it (MLPerf)."""
    if value not in THROUGHPUT_BASES:
        raise ValueError(f"must be one of {', '.join(THROUGHPUT_BASES)}, got {excerpt(value)}")
    return str(value)


def _nothing(rows: _Rows, values: Any) -> bool:
    """A column no record gives (left out of the table's part: not given in its rows)."""
    return (
        values is rows.no_numbers
        or values is rows.no_values
        or (values.dtype == np.float64 and np.isnan(values).all())
    )
