"""Measured power beside the catalog's: tok/s per MW from a run's measured watts per GPU and
from the GPU's all-in catalog constant, at the same throughput.

Pure numbers, no words. The two figures share the throughput, so their ratio is the catalog's
watts ÷ the measured watts; they are flagged when one is more than `DISAGREEMENT` times the
other (measured GPU-board power leaves out the host, network and cooling the all-in constant
holds, so some gap is expected; more than 2× says a constant or a measurement is off).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from site_builder import metrics

DISAGREEMENT = 2.0  # one figure more than this many times the other is flagged


def per_mw(throughput: float, watts: float | None) -> float | None:
    """Tok/s per MW at `throughput` tok/s per GPU and `watts` per GPU, by the registry's own
    formula (metrics.METRICS, key per_mw): the catalog's and a measurement's computed alike."""
    return metrics.evaluate(
        metrics.BY_KEY["per_mw"].formula, {"throughput": throughput, "watts_all_in": watts}
    )


@dataclass(frozen=True)
class PowerCheck:
    """One measured point: its throughput per GPU, measured and catalog watts per GPU."""

    concurrency: int
    throughput: float  # tok/s per GPU, the tok/s per MW metric's basis
    measured_w: float
    catalog_w: float | None  # None: the GPU has no all-in power constant

    @property
    def measured_per_mw(self) -> float:
        found = per_mw(self.throughput, self.measured_w)
        if found is None:  # never: a check always has measured watts (power_checks)
            raise ValueError("a power check without measured watts")
        return found

    @property
    def catalog_per_mw(self) -> float | None:
        return per_mw(self.throughput, self.catalog_w)

    @property
    def ratio(self) -> float | None:
        """Measured tok/s per MW ÷ the catalog's (= catalog watts ÷ measured watts)."""
        return None if self.catalog_w is None else self.catalog_w / self.measured_w

    @property
    def disagrees(self) -> bool:
        """One figure is more than DISAGREEMENT times the other."""
        ratio = self.ratio
        return ratio is not None and max(ratio, 1 / ratio) > DISAGREEMENT


@dataclass(frozen=True)
class WorkloadPower:
    """Each side's measured points on one workload, by concurrency."""

    isl: int
    osl: int
    sides: tuple[tuple[PowerCheck, ...], tuple[PowerCheck, ...]]
    label: str = ""  # the workload's label where its data names it (isl = osl = 0 then)


def power_checks(
    points: Iterable[tuple[int, float | None, float | None]], catalog_w: float | None
) -> tuple[PowerCheck, ...]:
    """The points (concurrency, tok/s per GPU, measured watts per GPU) that have both figures,
    by concurrency, each beside the catalog's watts."""
    found = [
        PowerCheck(concurrency, throughput, watts, catalog_w)
        for concurrency, throughput, watts in points
        if throughput is not None and watts is not None and throughput > 0 and watts > 0
    ]
    return tuple(sorted(found, key=lambda c: (c.concurrency, c.throughput)))
