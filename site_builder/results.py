"""The schema of a computed comparison: what `comparison.json` holds and pages render.

Documented field by field in docs/comparison-json.md; `schema_version` changes when a field's
meaning does.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from site_builder.models import AppliedConstants, CostTier, InteractivitySource

SCHEMA_VERSION = 1


class Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PointSummary(Out):
    """A measured point as a reader sees it: numbers plus the configuration behind them."""

    interactivity: float
    interactivity_source: InteractivitySource
    throughput_per_gpu: float
    output_throughput_per_gpu: float | None
    concurrency: int
    gpu_count: int | None
    model: str
    hardware: str
    precision: str
    framework: str
    spec_method: str
    disagg: bool
    parallelism: str
    configuration: str
    date: str | None
    run_url: str | None
    dataset: str
    source_file: str
    record: str
    on_frontier: bool


class MetricsAtTarget(Out):
    """One side's numbers at one target interactivity; None where not measured or unavailable."""

    measured: bool
    reason: str | None = None
    throughput_per_gpu: float | None = None
    output_throughput_per_gpu: float | None = None
    cost_per_million_tokens: float | None = None
    tokens_per_sec_per_mw: float | None = None
    joules_per_token: float | None = None
    concurrency: int | None = None
    concurrency_interpolated: float | None = None
    unavailable: dict[str, str] = {}
    brackets: list[PointSummary] = []


class TargetComparison(Out):
    interactivity: float
    sides: list[MetricsAtTarget]


class Band(Out):
    """Overlap of the two frontiers' interactivity ranges; display bounds are ceil/floor."""

    overlap: bool
    lo: float | None
    hi: float | None
    display_lo: int | None
    display_hi: int | None


class SideResult(Out):
    label: str
    filters: dict[str, str | bool | list[str]]
    pooling: str
    hardware: str
    constants: AppliedConstants
    interactivity_range: tuple[float, float] | None
    engines: list[str]
    spec_methods: list[str]
    modes: list[str]
    parallelisms: list[str]
    dates: tuple[str, str] | None
    frontier: list[PointSummary]
    points: list[PointSummary]


class SequenceResult(Out):
    sequence: str
    isl: int
    osl: int
    band: Band
    targets: list[float]
    targets_pinned: bool
    results: list[TargetComparison]
    sides: list[SideResult]


class SideIdentity(Out):
    label: str
    filters: dict[str, str | bool | list[str]]


class DataSource(Out):
    dataset: str
    title: str
    source: str
    url: str | None
    licence: str | None
    retrieved: str | None
    published_values: bool


class ComparisonResult(Out):
    schema_version: int = SCHEMA_VERSION
    slug: str
    kind: str
    title: str
    model: str
    model_name: str
    hardware: list[str]
    default_sequence: str
    cost_tier: CostTier
    sides: list[SideIdentity]
    sequences: list[SequenceResult]
    constants: list[AppliedConstants]
    data_sources: list[DataSource]
    notices: list[str]
