"""The build in two phases: compute every comparison (or report every problem), then write.

load → validate → select sides → frontier → match at targets → (narrate → chart → render) → write
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder.catalog import constants_for, hardware_name, load_hardware, load_models, model_name
from site_builder.content import (
    FILTER_KEYS,
    FilterValue,
    SiteConfig,
    Stub,
    load_site_config,
    load_stubs,
)
from site_builder.discover import GENERATED, discover_pages
from site_builder.engine.compare import SideInput, compare_sequence
from site_builder.loaders import load_results
from site_builder.models import BenchmarkPoint, DatasetInfo, HardwareCatalog, ModelInfo
from site_builder.narrate import Narrative
from site_builder.numbers import sequence_label
from site_builder.problems import InputError, ProblemLog, Severity, suggest
from site_builder.render import PageSource, SiteRenderer, page_url, points_csv, related_pages, table_csv
from site_builder.results import ComparisonResult, DataSource, SideIdentity
from site_builder.select import PointIndex, by_sequence, describe, pooling_label, select, value_of
from site_builder.validate import drop_duplicates
from site_builder.write import check_output_folder, write_site

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Paths:
    data: Path
    content: Path
    out: Path
    templates: Path
    docs: Path

    @classmethod
    def under(cls, root: Path, out: Path | None = None) -> Paths:
        return cls(
            data=root / "data",
            content=root / "content",
            out=out or root / "site",
            templates=root / "templates",
            docs=root / "docs",
        )


@dataclass
class SiteData:
    """Everything phase 1 computed; phase 2 only turns it into files."""

    config: SiteConfig
    pages: list[PageSource]
    log: ProblemLog
    catalog: HardwareCatalog
    point_count: int = 0
    datasets: dict[str, DatasetInfo] = field(default_factory=dict)

    @property
    def comparisons(self) -> list[ComparisonResult]:
        return [page.comparison for page in self.pages]


@dataclass
class BuildReport:
    pages: int
    points: int
    warnings: list[str]
    notices: int
    seconds: float
    out: Path


def _varied_keys(stub: Stub) -> list[str]:
    a, b = stub.sides[0].filters, stub.sides[1].filters
    return [k for k in FILTER_KEYS if a.get(k) != b.get(k)]


def default_title(stub: Stub, catalog: HardwareCatalog, models: Mapping[str, ModelInfo]) -> str:
    spec = stub.spec
    a, b = (side.label for side in stub.sides)
    gpu = hardware_name(catalog, stub.sides[0].hardware)
    if spec.kind == "precision":
        return f"{gpu}: {a} vs {b} Precision Comparison"
    if spec.kind == "spec-decoding":
        precision = f" {spec.precision.upper()}" if spec.precision else ""
        return f"{gpu}{precision}: {a} vs {b} Speculative Decoding"
    if spec.kind == "hardware":
        precision = f" {spec.precision.upper()}" if spec.precision else ""
        return f"{model_name(models, spec.model)}{precision}: {a} vs {b}"
    return f"{model_name(models, spec.model)}: {a} vs {b}"


def explain_empty(points: Sequence[BenchmarkPoint], filters: Mapping[str, FilterValue]) -> tuple[str, str]:
    """(the filter that leaves nothing, why): what values exist there instead, and the closest."""
    pool = list(points)
    applied: dict[str, FilterValue] = {}
    for key, wanted in filters.items():
        narrowed = select(pool, {key: wanted})
        if not narrowed:
            values = sorted({str(value_of(p, key)) for p in pool})
            scope = describe(applied) or "all data"
            hint = suggest(str(wanted), values) if isinstance(wanted, str) else ""
            available = ", ".join(values) or "none"
            return key, f"no points with {key}={wanted} among {scope}; available: {available}{hint}"
        pool, applied[key] = narrowed, wanted
    return "", "no points match"


def compute_comparison(
    stub: Stub,
    index: PointIndex,
    catalog: HardwareCatalog,
    models: Mapping[str, ModelInfo],
    config: SiteConfig,
    datasets: Mapping[str, DatasetInfo],
    log: ProblemLog,
) -> ComparisonResult | None:
    spec = stub.spec
    tier = spec.cost_tier or config.cost_tier or catalog.default_cost_tier
    varied = _varied_keys(stub)
    selected = []
    for i, side in enumerate(stub.sides):
        side_points = index.select(side.filters)
        if not side_points:
            key, reason = explain_empty(index.points, side.filters)
            on_side = key in stub.spec.sides[i].model_fields_set
            loc: tuple[str | int, ...] = ("sides", i, key) if on_side else (key,)
            field_name = f"sides[{i}].{key}" if on_side else key
            log.add(stub.path, stub.line_of(*loc), field_name, f"side '{side.label}': {reason}")
        selected.append(side_points)
    if not all(selected):
        return None
    constants = [
        constants_for(catalog, s.hardware, tier, config.constants, spec.constants) for s in stub.sides
    ]
    for c in constants:
        missing = [n for n, v in (("cost", c.usd_per_gpu_hour), ("power", c.watts_all_in)) if v is None]
        if missing:
            log.add(
                stub.path,
                "",
                "hardware",
                f"no {' or '.join(missing)} constants for {c.hardware_name}: "
                "those metrics are shown as unavailable",
                Severity.WARNING,
            )
    groups = [by_sequence(side_points) for side_points in selected]
    default = stub.sequence
    for side, group in zip(stub.sides, groups, strict=True):
        if default not in group:
            have = ", ".join(sequence_label(*s) for s in sorted(group))
            log.add(
                stub.path,
                "",
                "sequence",
                f"side '{side.label}' has no points at {spec.sequence}; it has {have}",
                Severity.WARNING,
            )
    sequences = sorted(set(groups[0]) | set(groups[1]), key=lambda s: (s != default, s))
    results = []
    for isl, osl in sequences:
        inputs = [
            SideInput(
                label=side.label,
                filters=side.filters,
                pooling=pooling_label(side.filters, varied),
                hardware=side.hardware,
                constants=c,
                points=group.get((isl, osl), []),
            )
            for side, c, group in zip(stub.sides, constants, groups, strict=True)
        ]
        pinned = spec.targets if (isl, osl) == default else None
        results.append(compare_sequence(isl, osl, sequence_label(isl, osl), inputs, pinned))
    used = sorted({p.provenance.dataset for side_points in selected for p in side_points})
    return ComparisonResult(
        slug=stub.slug,
        kind=spec.kind,
        title=spec.title or default_title(stub, catalog, models),
        model=spec.model,
        model_name=model_name(models, spec.model),
        hardware=list(dict.fromkeys(s.hardware for s in stub.sides)),
        default_sequence=sequence_label(*default),
        cost_tier=tier,
        sides=[SideIdentity(label=s.label, filters=s.filters) for s in stub.sides],
        sequences=results,
        constants=sorted(set(constants), key=lambda c: c.hardware),
        data_sources=[_data_source(datasets[d]) for d in used],
        notices=_notices(selected, [datasets[d] for d in used]),
    )


def _data_source(info: DatasetInfo) -> DataSource:
    return DataSource(
        dataset=info.id,
        title=info.title,
        source=info.source,
        url=info.url,
        licence=info.licence,
        retrieved=info.retrieved,
        published_values=info.published_values,
    )


def _notices(selected: Sequence[Sequence[BenchmarkPoint]], datasets: Sequence[DatasetInfo]) -> list[str]:
    notices = []
    if any(d.published_values for d in datasets):
        notices.append(
            "Some points are values another site published at its own targets (read off its table), "
            "not raw measurements; curves between them are our interpolation of those values."
        )
    if any(p.interactivity_source == "derived" for side in selected for p in side):
        notices.append(
            "Some interactivities are derived as output tok/s ÷ concurrency because the source gives no TPOT."
        )
    return notices


@dataclass
class Inputs:
    """Everything loaded from data/ and content/site.yaml: the pool that pages select from."""

    config: SiteConfig
    catalog: HardwareCatalog | None
    models: dict[str, ModelInfo]
    points: list[BenchmarkPoint]
    datasets: dict[str, DatasetInfo]
    index: PointIndex


def load_inputs(paths: Paths, log: ProblemLog, site_url: str | None = None) -> Inputs:
    config = load_site_config(paths.content, log)
    if site_url is not None:
        config = config.model_copy(update={"site_url": site_url})
    catalog = load_hardware(paths.data / "hardware.yaml", log)
    models = load_models(paths.data / "models.yaml", log)
    loaded = load_results(paths.data, log)
    points = drop_duplicates(loaded.points, log)
    return Inputs(config, catalog, models, points, loaded.datasets, PointIndex(points))


def plan_pages(inputs: Inputs, stubs: Sequence[Stub]) -> list[Stub]:
    """The stubs, then the generated pairs no stub covers (unless the site turns them off)."""
    generated = discover_pages(inputs.points, inputs.datasets, stubs) if inputs.config.auto_pages else []
    return [*stubs, *generated]


def compute_page(stub: Stub, inputs: Inputs, log: ProblemLog) -> PageSource | None:
    if inputs.catalog is None:
        return None
    result = compute_comparison(
        stub, inputs.index, inputs.catalog, inputs.models, inputs.config, inputs.datasets, log
    )
    if result is None:
        return None
    return PageSource(result, stub.body, "auto" if stub.path == GENERATED else stub.path)


def compute_site(paths: Paths, log: ProblemLog, site_url: str | None = None) -> SiteData:
    """Phase 1: load, validate, select and compute; raise InputError with every problem found."""
    inputs = load_inputs(paths, log, site_url)
    stubs = load_stubs(paths.content, log)
    if not stubs and not log.errors:
        log.add(paths.content.as_posix(), "", "", "no comparison stubs (*.md) found", Severity.WARNING)
    pages = [page for stub in plan_pages(inputs, stubs) if (page := compute_page(stub, inputs, log))]
    if log.errors or inputs.catalog is None:
        raise InputError(log.errors)
    return SiteData(inputs.config, pages, log, inputs.catalog, len(inputs.points), inputs.datasets)


def comparison_json(result: ComparisonResult) -> bytes:
    return result.model_dump_json(indent=1).encode() + b"\n"


def index_entry(page: PageSource, narrative: Narrative, catalog: HardwareCatalog) -> dict[str, Any]:
    comparison = page.comparison
    names = " vs ".join(dict.fromkeys(hardware_name(catalog, h) for h in comparison.hardware))
    return {
        "kind": comparison.kind,
        "group": f"{comparison.model_name} · {names}",
        "title": comparison.title,
        "href": page_url(comparison.slug),
        "summary": narrative.summary,
        "auto": page.source == "auto",
        "sequences": [s.sequence for s in comparison.sequences],
        "published": any(d.published_values for d in comparison.data_sources),
    }


def render_page(
    renderer: SiteRenderer, page: PageSource, related: Sequence[dict[str, str]]
) -> tuple[dict[str, bytes], Narrative]:
    """The four files of one comparison page."""
    comparison = page.comparison
    narrative = renderer.narrative(comparison)
    prefix = f"{comparison.slug}/"
    files = {
        prefix + "index.html": renderer.comparison_page(page, narrative, related),
        prefix + "comparison.json": comparison_json(comparison),
        prefix + "table.csv": table_csv(comparison),
        prefix + "points.csv": points_csv(comparison),
    }
    return files, narrative


def render_shared(
    renderer: SiteRenderer, pages: Sequence[PageSource], entries: Sequence[dict[str, Any]]
) -> dict[str, bytes]:
    """Files that list or serve every page: index, sitemap, robots, 404, methodology, assets."""
    files = {".nojekyll": b"", "robots.txt": renderer.robots(), "404.html": renderer.not_found_page()}
    files.update(renderer.assets())
    files["index.html"] = renderer.index_page(
        sorted(entries, key=lambda e: (e["kind"], e["group"], e["title"]))
    )
    methodology = renderer.methodology_page()
    if methodology is not None:
        files["methodology/index.html"] = methodology
    files.update(renderer.doc_pages())
    sitemap = renderer.sitemap(sorted(p.comparison.slug for p in pages))
    if sitemap is not None:
        files["sitemap.xml"] = sitemap
    return files


def related_links(pages: Sequence[PageSource]) -> dict[str, list[dict[str, str]]]:
    comparisons = [p.comparison for p in pages]
    titles = {c.slug: c.title for c in comparisons}
    for_page = related_pages(comparisons, titles)
    return {c.slug: for_page(c) for c in comparisons}


def render_files(site: SiteData, paths: Paths, progress: Progress | None = None) -> dict[str, bytes]:
    """Phase 2 input: every output file's bytes, computed before anything touches the disk."""
    renderer = SiteRenderer(paths.templates, site.config, site.catalog, paths.docs)
    pages = sorted(site.pages, key=lambda p: p.comparison.slug)
    related = related_links(pages)
    files: dict[str, bytes] = {}
    entries = []
    for done, page in enumerate(pages, 1):
        page_files, narrative = render_page(renderer, page, related[page.comparison.slug])
        files.update(page_files)
        entries.append(index_entry(page, narrative, site.catalog))
        if progress:
            progress(done, len(pages))
    files.update(render_shared(renderer, pages, entries))
    return files


def build(
    paths: Paths,
    strict: bool = False,
    site_url: str | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    started = time.perf_counter()
    log = ProblemLog()
    check_output_folder(paths.out)
    if not (paths.templates / "comparison.html").is_file():
        log.add(paths.templates.as_posix(), "", "", "no templates here (comparison.html is missing)")
        raise InputError(log.errors)
    site = compute_site(paths, log, site_url)
    if strict and log.warnings:
        raise InputError(log.warnings)
    write_site(paths.out, render_files(site, paths, progress))
    return BuildReport(
        pages=len(site.comparisons),
        points=site.point_count,
        warnings=[str(w) for w in log.warnings],
        notices=len(log.notices),
        seconds=time.perf_counter() - started,
        out=paths.out,
    )
