"""What every reader shares: a record's draft, the context its problems are named in, and the
coercions and name normalisations a reader applies before the one validation (validate_rows.py).

A reader maps its format onto a `PointDraft`: our field -> the value as written, plus the name
that field has in the user's file, so every problem names the field as the user wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from site_builder.files import MAX_NUMBER_CHARS, NUMBER_FAULTS, excerpt, number_faults
from site_builder.problems import Cause, ProblemLog, Severity, suggest

_HARDWARE_SUFFIXES = (
    "-trt",
    "-multinode-slurm",
    "-multinode",
    "-nvs",
    "-disagg",
    "-amds",
    "-amd",
    "-nvd",
    "-dgxc-slurm",
    "-dgxc",
    "-nb",
    "-nv",
)
_PRECISION_ALIASES = {"nvfp4": "fp4", "mxfp4": "fp4", "bfloat16": "bf16", "w4a16": "int4"}
_FRAMEWORK_ALIASES = {"trtllm": "trt", "dynamo-trtllm": "dynamo-trt"}
_MODEL_PATHS = {
    "deepseek-ai/deepseek-r1-0528": "dsr1",
    "deepseek-ai/deepseek-r1": "dsr1",
    "nvidia/deepseek-r1-0528-fp4-v2": "dsr1",
    "nvidia/deepseek-r1-0528-fp4": "dsr1",
    "amd/deepseek-r1-0528-mxfp4": "dsr1",
    "openai/gpt-oss-120b": "gptoss120b",
    "moonshotai/kimi-k2.5": "kimik2.5",
    "qwen/qwen3.5-397b-a17b": "qwen3.5",
}
_PREFIX_ALIASES = {"gptoss": "gptoss120b"}
LATENCY_METRICS = ("ttft", "tpot", "itl", "e2el")
LATENCY_STATS = {
    "mean": "mean",
    "median": "median",
    "std": "std",
    "p90": "p90",
    "p99": "p99",
    "p99.9": "p99_9",
}
# a flag written as text, lower case: its value
_BOOLEAN_TEXT = {
    **dict.fromkeys(("true", "1", "yes", "y", "t"), True),
    **dict.fromkeys(("false", "0", "no", "n", "f", ""), False),
}
_SEQ_IN_NAME = re.compile(r"(\d+)k(\d+)k", re.IGNORECASE)
Floats = npt.NDArray[np.float64]


def parse_bool(value: Any) -> bool:
    """true / "true" / "True" / 1 / "1" / "yes" -> True, and the like for False."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    found = _BOOLEAN_TEXT.get(value.strip().lower()) if isinstance(value, str) else None
    if found is not None:
        return found
    raise ValueError(f"{excerpt(value)} is not a boolean (true/false)")


def parse_numbers(values: npt.NDArray[np.object_], *, text: bool = False) -> tuple[Floats, dict[int, str]]:
    """The number each value holds, the way a file may write one: a number, or text that reads
    as one (Python's `float`: ' 8 ', '1e3', '1_000'; at most MAX_NUMBER_CHARS long), held to the
    numeric rule's finite part (files.number_faults). NaN, and the reason by position, where a
    value is not such a number. `text`: every value is known to be text (a CSV column)."""
    floats = np.full(len(values), np.nan)
    reasons: dict[int, str] = {}
    kinds = np.zeros(len(values), np.int8) if text else np.array([_kind(v) for v in values], np.int8)
    is_text = kinds == 0
    unread = np.zeros(len(values), bool)
    if is_text.any():
        floats[is_text], unread[is_text] = _text_floats(values[is_text])
    numbers = kinds == 1
    if numbers.any():
        floats[numbers] = [_float(v) for v in values[numbers]]
    for i in np.flatnonzero(unread | (kinds > 1)).tolist():
        value = values[i]
        reasons[i] = (
            f"{value!r} is a boolean, not a number" if kinds[i] == 2 else f"{excerpt(value)} is not a number"
        )
    faults = number_faults(floats)
    for i in np.flatnonzero(faults >= 0).tolist():
        reasons.setdefault(i, f"{NUMBER_FAULTS[faults[i]]}, got {excerpt(values[i])}")
    floats[list(reasons)] = np.nan
    return floats, reasons


def _kind(value: Any) -> int:
    """0 text, 1 a number, 2 a boolean (a number to Python, never to us), 3 anything else."""
    if isinstance(value, str):
        return 0
    if isinstance(value, bool):
        return 2
    return 1 if isinstance(value, int | float) else 3


def _float(number: float) -> float:
    """A number as a float: an integer too long for one (only code writes those) as infinite."""
    return float(number) if isinstance(number, float) or abs(number) < 10**300 else np.inf


def _text_floats(texts: npt.NDArray[np.object_]) -> tuple[Floats, npt.NDArray[np.bool_]]:
    """Python's `float` of each text, and which texts it cannot read (or are too long to be a
    number); in one call where every text reads."""
    unread = np.fromiter(map(len, texts), np.int64, len(texts)) > MAX_NUMBER_CHARS
    out = np.full(len(texts), np.nan)
    short = ~unread
    try:
        out[short] = texts[short].astype(np.float64)
    except (ValueError, OverflowError):
        for i in np.flatnonzero(short).tolist():
            try:
                out[i] = float(texts[i])
            except ValueError:
                unread[i] = True
    return out, unread


def parse_number(value: Any) -> float:
    """One value as `parse_numbers` reads it; raises ValueError naming the value (a short
    excerpt) where it is not a number."""
    cells = np.empty(1, dtype=object)
    cells[0] = value
    floats, reasons = parse_numbers(cells)
    if reasons:
        raise ValueError(reasons[0])
    return float(floats[0])


def as_mapping(value: Any) -> Mapping[str, Any]:
    """A nested block of a client's file, or an empty one when the file lacks it or garbles it."""
    return value if isinstance(value, Mapping) else {}


def at_path(record: Mapping[str, Any], dotted: str) -> Any:
    """The value at a dotted path of a client's record ('input_config.input.fixed_schedule'),
    None where a step is missing."""
    value: Any = record
    for step in dotted.split("."):
        value = as_mapping(value).get(step)
    return value


def optional_number(value: Any) -> float | None:
    """A figure a file may lack or garble, for statistics that are only shown: None then."""
    try:
        return parse_number(value)
    except ValueError:
        return None


def positive_number(value: Any) -> float | None:
    """A setting a file may lack or garble, used only where it is a number greater than 0."""
    try:
        number = parse_number(value)
    except ValueError:
        return None
    return number if number > 0 else None


EMPTY_CELLS = ("", "N/A", "NA")  # what a file writes for "not measured"


def is_empty(value: Any) -> bool:
    """A field left empty: absent, blank, or one of EMPTY_CELLS."""
    return value is None or (isinstance(value, str) and value.strip().upper() in EMPTY_CELLS)


def read_number(
    value: Any,
    name: str,
    ctx: RecordContext,
    *,
    required: bool = False,
    positive: bool = False,
    whole: bool = False,
    hint: str = "",
) -> float | None:
    """One field as a number under the numeric rule (parse_number), or None when it is empty
    ("", "N/A") or bad; a bad or missing required value is logged naming file, record and field."""
    if is_empty(value):
        if required:
            ctx.missing(name, "missing")
        return None
    try:
        number = parse_number(value)
    except ValueError as exc:
        ctx.error(name, str(exc))
        return None
    if whole and number != int(number):
        ctx.error(name, f"must be a whole number, got {excerpt(value)}")
        return None
    if positive and number <= 0:
        ctx.error(name, f"must be greater than 0, got {excerpt(value)}{hint}")
        return None
    return number


def normalise_hardware(value: str) -> str:
    key = value.strip().lower()
    if key.startswith("cluster:"):
        key = key.split(":", 1)[1]
    return _without_suffixes(re.sub(r"_\d+$", "", key), _HARDWARE_SUFFIXES)


def _without_suffixes(key: str, suffixes: tuple[str, ...]) -> str:
    """`key` with each of these suffixes it ends with, in turn, cut off."""
    for suffix in suffixes:
        key = key.removesuffix(suffix)
    return key


def normalise_precision(value: str) -> str:
    key = value.strip().lower()
    return _PRECISION_ALIASES.get(key, key)


def normalise_framework(value: str) -> tuple[str, bool | None]:
    """Framework key, and disagg=True where the name itself says so."""
    key = value.strip().lower()
    if key == "sglang-disagg":
        return "mori-sglang", True
    return _FRAMEWORK_ALIASES.get(key, key), None


def normalise_spec_method(value: Any) -> str:
    if value is None:
        return "none"
    text = str(value).strip().lower()
    return text or "none"


def normalise_model(prefix: Any, model_path: Any) -> Any:
    """The model key from an InferenceX prefix, or failing that from a known HF path; a value
    that is not text is returned as it is, for finish_point to refuse naming the field."""
    if prefix and not isinstance(prefix, str):
        return prefix
    if model_path and not isinstance(model_path, str):
        return None if prefix else model_path
    if prefix:
        key = _without_suffixes(prefix.strip().lower(), ("-fp4", "-fp8", "-mxfp4", "-nvfp4"))
        return _PREFIX_ALIASES.get(key, key)
    if model_path:
        path = model_path.strip().lower()
        tail = "/".join(path.rstrip("/").split("/")[-2:])  # a local copy's path: its last two parts
        return _MODEL_PATHS.get(path, _MODEL_PATHS.get(tail))
    return None


def sequence_from_name(name: str) -> tuple[int, int] | None:
    """'..._1k8k_...' -> (1024, 8192), the fallback for rows written without isl/osl."""
    match = _SEQ_IN_NAME.search(name)
    if not match:
        return None
    return int(match.group(1)) * 1024, int(match.group(2)) * 1024


def date_from_stamp(stamp: Any) -> str | None:
    """'20260314-193625' or '2026-03-14...' -> '2026-03-14'."""
    if not isinstance(stamp, str):
        return None
    if re.fullmatch(r"\d{8}-\d{6}", stamp):
        return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}"
    if re.match(r"\d{4}-\d{2}-\d{2}", stamp):
        return stamp[:10]
    return None


@dataclass
class RecordContext:
    """Where a record sits, so every problem names file and record."""

    file: str
    record: str
    log: ProblemLog

    def error(self, field_name: str, reason: str) -> None:
        self.log.add(self.file, self.record, field_name, reason, Severity.ERROR)

    def missing(self, field_name: str, reason: str) -> None:
        """An error that a field that must be given is not (Cause.MISSING: said once for every
        record that lacks it alike, where the loader groups them)."""
        self.log.add(self.file, self.record, field_name, reason, Severity.ERROR, Cause.MISSING)

    def warning(self, field_name: str, reason: str) -> None:
        self.log.add(self.file, self.record, field_name, reason, Severity.WARNING)

    def notice(self, field_name: str, reason: str) -> None:
        self.log.add(self.file, self.record, field_name, reason, Severity.NOTICE)

    def unknown_fields(self, keys: Iterable[str], known: Collection[str]) -> None:
        """An error for each of these keys the format lacks, suggesting the nearest it has."""
        for key in keys:
            if key not in known:
                self.error(key, "unknown field" + suggest(key, known))


def objects(
    records: Iterable[tuple[str, Any]], context: Callable[[str], RecordContext]
) -> Iterator[tuple[str, Mapping[str, Any], RecordContext]]:
    """The records that are objects, each with its context; any other is an error naming it."""
    for label, row in records:
        ctx = context(label)
        if isinstance(row, Mapping):
            yield label, row, ctx
        else:
            ctx.error("", "not an object")


@dataclass
class PointDraft:
    """Our field names -> values as written, remembering what each was called in the source file.

    Latency a file gives in milliseconds is kept as written, under the native column's name
    (`median_tpot_ms`: add_latencies_ms); latency a reader has converted to seconds, under the
    point table's (`tpot_median`: add_latency). validate_rows.py holds both to the rules."""

    values: dict[str, Any] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def set(self, ours: str, value: Any, theirs: str) -> None:
        if value is None or (isinstance(value, str) and value.strip() == ""):
            return
        self.values[ours] = value
        self.names[ours] = theirs

    def take(self, source: Mapping[str, Any], mapping: Mapping[str, str], prefix: str = "") -> None:
        """Copy `source[theirs]` into our field for each (ours, theirs) of the mapping."""
        for ours, theirs in mapping.items():
            self.set(ours, source.get(theirs), prefix + theirs)

    def name(self, ours: str) -> str:
        return self.names.get(ours, ours)

    def add_latency(self, metric: str, stat: str, seconds: float | None, theirs: str) -> None:
        """A latency statistic in seconds (`stat` as LATENCY_STATS names it), named as the file
        does; None, where the file lacks it, sets nothing."""
        self.set(f"{metric}_{LATENCY_STATS[stat]}", seconds, theirs)


def latency_ms_field(metric: str, stat: str) -> str:
    """A latency statistic written in milliseconds, as the native format names it: 'p99.9_ttft_ms'."""
    return f"{stat}_{metric}_ms"


def add_latencies_ms(
    draft: PointDraft, raw: Mapping[str, Any], names: Mapping[str, str] | None = None
) -> None:
    """Copy `{stat}_{metric}_ms` fields (milliseconds) as written; `names` maps our metric to the
    file's where they differ. Median TPOT also gives interactivity (validate_rows.py)."""
    for metric in LATENCY_METRICS:
        name = (names or {}).get(metric, metric)
        for stat in LATENCY_STATS:
            theirs = latency_ms_field(name, stat)
            draft.set(latency_ms_field(metric, stat), raw.get(theirs), theirs)


SEQUENCE_TOLERANCE = 0.05  # metadata ISL/OSL may differ this much from what the file says


@dataclass(frozen=True)
class Stated:
    """A number a client file gives for a field, and how to name it in a message."""

    value: float
    name: str


def sequence_length(
    draft: PointDraft,
    ours: str,
    given: tuple[int | None, str],
    stated: Stated | None,
    measured: Stated | None,
    ctx: RecordContext,
    range_ratio: float | None = None,
    labelled: bool = False,
) -> None:
    """ISL or OSL: the metadata's, checked against the file; else the file's setting; else its mean.

    `stated` is the length the client was asked for (its dataset setting), `measured` the mean
    over completed requests (token totals ÷ requests). A metadata value more than
    SEQUENCE_TOLERANCE away from the file is an error, except that a mean output length below the
    stated OSL is accepted: outputs may end early (end of sequence) unless the client ignored
    it, which the load says once per folder for every format (read/short_outputs.py). With
    `range_ratio` (lengths drawn from [ratio × nominal, nominal], as InferenceX's and SGLang's
    `--random-range-ratio` do) the metadata's value is the nominal length, accepted when the
    mean falls in that range. A value taken from the means is a notice. The mean and
    the range travel with the point (`isl_mean`, `osl_mean`, `random_range_ratio`): a page says
    where a workload's lengths differ from its nominal label. A run whose metadata names its
    workload (`labelled`: sharegpt) is grouped by that name, so its means need no notice.
    """
    meta_value, meta_name = given
    if measured is not None:
        draft.set(f"{ours}_mean", measured.value, measured.name)
    if range_ratio is not None:
        draft.set("random_range_ratio", range_ratio, "random_range_ratio")
    if meta_value is not None:
        if not _fits(ours, meta_value, stated, measured, ctx, meta_name, range_ratio):
            return
        draft.set(ours, meta_value, meta_name)
        return
    if stated is not None:
        draft.set(ours, round(stated.value), stated.name)
        return
    if measured is not None and measured.value > 0:
        value = round(measured.value)
        draft.set(ours, value, measured.name)
        if not labelled:
            ctx.notice(
                measured.name,
                f"{ours} {value} derived from the file ({measured.name} = {measured.value:.6g}); "
                f"give {ours} in the metadata file to state it, or, for runs over a variable-length "
                "dataset, `workload: <name>` (e.g. sharegpt) to make them one curve",
            )


def short_output_share(nominal: int, mean: float, range_ratio: float | None) -> float | None:
    """How far short of the nominal output length a measured mean output falls (a share of the
    nominal), where it falls below the lowest length it could be drawn from ([ratio × nominal,
    nominal], at least 1 token; the nominal itself without a ratio) by more than
    SEQUENCE_TOLERANCE; else None. The one rule for a point (read/short_outputs.py) and a side
    (present/narrate.py)."""
    lowest = max(1.0, nominal * (1.0 if range_ratio is None else range_ratio))
    if nominal <= 0 or mean >= lowest * (1 - SEQUENCE_TOLERANCE):
        return None
    return 1 - mean / nominal


def _fits(
    ours: str,
    nominal: int,
    stated: Stated | None,
    measured: Stated | None,
    ctx: RecordContext,
    meta_name: str,
    range_ratio: float | None,
) -> bool:
    """Whether the metadata's nominal length agrees with the file (logged where it does not):
    with the client's own setting within SEQUENCE_TOLERANCE; with the mean, within the range the
    lengths were drawn from (`range_ratio`), else within SEQUENCE_TOLERANCE of the nominal. The
    distance is said as a share of the nominal length."""
    reference = stated or measured
    if reference is None or reference.value <= 0:
        return True
    drawn = stated is None and range_ratio is not None  # from [ratio × nominal, nominal]
    lowest = max(1.0, nominal * range_ratio) if drawn and range_ratio is not None else float(nominal)
    if lowest * (1 - SEQUENCE_TOLERANCE) <= reference.value <= nominal * (1 + SEQUENCE_TOLERANCE):
        return True
    off = (reference.value - nominal) / nominal
    side = "below" if off < 0 else "above"
    said = f"{reference.name} = {reference.value:.6g}, {abs(off):.0%} {side} the nominal {nominal}"
    if drawn:
        said += f", outside {round(lowest)}–{nominal}, the range of random_range_ratio {range_ratio:g}"
    if stated is None and ours == "osl" and off < 0:
        return True  # outputs that stop at end-of-sequence are shorter: said once per folder (short_outputs)
    hint = ""
    if stated is None and off < 0 and range_ratio is None:
        hint = (
            "; if the client drew lengths from a range (--random-range-ratio), give random_range_ratio "
            "in the metadata file"
        )
    ctx.error(meta_name, f"{nominal} contradicts the result file ({said}){hint}")
    return False
