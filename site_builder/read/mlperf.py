"""MLPerf Inference LoadGen `mlperf_log_summary.txt`: one run of one scenario per file.

The summary is text, a `key : value` a line ("Completed tokens per second: 21028.23",
"50.00 percentile time to output token (ns)   : 143943044"); `parse_summary` makes it a
record of those keys, which the format registry then recognises like any other.

What a summary gives and what it does not:
- An LLM run in the Server (or Interactive) scenario: queries arrive as a Poisson process at a
  target rate, so there is no fixed concurrency; the point's is the measured mean, completed
  samples per second × mean latency (Little's law), the one rule every format applies.
- Throughput is output tokens only ("Completed tokens per second"): the point is on the output
  basis (its throughput per GPU is output tok/s ÷ GPUs, as a sweep row's), and its mean output
  length is tokens ÷ samples. The input lengths are not recorded, so the metadata names `isl`.
- Latencies are in nanoseconds; LoadGen's "time to output token" is its per-sample TPOT.
- An Offline run sends every query at once and records no per-token latency: no interactivity,
  so it is skipped, said once per folder; so are accuracy runs and non-LLM benchmarks.
- A power run (MLPerf Power) also writes the analyser's samples, `spl.txt`, beside the summary:
  read as the run's measured power (read/telemetry.py). Its `performance/ranging/` run is the
  analyser's range-finding pass of the same test, so it is skipped, said once per folder.
- GPU count, hardware, precision, model and engine come from the metadata file (a submission's
  `systems/<system>.json` gives the GPUs as accelerators_per_node × number_of_nodes).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from site_builder.files import MAX_NUMBER_CHARS
from site_builder.formatting import fixed
from site_builder.read.fields import PointDraft, RecordContext, Stated, positive_number
from site_builder.read.serving import RunMetadata, client_run, measured_concurrency

SUMMARY_FILE = "mlperf_log_summary.txt"
SAMPLES = "Completed samples per second"
TOKENS = "Completed tokens per second"
_LINE = re.compile(r"^\s*([^:\s][^:]*?)\s*:\s+(\S.*?)\s*$")
_NS = 1e-9
# our latency metric -> how LoadGen names it in the mean line and in the percentile lines
_LATENCIES = {
    "ttft": ("Mean First Token latency (ns)", "percentile first token latency (ns)"),
    "tpot": ("Mean Time to Output Token (ns)", "percentile time to output token (ns)"),
    "e2el": ("Mean latency (ns)", "percentile latency (ns)"),
}
# the latency bounds of the run's test parameters, as LoadGen names them
_BOUNDS = {"TTFT": "ttft_latency (ns)", "TPOT": "tpot_latency (ns)"}
_PERCENTILES = {"median": "50.00", "p90": "90.00", "p99": "99.00", "p99.9": "99.90"}
_POINT_SCENARIOS = ("Server", "Interactive")


def parse_summary(text: str) -> dict[str, str]:
    """The summary's `key : value` lines as a record (a key given twice: its first value; the
    summary repeats "Completed tokens per second" with the same figure)."""
    record: dict[str, str] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is not None:
            record.setdefault(match.group(1), match.group(2))
    return record


def detect(keys: set[str]) -> bool:
    """A LoadGen summary: the scenario and the test mode it ran."""
    return {"Scenario", "Mode"} <= keys and "SUT name" in keys


def skip(raw: Mapping[str, Any]) -> tuple[str, str] | None:
    """Runs that give no point, and why (said once per folder)."""
    mode, scenario = str(raw.get("Mode")), str(raw.get("Scenario"))
    if mode != "PerformanceOnly":
        return "Mode", f"skipped: an MLPerf {mode} run (only performance runs give a point)"
    if scenario == "Offline":
        return "Scenario", (
            "skipped: an MLPerf Offline run sends every query at once and records no per-token "
            "latency, so it gives no interactivity (the same system's Server or Interactive run does)"
        )
    if scenario not in _POINT_SCENARIOS or TOKENS not in raw:
        return TOKENS, (
            f"skipped: an MLPerf {scenario} run without {TOKENS} (not an LLM benchmark's Server or "
            "Interactive run), so it gives no point"
        )
    return None


def skip_file(path: PurePath) -> tuple[str, str] | None:
    """An MLPerf power submission's ranging pass (`performance/ranging/`, the submission rules'
    folder): the analyser's range-finding run of the same test, not its result (`run_1`)."""
    if path.parent.name == "ranging":
        return "Scenario", (
            "skipped: the ranging run of an MLPerf power submission (the analyser's range-finding "
            "pass); the result is the run_1 beside it"
        )
    return None


_SCENARIOS = ("Server", "Interactive", "Offline", "SingleStream", "MultiStream")
_ACCURACY_TARGET = re.compile(r"-99(\.9)?$")


def benchmark_folder(path: PurePath) -> tuple[str, PurePath] | None:
    """The benchmark a summary's place in a results tree names (results/<system>/<benchmark>/
    <scenario>/performance/run_1/), without its accuracy target (llama2-70b-99 -> llama2-70b),
    and its folder; None outside that layout."""
    for folder in list(path.parents)[:4]:
        if folder.name in _SCENARIOS and folder.parent.name:
            return _ACCURACY_TARGET.sub("", folder.parent.name), folder.parent
    return None


def accuracy_target(source_file: str) -> tuple[str, str, float] | None:
    """Where a summary lies (as the user knows its path) with its benchmark folder's accuracy
    target cut ('…/llama2-70b/Server/performance/run_1/mlperf_log_summary.txt'), that folder
    ('…/llama2-70b-99.9'), and the target (99.9); None outside a benchmark folder with one.
    Submissions file a run that meets the stricter target under both (-99 and -99.9)."""
    path = PurePath(source_file)
    found = benchmark_folder(path)
    if found is None or found[0] == found[1].name:
        return None
    name, folder = found
    target = float(folder.name[len(name) :].removeprefix("-"))
    below = path.relative_to(folder).as_posix()
    return f"{folder.parent.as_posix()}/{name}/{below}", folder.as_posix(), target


def _seconds(raw: Mapping[str, Any], key: str) -> float | None:
    """A latency LoadGen writes in nanoseconds, in seconds; None where absent or not a positive
    number. (Nanoseconds exceed the numeric rule's bound, which holds the seconds instead.)"""
    text = raw.get(key)
    if not isinstance(text, str) or len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        nanoseconds = float(text)
    except ValueError:
        return None
    return nanoseconds * _NS if math.isfinite(nanoseconds) and nanoseconds > 0 else None


def result(
    raw: Mapping[str, Any], meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> PointDraft | None:
    """One Server or Interactive LoadGen summary (skip() has left out every other)."""
    samples, tokens = positive_number(raw.get(SAMPLES)), positive_number(raw.get(TOKENS))
    if samples is None or tokens is None:
        missing = SAMPLES if samples is None else TOKENS
        ctx.error(missing, f"missing or not a positive number: {raw.get(missing)!r}")
        return None
    means = {"osl": Stated(tokens / samples, f"{TOKENS} ÷ {SAMPLES}")}
    draft = client_run(meta, meta_name, ("SUT name", raw.get("SUT name")), {}, means, ctx)
    mean_latency = _seconds(raw, "Mean latency (ns)")
    if not measured_concurrency(
        draft,
        "Scenario",
        Stated(samples, SAMPLES),
        Stated(mean_latency, "Mean latency (ns)") if mean_latency else None,
        ctx,
    ):
        return None
    if raw.get("Result is") != "VALID":
        ctx.warning(
            "Result is",
            f"LoadGen judged this run {raw.get('Result is')!r} (a latency, duration or query-count "
            "constraint was not met): its figures are kept, but it is not a valid MLPerf result",
        )
    _throughput(draft, tokens, meta, meta_name, ctx)
    for ours, (mean_key, percentile_key) in _LATENCIES.items():
        draft.add_latency(ours, "mean", _seconds(raw, mean_key), mean_key)
        for stat, percent in _PERCENTILES.items():
            key = f"{percent} {percentile_key}"
            draft.add_latency(ours, stat, _seconds(raw, key), key)
    median_tpot = f"50.00 {_LATENCIES['tpot'][1]}"
    draft.set("median_tpot_s", draft.values.get("tpot_median"), median_tpot)
    if "median_tpot_s" not in draft.values:
        ctx.error(median_tpot, "missing: LoadGen writes it for LLM runs with token latencies")
    return draft


def _throughput(
    draft: PointDraft, tokens: float, meta: RunMetadata, meta_name: str, ctx: RecordContext
) -> None:
    """Output tok/s ÷ GPUs, on the output basis: the summary records no input tokens."""
    gpus, _ = meta.gpus()
    if not gpus:  # the loader asks for it once per folder (formats.InputFormat.requires)
        return
    draft.set("gpu_count", gpus, f"{meta_name}: gpu_count")
    draft.set("output_gpu_count", gpus, f"{meta_name}: gpu_count")
    draft.set("throughput_per_gpu", tokens / gpus, TOKENS)
    draft.set("output_throughput_per_gpu", tokens / gpus, TOKENS)
    draft.set("throughput_basis", "output", TOKENS)


def client(raw: Mapping[str, Any]) -> str:
    """The scenario, and the latency bounds the run was held to: LoadGen writes an Interactive
    run as a Server run with tighter bounds (llama2-70b: TTFT 450 ms and TPOT 40 ms instead of
    2,000 and 200), so the bounds are what tells the two apart in the summary."""
    scenario = raw.get("Scenario")
    if not isinstance(scenario, str):
        return "MLPerf Inference LoadGen"
    bounds = [
        f"{name} ≤ {fixed(seconds * 1000, 0, thousands=True)} ms"
        for name, key in _BOUNDS.items()
        if (seconds := _seconds(raw, key)) is not None
    ]
    return f"MLPerf Inference LoadGen ({', '.join([scenario, *bounds])})"
