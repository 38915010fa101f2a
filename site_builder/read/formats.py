"""The input-format registry: how each result format is recognised and read.

A format is recognised by the keys of one record (never by a file name), turns a record into a
`PointDraft` (our fields, with the names the user's file gave them), and says whether it needs a
metadata file beside it for what the client does not record (hardware, GPU count, precision).
The first format whose `detect` accepts a record reads it. Adding a format is one entry here plus
its reader module.

A client also writes files that are not results (its inputs, per-request logs, copies of the
summary in another format): a format lists those companions by file name, and the loader skips
them with a notice instead of refusing them as unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import partial
from pathlib import PurePath
from typing import Any

from site_builder.read import (
    aiperf,
    genaiperf,
    guidellm,
    inferencex,
    llmperf,
    mlperf,
    native,
    serving,
    workloads,
)
from site_builder.read.fields import PointDraft, RecordContext


@dataclass(frozen=True)
class Source:
    """What a reader may need beyond the record: the file's name and, if required, its metadata."""

    file_name: str
    metadata: serving.RunMetadata | None = None
    metadata_file: str = ""
    # for a format without a metadata file of its own, what the file's metadata gives of its
    # `fills` and the workload label: our field -> (the value, the file that gives it)
    fills: Mapping[str, tuple[Any, str]] = field(default_factory=dict)


# None: the record is refused or skipped outright, the reader having said why (nothing to validate)
Reader = Callable[[Mapping[str, Any], RecordContext, Source], PointDraft | None]
Records = list[tuple[str, Mapping[str, Any]]]


@dataclass(frozen=True)
class Companion:
    """A file a client writes beside its results that holds no result of its own.

    `pattern` is a glob over the file name. With `main`, the companion belongs to the result
    file of that name in the same folder (a copy of it, or its per-request records): skipped when
    that file is there, refused otherwise. A `main` starting with `*` names the result by what
    the pattern's leading `*` matched (`*_summary.json` beside `x_individual_responses.json`).
    """

    pattern: str
    what: str
    main: str | None = None

    def main_file(self, file_name: str) -> str | None:
        """The name of the result file this companion belongs to, if it belongs to one."""
        if self.main is None or not self.main.startswith("*") or not self.pattern.startswith("*"):
            return self.main
        stem = file_name[: len(file_name) - (len(self.pattern) - 1)]
        return stem + self.main[1:]


@dataclass(frozen=True)
class RequestLog:
    """A client's per-request records, known by the keys every one of them holds: a file of them
    is skipped with a notice, whatever its name (a copy renamed into a folder of its own)."""

    keys: frozenset[str]
    what: str


@dataclass(frozen=True)
class InputFormat:
    name: str
    title: str  # in messages: "a vLLM benchmark result"
    detect: Callable[[set[str]], bool]  # the record's keys
    read: Reader | None  # None: recognised, not supported yet
    needs_metadata: bool = False
    skip: Callable[[Mapping[str, Any]], tuple[str, str] | None] = lambda record: None  # (field, why) left out
    # a run its client writes where the layout, not the record, says it is no result (field, why)
    skip_file: Callable[[PurePath], tuple[str, str] | None] = lambda path: None
    # the model a file's place in its client's layout names, and that folder (MLPerf's benchmark
    # folder): a metadata file above that folder may not give its runs another model
    model_folder: Callable[[PurePath], tuple[str, PurePath] | None] = lambda path: None
    expand: Callable[[Mapping[str, Any]], Records] | None = None  # a document holding many records
    client: Callable[[Mapping[str, Any]], str | None] = lambda record: None  # client and version
    date: Callable[[Mapping[str, Any]], str | None] = lambda record: None  # run date, if not `date`
    run_url: Callable[[Mapping[str, Any]], Any] = lambda record: None  # the run's address, if not `run_url`
    companions: tuple[Companion, ...] = ()
    request_log: RequestLog | None = None
    # an agentic or trace-replay run: what marks it (read/workloads.py, the one rule for them)
    unfixed: Callable[[Mapping[str, Any]], workloads.Unfixed | None] = lambda record: None
    # the dataset a record says it ran on (read/workloads.py), where its format records one: it
    # wins over a metadata file's `workload:`, so one file may mix fixed and variable lengths
    dataset: Callable[[Mapping[str, Any]], workloads.RecordDataset | None] = lambda record: None
    # metadata fields it needs beyond RunMetadata's own (`gpu_count`: any way of giving the GPUs),
    # asked for once per folder with `metadata_hint` (where to find them)
    requires: tuple[str, ...] = ()
    metadata_hint: str = ""
    # a format written as text: the file names it is read from, and how a file becomes a record
    text_files: tuple[str, ...] = ()
    parse_text: Callable[[str], Mapping[str, Any]] | None = None
    # a format that needs no metadata file: the metadata fields that fill what a record lacks
    fills: tuple[str, ...] = ()


RunReader = Callable[[Mapping[str, Any], serving.RunMetadata, str, RecordContext], PointDraft | None]


def _with_metadata(
    result: RunReader, record: Mapping[str, Any], ctx: RecordContext, source: Source
) -> PointDraft | None:
    """A reader of a format that needs a metadata file (`needs_metadata`: the loader reads it first)."""
    assert source.metadata is not None
    return result(record, source.metadata, source.metadata_file, ctx)


def _vllm_client(record: Mapping[str, Any]) -> str:
    """`vllm bench serve` writes `endpoint_type`; the older benchmark_serving.py (and its
    InferenceX fork) does not."""
    return "vLLM bench serve" if "endpoint_type" in record else "vLLM benchmark_serving"


def _sglang_client(record: Mapping[str, Any]) -> str:
    info = record.get("server_info")
    version = info.get("version") if isinstance(info, Mapping) else None
    return f"SGLang bench_serving (sglang {version})" if isinstance(version, str) else "SGLang bench_serving"


FORMATS: tuple[InputFormat, ...] = (
    InputFormat(
        name="inferencex-api",
        title="an InferenceX dashboard row",
        detect=lambda keys: {"metrics", "hardware"} <= keys,
        read=lambda record, ctx, source: inferencex.api_row(record, ctx),
        unfixed=workloads.inferencex,
    ),
    InputFormat(
        name="inferencex-agg",
        title="an InferenceX aggregate row",
        detect=lambda keys: {"tput_per_gpu", "hw"} <= keys,
        read=lambda record, ctx, source: inferencex.agg_row(record, ctx, source.file_name, source.fills),
        unfixed=workloads.inferencex,
        date=lambda record: record.get("timestamp") if isinstance(record.get("timestamp"), str) else None,
        fills=("model", "isl", "osl"),
    ),
    InputFormat(
        name="inferencex-csv",
        title="a row of the InferenceX dashboard's CSV export",
        detect=inferencex.csv_detect,
        read=lambda record, ctx, source: inferencex.csv_row(record, ctx),
        date=lambda record: record.get("Date") if isinstance(record.get("Date"), str) else None,
        run_url=lambda record: record.get("Run URL"),
        client=lambda record: "InferenceX dashboard CSV export",
    ),
    InputFormat(
        name="sglang",
        title="an SGLang bench_serving result",
        detect=lambda keys: "server_info" in keys or "total_output_tokens_retokenized" in keys,
        read=partial(_with_metadata, serving.sglang_result),
        needs_metadata=True,
        client=_sglang_client,
        dataset=workloads.sglang,
    ),
    InputFormat(
        name="vllm",
        title="a vLLM benchmark_serving result",
        detect=lambda keys: (
            "max_concurrency" in keys and bool({"total_token_throughput", "output_throughput"} & keys)
        ),
        read=partial(_with_metadata, serving.vllm_result),
        needs_metadata=True,
        client=_vllm_client,
        requires=("gpu_count",),
        companions=(
            Companion("*.pytorch.json", "benchmark_serving's PyTorch-benchmark copy of a result"),
            Companion("warmup.json", "vllm bench sweep's warm-up run"),
            Companion("summary.json", "vllm bench sweep's list of the run=N.json results"),
            Companion("summary.csv", "vllm bench sweep's table of the run=N.json results"),
            Companion("*.failure.json", "vllm bench sweep's record of a failed run"),
            Companion(
                "gpu_metrics.csv",
                "the InferenceX runner's GPU telemetry (nvidia-smi/amd-smi power and clocks; "
                "its mean power is attached to the results beside it that record their window)",
            ),
        ),
    ),
    InputFormat(
        name="genai-perf",
        title="a GenAI-Perf profile export",
        detect=genaiperf.detect,
        read=partial(_with_metadata, genaiperf.result),
        needs_metadata=True,
        client=genaiperf.client,
        requires=("gpu_count",),
        companions=(
            Companion("*_genai_perf.csv", "GenAI-Perf's CSV copy of the summary", "*_genai_perf.json"),
            Companion("llm_inputs.json", "GenAI-Perf's request payloads"),
        ),
    ),
    InputFormat(
        name="perf-analyzer-export",
        title="a perf_analyzer profile export",
        detect=lambda keys: {"experiments", "service_kind"} <= keys,
        read=None,
        skip=lambda record: (
            "experiments",
            "skipped: perf_analyzer's per-request records (GenAI-Perf's summary of them, "
            "*_genai_perf.json, is read)",
        ),
    ),
    InputFormat(
        name="aiperf",
        title="an AIPerf profile export",
        detect=lambda keys: (
            "aiperf_version" in keys
            or {"schema_version", "input_config"} <= keys
            or {"input_config", "request_throughput"} <= keys
            or {"input_config", "records"} <= keys  # the blocks under `records` (until Oct 2025)
        ),
        read=partial(_with_metadata, aiperf.result),
        expand=aiperf.opened,
        needs_metadata=True,
        unfixed=workloads.aiperf,
        client=aiperf.client,
        requires=("gpu_count",),
        date=lambda record: record.get("start_time") if isinstance(record.get("start_time"), str) else None,
        companions=(
            Companion(
                "profile_export_aiperf.csv", "AIPerf's CSV copy of the summary", "profile_export_aiperf.json"
            ),
            Companion("profile_export*.jsonl", "AIPerf's per-request records"),
            Companion("inputs.json", "AIPerf's (or GenAI-Perf's) request payloads"),
            Companion("run_config.json", "AIPerf's run configuration"),
            Companion("*timeslices*", "AIPerf's per-time-slice metrics"),
            Companion("server_metrics_export*", "AIPerf's server metrics"),
            Companion("gpu_telemetry_export*", "AIPerf's GPU telemetry"),
            Companion("phase_manifest.json", "AIPerf's list of phase artifacts"),
            Companion("search_history.json", "AIPerf's search history"),
            Companion(
                "profile_export_aiperf_aggregate.*",
                "AIPerf's aggregate over trials (each trial's profile_export_aiperf.json is loaded instead)",
            ),
            Companion(
                "profile_export_aiperf_collated.*",
                "AIPerf's pooled trials (each trial's profile_export_aiperf.json is loaded instead)",
            ),
            Companion(
                "profile_export_aiperf_sweep.*",
                "AIPerf's sweep aggregate (each run's profile_export_aiperf.json is loaded instead)",
            ),
        ),
    ),
    InputFormat(
        name="guidellm",
        title="a GuideLLM benchmarks report",
        detect=lambda keys: "benchmarks" in keys and bool({"config", "metadata"} & keys),
        read=partial(_with_metadata, guidellm.result),
        needs_metadata=True,
        expand=guidellm.benchmarks,
        client=guidellm.client,
        requires=("gpu_count",),
        date=guidellm.date,
        companions=(
            Companion("benchmarks.csv", "GuideLLM's CSV copy of the report", "benchmarks.json"),
            Companion("scenario.json", "a GuideLLM scenario (the run's settings)"),
            Companion("*.scenario.json", "a GuideLLM scenario (the run's settings)"),
        ),
    ),
    InputFormat(
        name="llmperf",
        title="an llmperf summary",
        detect=llmperf.detect,
        read=partial(_with_metadata, llmperf.result),
        needs_metadata=True,
        client=llmperf.client,
        requires=("gpu_count",),
        date=llmperf.date,
        companions=(
            Companion(
                "*_individual_responses.json", "llmperf's per-request records of a run", "*_summary.json"
            ),
        ),
        request_log=RequestLog(llmperf.REQUEST_KEYS, "llmperf's per-request records of a run"),
    ),
    InputFormat(
        name="mlperf",
        title="an MLPerf LoadGen summary",
        detect=mlperf.detect,
        read=partial(_with_metadata, mlperf.result),
        needs_metadata=True,
        skip=mlperf.skip,
        skip_file=mlperf.skip_file,
        model_folder=mlperf.benchmark_folder,
        client=mlperf.client,
        requires=("model", "isl", "gpu_count"),
        metadata_hint=(
            "; a submission's systems/<system>.json gives the GPUs as accelerators_per_node × "
            "number_of_nodes, and the summary records no input lengths, so isl is the input bound "
            "its benchmark defines (llama2-70b: max_seq_len 1024)"
        ),
        text_files=(mlperf.SUMMARY_FILE,),
        parse_text=mlperf.parse_summary,
        companions=(
            Companion("mlperf_log_detail.txt", "MLPerf LoadGen's detailed log", mlperf.SUMMARY_FILE),
            Companion("mlperf_log_accuracy.json", "MLPerf LoadGen's accuracy log (the responses)"),
            Companion("mlperf_log_trace.json", "MLPerf LoadGen's trace"),
            Companion("accuracy.txt", "the MLPerf accuracy script's scores"),
            Companion(
                "spl.txt",
                "MLPerf power's analyser samples (read as the measured power of the summary beside it)",
                mlperf.SUMMARY_FILE,
            ),
        ),
    ),
    InputFormat(
        name="mlperf-power-session",
        title="an MLPerf power session record",
        detect=lambda keys: {"session_name", "phases", "sources", "uuid"} <= keys,
        read=None,
        skip=lambda record: (
            "session_name",
            "skipped: an MLPerf power session record (power/client.json or server.json), not a "
            "result; the run's power is read from the spl.txt beside its mlperf_log_summary.txt",
        ),
    ),
    InputFormat(
        name="mlperf-system",
        title="an MLPerf system description",
        detect=lambda keys: {"accelerators_per_node", "number_of_nodes", "system_name"} <= keys,
        read=None,
        skip=lambda record: (
            "accelerators_per_node",
            "skipped: an MLPerf system description, not a result (its accelerators_per_node × "
            "number_of_nodes is the gpu_count to give the summaries' metadata)",
        ),
    ),
    InputFormat(
        name="native",
        title="a native record",
        detect=lambda keys: native.looks_native_columns(list(keys)),
        read=lambda record, ctx, source: native.record(record, ctx),
    ),
)
BY_NAME: dict[str, InputFormat] = {f.name: f for f in FORMATS}
NATIVE = BY_NAME["native"]


def detect(record: Mapping[str, Any]) -> InputFormat | None:
    """The format one record is in, judged by its keys alone."""
    keys = set(record)
    return next((f for f in FORMATS if f.detect(keys)), None)


def companion(file_name: str) -> tuple[InputFormat, Companion] | None:
    """The format whose client writes a file of this name beside its results, if any."""
    for input_format in FORMATS:
        for known in input_format.companions:
            if fnmatchcase(file_name, known.pattern):
                return input_format, known
    return None


def request_log(records: list[Mapping[str, Any]]) -> RequestLog | None:
    """The per-request records a file holds, every one of them, if a format names them."""
    keys = [set(record) for record in records]
    found = (f.request_log for f in FORMATS if f.request_log is not None)
    return next((log for log in found if keys and all(log.keys <= k for k in keys)), None)


def text_format(file_name: str) -> InputFormat | None:
    """The format written as text whose files have this name, if any."""
    return next((f for f in FORMATS if any(fnmatchcase(file_name, name) for name in f.text_files)), None)


def supported_names() -> str:
    names = [f.name for f in FORMATS if f.read is not None]
    return ", ".join(names)
