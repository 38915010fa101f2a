"""Read node-level sweep rows (site_builder/sweeps.py) from the native format, CSV or JSON.

Columns in docs/data-format.md ("Node-level sweeps"); every bad cell is named by its column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from site_builder.files import identifier
from site_builder.loaders.common import (
    RecordContext,
    is_empty,
    normalise_framework,
    normalise_hardware,
    normalise_precision,
    read_number,
)
from site_builder.points import Provenance
from site_builder.problems import suggest
from site_builder.sweeps import SweepRow

IDENTITY = ("model", "hardware", "framework", "precision", "gpu_count", "isl", "osl", "concurrency")
MEASUREMENTS = ("output_throughput", "median_tpot_ms", "median_ttft_ms", "system_power_w")
PROVENANCE = ("date", "run_url", "image", "note")
COLUMNS = IDENTITY + MEASUREMENTS + PROVENANCE
REQUIRED = ("model", "hardware", "precision", "isl", "osl", "concurrency")
# a column only a sweep row has: what tells a sweep from a per-GPU native point
SWEEP_ONLY = ("output_throughput", "system_power_w")


def looks_sweep(keys: set[str]) -> bool:
    """A record (or CSV header) of node-level sweep rows: the identity columns and a column only a
    sweep row has, or latency alone without the per-GPU throughput a native point needs."""
    if not {"model", "hardware", "concurrency"} <= keys or "throughput_per_gpu" in keys:
        return False
    return bool(keys & set(SWEEP_ONLY)) or bool(keys & {"median_tpot_ms", "median_ttft_ms"})


def read_row(row: Mapping[str, Any], ctx: RecordContext, provenance: Provenance) -> SweepRow | None:
    """Validate one row, naming each bad field as the file names it; None when any is bad."""
    errors_before = len(ctx.log.errors)
    for key in row:
        if key not in COLUMNS:
            ctx.error(key, "unknown field" + suggest(key, COLUMNS))
    for key in REQUIRED:
        if is_empty(row.get(key)):
            ctx.error(key, "missing: every sweep row needs " + ", ".join(REQUIRED))
    text: dict[str, str] = {}
    for key in ("model", "hardware", "framework", "precision"):
        if is_empty(row.get(key)):
            continue
        try:  # the identifier rule (inputs.py): printable, short text
            text[key] = identifier(str(row[key]))
        except ValueError as exc:
            ctx.error(key, str(exc))
    integers = {k: _integer(row, k, ctx) for k in ("gpu_count", "isl", "osl", "concurrency")}
    numbers = {k: _positive(row, k, ctx) for k in MEASUREMENTS}
    if all(is_empty(row.get(k)) for k in ("output_throughput", "median_tpot_ms", "median_ttft_ms")):
        ctx.error(
            "output_throughput",
            "missing: a sweep row needs output_throughput, median_tpot_ms or median_ttft_ms",
        )
    if len(ctx.log.errors) > errors_before:
        return None
    isl, osl, concurrency = integers["isl"], integers["osl"], integers["concurrency"]
    assert isl and osl and concurrency
    return SweepRow(
        model=text["model"],
        hardware=normalise_hardware(text["hardware"]),
        framework=normalise_framework(text["framework"])[0] if "framework" in text else None,
        precision=normalise_precision(text["precision"]),
        gpu_count=integers["gpu_count"],
        isl=isl,
        osl=osl,
        concurrency=concurrency,
        provenance=provenance,
        **numbers,
    )


def _integer(row: Mapping[str, Any], key: str, ctx: RecordContext) -> int | None:
    number = read_number(row.get(key), key, ctx, positive=True, whole=True)
    return None if number is None else int(number)


def _positive(row: Mapping[str, Any], key: str, ctx: RecordContext) -> float | None:
    return read_number(row.get(key), key, ctx, positive=True, hint=" (leave it empty when not measured)")
