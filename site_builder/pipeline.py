"""The one pipeline: load → validate → plan → pages (compute, present, render) → site files → write.

`build` writes the site into a staging folder swapped in at the end, `check` writes nothing,
`serve` runs it again on every change, into memory; all three call `run`. The plan decides every
page before any is made: which are published, their titles and sequences, and so each page's
related links. Each page is then made in one step (make.py: on the runner's process pool for
many pages), or taken from the page cache (cache.py) when nothing it is made from changed, and
its files go to the sink (write.py) as they come. Output is byte for byte the same serial or parallel,
cached or clean. Every problem of every stage is collected; the run raises `InputError` with all
of them, and nothing is written.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from site_builder.cache import FOLDER, PageCache
from site_builder.catalog import HardwareCatalog, ModelInfo, load_hardware, load_models
from site_builder.content import SiteConfig, load_site_config, load_stubs
from site_builder.make import Pages, Progress, make_pages
from site_builder.plan import PlanFacts, PlannedPage, page_heads, plan_pages
from site_builder.present.explore import explorer_models
from site_builder.present.scorecard import scorecard_views
from site_builder.problems import InputError, Problem, ProblemLog, Severity, of_severity
from site_builder.project import Project
from site_builder.read.evals import EvalRun
from site_builder.read.load import load_results
from site_builder.read.provenance import DatasetInfo
from site_builder.read.sweeps import SweepRow
from site_builder.read.table import PointTable
from site_builder.render.explore import explorer_files
from site_builder.render.images import PreviewImages, preview_images
from site_builder.render.pages import EMBEDS, PageSource
from site_builder.render.site import SiteRenderer, render_shared
from site_builder.scorecard import scorecards
from site_builder.validate import validate_points
from site_builder.write import (
    MemorySink,
    Owner,
    Sink,
    SiteFiles,
    StagingSink,
    check_output_folder,
    clean_leftovers,
)

Stamp = tuple[tuple[str, int, int, int, int], ...]


@dataclass(frozen=True)
class Options:
    site_url: str | None = None
    strict: bool = False  # warnings stop the run too
    cache: bool = False  # take unchanged pages from the page cache, and keep the pages made
    workers: int | None = 1  # processes making pages (None: one a core)
    progress: Progress | None = None
    preview_images: bool = False  # each page's preview image (render/images.py), where it can be drawn


@dataclass
class Inputs:
    """Everything loaded from data/, the catalogs and content/site.yaml."""

    config: SiteConfig
    catalog: HardwareCatalog
    models: dict[str, ModelInfo]
    table: PointTable  # every point, a row each (read/table.py)
    evaluations: list[EvalRun]
    datasets: dict[str, DatasetInfo]
    problems: list[Problem]
    sweeps: list[SweepRow] = field(default_factory=list)
    # the site URL given and the files loaded, as `stamp` saw them: serve loads again when they change
    origin: tuple[str | None, Stamp] = (None, ())


@dataclass
class SiteOutput:
    """What a run produced. `files` holds the site and `pages` the pages made this run only for
    a run into memory (`run` without a sink)."""

    files: SiteFiles
    pages: list[PageSource]
    page_count: int
    point_count: int
    problems: list[Problem]
    inputs: Inputs
    rendered: list[str] = field(default_factory=list)  # slugs of the pages made this run
    seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)  # seconds a stage; CPU seconds of the pages
    remarks: list[str] = field(default_factory=list)  # said even when quiet: the cache, leftovers

    @property
    def site_url(self) -> str | None:
        return self.inputs.config.site_url

    @property
    def warnings(self) -> list[Problem]:
        return of_severity(self.problems, Severity.WARNING)

    @property
    def notices(self) -> list[Problem]:
        return of_severity(self.problems, Severity.NOTICE)


# -- the stages, in order -------------------------------------------------------------------------


def build(
    project: Project,
    *,
    strict: bool = False,
    site_url: str | None = None,
    progress: Progress | None = None,
    cache: bool = True,
    workers: int | None = None,
    preview_images: bool = False,
) -> SiteOutput:
    """The site written into a staging folder and swapped in at the end; nothing is replaced if
    any problem stops the run (or, with `strict`, any warning)."""
    check_output_folder(project.out, project.input_folders())
    stuck = clean_leftovers(project.out.resolve())  # a killed build's staging; a site a kill left missing
    sink = StagingSink(project.out, project.input_folders())
    output = run(project, sink, Options(site_url, strict, cache, workers, progress, preview_images))
    output.remarks += [
        f"notice: {folder}: left by an earlier build and cannot be removed by this one; remove it yourself"
        for folder in stuck
    ]
    return output


def run(
    project: Project, sink: Sink | None = None, options: Options | None = None, kept: Inputs | None = None
) -> SiteOutput:
    """Every file of the site into `sink` (into memory when None). `kept`: what an earlier run
    loaded, used again if no input file changed since. Raises InputError with every problem
    found (with `strict`, every warning too), and then the sink is dropped."""
    started = time.perf_counter()
    target = MemorySink() if sink is None else sink
    try:
        output = _run(project, target, options or Options(), kept)
    except BaseException:
        target.abort()
        raise
    output.seconds = time.perf_counter() - started
    return output


def _run(project: Project, sink: Sink, options: Options, kept: Inputs | None) -> SiteOutput:
    laps, log = Laps(), ProblemLog()
    inputs = load(project, options.site_url, kept)  # LOAD and VALIDATE
    log.problems.extend(inputs.problems)
    laps.lap("load")
    facts = PlanFacts.of(inputs.table, inputs.datasets)
    planned = plan(project, inputs, log, facts)  # PLAN
    sink.start(inputs.config.keep)
    folder = project.content.parent / FOLDER
    cache, notice = PageCache.open(folder) if options.cache else (None, None)
    images, skipped = preview_images(options.preview_images)  # skipped: why not, said once (remarks)
    try:
        claims, pages = _pages_and_site(
            project, inputs, facts, planned, cache, images, sink, options, log, laps
        )
    finally:
        if images is not None:
            images.close()
        if cache is not None:
            cache.close()
            notice = notice or cache.notice
        if notice:
            log.add(folder.as_posix(), "", "", notice, Severity.NOTICE)
    laps.lap("finish")
    return SiteOutput(
        files=sink.site(claims) if isinstance(sink, MemorySink) else SiteFiles(),
        pages=sorted(pages.sources, key=lambda page: page.comparison.slug),
        page_count=len(planned),
        point_count=len(inputs.table),
        problems=log.problems,
        inputs=inputs,
        rendered=pages.made,
        stages={**laps.seconds, **pages.cpu},
        remarks=[
            f"notice: {text}" for text in (notice and f"{folder.as_posix()}: {notice}", skipped) if text
        ],
    )


def _pages_and_site(
    project: Project,
    inputs: Inputs,
    facts: PlanFacts,
    planned: list[PlannedPage],
    cache: PageCache | None,
    images: PreviewImages | None,
    sink: Sink,
    options: Options,
    log: ProblemLog,
    laps: Laps,
) -> tuple[SiteFiles, Pages]:
    """Every page (from the cache or made), then the site's own files, into the sink; the sink
    finished (the site swapped in) and the cache saved."""
    memory = isinstance(sink, MemorySink)
    pages = make_pages(
        project, inputs, planned, cache, sink, options.workers, options.progress, memory, images
    )  # COMPUTE, PRESENT, RENDER (and each page's preview image)
    log.problems.extend(problem for page in planned for problem in pages.problems[page.head.slug])
    laps.lap("pages")
    stop_on_problems(log, strict=False)
    renderer = SiteRenderer(project, inputs.config, inputs.catalog, log)
    renderer.known_guides_html = cache.guides_html() if cache is not None else {}
    published = [page for page in planned if page.head.slug in pages.entries]
    cards = scorecard_views(
        scorecards(inputs.table, facts, inputs.catalog, inputs.config),
        published,
        inputs.catalog,
        inputs.models,
    )  # the index's scorecards: COMPUTE and PRESENT
    shared = render_shared(renderer, pages.slugs(), [pages.entries[s] for s in pages.slugs()], cards)
    explorer = explorer_models(inputs.table, inputs.catalog, inputs.config, inputs.models)
    shared.append((Owner("the explorer"), explorer_files(renderer, explorer)))
    claims = claim_paths(shared, pages, planned, log)  # one owner a path
    stop_on_problems(log, options.strict)
    for _, owner_files in shared:  # WRITE
        for relative, content in owner_files.items():
            sink.put(relative, content)
    sink.finish()
    if cache is not None:
        cache.keep_guides_html(renderer.guides_html)
        cache.save()
    return claims, pages


def stop_on_problems(log: ProblemLog, strict: bool) -> None:
    """Raise InputError with every problem if any is an error (with `strict`, a warning)."""
    warnings = of_severity(log.problems, Severity.WARNING)
    if log.errors:
        raise InputError(log.errors, log.problems)
    if strict and warnings:
        raise InputError(warnings, log.problems)


def stamp(*places: Path) -> Stamp:
    """(path, inode, mtime, ctime, size) of every file in these files and folders: what a change
    changes, including a copy that keeps the old size and modification time (cp -p, rsync -t)."""
    found: list[tuple[str, int, int, int, int]] = []
    for place in places:
        for path in sorted(place.rglob("*")) if place.is_dir() else [place]:
            with contextlib.suppress(OSError):
                info = path.stat()
                if path.is_file():
                    found.append(
                        (path.as_posix(), info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)
                    )
    return tuple(found)


def load(project: Project, site_url: str | None, kept: Inputs | None = None) -> Inputs:
    """LOAD and VALIDATE: the result files, catalogs and site config, every problem logged;
    `kept` itself when it was loaded from exactly these files. Raises InputError without the
    GPUs' catalog: no page can be made without it."""
    hardware, models_file = project.catalog_files("hardware.yaml"), project.catalog_files("models.yaml")
    catalogs = [path for path in (*hardware, *models_file) if path is not None]
    origin = (site_url, stamp(project.data, project.content / "site.yaml", *catalogs))
    if kept is not None and kept.origin == origin:
        return kept
    log = ProblemLog()
    config = load_site_config(project.content, log, site_url)
    catalog = load_hardware(hardware[0], log, hardware[1])
    models = load_models(models_file[0], log, models_file[1])
    loaded = load_results(project.data, log, exclude=config.exclude)
    table = validate_points(loaded.table, catalog, log, config.constants)
    if catalog is None:  # no page can be made without the GPUs' catalog (its error is logged)
        raise InputError(log.errors, log.problems)
    evaluations, datasets, sweeps = loaded.evaluations, loaded.datasets, loaded.sweeps
    return Inputs(config, catalog, models, table, evaluations, datasets, log.problems, sweeps, origin)


def plan(project: Project, inputs: Inputs, log: ProblemLog, facts: PlanFacts) -> list[PlannedPage]:
    """PLAN: every stub, then the pages the data implies (`facts`, which the index's scorecards
    read too) that no stub covers; of those, the published ones with their heads and related links."""
    stubs = load_stubs(project.content, log)
    if not stubs and not log.errors:
        found = "no comparison stubs (*.md) found: write one with `build-site new KIND`"
        log.add(project.content.as_posix(), "", "", found, Severity.WARNING)
    gpu_names = {key: spec.name for key, spec in inputs.catalog.gpus.items()}
    pages = plan_pages(stubs, facts, inputs.config, gpu_names)
    return page_heads(pages, inputs.table, inputs.catalog, inputs.models, log)


# -- the site's files -----------------------------------------------------------------------------


def claim_paths(
    shared: list[tuple[Owner, dict[str, bytes]]], pages: Pages, planned: list[PlannedPage], log: ProblemLog
) -> SiteFiles:
    """Every path claimed by one owner, the site's own files first (a page collides with them);
    each collision logged once."""
    claims = SiteFiles()
    for owner, owner_files in shared:
        claims.claim_all(owner_files, owner)
    stubs = {page.head.slug: page.stub for page in planned}
    for slug in pages.slugs():
        source = stubs[slug].path or f"generated from the data: {slug}"
        for path in pages.paths[slug]:  # the embeds (embed/<slug>/) share their folder
            embed = path.startswith(EMBEDS)
            claims.claim(
                path,
                Owner("chart-only page" if embed else "comparison page", source, "embeds" if embed else ""),
            )
    reported = set()
    for collision in claims.collisions:
        if (collision.first, collision.second) in reported:
            continue
        reported.add((collision.first, collision.second))
        log.add(
            collision.second.file or collision.second.what,
            "",
            "slug" if collision.second.what == "comparison page" else "",
            f"{collision}: two sources cannot share one address (for a stub, choose another slug)",
        )
    return claims


class Laps:
    """Seconds each stage took."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage], self._last = now - self._last, now
