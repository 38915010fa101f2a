"""Paper-style analyses of node-level sweeps: matched concurrency, peak, latency, SLA, power.

Pure numbers, no words. Each side is a set of measurements at tested concurrencies on one
workload; nothing is interpolated between concurrencies, and a value a side lacks stays None
("not measured"), never zero. Every ratio is side A ÷ side B.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

SlaBasis = Literal["measured", "derived"]


@dataclass(frozen=True)
class Measure:
    """One tested concurrency of one side: node-level output tok/s, latencies in ms, system watts."""

    concurrency: int
    output_throughput: float | None = None
    gpu_count: int | None = None
    tpot_ms: float | None = None
    ttft_ms: float | None = None
    power_w: float | None = None
    # the tail latencies, in ms, where the source gives them (a client's points; sweep rows do not)
    tpot_p90_ms: float | None = None
    tpot_p99_ms: float | None = None
    ttft_p90_ms: float | None = None
    ttft_p99_ms: float | None = None

    @property
    def per_gpu(self) -> float | None:
        """Output tok/s per GPU, where the GPU count is known."""
        if self.output_throughput is None or not self.gpu_count:
            return None
        return self.output_throughput / self.gpu_count

    @property
    def derived_tpot_ms(self) -> float | None:
        """Per-token latency from throughput: 1000 ÷ (output tok/s ÷ concurrency)."""
        if self.output_throughput is None:
            return None
        return 1000.0 / (self.output_throughput / self.concurrency)

    @property
    def tokens_per_watt(self) -> float | None:
        if self.output_throughput is None or self.power_w is None:
            return None
        return self.output_throughput / self.power_w


TAIL_LATENCIES = ("tpot_p90_ms", "tpot_p99_ms", "ttft_p90_ms", "ttft_p99_ms")


def _throughput_first(m: Measure) -> tuple[bool, float]:
    return (m.output_throughput is None, -(m.output_throughput or 0.0))


def merge(measures: Iterable[Measure]) -> dict[int, Measure]:
    """One measure per concurrency: the row with the highest throughput gives its values, and a
    value it lacks is taken from the other rows at that concurrency (a paper's latency table beside
    its throughput table), in input order."""
    by_concurrency: dict[int, list[Measure]] = {}
    for m in measures:
        by_concurrency.setdefault(m.concurrency, []).append(m)
    merged = {}
    for concurrency, rows in sorted(by_concurrency.items()):
        ranked = sorted(rows, key=_throughput_first)
        best = ranked[0]
        merged[concurrency] = Measure(
            concurrency=concurrency,
            output_throughput=best.output_throughput,
            gpu_count=best.gpu_count,
            tpot_ms=_first_measured(ranked, "tpot_ms"),
            ttft_ms=_first_measured(ranked, "ttft_ms"),
            power_w=best.power_w,
            **{tail: _first_measured(ranked, tail) for tail in TAIL_LATENCIES},
        )
    return merged


def _first_measured(ranked: Sequence[Measure], latency: str) -> float | None:
    """The first of the ranked rows' values of a latency that was measured."""
    found: float | None = next((v for r in ranked if (v := getattr(r, latency)) is not None), None)
    return found


def ratio(a: float | None, b: float | None) -> float | None:
    """A ÷ B, or None when either is not measured (or B is zero)."""
    if a is None or b is None or b == 0:
        return None
    return a / b


@dataclass(frozen=True)
class Pair:
    """Both sides' values at one concurrency (None: that side did not measure it) and A ÷ B."""

    concurrency: int
    a: float | None
    b: float | None
    ratio: float | None


def paired(a: dict[int, Measure], b: dict[int, Measure], value: str) -> list[Pair]:
    """Every concurrency either side tested, each side's `value` there, and the ratio where both."""
    rows = []
    for concurrency in sorted(set(a) | set(b)):
        va = getattr(a[concurrency], value) if concurrency in a else None
        vb = getattr(b[concurrency], value) if concurrency in b else None
        if va is None and vb is None:
            continue
        rows.append(Pair(concurrency, va, vb, ratio(va, vb)))
    return rows


@dataclass(frozen=True)
class Peak:
    """A side's highest output throughput over its tested concurrencies, and where."""

    output_throughput: float
    concurrency: int
    per_gpu: float | None


def peak(measures: dict[int, Measure]) -> Peak | None:
    """The highest throughput (the lowest concurrency on a tie); None when no throughput."""
    having = [(m.output_throughput, m) for m in measures.values() if m.output_throughput is not None]
    if not having:
        return None
    value, best = max(having, key=lambda h: (h[0], -h[1].concurrency))
    return Peak(value, best.concurrency, best.per_gpu)


@dataclass(frozen=True)
class Sla:
    tpot_ms: float | None
    ttft_ms: float | None
    basis: SlaBasis


@dataclass(frozen=True)
class SlaResult:
    """The largest tested concurrency that meets the limits (None: none does), with its values."""

    concurrency: int | None
    output_throughput: float | None
    tpot_ms: float | None  # the per-token latency judged (measured or derived by the basis)
    ttft_ms: float | None
    judged: int  # concurrencies that could be judged (had the latencies the limits need)
    meeting: tuple[int, ...] = field(default=())  # every tested concurrency that meets them


def tpot_for(m: Measure, basis: SlaBasis) -> float | None:
    return m.tpot_ms if basis == "measured" else m.derived_tpot_ms


def _within(value: float | None, limit: float | None) -> bool | None:
    """Whether a latency meets its limit (always, without a limit); None when the limit needs
    a latency that was not measured."""
    if limit is None:
        return True
    if value is None:
        return None
    return value <= limit


def meets_sla(measures: dict[int, Measure], sla: Sla) -> SlaResult:
    """Judge each tested concurrency against the limits; a concurrency lacking a latency a limit
    needs is not judged (never assumed to pass)."""
    meeting: list[Measure] = []
    judged = 0
    for m in measures.values():
        verdicts = (_within(tpot_for(m, sla.basis), sla.tpot_ms), _within(m.ttft_ms, sla.ttft_ms))
        if None in verdicts:
            continue
        judged += 1
        if all(verdicts):
            meeting.append(m)
    if not meeting:
        return SlaResult(None, None, None, None, judged)
    best = max(meeting, key=lambda m: m.concurrency)
    return SlaResult(
        best.concurrency,
        best.output_throughput,
        tpot_for(best, sla.basis),
        best.ttft_ms,
        judged,
        tuple(sorted(m.concurrency for m in meeting)),
    )


@dataclass(frozen=True)
class WorkloadSweep:
    """Both sides' sweeps on one workload and every analysis of them."""

    isl: int
    osl: int
    sides: tuple[dict[int, Measure], dict[int, Measure]]
    throughput: list[Pair]
    per_gpu: list[Pair]
    peaks: tuple[Peak | None, Peak | None]
    peak_ratio: float | None
    ttft: list[Pair]
    tpot: list[Pair]
    tpot_derived: tuple[frozenset[int], frozenset[int]]  # concurrencies whose TPOT is derived
    sla: tuple[SlaResult, SlaResult] | None
    sla_ratio: float | None  # A's concurrency ÷ B's
    sla_throughput_ratio: float | None
    power: list[Pair]
    # per TAIL_LATENCIES name, both sides where either measured it (never derived)
    tails: dict[str, list[Pair]] = field(default_factory=dict)
    label: str = ""  # the workload's label where its data names it (isl = osl = 0 then)


def _with_derived_tpot(measures: dict[int, Measure]) -> tuple[dict[int, Measure], frozenset[int]]:
    """TPOT where measured, else derived from throughput (and which concurrencies were derived)."""
    out, derived = {}, set()
    for c, m in measures.items():
        if m.tpot_ms is None and m.derived_tpot_ms is not None:
            out[c] = replace(m, tpot_ms=m.derived_tpot_ms)
            derived.add(c)
        else:
            out[c] = m
    return out, frozenset(derived)


def analyse_workload(
    isl: int, osl: int, a_rows: Iterable[Measure], b_rows: Iterable[Measure], sla: Sla | None, label: str = ""
) -> WorkloadSweep:
    a, b = merge(a_rows), merge(b_rows)
    peaks = (peak(a), peak(b))
    (a_tpot, a_derived), (b_tpot, b_derived) = _with_derived_tpot(a), _with_derived_tpot(b)
    sla_results = (meets_sla(a, sla), meets_sla(b, sla)) if sla is not None else None
    return WorkloadSweep(
        isl=isl,
        osl=osl,
        sides=(a, b),
        throughput=paired(a, b, "output_throughput"),
        per_gpu=paired(a, b, "per_gpu"),
        peaks=peaks,
        peak_ratio=ratio(*(p.output_throughput if p else None for p in peaks)),
        ttft=paired(a, b, "ttft_ms"),
        tpot=paired(a_tpot, b_tpot, "tpot_ms"),
        tpot_derived=(a_derived, b_derived),
        sla=sla_results,
        sla_ratio=ratio(*(r.concurrency for r in sla_results)) if sla_results else None,
        sla_throughput_ratio=ratio(*(r.output_throughput for r in sla_results)) if sla_results else None,
        power=paired(a, b, "tokens_per_watt"),
        tails={tail: paired(a, b, tail) for tail in TAIL_LATENCIES},
        label=label,
    )


@dataclass(frozen=True)
class Extreme:
    """Where a ratio is largest or smallest: the workload (isl, osl), the concurrency, the ratio."""

    isl: int
    osl: int
    concurrency: int
    ratio: float
    label: str = ""  # as WorkloadSweep


def extremes(workloads: Sequence[WorkloadSweep], pick: str) -> tuple[Extreme, Extreme] | None:
    """The largest and smallest A ÷ B ratio of one list of pairs (`pick`: throughput, ttft, tpot,
    power) over every workload and concurrency both sides measured; None when there is none."""
    found = [
        Extreme(w.isl, w.osl, p.concurrency, p.ratio, w.label)
        for w in workloads
        for p in getattr(w, pick)
        if p.ratio is not None
    ]
    if not found:
        return None
    return max(found, key=lambda e: e.ratio), min(found, key=lambda e: e.ratio)
