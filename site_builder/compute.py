"""Compute one planned page: select each side's points, apply constants, run the engine per workload.

The result is numbers and the identities behind them; words are the presentation's job
(present/, render/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from site_builder import metrics
from site_builder.catalog import (
    AppliedConstants,
    CostTier,
    HardwareCatalog,
    ModelInfo,
    constants_for,
    model_name,
)
from site_builder.content import FILTER_KEYS, FilterValue, ResolvedSide, SiteConfig, Stub
from site_builder.engine.accuracy import RunScore, TaskNumbers, compare_task
from site_builder.engine.compare import Constants, SequenceNumbers, SidePoints, compare_sequence
from site_builder.engine.latency import LatencyAt, by_concurrency
from site_builder.engine.latency import measured as latency_measured
from site_builder.engine.power import WorkloadPower, power_checks
from site_builder.engine.sweep import TAIL_LATENCIES, Measure, Sla, WorkloadSweep, analyse_workload
from site_builder.files import NUMBER_FAULTS, excerpt, number_faults
from site_builder.filters import NARROWING_KEYS, describe
from site_builder.plan import narrow_sides_said, page_title
from site_builder.problems import ProblemLog, Severity, suggest
from site_builder.read.evals import EvalRun, SideRuns, runs_for_side
from site_builder.read.provenance import DatasetInfo
from site_builder.read.sweeps import SweepRow
from site_builder.read.sweeps import matches as sweep_matches
from site_builder.read.table import PointTable
from site_builder.sections import SWEEP_ANALYSES
from site_builder.sides import PageSides, page_sides
from site_builder.workload import Workload, labelled, sorted_workloads


@dataclass(frozen=True)
class ComputedSide:
    label: str
    filters: dict[str, FilterValue]
    narrowed_by: dict[str, FilterValue]  # filters that narrow the pool beyond what the page varies
    hardware: str
    constants: AppliedConstants


@dataclass(frozen=True)
class TaskAccuracy:
    """One task and metric on a page: each side's runs and the engine's statistics of them."""

    task: str
    metric: str
    higher_is_better: bool
    runs: tuple[tuple[EvalRun, ...], tuple[EvalRun, ...]]
    numbers: TaskNumbers


@dataclass(frozen=True)
class PageAccuracy:
    sides: tuple[SideRuns, SideRuns]
    tasks: tuple[TaskAccuracy, ...]


@dataclass(frozen=True)
class PageSweep:
    """Each side's node-level sweep rows and the analyses of them, workload by workload (the
    page's default workload first)."""

    rows: tuple[tuple[SweepRow, ...], tuple[SweepRow, ...]]
    workloads: tuple[WorkloadSweep, ...]
    sla: Sla | None


# The latency view (sections latency-view): the point table's latency metrics and statistics it
# shows (read/table.py LATENCY_COLUMNS: `<metric>_<statistic>`, seconds), in the page's order
LATENCY_VIEW_METRICS = ("ttft", "e2el", "tpot")
LATENCY_VIEW_STATISTICS = ("median", "p90", "p99")


@dataclass(frozen=True)
class SideLatency:
    """One latency metric of one side on one workload: which statistics any of its points
    measured (LATENCY_VIEW_STATISTICS order) and its values at each tested concurrency."""

    measured: tuple[bool, ...]
    at: tuple[LatencyAt, ...]


@dataclass(frozen=True)
class MetricLatency:
    metric: str  # a LATENCY_VIEW_METRICS key
    sides: tuple[SideLatency, SideLatency]


@dataclass(frozen=True)
class ComputedPage:
    """A planned page with its numbers: every workload either side measured, the default first."""

    stub: Stub
    title: str
    model_name: str
    cost_tier: CostTier
    sides: tuple[ComputedSide, ComputedSide]
    sequences: tuple[SequenceNumbers, ...]
    # per workload, each side's points on it (in table order; the engine's positions index them)
    rows: tuple[tuple[PointTable, PointTable], ...]
    # the workload of each of `sequences` (a labelled one's numbers have isl = osl = 0)
    workloads: tuple[Workload, ...]
    datasets: tuple[DatasetInfo, ...]  # every dataset whose points either side uses
    derived_interactivity: bool  # some point's interactivity is output tok/s ÷ concurrency
    accuracy: PageAccuracy | None = None  # None: neither side has evaluation results
    # "output" when a side's source gives output tok/s only: then every throughput is output-only
    throughput_basis: str = "total"
    sweep: PageSweep | None = None  # None: the stub asks for no sweep analysis
    # the power section's measured power per GPU beside the catalog's, from sides' ordinary points
    measured_power: tuple[WorkloadPower, ...] = ()
    # per workload (as `rows`), each latency metric of the latency view: each side at its concurrencies
    latency: tuple[tuple[MetricLatency, ...], ...] = ()

    @property
    def slug(self) -> str:
        return self.stub.slug


def varied_keys(stub: Stub) -> list[str]:
    a, b = stub.sides[0].filters, stub.sides[1].filters
    return [k for k in FILTER_KEYS if a.get(k) != b.get(k)]


def narrowing(side: ResolvedSide, varied: Sequence[str]) -> dict[str, FilterValue]:
    """The filters that narrow a side beyond 'best available' (engine, mode, method not compared)."""
    return {k: v for k, v in side.filters.items() if k in NARROWING_KEYS and k not in varied}


def explain_empty(table: PointTable, filters: Mapping[str, FilterValue]) -> tuple[str, str]:
    """(the filter that leaves nothing, why): what values exist there instead, and the closest."""
    applied: dict[str, FilterValue] = {}
    for key, wanted in filters.items():
        narrowed = table.select({key: wanted})
        if not len(narrowed):
            values = sorted({str(value) for value in table.values(key) if value is not None})
            scope = describe(applied) or "all data"
            hint = suggest(str(wanted), values) if isinstance(wanted, str) else ""
            available = ", ".join(values) or f"none (no point there gives a {key})"
            hint += _held_elsewhere(table, key, wanted)
            return key, f"no points with {key}={wanted} among {scope}; available: {available}{hint}"
        table, applied[key] = narrowed, wanted
    return "", "no points match"


def _held_elsewhere(table: PointTable, key: str, wanted: FilterValue) -> str:
    """'; max-num-seqs-4 is a variant in the data: filter with variant: max-num-seqs-4' where the
    value a filter asks for is another configuration field's (a stub that put it under the wrong
    key, as `build-site new custom` once wrote every side under framework)."""
    if not isinstance(wanted, str):
        return ""
    for other in FILTER_KEYS:
        if other != key and len(table.select({other: wanted})):
            return f"; {wanted} is a {other} in the data: filter with {other}: {wanted}"
    return ""


def _where(stub: Stub) -> str:
    """Where a page's problem is reported: its stub, or the generated page it is."""
    return stub.path or f"generated page {stub.slug}"


def side_problems(stub: Stub, table: PointTable, sides: PageSides, log: ProblemLog) -> None:
    """What the sides' rows lack, logged: a side selecting nothing (and what the data holds
    instead), points left out for a missing output throughput, a side left with none."""
    for i, (side, selected) in enumerate(zip(stub.sides, sides.selected, strict=True)):
        if not len(selected):
            key, reason = explain_empty(table, side.filters)
            on_side = key in stub.spec.sides[i].model_fields_set
            loc, field_name = (("sides", i, key), f"sides[{i}].{key}") if on_side else ((key,), key)
            log.add(_where(stub), stub.line_of(*loc), field_name, f"side '{side.label}': {reason}")
    if not all(len(selected) for selected in sides.selected):
        return
    for side, dropped, rows in zip(stub.sides, sides.dropped, sides.rows, strict=True):
        if dropped:
            log.add(
                _where(stub),
                "",
                "",
                f"side '{side.label}': {dropped} point(s) without an output throughput left out, because "
                "the page compares output tok/s (the other side's source gives no input throughput)",
                Severity.WARNING,
            )
        if not len(rows):
            log.add(_where(stub), "", "", f"side '{side.label}': no point has an output throughput")
            return


def side_points(rows: PointTable) -> SidePoints:
    """A side's points on one workload as the engine reads them."""
    return SidePoints(
        interactivity=rows.column("interactivity").astype(float),
        quantities={
            name: rows.column(attribute).astype(float) for name, attribute in metrics.CURVE_QUANTITIES.items()
        },
        deployment=rows.column("config_id").astype(np.int64),
    )


_POINT_MEASURE_COLUMNS = (
    "isl",
    "osl",
    "workload",
    "concurrency",
    "gpu_count",
    "decode_gpus",
    "output_throughput_per_gpu",
    "tpot_median",
    "ttft_median",
    "avg_watts_per_gpu",
    *(tail.removesuffix("_ms") for tail in TAIL_LATENCIES),  # tpot_p90 …: the table's columns
)


def point_measures(points: PointTable) -> list[tuple[Workload, Measure]]:
    """A side's ordinary points as the sweep analyses read tested concurrencies: output tok/s of
    the deployment (per GPU × the GPUs that make output tokens), median TPOT and TTFT in ms
    (where measured: a derived interactivity gives no TPOT) and their p90 and p99 where given,
    system watts (per GPU × GPUs)."""
    found = []
    for r in points.records(columns=_POINT_MEASURE_COLUMNS):
        gpus = r["gpu_count"]
        measure = Measure(
            concurrency=r["concurrency"],
            output_throughput=_product(r["output_throughput_per_gpu"], r["decode_gpus"] or gpus),
            gpu_count=gpus,
            tpot_ms=_product(r["tpot_median"], 1000),
            ttft_ms=_product(r["ttft_median"], 1000),
            power_w=_product(r["avg_watts_per_gpu"], gpus),
            **{tail: _product(r[tail.removesuffix("_ms")], 1000) for tail in TAIL_LATENCIES},
        )
        found.append((row_workload(r), measure))
    return found


def _product(value: float | None, factor: float | None) -> float | None:
    """value × factor; None where either is unknown (a GPU count of 0 included)."""
    return None if value is None or not factor else value * factor


def row_workload(record: Mapping[str, Any]) -> Workload:
    """A point's workload from its record (a label's, else its lengths')."""
    return labelled(record["workload"]) if record["workload"] else Workload(record["isl"], record["osl"])


def _side_measures(
    rows: Sequence[SweepRow], points: Sequence[PointTable], side: int
) -> list[tuple[Workload, Measure]]:
    """A side's tested concurrencies: its node-level sweep rows, else its ordinary points."""
    tested = [(Workload(r.isl, r.osl), r.measure()) for r in rows]
    return tested or (point_measures(points[side]) if side < len(points) else [])


def page_sweep(
    stub: Stub,
    sweeps: Sequence[SweepRow],
    default: Workload,
    log: ProblemLog,
    points: Sequence[PointTable] = (),
) -> PageSweep | None:
    """Each side's sweep rows and their analyses, when the stub asks for a sweep section; a side
    without node-level sweep rows is analysed from its ordinary points (`points`, a table a side)."""
    spec = stub.spec
    if not set(spec.sections) & set(SWEEP_ANALYSES):
        return None
    sla = Sla(spec.sla.tpot_ms, spec.sla.ttft_ms, spec.sla.basis) if spec.sla else None
    rows: list[tuple[SweepRow, ...]] = []
    measures: dict[Workload, tuple[list[Measure], list[Measure]]] = {}
    for i, side in enumerate(stub.sides):
        side_rows = tuple(r for r in sweeps if sweep_matches(r, side.filters))
        rows.append(side_rows)
        tested = _side_measures(side_rows, points, i)
        for workload, measure in tested:
            measures.setdefault(workload, ([], []))[i].append(measure)
        if not tested:
            log.add(
                _where(stub),
                stub.line_of("sections"),
                "sections",
                f"side '{side.label}': no node-level sweep rows or points match its filters, "
                "so the sweep sections show it as not measured",
                Severity.WARNING,
            )
    workloads = sorted_workloads(measures, default)
    analysed = tuple(analyse_workload(w.isl, w.osl, *measures[w], sla, w.label) for w in workloads)
    return PageSweep((rows[0], rows[1]), analysed, sla)


def side_latency(rows: PointTable, metric: str) -> SideLatency:
    """One side's points on a workload as the latency view reads one metric."""
    values = np.array(
        [rows.column(f"{metric}_{stat}").astype(float) for stat in LATENCY_VIEW_STATISTICS], dtype=np.float64
    ).reshape(len(LATENCY_VIEW_STATISTICS), len(rows))
    concurrency = rows.column("concurrency").astype(np.int64)
    throughput = rows.column("throughput_per_gpu").astype(float)
    return SideLatency(latency_measured(values), by_concurrency(concurrency, throughput, values))


def page_latency(rows: Sequence[tuple[PointTable, PointTable]]) -> tuple[tuple[MetricLatency, ...], ...]:
    """Per workload, each metric of the latency view with both sides' latencies."""
    return tuple(
        tuple(
            MetricLatency(metric, (side_latency(pair[0], metric), side_latency(pair[1], metric)))
            for metric in LATENCY_VIEW_METRICS
        )
        for pair in rows
    )


_POWER_COLUMNS = ("isl", "osl", "workload", "concurrency", "throughput_per_gpu", "avg_watts_per_gpu")


def _row_power(row: SweepRow) -> tuple[int, float | None, float | None]:
    """A sweep row as a power point: (concurrency, output tok/s per GPU, system watts per GPU)."""
    watts = row.system_power_w
    per_gpu = None if watts is None or not row.gpu_count else watts / row.gpu_count
    return row.concurrency, row.measure().per_gpu, per_gpu


def page_power(
    stub: Stub, sweep: PageSweep | None, points: Sequence[PointTable], catalog_watts: Sequence[float | None]
) -> tuple[WorkloadPower, ...]:
    """Each side's points with a measured power beside the GPU's all-in catalog watts, workload by
    workload (the page's default first), when the stub asks for the power section; a side with
    node-level sweep rows gives its system power ÷ its GPUs, at its output tok/s per GPU."""
    if sweep is None or "power" not in stub.spec.sections:
        return ()
    found: dict[Workload, tuple[list[Any], list[Any]]] = {}
    for side, rows in enumerate(points):
        if sweep.rows[side]:
            for row in sweep.rows[side]:
                found.setdefault(Workload(row.isl, row.osl), ([], []))[side].append(_row_power(row))
            continue
        for r in rows.records(columns=_POWER_COLUMNS):
            point = (r["concurrency"], r["throughput_per_gpu"], r["avg_watts_per_gpu"])
            found.setdefault(row_workload(r), ([], []))[side].append(point)
    powers = (
        WorkloadPower(
            w.isl,
            w.osl,
            (power_checks(found[w][0], catalog_watts[0]), power_checks(found[w][1], catalog_watts[1])),
            w.label,
        )
        for w in sorted_workloads(found, stub.sequence)
    )
    return tuple(p for p in powers if p.sides[0] or p.sides[1])


def run_score(run: EvalRun) -> RunScore:
    return RunScore(run.score, run.stderr, run.questions, run.per_question_map())


def page_accuracy(
    stub: Stub, selected: Sequence[PointTable], evaluations: Sequence[EvalRun]
) -> PageAccuracy | None:
    """Each side's evaluation runs (at the precisions and methods its points use), task by task;
    None when neither side has any."""
    found = [
        runs_for_side(
            evaluations, side.filters, sorted(rows.values("precision")), sorted(rows.values("spec_method"))
        )
        for side, rows in zip(stub.sides, selected, strict=True)
    ]
    by_task: dict[tuple[str, str], tuple[list[EvalRun], list[EvalRun]]] = {}
    for i, side in enumerate(found):
        for r in side.runs:
            by_task.setdefault((r.task, r.metric), ([], []))[i].append(r)
    if not by_task:
        return None
    computed = []
    for task, metric in sorted(by_task, key=lambda t: (t[0].lower(), t[1])):
        a, b = (tuple(sorted(runs, key=_run_order)) for runs in by_task[task, metric])
        higher = all(r.higher_is_better for r in a + b)
        numbers = compare_task([run_score(r) for r in a], [run_score(r) for r in b], higher)
        computed.append(TaskAccuracy(task, metric, higher, (a, b), numbers))
    return PageAccuracy((found[0], found[1]), tuple(computed))


def _run_order(run: EvalRun) -> tuple[str, str, str, str]:
    return (run.date or "", run.hardware or "", run.setup or "", run.provenance.record)


def _derived_values_sane(
    stub: Stub, workloads: Sequence[Workload], sequences: Sequence[SequenceNumbers], log: ProblemLog
) -> bool:
    """The numeric rule (files.number_faults) for every value the engine derived: a value that
    would not survive a page's table or JSON is refused here, never at render."""
    found = [
        (workload, target, side, key, value)
        for workload, numbers in zip(workloads, sequences, strict=True)
        for target, pair in zip(numbers.targets, numbers.results, strict=True)
        for side, at in zip(stub.sides, pair, strict=True)
        for key, value in at.values.items()
        if value is not None
    ]
    faults = number_faults(np.array([value for *_, value in found], dtype=np.float64))
    for (workload, target, side, key, value), fault in zip(found, faults.tolist(), strict=True):
        if fault >= 0:
            log.add(
                _where(stub),
                "",
                key,
                f"side '{side.label}' at {target:g} tok/s/user, "
                f"{workload.name}: the derived value "
                f"{NUMBER_FAULTS[fault]}, got {excerpt(value)}; "
                "check the throughput of its points and the GPU's constants",
            )
    return not (faults >= 0).any()


def side_constants(
    stub: Stub, catalog: HardwareCatalog, config: SiteConfig, tier: CostTier, log: ProblemLog
) -> list[AppliedConstants]:
    """Each side's GPU constants (catalog, site and page layers), a missing one warned once a
    GPU (sides of one GPU, as on a precision page, share it)."""
    constants = [
        constants_for(catalog, s.hardware, tier, config.constants, stub.spec.constants) for s in stub.sides
    ]
    for c in {c.hardware_name: c for c in constants}.values():
        missing = c.missing()
        if missing:
            log.add(
                _where(stub),
                "",
                "hardware",
                f"no {' or '.join(missing)} constants for {c.hardware_name}: "
                "those metrics are shown as unavailable",
                Severity.WARNING,
            )
    return constants


def sequence_problems(stub: Stub, sides: PageSides, log: ProblemLog) -> None:
    """A side without the stub's workload, warned (its others named)."""
    for side, group in zip(stub.sides, sides.by_workload, strict=True):
        if stub.sequence not in group:
            have = ", ".join(w.name for w in sorted(group, key=lambda w: (w.label, w)))
            log.add(
                _where(stub),
                "",
                "sequence",
                f"side '{side.label}' has no points at {stub.spec.sequence}; it has {have}",
                Severity.WARNING,
            )


def unmatched_problem(
    stub: Stub, sides: PageSides, sequences: Sequence[SequenceNumbers], log: ProblemLog
) -> None:
    """A page showing matched numbers where no target has both sides measured, warned (the plan
    leaves out a generated page whose sides never meet: plan.page_heads)."""
    both_measured = (a.measured and b.measured for s in sequences for a, b in s.results)
    if "matched-interactivity" not in stub.spec.sections or any(both_measured):
        return
    where = ", ".join(w.name for w in sides.workloads)
    log.add(
        _where(stub),
        "",
        "sides",
        f"no matched numbers: the two sides have no interactivity in common on any workload ({where}); "
        f"the page shows each side's measured range only{narrow_sides_said(stub, sides)}",
        Severity.WARNING,
    )


def compute_page(
    stub: Stub,
    table: PointTable,
    catalog: HardwareCatalog,
    models: Mapping[str, ModelInfo],
    config: SiteConfig,
    datasets: Mapping[str, DatasetInfo],
    log: ProblemLog,
    evaluations: Sequence[EvalRun] = (),
    sweeps: Sequence[SweepRow] = (),
) -> ComputedPage | None:
    """The page's numbers, or None (with the reasons logged) when a side selects no points."""
    spec = stub.spec
    sides = page_sides(stub, table)
    side_problems(stub, table, sides, log)
    if sides.empty:
        return None
    selected, basis = sides.rows, sides.basis
    tier = spec.cost_tier or config.cost_tier or catalog.default_cost_tier
    constants = side_constants(stub, catalog, config, tier, log)
    sequence_problems(stub, sides, log)
    shown = sides.workloads
    empty = selected[0].rows([])
    groups = sides.by_workload
    rows = tuple((groups[0].get(w, empty), groups[1].get(w, empty)) for w in shown)
    engine_constants = [Constants(**c.values()) for c in constants]
    sequences = tuple(
        compare_sequence(
            workload.isl,
            workload.osl,
            [side_points(side) for side in pair],
            engine_constants,
            spec.targets if workload == stub.sequence else None,
        )
        for workload, pair in zip(shown, rows, strict=True)
    )
    if not _derived_values_sane(stub, shown, sequences, log):
        return None
    unmatched_problem(stub, sides, sequences, log)
    varied = varied_keys(stub)
    computed = tuple(
        ComputedSide(side.label, side.filters, narrowing(side, varied), side.hardware, c)
        for side, c in zip(stub.sides, constants, strict=True)
    )
    accuracy = page_accuracy(stub, selected, evaluations)
    sweep = page_sweep(stub, sweeps, stub.sequence, log, selected)
    used = {d for side in selected for d in side.values("dataset")}
    used |= {r.provenance.dataset for side in (accuracy.sides if accuracy else ()) for r in side.runs}
    used |= {r.provenance.dataset for side in (sweep.rows if sweep else ()) for r in side}
    return ComputedPage(
        stub=stub,
        title=page_title(stub, catalog, models),
        model_name=model_name(models, spec.model),
        cost_tier=tier,
        sides=(computed[0], computed[1]),
        sequences=sequences,
        rows=rows,
        datasets=tuple(datasets[d] for d in sorted(used)),
        derived_interactivity=any((s.column("interactivity_source") == "derived").any() for s in selected),
        accuracy=accuracy,
        throughput_basis=basis,
        sweep=sweep,
        measured_power=page_power(stub, sweep, selected, [c.watts_all_in for c in constants]),
        latency=page_latency(rows),
        workloads=shown,
    )
