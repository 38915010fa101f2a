"""MAKE: every planned page, taken from the page cache (cache.py) when nothing it is made from
changed, else made in one step — compute, present, render (`make_page`) — on the runner's pool
(runner.py); each page's files go to the sink (write.Sink) as they come, so nothing holds every
page.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from site_builder.cache import CachedPage, Digests, PageCache, page_key
from site_builder.compute import compute_page
from site_builder.plan import PlannedPage, RelatedLink
from site_builder.present.preview import preview_figure
from site_builder.present.result import comparison_result, shown_points
from site_builder.present.tables import power_tables
from site_builder.problems import Problem, ProblemLog, Severity, of_severity
from site_builder.project import Project
from site_builder.render.images import ImageFailed, PreviewImages
from site_builder.render.pages import PageSource, index_entry, preview_png, render_page
from site_builder.render.site import SiteRenderer
from site_builder.runner import map_pages
from site_builder.write import Sink

if TYPE_CHECKING:
    from site_builder.pipeline import Inputs

Progress = Callable[[str, int, int], None]  # (stage, pages done, pages in all)


@dataclass
class PageWork:
    """What making any page reads: given to each worker once (runner.py)."""

    project: Project
    inputs: Inputs
    keep_pages: bool  # hand each page's PageSource back (a run into memory)
    previews: bool = False  # each page's preview figure, which its head names (--preview-images)
    renderer: SiteRenderer | None = None  # made in the process that first renders a page

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "renderer": None}  # a spawned worker makes its own

    def renderer_for(self, log: ProblemLog) -> SiteRenderer:
        """The renderer, reporting a page's template problems to `log` (the guides' problems
        are the site renderer's to report, once)."""
        if self.renderer is None:
            self.renderer = SiteRenderer(self.project, self.inputs.config, self.inputs.catalog, ProblemLog())
        self.renderer.log = log
        return self.renderer


@dataclass
class MadePage:
    """One page as `make_page` gives it: its files and index entry (none: a problem stopped it),
    its problems, the CPU seconds computing and rendering took, and the figure of its preview
    image (with --preview-images: the one browser draws it in the main process, `add_preview`)."""

    slug: str
    files: dict[str, bytes]
    entry: dict[str, Any] | None
    problems: list[Problem]
    source: PageSource | None = None
    cpu: tuple[float, float] = (0.0, 0.0)
    preview: dict[str, Any] | None = None


def make_page(work: PageWork, planned: PlannedPage) -> MadePage:
    """COMPUTE, PRESENT and RENDER one planned page."""
    inputs, log, stub = work.inputs, ProblemLog(), planned.stub
    started = time.process_time()
    computed = compute_page(
        stub,
        inputs.table,
        inputs.catalog,
        inputs.models,
        inputs.config,
        inputs.datasets,
        log,
        inputs.evaluations,
        inputs.sweeps,
    )
    if computed is None:
        return MadePage(stub.slug, {}, None, log.problems, cpu=(time.process_time() - started, 0.0))
    comparison = comparison_result(computed, inputs.catalog)
    labels = [side.label for side in computed.sides]
    measured_power = power_tables(computed.measured_power, labels)
    page = PageSource(comparison, shown_points(computed), stub.body, stub.generated, measured_power)
    figure = preview_figure(comparison, page.points) if work.previews else None
    between = time.process_time()
    renderer, related = work.renderer_for(log), planned.related
    files, narrative = render_page(renderer, page, related, planned.like_for_like, figure is not None)
    entry = index_entry(page, narrative, inputs.catalog)
    cpu = (between - started, time.process_time() - between)
    return MadePage(stub.slug, files, entry, log.problems, page if work.keep_pages else None, cpu, figure)


def add_preview(page: MadePage, images: PreviewImages | None) -> None:
    """The page's preview image drawn and put among its files (an error where the browser
    failed: the page's head names the image; once, as the build then stops)."""
    if images is None or page.preview is None or page.entry is None or images.failed:
        return
    try:
        page.files[preview_png(page.slug)] = images.png(page.preview)
    except ImageFailed as exc:
        why = f"preview image not drawn ({exc}) by {images.browser}"
        next_step = "build again, set BROWSER_PATH to a working Chrome or Chromium, or build without them"
        page.problems.append(Problem(preview_png(page.slug), "", "", f"{why}: {next_step}", Severity.ERROR))


@dataclass
class Pages:
    """What the run keeps of every page: its index entry, paths and problems (its files went
    to the sink as they came)."""

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    paths: dict[str, list[str]] = field(default_factory=dict)
    problems: dict[str, list[Problem]] = field(default_factory=dict)
    sources: list[PageSource] = field(default_factory=list)
    made: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=lambda: {"compute (CPU)": 0.0, "render (CPU)": 0.0})

    def add(self, slug: str, page: MadePage | CachedPage, sink: Sink) -> None:
        """A page's files to the sink; its entry, paths and problems kept."""
        self.problems[slug] = page.problems
        if page.entry is None:
            return
        self.entries[slug], self.paths[slug] = page.entry, sorted(page.files)
        for relative, content in page.files.items():
            sink.put(relative, content)

    def count(self, page: MadePage) -> None:
        """A page made this run: named in `made`, its source kept (a run into memory), its CPU."""
        self.made += [page.slug] if page.entry is not None else []
        self.sources += [page.source] if page.source is not None else []
        self.cpu["compute (CPU)"] += page.cpu[0]
        self.cpu["render (CPU)"] += page.cpu[1]

    def slugs(self) -> list[str]:
        return sorted(self.entries)


def make_pages(
    project: Project,
    inputs: Inputs,
    planned: list[PlannedPage],
    cache: PageCache | None,
    sink: Sink,
    workers: int | None,
    progress: Progress | None = None,
    keep_sources: bool = False,
    images: PreviewImages | None = None,
) -> Pages:
    """Every planned page, from the cache or made (by the runner, on `workers` processes), into
    the sink as it comes; a page made without an error is put in the cache. `keep_sources`: keep
    each made page's PageSource (a run into memory). `images`: each page's preview image is
    drawn as the page comes (in this process: one browser for all) and kept with its files."""
    pages, todo = Pages(), []
    drawn_by = images.drawn_by if images is not None else None
    keys = page_keys(project, inputs, planned, drawn_by) if cache is not None else {}
    for planned_page in planned:
        hit = cache.get(keys[planned_page.head.slug]) if cache is not None else None
        if hit is None:
            todo.append(planned_page)
        else:
            pages.add(planned_page.head.slug, hit, sink)
    work = PageWork(project, inputs, keep_sources, previews=images is not None)
    with contextlib.closing(map_pages(make_page, todo, workers, work)) as made:
        for done, page in enumerate(made, 1):
            add_preview(page, images)
            drawn = images is None or not images.failed  # else the page lacks the image its head names
            if cache is not None and drawn and not of_severity(page.problems, Severity.ERROR):
                cache.put(keys[page.slug], page.files, page.entry, page.problems)
            pages.add(page.slug, page, sink)
            pages.count(page)
            if progress:
                progress("building pages", done, len(todo))
    return pages


def page_keys(
    project: Project, inputs: Inputs, planned: list[PlannedPage], preview: str | None = None
) -> dict[str, str]:
    """Each page's cache key (cache.page_key), by slug; `preview`: what draws the pages' preview
    images (None: they have none)."""
    digests = Digests.of(project, inputs.config, inputs.table.files_of_model())
    return {page.head.slug: page_key(page.stub, digests, page_links(page), preview) for page in planned}


def page_links(page: PlannedPage) -> list[RelatedLink]:
    """Every link the plan gives a page: its related pages, then its like-for-like ones."""
    return [*page.related, *(link for _, link in page.like_for_like)]
