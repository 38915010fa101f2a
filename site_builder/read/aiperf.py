"""NVIDIA AIPerf `profile_export_aiperf.json`: one run (one concurrency) per file.

Every metric is a block `{unit, avg, p50, p90, p99, min, max, std, count, ...}`; `unit` says how
to read it. AIPerf's `inter_token_latency` is per request (latency − TTFT) ÷ (output tokens − 1),
which is our TPOT; its `inter_chunk_latency` is the gap between streamed chunks (our ITL).
Concurrency and the workload live in `input_config`: the profiling phase and the dataset's
prompt lengths in current files (schema 1.2+), `loadgen` and `input.prompt` in older ones. The
first exports (June to 10 October 2025) held the metric blocks under `records`, keyed by tag.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.read import telemetry
from site_builder.read.fields import (
    PointDraft,
    RecordContext,
    Stated,
    as_mapping,
    optional_number,
    positive_number,
)
from site_builder.read.serving import (
    MIN_COMPLETED_SHARE,
    RunMetadata,
    client_run,
    measured_concurrency,
    per_gpu,
    under_completed,
)

_SECONDS_PER_UNIT = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0, "seconds": 1.0}
# our latency metric -> AIPerf's metric
_LATENCIES = {
    "ttft": "time_to_first_token",
    "tpot": "inter_token_latency",
    "itl": "inter_chunk_latency",
    "e2el": "request_latency",
}
# our statistic -> AIPerf's field
_STATS = {"mean": "avg", "median": "p50", "std": "std", "p90": "p90", "p99": "p99"}
# how a phase (its kind, else its name) ranks as the profiling phase; 0: never
_PHASE_RANK = {"profiling": 2, "warmup": 0}  # any other: 1
# a `records` export's tags that were renamed when the blocks moved to the top level
_RECORDS_TAGS = {"ttft": "time_to_first_token", "ttst": "time_to_second_token"}
# what AIPerf's --request-cancellation-rate cancels on purpose (error_summary's error type)
_CANCELLATION = "RequestCancellationError"


def opened(document: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """A `records` export (AIPerf's JSON export until 10 October 2025) as the current layout: the
    metric blocks beside `input_config`, under their current names; any other as it is."""
    blocks = document.get("records")
    if not isinstance(blocks, Mapping):
        return [("", document)]
    rest = {key: value for key, value in document.items() if key != "records"}
    return [("", {**{_RECORDS_TAGS.get(str(k), str(k)): v for k, v in blocks.items()}, **rest})]


def stat(raw: Mapping[str, Any], metric: str, field: str = "avg") -> float | None:
    """One statistic of one metric block, or None when the file does not have it."""
    value = as_mapping(raw.get(metric)).get(field)
    return optional_number(value)


def seconds(raw: Mapping[str, Any], metric: str, field: str, ctx: RecordContext) -> float | None:
    """A time statistic in seconds, read in the unit its block names."""
    value = stat(raw, metric, field)
    if value is None:
        return None
    unit = str(as_mapping(raw.get(metric)).get("unit", "ms")).strip().lower()
    factor = _SECONDS_PER_UNIT.get(unit)
    if factor is None:
        ctx.error(f"{metric}.unit", f"unknown time unit {unit!r} (expected ns, us, ms or sec)")
        return None
    return value * factor


def profiling_phase(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], str] | None:
    """The profiling phase of a current `input_config` (a list of phases, or a mapping by name)."""
    phases = config.get("phases")
    named: list[tuple[Mapping[str, Any], str]] = []
    if isinstance(phases, list):
        named = [(p, f"input_config.phases[{i}]") for i, p in enumerate(phases) if isinstance(p, Mapping)]
    elif isinstance(phases, Mapping):
        named = [
            ({"name": k, **v}, f"input_config.phases.{k}")
            for k, v in phases.items()
            if isinstance(v, Mapping)
        ]
    # the last profiling phase, else the last phase that is not a warm-up
    rank, last = max(
        ((_PHASE_RANK.get(str(p.get("kind", p.get("name"))), 1), i) for i, (p, _) in enumerate(named)),
        default=(0, -1),
    )
    return named[last] if rank else None


def _concurrency(raw: Mapping[str, Any], meta: RunMetadata, ctx: RecordContext) -> tuple[Any, str]:
    config = as_mapping(raw.get("input_config"))
    phase, where = profiling_phase(config) or ({}, "")
    concurrency = phase.get("concurrency")
    if concurrency is not None:
        kind = phase.get("type")
        if kind not in (None, "concurrency"):
            ctx.notice(
                f"{where}.concurrency",
                f"the profiling phase is of type {kind!r}: its concurrency {concurrency} is a cap, "
                "used as the point's concurrency",
            )
        return concurrency, f"{where}.concurrency"
    loadgen = as_mapping(config.get("loadgen"))
    if loadgen.get("concurrency") is not None:
        return loadgen["concurrency"], "input_config.loadgen.concurrency"
    return meta.concurrency, "input_config.loadgen.concurrency"


def _rate_concurrency(draft: PointDraft, raw: Mapping[str, Any], ctx: RecordContext) -> bool:
    """A run without a concurrency (request-rate mode): the measured mean, as for every format."""
    rate = stat(raw, "request_throughput")
    latency = seconds(raw, "request_latency", "avg", ctx)
    return measured_concurrency(
        draft,
        "input_config",
        Stated(rate, "request_throughput.avg") if rate else None,
        Stated(latency, "request_latency.avg") if latency else None,
        ctx,
    )


def _length_setting(value: Any) -> float | None:
    """A prompt-length setting: a number, or a distribution with a mean (or a fixed value)."""
    if isinstance(value, Mapping):
        value = value.get("mean", value.get("value"))
    return positive_number(value)


def _stated_lengths(config: Mapping[str, Any]) -> dict[str, Stated]:
    """What the run asked for: a synthetic dataset's isl/osl, or the older prompt token means."""
    stated: dict[str, Stated] = {}
    datasets = config.get("datasets")
    prompts = as_mapping(
        as_mapping(datasets[0] if isinstance(datasets, list) and datasets else None).get("prompts")
    )
    prompt = as_mapping(as_mapping(config.get("input")).get("prompt"))
    for ours, key in (("isl", "input_tokens"), ("osl", "output_tokens")):
        for setting, name in (
            (prompts.get(ours), f"input_config.datasets[0].prompts.{ours}"),
            (as_mapping(prompt.get(key)).get("mean"), f"input_config.input.prompt.{key}.mean"),
        ):
            value = _length_setting(setting)
            if value is not None:
                stated[ours] = Stated(value, name)
                break
    return stated


def model_path(raw: Mapping[str, Any]) -> tuple[str, Any]:
    """The served model as the run named it: `models` (current) or `endpoint.model_names` (older)."""
    config = as_mapping(raw.get("input_config"))
    models = config.get("models")
    if isinstance(models, Mapping):
        items = models.get("items")
        models = (
            [m.get("name") if isinstance(m, Mapping) else m for m in items]
            if isinstance(items, list)
            else None
        )
    if isinstance(models, list) and models:
        return "input_config.models[0]", models[0]
    if isinstance(models, str):
        return "input_config.models", models
    names = as_mapping(config.get("endpoint")).get("model_names")
    if isinstance(names, list) and names:
        return "input_config.endpoint.model_names[0]", names[0]
    return "input_config.models", None


def _deliberate_cancellations(raw: Mapping[str, Any]) -> float:
    """Requests the run cancelled on purpose (`--request-cancellation-rate`): the errors of that
    type, where the run asked for cancellations."""
    rate = optional_number(
        as_mapping(as_mapping(raw.get("input_config")).get("loadgen")).get("request_cancellation_rate")
    )
    summary = raw.get("error_summary")
    if not rate or not isinstance(summary, list):
        return 0.0
    counts = [
        as_mapping(e).get("count")
        for e in summary
        if as_mapping(as_mapping(e).get("error_details")).get("type") == _CANCELLATION
    ]
    return float(sum(c for c in counts if isinstance(c, int | float)))


def _completion(raw: Mapping[str, Any], ctx: RecordContext) -> None:
    """Errors and cancellations from the summary; a run stopped early is refused outright.
    Requests the run cancelled on purpose are not held against it (said in a notice)."""
    if raw.get("was_cancelled") is True:
        ctx.error("was_cancelled", "the run was cancelled before it finished")
    completed = stat(raw, "request_count")
    failed = stat(raw, "error_request_count")
    if failed is None:  # else the errors the summary counts (none, where it has no list of them)
        summary = raw.get("error_summary")
        counts = [as_mapping(e).get("count") for e in (summary if isinstance(summary, list) else [])]
        failed = float(sum(c for c in counts if isinstance(c, int | float)))
    cancelled = stat(raw, "cancelled_request_count") or 0.0
    deliberate = min(_deliberate_cancellations(raw), failed)
    if deliberate:
        failed -= deliberate
        ctx.notice(
            "input_config.loadgen.request_cancellation_rate",
            f"{deliberate:.0f} requests cancelled on purpose (--request-cancellation-rate) are not "
            "counted against completion; the figures are over the requests that completed",
        )
    if completed is None:
        return
    attempted = completed + failed + cancelled
    if attempted > 0 and completed / attempted < MIN_COMPLETED_SHARE:
        ctx.error(
            "request_count",
            f"only {completed:.0f} of {attempted:.0f} requests completed ({completed / attempted:.0%}; "
            f"{failed:.0f} errors, {cancelled:.0f} cancelled){under_completed(ctx.file)}",
        )


def _throughput(raw: Mapping[str, Any], ctx: RecordContext) -> dict[str, Stated]:
    """Total and output tok/s of the deployment; total from the token totals in older files."""
    found: dict[str, Stated] = {}
    total = stat(raw, "total_token_throughput")
    if total is not None:
        found["total"] = Stated(total, "total_token_throughput.avg")
    else:
        isl_sum, osl_sum = stat(raw, "total_isl"), stat(raw, "total_osl")
        duration = seconds(raw, "benchmark_duration", "avg", ctx)
        if isl_sum is not None and osl_sum is not None and duration:
            found["total"] = Stated(
                (isl_sum + osl_sum) / duration, "(total_isl + total_osl) ÷ benchmark_duration"
            )
    output = stat(raw, "output_token_throughput")
    if output is not None:
        found["output"] = Stated(output, "output_token_throughput.avg")
    return found


def result(
    raw: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> PointDraft | None:
    """One `profile_export_aiperf.json`."""
    means = {}
    for ours, metric in (("isl", "input_sequence_length"), ("osl", "output_sequence_length")):
        mean = stat(raw, metric)
        if mean:
            means[ours] = Stated(mean, f"{metric}.avg")
    stated = _stated_lengths(as_mapping(raw.get("input_config")))
    draft = client_run(meta, meta_name, model_path(raw), stated, means, ctx)
    value, name = _concurrency(raw, meta, ctx)
    draft.set("concurrency", value, name)
    if value is None and not _rate_concurrency(draft, raw, ctx):  # a request-rate run: measured
        return None
    _completion(raw, ctx)
    throughput = _throughput(raw, ctx)
    if "total" not in throughput:
        ctx.error(
            "total_token_throughput", "missing: neither it nor total_isl, total_osl and benchmark_duration"
        )
    per_gpu(draft, throughput, meta.gpus(), ctx, meta_name)
    _measured_power(draft, as_mapping(raw.get("telemetry_data")), meta.gpus()[0], ctx)
    add_latencies(draft, raw, _LATENCIES, ctx)
    median_tpot(draft, "AIPerf", ctx)
    return draft


def _measured_power(
    draft: PointDraft, telemetry_data: Mapping[str, Any], gpus: int | None, ctx: RecordContext
) -> None:
    """The run's mean power per GPU from the GPU telemetry AIPerf exported with it (DCGM,
    pynvml or amdsmi: read.telemetry.aiperf_power picks the run's GPUs); a warning where it has
    telemetry that gives none."""
    if not gpus:
        return  # per_gpu has said the GPU count is missing
    found = telemetry.aiperf_power(telemetry_data, gpus)
    if isinstance(found, telemetry.RunPower):
        draft.set("avg_power_w", found.watts_per_gpu, f"telemetry_data: {found.column} of {found.gpus} GPUs")
    elif found is not None:
        ctx.warning("telemetry_data", f"no measured power for this run: {found}")


def add_latencies(
    draft: PointDraft, raw: Mapping[str, Any], latencies: Mapping[str, str], ctx: RecordContext
) -> None:
    """Each statistic of each latency metric block (our metric -> the client's), in seconds."""
    for ours, metric in latencies.items():
        for our_stat, their_stat in _STATS.items():
            draft.add_latency(ours, our_stat, seconds(raw, metric, their_stat, ctx), f"{metric}.{their_stat}")


def median_tpot(draft: PointDraft, client_name: str, ctx: RecordContext) -> None:
    """Interactivity's source, `inter_token_latency.p50`: (latency − TTFT) ÷ (OSL − 1) per request,
    which AIPerf and GenAI-Perf write only for streamed runs."""
    draft.set("median_tpot_s", draft.values.get("tpot_median"), "inter_token_latency.p50")
    if "median_tpot_s" not in draft.values:
        ctx.error(
            "inter_token_latency.p50",
            f"missing: {client_name} writes it for streaming runs (use --streaming)",
        )


def client(raw: Mapping[str, Any]) -> str:
    version = raw.get("aiperf_version")
    return f"AIPerf {version}" if isinstance(version, str) and version else "AIPerf"
