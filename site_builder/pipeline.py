"""The one pipeline: load → validate → plan → compute → narrate, chart, render → write.

`build` runs it and writes the site, `check` runs it and writes nothing, `serve` runs it again
on every change. The pages stream through it, so memory does not grow with the site:

- load + validate: once per run, in bulk (loaders/bulk.py); serve keeps the result until a file
  under data/, a catalog or content/site.yaml changes;
- plan: every stub, then the pairs the data implies;
- compute (pass 1): each page's numbers; what other pages need of it (its `PageHead`: title,
  model, GPUs) is kept, the numbers are spooled to a file for pass 2;
- narrate, chart, render (pass 2): each page's files, handed to the sink (the staging folder,
  memory, or nothing for `check`) as they come, then the index, sitemap, guides and assets.

Both passes run on a process pool (one worker a core; each worker receives the loaded inputs
once) and take from the build cache (cache.py) every page whose inputs did not change. Output
is byte for byte the same serial or parallel, cached or clean. Every problem of every stage is
collected; the run raises `InputError` with all of them, and the old site stays in place.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from site_builder.cache import FOLDER, BuildCache, PageKeys, problems_in
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
    PageHead,
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
from site_builder.write import Owner, SiteFiles, Staging, check_output_folder, clean_leftovers

Progress = Callable[[str, int, int], None]  # (stage, pages done, pages in all)
PARALLEL_FROM = 24  # pages to do: below this a process pool costs more than it saves
SPAWN_FROM = 200  # the same where workers must be spawned rather than forked
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
    """What a run produced: the pages, the problems, and what it redid. `files` holds the site
    and `pages` the pages rendered this run only for a run into memory (`run()` without a sink)."""

    files: SiteFiles
    pages: list[PageSource]
    page_count: int
    point_count: int
    problems: list[Problem]
    site_url: str | None = None
    keep: list[str] = field(default_factory=list)  # the output folder's files a build carries over
    rendered: list[str] = field(default_factory=list)  # slugs whose files were rendered this run
    recomputed: int = 0
    seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=dict)  # seconds: load, compute, render, finish

    @property
    def warnings(self) -> list[Problem]:
        return of_severity(self.problems, Severity.WARNING)

    @property
    def notices(self) -> list[Problem]:
        return of_severity(self.problems, Severity.NOTICE)


# -- where the files go ---------------------------------------------------------------------------


class Sink(Protocol):
    """Takes the site's files as they are made; `finish` makes them the site, `abort` drops them."""

    def put(self, relative: str, content: bytes) -> None: ...
    def put_file(self, relative: str, source: Path) -> None: ...
    def finish(self) -> None: ...
    def abort(self) -> None: ...


class MemorySink:
    """The site in memory (tests, small sites)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def put(self, relative: str, content: bytes) -> None:
        self.files[relative] = content

    def put_file(self, relative: str, source: Path) -> None:
        self.files[relative] = source.read_bytes()

    def finish(self) -> None:
        pass

    def abort(self) -> None:
        self.files = {}


class NoSink:
    """Nothing written and nothing kept: `check`."""

    def put(self, relative: str, content: bytes) -> None:
        pass

    def put_file(self, relative: str, source: Path) -> None:
        pass

    def finish(self) -> None:
        pass

    def abort(self) -> None:
        pass


class StagingSink:
    """The output folder's staging copy (write.Staging), swapped in by `finish`."""

    def __init__(self, out: Path, input_folders: tuple[Path, ...]) -> None:
        self.out, self.input_folders = out, input_folders
        self.staging: Staging | None = None

    def open(self, keep: list[str]) -> None:
        self.staging = Staging(self.out, keep, self.input_folders)

    def put(self, relative: str, content: bytes) -> None:
        assert self.staging is not None
        self.staging.write(relative, content)

    def put_file(self, relative: str, source: Path) -> None:
        assert self.staging is not None
        self.staging.link(relative, source)

    def finish(self) -> None:
        if self.staging is not None:
            self.staging.finish()

    def abort(self) -> None:
        if self.staging is not None:
            self.staging.abort()


# -- one page: what a worker process does ---------------------------------------------------------


@dataclass
class _Work:
    """What every worker needs, received once per worker (fork: inherited; spawn: pickled once)."""

    project: Project
    inputs: Inputs
    stubs: dict[str, Stub]
    spool: Path | None  # where pass 1 leaves each page's numbers for pass 2; None: kept in memory
    keep_pages: bool  # return each PageSource to the caller (a run into memory)
    renderer: SiteRenderer | None = None
    computed: dict[str, PageSource | None] = field(default_factory=dict)  # spool=None only


_WORK: _Work | None = None


def _start_worker(work: _Work) -> None:
    global _WORK
    _WORK = work
    gc.freeze()  # the inputs live as long as the worker: keep the collector from walking them


def _compute(slug: str) -> tuple[str, dict[str, Any] | None, list[Problem]]:
    """Pass 1 for one page: its numbers (spooled), its head, and the problems computing found."""
    work = _WORK
    assert work is not None
    page, problems = compute_one(work.stubs[slug], work.inputs)
    if work.spool is not None:
        (work.spool / f"{slug}.pickle").write_bytes(pickle.dumps(page, pickle.HIGHEST_PROTOCOL))
    else:
        work.computed[slug] = page
    head = asdict(PageHead.of(page.comparison)) if page is not None else None
    return slug, head, problems


def _render(
    task: tuple[str, list[dict[str, str]]],
) -> tuple[str, dict[str, bytes], dict[str, Any], list[Problem], PageSource | None]:
    """Pass 2 for one page: its files and index entry, and the problems rendering found."""
    slug, related = task
    work = _WORK
    assert work is not None and work.inputs.catalog is not None
    page = _computed_page(work, slug)
    assert page is not None
    log = ProblemLog()
    if work.renderer is None:
        work.renderer = SiteRenderer(work.project, work.inputs.config, work.inputs.catalog, log)
    work.renderer.log = log
    files, narrative = render_page(work.renderer, page, related)
    entry = index_entry(page, narrative, work.inputs.catalog)
    return slug, files, entry, log.problems, page if work.keep_pages else None


def _computed_page(work: _Work, slug: str) -> PageSource | None:
    """The page pass 1 computed (from the spool), or computed now (its pass 1 was a cache hit)."""
    if work.spool is None and slug in work.computed:
        return work.computed.pop(slug)
    spooled = work.spool / f"{slug}.pickle" if work.spool is not None else None
    if spooled is not None and spooled.exists():
        page: PageSource | None = pickle.loads(spooled.read_bytes())
        spooled.unlink()
        return page
    return compute_one(work.stubs[slug], work.inputs)[0]


def compute_one(stub: Stub, inputs: Inputs) -> tuple[PageSource | None, list[Problem]]:
    """One page's numbers in the comparison.json schema, or None, with the problems found."""
    log = ProblemLog()
    if inputs.catalog is None:
        return None, []
    computed = compute_page(
        stub,
        inputs.index,
        inputs.catalog,
        inputs.models,
        inputs.config,
        inputs.datasets,
        log,
        inputs.evaluations,
        inputs.sweeps,
    )
    if computed is None:
        return None, log.problems
    return PageSource(comparison_result(computed, inputs.catalog), stub.body, stub.generated), log.problems


class _Serial(Executor):
    """The pool's interface, in this process: small sites, `workers=1`, and tests."""

    def __init__(self, work: _Work) -> None:
        self.work = work

    def map(
        self,
        fn: Callable[..., Any],
        *iterables: Iterable[Any],
        timeout: float | None = None,
        chunksize: int = 1,
    ) -> Iterator[Any]:
        global _WORK
        for args in zip(*iterables, strict=True):
            previous, _WORK = _WORK, self.work
            try:
                yield fn(*args)
            finally:
                _WORK = previous


def _pool(work: _Work, pages: int, workers: int | None) -> Executor:
    count = workers or os.cpu_count() or 1
    # fork shares the loaded inputs for free; from a program with threads (serve) it is unsafe,
    # and spawn starts a fresh interpreter a worker and sends it the inputs: worth it for more pages
    fork = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if count <= 1 or pages < (PARALLEL_FROM if fork else SPAWN_FROM):
        return _Serial(work)
    method = "fork" if fork else "spawn"
    return ProcessPoolExecutor(
        count, mp_context=multiprocessing.get_context(method), initializer=_start_worker, initargs=(work,)
    )


# -- the run ----------------------------------------------------------------------------------------


class Pipeline:
    """Runs the stages for one project. With `cache`, pages whose inputs did not change are taken
    from the build cache (cache.py), and serve's instance keeps the loaded inputs between runs."""

    def __init__(
        self,
        project: Project,
        *,
        site_url: str | None = None,
        cache: bool = False,
        workers: int | None = 1,
    ) -> None:
        self.project = project
        self.site_url = site_url
        self.cache = cache
        self.workers = workers
        self._inputs_cache: tuple[Hashable, Inputs] | None = None
        self.strict = False
        self._clock = 0.0
        self._stages: dict[str, float] = {}

    def _inputs(self) -> Inputs:
        project = self.project
        key = (
            stamp(project.data, project.content / "site.yaml"),
            stamp(project.catalog_file("hardware.yaml"), project.catalog_file("models.yaml")),
        )
        if self.cache and self._inputs_cache is not None and self._inputs_cache[0] == key:
            return self._inputs_cache[1]
        inputs = load_inputs(project, self.site_url)
        if self.cache:
            self._inputs_cache = (key, inputs)
        return inputs

    def _lap(self, stage: str) -> None:
        now = time.perf_counter()
        self._stages[stage] = now - self._clock
        self._clock = now

    def _keys(self, inputs: Inputs) -> PageKeys:
        project = self.project
        catalogs = [project.catalog_file("hardware.yaml"), project.catalog_file("models.yaml")]
        theme = [*project.template_folders(), *project.guide_files().values()]
        settings = {"config": inputs.config.model_dump_json(), "date": os.environ.get("SOURCE_DATE_EPOCH")}
        return PageKeys(
            project.data, inputs.points, [*catalogs, project.content / "site.yaml"], theme, settings
        )

    def run(
        self, progress: Progress | None = None, sink: Sink | None = None, *, strict: bool = False
    ) -> SiteOutput:
        """Every file of the site, into `sink` (into memory when None); raises InputError with
        every problem found (with `strict`, every warning too), and then the sink is aborted (an
        output folder stays as it was)."""
        started = time.perf_counter()
        target: Sink = MemorySink() if sink is None else sink
        self.strict = strict
        try:
            output = self._run(target, progress)
        except BaseException:
            target.abort()
            raise
        output.seconds = time.perf_counter() - started
        return output

    def _run(self, sink: Sink, progress: Progress | None) -> SiteOutput:
        log = ProblemLog()
        self._clock = time.perf_counter()
        self._stages = {}
        inputs = self._inputs()
        self._lap("load")
        log.problems.extend(inputs.problems)
        stubs = load_stubs(self.project.content, log)
        if not stubs and not log.errors:
            log.add(
                self.project.content.as_posix(), "", "", "no comparison stubs (*.md) found", Severity.WARNING
            )
        planned = plan_pages(stubs, inputs.points, inputs.datasets, inputs.config)
        cache = BuildCache(self.project.content.parent / FOLDER) if self.cache else None
        keys = self._keys(inputs) if cache is not None and cache.usable else None
        in_memory = isinstance(sink, MemorySink)
        spool = None if in_memory else Path(tempfile.mkdtemp(prefix="site-builder-"))
        work = _Work(self.project, inputs, {s.slug: s for s in planned}, spool, keep_pages=in_memory)
        try:
            return self._passes(work, planned, cache if keys else None, keys, sink, log, progress)
        finally:
            if spool is not None:
                shutil.rmtree(spool, ignore_errors=True)

    def _passes(
        self,
        work: _Work,
        planned: list[Stub],
        cache: BuildCache | None,
        keys: PageKeys | None,
        sink: Sink,
        log: ProblemLog,
        progress: Progress | None,
    ) -> SiteOutput:
        """Pass 1 (compute every page's head), pass 2 (render every page), then the shared files."""
        inputs = work.inputs
        # pass 1: compute (or take from the cache) every page's head
        compute_keys = {s.slug: keys.compute(s) for s in planned} if keys is not None else {}
        heads: dict[str, PageHead | None] = {}
        compute_problems: dict[str, list[Problem]] = {}
        todo = []
        for stub in planned:
            hit = cache.computed(stub.slug, compute_keys[stub.slug]) if cache is not None else None
            if hit is not None:
                heads[stub.slug] = _head(hit["head"])
                compute_problems[stub.slug] = problems_in(hit["compute_problems"])
            else:
                todo.append(stub.slug)
        with _pool(work, len(todo), self.workers) as pool:  # a pool only for enough pages to do
            for done, (slug, found, problems) in enumerate(pool.map(_compute, todo, chunksize=4), 1):
                heads[slug] = _head(found)
                compute_problems[slug] = problems
                if cache is not None:
                    cache.store_compute(slug, compute_keys[slug], found, problems)
                if progress:
                    progress("computing pages", done, len(todo))
        for stub in planned:
            log.problems.extend(compute_problems[stub.slug])
        self._lap("compute")
        if log.errors or inputs.catalog is None:
            raise InputError(log.errors, log.problems)
        if isinstance(sink, StagingSink):
            sink.open(inputs.config.keep)
        # pass 2: render (or take from the cache) every page, in address order
        ordered = sorted((h for h in heads.values() if h is not None), key=lambda h: h.slug)
        related = related_links(ordered)
        entries: dict[str, dict[str, Any]] = {}
        page_paths: dict[str, list[str]] = {}
        render_problems: dict[str, list[Problem]] = {}
        pages: list[PageSource] = []
        rendered: list[str] = []
        render_keys = {}
        todo_render = []
        for head in ordered:
            if cache is not None and keys is not None:
                key = keys.render(compute_keys[head.slug], related[head.slug])
                render_keys[head.slug] = key
                hit = cache.rendered(head.slug, key)
                if hit is not None:
                    entries[head.slug] = hit["entry"]
                    render_problems[head.slug] = problems_in(hit["render_problems"])
                    page_paths[head.slug] = sorted(hit["files"])
                    for relative, (name, _, _) in sorted(hit["files"].items()):
                        sink.put_file(relative, cache.blob(name))
                    continue
            todo_render.append((head.slug, related[head.slug]))
        done = len(ordered) - len(todo_render)
        with _pool(work, len(todo_render), self.workers) as pool:
            for slug, page_files, entry, problems, page in pool.map(_render, todo_render, chunksize=4):
                entries[slug], render_problems[slug], page_paths[slug] = entry, problems, sorted(page_files)
                rendered.append(slug)
                if page is not None:
                    pages.append(page)
                errors = any(p.severity == Severity.ERROR for p in problems)
                if cache is not None and not errors:
                    blobs = cache.store_render(slug, render_keys[slug], entry, problems, page_files)
                    for relative, path in blobs.items():
                        sink.put_file(relative, path)
                else:
                    for relative, content in page_files.items():
                        sink.put(relative, content)
                done += 1
                if progress:
                    progress("rendering pages", done, len(ordered))
        for head in ordered:
            log.problems.extend(render_problems[head.slug])
        self._lap("render")
        # the files that list or serve every page, then every claim checked
        renderer = SiteRenderer(self.project, inputs.config, inputs.catalog, log)
        slugs = [h.slug for h in ordered]
        shared = render_shared(renderer, slugs, [entries[s] for s in slugs])
        claims = SiteFiles()
        for owner, owner_files in shared:  # the site's own files first: a page collides with them
            claims.claim_all(owner_files, owner)
        for slug in slugs:
            claims.claim_all(page_paths[slug], _owner(work.stubs[slug]))
        _report_collisions(claims, log)
        if log.errors:
            raise InputError(log.errors, log.problems)
        warnings = of_severity(log.problems, Severity.WARNING)
        if self.strict and warnings:
            raise InputError(warnings, log.problems)
        for _, owner_files in shared:
            for relative, content in owner_files.items():
                sink.put(relative, content)
        sink.finish()
        if cache is not None:
            cache.save()
        self._lap("finish")
        site_files = SiteFiles()
        if isinstance(sink, MemorySink):  # the site's files in the order their owners claim them
            owned = [*shared, *((_owner(work.stubs[s]), dict.fromkeys(page_paths[s], b"")) for s in slugs)]
            for owner, owner_files in owned:
                for relative in owner_files:
                    site_files.add(relative, sink.files[relative], owner)
        return SiteOutput(
            files=site_files,
            pages=sorted(pages, key=lambda p: p.comparison.slug),
            page_count=len(ordered),
            point_count=len(inputs.points),
            problems=log.problems,
            site_url=inputs.config.site_url,
            keep=inputs.config.keep,
            rendered=rendered,
            recomputed=len(todo),
            stages=dict(self._stages),
        )


def _head(stored: dict[str, Any] | None) -> PageHead | None:
    if stored is None:
        return None
    return PageHead(
        stored["slug"],
        stored["title"],
        stored["model"],
        tuple(stored["hardware"]),
        tuple(stored["sequences"]),
    )


def _owner(stub: Stub) -> Owner:
    return Owner("comparison page", stub.path or f"generated from the data: {stub.slug}")


def _report_collisions(claims: SiteFiles, log: ProblemLog) -> None:
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


def build(
    project: Project,
    *,
    strict: bool = False,
    site_url: str | None = None,
    progress: Progress | None = None,
    cache: bool = True,
    workers: int | None = None,
) -> SiteOutput:
    """Run the pipeline and write the site page by page into a staging folder, swapped in at the
    end; nothing is replaced if any problem stops it (or, with `strict`, any warning)."""
    check_output_folder(project.out, project.input_folders())
    clean_leftovers(project.out.resolve())  # a killed build's staging; a site a kill left missing
    sink = StagingSink(project.out, project.input_folders())
    return Pipeline(project, site_url=site_url, cache=cache, workers=workers).run(
        progress, sink, strict=strict
    )
