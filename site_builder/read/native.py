"""Our own point format, JSON or CSV, for people who type in their own numbers.

Field by field in docs/data-format.md. Latency columns are in milliseconds, named
`{mean,median,std,p90,p99,p99.9}_{ttft,tpot,itl,e2el}_ms`, as benchmark tools print them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from site_builder.problems import suggest
from site_builder.read.fields import (
    LATENCY_METRICS,
    LATENCY_STATS,
    PointDraft,
    RecordContext,
    latency_ms_field,
)
from site_builder.read.validate_rows import Drafts, Objects

Unknown = tuple[int, str, str]  # (record, field, reason)
Mask = npt.NDArray[np.bool_]

NATIVE_FORMAT = "site-builder-points"
NATIVE_VERSION = 1

IDENTITY_COLUMNS = (
    "model",
    "hardware",
    "framework",
    "precision",
    "spec_method",
    "variant",
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
    "workload",
    "concurrency",
)
MEASUREMENT_COLUMNS = (
    "throughput_per_gpu",
    "throughput_basis",
    "output_throughput_per_gpu",
    "input_throughput_per_gpu",
    "interactivity",
    "avg_power_w",
    "joules_per_total_token",
    "joules_per_output_token",
    "isl_mean",
    "osl_mean",
    "random_range_ratio",
)
LATENCY_COLUMNS = tuple(
    latency_ms_field(metric, stat) for metric in LATENCY_METRICS for stat in LATENCY_STATS
)
PROVENANCE_COLUMNS = ("date", "run_url", "image", "note")
COLUMNS = IDENTITY_COLUMNS + MEASUREMENT_COLUMNS + LATENCY_COLUMNS + PROVENANCE_COLUMNS
DRAFTED = IDENTITY_COLUMNS + MEASUREMENT_COLUMNS + LATENCY_COLUMNS  # what validation reads
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
    """One record (a JSON object): its fields as written; a field the format lacks is an error."""
    draft = PointDraft()
    ctx.unknown_fields(row, COLUMNS)
    for key in DRAFTED:
        draft.set(key, row.get(key), key)
    return draft


def columns(table: Mapping[str, Objects], holds: Callable[[Objects], Mask]) -> tuple[Drafts, list[Unknown]]:
    """Records given as a table, each column of one type (a CSV's text; a Parquet file's, None
    where null), and which cells hold a value (`holds`): the records' drafts, and each field a
    record holds that the format lacks (record, field, reason), an error as in `record`; a
    record's in column order."""
    unknown: list[Unknown] = []
    for key, values in table.items():
        if key not in COLUMNS:
            reason = "unknown field" + suggest(key, COLUMNS)
            unknown.extend((record, key, reason) for record in np.flatnonzero(holds(values)).tolist())
    unknown.sort(key=lambda found: found[0])  # stable: a record's in column order
    size = len(next(iter(table.values()))) if table else 0
    drafted = {key: values for key, values in table.items() if key in DRAFTED}
    return Drafts(size, drafted, uniform=True), unknown
