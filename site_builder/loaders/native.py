"""Our own point format, JSON or CSV, for people who type in their own numbers.

Field by field in docs/data-format.md. Latency columns are in milliseconds, named
`{mean,median,std,p90,p99,p99.9}_{ttft,tpot,itl,e2el}_ms`, as benchmark tools print them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.loaders.common import (
    LATENCY_METRICS,
    LATENCY_STATS,
    PointDraft,
    RecordContext,
    add_latencies_ms,
)
from site_builder.problems import suggest

NATIVE_FORMAT = "site-builder-points"
NATIVE_VERSION = 1

IDENTITY_COLUMNS = (
    "model",
    "hardware",
    "framework",
    "precision",
    "spec_method",
    "disagg",
    "multinode",
    "tp",
    "ep",
    "pp",
    "dp_attention",
    "prefill_tp",
    "prefill_ep",
    "prefill_workers",
    "prefill_gpus",
    "prefill_dp_attention",
    "decode_tp",
    "decode_ep",
    "decode_workers",
    "decode_gpus",
    "decode_dp_attention",
    "gpu_count",
    "isl",
    "osl",
    "concurrency",
)
MEASUREMENT_COLUMNS = (
    "throughput_per_gpu",
    "output_throughput_per_gpu",
    "input_throughput_per_gpu",
    "interactivity",
    "avg_power_w",
    "joules_per_total_token",
    "joules_per_output_token",
)
LATENCY_COLUMNS = tuple(f"{stat}_{metric}_ms" for metric in LATENCY_METRICS for stat in LATENCY_STATS)
PROVENANCE_COLUMNS = ("date", "run_url", "image", "note")
COLUMNS = IDENTITY_COLUMNS + MEASUREMENT_COLUMNS + LATENCY_COLUMNS + PROVENANCE_COLUMNS
REQUIRED_COLUMNS = (
    "model",
    "hardware",
    "framework",
    "precision",
    "isl",
    "osl",
    "concurrency",
    "throughput_per_gpu",
)


def looks_native_columns(columns: list[str]) -> bool:
    return all(c in columns for c in ("model", "hardware", "throughput_per_gpu", "concurrency"))


def record(row: Mapping[str, Any], ctx: RecordContext) -> PointDraft:
    draft = PointDraft()
    for key in row:
        if key not in COLUMNS:
            ctx.error(key, "unknown field" + suggest(key, COLUMNS))
    for key in IDENTITY_COLUMNS + MEASUREMENT_COLUMNS:
        draft.set(key, row.get(key), key)
    add_latencies_ms(draft, row, ctx)
    return draft
