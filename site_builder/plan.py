"""Plan the site's pages: every stub, then the pages the data implies that no stub covers.

Each page kind discovers its own generated pages (`kinds.PageKind.discover`, over the facts
below); they are listed by model and GPU, kinds in registry order. A stub with the same identity
or slug takes a page over.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from site_builder.catalog import HardwareCatalog, ModelInfo, hardware_name, model_name
from site_builder.confounders import CONFOUNDERS
from site_builder.content import SideSpec, SiteConfig, Stub, StubSpec, resolve_sides
from site_builder.formatting import fixed
from site_builder.kinds import KINDS, Found, PageKind, Words
from site_builder.problems import ProblemLog, Severity
from site_builder.read.provenance import DatasetInfo
from site_builder.read.table import PointTable
from site_builder.sides import PageSides, matched_somewhere, matched_workloads, narrow_sides, page_sides
from site_builder.workload import Workload, labelled, sorted_workloads


@dataclass(frozen=True)
class PlanFacts:
    """What planning needs of the data: the workloads measured per (model, GPU, precision,
    speculative method) and the datasets per (model, GPU), from measured points only (not
    values read off a published page)."""

    workloads: dict[tuple[str, str, str, str], set[Workload]]
    sources: dict[tuple[str, str], set[str]]

    @classmethod
    def of(cls, table: PointTable, datasets: Mapping[str, DatasetInfo]) -> PlanFacts:
        measured = {name for name, info in datasets.items() if not info.published_values}
        names = table.distinct(["config_id", "model", "hardware", "precision", "spec_method"])
        key_of = {row[0]: row[1:] for row in zip(*(names[k].tolist() for k in names.columns), strict=True)}
        workloads: dict[tuple[str, str, str, str], set[Workload]] = defaultdict(set)
        sources: dict[tuple[str, str], set[str]] = defaultdict(set)
        found = table.distinct(["config_id", "dataset", "workload", "isl", "osl"])
        for config, dataset, label, isl, osl in zip(*(found[k].tolist() for k in found.columns), strict=True):
            if dataset in measured:
                key = key_of[config]
                workloads[key].add(labelled(label) if label else Workload(isl, osl))
                sources[key[:2]].add(dataset)
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
            {(m, h, p, s): {Workload(*seq) for seq in seqs} for m, h, p, s, seqs in stored["workloads"]},
            {(m, h): set(names) for m, h, names in stored["sources"]},
        )


def discover_pages(
    facts: PlanFacts, stubs: Sequence[Stub], gpu_names: Mapping[str, str] | None = None
) -> list[Stub]:
    """Every kind's generated stubs, by model and GPU (kinds in registry order within), less
    those a stub (or an earlier generated page) covers by slug or identity. `gpu_names`: the
    catalog's name of each GPU it knows (a side varying the GPU is labelled with it)."""
    found = [(kind, page) for kind in KINDS.values() if kind.discover for page in kind.discover(facts)]
    found.sort(key=lambda item: (item[1].model, item[1].hardware or ""))  # stable: kinds keep order
    taken_identities = {stub.identity() for stub in stubs}
    taken_slugs = {stub.slug for stub in stubs}
    generated: list[Stub] = []
    for kind, page in found:
        stub = _generated_stub(kind, page, gpu_names or {})
        if stub.slug in taken_slugs or stub.identity() in taken_identities:
            continue
        taken_identities.add(stub.identity())
        taken_slugs.add(stub.slug)
        generated.append(stub)
    return generated


def _generated_stub(kind: PageKind, page: Found, gpu_names: Mapping[str, str]) -> Stub:
    """The stub an author would write for a page the data implies."""
    a, b = page.values
    shared = {
        "model": page.model,
        "hardware": page.hardware,
        "precision": page.precision,
        "spec_method": page.spec_method,
    }
    spec = StubSpec(
        kind=kind.key,
        **{key: value for key, value in shared.items() if value is not None},
        dataset=page.datasets,
        sequence=_first_sequence(page.workloads),
        sides=[_side(kind, a, gpu_names), _side(kind, b, gpu_names)],
    )
    slug = kind.slug(page.model, page.hardware or "", page.precision or "", a, b, page.spec_method or "")
    return Stub(path=None, slug=slug, spec=spec, body="", sides=resolve_sides(spec))


def _side(kind: PageKind, value: str, gpu_names: Mapping[str, str]) -> SideSpec:
    """A generated side: the kind's varied filter set to the value, labelled by the kind's rule;
    a side that varies the GPU by the GPU's catalog name (an unknown GPU as written)."""
    label = gpu_names.get(value, value) if kind.varies == "hardware" else kind.side_label(value)
    return SideSpec.model_validate({"label": label, kind.varies: value})


def plan_pages(
    stubs: Sequence[Stub], facts: PlanFacts, config: SiteConfig, gpu_names: Mapping[str, str] | None = None
) -> list[Stub]:
    """The stubs, then the generated pairs no stub covers (unless the site turns them off)."""
    generated = discover_pages(facts, stubs, gpu_names) if config.auto_pages else []
    return [*stubs, *generated]


def _first_sequence(shared: set[Workload]) -> str:
    """The workload a generated page opens on: 1k/1k where both sides have it, else the smallest
    (a labelled one only where the sides share no fixed lengths)."""
    return sorted_workloads(shared)[0].name


# -- what each page is, before any is made: its head, whether it is published, its related links --


@dataclass(frozen=True)
class PageHead:
    """What other pages need of a page: its address, title, model, GPUs and sequences."""

    slug: str
    title: str
    model: str
    hardware: tuple[str, ...]
    sequences: tuple[str, ...]


@dataclass(frozen=True)
class RelatedLink:
    """A link from a page to a related one (or to itself at another sequence)."""

    href: str
    text: str


LikeForLike = tuple[tuple[str, RelatedLink], ...]  # (setting, link) per setting a page leaves open


@dataclass(frozen=True)
class PlannedPage:
    """A page to make: its stub, its head, and the links to its related pages."""

    stub: Stub
    head: PageHead
    related: tuple[RelatedLink, ...]
    # per setting a side may use and the other lack ("spec_method", "disagg", "precision"): the
    # page whose two sides share that setting and otherwise select as this one's do
    like_for_like: LikeForLike = ()


def page_title(stub: Stub, catalog: HardwareCatalog, models: Mapping[str, ModelInfo]) -> str:
    """The stub's title, or its kind's title pattern filled with the page's names."""
    spec = stub.spec
    if spec.title:
        return spec.title
    a, b = (side.label for side in stub.sides)
    gpu = hardware_name(catalog, stub.sides[0].hardware)
    precision = spec.precision.upper() if spec.precision else ""
    method = spec.spec_method.upper() if spec.spec_method and spec.spec_method != "none" else ""
    words = Words(
        a=a,
        b=b,
        model=model_name(models, spec.model),
        gpu=gpu,
        gpu_with_architecture=gpu,
        precision=precision,
        method=method,
    )
    return KINDS[spec.kind].title(words)


def page_heads(
    pages: Sequence[Stub],
    table: PointTable,
    catalog: HardwareCatalog,
    models: Mapping[str, ModelInfo],
    log: ProblemLog,
) -> list[PlannedPage]:
    """Every page that is published, with its head and related links: a generated page whose
    sides' frontiers meet as a matched range on no workload is left out (and said so); a stub's
    page is always made (the compute stage says what it lacks)."""
    heads: dict[str, tuple[Stub, PageHead]] = {}
    for stub in pages:
        sides = page_sides(stub, table)
        _warn_if_sides_are_one(stub, sides, log)
        if stub.generated and not sides.empty and not matched_somewhere(sides):
            where = ", ".join(w.name for w in sides.workloads)
            log.add(
                f"generated page {stub.slug}",
                "",
                "",
                f"not published: the two sides have no interactivity in common on any workload ({where}), "
                f"so there is nothing to compare{narrow_sides_said(stub, sides)}",
                Severity.NOTICE,
            )
            continue
        stub, sides = _opening_matched(stub, sides, table)
        hardware = tuple(dict.fromkeys(side.hardware for side in stub.sides))
        sequences = tuple(w.name for w in sides.workloads)
        heads[stub.slug] = (
            stub,
            PageHead(stub.slug, page_title(stub, catalog, models), stub.spec.model, hardware, sequences),
        )
    ordered = [head for _, head in sorted(heads.values(), key=lambda found: found[1].slug)]
    links = related_links(ordered)
    alike = like_for_like_links(list(heads.values()))
    return [PlannedPage(stub, head, links[head.slug], alike[head.slug]) for stub, head in heads.values()]


def narrow_sides_said(stub: Stub, sides: PageSides) -> str:
    """Where a side has one point on a workload (or several at one interactivity), why nothing
    matches and what to do: '; side 'B200' has only 1 point on 1k/1k (at 42.1 tok/s/user), and
    a single point has no interactivity range to match: …' ('' where every side has a range)."""
    found = narrow_sides(sides)
    if not found:
        return ""
    by_side: dict[tuple[str, str], list[str]] = {}  # (side, its points): 'on 1k/1k (at 42.1 tok/s/user)'
    for narrow in found:
        label = stub.sides[narrow.side].label
        points = "only 1 point" if narrow.points == 1 else f"{narrow.points} points all at one interactivity"
        at = fixed(narrow.interactivity, 1, thousands=True)
        by_side.setdefault((label, points), []).append(f"on {narrow.workload.name} (at {at} tok/s/user)")
    said = [f"side '{label}' has {points} {_listed(where)}" for (label, points), where in by_side.items()]
    single = "a single point" if all(n.points == 1 for n in found) else "a single interactivity"
    return (
        "; "
        + "; ".join(said)
        + f", and {single} has no interactivity range to match: add runs at more "
        + (
            "concurrencies to that side, or widen its filters so it selects more points"
            if len({n.side for n in found}) == 1
            else "concurrencies to those sides, or widen their filters so they select more points"
        )
    )


def _listed(parts: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _warn_if_sides_are_one(stub: Stub, sides: PageSides, log: ProblemLog) -> None:
    """A page whose two sides select the very same points compares a thing with itself."""
    first, second = (side.positions for side in sides.selected)
    if stub.path is not None and len(first) and np.array_equal(first, second):
        log.add(
            stub.path,
            stub.line_of("sides"),
            "sides",
            f"both sides select the very same {len(first)} points, so the page compares them with "
            "themselves: give the sides filters that differ (hardware, precision, framework …)",
            Severity.WARNING,
        )


def _opening_matched(stub: Stub, sides: PageSides, table: PointTable) -> tuple[Stub, PageSides]:
    """A generated page opens on a workload with a matched range where it has one (1k/1k among
    them first): its sequence was chosen from the workloads both sides measured, before their
    frontiers were known. An author's stub keeps the sequence it names."""
    matched = matched_workloads(sides)
    if not stub.generated or not matched or stub.sequence in matched:
        return stub, sides
    spec = stub.spec.model_copy(update={"sequence": _first_sequence(set(matched))})
    moved = dataclasses.replace(stub, spec=spec)
    return moved, page_sides(moved, table)


def _selection(filters: Mapping[str, Any], without: str) -> str:
    """A side's filters less one setting, written so that equal selections compare equal (a
    one-item list is its item, a list is sorted)."""

    def plain(value: Any) -> Any:
        if isinstance(value, list):
            return plain(value[0]) if len(value) == 1 else sorted(str(v).lower() for v in value)
        return str(value).lower()

    return repr(sorted((k, plain(v)) for k, v in filters.items() if k != without and v is not None))


def like_for_like_links(pages: Sequence[tuple[Stub, PageHead]]) -> dict[str, LikeForLike]:
    """For each page and each setting its sides leave open (CONFOUNDERS), the published page
    whose two sides both fix that setting to one value and otherwise select what this page's do
    (in either order): the view where that setting cannot account for the gap. The preferred
    value first ("none" for speculative decoding, aggregated serving), then by slug."""
    found: dict[tuple[str, str, str], list[tuple[bool, str, PageHead]]] = defaultdict(list)
    for stub, head in pages:
        a, b = (side.filters for side in stub.sides)
        for setting, confounder in CONFOUNDERS.items():
            value = a.get(setting)
            if value is None or isinstance(value, list) or value != b.get(setting):
                continue
            pair = sorted((_selection(a, setting), _selection(b, setting)))
            found[(setting, pair[0], pair[1])].append((value != confounder.preferred, head.slug, head))
    links: dict[str, LikeForLike] = {}
    for stub, head in pages:
        a, b = (side.filters for side in stub.sides)
        chosen = []
        for setting in CONFOUNDERS:
            if a.get(setting) is not None or b.get(setting) is not None:
                continue
            pair = sorted((_selection(a, setting), _selection(b, setting)))
            candidates = [c for c in found.get((setting, pair[0], pair[1]), []) if c[1] != head.slug]
            if candidates:
                other = min(candidates, key=lambda c: c[:2])[2]
                chosen.append((setting, RelatedLink(f"../{other.slug}/index.html", other.title)))
        links[head.slug] = tuple(chosen)
    return links


RELATED_PAGES = 12  # other pages a page links to at most (the index lists every page)


def related_links(heads: Sequence[PageHead]) -> dict[str, tuple[RelatedLink, ...]]:
    """Links from each page to its other sequences, and to the other pages on the same model and
    GPU (in the order given): at most RELATED_PAGES, those sharing the most of its GPUs first (a
    site with a page for every pair of GPUs would otherwise list dozens on each). Pages are looked
    up by (model, GPU), so the cost grows with the number of pages times the pages each one links
    to, not with the square of the site."""
    order = {head.slug: n for n, head in enumerate(heads)}
    sharing: dict[tuple[str, str], list[PageHead]] = {}
    for head in heads:
        for hardware in dict.fromkeys(head.hardware):
            sharing.setdefault((head.model, hardware), []).append(head)
    links = {}
    for head in heads:
        found = [
            RelatedLink(f"index.html?seq={sequence}", f"This comparison at {sequence}")
            for sequence in head.sequences[1:]
        ]
        others = {o.slug: o for h in head.hardware for o in sharing[(head.model, h)] if o.slug != head.slug}
        shared = {slug: len(set(head.hardware) & set(o.hardware)) for slug, o in others.items()}
        nearest = sorted(others.values(), key=lambda o: (-shared[o.slug], order[o.slug]))[:RELATED_PAGES]
        for other in sorted(nearest, key=lambda o: order[o.slug]):
            found.append(RelatedLink(f"../{other.slug}/index.html", other.title))
        links[head.slug] = tuple(found)
    return links
