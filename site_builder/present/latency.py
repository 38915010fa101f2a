"""The latency view as comparison.json holds it (schema.LatencyWorkload) and the templates show
it: each side's TTFT, end-to-end latency and TPOT at its tested concurrencies, at the median and,
where the files give them, p90 and p99. A statistic a side lacks is said once per workload,
never shown as zero.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from site_builder.compute import LATENCY_VIEW_STATISTICS, ComputedPage, MetricLatency, SideLatency
from site_builder.engine.latency import LatencyAt
from site_builder.engine.sweep import TAIL_LATENCIES, WorkloadSweep
from site_builder.present.schema import LatencyCell, LatencyResult, LatencyRow, LatencyTable, LatencyWorkload
from site_builder.read.table import PointTable
from site_builder.workload import Workload


@dataclass(frozen=True)
class LatencyWords:
    """How the page names and shows one latency metric."""

    label: str  # in captions, menus and the "not measured" lines
    name: str  # spelled out, in the section's hint
    unit: str
    per_second: float  # the unit's count in a second (the point table holds seconds)
    decimals: int


LATENCY_WORDS: dict[str, LatencyWords] = {
    "ttft": LatencyWords("TTFT", "time to first token", "ms", 1000.0, 0),
    "e2el": LatencyWords("E2E latency", "end-to-end request latency", "s", 1.0, 2),
    "tpot": LatencyWords("TPOT", "time per output token", "ms", 1000.0, 1),
}
_CELL_COLUMNS = ("throughput_per_gpu", "gpu_count", "configuration")


def _join(items: Sequence[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _cell(at: LatencyAt, rows: PointTable, words: LatencyWords) -> LatencyCell:
    """A side's point at one concurrency, its statistics in the metric's unit."""
    record = rows.records([at.point], _CELL_COLUMNS)[0]
    values = (None if value is None else value * words.per_second for value in at.values)
    return LatencyCell(
        values=dict(zip(LATENCY_VIEW_STATISTICS, values, strict=True)),
        throughput_per_gpu=record["throughput_per_gpu"],
        gpu_count=record["gpu_count"],
        configuration=record["configuration"],
    )


def _statistics(side: SideLatency) -> list[str]:
    """The statistics any of the side's points measured."""
    return list(itertools.compress(LATENCY_VIEW_STATISTICS, side.measured))


def _rows(metric: MetricLatency, rows: Sequence[PointTable], words: LatencyWords) -> list[LatencyRow]:
    """A row per concurrency either side tested, each side's point there or None."""
    where = [{at.concurrency: at for at in side.at} for side in metric.sides]
    return [
        LatencyRow(
            concurrency=level,
            sides=[
                _cell(found[level], side_rows, words) if level in found else None
                for found, side_rows in zip(where, rows, strict=True)
            ],
        )
        for level in sorted(set(where[0]) | set(where[1]))
    ]


def latency_table(metric: MetricLatency, rows: Sequence[PointTable]) -> LatencyTable | None:
    """One metric on one workload: a row per concurrency either side tested; None when neither
    side measured any of its statistics."""
    words = LATENCY_WORDS[metric.metric]
    measured = [_statistics(side) for side in metric.sides]
    shown = [s for s in LATENCY_VIEW_STATISTICS if s in measured[0] or s in measured[1]]
    if not shown:
        return None
    return LatencyTable(
        metric=metric.metric,
        label=words.label,
        unit=words.unit,
        decimals=words.decimals,
        statistics=shown,
        measured=measured,
        rows=_rows(metric, rows, words),
    )


NO_LATENCY = "no latency"


def _lacking(metrics: Sequence[MetricLatency], side: int, n: int) -> list[str]:
    """The labels of the metrics whose `n`th statistic the side measured nowhere."""
    return [LATENCY_WORDS[m.metric].label for m in metrics if not m.sides[side].measured[n]]


def lacking_text(metrics: Sequence[MetricLatency], side: int) -> str | None:
    """What one side lacks on a workload ('p99', 'median E2E latency, p90 and p99', 'no latency'),
    a statistic named alone when the side lacks it for every metric; None when it lacks nothing."""
    parts, everything = [], True
    for n, stat in enumerate(LATENCY_VIEW_STATISTICS):
        names = _lacking(metrics, side, n)
        whole = len(names) == len(metrics)
        everything &= whole
        parts.extend([stat] if whole else [f"{stat} {name}" for name in names])
    if everything:
        return NO_LATENCY
    return _join(parts) or None


def _sentence(text: str, label: str, sequences: Sequence[str]) -> str:
    """'p90 not measured for FP8 on 1k/8k.' ('median …' starts the sentence, 'p90 …' stays lower case)."""
    on = f"for {label} on {_join(sequences)}."
    if text == NO_LATENCY:
        return f"No latency measured {on}"
    return f"{text[0].upper() if text.startswith('median') else text[0]}{text[1:]} not measured {on}"


def not_measured_lines(
    labels: Sequence[str], found: Sequence[tuple[str, Sequence[MetricLatency]]]
) -> list[str]:
    """One line per side and what it lacks, naming every workload where it lacks just that
    ('p90 not measured for FP8 on 1k/8k and 8k/1k.'), in side order."""
    where: dict[tuple[int, str], list[str]] = {}
    for sequence, metrics in found:
        for side in range(len(labels)):
            text = lacking_text(metrics, side)
            if text is not None:
                where.setdefault((side, text), []).append(sequence)
    ordered = sorted(where.items(), key=lambda item: item[0][0])
    return [_sentence(text, labels[side], sequences) for (side, text), sequences in ordered]


def latency_result(page: ComputedPage) -> LatencyResult | None:
    """The latency view of every workload of the page, in the page's order (None: computed without one)."""
    if not page.latency:
        return None
    labels = [side.label for side in page.sides]
    named = [(w.name, metrics) for w, metrics in zip(page.workloads, page.latency, strict=True)]
    workloads = []
    for (sequence, metrics), workload, rows in zip(named, page.workloads, page.rows, strict=True):
        tables = (latency_table(metric, rows) for metric in metrics)
        workloads.append(
            LatencyWorkload(
                sequence=sequence,
                isl=None if workload.label else workload.isl,
                osl=None if workload.label else workload.osl,
                workload=workload.label or None,
                tables=[t for t in tables if t is not None],
            )
        )
    return LatencyResult(workloads=workloads, not_measured=not_measured_lines(labels, named))


# the sweep analyses' tail latencies (engine.sweep.TAIL_LATENCIES) as the page names them
TAIL_WORDS = dict(zip(TAIL_LATENCIES, ("p90 TPOT", "p99 TPOT", "p90 TTFT", "p99 TTFT"), strict=True))


def _tails_lacking(w: WorkloadSweep, side: int) -> list[str]:
    """The tail latencies none of a side's tested concurrencies on the workload measured."""
    return [name for name, pairs in w.tails.items() if all((p.a, p.b)[side] is None for p in pairs)]


def sweep_tail_lines(w: WorkloadSweep, labels: Sequence[str]) -> list[str]:
    """For the sweep's latency section: one line per side that tested this workload but lacks
    a tail latency (sweep rows give none; a client's points may), naming what it lacks (a side
    without any row here is already said to have no latencies)."""
    lines = []
    for side, label in enumerate(labels):
        lacking = _tails_lacking(w, side) if w.sides[side] else []
        if lacking:
            every = len(lacking) == len(TAIL_WORDS)
            what = "p90 and p99 TPOT and TTFT" if every else _join([TAIL_WORDS[n] for n in lacking])
            lines.append(f"{what} not measured for {label} on {Workload(w.isl, w.osl, w.label).name}.")
    return lines
