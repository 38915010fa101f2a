"""The input-format registry: how each result format is recognised and read.

A format is recognised by the keys of one record (never by a file name), turns a record into a
`PointDraft` (our fields, with the names the user's file gave them), and says whether it needs a
metadata file beside it for what the client does not record (hardware, GPU count, precision).
The first format whose `detect` accepts a record reads it. Adding a format is one entry here plus
its reader module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from site_builder.loaders import inferencex, native, serving
from site_builder.loaders.common import PointDraft, RecordContext


@dataclass(frozen=True)
class Source:
    """What a reader may need beyond the record: the file's name and, if required, its metadata."""

    file_name: str
    metadata: serving.RunMetadata | None = None
    metadata_file: str = ""


Reader = Callable[[Mapping[str, Any], RecordContext, Source], PointDraft]


@dataclass(frozen=True)
class InputFormat:
    name: str
    title: str  # in messages: "a vLLM benchmark result"
    detect: Callable[[set[str]], bool]  # the record's keys
    read: Reader | None  # None: recognised, not supported yet
    needs_metadata: bool = False
    skip: Callable[[Mapping[str, Any]], str | None] = lambda record: None  # why a record is left out


def _vllm(record: Mapping[str, Any], ctx: RecordContext, source: Source) -> PointDraft:
    assert source.metadata is not None
    return serving.vllm_result(record, source.metadata, source.metadata_file, ctx)


def _sglang(record: Mapping[str, Any], ctx: RecordContext, source: Source) -> PointDraft:
    assert source.metadata is not None
    return serving.sglang_result(record, source.metadata, source.metadata_file, ctx)


def _agentic(record: Mapping[str, Any]) -> str | None:
    if inferencex.is_agentic(record):
        return "agentic (AgentX) row skipped: not a fixed ISL/OSL point"
    return None


FORMATS: tuple[InputFormat, ...] = (
    InputFormat(
        name="inferencex-api",
        title="an InferenceX dashboard row",
        detect=lambda keys: {"metrics", "hardware"} <= keys,
        read=lambda record, ctx, source: inferencex.api_row(record, ctx),
    ),
    InputFormat(
        name="inferencex-agg",
        title="an InferenceX aggregate row",
        detect=lambda keys: {"tput_per_gpu", "hw"} <= keys,
        read=lambda record, ctx, source: inferencex.agg_row(record, ctx, source.file_name),
        skip=_agentic,
    ),
    InputFormat(
        name="sglang",
        title="an SGLang bench_serving result",
        detect=lambda keys: "server_info" in keys or "total_output_tokens_retokenized" in keys,
        read=_sglang,
        needs_metadata=True,
    ),
    InputFormat(
        name="vllm",
        title="a vLLM benchmark_serving result",
        detect=lambda keys: (
            "max_concurrency" in keys and bool({"total_token_throughput", "output_throughput"} & keys)
        ),
        read=_vllm,
        needs_metadata=True,
    ),
    InputFormat(
        name="aiperf",
        title="an AIPerf profile export",
        detect=lambda keys: "aiperf_version" in keys or {"schema_version", "input_config"} <= keys,
        read=None,
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


def supported_names() -> str:
    names = [f.name for f in FORMATS if f.read is not None]
    return ", ".join(names)
