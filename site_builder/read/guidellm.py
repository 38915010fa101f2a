"""GuideLLM `benchmarks.json`: one report, one benchmark per strategy (concurrency) in it.

The report is `{metadata, config, benchmarks}` (report version 2, GuideLLM 0.7+) or `{metadata,
args, benchmarks}` (version 1, GuideLLM 0.5–0.6: the run's arguments under `args`, benchmarks and
metrics as in version 2); each benchmark has `config.strategy` (concurrent
benchmarks give their concurrency as `streams`) and `metrics`, where every metric is a summary
per request status: `{successful, incomplete, errored, total}`, each `{mean, median, std_dev,
percentiles{p50, p90, p99, p999, ...}, ...}`.

Which fields match our definitions (docs/data-format.md says why):
- TPOT is GuideLLM's `inter_token_latency_ms` (per request (last − first token) ÷ (output tokens
  − 1)); its `time_per_output_token_ms` includes the first token and is not our TPOT.
- Throughput is the `mean` of `tokens_per_second` over all requests: GuideLLM weights its rate
  series by time, so the mean is the tokens of the run ÷ its measured duration, the number its
  own console prints. The median and percentiles describe the series of instantaneous rates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    epoch_date,
    measured_concurrency,
    per_gpu,
    under_completed,
)

REPORT_VERSIONS = (1, 2)
# our latency metric -> (GuideLLM metric, its unit in seconds)
_LATENCIES = {
    "ttft": ("time_to_first_token_ms", 1e-3),
    "tpot": ("inter_token_latency_ms", 1e-3),
    "e2el": ("request_latency", 1.0),
}


def benchmarks(document: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """One record per benchmark: the benchmark with the report's metadata and config beside it."""
    report = {key: document.get(key) for key in ("metadata", "config", "args")}
    items = document.get("benchmarks")
    if not isinstance(items, list):
        return [("", {"report": report, "benchmark": items})]
    return [(f"benchmarks[{i}]", {"report": report, "benchmark": b}) for i, b in enumerate(items)]


def strategy(record: Mapping[str, Any]) -> Mapping[str, Any]:
    return as_mapping(as_mapping(as_mapping(record.get("benchmark")).get("config")).get("strategy"))


def strategy_name(record: Mapping[str, Any]) -> str:
    found = strategy(record)
    kind = found.get("type_", found.get("type"))
    return str(kind) if kind is not None else "unknown"


def _stat(summary: Any, status: str, field: str) -> float | None:
    """metrics.<x>.<status>.<field>, a percentile looked up under `percentiles`."""
    block = as_mapping(as_mapping(summary).get(status))
    value = block.get(field, as_mapping(block.get("percentiles")).get(field))
    return optional_number(value)


def _means(metrics: Mapping[str, Any], status: str, ours_theirs: Mapping[str, str]) -> dict[str, Stated]:
    """The mean of each of these metrics (our name -> GuideLLM's) over requests of one status."""
    found: dict[str, Stated] = {}
    for ours, metric in ours_theirs.items():
        mean = _stat(metrics.get(metric), status, "mean")
        if mean is not None:
            found[ours] = Stated(mean, f"metrics.{metric}.{status}.mean")
    return found


def _stated_lengths(report: Mapping[str, Any]) -> dict[str, Stated]:
    """A synthetic dataset's prompt/output tokens: `{kind: synthetic_text, prompt_tokens, ...}`
    or the command line's "prompt_tokens=…,output_tokens=…" (version 1: under `args.data`)."""
    spec = as_mapping(as_mapping(report.get("config")).get("spec"))
    data, where = spec.get("data"), "config.spec.data[0]"
    if data is None:
        data, where = as_mapping(report.get("args")).get("data"), "args.data[0]"
    first = data[0] if isinstance(data, list) and data else data
    if isinstance(first, str):
        pairs = (part.split("=", 1) for part in first.split(",") if "=" in part)
        first = {key.strip(): value.strip() for key, value in pairs}
    stated: dict[str, Stated] = {}
    for ours, key in (("isl", "prompt_tokens"), ("osl", "output_tokens")):
        value = positive_number(as_mapping(first).get(key))
        if value is not None:
            stated[ours] = Stated(value, f"{where}.{key}")
    return stated


def _model_path(record: Mapping[str, Any]) -> tuple[str, Any]:
    backend = as_mapping(as_mapping(as_mapping(record.get("benchmark")).get("config")).get("backend"))
    if backend.get("model"):
        return "config.backend.model", backend["model"]
    report = as_mapping(record.get("report"))
    spec = as_mapping(as_mapping(report.get("config")).get("spec"))
    if "args" in report and not spec:  # version 1
        return "args.model", as_mapping(report.get("args")).get("model")
    return "config.spec.backend.model", as_mapping(spec.get("backend")).get("model")


def _concurrency(
    draft: PointDraft, record: Mapping[str, Any], metrics: Mapping[str, Any], ctx: RecordContext
) -> bool:
    """Synchronous: 1; concurrent: its streams; rate-driven (throughput, constant, poisson): the
    measured mean. False where that cannot be measured (said once, nothing kept)."""
    kind = strategy_name(record)
    if kind == "synchronous":
        draft.set("concurrency", 1, "config.strategy.type_")
    elif kind == "concurrent":
        draft.set("concurrency", strategy(record).get("streams"), "config.strategy.streams")
    else:
        return _rate_concurrency(draft, metrics, ctx)
    return True


def _rate_concurrency(draft: PointDraft, metrics: Mapping[str, Any], ctx: RecordContext) -> bool:
    """A rate-driven benchmark's concurrency: the measured mean, as for every format."""
    found = {
        ours: Stated(value, f"metrics.{metric}.successful.mean")
        for ours, metric in (("rate", "requests_per_second"), ("latency", "request_latency"))
        if (value := positive_number(_stat(metrics.get(metric), "successful", "mean"))) is not None
    }
    return measured_concurrency(draft, "config.strategy", found.get("rate"), found.get("latency"), ctx)


_STATS = {"mean": "mean", "median": "median", "std": "std_dev", "p90": "p90", "p99": "p99", "p99.9": "p999"}


def _latencies(draft: PointDraft, metrics: Mapping[str, Any]) -> None:
    """TTFT, TPOT and E2E statistics of the successful requests, in seconds."""
    for ours, (metric, seconds) in _LATENCIES.items():
        for our_stat, field in _STATS.items():
            value = _stat(metrics.get(metric), "successful", field)
            name = f"metrics.{metric}.successful.{field}"
            draft.add_latency(ours, our_stat, None if value is None else value * seconds, name)


def _completion(metrics: Mapping[str, Any], ctx: RecordContext) -> None:
    """Errored requests count against completion; incomplete ones were cut off when the run ended."""
    totals = as_mapping(metrics.get("request_totals"))
    successful, errored = totals.get("successful"), totals.get("errored")
    if not (isinstance(successful, int | float) and isinstance(errored, int | float)):
        return
    attempted = successful + errored
    if attempted > 0 and successful / attempted < MIN_COMPLETED_SHARE:
        ctx.error(
            "metrics.request_totals",
            f"only {successful} of {attempted} requests completed "
            f"({successful / attempted:.0%}; {errored} errored){under_completed(ctx.file)}",
        )


def result(
    record: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> PointDraft | None:
    """One benchmark of a report (see `benchmarks`)."""
    draft = PointDraft()
    report = as_mapping(record.get("report"))
    version = as_mapping(report.get("metadata")).get("version")
    if version is not None and version not in REPORT_VERSIONS:
        ctx.error("metadata.version", f"report version {version!r}: this build reads versions 1 and 2")
        return None
    benchmark = as_mapping(record.get("benchmark"))
    metrics = as_mapping(benchmark.get("metrics"))
    if not metrics:
        ctx.error("metrics", "missing: not a GuideLLM benchmark")
        return None
    means = _means(metrics, "successful", {"isl": "prompt_token_count", "osl": "output_token_count"})
    draft = client_run(meta, meta_name, _model_path(record), _stated_lengths(report), means, ctx)
    if not _concurrency(draft, record, metrics, ctx):
        return None
    _completion(metrics, ctx)
    throughput = _means(
        metrics, "total", {"total": "tokens_per_second", "output": "output_tokens_per_second"}
    )
    per_gpu(draft, throughput, meta.gpus(), ctx, meta_name)
    _latencies(draft, metrics)
    tpot = "metrics.inter_token_latency_ms.successful.median"
    draft.set("median_tpot_s", draft.values.get("tpot_median"), tpot)
    if "median_tpot_s" not in draft.values:
        ctx.error("metrics.inter_token_latency_ms", "missing: GuideLLM writes it for streaming runs")
    return draft


def date(record: Mapping[str, Any]) -> str | None:
    """The benchmark's start (seconds since the epoch) as a UTC date."""
    benchmark = as_mapping(record.get("benchmark"))
    start = benchmark.get(
        "start_time", as_mapping(benchmark.get("scheduler_metrics")).get("measure_start_time")
    )
    return epoch_date(start)


def client(record: Mapping[str, Any]) -> str:
    version = as_mapping(as_mapping(record.get("report")).get("metadata")).get("guidellm_version")
    return f"GuideLLM {version}" if isinstance(version, str) and version else "GuideLLM"
