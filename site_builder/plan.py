"""Plan the site's pages: every stub, then the pages the data implies that no stub covers.

Each page kind discovers its own generated pages (`kinds.PageKind.discover`, over the facts
below); they are listed by model and GPU, kinds in registry order. A stub with the same identity
or slug takes a page over.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from site_builder.content import SideSpec, SiteConfig, Stub, StubSpec, resolve_sides
from site_builder.formatting import sequence_label
from site_builder.kinds import KINDS, Found, PageKind, Workload
from site_builder.points import BenchmarkPoint, DatasetInfo
from site_builder.pool import PointPool


@dataclass(frozen=True)
class PlanFacts:
    """What planning needs of the data: the workloads measured per (model, GPU, precision,
    speculative method) and the datasets per (model, GPU), from measured points only (not
    values read off a published page). Small, and kept in the build cache, so a rebuild plans
    without loading a point."""

    workloads: dict[tuple[str, str, str, str], set[Workload]]
    sources: dict[tuple[str, str], set[str]]

    @classmethod
    def of(cls, points: Sequence[BenchmarkPoint], datasets: Mapping[str, DatasetInfo]) -> PlanFacts:
        workloads: dict[tuple[str, str, str, str], set[Workload]] = defaultdict(set)
        sources: dict[tuple[str, str], set[str]] = defaultdict(set)
        pool = PointPool.of(points)  # read as columns: no point is made
        measured = [not datasets[name].published_values for name in pool.datasets]
        columns = (pool.config_of, pool.dataset_of, pool.isl, pool.osl)
        found = pool.first_of(*columns)
        keys = [(c.model, c.hardware, c.precision, c.spec_method) for c in pool.configs]
        for config_code, dataset_code, isl, osl in zip(*(c[found].tolist() for c in columns), strict=True):
            if not measured[dataset_code]:
                continue
            key = keys[config_code]
            workloads[key].add((isl, osl))
            sources[key[:2]].add(pool.datasets[dataset_code])
        return cls(dict(workloads), dict(sources))

    def datasets(self, model: str, *hardware: str) -> list[str]:
        """The datasets holding measured points of the model on these GPUs, sorted."""
        return sorted({name for gpu in hardware for name in self.sources.get((model, gpu), ())})

    def to_json(self) -> dict[str, Any]:
        return {
            "workloads": [[*key, sorted(map(list, seqs))] for key, seqs in sorted(self.workloads.items())],
            "sources": [[*key, sorted(names)] for key, names in sorted(self.sources.items())],
        }

    @classmethod
    def from_json(cls, stored: Mapping[str, Any]) -> PlanFacts:
        return cls(
            {(m, h, p, s): {(isl, osl) for isl, osl in seqs} for m, h, p, s, seqs in stored["workloads"]},
            {(m, h): set(names) for m, h, names in stored["sources"]},
        )


def discover_pages(facts: PlanFacts, stubs: Sequence[Stub]) -> list[Stub]:
    """Every kind's generated stubs, by model and GPU (kinds in registry order within), less
    those a stub (or an earlier generated page) covers by slug or identity."""
    found = [(kind, page) for kind in KINDS.values() if kind.discover for page in kind.discover(facts)]
    found.sort(key=lambda item: (item[1].model, item[1].hardware or ""))  # stable: kinds keep order
    taken_identities = {stub.identity() for stub in stubs}
    taken_slugs = {stub.slug for stub in stubs}
    generated: list[Stub] = []
    for kind, page in found:
        stub = _generated_stub(kind, page)
        if stub.slug in taken_slugs or stub.identity() in taken_identities:
            continue
        taken_identities.add(stub.identity())
        taken_slugs.add(stub.slug)
        generated.append(stub)
    return generated


def _generated_stub(kind: PageKind, page: Found) -> Stub:
    """The stub an author would write for a page the data implies."""
    a, b = page.values
    shared = {"model": page.model, "hardware": page.hardware, "precision": page.precision}
    spec = StubSpec(
        kind=kind.key,
        **{key: value for key, value in shared.items() if value is not None},
        dataset=page.datasets,
        sequence=_first_sequence(page.workloads),
        sides=[_side(kind, a), _side(kind, b)],
    )
    slug = kind.slug(page.model, page.hardware or "", page.precision or "", a, b)
    return Stub(path=None, slug=slug, spec=spec, body="", sides=resolve_sides(spec))


def _side(kind: PageKind, value: str) -> SideSpec:
    """A generated side: the kind's varied filter set to the value, labelled by the kind's rule."""
    return SideSpec.model_validate({"label": kind.side_label(value), kind.varies: value})


def plan_pages(stubs: Sequence[Stub], facts: PlanFacts, config: SiteConfig) -> list[Stub]:
    """The stubs, then the generated pairs no stub covers (unless the site turns them off)."""
    generated = discover_pages(facts, stubs) if config.auto_pages else []
    return [*stubs, *generated]


def _first_sequence(shared: set[tuple[int, int]]) -> str:
    """The workload a generated page opens on: 1k/1k where both sides have it."""
    return sequence_label(*((1024, 1024) if (1024, 1024) in shared else min(shared)))
