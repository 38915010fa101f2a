"""NVIDIA GenAI-Perf `profile_export_genai_perf.json`: one run (one concurrency) per file.

GenAI-Perf (perf_analyzer's LLM front end, AIPerf's predecessor) writes its metric blocks as
AIPerf does (`{unit, avg, p50, p90, p99, …}`), a smaller set, and the run's arguments flat under
`input_config` (`model` a list, `concurrency`, `request_rate`, `synthetic_input_tokens_mean`,
`output_tokens_mean`). Its `inter_token_latency` is per request (latency − TTFT) ÷ (output
tokens − 1): our TPOT. It writes no total token throughput: its output tok/s is the output
tokens of the measured requests ÷ the run's duration, and the input and output length means are
over the same requests, so total tok/s = output tok/s × (mean input + mean output) ÷ mean output,
exactly. No date and no version are recorded.

Two layouts of `input_config` exist. Up to early 2025 the command line's arguments lie flat
(`model`, `concurrency`, `synthetic_input_tokens_mean` …) and the per-request output rate is
`output_token_throughput_per_request`. Since GenAI-Perf took a config file (2025), they are
nested as its config is (`model_names`, `perf_analyzer.stimulus.concurrency` or `request_rate`,
`input.synthetic_tokens.mean`, `input.output_tokens.mean`, `input.prompt_source`) and the rate
is `output_token_throughput_per_user`, as AIPerf names it: such a file is told from AIPerf's by
the run accounting every AIPerf export carries and GenAI-Perf's lacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.read.aiperf import add_latencies, median_tpot, seconds, stat
from site_builder.read.fields import PointDraft, RecordContext, Stated, as_mapping, at_path, positive_number
from site_builder.read.serving import RunMetadata, client_run, measured_concurrency, per_gpu

# our latency metric -> GenAI-Perf's metric (its inter_token_latency is our TPOT)
_LATENCIES = {"ttft": "time_to_first_token", "tpot": "inter_token_latency", "e2el": "request_latency"}
# where a run's settings lie in each layout of `input_config`: flat (the command line's), or nested
# as the config file's (config_perf_analyzer.py, config_input.py in GenAI-Perf's source)
_FLAT = {
    "model": "model",
    "concurrency": "concurrency",
    "request_rate": "request_rate",
    "isl": "synthetic_input_tokens_mean",
    "osl": "output_tokens_mean",
    "prompt_source": "prompt_source",
}
_NESTED = {
    "model": "model_names",
    "concurrency": "perf_analyzer.stimulus.concurrency",
    "request_rate": "perf_analyzer.stimulus.request_rate",
    "isl": "input.synthetic_tokens.mean",
    "osl": "input.output_tokens.mean",
    "prompt_source": "input.prompt_source",
}
# what every AIPerf export records of its run and GenAI-Perf's never does
_AIPERF_ONLY = {
    "benchmark_duration",
    "start_time",
    "end_time",
    "was_cancelled",
    "aiperf_version",
    "schema_version",
}
_MEANS = {"isl": "input_sequence_length", "osl": "output_sequence_length"}
LONGER_THAN_ASKED = 0.05  # a mean output this much above the requested length is said


def detect(keys: set[str]) -> bool:
    """A GenAI-Perf export: its arguments and its per-request output rate, named per_request
    (flat layout) or, as AIPerf names it, per_user (config-file layout, without AIPerf's run
    accounting)."""
    if "input_config" not in keys:
        return False
    return "output_token_throughput_per_request" in keys or (
        "output_token_throughput_per_user" in keys and not keys & _AIPERF_ONLY
    )


def _setting(raw: Mapping[str, Any], name: str) -> tuple[Any, str]:
    """A run setting (`_FLAT` names) and where the file holds it, in the file's layout."""
    config = as_mapping(raw.get("input_config"))
    path = (_NESTED if isinstance(config.get("perf_analyzer"), Mapping) else _FLAT)[name]
    return at_path(config, path), f"input_config.{path}"


def _lengths(raw: Mapping[str, Any]) -> tuple[dict[str, Stated], dict[str, Stated]]:
    """What the run asked for (synthetic prompts only) and the measured means."""
    stated: dict[str, Stated] = {}
    source, _ = _setting(raw, "prompt_source")
    for ours in ("isl", "osl"):
        given, where = _setting(raw, ours)
        value = positive_number(given)
        synthetic = ours == "osl" or source in (None, "synthetic")
        if value is not None and synthetic:
            stated[ours] = Stated(value, where)
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
    """The concurrency the run was set to; a request-rate run's is measured (the rule for every
    format)."""
    given, where = _setting(raw, "concurrency")
    if given is not None or meta.concurrency is not None:
        draft.set("concurrency", given if given is not None else meta.concurrency, where)
        return True
    rate, latency = stat(raw, "request_throughput"), seconds(raw, "request_latency", "avg", ctx)
    return measured_concurrency(
        draft,
        _setting(raw, "request_rate")[1],
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
    models, where = _setting(raw, "model")
    model = models[0] if isinstance(models, list) and models else models
    draft = client_run(meta, meta_name, (where, model), stated, means, ctx)
    if not _concurrency(draft, raw, meta, ctx):
        return None
    _output_beyond_request(stated, means, ctx)
    per_gpu(draft, _throughput(raw, means, ctx), meta.gpus(), ctx, meta_name)
    add_latencies(draft, raw, _LATENCIES, ctx)
    median_tpot(draft, "GenAI-Perf", ctx)
    return draft


def client(raw: Mapping[str, Any]) -> str:
    return "GenAI-Perf"
