"""NVIDIA GenAI-Perf `profile_export_genai_perf.json`: one run (one concurrency) per file.

GenAI-Perf (perf_analyzer's LLM front end, AIPerf's predecessor) writes its metric blocks as
AIPerf does (`{unit, avg, p50, p90, p99, …}`), a smaller set, and the run's arguments flat under
`input_config` (`model` a list, `concurrency`, `request_rate`, `synthetic_input_tokens_mean`,
`output_tokens_mean`). Its `inter_token_latency` is per request (latency − TTFT) ÷ (output
tokens − 1): our TPOT. It writes no total token throughput: its output tok/s is the output
tokens of the measured requests ÷ the run's duration, and the input and output length means are
over the same requests, so total tok/s = output tok/s × (mean input + mean output) ÷ mean output,
exactly. No date and no version are recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.read.aiperf import add_latencies, median_tpot, seconds, stat
from site_builder.read.fields import PointDraft, RecordContext, Stated, as_mapping, positive_number
from site_builder.read.serving import RunMetadata, client_run, measured_concurrency, per_gpu

# our latency metric -> GenAI-Perf's metric (its inter_token_latency is our TPOT)
_LATENCIES = {"ttft": "time_to_first_token", "tpot": "inter_token_latency", "e2el": "request_latency"}
_SETTINGS = {"isl": "synthetic_input_tokens_mean", "osl": "output_tokens_mean"}
_MEANS = {"isl": "input_sequence_length", "osl": "output_sequence_length"}
LONGER_THAN_ASKED = 0.05  # a mean output this much above the requested length is said


def detect(keys: set[str]) -> bool:
    """A GenAI-Perf export: its arguments, and the per-request output rate AIPerf calls per_user."""
    return {"input_config", "output_token_throughput_per_request"} <= keys


def _lengths(raw: Mapping[str, Any]) -> tuple[dict[str, Stated], dict[str, Stated]]:
    """What the run asked for (synthetic prompts only) and the measured means."""
    config = as_mapping(raw.get("input_config"))
    stated: dict[str, Stated] = {}
    for ours, setting in _SETTINGS.items():
        value = positive_number(config.get(setting))
        synthetic = ours == "osl" or config.get("prompt_source") in (None, "synthetic")
        if value is not None and synthetic:
            stated[ours] = Stated(value, f"input_config.{setting}")
    means = {
        ours: Stated(value, f"{metric}.avg")
        for ours, metric in _MEANS.items()
        if (value := positive_number(stat(raw, metric))) is not None
    }
    return stated, means


def _output_beyond_request(
    stated: Mapping[str, Stated], means: Mapping[str, Stated], ctx: RecordContext
) -> None:
    """Outputs longer than asked for mean the tokens were miscounted (a tokenizer other than the
    model's, or a client bug), and with them the throughput and inter-token latency: said."""
    asked, measured = stated.get("osl"), means.get("osl")
    if asked is None or measured is None or measured.value <= asked.value * (1 + LONGER_THAN_ASKED):
        return
    ctx.warning(
        measured.name,
        f"the mean output, {measured.value:.6g} tokens, is {measured.value / asked.value - 1:.0%} more than "
        f"{asked.name} {asked.value:.6g}: GenAI-Perf counted the tokens with its own tokenizer, so its "
        "throughput and inter-token latency rest on those counts (check --tokenizer and the version)",
    )


def _concurrency(draft: PointDraft, raw: Mapping[str, Any], meta: RunMetadata, ctx: RecordContext) -> bool:
    """`input_config.concurrency`; a request-rate run's is measured (the rule for every format)."""
    given = as_mapping(raw.get("input_config")).get("concurrency")
    if given is not None or meta.concurrency is not None:
        draft.set("concurrency", given if given is not None else meta.concurrency, "input_config.concurrency")
        return True
    rate, latency = stat(raw, "request_throughput"), seconds(raw, "request_latency", "avg", ctx)
    return measured_concurrency(
        draft,
        "input_config.request_rate",
        Stated(rate, "request_throughput.avg") if rate else None,
        Stated(latency, "request_latency.avg") if latency else None,
        ctx,
    )


def _throughput(raw: Mapping[str, Any], means: Mapping[str, Stated], ctx: RecordContext) -> dict[str, Stated]:
    output = positive_number(stat(raw, "output_token_throughput"))
    if output is None:
        ctx.error("output_token_throughput.avg", "missing or not a positive number")
        return {}
    found = {"output": Stated(output, "output_token_throughput.avg")}
    if "isl" in means and "osl" in means:
        isl, osl = means["isl"], means["osl"]
        name = f"output_token_throughput.avg × ({isl.name} + {osl.name}) ÷ {osl.name}"
        found["total"] = Stated(output * (isl.value + osl.value) / osl.value, name)
    else:
        ctx.error(
            "input_sequence_length.avg", "missing: total throughput needs the mean input and output lengths"
        )
    return found


def result(
    raw: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> PointDraft | None:
    """One `profile_export_genai_perf.json`."""
    stated, means = _lengths(raw)
    models = as_mapping(raw.get("input_config")).get("model")
    model = models[0] if isinstance(models, list) and models else models
    draft = client_run(meta, meta_name, ("input_config.model", model), stated, means, ctx)
    if not _concurrency(draft, raw, meta, ctx):
        return None
    _output_beyond_request(stated, means, ctx)
    per_gpu(draft, _throughput(raw, means, ctx), meta.gpus(), ctx, meta_name)
    add_latencies(draft, raw, _LATENCIES, ctx)
    median_tpot(draft, "GenAI-Perf", ctx)
    return draft


def client(raw: Mapping[str, Any]) -> str:
    return "GenAI-Perf"
