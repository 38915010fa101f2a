"""Node-level sweep rows: one deployment at one concurrency on one workload, as papers report
them, and their reader (the native format's sweep rows, CSV or JSON).

A row's throughput is the output tok/s of the whole deployment (never per GPU, never input +
output), its latencies are medians (or, in `mean_*` columns, means) in milliseconds and its
power is the measured average of the whole system in watts. A row may carry only latency (a
paper's latency table) or only throughput. Columns in docs/data-format.md ("Node-level
sweeps"); every bad cell is named by its column. A row with throughput and a GPU count is also a
point of the table (`point_row`), on an output-only basis, for the matched-interactivity
analysis.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from site_builder.content import FILTER_COLUMNS, FilterValue
from site_builder.engine.sweep import Measure
from site_builder.files import identifier, sane_number
from site_builder.filters import matches as matches_filters
from site_builder.read.fields import (
    RecordContext,
    is_empty,
    normalise_framework,
    normalise_hardware,
    normalise_precision,
    read_number,
)
from site_builder.read.provenance import Frozen, Provenance


class SweepRow(Frozen):
    """One validated sweep row (units: tok/s of the deployment, ms, watts of the whole system)."""

    model: str
    hardware: str
    framework: str | None
    precision: str
    gpu_count: int | None
    isl: int
    osl: int
    concurrency: int
    output_throughput: float | None
    tpot_ms: float | None
    ttft_ms: float | None
    latency_statistic: Literal["median", "mean"]  # what tpot_ms and ttft_ms are
    system_power_w: float | None
    provenance: Provenance

    def latency_column(self, metric: str) -> str:
        """The column a latency came from: 'median_tpot_ms' or 'mean_tpot_ms'."""
        return f"{self.latency_statistic}_{metric}_ms"

    def measure(self) -> Measure:
        return Measure(
            concurrency=self.concurrency,
            output_throughput=self.output_throughput,
            gpu_count=self.gpu_count,
            tpot_ms=self.tpot_ms,
            ttft_ms=self.ttft_ms,
            power_w=self.system_power_w,
        )

    def value_of(self, key: str) -> str | bool | None:
        """The value a page filter compares (as `select.value_of` does for points)."""
        if key == "dataset":
            return self.provenance.dataset
        if key in SWEEP_CONSTANTS:
            return SWEEP_CONSTANTS[key]
        value: str | None = getattr(self, FILTER_COLUMNS.get(key, key), None)  # a field rows lack: None
        return value


# What every sweep row is, for a page's filters: no speculative decoding, not disaggregated.
SWEEP_CONSTANTS: dict[str, str | bool] = {"spec_method": "none", "disagg": False}


def matches(row: SweepRow, filters: Mapping[str, FilterValue]) -> bool:
    return matches_filters(row.value_of, filters)


INTEGERS = ("gpu_count", "isl", "osl", "concurrency")
IDENTITY = ("model", "hardware", "framework", "precision", *INTEGERS)
LATENCIES = {
    "median": ("median_tpot_ms", "median_ttft_ms"),
    "mean": ("mean_tpot_ms", "mean_ttft_ms"),
}
MEASUREMENTS = ("output_throughput", *LATENCIES["median"], *LATENCIES["mean"], "system_power_w")
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
    return bool(keys & {*SWEEP_ONLY, *LATENCIES["median"], *LATENCIES["mean"]})


def read_row(row: Mapping[str, Any], ctx: RecordContext, provenance: Provenance) -> SweepRow | None:
    """Validate one row, naming each bad field as the file names it; None when any is bad."""
    errors_before = len(ctx.log.errors)
    ctx.unknown_fields(row, COLUMNS)
    for key in REQUIRED:
        if is_empty(row.get(key)):
            ctx.missing(key, "missing: every sweep row needs " + ", ".join(REQUIRED))
    text = _identifiers(row, ctx)
    integers = {k: _integer(row, k, ctx) for k in INTEGERS}
    numbers = {k: read_number(row.get(k), k, ctx, positive=True, hint=_UNMEASURED) for k in MEASUREMENTS}
    statistic = _latency_statistic(row, ctx)
    if len(ctx.log.errors) > errors_before:
        return None
    framework = text.get("framework")
    tpot, ttft = (numbers.pop(k) for k in LATENCIES[statistic])
    for k in LATENCIES["mean" if statistic == "median" else "median"]:
        numbers.pop(k)
    return SweepRow.model_validate(
        {
            "model": text["model"],
            "hardware": normalise_hardware(text["hardware"]),
            "framework": normalise_framework(framework)[0] if framework else None,
            "precision": normalise_precision(text["precision"]),
            "provenance": provenance,
            "tpot_ms": tpot,
            "ttft_ms": ttft,
            "latency_statistic": statistic,
            **integers,
            **numbers,
        }
    )


def _identifiers(row: Mapping[str, Any], ctx: RecordContext) -> dict[str, str]:
    """The configuration's names a row gives, each under the identifier rule (printable, short
    text); a bad one is an error."""
    text: dict[str, str] = {}
    for key in ("model", "hardware", "framework", "precision"):
        if is_empty(row.get(key)):
            continue
        try:
            text[key] = identifier(str(row[key]))
        except ValueError as exc:
            ctx.error(key, str(exc))
    return text


def _latency_statistic(row: Mapping[str, Any], ctx: RecordContext) -> str:
    """Which statistic a row gives its latencies as ("median" unless it gives means); an error
    where it gives both, or neither a latency nor the output throughput."""
    given = {stat: [k for k in keys if not is_empty(row.get(k))] for stat, keys in LATENCIES.items()}
    if given["median"] and given["mean"]:
        ctx.error(
            given["mean"][0],
            f"a row gives its latencies as medians or as means, not both ({given['median'][0]} is here too):"
            " keep one statistic per row",
        )
    if is_empty(row.get("output_throughput")) and not (given["median"] or given["mean"]):
        ctx.missing(
            "output_throughput",
            "missing: a sweep row needs output_throughput or a latency (median_tpot_ms, median_ttft_ms,"
            " mean_tpot_ms or mean_ttft_ms)",
        )
    return "mean" if given["mean"] else "median"


_UNMEASURED = " (leave it empty when not measured)"


def _integer(row: Mapping[str, Any], key: str, ctx: RecordContext) -> int | None:
    number = read_number(row.get(key), key, ctx, positive=True, whole=True)
    return None if number is None else int(number)


def point_row(row: SweepRow, ctx: RecordContext) -> dict[str, Any] | None:
    """The per-GPU point (a row of the point table) the matched-interactivity analysis reads,
    on an output-only basis; None without throughput or GPU count. Interactivity is 1000 ÷ TPOT,
    else derived as output tok/s ÷ concurrency (and marked so), held to the numeric rule."""
    if row.output_throughput is None or not row.gpu_count:
        return None
    if row.tpot_ms is not None:
        interactivity, source, named = 1000.0 / row.tpot_ms, "tpot", row.latency_column("tpot")
    else:
        interactivity, source, named = row.output_throughput / row.concurrency, "derived", "output_throughput"
    try:
        sane_number(interactivity, positive=True)
    except ValueError as exc:
        ctx.error(named, f"the interactivity it gives {exc}")
        return None
    per_gpu = row.output_throughput / row.gpu_count
    return {
        "model": row.model,
        "hardware": row.hardware,
        "framework": row.framework or "unknown",
        "precision": row.precision,
        "gpu_count": row.gpu_count,
        "isl": row.isl,
        "osl": row.osl,
        "concurrency": row.concurrency,
        "throughput_per_gpu": per_gpu,
        "output_throughput_per_gpu": per_gpu,
        "throughput_basis": "output",
        "interactivity": interactivity,
        "interactivity_source": source,
        **_latency_columns(row),
        **row.provenance.model_dump(),
    }


def _latency_columns(row: SweepRow) -> dict[str, float | None]:
    """The row's latencies as its point's columns (read/table.py: seconds), None where not given,
    so the page's latency view shows what the sweep sections show."""
    stat = row.latency_statistic  # median or mean: the table's column of that statistic
    ms = {f"tpot_{stat}": row.tpot_ms, f"ttft_{stat}": row.ttft_ms}
    return {column: None if value is None else value / 1000.0 for column, value in ms.items()}
