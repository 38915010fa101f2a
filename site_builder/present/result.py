"""A computed page as the comparison.json schema (present/schema.py): the engine's numbers with
their words. The reasons here ("not measured at this interactivity: …") are made from the
engine's structured reasons.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from site_builder import metrics
from site_builder.catalog import AppliedConstants, HardwareCatalog, hardware_name
from site_builder.compute import ComputedPage, ComputedSide, PageAccuracy, PageSweep, TaskAccuracy
from site_builder.engine import accuracy as stats
from site_builder.engine import sweep as sweep_engine
from site_builder.engine.compare import SIDES_KEPT, AtTarget, SequenceNumbers, SideNumbers
from site_builder.formatting import fixed, grouped, sequence_label
from site_builder.kinds import KINDS, Words
from site_builder.memo import IdentityMemo, SequenceMemo
from site_builder.points import BenchmarkPoint, Configuration
from site_builder.present.schema import (
    AccuracyDifference,
    AccuracyResult,
    AccuracyRun,
    AccuracySide,
    AccuracyTask,
    Band,
    ComparisonResult,
    DataSource,
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
from site_builder.read.sweeps import SweepRow

# every summary's fields-set: all fields given; one set shared by every summary (never changed,
# as a summary is frozen) rather than one a summary, which would double its memory
SUMMARY_FIELDS = set(PointSummary.model_fields)


# Bounds of the per-process memos (memo.py): every configuration of a large site, and the points
# of many pages (a summary holds about 1 KB beside its point)
CONFIGURATIONS_KEPT = 65_536


SUMMARIES_KEPT = 16_384


def _labels(config: Configuration) -> tuple[str, str]:
    return config.parallelism_label(), config.label()


_CONFIG_LABELS: IdentityMemo[Configuration, tuple[str, str]] = IdentityMemo(CONFIGURATIONS_KEPT)


def _template(config: Configuration) -> dict[str, Any]:
    """A summary's values as far as its configuration gives them, in field order; the point's
    own fields are filled into a copy (`_summary`)."""
    parallelism, configuration = _CONFIG_LABELS.get(config, _labels)
    values: dict[str, Any] = dict.fromkeys(PointSummary.model_fields)
    values.update(
        gpu_count=config.gpu_count,
        model=config.model,
        hardware=config.hardware,
        precision=config.precision,
        framework=config.framework,
        spec_method=config.spec_method,
        disagg=config.disagg,
        parallelism=parallelism,
        configuration=configuration,
    )
    return values


_TEMPLATES: IdentityMemo[Configuration, dict[str, Any]] = IdentityMemo(CONFIGURATIONS_KEPT)


def _summary(point: BenchmarkPoint, on_frontier: bool) -> PointSummary:
    """Built without validation: every value comes from a validated point. Equal to
    `PointSummary.model_construct(**values)` (a test checks), without its per-field alias and
    default handling, as every field is given; the configuration's values are copied from a
    template made once a configuration (the points of one share it)."""
    provenance = point.provenance
    values = _TEMPLATES.get(point.config, _template).copy()
    values["interactivity"] = point.interactivity
    values["interactivity_source"] = point.interactivity_source
    values["throughput_per_gpu"] = point.throughput_per_gpu
    values["output_throughput_per_gpu"] = point.output_throughput_per_gpu
    values["concurrency"] = point.concurrency
    values["users_per_gpu"] = point.users_per_gpu
    values["date"] = provenance.date
    values["run_url"] = provenance.run_url
    values["dataset"] = provenance.dataset
    values["source_file"] = provenance.source_file
    values["record"] = provenance.record
    values["client"] = provenance.client
    values["on_frontier"] = on_frontier
    return PointSummary.model_construct(SUMMARY_FIELDS, **values)


def _on_frontier(point: BenchmarkPoint) -> PointSummary:
    return _summary(point, True)


def _off_frontier(point: BenchmarkPoint) -> PointSummary:
    return _summary(point, False)


_SUMMARIES = (
    IdentityMemo[BenchmarkPoint, PointSummary](SUMMARIES_KEPT),
    IdentityMemo[BenchmarkPoint, PointSummary](SUMMARIES_KEPT),
)


def summarize(point: BenchmarkPoint, on_frontier: bool) -> PointSummary:
    """A point as a reader sees it. Pages summarise every point they show, and a point is on
    several pages: its summary is made once a process (memo.py) and shared, which is safe as a
    summary is frozen (and pickling a page writes a summary it repeats once)."""
    if on_frontier:
        return _SUMMARIES[1].get(point, _on_frontier)
    return _SUMMARIES[0].get(point, _off_frontier)


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


def constant_reason(constant: str, constants: AppliedConstants, at: AtTarget | None = None) -> str:
    """Why a metric has no value: a constant the GPU lacks, a knot without a GPU count, or a
    target between two deployments (metrics.QUANTITY_GAPS), in the words the table's tooltip uses."""
    if constant == "usd_per_gpu_hour":
        return f"no {constants.cost_tier} cost per GPU-hour for {constants.hardware_name}"
    if constant == "gpu_count":
        return "a measured point on this frontier has no GPU count, so there is no per-GPU concurrency"
    if constant == "deployment" and at is not None and len(at.brackets) == 2:
        return _BETWEEN_DEPLOYMENTS.get(at.brackets, _between_deployments)
    return f"no all-in power per GPU for {constants.hardware_name}"


def _between_deployments(knots: tuple[BenchmarkPoint, ...]) -> str:
    low, high = knots
    same = (
        "the same deployment, whose concurrency rises"
        if low.config is high.config or low.config == high.config
        else "two deployments"
    )
    measured = _KNOT_WORDS.get_each(knots, _knot_words)
    return (
        f"between {same}: measured concurrency {measured[0]} and {measured[1]} tok/s/user; "
        "no deployment ran a concurrency in between"
    )


def _knot_words(knot: BenchmarkPoint) -> str:
    """'2,253 on sglang TP8 (agg, 8 GPUs) at 41.2': a knot as a stretch's reason names it."""
    configuration = _CONFIG_LABELS.get(knot.config, _labels)[1]
    return f"{grouped(str(knot.concurrency))} on {configuration} at {fixed(knot.interactivity, 1)}"


# The words for a target between two knots, once a process for the same two knots (a side's
# stretch is read at many targets, on several pages), and each knot's (a knot ends two stretches)
_BETWEEN_DEPLOYMENTS: SequenceMemo[BenchmarkPoint, str] = SequenceMemo(SUMMARIES_KEPT)


_KNOT_WORDS: IdentityMemo[BenchmarkPoint, str] = IdentityMemo(SUMMARIES_KEPT)


def metrics_at(at: AtTarget, label: str, constants: AppliedConstants) -> MetricsAtTarget:
    if not at.measured:
        return MetricsAtTarget(measured=False, reason=range_reason(label, at.measured_range))
    reasons = {lacking[0]: "" for lacking in at.missing.values()}  # each worded once
    for constant in reasons:
        reasons[constant] = constant_reason(constant, constants, at)
    values = {metrics.BY_KEY[key].attribute: value for key, value in at.values.items()}
    fields: dict[str, Any] = {
        "measured": True,
        "reason": None,
        "values": values,
        "unavailable": {
            metrics.BY_KEY[key].attribute: reasons[lacking[0]] for key, lacking in at.missing.items()
        },
        "brackets": _SUMMARIES[1].get_each(at.brackets, _on_frontier),
        "sparse": at.sparse,
    }
    if all(value is None or type(value) is float for value in values.values()):
        # every field as validation would leave it (it would turn an int into a float)
        return MetricsAtTarget.model_construct(MEASURED_FIELDS, **fields)
    del fields["reason"]
    return MetricsAtTarget(**fields)


# the fields a measured MetricsAtTarget is given (all but its reason)
MEASURED_FIELDS = {"measured", "values", "unavailable", "brackets", "sparse"}


def pooling(side: ComputedSide) -> str:
    if not side.narrowed_by:
        return "best available"
    return "narrowed: " + "; ".join(
        f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in side.narrowed_by.items()
    )


@dataclass(frozen=True, eq=False)
class _SideShown:
    """What a side's result shows of its frontier and points, the same on every page showing
    them: the summaries and what the frontier's configurations and dates say. The lists are
    shared by every SideResult made from them and never changed (SideResult is frozen), so what
    is derived from them downstream (the JSON, the CSV lines, the chart's markers) is keyed by
    their identity (memo.py)."""

    frontier: list[PointSummary]
    points: list[PointSummary]
    engines: tuple[str, ...]
    spec_methods: tuple[str, ...]
    modes: tuple[str, ...]
    parallelisms: tuple[str, ...]
    precisions: tuple[str, ...]
    unknown_gpu_counts: int
    dates: tuple[str, str] | None


def _side_shown(numbers: tuple[tuple[BenchmarkPoint, ...], ...]) -> _SideShown:
    points, frontier = numbers
    knots = _SUMMARIES[1].get_each(frontier, _on_frontier)
    on_frontier = {id(p): summary for p, summary in zip(frontier, knots, strict=True)}
    off_frontier = iter(
        _SUMMARIES[0].get_each([p for p in points if id(p) not in on_frontier], _off_frontier)
    )
    dates = sorted(p.provenance.date for p in frontier if p.provenance.date)
    shown = [on_frontier[id(p)] if id(p) in on_frontier else next(off_frontier) for p in points]
    if len(shown) == len(knots) and all(map(operator.is_, shown, knots)):
        shown = knots  # every point on the frontier: one list, its JSON made once
    return _SideShown(
        frontier=knots,
        points=shown,
        engines=tuple(sorted({p.config.framework for p in frontier})),
        spec_methods=tuple(sorted({p.config.spec_method for p in frontier})),
        modes=tuple(sorted({"disagg" if p.config.disagg else "agg" for p in frontier})),
        parallelisms=tuple(sorted({_CONFIG_LABELS.get(p.config, _labels)[0] for p in frontier})),
        precisions=tuple(sorted({p.config.precision for p in frontier})),
        unknown_gpu_counts=sum(1 for p in frontier if not p.config.gpu_count),
        dates=(dates[0], dates[-1]) if dates else None,
    )


# What a side shows of its frontier and points, once a process for the very same tuples (the
# engine shares a side's tuples between the pages that pool the same points: engine.compare)
_SIDES_SHOWN: SequenceMemo[tuple[BenchmarkPoint, ...], _SideShown] = SequenceMemo(SIDES_KEPT)


def side_result(side: ComputedSide, numbers: SideNumbers) -> SideResult:
    """The side's result, one object for every page showing the same side with the same words
    (label, filters, constants): it is frozen, and what is derived from it downstream is then
    derived once. The key holds what the result is made of (the shown summaries by identity,
    held in the entry: their id is never reused while it lives)."""
    shown = _SIDES_SHOWN.get((numbers.points, numbers.frontier), _side_shown)
    key = (
        id(shown),
        side.label,
        _filters_key(side.filters),
        _filters_key(side.narrowed_by),
        side.hardware,
        side.constants,
        numbers.range,
        numbers.one_deployment,
    )
    entry = _SIDE_RESULTS.get(key)
    if entry is not None and entry[0] is shown:
        return entry[1]
    result = _side_result(side, numbers, shown)
    if len(_SIDE_RESULTS) >= SIDES_KEPT:
        _SIDE_RESULTS.clear()
    _SIDE_RESULTS[key] = (shown, result)
    return result


def _filters_key(filters: Mapping[str, Any]) -> tuple[tuple[str, type, Any], ...]:
    """Filters as a key: in their order (the JSON keeps it), a list as a tuple, each value
    with its type (True and 1 are equal, and write differently)."""
    return tuple((k, type(v), tuple(v) if isinstance(v, list) else v) for k, v in filters.items())


# Sides' results by what they are made of (side_result); an entry holds its _SideShown
_SIDE_RESULTS: dict[tuple[Any, ...], tuple[_SideShown, SideResult]] = {}


def _side_result(side: ComputedSide, numbers: SideNumbers, shown: _SideShown) -> SideResult:
    fields: dict[str, Any] = {
        "label": side.label,
        # a copy, as validation makes: the result shares no container with the page's side
        "filters": {k: list(v) if isinstance(v, list) else v for k, v in side.filters.items()},
        "pooling": pooling(side),
        "narrowed": bool(side.narrowed_by),
        "hardware": side.hardware,
        "constants": side.constants,
        "interactivity_range": numbers.range,
        "engines": list(shown.engines),
        "spec_methods": list(shown.spec_methods),
        "modes": list(shown.modes),
        "parallelisms": list(shown.parallelisms),
        "precisions": list(shown.precisions),
        "unknown_gpu_counts": shown.unknown_gpu_counts,
        "concurrency_joins": list(numbers.one_deployment),
        "dates": shown.dates,
        "frontier": shown.frontier,
        "points": shown.points,
    }
    if numbers.range is None or all(type(v) is float for v in numbers.range):
        # every field as validation would leave it (it would turn an int into a float)
        return SideResult.model_construct(SIDE_FIELDS, **fields)
    return SideResult(**fields)


SIDE_FIELDS = set(SideResult.model_fields)


def sequence_result(sides: Sequence[ComputedSide], numbers: SequenceNumbers) -> SequenceResult:
    band = numbers.band
    display = band.display
    return SequenceResult(
        sequence=sequence_label(numbers.isl, numbers.osl),
        isl=numbers.isl,
        osl=numbers.osl,
        band=Band(
            overlap=band.overlap,
            lo=band.lo,
            hi=band.hi,
            display_lo=display[0] if display else None,
            display_hi=display[1] if display else None,
        ),
        targets=list(numbers.targets),
        targets_pinned=numbers.targets_pinned,
        results=[
            TargetComparison(
                interactivity=target,
                sides=[
                    metrics_at(at, side.label, side.constants) for at, side in zip(pair, sides, strict=True)
                ],
            )
            for target, pair in zip(numbers.targets, numbers.results, strict=True)
        ],
        sides=[side_result(side, n) for side, n in zip(sides, numbers.sides, strict=True)],
    )


def default_title(page: ComputedPage, catalog: HardwareCatalog) -> str:
    """The kind's title pattern, filled with this page's names."""
    spec = page.stub.spec
    a, b = (side.label for side in page.sides)
    gpu = hardware_name(catalog, page.sides[0].hardware)
    precision = spec.precision.upper() if spec.precision else ""
    words = Words(a=a, b=b, model=page.model_name, gpu=gpu, gpu_with_architecture=gpu, precision=precision)
    return KINDS[spec.kind].title(words)


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
    return found


EXCLUDED_REASONS = {
    "failed": "scored 0: the run most likely failed (no answer parsed); left out of the pooled score",
    "no-error": (
        "neither a standard error nor a number of questions: no interval, left out of the pooled score"
    ),
}


def accuracy_run(run: EvalRun, numbers: stats.RunNumbers) -> AccuracyRun:
    estimate = numbers.estimate
    return AccuracyRun(
        score=run.score,
        stderr=estimate.stderr if estimate else None,
        ci_lo=estimate.lo if estimate else None,
        ci_hi=estimate.hi if estimate else None,
        questions=run.questions,
        per_question=run.per_question is not None,
        pooled=numbers.excluded is None,
        excluded_reason=EXCLUDED_REASONS[numbers.excluded] if numbers.excluded else None,
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
    sides = []
    for i, label in enumerate(labels):
        pooled = task.numbers.pooled[i]
        estimate = pooled.estimate if pooled else None
        runs = task.runs[i]
        sides.append(
            AccuracySide(
                label=label,
                runs=[accuracy_run(r, n) for r, n in zip(runs, task.numbers.runs[i], strict=True)],
                score=estimate.value if estimate else None,
                stderr=estimate.stderr if estimate else None,
                ci_lo=estimate.lo if estimate else None,
                ci_hi=estimate.hi if estimate else None,
                pooled_runs=pooled.runs if pooled else 0,
                pool_method=pooled.method if pooled else None,
                spread=pooled.spread if pooled else None,
                consistent=pooled.consistent if pooled else True,
                hardware=sorted({hardware_name(catalog, r.hardware) for r in runs if r.hardware}),
                other_hardware=other_hardware[i] and bool(runs),
            )
        )
    diff = task.numbers.difference
    difference = None
    if diff is not None:
        better = {"a-better": labels[0], "b-better": labels[1]}.get(diff.verdict)
        difference = AccuracyDifference(
            value=diff.estimate.value,
            stderr=diff.estimate.stderr,
            ci_lo=diff.estimate.lo,
            ci_hi=diff.estimate.hi,
            method=diff.method,
            questions=diff.questions,
            verdict=diff.verdict,
            better=better,
        )
    return AccuracyTask(
        task=task.task,
        task_name=task_name(task.task),
        metric=task.metric,
        metric_label=metric_label(task.metric),
        higher_is_better=task.higher_is_better,
        sides=sides,
        difference=difference,
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
    slightly = "slightly " if abs(ratio - 1.0) < 0.05 else ""
    if lower_is_better:
        return f"{text} ({labels[0] if a_ahead else labels[1]} {slightly}lower)"
    if a_ahead and not slightly:
        return text
    return f"{text} ({labels[0] if a_ahead else labels[1]} {slightly}ahead)"


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
            derived=[
                p.concurrency in derived[0] and p.a is not None,
                p.concurrency in derived[1] and p.b is not None,
            ],
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
        sequence=sequence_label(w.isl, w.osl),
        isl=w.isl,
        osl=w.osl,
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
        median_tpot_ms=r.median_tpot_ms,
        median_ttft_ms=r.median_ttft_ms,
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
                    sequence=sequence_label(e.isl, e.osl),
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


def comparison_result(page: ComputedPage, catalog: HardwareCatalog) -> ComparisonResult:
    """The whole page as `comparison.json` holds it (and the templates read it)."""
    spec = page.stub.spec
    return ComparisonResult(
        slug=page.slug,
        kind=spec.kind,
        title=spec.title or default_title(page, catalog),
        model=spec.model,
        model_name=page.model_name,
        hardware=list(dict.fromkeys(s.hardware for s in page.sides)),
        default_sequence=sequence_label(*page.stub.sequence),
        cost_tier=page.cost_tier,
        sides=[SideIdentity(label=s.label, filters=s.filters) for s in page.sides],
        sequences=[sequence_result(page.sides, s) for s in page.sequences],
        constants=sorted({s.constants for s in page.sides}, key=lambda c: c.hardware),
        data_sources=[
            DataSource(
                dataset=d.id,
                title=d.title,
                source=d.source,
                url=d.url,
                licence=d.licence,
                retrieved=d.retrieved,
                published_values=d.published_values,
            )
            for d in page.datasets
        ],
        notices=notices(page),
        accuracy=accuracy_result(page.accuracy, [s.label for s in page.sides], catalog),
        sections=list(spec.sections),
        throughput_basis="output" if page.throughput_basis == "output" else "total",
        sweep=sweep_result(page.sweep, [s.label for s in page.sides]),
    )
