"""Coercions and the one place where a loader's draft becomes a validated BenchmarkPoint.

Every loader maps its format onto a `PointDraft` (our field -> value, plus the name that field
has in the user's file) and calls `finish_point`, so every format gets the same checks and
every error names the field as the user wrote it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from site_builder.files import MAX_NUMBER_CHARS, excerpt, identifier, sane_number
from site_builder.points import (
    BenchmarkPoint,
    Configuration,
    InteractivitySource,
    LatencyStats,
    Power,
    Provenance,
    WorkerGroup,
)
from site_builder.problems import ProblemLog, Severity

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
LATENCY_METRICS = ("ttft", "tpot", "itl", "e2el")
LATENCY_STATS = {
    "mean": "mean",
    "median": "median",
    "std": "std",
    "p90": "p90",
    "p99": "p99",
    "p99.9": "p99_9",
}
_SEQ_IN_NAME = re.compile(r"(\d+)k(\d+)k", re.IGNORECASE)


def parse_bool(value: Any) -> bool:
    """true / "true" / "True" / 1 / "1" / "yes" -> True, and the like for False."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "1", "yes", "y", "t"):
            return True
        if text in ("false", "0", "no", "n", "f", ""):
            return False
    raise ValueError(f"{excerpt(value)} is not a boolean (true/false)")


def parse_number(value: Any) -> float:
    """A number or numeric string, held to the numeric rule (sane_number): finite and at
    most LIMIT in size; raises ValueError naming the value (a short excerpt) otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is a boolean, not a number")
    number: float | None = None
    if isinstance(value, int | float):
        number = float(value) if isinstance(value, float) or abs(value) < 10**300 else math.inf
    elif isinstance(value, str) and len(value) <= MAX_NUMBER_CHARS:
        with contextlib.suppress(ValueError):
            number = float(value.strip())
    if number is None:
        raise ValueError(f"{excerpt(value)} is not a number")
    return sane_number(number, written=value)


def as_mapping(value: Any) -> Mapping[str, Any]:
    """A nested block of a client's file, or an empty one when the file lacks it or garbles it."""
    return value if isinstance(value, Mapping) else {}


def optional_number(value: Any) -> float | None:
    """A figure a file may lack or garble, for statistics that are only shown: None then."""
    if value is None:
        return None
    try:
        return parse_number(value)
    except ValueError:
        return None


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
            ctx.error(name, "missing")
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


@functools.lru_cache(maxsize=4096)  # pure, and asked of every configuration
def normalise_hardware(value: str) -> str:
    key = value.strip().lower()
    if key.startswith("cluster:"):
        key = key.split(":", 1)[1]
    key = re.sub(r"_\d+$", "", key)
    for suffix in _HARDWARE_SUFFIXES:
        if key.endswith(suffix):
            key = key[: -len(suffix)]
    return key


@functools.lru_cache(maxsize=4096)  # pure, and asked of every configuration
def normalise_precision(value: str) -> str:
    key = value.strip().lower()
    return _PRECISION_ALIASES.get(key, key)


@functools.lru_cache(maxsize=4096)  # pure, and asked of every configuration
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
        key = prefix.strip().lower()
        for suffix in ("-fp4", "-fp8", "-mxfp4", "-nvfp4"):
            if key.endswith(suffix):
                key = key[: -len(suffix)]
        return "gptoss120b" if key == "gptoss" else key
    if model_path:
        path = model_path.strip().lower()
        if path in _MODEL_PATHS:
            return _MODEL_PATHS[path]
        tail = "/".join(path.rstrip("/").split("/")[-2:])
        return _MODEL_PATHS.get(tail)
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

    def warning(self, field_name: str, reason: str) -> None:
        self.log.add(self.file, self.record, field_name, reason, Severity.WARNING)

    def notice(self, field_name: str, reason: str) -> None:
        self.log.add(self.file, self.record, field_name, reason, Severity.NOTICE)


@dataclass
class PointDraft:
    """Our field names -> values, remembering what each was called in the source file."""

    values: dict[str, Any] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    latency_seconds: dict[str, dict[str, float]] = field(default_factory=dict)

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

    def add_latency(self, metric: str, stat: str, seconds: float) -> None:
        self.latency_seconds.setdefault(metric, {})[LATENCY_STATS[stat]] = seconds


def add_latencies_ms(
    draft: PointDraft,
    raw: Mapping[str, Any],
    ctx: RecordContext,
    names: Mapping[str, str] | None = None,
) -> None:
    """Copy `{stat}_{metric}_ms` fields (milliseconds) as seconds; median TPOT feeds interactivity."""
    for metric in LATENCY_METRICS:
        name = (names or {}).get(metric, metric)
        for stat in LATENCY_STATS:
            key = f"{stat}_{name}_ms"
            value = raw.get(key)
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            try:
                seconds = parse_number(value) / 1000.0
            except ValueError as exc:
                if (metric, stat) == ("tpot", "median"):
                    draft.set("median_tpot_s", value, key)  # finish_point reports it, once
                else:
                    ctx.error(key, str(exc))
                continue
            if (metric, stat) == ("tpot", "median"):
                draft.set("median_tpot_s", seconds, key)  # held to > 0 by finish_point
            if seconds < 0:
                if (metric, stat) != ("tpot", "median"):
                    ctx.error(key, f"must not be negative, got {excerpt(value)}")
                continue
            draft.add_latency(metric, stat, seconds)


def _number(draft: PointDraft, key: str, ctx: RecordContext, *, positive: bool) -> float | None:
    """The numeric rule for one field: positive where it must be, never negative."""
    if key not in draft.values:
        return None
    try:
        value = parse_number(draft.values[key])
        return sane_number(value, positive=positive, nonnegative=True, written=draft.values[key])
    except ValueError as exc:
        ctx.error(draft.name(key), str(exc))
        return None


def _integer(draft: PointDraft, key: str, ctx: RecordContext) -> int | None:
    value = _number(draft, key, ctx, positive=False)
    if value is None:
        return None
    if value != int(value) or value < 0:
        ctx.error(draft.name(key), f"must be a whole number ≥ 0, got {excerpt(draft.values[key])}")
        return None
    return int(value)


def _bool(draft: PointDraft, key: str, ctx: RecordContext) -> bool | None:
    if key not in draft.values:
        return None
    try:
        return parse_bool(draft.values[key])
    except ValueError as exc:
        ctx.error(draft.name(key), str(exc))
        return None


def _group(draft: PointDraft, role: str, ctx: RecordContext) -> WorkerGroup | None:
    keys = ("tp", "ep", "workers", "gpus")
    values = {k: _integer(draft, f"{role}_{k}", ctx) for k in keys}
    dpa = _bool(draft, f"{role}_dp_attention", ctx)
    if all(v is None for v in values.values()) and dpa is None:
        return None
    return WorkerGroup(dp_attention=dpa, **values)


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
) -> None:
    """ISL or OSL: the metadata's, checked against the file; else the file's setting; else its mean.

    `stated` is the length the client was asked for (its dataset setting), `measured` the mean
    over completed requests (token totals ÷ requests). A metadata value more than
    SEQUENCE_TOLERANCE away from the file is an error, except that a mean output length below the
    stated OSL is only a warning: outputs may end early (end of sequence) unless the client
    ignored it. A value taken from the means is a notice.
    """
    meta_value, meta_name = given
    if meta_value is not None:
        reference = stated or measured
        if reference is not None and reference.value > 0:
            off = (reference.value - meta_value) / reference.value
            if abs(off) > SEQUENCE_TOLERANCE:
                said = f"{reference.name} = {reference.value:.6g}, {abs(off):.0%} from {meta_value}"
                if stated is None and ours == "osl" and off < 0:
                    ctx.warning(
                        meta_name,
                        f"requests produced fewer output tokens than {meta_value} ({said}): "
                        "outputs ended early; was end-of-sequence ignored?",
                    )
                else:
                    ctx.error(meta_name, f"{meta_value} contradicts the result file ({said})")
                    return
        draft.set(ours, meta_value, meta_name)
        return
    if stated is not None:
        draft.set(ours, round(stated.value), stated.name)
        return
    if measured is not None and measured.value > 0:
        value = round(measured.value)
        draft.set(ours, value, measured.name)
        ctx.notice(
            measured.name,
            f"{ours} {value} derived from the file ({measured.name} = {measured.value:.6g}); "
            f"give {ours} in the metadata file to state it",
        )


IDENTITY_FIELDS = ("model", "hardware", "framework", "precision", "isl", "osl", "concurrency")


def finish_point(draft: PointDraft, ctx: RecordContext, provenance: Provenance) -> BenchmarkPoint | None:
    """Validate a draft; record every problem; return the point only if it is sound."""
    errors_before = len(ctx.log.errors)
    for key in IDENTITY_FIELDS:
        if key not in draft.values:
            ctx.error(draft.name(key), "missing: every point needs " + ", ".join(IDENTITY_FIELDS))
    text: dict[str, str] = {}
    for key in ("model", "hardware", "framework", "precision", "spec_method"):
        if key in draft.values:
            try:
                text[key] = identifier(draft.values[key])
            except ValueError as exc:
                ctx.error(draft.name(key), str(exc))
    isl, osl = _integer(draft, "isl", ctx), _integer(draft, "osl", ctx)
    concurrency = _integer(draft, "concurrency", ctx)
    for key, value in (("isl", isl), ("osl", osl), ("concurrency", concurrency)):
        if value == 0:
            ctx.error(draft.name(key), "must be greater than 0")
    throughput = _number(draft, "throughput_per_gpu", ctx, positive=True)
    if "throughput_per_gpu" not in draft.values:
        ctx.error(draft.name("throughput_per_gpu"), "missing: total throughput per GPU is required")
    output = _number(draft, "output_throughput_per_gpu", ctx, positive=True)
    input_tput = _number(draft, "input_throughput_per_gpu", ctx, positive=False)
    gpu_count = _integer(draft, "gpu_count", ctx)
    if gpu_count == 0:
        ctx.error(draft.name("gpu_count"), "must be greater than 0")
    interactivity, source = _interactivity(draft, ctx, output, gpu_count, concurrency)
    latency = {m: LatencyStats(**stats) for m, stats in draft.latency_seconds.items()}
    power = None
    watts = _number(draft, "avg_power_w", ctx, positive=True)
    if watts is not None:
        power = Power(
            avg_watts_per_gpu=watts,
            joules_per_total_token=_number(draft, "joules_per_total_token", ctx, positive=True),
            joules_per_output_token=_number(draft, "joules_per_output_token", ctx, positive=True),
        )
    disagg = _bool(draft, "disagg", ctx)
    multinode = _bool(draft, "multinode", ctx)
    config_numbers = {k: _integer(draft, k, ctx) for k in ("tp", "ep", "pp")}
    dp_attention = _bool(draft, "dp_attention", ctx)
    prefill, decode = _group(draft, "prefill", ctx), _group(draft, "decode", ctx)
    if len(ctx.log.errors) > errors_before:
        return None
    assert throughput is not None and interactivity is not None and source is not None
    assert isl and osl and concurrency
    try:
        config = configuration(
            text, (disagg, multinode, dp_attention), config_numbers, (prefill, decode), gpu_count
        )
        return BenchmarkPoint(
            config=config,
            isl=isl,
            osl=osl,
            concurrency=concurrency,
            throughput_per_gpu=throughput,
            output_throughput_per_gpu=output,
            input_throughput_per_gpu=input_tput,
            interactivity=interactivity,
            interactivity_source=source,
            power=power,
            provenance=provenance,
            **latency,
        )
    except ValidationError as exc:  # a derived value the numeric rule refuses: name the user's field
        for err in exc.errors():
            loc = [str(p) for p in err["loc"]]
            ours = "median_tpot_s" if loc[:1] == ["interactivity"] and source == "tpot" else loc[0]
            ctx.error(draft.name(ours) if ours in draft.names else ".".join(loc), err["msg"])
        return None


def configuration(
    text: Mapping[str, Any],
    flags: tuple[bool | None, bool | None, bool | None],
    numbers: Mapping[str, int | None],
    groups: tuple[WorkerGroup | None, WorkerGroup | None],
    gpu_count: int | None,
) -> Configuration:
    """A point's configuration from its checked fields: names normalised, then validated
    (ValidationError where a normalised name breaks the identifier rule)."""
    return Configuration(**configuration_fields(text, flags, numbers, groups, gpu_count))


def configuration_fields(
    text: Mapping[str, Any],
    flags: tuple[bool | None, bool | None, bool | None],
    numbers: Mapping[str, int | None],
    groups: tuple[WorkerGroup | None, WorkerGroup | None],
    gpu_count: int | None,
) -> dict[str, Any]:
    """Every field of a point's configuration, names normalised, in the model's order."""
    disagg, multinode, dp_attention = flags
    return {
        "model": text["model"],
        "hardware": normalise_hardware(text["hardware"]),
        "framework": normalise_framework(text["framework"])[0],
        "precision": normalise_precision(text["precision"]),
        "spec_method": normalise_spec_method(text.get("spec_method")),
        "disagg": bool(disagg),
        "multinode": bool(multinode),
        "tp": numbers["tp"],
        "ep": numbers["ep"],
        "pp": numbers["pp"],
        "dp_attention": dp_attention,
        "prefill": groups[0],
        "decode": groups[1],
        "gpu_count": gpu_count,
    }


def _interactivity(
    draft: PointDraft,
    ctx: RecordContext,
    output: float | None,
    gpu_count: int | None,
    concurrency: int | None,
) -> tuple[float | None, InteractivitySource | None]:
    """1 / median TPOT; else a stated value; else output tok/s ÷ concurrency, marked derived."""
    if "median_tpot_s" in draft.values:
        tpot = _number(draft, "median_tpot_s", ctx, positive=True)
        return (1.0 / tpot, "tpot") if tpot is not None else (None, None)
    if "interactivity" in draft.values:
        stated = _number(draft, "interactivity", ctx, positive=True)
        return (stated, "stated") if stated is not None else (None, None)
    if output is not None and gpu_count and concurrency:
        output_gpus = draft.values.get("output_gpu_count", gpu_count)
        return output * output_gpus / concurrency, "derived"
    ctx.error(
        draft.name("median_tpot_s"),
        "missing: need median TPOT, a stated interactivity, or output throughput with GPU count "
        "and concurrency to derive it",
    )
    return None, None
