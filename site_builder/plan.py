"""Plan the site's pages: every stub, then the pages the data implies that no stub covers.

Generated pages: every precision pair per model and GPU, every speculative-decoding method
against none per model, GPU and precision. A stub with the same identity takes a page over.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

from site_builder.content import SideSpec, SiteConfig, Stub, StubSpec, resolve_sides
from site_builder.formatting import sequence_label
from site_builder.kinds import KINDS
from site_builder.read.provenance import DatasetInfo

if TYPE_CHECKING:
    from site_builder.read.table import PointTable

PRECISION_ORDER = ("fp4", "int4", "fp8", "bf16", "fp16")


def _precision_rank(precision: str) -> tuple[int, str]:
    order = PRECISION_ORDER.index(precision) if precision in PRECISION_ORDER else len(PRECISION_ORDER)
    return order, precision


def _auto_stub(slug: str, spec: StubSpec) -> Stub:
    return Stub(path=None, slug=slug, spec=spec, body="", sides=resolve_sides(spec))


Workload = tuple[int, int]


@dataclass(frozen=True)
class PlanFacts:
    """What planning needs of the data: the workloads measured per (model, GPU, precision,
    speculative method) and the datasets per (model, GPU), from measured points only (not
    values read off a published page). Small, and kept in the build cache, so a rebuild plans
    without loading a point."""

    workloads: dict[tuple[str, str, str, str], set[Workload]]
    sources: dict[tuple[str, str], set[str]]

    @classmethod
    def of(cls, table: PointTable, datasets: Mapping[str, DatasetInfo]) -> PlanFacts:
        measured = {name for name, info in datasets.items() if not info.published_values}
        names = table.distinct(["config_id", "model", "hardware", "precision", "spec_method"])
        key_of = {row[0]: row[1:] for row in zip(*(names[k].tolist() for k in names.columns), strict=True)}
        workloads: dict[tuple[str, str, str, str], set[Workload]] = defaultdict(set)
        sources: dict[tuple[str, str], set[str]] = defaultdict(set)
        found = table.distinct(["config_id", "dataset", "isl", "osl"])
        for config, dataset, isl, osl in zip(*(found[k].tolist() for k in found.columns), strict=True):
            if dataset in measured:
                key = key_of[config]
                workloads[key].add((isl, osl))
                sources[key[:2]].add(dataset)
        return cls(dict(workloads), dict(sources))

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
    """Generated stubs for comparable pairs that share a workload, minus those a stub covers."""
    workloads, sources = facts.workloads, facts.sources
    taken_identities = {stub.identity() for stub in stubs}
    taken_slugs = {stub.slug for stub in stubs}
    found: list[Stub] = []

    def add(slug: str, spec: StubSpec) -> None:
        if slug in taken_slugs:
            return
        stub = _auto_stub(slug, spec)
        identity = stub.identity()
        if identity in taken_identities:
            return
        taken_identities.add(identity)
        taken_slugs.add(slug)
        found.append(stub)

    pairs: dict[tuple[str, str], dict[str, set[tuple[int, int]]]] = defaultdict(lambda: defaultdict(set))
    by_method: dict[tuple[str, str, str], dict[str, set[tuple[int, int]]]] = defaultdict(dict)
    for (model, hardware, precision, spec), seqs in workloads.items():
        pairs[(model, hardware)][precision] |= seqs
        by_method[(model, hardware, precision)][spec] = seqs
    for (model, hardware), by_precision in sorted(pairs.items()):
        dataset = sorted(sources[(model, hardware)])
        for a, b in combinations(sorted(by_precision, key=_precision_rank), 2):
            shared = by_precision[a] & by_precision[b]
            if not shared:
                continue
            sequence = _first_sequence(shared)
            add(
                KINDS["precision"].slug(model, hardware, "", a, b),
                StubSpec(
                    kind="precision",
                    model=model,
                    hardware=hardware,
                    dataset=dataset,
                    sequence=sequence,
                    sides=[_side("precision", a), _side("precision", b)],
                ),
            )
        for precision in sorted(by_precision, key=_precision_rank):
            methods = by_method.get((model, hardware, precision), {})
            if "none" not in methods:
                continue
            for method in sorted(set(methods) - {"none", "unknown"}):
                shared = methods[method] & methods["none"]
                if not shared:
                    continue
                sequence = _first_sequence(shared)
                add(
                    KINDS["spec-decoding"].slug(model, hardware, precision, method, "none"),
                    StubSpec(
                        kind="spec-decoding",
                        model=model,
                        hardware=hardware,
                        precision=precision,
                        dataset=dataset,
                        sequence=sequence,
                        sides=[_side("spec-decoding", method), _side("spec-decoding", "none")],
                    ),
                )
    return found


def _side(kind: str, value: str) -> SideSpec:
    """A generated side: the kind's varied filter set to the value, labelled by the kind's rule."""
    kind_of = KINDS[kind]
    return SideSpec.model_validate({"label": kind_of.side_label(value), kind_of.varies: value})


def plan_pages(stubs: Sequence[Stub], facts: PlanFacts, config: SiteConfig) -> list[Stub]:
    """The stubs, then the generated pairs no stub covers (unless the site turns them off)."""
    generated = discover_pages(facts, stubs) if config.auto_pages else []
    return [*stubs, *generated]


def _first_sequence(shared: set[tuple[int, int]]) -> str:
    """The workload a generated page opens on: 1k/1k where both sides have it."""
    return sequence_label(*((1024, 1024) if (1024, 1024) in shared else min(shared)))
