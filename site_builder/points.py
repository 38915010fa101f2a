"""Points as pydantic objects, for the stages that still take them (TEMPORARY, issue 23).

The load stage gives a point table (read/table.py); `read.table.to_points` makes these objects
from it for compute and present until they read the table. Units as in the table: latency in
seconds, throughput in tok/s per GPU, interactivity in tok/s/user, power in watts per GPU.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from site_builder.files import Count, Identifier, NonNegativeNumber, PositiveNumber, Whole
from site_builder.formatting import sequence_label
from site_builder.read.provenance import Frozen, Provenance

InteractivitySource = Literal["tpot", "stated", "derived"]
ThroughputBasis = Literal["total", "output"]


class WorkerGroup(Frozen):
    """One role (prefill or decode) of a disaggregated deployment."""

    tp: Whole | None = None
    ep: Whole | None = None
    workers: Whole | None = None
    gpus: Whole | None = None
    dp_attention: bool | None = None


class Configuration(Frozen):
    """What was served and how: everything that identifies a curve, bar the workload."""

    model: Identifier
    hardware: Identifier
    framework: Identifier
    precision: Identifier
    spec_method: Identifier = "none"
    disagg: bool = False
    multinode: bool = False
    tp: Whole | None = None
    ep: Whole | None = None
    pp: Whole | None = None
    dp_attention: bool | None = None
    prefill: WorkerGroup | None = None
    decode: WorkerGroup | None = None
    gpu_count: Count | None = Field(
        default=None, description="All GPUs of the deployment (prefill + decode when disaggregated)"
    )

    def parallelism_label(self) -> str:
        """Short human label: 'TP8 EP8 DPA' or 'P 2×TP4 + D 1×TP8'."""

        def group(prefix: str, g: WorkerGroup) -> str:
            parts = []
            if g.workers:
                parts.append(f"{g.workers}×")
            parts.append(f"TP{g.tp}" if g.tp else "TP?")
            if g.ep and g.ep > 1:
                parts.append(f" EP{g.ep}")
            if g.dp_attention:
                parts.append(" DPA")
            return f"{prefix} " + "".join(parts)

        if self.disagg and self.prefill and self.decode:
            return group("P", self.prefill) + " + " + group("D", self.decode)
        parts = [f"TP{self.tp}" if self.tp else "TP?"]
        if self.pp and self.pp > 1:
            parts.append(f"PP{self.pp}")
        if self.ep and self.ep > 1:
            parts.append(f"EP{self.ep}")
        if self.dp_attention:
            parts.append("DPA")
        return " ".join(parts)

    def label(self) -> str:
        """One line naming the configuration for hover text and provenance tables."""
        if self.framework == "unknown":
            return "configuration not published"
        mode = "disagg" if self.disagg else "agg"
        spec = "" if self.spec_method == "none" else f", {self.spec_method.upper()}"
        gpus = f", {self.gpu_count} GPUs" if self.gpu_count else ""
        return f"{self.framework} {self.parallelism_label()} ({mode}{spec}{gpus})"


class LatencyStats(Frozen):
    """Statistics of one latency metric, in seconds."""

    mean: NonNegativeNumber | None = None
    median: NonNegativeNumber | None = None
    std: NonNegativeNumber | None = None
    p90: NonNegativeNumber | None = None
    p99: NonNegativeNumber | None = None
    p99_9: NonNegativeNumber | None = None


class Power(Frozen):
    """Measured GPU power during the run, where the source has a valid measurement."""

    avg_watts_per_gpu: PositiveNumber
    joules_per_total_token: PositiveNumber | None = None
    joules_per_output_token: PositiveNumber | None = None


class BenchmarkPoint(Frozen):
    """One serving configuration at one concurrency on one workload."""

    config: Configuration
    isl: Count
    osl: Count
    concurrency: Count
    throughput_per_gpu: PositiveNumber = Field(description="Total (input + output) tok/s per GPU")
    # "output": the source gives output tok/s only (a node-level sweep), so throughput_per_gpu is
    # output tok/s per GPU; a page never mixes the two bases (compute.py)
    throughput_basis: ThroughputBasis = "total"
    output_throughput_per_gpu: PositiveNumber | None = None
    input_throughput_per_gpu: NonNegativeNumber | None = None
    interactivity: PositiveNumber = Field(description="tok/s/user = 1000 / median TPOT in ms")
    interactivity_source: InteractivitySource = "tpot"
    ttft: LatencyStats | None = None
    tpot: LatencyStats | None = None
    itl: LatencyStats | None = None
    e2el: LatencyStats | None = None
    power: Power | None = None
    provenance: Provenance

    @property
    def sequence(self) -> str:
        return sequence_label(self.isl, self.osl)

    @property
    def users_per_gpu(self) -> float | None:
        """Concurrency per GPU of the deployment: comparable across deployment sizes (None when
        the source gives no GPU count)."""
        return self.concurrency / self.config.gpu_count if self.config.gpu_count else None
