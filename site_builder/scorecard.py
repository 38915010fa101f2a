"""The index's scorecards (compute stage, numbers only): for each model and workload, every GPU ×
precision × speculative method the measured data has, its frontier pooled as a generated page
pools it, and its metrics at a few interactivity tiers.

A row selects what a generated page's side would (model, GPU, precision, speculative method, the
datasets with measured points of that GPU: `plan.PlanFacts`), on one throughput basis per model
(`sides.on_one_basis`, the rule a page applies to its two sides), and is read by the engine's
own curves and metric formulas (`engine.compare.SideCurves`, `metrics_at`). The tiers are chosen
from the rows' frontiers (`scorecard_tiers`). present/scorecard.py words the numbers.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from site_builder.catalog import AppliedConstants, HardwareCatalog, constants_for
from site_builder.compute import side_points
from site_builder.content import FilterValue, SiteConfig
from site_builder.engine.compare import AtTarget, Band, Constants, SideCurves, default_targets, metrics_at
from site_builder.plan import PlanFacts
from site_builder.read.table import PointTable
from site_builder.sides import by_workload, on_one_basis
from site_builder.workload import Workload, sorted_workloads


@dataclass(frozen=True)
class ScoreRow:
    """One GPU × precision × speculative method on one workload: what it pools and its metrics
    at each tier (not measured where the tier lies outside its frontier)."""

    hardware: str
    precision: str
    spec_method: str
    frameworks: tuple[str, ...]  # the engines its points ran on
    disagg: tuple[bool, ...]  # aggregated (False) and/or disaggregated (True) points
    at: tuple[AtTarget, ...]  # one per tier
    datasets: tuple[str, ...]  # the datasets it reads (its filter, as a generated page's side)
    output_only: bool  # some of its own points on this workload give output tok/s only


@dataclass(frozen=True)
class Scorecard:
    """One model on one workload: the tiers and a row per GPU × precision × method measured."""

    model: str
    workload: Workload
    basis: str  # "total", or "output" where some point of the model gives output tok/s only
    tiers: tuple[float, ...]
    rows: tuple[ScoreRow, ...]


def scorecard_tiers(ranges: Sequence[tuple[float, float]]) -> list[float]:
    """The interactivity tiers of one scorecard: 25, 50 and 75 % of the way from the median
    start to the median end of the rows' frontiers, as whole tok/s/user (the rule a page uses
    for its default targets inside its band, `engine.compare.default_targets`), so most rows
    reach the middle tier. Where the medians do not enclose a whole number, the span of all the
    frontiers is used instead."""
    if not ranges:
        return []
    middle = Band(statistics.median(r[0] for r in ranges), statistics.median(r[1] for r in ranges))
    if middle.bounds is None:
        middle = Band(min(r[0] for r in ranges), max(r[1] for r in ranges))
    return default_targets(middle)


def _row_key(key: tuple[str, str, str, str]) -> tuple[str, str, str]:
    return key[1], key[2], key[3]


def scorecards(
    table: PointTable, facts: PlanFacts, catalog: HardwareCatalog, config: SiteConfig
) -> list[Scorecard]:
    """Every model's scorecards, models in order, the 1k/1k workload first, then by size, then
    labelled workloads by label."""
    rows_of: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for key in sorted(facts.workloads):
        rows_of[key[0]].append(_row_key(key))
    tier = config.cost_tier or catalog.default_cost_tier
    found: list[Scorecard] = []
    for model, keys in rows_of.items():
        filters = [_filters(facts, model, *key) for key in keys]
        selected = [table.select(f) for f in filters]
        rows, basis = on_one_basis(selected)
        groups = [by_workload(r) for r in rows]
        own = [by_workload(r) for r in selected]
        constants = [constants_for(catalog, key[0], tier, config.constants) for key in keys]
        workloads = sorted_workloads({w for g in groups for w in g})
        for workload in workloads:
            measured = [
                (key, g[workload], c, Pooled(tuple(facts.datasets(model, key[0])), _output_only(o[workload])))
                for key, g, c, o in zip(keys, groups, constants, own, strict=True)
                if workload in g
            ]
            found.append(_scorecard(model, workload, basis, measured))
    return found


@dataclass(frozen=True)
class Pooled:
    """What a row reads besides its key: its datasets, and whether its own points on the
    workload give output tok/s only (then a view of it alone is on the output basis too)."""

    datasets: tuple[str, ...]
    output_only: bool


def _output_only(rows: PointTable) -> bool:
    return bool((rows.column("throughput_basis") == "output").any())


def _filters(
    facts: PlanFacts, model: str, hardware: str, precision: str, method: str
) -> dict[str, FilterValue]:
    """A row's filters: those a generated page's side would have (plan._generated_stub)."""
    return {
        "model": model,
        "hardware": hardware,
        "precision": precision,
        "spec_method": method,
        "dataset": list(facts.datasets(model, hardware)),
    }


def _scorecard(
    model: str,
    workload: Workload,
    basis: str,
    measured: Sequence[tuple[tuple[str, str, str], PointTable, AppliedConstants, Pooled]],
) -> Scorecard:
    curves = [SideCurves(side_points(rows)) for _, rows, _, _ in measured]
    tiers = scorecard_tiers([c.range for c in curves if c.range is not None])
    rows = tuple(
        ScoreRow(
            hardware=key[0],
            precision=key[1],
            spec_method=key[2],
            frameworks=tuple(sorted({str(f) for f in rows.values("framework") if f})),
            disagg=tuple(sorted({bool(d) for d in rows.values("disagg")})),
            at=tuple(metrics_at(curve, tiers, Constants(**constants.values()))),
            datasets=pooled.datasets,
            output_only=pooled.output_only,
        )
        for (key, rows, constants, pooled), curve in zip(measured, curves, strict=True)
    )
    return Scorecard(model, workload, basis, tuple(tiers), rows)
