"""Node-level sweep rows: one deployment at one concurrency on one workload, as papers report them.

A row's throughput is the output tok/s of the whole deployment (never per GPU, never input +
output), its latencies are medians in milliseconds and its power is the measured average of the
whole system in watts. A row may carry only latency (a paper's latency table) or only
throughput. Columns in docs/data-format.md ("Node-level sweeps").
"""

from __future__ import annotations

from collections.abc import Mapping

from site_builder.content import FilterValue
from site_builder.engine.sweep import Measure
from site_builder.filters import matches as matches_filters
from site_builder.points import BenchmarkPoint, Configuration, Frozen, Provenance


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
    median_tpot_ms: float | None
    median_ttft_ms: float | None
    system_power_w: float | None
    provenance: Provenance

    def measure(self) -> Measure:
        return Measure(
            concurrency=self.concurrency,
            output_throughput=self.output_throughput,
            gpu_count=self.gpu_count,
            tpot_ms=self.median_tpot_ms,
            ttft_ms=self.median_ttft_ms,
            power_w=self.system_power_w,
        )

    def value_of(self, key: str) -> str | bool | None:
        """The value a page filter compares (as `select.value_of` does for points)."""
        if key == "dataset":
            return self.provenance.dataset
        if key == "spec_method":
            return "none"
        if key == "disagg":
            return False
        value: str | None = getattr(self, key)
        return value

    def to_point(self) -> BenchmarkPoint | None:
        """The per-GPU point the matched-interactivity analysis reads, on an output-only basis;
        None without throughput or GPU count. Interactivity is 1000 ÷ TPOT, else derived as output
        tok/s ÷ concurrency (and marked so)."""
        if self.output_throughput is None or not self.gpu_count:
            return None
        if self.median_tpot_ms is not None:
            interactivity, source = 1000.0 / self.median_tpot_ms, "tpot"
        else:
            interactivity, source = self.output_throughput / self.concurrency, "derived"
        per_gpu = self.output_throughput / self.gpu_count
        return BenchmarkPoint(
            config=Configuration(
                model=self.model,
                hardware=self.hardware,
                framework=self.framework or "unknown",
                precision=self.precision,
                gpu_count=self.gpu_count,
            ),
            isl=self.isl,
            osl=self.osl,
            concurrency=self.concurrency,
            throughput_per_gpu=per_gpu,
            output_throughput_per_gpu=per_gpu,
            throughput_basis="output",
            interactivity=interactivity,
            interactivity_source="tpot" if source == "tpot" else "derived",
            provenance=self.provenance,
        )


def matches(row: SweepRow, filters: Mapping[str, FilterValue]) -> bool:
    return matches_filters(row.value_of, filters)
