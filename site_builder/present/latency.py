"""The latency view as comparison.json holds it (schema.LatencyWorkload) and the templates show
it: each side's TTFT, end-to-end latency and TPOT at its tested concurrencies, at the median and,
where the files give them, p90 and p99. A statistic a side lacks is said once per workload,
never shown as zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from site_builder.compute import LATENCY_VIEW_STATISTICS, ComputedPage, MetricLatency, SideLatency
from site_builder.engine.sweep import TAIL_LATENCIES, WorkloadSweep
from site_builder.formatting import sequence_label
from site_builder.present.schema import LatencyCell, LatencyResult, LatencyRow, LatencyTable, LatencyWorkload
from site_builder.read.table import PointTable


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


def _cell(side: SideLatency, index: int, rows: PointTable, words: LatencyWords) -> LatencyCell | None:
    """The side's point at the row's concurrency (`index` into its `at`), in the metric's unit."""
    at = side.at[index]
    record = rows.records([at.point], _CELL_COLUMNS)[0]
    return LatencyCell(
        values={
            stat: None if value is None else value * words.per_second
            for stat, value in zip(LATENCY_VIEW_STATISTICS, at.values, strict=True)
        },
        throughput_per_gpu=record["throughput_per_gpu"],
        gpu_count=record["gpu_count"],
        configuration=record["configuration"],
    )


def latency_table(metric: MetricLatency, rows: Sequence[PointTable]) -> LatencyTable | None:
    """One metric on one workload: a row per concurrency either side tested; None when neither
    side measured any of its statistics."""
    words = LATENCY_WORDS[metric.metric]
    measured = [
        [s for s, m in zip(LATENCY_VIEW_STATISTICS, side.measured, strict=True) if m] for side in metric.sides
    ]
    shown = [s for s in LATENCY_VIEW_STATISTICS if any(s in side for side in measured)]
    if not shown:
        return None
    where = [{at.concurrency: n for n, at in enumerate(side.at)} for side in metric.sides]
    levels = sorted(set(where[0]) | set(where[1]))
    return LatencyTable(
        metric=metric.metric,
        label=words.label,
        unit=words.unit,
        decimals=words.decimals,
        statistics=shown,
        measured=measured,
        rows=[
            LatencyRow(
                concurrency=level,
                sides=[
                    _cell(side, found[level], side_rows, words) if level in found else None
                    for side, found, side_rows in zip(metric.sides, where, rows, strict=True)
                ],
            )
            for level in levels
        ],
    )


NO_LATENCY = "no latency"


def lacking_text(metrics: Sequence[MetricLatency], side: int) -> str | None:
    """What one side lacks on a workload ('p99', 'median E2E latency, p90 and p99', 'no latency'),
    a statistic named alone when the side lacks it for every metric; None when it lacks nothing."""
    lacking = {
        stat: [LATENCY_WORDS[m.metric].label for m in metrics if not m.sides[side].measured[n]]
        for n, stat in enumerate(LATENCY_VIEW_STATISTICS)
    }
    if all(len(names) == len(metrics) for names in lacking.values()):
        return NO_LATENCY
    parts = [
        part
        for stat, names in lacking.items()
        for part in ([stat] if len(names) == len(metrics) else [f"{stat} {name}" for name in names])
    ]
    return _join(parts) or None


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
    lines = []
    for (side, text), sequences in sorted(where.items(), key=lambda item: item[0][0]):
        on = f"for {labels[side]} on {_join(sequences)}."
        if text == NO_LATENCY:
            lines.append(f"No latency measured {on}")
        else:  # 'p90 …' stays lower case; 'median …' starts the sentence
            lines.append(
                f"{text[0].upper() if text.startswith('median') else text[0]}{text[1:]} not measured {on}"
            )
    return lines


def latency_result(page: ComputedPage) -> LatencyResult | None:
    """The latency view of every workload of the page, in the page's order (None: computed without one)."""
    if not page.latency:
        return None
    labels = [side.label for side in page.sides]
    named = [
        (sequence_label(numbers.isl, numbers.osl), metrics)
        for numbers, metrics in zip(page.sequences, page.latency, strict=True)
    ]
    workloads = []
    for (sequence, metrics), numbers, rows in zip(named, page.sequences, page.rows, strict=True):
        tables = (latency_table(metric, rows) for metric in metrics)
        workloads.append(
            LatencyWorkload(
                sequence=sequence,
                isl=numbers.isl,
                osl=numbers.osl,
                tables=[t for t in tables if t is not None],
            )
        )
    return LatencyResult(workloads=workloads, not_measured=not_measured_lines(labels, named))


# the sweep analyses' tail latencies (engine.sweep.TAIL_LATENCIES) as the page names them
TAIL_WORDS = dict(zip(TAIL_LATENCIES, ("p90 TPOT", "p99 TPOT", "p90 TTFT", "p99 TTFT"), strict=True))


def sweep_tail_lines(w: WorkloadSweep, labels: Sequence[str]) -> list[str]:
    """For the sweep's latency section: one line per side that tested this workload but lacks
    a tail latency (sweep rows give none; a client's points may), naming what it lacks."""
    lines = []
    for side, label in enumerate(labels):
        if not w.sides[side]:
            continue  # the section already says the side has no latencies here
        lacking = [
            name for name, pairs in w.tails.items() if all((p.a if side == 0 else p.b) is None for p in pairs)
        ]
        if not lacking:
            continue
        what = (
            "p90 and p99 TPOT and TTFT"
            if len(lacking) == len(TAIL_WORDS)
            else _join([TAIL_WORDS[n] for n in lacking])
        )
        lines.append(f"{what} not measured for {label} on {sequence_label(w.isl, w.osl)}.")
    return lines
