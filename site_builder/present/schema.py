"""`comparison.json`: the schema of a computed page as readers download it.

Documented field by field in docs/comparison-json.md; `schema_version` changes when a field's
meaning does. The templates read these models too.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from site_builder import metrics
from site_builder.catalog import AppliedConstants, CostTier
from site_builder.engine import accuracy as stats
from site_builder.engine.compare import Grade
from site_builder.formatting import round_half_up_int

EXAMPLE_MARK = "Example data"
SCHEMA_VERSION = 2  # 2: a side lists its frontier only (every point: points.csv); brackets as knot positions


Made = TypeVar("Made")


InteractivitySource = Literal["tpot", "stated", "derived"]  # read/table.py: interactivity_source


class Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # schemas built on first use


class PointSummary(Out):
    """A measured point as a reader sees it: numbers plus the configuration behind them."""

    interactivity: float
    interactivity_source: InteractivitySource
    throughput_per_gpu: float
    output_throughput_per_gpu: float | None
    concurrency: int
    gpu_count: int | None
    users_per_gpu: float | None  # concurrency ÷ GPUs (None: the GPU count is unknown)
    model: str
    hardware: str
    precision: str
    framework: str
    spec_method: str
    disagg: bool
    variant: str | None  # the data's free label setting these runs apart (confidential-computing …)
    parallelism: str
    configuration: str
    date: str | None
    run_url: str | None
    dataset: str
    source_file: str
    record: str
    client: str | None
    on_frontier: bool


class MetricsAtTarget(Out):
    """One side's numbers at one target; None where not measured or unavailable.

    `values` holds every registered metric by its attribute; the JSON lists them flat, in
    registry order, a whole-number metric rounded with its raw value beside it.
    """

    measured: bool
    reason: str | None = None
    values: dict[str, float | None] = {}
    unavailable: dict[str, str] = {}
    brackets: list[int] = []  # positions in the side's `frontier`: the knots the value lies between
    sparse: bool = False  # interpolated over a sparse stretch of frontier (engine SPARSE_RATIO)
    # metric attribute -> [lowest, highest] at the bracketing knots (the value lies in between)
    bounds: dict[str, tuple[float, float]] = {}

    def value(self, key: str) -> float | None:
        return self.values.get(metrics.BY_KEY[key].attribute)

    def flat_values(self) -> dict[str, float | int | None]:
        """The values as the JSON lists them: flat, in registry order, a whole-number metric
        rounded half up with its raw value beside it."""
        values = self.values
        keys, whole = flat_layout()
        flat: dict[str, float | int | None] = {key: values.get(attribute) for key, attribute in keys}
        for attribute in whole:
            raw = flat[attribute]
            if raw is not None:
                flat[attribute] = round_half_up_int(raw)
        return flat

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {
            "measured": data["measured"],
            "reason": data["reason"],
            **self.flat_values(),
            "unavailable": data["unavailable"],
            "brackets": data["brackets"],
            "sparse": data["sparse"],
            "bounds": data["bounds"],
        }

    def bound(self, key: str) -> tuple[float, float] | None:
        return self.bounds.get(metrics.BY_KEY[key].attribute)


def flat_layout() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The JSON's flat values in order, each key with the attribute it holds (a whole-number
    metric's key holds it rounded, `<attribute>_interpolated` the raw value), and the attributes
    of the whole-number metrics (metrics.METRICS, read each time: a test may replace it)."""
    registry = metrics.METRICS
    keys = tuple(
        (key, m.attribute)
        for m in registry
        for key in ((m.attribute, f"{m.attribute}_interpolated") if m.whole else (m.attribute,))
    )
    return keys, tuple(m.attribute for m in registry if m.whole)


class Claim(Out):
    """What one metric's comparison at a target can claim given the bracketing knots (engine
    compare.Claim): A ÷ B at the interpolated values and its bounds, the leader the values
    favour, and the grade of the claim."""

    ratio: float
    ratio_lo: float
    ratio_hi: float
    leader: str | None  # the label of the side the interpolated values favour (None: tied)
    grade: Grade
    lead_at_least: float | None  # the leader's advantage at its worst (None: tied)
    lead_at_most: float | None


class TargetComparison(Out):
    interactivity: float
    sides: list[MetricsAtTarget]
    claims: dict[str, Claim] = {}  # metric attribute -> its claim (metrics with a better value)

    def claim(self, key: str) -> Claim | None:
        return self.claims.get(metrics.BY_KEY[key].attribute)


class Band(Out):
    """Overlap of the two frontiers' interactivity ranges; display bounds are ceil/floor."""

    overlap: bool
    lo: float | None
    hi: float | None
    display_lo: int | None
    display_hi: int | None


def _without_absent(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    """A serialised model less these optional fields where they are None (listed only where given)."""
    for key in keys:
        if data.get(key, ...) is None:
            del data[key]
    return data


class MeasuredLengths(Out):
    """What a side's files say of its workload's real lengths: the mean over its points of each
    point's measured mean input and output length (None where no point gives one), and the
    ratios nominal lengths were drawn with ([ratio × nominal, nominal]; empty where none). On a
    labelled workload (sharegpt), whose runs' lengths differ, also the lowest and highest of the
    points' means."""

    isl_mean: float | None
    osl_mean: float | None
    points: int  # the side's points on the workload that give a measured mean length
    random_range_ratios: list[float]
    isl_range: tuple[float, float] | None = None  # labelled workloads only
    osl_range: tuple[float, float] | None = None

    @model_serializer(mode="wrap")
    def _ranges_where_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_absent(handler(self), "isl_range", "osl_range")


class SideResult(Out):
    label: str
    filters: dict[str, str | bool | int | list[str] | list[int]]
    pooling: str  # words: "best available" or "narrowed: framework=sglang"
    narrowed: bool = Field(exclude=True)  # a filter narrows the side beyond what the page varies
    hardware: str
    constants: AppliedConstants
    interactivity_range: tuple[float, float] | None
    engines: list[str]
    spec_methods: list[str]
    modes: list[str]
    parallelisms: list[str]
    precisions: list[str]
    unknown_gpu_counts: int  # frontier knots whose source gives no GPU count
    # per stretch between frontier knots: one deployment whose concurrency falls across it, so
    # concurrency is interpolated there (elsewhere the two measured concurrencies are shown)
    concurrency_joins: list[bool]
    dates: tuple[str, str] | None
    frontier: list[PointSummary]
    point_count: int  # measured points of the side on this workload (every one: points.csv)
    # the measured lengths behind the nominal workload (listed only where a file gives them)
    lengths: MeasuredLengths | None = None

    @model_serializer(mode="wrap")
    def _lengths_where_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_absent(handler(self), "lengths")


class SequenceResult(Out):
    sequence: str  # '1k/1k', or the `workload:` label
    isl: int | None  # None on a labelled workload: its runs' lengths vary (the sides' `lengths`)
    osl: int | None
    workload: str | None = None  # the `workload:` label (sharegpt), listed only where given
    band: Band
    targets: list[float]
    targets_pinned: bool
    results: list[TargetComparison]
    sides: list[SideResult]

    @model_serializer(mode="wrap")
    def _label_where_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_absent(handler(self), "workload")


class LatencyCell(Out):
    """One side at one tested concurrency: the point that speaks for it (the highest throughput per
    GPU among its points there that measured this latency) and its statistics."""

    values: dict[
        str, float | None
    ]  # statistic (median, p90, p99) -> value in the table's unit; None: not measured
    throughput_per_gpu: float
    gpu_count: int | None
    configuration: str


class LatencyRow(Out):
    concurrency: int
    sides: list[LatencyCell | None]  # in side order; None: the side has no such point at this concurrency


class LatencyTable(Out):
    """One latency metric on one workload: each side's values at the concurrencies either tested."""

    metric: str  # ttft, e2el or tpot
    label: str
    unit: str  # of every value: ms, or s for end-to-end latency
    decimals: int = Field(exclude=True)  # as the page shows a value
    statistics: list[str]  # those either side measured, in order: median, p90, p99
    measured: list[list[str]]  # per side, the statistics any of its points measured
    rows: list[LatencyRow]


class LatencyWorkload(Out):
    sequence: str
    isl: int | None  # as SequenceResult
    osl: int | None
    workload: str | None = None  # listed only where given
    tables: list[LatencyTable]  # a metric neither side measured at any statistic is left out

    @model_serializer(mode="wrap")
    def _label_where_given(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _without_absent(handler(self), "workload")


class LatencyResult(Out):
    workloads: list[LatencyWorkload]  # as the page's `sequences`
    # one line per side and what it lacks, naming the workloads (said once, never drawn as zero)
    not_measured: list[str]


class SideIdentity(Out):
    label: str
    filters: dict[str, str | bool | int | list[str] | list[int]]


class DataSource(Out):
    dataset: str
    title: str
    source: str
    url: str | None
    licence: str | None
    retrieved: str | None
    published_values: bool
    example: bool = False  # example or invented data, not measurements (read.provenance.DatasetInfo)


class AccuracyRun(Out):
    """One evaluation run of a side, as measured, with its 95% interval."""

    score: float
    stderr: float | None
    ci_lo: float | None
    ci_hi: float | None
    questions: int | None
    per_question: bool  # the run's per-question results are known (a samples log)
    pooled: bool  # counted in the side's pooled score
    excluded_reason: str | None
    hardware: str | None
    precision: str
    spec_method: str
    framework: str | None
    setup: str | None
    date: str | None
    dataset: str
    source_file: str
    record: str
    note: str | None


class AccuracySide(Out):
    label: str
    runs: list[AccuracyRun]
    score: float | None  # pooled over the side's usable runs; None: no usable run
    stderr: float | None
    ci_lo: float | None
    ci_hi: float | None
    pooled_runs: int
    pool_method: stats.PoolMethod | None
    spread: tuple[float, float] | None  # lowest and highest pooled run score
    consistent: bool  # the pooled runs agree within their combined noise
    hardware: list[str]  # where the runs ran
    other_hardware: bool  # no run on the side's own hardware: runs elsewhere stand in


class AccuracyDifference(Out):
    """Side A − side B in proportion units (0.012 = 1.2 points), with its 95% interval."""

    value: float
    stderr: float
    ci_lo: float
    ci_hi: float
    method: stats.DifferenceMethod
    questions: int | None  # questions a paired difference used
    verdict: stats.Verdict
    better: str | None  # the side's label when the interval excludes zero


class AccuracyTask(Out):
    task: str
    task_name: str
    metric: str
    metric_label: str
    higher_is_better: bool
    sides: list[AccuracySide]
    difference: AccuracyDifference | None


class AccuracyResult(Out):
    tasks: list[AccuracyTask]
    sides_without: list[str]  # labels of sides with no evaluation results


def _absent(value: object) -> bool:
    return value is None


class SweepRowOut(Out):
    """One node-level sweep row as read (None: not in the file), with the side it belongs to."""

    side: str
    sequence: str
    concurrency: int
    gpu_count: int | None
    output_throughput: float | None
    output_throughput_per_gpu: float | None
    median_tpot_ms: float | None
    median_ttft_ms: float | None
    # a row gives medians or means (docs/data-format.md), never both; the means only where given
    mean_tpot_ms: float | None = Field(default=None, exclude_if=_absent)
    mean_ttft_ms: float | None = Field(default=None, exclude_if=_absent)
    system_power_w: float | None
    # TPOT as measured, else derived as 1000 ÷ (output tok/s ÷ concurrency); its interactivity
    tpot_ms: float | None
    tpot_source: Literal["measured", "derived"] | None
    interactivity: float | None
    interactivity_source: Literal["measured", "derived"] | None
    tokens_per_watt: float | None
    model: str
    hardware: str
    precision: str
    framework: str | None
    dataset: str
    source_file: str
    record: str
    date: str | None


class SweepPair(Out):
    """Both sides at one concurrency: `values` in side order (None: not measured, never 0 and
    never interpolated), `derived` where a value is derived rather than measured, and A ÷ B."""

    concurrency: int
    values: list[float | None]
    derived: list[bool]
    ratio: float | None
    ratio_text: str | None


class SweepPeak(Out):
    output_throughput: float
    output_throughput_per_gpu: float | None
    concurrency: int


class SweepSla(Out):
    """The largest tested concurrency within the limits (None: none is), and its numbers."""

    concurrency: int | None
    output_throughput: float | None
    tpot_ms: float | None
    tpot_derived: bool
    ttft_ms: float | None
    judged: int  # tested concurrencies that had the latencies the limits need
    meeting: list[int]


class SlaLimits(Out):
    tpot_ms: float | None
    ttft_ms: float | None
    basis: Literal["measured", "derived"]


class SweepWorkload(Out):
    sequence: str
    isl: int | None  # as SequenceResult: None on a labelled workload (its `sequence` is the label)
    osl: int | None
    measured: list[bool]  # whether each side has any row on this workload
    gpu_counts: list[list[int]]
    output_throughput: list[SweepPair]
    output_throughput_per_gpu: list[SweepPair]
    peaks: list[SweepPeak | None]
    peak_ratio: float | None
    peak_ratio_text: str | None
    ttft_ms: list[SweepPair]
    tpot_ms: list[SweepPair]
    sla: list[SweepSla] | None
    sla_concurrency_ratio: float | None
    sla_concurrency_ratio_text: str | None
    sla_throughput_ratio: float | None
    tokens_per_watt: list[SweepPair]
    # the tail latencies (ms), where either side's points give them; empty where neither does
    tpot_p90_ms: list[SweepPair] = []
    tpot_p99_ms: list[SweepPair] = []
    ttft_p90_ms: list[SweepPair] = []
    ttft_p99_ms: list[SweepPair] = []
    tails_not_measured: list[str] = []  # one line per side that measured none of them here


class SweepExtreme(Out):
    sequence: str
    concurrency: int
    ratio: float
    ratio_text: str


class SweepResult(Out):
    sla: SlaLimits | None
    workloads: list[SweepWorkload]
    # per analysis (output_throughput, ttft_ms, tpot_ms, tokens_per_watt): the largest and
    # smallest A ÷ B over every workload and concurrency both sides measured
    extremes: dict[str, list[SweepExtreme]]
    rows: list[SweepRowOut]

    @property
    def latency_statistic(self) -> str:
        """What the rows' latencies are, for labels: 'median', 'mean' or 'median or mean'."""
        means = {row.mean_tpot_ms is not None or row.mean_ttft_ms is not None for row in self.rows}
        return {frozenset({True}): "mean", frozenset({True, False}): "median or mean"}.get(
            frozenset(means), "median"
        )


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
    accuracy: AccuracyResult | None = None  # None: neither side has evaluation results
    sections: list[str] = ["matched-interactivity"]  # the analyses the page shows, in order
    throughput_basis: Literal["total", "output"] = "total"  # output: output tok/s throughout
    sweep: SweepResult | None = None  # None: the page shows no sweep analysis
    example_data: bool = False  # a dataset the page uses is example or invented data
    latency: LatencyResult | None = None  # the latency view (None: a page made without one)
