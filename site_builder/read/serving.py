"""Raw client results: vLLM / InferenceX `benchmark_serving` JSON and SGLang `bench_serving` JSONL.

These files say how fast the deployment was but not what it was: hardware, GPU count, precision
and the rest come from a small metadata file beside them (docs/data-format.md).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from site_builder.files import Count, Identifier, WebAddress, Whole
from site_builder.read.fields import (
    PointDraft,
    RecordContext,
    Stated,
    add_latencies_ms,
    as_mapping,
    normalise_model,
    parse_number,
    positive_number,
    sequence_length,
)
from site_builder.workload import WorkloadLabel

MIN_COMPLETED_SHARE = 0.95


def under_completed(file: str) -> str:
    """The next step after "only N of M requests completed", the same for every format: the
    `exclude:` glob that leaves the file out (a path under the data folder)."""
    glob = file.split("/", 1)[1] if file.startswith("data/") else "<its path under data/>"
    return (
        f": fewer than {MIN_COMPLETED_SHARE:.0%} of its requests completed, so its figures are not a "
        f"full run's; re-run it, or leave the file out of the build with exclude: [{glob}] in "
        "content/site.yaml (no setting accepts such a run)"
    )


class RunMetadata(BaseModel):
    """The facts a raw result file lacks; written by a person, so unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    hardware: str
    framework: str | None = None
    precision: str
    spec_method: str | None = None
    disagg: bool = False
    tp: Count | None = None
    ep: Count | None = None
    pp: Count = 1
    pcp: Count = 1
    dp_attention: bool | None = None
    prefill_gpus: Count | None = None
    decode_gpus: Whole | None = None
    gpu_count: Count | None = None
    isl: Count | None = None
    osl: Count | None = None
    # lengths drawn from [ratio × isl/osl, isl/osl] (InferenceX's and SGLang's --random-range-ratio)
    random_range_ratio: float | None = Field(default=None, ge=0, le=1)
    variant: Identifier | None = None  # what sets these runs apart from others of one configuration
    workload: WorkloadLabel | None = None  # names a variable-length dataset's runs: one curve (sharegpt)
    concurrency: Count | None = None
    date: str | None = None
    run_url: WebAddress | None = None
    image: str | None = None
    note: str | None = None

    @field_validator("date", mode="before")
    @classmethod
    def _iso_date(cls, value: object) -> object:
        """YAML reads `date: 2026-10-22` as a date: keep it as the ISO text the pages show."""
        return value.isoformat()[:10] if isinstance(value, dt.date) else value

    def gpus(self) -> tuple[int | None, int | None]:
        """(all GPUs, GPUs that produce output tokens), counted as InferenceX does: never EP."""
        if self.gpu_count:
            return self.gpu_count, self.gpu_count
        if self.prefill_gpus is not None and self.decode_gpus is not None:
            total = self.prefill_gpus + self.decode_gpus
            return total, self.decode_gpus or total
        if self.tp:
            n = self.tp * self.pp * self.pcp
            return n, n
        return None, None


def _completion_check(raw: Mapping[str, Any], ctx: RecordContext) -> None:
    """The InferenceX client writes the file before failing a run; catch such runs here."""
    completed, prompts = raw.get("completed"), raw.get("num_prompts")
    if isinstance(completed, int | float) and isinstance(prompts, int | float) and prompts > 0:
        share = completed / prompts
        if share < MIN_COMPLETED_SHARE:
            ctx.error(
                "completed",
                f"only {completed} of {prompts} requests completed ({share:.0%}){under_completed(ctx.file)}",
            )
    failed = raw.get("failed")
    if not (isinstance(failed, int | float) and isinstance(completed, int | float)):
        return
    attempted = failed + completed
    if attempted > 0 and failed / attempted > 1 - MIN_COMPLETED_SHARE:
        ctx.error("failed", f"{failed} of {attempted} requests failed{under_completed(ctx.file)}")


RATE_MEASURED = (
    "a run without a fixed concurrency (paced by request rate, or every request sent at once): "
    "its concurrency is the measured mean, request throughput × mean end-to-end latency "
    "(Little's law), rounded to a whole number of at least 1"
)
RATE_SKIPPED = (
    "skipped: a run without a fixed concurrency (paced by request rate, or every request sent at "
    "once), and the file lacks the request throughput or the mean end-to-end latency to measure one"
)


def epoch_date(stamp: Any) -> str | None:
    """Seconds since the epoch as a UTC date (YYYY-MM-DD); None for anything else."""
    if not isinstance(stamp, int | float) or isinstance(stamp, bool) or stamp <= 0:
        return None
    try:
        return dt.datetime.fromtimestamp(stamp, tz=dt.UTC).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return None


def notice_once(ctx: RecordContext, field_name: str, reason: str) -> None:
    """A notice said once per file, however many of its records share the cause."""
    if not any(p.file == ctx.file and p.field == field_name and p.reason == reason for p in ctx.log.problems):
        ctx.notice(field_name, reason)


def measured_concurrency(
    draft: PointDraft,
    rate_field: str,
    requests_per_s: Stated | None,
    latency_s: Stated | None,
    ctx: RecordContext,
) -> bool:
    """The one rule for runs without a fixed concurrency, in every format: the mean number of
    requests in flight (request throughput × mean end-to-end latency), rounded; False, with a
    notice, where the file lacks either figure (the caller then keeps no point)."""
    if requests_per_s is None or latency_s is None:
        notice_once(ctx, rate_field, RATE_SKIPPED)
        return False
    mean = requests_per_s.value * latency_s.value
    draft.set("concurrency", max(1, round(mean)), f"{requests_per_s.name} × {latency_s.name}")
    notice_once(ctx, rate_field, RATE_MEASURED)
    return True


def _request_rate(raw: Mapping[str, Any]) -> Stated | None:
    """Requests per second of a raw result: `request_throughput`, else completed ÷ duration."""
    found = _positive(raw, "request_throughput")
    completed, duration = _positive(raw, "completed"), _positive(raw, "duration")
    if found is None and completed is not None and duration is not None:
        found = Stated(completed.value / duration.value, "completed ÷ duration")
    return found


def _mean_latency(raw: Mapping[str, Any], e2el: str) -> Stated | None:
    """Mean end-to-end latency in seconds: `mean_<e2el>_ms`, else the mean of `latencies` (s)."""
    mean_ms = _positive(raw, f"mean_{e2el}_ms")
    if mean_ms is not None:
        return Stated(mean_ms.value / 1000, mean_ms.name)
    mean = _mean(raw.get("latencies"))
    return None if mean is None else Stated(mean, "mean of latencies")


def _mean(values: Any) -> float | None:
    """The mean of a list of positive numbers; None for anything else (a bad value included)."""
    numbers = [positive_number(v) for v in values] if isinstance(values, list) else [None]
    good = [n for n in numbers if n is not None]
    return sum(good) / len(good) if good and len(good) == len(numbers) else None


def _concurrency(
    draft: PointDraft, raw: Mapping[str, Any], meta: RunMetadata, e2el: str, ctx: RecordContext
) -> bool:
    """`max_concurrency` (else the metadata's); a run without one is measured (measured_concurrency)."""
    if raw.get("max_concurrency") is not None or meta.concurrency is not None:
        draft.set("concurrency", raw.get("max_concurrency") or meta.concurrency, "max_concurrency")
        return True
    return measured_concurrency(draft, "request_rate", _request_rate(raw), _mean_latency(raw, e2el), ctx)


def identity(draft: PointDraft, meta: RunMetadata, meta_name: str) -> None:
    draft.set("hardware", meta.hardware, f"{meta_name}: hardware")
    draft.set("variant", meta.variant, f"{meta_name}: variant")
    draft.set("workload", meta.workload, f"{meta_name}: workload")
    draft.set("precision", meta.precision, f"{meta_name}: precision")
    draft.set("disagg", meta.disagg, f"{meta_name}: disagg")
    draft.set("tp", meta.tp, f"{meta_name}: tp")
    draft.set("ep", meta.ep, f"{meta_name}: ep")
    draft.set("pp", meta.pp if meta.pp > 1 else None, f"{meta_name}: pp")
    draft.set("dp_attention", meta.dp_attention, f"{meta_name}: dp_attention")
    draft.set("prefill_gpus", meta.prefill_gpus, f"{meta_name}: prefill_gpus")
    draft.set("decode_gpus", meta.decode_gpus, f"{meta_name}: decode_gpus")


def per_gpu(
    draft: PointDraft,
    throughput: Mapping[str, Stated],
    gpus: tuple[int | None, int | None],
    ctx: RecordContext,
    meta_name: str,
) -> None:
    """Divide the deployment's tok/s ("total", "output": as the file states it) by its GPUs."""
    total_gpus, output_gpus = gpus
    if not total_gpus or not output_gpus:
        ctx.missing(
            f"{meta_name}: gpu_count",
            "missing: give gpu_count, tp (and pp), or "
            "prefill_gpus and decode_gpus so throughput can be divided per GPU",
        )
        return
    draft.set("gpu_count", total_gpus, f"{meta_name}: gpu_count")
    draft.set("output_gpu_count", output_gpus, f"{meta_name}: decode_gpus")
    for ours, key, n in (
        ("throughput_per_gpu", "total", total_gpus),
        ("output_throughput_per_gpu", "output", output_gpus),
    ):
        if key in throughput:
            draft.set(ours, throughput[key].value / n, throughput[key].name)


def _file_throughput(raw: Mapping[str, Any], total_key: str, ctx: RecordContext) -> dict[str, Stated]:
    """Total and output tok/s as written; a file without the total (older SGLang) gives it as
    (total_input_tokens + total_output_tokens) ÷ duration, which is how the clients compute it."""
    found: dict[str, Stated] = {}
    for ours, key in (("total", total_key), ("output", "output_throughput")):
        if raw.get(key) is None:
            continue
        try:
            found[ours] = Stated(parse_number(raw[key]), key)
        except ValueError as exc:
            ctx.error(key, str(exc))
    if raw.get(total_key) is None:
        found.update(_total_from_tokens(raw))
    return found


def _total_from_tokens(raw: Mapping[str, Any]) -> dict[str, Stated]:
    """{"total": (total_input_tokens + total_output_tokens) ÷ duration}, where the file has them."""
    tokens = [_positive(raw, key) for key in ("total_input_tokens", "total_output_tokens", "duration")]
    if None in tokens:
        return {}
    inputs, outputs, duration = (t.value for t in tokens if t is not None)
    return {
        "total": Stated(
            (inputs + outputs) / duration, "(total_input_tokens + total_output_tokens) ÷ duration"
        )
    }


def model_key(
    draft: PointDraft, meta: RunMetadata, meta_name: str, path_field: str, path: Any, ctx: RecordContext
) -> None:
    """The model key: the metadata's, else one recognised from the file's model path."""
    model = meta.model or normalise_model(None, path if isinstance(path, str) else None)
    draft.set("model", model, f"{meta_name}: model")
    draft.names.setdefault("model", f"{meta_name}: model")  # where it must be given
    if model is None:  # the same for every file the metadata file applies to: said once per folder
        ctx.missing(
            f"{meta_name}: model",
            f"missing: the result's {path_field} is not a known model key: add "
            "model: <key> to the metadata file (a folder's _meta.yaml for every file below it, "
            "<name>.meta.yaml for one file)",
        )


def _sequences(
    draft: PointDraft,
    raw: Mapping[str, Any],
    meta: RunMetadata,
    meta_name: str,
    ctx: RecordContext,
    *,
    nominal: bool,
) -> None:
    """ISL/OSL: metadata, checked against the file; else `random_*_len`; else token totals ÷ completed."""
    for ours, given, setting, total in (
        ("isl", meta.isl, "random_input_len", "total_input_tokens"),
        ("osl", meta.osl, "random_output_len", "total_output_tokens"),
    ):
        stated = _positive(raw, setting) if nominal else None
        measured = None
        tokens, completed = _positive(raw, total), _positive(raw, "completed")
        if tokens is not None and completed is not None:
            measured = Stated(tokens.value / completed.value, f"{total} ÷ completed")
        sequence_length(
            draft,
            ours,
            (given, f"{meta_name}: {ours}"),
            Stated(stated.value, setting) if stated else None,
            measured,
            ctx,
            range_ratio(meta, raw if nominal else {}),  # a dataset of its own lengths draws none
            labelled=meta.workload is not None,
        )


def range_ratio(meta: RunMetadata, raw: Mapping[str, Any]) -> float | None:
    """The range lengths were drawn from: the metadata's random_range_ratio, else the client's
    own (SGLang records `random_range_ratio`, drawing from [max(1, ratio × length), length]; its
    long-time default 0.0 draws from 1 to the length)."""
    if meta.random_range_ratio is not None:
        return meta.random_range_ratio
    try:
        recorded = parse_number(raw.get("random_range_ratio"))
    except ValueError:
        return None
    return recorded if 0 <= recorded <= 1 else None


def _positive(raw: Mapping[str, Any], key: str) -> Stated | None:
    """raw[key] as a positive number, or None when absent or not one (checked elsewhere)."""
    value = positive_number(raw.get(key))
    return None if value is None else Stated(value, key)


def client_run(
    meta: RunMetadata,
    meta_name: str,
    model_path: tuple[str, Any],
    stated: Mapping[str, Stated],
    means: Mapping[str, Stated],
    ctx: RecordContext,
) -> PointDraft:
    """What a client that knows nothing of the deployment (AIPerf, GuideLLM) gives a draft: the
    metadata's identity, the model, and ISL/OSL from its settings (`stated`) or `means`."""
    draft = PointDraft()
    model_key(draft, meta, meta_name, *model_path, ctx)
    draft.set("framework", meta.framework, f"{meta_name}: framework")
    draft.names.setdefault("framework", f"{meta_name}: framework")  # the client cannot know it
    draft.set("spec_method", meta.spec_method, f"{meta_name}: spec_method")
    identity(draft, meta, meta_name)
    for ours, given in (("isl", meta.isl), ("osl", meta.osl)):
        sequence_length(
            draft,
            ours,
            (given, f"{meta_name}: {ours}"),
            stated.get(ours),
            means.get(ours),
            ctx,
            meta.random_range_ratio,
            labelled=meta.workload is not None,
        )
    return draft


def vllm_result(
    raw: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> PointDraft | None:
    """One `benchmark_serving` / `vllm bench serve` result (also a sweep's `run=N.json`)."""
    draft = PointDraft()
    model_key(draft, meta, meta_name, "model_id", raw.get("model_id"), ctx)
    draft.set("framework", meta.framework or raw.get("backend"), f"{meta_name}: framework")
    draft.set("spec_method", meta.spec_method, f"{meta_name}: spec_method")
    identity(draft, meta, meta_name)
    _sequences(draft, raw, meta, meta_name, ctx, nominal=True)
    if not _concurrency(draft, raw, meta, "e2el", ctx):
        return None
    _completion_check(raw, ctx)
    per_gpu(draft, _file_throughput(raw, "total_token_throughput", ctx), meta.gpus(), ctx, meta_name)
    add_latencies_ms(draft, raw)
    return draft


_SGLANG_LAYOUT = {"tp": "tp_size", "ep": "ep_size", "pp": "pp_size", "gpu_count": "dp_size"}


def _sglang_layout(info: Mapping[str, Any], meta: RunMetadata, ctx: RecordContext) -> RunMetadata:
    """The metadata with what the server recorded of its layout where the metadata file gives
    none: TP, EP, PP, DP attention, and the GPU count where it runs data-parallel replicas.
    `--dp-size N` without DP attention starts N replicas of the TP × PP group, so N × TP × PP
    GPUs serve the run; with DP attention the N groups share the TP GPUs."""
    update: dict[str, Any] = {}
    if meta.tp is None and info.get("tp_size") is not None:
        update = {"tp": info["tp_size"], "ep": info.get("ep_size"), "pp": info.get("pp_size") or meta.pp}
        if meta.dp_attention is None and "enable_dp_attention" in info:
            update["dp_attention"] = info["enable_dp_attention"]
    replicas, tp, pp = info.get("dp_size"), update.get("tp", meta.tp), update.get("pp", meta.pp)
    dp_attention = update.get("dp_attention", meta.dp_attention)
    replicated = meta.gpu_count is None and not dp_attention  # dp_size counts replicas
    if (
        replicated
        and isinstance(replicas, int)
        and isinstance(tp, int)
        and isinstance(pp, int)
        and replicas > 1
    ):
        update["gpu_count"] = replicas * tp * pp
    if not update:
        return meta
    try:  # validated like the metadata file itself, never copied in unchecked
        return RunMetadata.model_validate({**meta.model_dump(exclude_unset=True), **update})
    except ValidationError as exc:
        for err in exc.errors():
            theirs = _SGLANG_LAYOUT.get(str(err["loc"][0]), "enable_dp_attention")
            ctx.error(f"server_info.{theirs}", err["msg"])
    return meta


def sglang_result(
    raw: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> PointDraft | None:
    """One line of SGLang `bench_serving` JSONL."""
    draft = PointDraft()
    info = as_mapping(raw.get("server_info"))
    model_key(draft, meta, meta_name, "server_info.model_path", info.get("model_path"), ctx)
    draft.set("framework", meta.framework or "sglang", f"{meta_name}: framework")
    algorithm = info.get("speculative_algorithm")
    draft.set("spec_method", meta.spec_method or algorithm, "server_info.speculative_algorithm")
    meta = _sglang_layout(info, meta, ctx)
    identity(draft, meta, meta_name)
    dataset = raw.get("dataset_name")
    _sequences(draft, raw, meta, meta_name, ctx, nominal=dataset in (None, "random"))
    if not _concurrency(draft, raw, meta, "e2e_latency", ctx):
        return None
    _completion_check(raw, ctx)
    total_key = "total_throughput"
    if raw.get(total_key) is None and raw.get("input_throughput") is not None:
        try:
            raw = {
                **raw,
                total_key: parse_number(raw["input_throughput"]) + parse_number(raw.get("output_throughput")),
            }
        except ValueError as exc:
            ctx.error("input_throughput", str(exc))
    per_gpu(draft, _file_throughput(raw, total_key, ctx), meta.gpus(), ctx, meta_name)
    add_latencies_ms(draft, raw, names={"e2el": "e2e_latency"})
    return draft
