"""InferenceX rows: dashboard API rows, `agg_*.json` aggregates, `agg_bmk.json` arrays and the
dashboard's CSV export."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.files import sane_number
from site_builder.read.fields import (
    LATENCY_METRICS,
    LATENCY_STATS,
    PointDraft,
    RecordContext,
    normalise_framework,
    normalise_model,
    parse_bool,
    parse_number,
    sequence_from_name,
)

THROUGHPUT_FIELDS = {
    "throughput_per_gpu": "tput_per_gpu",
    "output_throughput_per_gpu": "output_tput_per_gpu",
    "input_throughput_per_gpu": "input_tput_per_gpu",
}
POWER_FIELDS = {
    "avg_power_w": "avg_power_w",
    "joules_per_total_token": "joules_per_total_token",
    "joules_per_output_token": "joules_per_output_token",
}


def _latencies(draft: PointDraft, metrics: Mapping[str, Any], prefix: str, ctx: RecordContext) -> None:
    """InferenceX aggregates hold latency in seconds under `{stat}_{metric}`."""
    for metric in LATENCY_METRICS:
        for stat in LATENCY_STATS:
            key = f"{stat}_{metric}"
            if metrics.get(key) is None:
                continue
            try:
                seconds = sane_number(parse_number(metrics[key]), nonnegative=True)
                draft.add_latency(metric, stat, seconds, prefix + key)
            except ValueError as exc:
                ctx.warning(prefix + key, f"ignored: {exc}")
    if "median_tpot" in metrics:
        draft.set("median_tpot_s", metrics["median_tpot"], prefix + "median_tpot")
    elif "median_intvty" in metrics:
        draft.set("interactivity", metrics["median_intvty"], prefix + "median_intvty")


def _flag(row: Mapping[str, Any], key: str, ctx: RecordContext) -> bool:
    try:
        return parse_bool(row.get(key, False))
    except ValueError as exc:
        ctx.error(key, str(exc))
        return False


# a single-node row's parallelism (our field -> the row's), and where its metrics are named:
# in a dashboard API row, in an aggregate row
_SINGLE_NODE = {
    True: ({"tp": "prefill_tp", "ep": "prefill_ep", "dp_attention": "prefill_dp_attention"}, "metrics."),
    False: ({"tp": "tp", "ep": "ep", "dp_attention": "dp_attention"}, ""),
}
# a disaggregated row's roles: our field -> the row's
_ROLE_FIELDS = {
    f"{role}_{ours}": theirs.format(role)
    for role in ("prefill", "decode")
    for ours, theirs in (
        ("tp", "{}_tp"),
        ("ep", "{}_ep"),
        ("workers", "{}_num_workers"),
        ("gpus", "num_{}_gpu"),
        ("dp_attention", "{}_dp_attention"),
    )
}


def _topology(
    draft: PointDraft, row: Mapping[str, Any], metrics: Mapping[str, Any], ctx: RecordContext, *, api: bool
) -> None:
    """Parallelism and the GPU count that per-GPU figures divide by (never EP); `metrics`: the
    object holding the row's metrics (an API row's metrics{}, an aggregate row itself)."""
    disagg = _flag(row, "disagg", ctx)
    multinode = _flag(row, "is_multinode", ctx)
    _, implied_disagg = normalise_framework(str(row.get("framework", "")))
    disagg = disagg or bool(implied_disagg)
    draft.set("disagg", disagg, "disagg")
    draft.set("multinode", multinode, "is_multinode")
    if disagg or multinode:
        _roles(draft, row, ctx, multinode=multinode)
    else:
        _single_node(draft, row, metrics, ctx, api=api)


def _single_node(
    draft: PointDraft, row: Mapping[str, Any], metrics: Mapping[str, Any], ctx: RecordContext, *, api: bool
) -> None:
    """TP, EP, DP attention and PP; the GPU count TP × PP × PCP."""
    keys, prefix = _SINGLE_NODE[api]
    draft.take(row, keys)
    draft.take(metrics, {"pp": "pp"}, prefix)
    try:
        tp = int(parse_number(row[keys["tp"]]))
        pp = int(parse_number(metrics.get("pp") or 1))
        pcp = int(parse_number(metrics.get("pcp_size") or 1))
        draft.set("gpu_count", tp * pp * pcp, keys["tp"])
    except (KeyError, ValueError):
        ctx.error(keys["tp"], "missing or not a number: single-node rows need the TP size")


def _roles(draft: PointDraft, row: Mapping[str, Any], ctx: RecordContext, *, multinode: bool) -> None:
    """The prefill and decode roles; the GPU count theirs, where the row is multinode."""
    draft.take(row, _ROLE_FIELDS)
    if not multinode:
        ctx.notice(
            "is_multinode",
            "disaggregated row without multinode topology (an early-2025 layout): its per-GPU "
            "figures are used as published and its GPU count is left unknown",
        )
        return
    try:
        prefill = int(parse_number(row["num_prefill_gpu"]))
        decode = int(parse_number(row["num_decode_gpu"]))
    except (KeyError, ValueError):
        ctx.error("num_prefill_gpu", "missing or not a number: multinode rows need GPU counts")
        return
    draft.set("gpu_count", prefill + decode, "num_prefill_gpu")
    draft.set("output_gpu_count", decode or prefill + decode, "num_decode_gpu")


def _common(draft: PointDraft, row: Mapping[str, Any], ctx: RecordContext) -> None:
    framework = row.get("framework")
    draft.set("framework", framework, "framework")
    draft.set("precision", row.get("precision"), "precision")
    draft.set("isl", row.get("isl"), "isl")
    draft.set("osl", row.get("osl"), "osl")
    draft.set("concurrency", row.get("conc"), "conc")


def api_row(row: Mapping[str, Any], ctx: RecordContext) -> PointDraft:
    """A row of the dashboard's `/api/v1/benchmarks`: per-GPU metrics in `metrics{}`."""
    draft = PointDraft()
    draft.set("model", normalise_model(row.get("model"), None), "model")
    draft.set("hardware", row.get("hardware"), "hardware")
    _common(draft, row, ctx)
    draft.set("spec_method", row.get("spec_method"), "spec_method")
    metrics = row.get("metrics")
    if not isinstance(metrics, Mapping):
        ctx.error("metrics", "missing or not an object")
        return draft
    _topology(draft, row, metrics, ctx, api=True)
    draft.take(metrics, THROUGHPUT_FIELDS, "metrics.")
    _latencies(draft, metrics, "metrics.", ctx)
    draft.take(metrics, POWER_FIELDS, "metrics.")
    return draft


def agg_row(
    row: Mapping[str, Any],
    ctx: RecordContext,
    file_name: str,
    fills: Mapping[str, tuple[Any, str]] | None = None,
) -> PointDraft | None:
    """An `agg_*.json` object written by InferenceX's process_result (any schema generation);
    `fills`: the model, isl and osl the metadata files give, for a row that lacks them."""
    fills = fills or {}
    draft = PointDraft()
    prefix = row.get("infmax_model_prefix") or row.get("model_prefix")
    model = normalise_model(prefix, row.get("model"))
    model_field = "infmax_model_prefix" if prefix else "model"
    if model is None and "model" in fills:
        model, model_field = fills["model"][0], f"{fills['model'][1]}: model"
    draft.set("model", model, model_field)
    draft.set("hardware", row.get("hw"), "hw")
    _common(draft, row, ctx)
    for ours in ("isl", "osl"):
        if row.get(ours) is None and ours in fills:
            draft.set(ours, fills[ours][0], f"{fills[ours][1]}: {ours}")
    if "isl" not in draft.values or "osl" not in draft.values:
        seq = sequence_from_name(file_name)
        if seq:
            draft.set("isl", seq[0], "isl")
            draft.set("osl", seq[1], "osl")
            ctx.notice("isl", f"no isl/osl in the row; {seq[0]}/{seq[1]} taken from the file name")
    if isinstance(draft.values.get("model", ""), str) and not _identified(draft, row, ctx):
        return None  # (a model that is no text is refused by validation, naming its field)
    if "spec_decoding" in row:
        draft.set("spec_method", row.get("spec_decoding"), "spec_decoding")
    elif row.get("mtp"):
        draft.set("spec_method", "mtp", "mtp")
    _topology(draft, row, row, ctx, api=False)
    draft.take(row, THROUGHPUT_FIELDS)
    _latencies(draft, row, "", ctx)
    if row.get("power_valid") in (1, True, "1") and row.get("power_metric_schema_version") == 2:
        draft.take(row, POWER_FIELDS)
    return draft


def _identified(draft: PointDraft, row: Mapping[str, Any], ctx: RecordContext) -> bool:
    """Whether the row has its model, isl and osl (its own, the file name's or the metadata's);
    else one error naming the metadata fields to add, the same for every such row, so the load
    says it once per folder, naming the files."""
    missing = [key for key in ("model", "isl", "osl") if key not in draft.values]
    if not missing:
        return True
    named = (
        " (the rows name the model only by its path, `model`)"
        if "model" in missing and row.get("model")
        else ""
    )
    ctx.missing(
        f"_meta.yaml: {', '.join(missing)}",
        f"missing: InferenceX aggregate rows without infmax_model_prefix, isl and osl take "
        f"{', '.join(missing)} from the metadata files{named}: add "
        f"{', '.join(f'{key}: …' for key in missing)} to a _meta.yaml in the file's folder (it applies "
        "to every file below it; the model key as data/models.yaml names it)",
    )
    return False


# The dashboard's CSV export (its "Export CSV" button: InferenceX-app `lib/csv-export-helpers.ts`):
# one row a point, title-case columns, per-chip throughput, latency in seconds. Exports made
# before mid-2026 (the same file at commit c410b1f5) name the throughput and GPU counts per GPU
# and head the latency columns "(ms)", but write the same seconds (the API's `median_tpot` …).
CSV_KEYS = {"Hardware Key", "Concurrency"}
_CSV_VARIANTS = {  # the throughput column that tells them apart -> (latency unit, GPUs word)
    "Throughput/Chip (tok/s)": ("(s)", "Chip"),
    "Throughput/GPU (tok/s)": ("(ms)", "GPU"),
}
# the Model column holds the dashboard's display name (InferenceX-app `constants/src/models.ts`)
_DASHBOARD_MODELS = {
    "DeepSeek-R1-0528": "dsr1",
    "gpt-oss-120b": "gptoss120b",
    "Llama-3.3-70B-Instruct-FP8": "llama70b",
    "Qwen-3.5-397B-A17B": "qwen3.5",
    "Kimi-K2.5": "kimik2.5",
    "MiniMax-M2.5": "minimaxm2.5",
    "GLM-5": "glm5",
}
_CSV_FIELDS = {
    "hardware": "Hardware",
    "framework": "Framework",
    "precision": "Precision",
    "isl": "ISL",
    "osl": "OSL",
    "concurrency": "Concurrency",
    "spec_method": "Spec Decoding",
    "tp": "TP",
    "ep": "EP",
    "dp_attention": "DP Attention",
}
# our latency metric -> the export's name; statistic -> its word
_CSV_LATENCIES = {"ttft": "TTFT", "tpot": "TPOT", "itl": "ITL", "e2el": "E2E Latency"}
_CSV_STATS = {"mean": "Mean", "median": "Median", "p99": "P99", "std": "Std"}


def csv_detect(keys: set[str]) -> bool:
    """A row of the dashboard's export, of either generation."""
    return keys >= CSV_KEYS and any(column in keys for column in _CSV_VARIANTS)


def csv_row(row: Mapping[str, Any], ctx: RecordContext) -> PointDraft:
    """A row of the dashboard's CSV export. The two columns after Date are whatever the chart
    showed on its axes (derived by the dashboard, not measured) and are not read: the page
    computes its own metrics from the measured ones."""
    throughput = next(column for column in _CSV_VARIANTS if column in row)
    unit, word = _CSV_VARIANTS[throughput]
    draft = PointDraft()
    name = row.get("Model")
    model = _DASHBOARD_MODELS.get(name) if isinstance(name, str) else None
    draft.set("model", model or normalise_model(name, None), "Model")
    draft.take(row, _CSV_FIELDS)
    draft.take(
        row,
        {
            "throughput_per_gpu": throughput,
            "output_throughput_per_gpu": f"Output Throughput/{word} (tok/s)",
            "input_throughput_per_gpu": f"Input Throughput/{word} (tok/s)",
        },
    )
    _csv_topology(draft, row, word, ctx)
    for metric, metric_word in _CSV_LATENCIES.items():
        for stat, prefix in _CSV_STATS.items():
            column = f"{prefix} {metric_word} {unit}"
            if row.get(column) is None:
                continue
            try:
                seconds = sane_number(parse_number(row[column]), nonnegative=True)
                draft.add_latency(metric, stat, seconds, column)
            except ValueError as exc:
                ctx.warning(column, f"ignored: {exc}")
    draft.set("median_tpot_s", draft.values.get("tpot_median"), f"Median TPOT {unit}")
    return draft


def _csv_topology(draft: PointDraft, row: Mapping[str, Any], word: str, ctx: RecordContext) -> None:
    """The GPU count: the export's Physical Chips (newer exports), else a disaggregated row's
    prefill and decode chips, else a single-node row's TP (the export has no PP or PCP column)."""
    disagg = _flag(row, "Disaggregated", ctx)
    multinode = _flag(row, "Is Multinode", ctx)
    draft.set("disagg", disagg, "Disaggregated")
    draft.set("multinode", multinode, "Is Multinode")
    prefill, decode = f"Num Prefill {word}s", f"Num Decode {word}s"
    if disagg or multinode:
        try:
            prefill_gpus, decode_gpus = int(parse_number(row[prefill])), int(parse_number(row[decode]))
        except (KeyError, ValueError):
            if multinode:
                ctx.error(
                    prefill, "missing or not a number: multinode rows need the prefill and decode counts"
                )
            else:  # as an early disaggregated API row
                ctx.notice(
                    prefill, "disaggregated row without GPU counts: its per-GPU figures are used as published"
                )
            return
        draft.set("prefill_gpus", prefill_gpus, prefill)
        draft.set("decode_gpus", decode_gpus, decode)
        draft.set("gpu_count", prefill_gpus + decode_gpus, prefill)
        draft.set("output_gpu_count", decode_gpus or prefill_gpus, decode)
    if row.get("Physical Chips") is not None:
        draft.set("gpu_count", row["Physical Chips"], "Physical Chips")
    elif not (disagg or multinode):
        draft.set("gpu_count", row.get("TP"), "TP")
