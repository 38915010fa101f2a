"""Input points: one serving configuration at one concurrency on one workload, and its origin.

Units are fixed here once: latency in seconds, throughput in tok/s per GPU, interactivity in
tok/s/user, power in watts per GPU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field

from site_builder.files import Count, Identifier, NonNegativeNumber, PositiveNumber, Whole
from site_builder.formatting import sequence_label

Model = TypeVar("Model", bound=BaseModel)
InteractivitySource = Literal["tpot", "stated", "derived"]
ThroughputBasis = Literal["total", "output"]


def _slot_setter(name: str) -> Callable[[BaseModel, Any], None]:
    """A setter for one of pydantic's per-instance slots (its C descriptor where it has one)."""
    descriptor = BaseModel.__dict__.get(name)
    setter = getattr(descriptor, "__set__", None)
    if setter is not None:
        return cast(Callable[[BaseModel, Any], None], setter)
    return lambda model, value: object.__setattr__(model, name, value)


def prevalidated(cls: type[Model], data: dict[str, Any], fields_set: set[str]) -> Model:
    """A model holding `data` (every field, in declaration order) as validated, made as
    `model_construct` makes it without its per-call work; `fields_set` as pydantic records the
    fields given (shared between instances: a frozen model never changes it)."""
    model = object.__new__(cls)
    _set_dict(model, data)
    _set_fields(model, fields_set)
    _set_extra(model, None)
    _set_private(model, None)
    return model


def prevalidated_each(
    cls: type[Model], data: Iterable[dict[str, Any]], fields_sets: Iterable[set[str]]
) -> list[Model]:
    """`prevalidated` for each of many objects' data (with its fields set), in one loop: a
    loaded file's points are made a few hundred at a time."""
    new, set_dict, set_fields = object.__new__, _set_dict, _set_fields
    set_extra, set_private = _set_extra, _set_private
    made: list[Model] = []
    add = made.append
    for values, fields_set in zip(data, fields_sets, strict=False):  # `repeat` for a shared set
        model = new(cls)
        set_dict(model, values)
        set_fields(model, fields_set)
        set_extra(model, None)
        set_private(model, None)
        add(model)
    return made


_set_dict = _slot_setter("__dict__")
_set_fields = _slot_setter("__pydantic_fields_set__")
_set_extra = _slot_setter("__pydantic_extra__")
_set_private = _slot_setter("__pydantic_private__")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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


class Provenance(Frozen):
    """Where a point came from, so every figure on a page can be traced back."""

    dataset: str
    source_file: str
    record: str
    client: str | None = None  # the benchmark client and its version, e.g. "AIPerf 0.13.0"
    date: str | None = None
    run_url: str | None = None
    image: str | None = None
    note: str | None = None


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


class DatasetInfo(BaseModel):
    """Attribution of a set of points: shown in every page's provenance."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=64)
    title: str
    source: str
    url: str | None = None
    licence: str | None = None
    retrieved: str | None = None
    notes: str | None = None
    published_values: bool = Field(
        default=False,
        description="True when the points are values a page published (read off its table), not measurements",
    )
