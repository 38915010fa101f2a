"""ray-project llmperf `token_benchmark_ray.py`: `<model>_<in>_<out>_summary.json`, one run (one
concurrency) per file, with its per-request records in `…_individual_responses.json` beside it.

The summary is flat: the run's settings (`model`, `mean_input_tokens`, `mean_output_tokens`,
`num_concurrent_requests`, any `--metadata` keys) and `results_<metric>_{quantiles_p25…p99,
mean, min, max, stddev}` over the requests that did not error, plus the run's counts and
`results_mean_output_throughput_token_per_s` (output tokens of those requests ÷ the run's wall
time).

What matches our definitions (docs/data-format.md says why):
- llmperf's `inter_token_latency_s` is, per request, the request's whole latency ÷ its output
  tokens: it includes the wait for the first token, so it is not our TPOT and is not read. With
  no TPOT the page derives interactivity from output throughput ÷ concurrency, marked derived.
- Total throughput: llmperf writes output tok/s only. Its input and output means are over the
  same requests as the output tokens it divides, so total tok/s = output tok/s × (mean input +
  mean output) ÷ mean output, exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.read.fields import PointDraft, RecordContext, Stated, optional_number, positive_number
from site_builder.read.serving import (
    MIN_COMPLETED_SHARE,
    RunMetadata,
    client_run,
    epoch_date,
    per_gpu,
    under_completed,
)

OUTPUT_THROUGHPUT = "results_mean_output_throughput_token_per_s"
_INPUT_MEAN = "results_number_input_tokens_mean"
_OUTPUT_MEAN = "results_number_output_tokens_mean"
# what each of llmperf's per-request records holds (its `common_metrics` names)
REQUEST_KEYS = frozenset(
    {"error_code", "error_msg", "ttft_s", "end_to_end_latency_s", "request_output_throughput_token_per_s"}
)
# our latency metric -> llmperf's metric (seconds)
_LATENCIES = {"ttft": "ttft_s", "e2el": "end_to_end_latency_s"}
# our statistic -> the suffix of llmperf's field
_STATS = {
    "mean": "mean",
    "median": "quantiles_p50",
    "std": "stddev",
    "p90": "quantiles_p90",
    "p99": "quantiles_p99",
}


def _lengths(raw: Mapping[str, Any], fields: Mapping[str, str]) -> dict[str, Stated]:
    """ISL and OSL (our name -> llmperf's field) where the file gives a positive number."""
    found = {ours: (positive_number(raw.get(theirs)), theirs) for ours, theirs in fields.items()}
    return {ours: Stated(value, theirs) for ours, (value, theirs) in found.items() if value is not None}


def detect(keys: set[str]) -> bool:
    """A summary: the run's concurrency setting beside its `results_*` figures."""
    return "num_concurrent_requests" in keys and OUTPUT_THROUGHPUT in keys


def _completion(raw: Mapping[str, Any], ctx: RecordContext) -> None:
    """Errored requests count against completion (llmperf leaves them out of every figure)."""
    started = positive_number(raw.get("results_num_requests_started"))
    completed = optional_number(raw.get("results_num_completed_requests"))
    if started is None or completed is None:
        return
    if completed / started < MIN_COMPLETED_SHARE:
        ctx.error(
            "results_num_completed_requests",
            f"only {completed:.0f} of {started:.0f} requests completed ({completed / started:.0%}; "
            f"{raw.get('results_number_errors')} errors){under_completed(ctx.file)}",
        )


def _throughput(raw: Mapping[str, Any], ctx: RecordContext) -> dict[str, Stated]:
    """Output tok/s as written; total tok/s from it and the mean input and output lengths."""
    output = positive_number(raw.get(OUTPUT_THROUGHPUT))
    if output is None:
        ctx.error(OUTPUT_THROUGHPUT, f"missing or not a positive number: {raw.get(OUTPUT_THROUGHPUT)!r}")
        return {}
    found = {"output": Stated(output, OUTPUT_THROUGHPUT)}
    inputs, outputs = positive_number(raw.get(_INPUT_MEAN)), positive_number(raw.get(_OUTPUT_MEAN))
    if inputs is not None and outputs is not None:
        name = f"{OUTPUT_THROUGHPUT} × ({_INPUT_MEAN} + {_OUTPUT_MEAN}) ÷ {_OUTPUT_MEAN}"
        found["total"] = Stated(output * (inputs + outputs) / outputs, name)
    else:
        ctx.error(_INPUT_MEAN, "missing: total throughput needs the mean input and output token counts")
    return found


def result(raw: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext) -> PointDraft:
    """One `…_summary.json`."""
    stated = _lengths(raw, {"isl": "mean_input_tokens", "osl": "mean_output_tokens"})
    means = _lengths(raw, {"isl": _INPUT_MEAN, "osl": _OUTPUT_MEAN})
    draft = client_run(meta, meta_name, ("model", raw.get("model")), stated, means, ctx)
    draft.set(
        "concurrency", raw.get("num_concurrent_requests") or meta.concurrency, "num_concurrent_requests"
    )
    _completion(raw, ctx)
    per_gpu(draft, _throughput(raw, ctx), meta.gpus(), ctx, meta_name)
    for ours, metric in _LATENCIES.items():
        for our_stat, suffix in _STATS.items():
            theirs = f"results_{metric}_{suffix}"
            draft.add_latency(ours, our_stat, optional_number(raw.get(theirs)), theirs)
    return draft


def date(raw: Mapping[str, Any]) -> str | None:
    """`timestamp`: when the results were saved, seconds since the epoch, as a UTC date."""
    return epoch_date(raw.get("timestamp"))


def client(raw: Mapping[str, Any]) -> str:
    version = raw.get("version")
    # `version` is the summary format's (2023-08-31), not when the run was: the date is `timestamp`
    return f"llmperf (summary format {version})" if isinstance(version, str) and version else "llmperf"
