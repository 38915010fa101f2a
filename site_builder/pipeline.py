"""The one pipeline: load → validate → plan → compute → narrate, chart, render → (write).

`build` runs it and writes the files, `check` runs it and writes nothing, `serve` runs it again
on every change with a cache, so each stage redoes only what the change touched:

- load + validate: redone when anything under data/, a catalog or content/site.yaml changes;
- plan: every run (cheap: stubs are parsed, generated pairs found);
- compute: per page, redone when its stub or the loaded inputs changed;
- render: per page, redone when its numbers, stub body, related links or the theme changed.

Every problem of every stage is collected; the run raises `InputError` with all of them before
anything is written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder.catalog import HardwareCatalog, ModelInfo, load_hardware, load_models
from site_builder.comparison_json import comparison_result
from site_builder.compute import compute_page
from site_builder.content import SiteConfig, Stub, load_site_config, load_stubs
from site_builder.evaluations import EvalRun
from site_builder.loaders import load_results
from site_builder.plan import plan_pages
from site_builder.points import BenchmarkPoint, DatasetInfo
from site_builder.problems import InputError, Problem, ProblemLog, Severity, of_severity
from site_builder.project import Project
from site_builder.render import (
    PageSource,
    SiteRenderer,
    index_entry,
    related_links,
    render_page,
    render_shared,
)
from site_builder.select import PointIndex
from site_builder.sweeps import SweepRow
from site_builder.validate import validate_points
from site_builder.write import Owner, SiteFiles, check_output_folder, clean_leftovers, write_site

Progress = Callable[[int, int], None]
Stamp = tuple[tuple[str, int, int, int, int], ...]


def stamp(*places: Path) -> Stamp:
    """(path, inode, mtime, ctime, size) of every file in these files and folders: what a change
    changes, including a copy that keeps the old size and modification time (cp -p, rsync -t)."""
    found: list[tuple[str, int, int, int, int]] = []
    for place in places:
        paths = sorted(place.rglob("*")) if place.is_dir() else [place]
        for path in paths:
            try:
                info = path.stat()
            except OSError:
                continue
            if path.is_file():
                found.append((path.as_posix(), info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size))
    return tuple(found)


@dataclass
class Inputs:
    """Everything loaded from data/ and content/site.yaml: the pool that pages select from."""

    config: SiteConfig
    catalog: HardwareCatalog | None
    models: dict[str, ModelInfo]
    points: list[BenchmarkPoint]
    evaluations: list[EvalRun]
    datasets: dict[str, DatasetInfo]
    index: PointIndex
    problems: list[Problem]
    sweeps: list[SweepRow] = field(default_factory=list)


def load_inputs(project: Project, site_url: str | None) -> Inputs:
    """Load and validate: result files, catalogs and the site config, every problem logged."""
    log = ProblemLog()
    config = load_site_config(project.content, log, site_url)
    catalog = load_hardware(project.catalog_file("hardware.yaml"), log)
    models = load_models(project.catalog_file("models.yaml"), log)
    loaded = load_results(project.data, log, exclude=config.exclude)
    points = validate_points(loaded.points, catalog, log)
    return Inputs(
        config,
        catalog,
        models,
        points,
        loaded.evaluations,
        loaded.datasets,
        PointIndex(points),
        log.problems,
        loaded.sweeps,
    )


@dataclass
class SiteOutput:
    """What a run produced: the files (in memory), the pages, and what it redid."""

    files: SiteFiles
    pages: list[PageSource]
    point_count: int
    problems: list[Problem]
    site_url: str | None = None
    keep: list[str] = field(default_factory=list)  # the output folder's files a build carries over
    rendered: list[str] = field(default_factory=list)  # slugs whose files were rendered this run
    recomputed: int = 0
    seconds: float = 0.0

    @property
    def warnings(self) -> list[Problem]:
        return of_severity(self.problems, Severity.WARNING)

    @property
    def notices(self) -> list[Problem]:
        return of_severity(self.problems, Severity.NOTICE)


@dataclass(frozen=True)
class _Computed:
    """A page's numbers as of `stub` and the inputs the cache held then, with its problems."""

    stub: Stub
    page: PageSource | None
    problems: list[Problem]


@dataclass(frozen=True)
class _Rendered:
    """A page's files as of `page` (the very object) and `context`, with the problems rendering it found."""

    context: Hashable
    page: PageSource
    files: dict[str, bytes]
    entry: dict[str, Any]
    problems: list[Problem]


@dataclass
class _Cache:
    inputs: tuple[Hashable, Inputs] | None = None
    computed: dict[str, _Computed] = field(default_factory=dict)
    rendered: dict[str, _Rendered] = field(default_factory=dict)
    shared: tuple[Hashable, list[tuple[Owner, dict[str, bytes]]]] | None = None


class Pipeline:
    """Runs the stages for one project; keep one instance to have later runs reuse earlier work."""

    def __init__(self, project: Project, *, site_url: str | None = None, cache: bool = False) -> None:
        self.project = project
        self.site_url = site_url
        self._cache = _Cache() if cache else None

    # -- stages ----------------------------------------------------------------------------------

    def _inputs(self) -> Inputs:
        project = self.project
        key = (
            stamp(project.data, project.content / "site.yaml"),
            stamp(project.catalog_file("hardware.yaml"), project.catalog_file("models.yaml")),
            self.site_url,
        )
        if self._cache is not None and self._cache.inputs is not None and self._cache.inputs[0] == key:
            return self._cache.inputs[1]
        inputs = load_inputs(project, self.site_url)
        if self._cache is not None:
            self._cache.inputs = (key, inputs)
            self._cache.computed.clear()
        return inputs

    def _compute(self, stub: Stub, inputs: Inputs, log: ProblemLog) -> tuple[PageSource | None, bool]:
        """(the page, whether it was computed now rather than taken from the cache)."""
        hit = self._cache.computed.get(stub.slug) if self._cache is not None else None
        if hit is not None and hit.stub == stub:  # every field: spec, body, and the lines errors name
            log.problems.extend(hit.problems)
            return hit.page, False
        page_log = ProblemLog()
        page = None
        if inputs.catalog is not None:
            computed = compute_page(
                stub,
                inputs.index,
                inputs.catalog,
                inputs.models,
                inputs.config,
                inputs.datasets,
                page_log,
                inputs.evaluations,
                inputs.sweeps,
            )
            if computed is not None:
                page = PageSource(comparison_result(computed, inputs.catalog), stub.body, stub.generated)
        log.problems.extend(page_log.problems)
        if self._cache is not None:
            self._cache.computed[stub.slug] = _Computed(stub, page, page_log.problems)
        return page, True

    def _owner(self, page: PageSource, stubs: dict[str, Stub]) -> Owner:
        stub = stubs[page.comparison.slug]
        return Owner("comparison page", stub.path or f"generated from the data: {stub.slug}")

    # -- the run ---------------------------------------------------------------------------------

    def run(self, progress: Progress | None = None) -> SiteOutput:
        """Every file of the site, in memory; raises InputError with every problem found."""
        started = time.perf_counter()
        log = ProblemLog()
        inputs = self._inputs()
        log.problems.extend(inputs.problems)
        stubs = load_stubs(self.project.content, log)
        if not stubs and not log.errors:
            log.add(
                self.project.content.as_posix(), "", "", "no comparison stubs (*.md) found", Severity.WARNING
            )
        planned = plan_pages(stubs, inputs.points, inputs.datasets, inputs.config)
        pages: list[PageSource] = []
        recomputed = 0
        for stub in planned:
            page, fresh = self._compute(stub, inputs, log)
            recomputed += fresh
            if page is not None:
                pages.append(page)
        if log.errors or inputs.catalog is None:
            raise InputError(log.errors, log.problems)
        pages.sort(key=lambda p: p.comparison.slug)
        files, rendered = self._render(pages, {s.slug: s for s in planned}, inputs, log, progress)
        if log.errors:
            raise InputError(log.errors, log.problems)
        return SiteOutput(
            files=files,
            pages=pages,
            point_count=len(inputs.points),
            problems=log.problems,
            site_url=inputs.config.site_url,
            keep=inputs.config.keep,
            rendered=rendered,
            recomputed=recomputed,
            seconds=time.perf_counter() - started,
        )

    def _render(
        self,
        pages: list[PageSource],
        stubs: dict[str, Stub],
        inputs: Inputs,
        log: ProblemLog,
        progress: Progress | None,
    ) -> tuple[SiteFiles, list[str]]:
        assert inputs.catalog is not None
        # stamped before anything is read, so a file saved meanwhile is read again next time
        theme_and_config = (
            stamp(*self.project.template_folders(), *self.project.guide_files().values()),
            inputs.config.model_dump_json(),
        )
        renderer = SiteRenderer(self.project, inputs.config, inputs.catalog, log)
        related = related_links(pages)
        owned: list[tuple[Owner, dict[str, bytes]]] = []
        entries = []
        rendered = []
        cache = self._cache
        for done, page in enumerate(pages, 1):
            slug = page.comparison.slug
            context = (theme_and_config, page.body_markdown, json.dumps(related[slug]))
            hit = cache.rendered.get(slug) if cache is not None else None
            if hit is not None and hit.context == context and hit.page is page:
                page_files, entry = hit.files, hit.entry
                log.problems.extend(hit.problems)
            else:
                before = len(log.problems)
                page_files, narrative = render_page(renderer, page, related[slug])
                entry = index_entry(page, narrative, inputs.catalog)
                rendered.append(slug)
                if cache is not None:
                    problems = log.problems[before:]
                    cache.rendered[slug] = _Rendered(context, page, page_files, entry, problems)
            owned.append((self._owner(page, stubs), page_files))
            entries.append(entry)
            if progress:
                progress(done, len(pages))
        if cache is not None:
            for gone in set(cache.rendered) - {p.comparison.slug for p in pages}:
                del cache.rendered[gone]
        shared_key = (theme_and_config, json.dumps(entries, sort_keys=True))
        if cache is not None and cache.shared is not None and cache.shared[0] == shared_key:
            shared = cache.shared[1]
        else:
            shared = render_shared(renderer, [p.comparison.slug for p in pages], entries)
            if cache is not None and not log.errors:
                cache.shared = (shared_key, shared)
        files = SiteFiles()
        for owner, owner_files in [*shared, *owned]:  # the site's own files first: a page collides with them
            files.add_all(owner_files, owner)
        reported = set()
        for collision in files.collisions:
            if (collision.first, collision.second) in reported:
                continue
            reported.add((collision.first, collision.second))
            log.add(
                collision.second.file or collision.second.what,
                "",
                "slug" if collision.second.what == "comparison page" else "",
                f"{collision}: two sources cannot share one address (for a stub, choose another slug)",
            )
        return files, rendered


def build(
    project: Project, *, strict: bool = False, site_url: str | None = None, progress: Progress | None = None
) -> SiteOutput:
    """Run the pipeline and write the site (nothing is written if any problem stops it)."""
    check_output_folder(project.out, project.input_folders())
    clean_leftovers(project.out.resolve())  # a killed build's staging; a site a kill left missing
    output = Pipeline(project, site_url=site_url).run(progress)
    if strict and output.warnings:
        raise InputError(output.warnings, output.problems)
    write_site(project.out, output.files, output.keep, project.input_folders())
    return output
