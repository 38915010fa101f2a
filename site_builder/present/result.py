"""A computed page as the comparison.json schema (present/schema.py): the engine's numbers with
their words. The reasons here ("not measured at this interactivity: …") are made from the
engine's structured reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from site_builder import metrics
from site_builder.catalog import CONSTANTS, AppliedConstants, HardwareCatalog, hardware_name
from site_builder.compute import ComputedPage, ComputedSide, PageAccuracy, PageSweep, TaskAccuracy
from site_builder.engine import accuracy as stats
from site_builder.engine import compare as engine_compare
from site_builder.engine import sweep as sweep_engine
from site_builder.engine.compare import AtTarget, SequenceNumbers, SideNumbers
from site_builder.engine.power import DISAGREEMENT, PowerCheck, WorkloadPower
from site_builder.formatting import fixed, grouped, sequence_label
from site_builder.present.latency import latency_result, sweep_tail_lines
from site_builder.present.schema import (
    EXAMPLE_MARK,
    AccuracyDifference,
    AccuracyResult,
    AccuracyRun,
    AccuracySide,
    AccuracyTask,
    Band,
    Claim,
    ComparisonResult,
    DataSource,
    MeasuredLengths,
    MetricsAtTarget,
    PointSummary,
    SequenceResult,
    SideIdentity,
    SideResult,
    SlaLimits,
    SweepExtreme,
    SweepPair,
    SweepPeak,
    SweepResult,
    SweepRowOut,
    SweepSla,
    SweepWorkload,
    TargetComparison,
)
from site_builder.read.evals import EvalRun, metric_label, task_name
from site_builder.read.provenance import DatasetInfo
from site_builder.read.sweeps import SweepRow
from site_builder.read.table import PointTable
from site_builder.workload import Workload

# A point summary's own fields, as the point table names them (the rest: on_frontier)
SUMMARY_COLUMNS = tuple(name for name in PointSummary.model_fields if name != "on_frontier")


def knots(rows: PointTable, frontier: Sequence[int]) -> list[PointSummary]:
    """A side's frontier knots (positions among `rows`) as a reader sees them."""
    return [
        PointSummary.model_construct(**values, on_frontier=True)
        for values in rows.records(frontier, SUMMARY_COLUMNS)
    ]


def range_reason(label: str, measured_range: tuple[float, float] | None) -> str:
    """Why a side has no value at a target, in the words the table's tooltip and the JSON use."""
    if measured_range is None:
        return f"not measured at this interactivity: {label} has no measured points on this workload"
    lo, hi = measured_range
    span = f"{fixed(lo, 1)}–{fixed(hi, 1)}"
    return f"not measured at this interactivity: {label}'s frontier spans {span} tok/s/user"


def deployment_text(concurrency: int, gpu_count: int | None) -> str:
    """'2,253 (22 GPUs)': a measured concurrency and the size of the deployment that ran it."""
    gpus = f"{gpu_count} GPUs" if gpu_count else "GPU count not recorded"
    return f"{grouped(str(concurrency))} ({gpus})"


def constant_reason(
    constant: str, constants: AppliedConstants, at: AtTarget, knots: Sequence[PointSummary]
) -> str:
    """Why a metric has no value: a constant the GPU lacks, a knot without a GPU count, or a
    target between two deployments (metrics.QUANTITY_GAPS), in the words the table's tooltip uses."""
    if constant == "gpu_count":
        return "a measured point on this frontier has no GPU count, so there is no per-GPU concurrency"
    if constant == "deployment":  # only a target between two knots lacks it (engine SideCurves.gaps)
        low, high = (knots[k] for k in at.brackets)
        return between_deployments(low, high, at.same_deployment)
    return CONSTANTS[constant].reason(constants.cost_tier, constants.hardware_name)


def between_deployments(low: PointSummary, high: PointSummary, same_deployment: bool) -> str:
    """Why a target between these two knots has no concurrency."""
    same = "the same deployment, whose concurrency rises" if same_deployment else "two deployments"
    return (
        f"between {same}: measured concurrency {_knot_words(low)} and {_knot_words(high)} tok/s/user; "
        "no deployment ran a concurrency in between"
    )


def _knot_words(knot: PointSummary) -> str:
    """'2,253 on sglang TP8 (agg, 8 GPUs) at 41.2': a knot as a stretch's reason names it."""
    return f"{grouped(str(knot.concurrency))} on {knot.configuration} at {fixed(knot.interactivity, 1)}"


def metrics_at(
    at: AtTarget, label: str, constants: AppliedConstants, knots: Sequence[PointSummary]
) -> MetricsAtTarget:
    """One side's numbers at one target, with the words for what it lacks."""
    if not at.measured:
        return MetricsAtTarget(measured=False, reason=range_reason(label, at.measured_range))
    unavailable = {
        metrics.BY_KEY[key].attribute: constant_reason(lacking[0], constants, at, knots)
        for key, lacking in at.missing.items()
    }
    return MetricsAtTarget(
        measured=True,
        values={metrics.BY_KEY[key].attribute: value for key, value in at.values.items()},
        unavailable=unavailable,
        brackets=list(at.brackets),
        sparse=at.sparse,
        bounds={metrics.BY_KEY[key].attribute: bounds for key, bounds in at.bounds.items()},
    )


def claim_out(made: engine_compare.Claim, labels: Sequence[str]) -> Claim:
    """The engine's claim with the leader named."""
    return Claim(
        ratio=made.ratio,
        ratio_lo=made.lo,
        ratio_hi=made.hi,
        leader=None if made.leader is None else labels[made.leader],
        grade=made.grade,
        lead_at_least=made.worst,
        lead_at_most=made.best,
    )


def pooling(side: ComputedSide) -> str:
    if not side.narrowed_by:
        return "best available"
    return "narrowed: " + "; ".join(
        f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in side.narrowed_by.items()
    )


@dataclass(frozen=True)
class ShownPoints:
    """A side's measured points on one workload as its page lists them (points.csv, the chart's
    markers): by rising interactivity, those on the frontier marked."""

    rows: PointTable
    on_frontier: list[bool]


def shown_points(page: ComputedPage) -> list[list[ShownPoints]]:
    """Per workload, each side's points as its page lists them."""
    return [
        [shown_side(side, rows) for side, rows in zip(numbers.sides, pair, strict=True)]
        for numbers, pair in zip(page.sequences, page.rows, strict=True)
    ]


def shown_side(side: SideNumbers, rows: PointTable) -> ShownPoints:
    """One side's points on one workload as its page lists them."""
    knots = set(side.frontier)
    return ShownPoints(rows.rows(side.order), [n in knots for n in side.order])


# A side's lists of what its frontier holds: each the distinct values of one knot attribute
KNOT_VALUES = {
    "engines": "framework",
    "spec_methods": "spec_method",
    "parallelisms": "parallelism",
    "precisions": "precision",
}
MODES = {False: "agg", True: "disagg"}


def side_result(side: ComputedSide, numbers: SideNumbers, rows: PointTable, labelled: bool) -> SideResult:
    """A side on one workload: its frontier, how many points it measured, what configurations
    and dates its frontier holds, and its words (`labelled`: the workload is a label's, whose
    runs' lengths vary: their range is listed too)."""
    frontier = knots(rows, numbers.frontier)
    dates = sorted(k.date for k in frontier if k.date)
    distinct = {
        name: sorted({getattr(k, attribute) for k in frontier}) for name, attribute in KNOT_VALUES.items()
    }
    return SideResult(
        label=side.label,
        filters=dict(side.filters),
        pooling=pooling(side),
        narrowed=bool(side.narrowed_by),
        hardware=side.hardware,
        constants=side.constants,
        interactivity_range=numbers.range,
        **distinct,
        modes=sorted({MODES[k.disagg] for k in frontier}),
        unknown_gpu_counts=sum(not k.gpu_count for k in frontier),
        concurrency_joins=list(numbers.one_deployment),
        dates=(dates[0], dates[-1]) if dates else None,
        frontier=frontier,
        point_count=len(numbers.order),
        lengths=measured_lengths(rows, labelled),
    )


def measured_lengths(rows: PointTable, labelled: bool = False) -> MeasuredLengths | None:
    """The side's measured mean lengths and range ratios on one workload, or None where no
    point gives either (a plain mean of the points' means: each point is one run); on a
    labelled workload also the lowest and highest of the points' means."""
    means = {key: rows.column(key).astype(float) for key in ("isl_mean", "osl_mean")}
    ratios = rows.column("random_range_ratio").astype(float)
    given = [m[~np.isnan(m)] for m in means.values()]
    if not any(len(g) for g in given) and np.isnan(ratios).all():
        return None
    isl, osl = (float(g.mean()) if len(g) else None for g in given)
    isl_range, osl_range = ((float(g.min()), float(g.max())) if labelled and len(g) else None for g in given)
    measured = ~np.isnan(means["isl_mean"]) | ~np.isnan(means["osl_mean"])
    return MeasuredLengths(
        isl_mean=isl,
        osl_mean=osl,
        points=int(measured.sum()),
        random_range_ratios=sorted({float(r) for r in ratios[~np.isnan(ratios)]}),
        isl_range=isl_range,
        osl_range=osl_range,
    )


def sequence_result(
    sides: Sequence[ComputedSide], workload: Workload, numbers: SequenceNumbers, rows: Sequence[PointTable]
) -> SequenceResult:
    band = numbers.band
    display_lo, display_hi = band.display or (None, None)
    labelled = bool(workload.label)
    shown = [side_result(side, n, r, labelled) for side, n, r in zip(sides, numbers.sides, rows, strict=True)]
    return SequenceResult(
        sequence=workload.name,
        isl=None if labelled else workload.isl,
        osl=None if labelled else workload.osl,
        workload=workload.label or None,
        band=Band(
            overlap=band.overlap,
            lo=band.lo,
            hi=band.hi,
            display_lo=display_lo,
            display_hi=display_hi,
        ),
        targets=list(numbers.targets),
        targets_pinned=numbers.targets_pinned,
        results=[
            TargetComparison(
                interactivity=target,
                sides=[
                    metrics_at(at, side.label, side.constants, result.frontier)
                    for at, side, result in zip(pair, sides, shown, strict=True)
                ],
                claims={
                    metrics.BY_KEY[key].attribute: claim_out(made, [s.label for s in sides])
                    for key, made in claims.items()
                },
            )
            for target, pair, claims in zip(numbers.targets, numbers.results, numbers.claims, strict=True)
        ],
        sides=shown,
    )


def notices(page: ComputedPage) -> list[str]:
    found = []
    if any(d.published_values for d in page.datasets):
        found.append(
            "Some points are values another site published at its own targets (read off its table), "
            "not raw measurements; curves between them are our interpolation of those values."
        )
    if page.throughput_basis == "output":
        found.append(
            "Throughput on this page is output tokens per second only: a side's source gives no input "
            "throughput, so both sides are compared on output tok/s throughout."
        )
    if page.derived_interactivity:
        found.append(
            "Some interactivities are derived as output tok/s ÷ concurrency because the source gives no TPOT."
        )
    found.extend(power_disagreements(page.measured_power, [side.label for side in page.sides]))
    return found


def power_disagreement(label: str, sequence: str, checks: Sequence[PowerCheck]) -> str | None:
    """The caveat when a side's measured watts per GPU and the catalog's all-in watts are more than
    2× apart (engine.power's rule), naming both at the farthest point; None when none are."""
    flagged = [c for c in checks if c.disagrees]
    if not flagged:
        return None
    far = max(flagged, key=_apart)
    where = f"at concurrency {far.concurrency}"
    if len(flagged) > 1:
        where = f"at {len(flagged)} of {len(checks)} measured concurrencies, farthest {where}"
    return (
        f"{label}'s measured power disagrees with the catalog by more than {fixed(DISAGREEMENT, 0)}× on "
        f"{sequence} ({where}): {fixed(far.measured_w, 0, thousands=True)} W per GPU measured against "
        f"the catalog's all-in {fixed(far.catalog_w or 0, 0, thousands=True)} W per GPU, "
        f"{fixed(_apart(far), 2)}× apart. Tok/s per MW here uses the catalog's figure; check the constant "
        "or the measurement."
    )


def _apart(check: PowerCheck) -> float:
    """How many times one of the two watts figures is the other (0: no catalog figure)."""
    ratio = check.ratio
    return 0.0 if ratio is None else max(ratio, 1 / ratio)


def power_disagreements(powers: Sequence[WorkloadPower], labels: Sequence[str]) -> list[str]:
    """Every side and workload whose measured power is more than 2× from the catalog's."""
    notes = (
        power_disagreement(label, Workload(w.isl, w.osl, w.label).name, checks)
        for w in powers
        for label, checks in zip(labels, w.sides, strict=True)
    )
    return [note for note in notes if note]


EXCLUDED_REASONS: dict[str | None, str] = {
    "failed": "scored 0: the run most likely failed (no answer parsed); left out of the pooled score",
    "no-error": (
        "neither a standard error nor a number of questions: no interval, left out of the pooled score"
    ),
}


def _interval(estimate: stats.Estimate | None) -> dict[str, float | None]:
    """An estimate's standard error and 95% interval as the schema names them (None: no estimate)."""
    if estimate is None:
        return {"stderr": None, "ci_lo": None, "ci_hi": None}
    return {"stderr": estimate.stderr, "ci_lo": estimate.lo, "ci_hi": estimate.hi}


def _pooled(pooled: stats.Pooled | None) -> dict[str, Any]:
    """A side's pooled score as AccuracySide lists it (None: no usable run, nothing pooled)."""
    if pooled is None:
        return {
            "score": None,
            **_interval(None),
            "pooled_runs": 0,
            "pool_method": None,
            "spread": None,
            "consistent": True,
        }
    return {
        "score": pooled.estimate.value,
        **_interval(pooled.estimate),
        "pooled_runs": pooled.runs,
        "pool_method": pooled.method,
        "spread": pooled.spread,
        "consistent": pooled.consistent,
    }


def accuracy_run(run: EvalRun, numbers: stats.RunNumbers) -> AccuracyRun:
    return AccuracyRun(
        score=run.score,
        **_interval(numbers.estimate),
        questions=run.questions,
        per_question=run.per_question is not None,
        pooled=numbers.excluded is None,
        excluded_reason=EXCLUDED_REASONS.get(numbers.excluded),
        hardware=run.hardware,
        precision=run.precision,
        spec_method=run.spec_method,
        framework=run.framework,
        setup=run.setup,
        date=run.date,
        dataset=run.provenance.dataset,
        source_file=run.provenance.source_file,
        record=run.provenance.record,
        note=run.provenance.note,
    )


def accuracy_task(
    task: TaskAccuracy, labels: Sequence[str], other_hardware: Sequence[bool], catalog: HardwareCatalog
) -> AccuracyTask:
    numbers = task.numbers
    sides = [
        AccuracySide(
            label=label,
            runs=[accuracy_run(r, n) for r, n in zip(runs, run_numbers, strict=True)],
            **_pooled(pooled),
            hardware=sorted({hardware_name(catalog, r.hardware) for r in runs if r.hardware}),
            other_hardware=other and bool(runs),
        )
        for label, runs, run_numbers, pooled, other in zip(
            labels, task.runs, numbers.runs, numbers.pooled, other_hardware, strict=True
        )
    ]
    return AccuracyTask(
        task=task.task,
        task_name=task_name(task.task),
        metric=task.metric,
        metric_label=metric_label(task.metric),
        higher_is_better=task.higher_is_better,
        sides=sides,
        difference=accuracy_difference(numbers.difference, labels),
    )


def accuracy_difference(diff: stats.Difference | None, labels: Sequence[str]) -> AccuracyDifference | None:
    if diff is None:
        return None
    return AccuracyDifference(
        value=diff.estimate.value,
        stderr=diff.estimate.stderr,
        ci_lo=diff.estimate.lo,
        ci_hi=diff.estimate.hi,
        method=diff.method,
        questions=diff.questions,
        verdict=diff.verdict,
        better={"a-better": labels[0], "b-better": labels[1]}.get(diff.verdict),
    )


def accuracy_result(
    accuracy: PageAccuracy | None, labels: Sequence[str], catalog: HardwareCatalog
) -> AccuracyResult | None:
    if accuracy is None:
        return None
    other = [side.other_hardware for side in accuracy.sides]
    return AccuracyResult(
        tasks=[accuracy_task(t, labels, other, catalog) for t in accuracy.tasks],
        sides_without=[label for label, side in zip(labels, accuracy.sides, strict=True) if not side.runs],
    )


def sweep_ratio_text(ratio: float | None, labels: Sequence[str], lower_is_better: bool = False) -> str | None:
    """A ÷ B written so it cannot mislead: '2.30×', '0.99× (FP8 slightly ahead)', and for a
    latency (lower is better) always which side is lower: '1.25× (FP8 lower)'."""
    if ratio is None:
        return None
    text = fixed(ratio, 2) + "×"
    shown = float(fixed(ratio, 2))
    if shown == 1.0:
        return f"{text} (even)"
    a_ahead = shown < 1.0 if lower_is_better else shown > 1.0
    leader = labels[0] if a_ahead else labels[1]
    slightly = "slightly " if abs(ratio - 1.0) < 0.05 else ""
    if lower_is_better:
        return f"{text} ({leader} {slightly}lower)"
    if a_ahead and not slightly:
        return text
    return f"{text} ({leader} {slightly}ahead)"


def _pairs(
    pairs: Sequence[sweep_engine.Pair],
    labels: Sequence[str],
    lower_is_better: bool = False,
    derived: tuple[frozenset[int], frozenset[int]] = (frozenset(), frozenset()),
) -> list[SweepPair]:
    return [
        SweepPair(
            concurrency=p.concurrency,
            values=[p.a, p.b],
            derived=[p.concurrency in derived[0], p.concurrency in derived[1]],  # derived: always a value
            ratio=p.ratio,
            ratio_text=sweep_ratio_text(p.ratio, labels, lower_is_better),
        )
        for p in pairs
    ]


def _sla(result: sweep_engine.SlaResult, basis: str) -> SweepSla:
    return SweepSla(
        concurrency=result.concurrency,
        output_throughput=result.output_throughput,
        tpot_ms=result.tpot_ms,
        tpot_derived=basis == "derived" and result.tpot_ms is not None,
        ttft_ms=result.ttft_ms,
        judged=result.judged,
        meeting=list(result.meeting),
    )


def sweep_workload(w: sweep_engine.WorkloadSweep, labels: Sequence[str], sweep: PageSweep) -> SweepWorkload:
    basis = sweep.sla.basis if sweep.sla else "measured"
    return SweepWorkload(
        sequence=Workload(w.isl, w.osl, w.label).name,
        isl=None if w.label else w.isl,
        osl=None if w.label else w.osl,
        measured=[bool(side) for side in w.sides],
        gpu_counts=[sorted({m.gpu_count for m in side.values() if m.gpu_count}) for side in w.sides],
        output_throughput=_pairs(w.throughput, labels),
        output_throughput_per_gpu=_pairs(w.per_gpu, labels),
        peaks=[
            SweepPeak(
                output_throughput=p.output_throughput,
                output_throughput_per_gpu=p.per_gpu,
                concurrency=p.concurrency,
            )
            if p
            else None
            for p in w.peaks
        ],
        peak_ratio=w.peak_ratio,
        peak_ratio_text=sweep_ratio_text(w.peak_ratio, labels),
        ttft_ms=_pairs(w.ttft, labels, lower_is_better=True),
        tpot_ms=_pairs(w.tpot, labels, lower_is_better=True, derived=w.tpot_derived),
        sla=[_sla(r, basis) for r in w.sla] if w.sla else None,
        sla_concurrency_ratio=w.sla_ratio,
        sla_concurrency_ratio_text=sweep_ratio_text(w.sla_ratio, labels),
        sla_throughput_ratio=w.sla_throughput_ratio,
        tokens_per_watt=_pairs(w.power, labels),
        **{tail: _pairs(pairs, labels, lower_is_better=True) for tail, pairs in w.tails.items()},
        tails_not_measured=sweep_tail_lines(w, labels),
    )


SWEEP_EXTREMES = {
    "output_throughput": ("throughput", False),
    "ttft_ms": ("ttft", True),
    "tpot_ms": ("tpot", True),
    "tokens_per_watt": ("power", False),
}


def _tpot_fields(m: sweep_engine.Measure) -> dict[str, Any]:
    tpot, source = (m.tpot_ms, "measured") if m.tpot_ms is not None else (m.derived_tpot_ms, "derived")
    if tpot is None:
        return {"tpot_ms": None, "tpot_source": None, "interactivity": None, "interactivity_source": None}
    return {
        "tpot_ms": tpot,
        "tpot_source": source,
        "interactivity": 1000.0 / tpot,
        "interactivity_source": source,
    }


def _latency_fields(r: SweepRow) -> dict[str, float | None]:
    """The row's latencies under the columns that name their statistic; the other pair None."""
    fields: dict[str, float | None] = {
        f"{stat}_{metric}_ms": None for stat in ("median", "mean") for metric in ("tpot", "ttft")
    }
    fields[r.latency_column("tpot")] = r.tpot_ms
    fields[r.latency_column("ttft")] = r.ttft_ms
    return fields


def sweep_row_out(label: str, r: SweepRow) -> SweepRowOut:
    """One sweep row as comparison.json lists it, its derived values measured once."""
    measured = r.measure()
    return SweepRowOut(
        side=label,
        sequence=sequence_label(r.isl, r.osl),
        concurrency=r.concurrency,
        gpu_count=r.gpu_count,
        output_throughput=r.output_throughput,
        output_throughput_per_gpu=measured.per_gpu,
        **_latency_fields(r),
        system_power_w=r.system_power_w,
        **_tpot_fields(measured),
        tokens_per_watt=measured.tokens_per_watt,
        model=r.model,
        hardware=r.hardware,
        precision=r.precision,
        framework=r.framework,
        dataset=r.provenance.dataset,
        source_file=r.provenance.source_file,
        record=r.provenance.record,
        date=r.provenance.date,
    )


def sweep_result(sweep: PageSweep | None, labels: Sequence[str]) -> SweepResult | None:
    if sweep is None:
        return None
    extremes = {}
    for attribute, (pick, lower) in SWEEP_EXTREMES.items():
        found = sweep_engine.extremes(sweep.workloads, pick)
        if found is not None:
            extremes[attribute] = [
                SweepExtreme(
                    sequence=Workload(e.isl, e.osl, e.label).name,
                    concurrency=e.concurrency,
                    ratio=e.ratio,
                    ratio_text=sweep_ratio_text(e.ratio, labels, lower) or "",
                )
                for e in found
            ]
    rows = [
        sweep_row_out(label, r)
        for label, side in zip(labels, sweep.rows, strict=True)
        for r in sorted(side, key=lambda r: (r.isl, r.osl, r.concurrency))
    ]
    return SweepResult(
        sla=SlaLimits(tpot_ms=sweep.sla.tpot_ms, ttft_ms=sweep.sla.ttft_ms, basis=sweep.sla.basis)
        if sweep.sla
        else None,
        workloads=[sweep_workload(w, labels, sweep) for w in sweep.workloads],
        extremes=extremes,
        rows=rows,
    )


def example_title(title: str) -> str:
    """A page title marked as example data (once: a title that already says so stays)."""
    return title if EXAMPLE_MARK.lower() in title.lower() else f"{EXAMPLE_MARK}: {title}"


SOURCES_LISTED = 20  # data sets a page lists one by one; the rest in one entry (docs/comparison-json.md)
MORE_SOURCES = "*"  # the `dataset` of that entry
LICENCES_NAMED = 3  # the rest's distinct licences named in it, at most


def data_sources(datasets: Sequence[DatasetInfo]) -> list[DataSource]:
    """The page's data sets (by id), the first SOURCES_LISTED one by one and the rest as one
    entry: a page made of 50,000 one-point files (each its own data set) lists 21, not 50,000;
    points.csv still names every point's data set and file."""
    listed = [
        DataSource(
            dataset=d.id,
            title=d.title,
            source=d.source,
            url=d.url,
            licence=d.licence,
            retrieved=d.retrieved,
            published_values=d.published_values,
            example=d.is_example,
        )
        for d in datasets[:SOURCES_LISTED]
    ]
    rest = datasets[SOURCES_LISTED:]
    if rest:
        licences = sorted({d.licence for d in rest if d.licence})
        if len(licences) > LICENCES_NAMED:
            licences = [f"{len(licences)} different licences (see each data set's files)"]
        listed.append(
            DataSource(
                dataset=MORE_SOURCES,
                title=f"{grouped(str(len(rest)))} more data sets",
                source="listed point by point in points.csv (columns dataset and source_file)",
                url=None,
                licence="; ".join(licences) or None,
                retrieved=None,
                published_values=any(d.published_values for d in rest),
                example=any(d.is_example for d in rest),
            )
        )
    return listed


def comparison_result(page: ComputedPage, catalog: HardwareCatalog) -> ComparisonResult:
    """The whole page as `comparison.json` holds it (and the templates read it)."""
    spec = page.stub.spec
    labels = [s.label for s in page.sides]
    example = any(d.is_example for d in page.datasets)
    return ComparisonResult(
        slug=page.slug,
        kind=spec.kind,
        title=example_title(page.title) if example else page.title,
        model=spec.model,
        model_name=page.model_name,
        hardware=list(dict.fromkeys(s.hardware for s in page.sides)),
        default_sequence=page.stub.sequence.name,
        cost_tier=page.cost_tier,
        sides=[SideIdentity(label=s.label, filters=s.filters) for s in page.sides],
        sequences=[
            sequence_result(page.sides, w, s, r)
            for w, s, r in zip(page.workloads, page.sequences, page.rows, strict=True)
        ],
        constants=sorted({s.constants for s in page.sides}, key=lambda c: c.hardware),
        data_sources=data_sources(page.datasets),
        notices=notices(page),
        accuracy=accuracy_result(page.accuracy, labels, catalog),
        sections=list(spec.sections),
        throughput_basis="output" if page.throughput_basis == "output" else "total",
        sweep=sweep_result(page.sweep, labels),
        example_data=example,
        latency=latency_result(page),
    )
