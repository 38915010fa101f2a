"""The one pipeline: load → validate → plan → compute → narrate, chart, render → write.

`build` runs it and writes the site, `check` runs it and writes nothing, `serve` runs it again
on every change. The pages stream through it, so memory does not grow with the site:

- load + validate: once per run, into one point table (read/); serve keeps the result until a file
  under data/, a catalog or content/site.yaml changes;
- plan: every stub, then the pairs the data implies;
- each page in one step (compute, narrate, chart, render), its files handed to the sink (the
  staging folder, memory, or nothing for `check`) as they come; the parent keeps only a small
  head a page (title, model, GPUs) and its index entry;
- then each page's related links, which need every other page's head, go into the slot its HTML
  left for them (`filled`), then the index, sitemap, guides and assets.

Pages are made on a process pool (one worker a core; each worker receives the loaded inputs
once; a bounded number of pages in flight) and taken from the build cache (cache.py) when their
inputs did not change. Output is byte for byte the same serial or parallel, cached or clean.
Every problem of every stage is collected; the run raises `InputError` with all of them, and
the old site stays in place.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import multiprocessing
import os
import pickle
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from site_builder.cache import (
    FOLDER,
    BuildCache,
    DataFiles,
    PageKeys,
    blob_stamp,
    code_digest,
    digest,
    file_digest,
    keep_blob,
    problems_in,
    problems_out,
)
from site_builder.catalog import HardwareCatalog, ModelInfo, load_hardware, load_models
from site_builder.compute import compute_page
from site_builder.content import SiteConfig, Stub, load_site_config, load_stubs
from site_builder.plan import PlanFacts, plan_pages
from site_builder.present.result import comparison_result, shown_points
from site_builder.present.schema import ComparisonResult
from site_builder.problems import InputError, Problem, ProblemLog, Severity, of_severity
from site_builder.project import Project
from site_builder.read.evals import EvalRun
from site_builder.read.provenance import DatasetInfo
from site_builder.read.sweeps import SweepRow
from site_builder.read.table import PointTable
from site_builder.render.pages import (
    RELATED_SLOT,
    PageHead,
    PageSource,
    index_entry,
    page_html,
    related_links,
    render_page,
)
from site_builder.render.site import SiteRenderer, render_shared
from site_builder.validate import validate_points
from site_builder.write import Owner, SiteFiles, Staging, check_output_folder, clean_leftovers, rewrite_file

if TYPE_CHECKING:
    from site_builder.read.table import PointTable

Progress = Callable[[str, int, int], None]  # (stage, pages done, pages in all)
PARALLEL_FROM = 24  # pages to do: below this a process pool costs more than it saves
SPAWN_FROM = 200  # the same where workers must be spawned rather than forked
CHUNK = 4  # pages a worker takes at a time, at least (but the last chunk) …
CHUNK_MAX = 16  # … and at most: one model and GPU's pages, up to this many, in one chunk
AHEAD = 64  # pages in flight at most (made, or being made, and not yet written)
WORKER_GC_YOUNG = 20_000  # net allocations between a worker's young collections (see _start_worker)

Item = TypeVar("Item")
Stamp = tuple[tuple[str, int, int, int, int], ...]
Numbers = tuple[ComparisonResult, list[Problem]]  # a page's numbers and the problems computing found


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
    """Everything loaded from data/ and content/site.yaml: the points that pages select from."""

    config: SiteConfig
    catalog: HardwareCatalog | None
    models: dict[str, ModelInfo]
    table: PointTable  # the validated points (read/table.py)
    evaluations: list[EvalRun]
    datasets: dict[str, DatasetInfo]
    problems: list[Problem]
    sweeps: list[SweepRow] = field(default_factory=list)


def load_inputs(
    project: Project,
    site_url: str | None,
    skip: Callable[[str], bool] | None = None,
    *,
    results: bool = True,
) -> Inputs:
    """Load and validate: result files (but those `skip` refuses; none without `results`),
    catalogs and the site config, every problem logged."""
    log = ProblemLog()
    config = load_site_config(project.content, log, site_url)
    catalog = load_hardware(project.catalog_file("hardware.yaml"), log)
    models = load_models(project.catalog_file("models.yaml"), log)
    if not results:  # a rebuild that plans from the cache's summary: not even pandas is imported
        return Inputs(config, catalog, models, PointTable.from_records([]), [], {}, log.problems)
    from site_builder.read.load import load_results

    loaded = load_results(project.data, log, exclude=config.exclude, skip=skip)
    table = validate_points(loaded.table, catalog, log)
    return Inputs(
        config, catalog, models, table, loaded.evaluations, loaded.datasets, log.problems, loaded.sweeps
    )


@dataclass
class InputsSummary:
    """What a run needs of the loaded inputs before it knows which pages to make: every problem
    loading found, the planning facts, the data files each model's points came from, and how many
    points there are. The build cache keeps it under a digest of every input file, so a rebuild
    whose data did not change loads the points of the pages it makes only (none, if it makes none)."""

    problems: list[Problem]
    facts: PlanFacts
    files_of_model: dict[str, set[str]]
    point_count: int

    @classmethod
    def of(cls, inputs: Inputs) -> InputsSummary:
        assert inputs.table is not None
        return cls(
            inputs.problems,
            PlanFacts.of(inputs.table, inputs.datasets),
            inputs.table.files_of_model(),
            len(inputs.table),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "problems": problems_out(self.problems),
            "facts": self.facts.to_json(),
            "files_of_model": {model: sorted(files) for model, files in sorted(self.files_of_model.items())},
            "point_count": self.point_count,
        }

    @classmethod
    def from_json(cls, stored: dict[str, Any]) -> InputsSummary:
        return cls(
            problems_in(stored["problems"]),
            PlanFacts.from_json(stored["facts"]),
            {model: set(files) for model, files in stored["files_of_model"].items()},
            stored["point_count"],
        )

    def files_for(self, stubs: Iterable[Stub]) -> set[str] | None:
        """The data files with points that these pages may select (None: any of them may)."""
        wanted: set[str] = set()
        for stub in stubs:
            models = stub.models()
            if models is None:
                return None
            wanted |= {f for m, files in self.files_of_model.items() if m.lower() in models for f in files}
        return wanted


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
    recomputed: int = 0  # pages whose numbers were computed (not kept by the cache)
    seconds: float = 0.0
    # seconds: load, pages, related, finish; and the CPU seconds workers spent computing and rendering
    stages: dict[str, float] = field(default_factory=dict)

    @property
    def warnings(self) -> list[Problem]:
        return of_severity(self.problems, Severity.WARNING)

    @property
    def notices(self) -> list[Problem]:
        return of_severity(self.problems, Severity.NOTICE)


def filled(page: bytes, slot: str, content: bytes) -> bytes:
    """The page with its last `slot` replaced by `content` (as it was if the theme left no slot)."""
    before, found, after = page.rpartition(slot.encode())
    return before + content + after if found else page


# -- where the files go ---------------------------------------------------------------------------


class Sink(Protocol):
    """Takes the site's files as they are made; `finish` makes them the site, `abort` drops them."""

    def put(self, relative: str, content: bytes) -> None: ...
    def put_file(self, relative: str, source: Path) -> None: ...
    def fill(self, relative: str, slot: str, content: bytes) -> None: ...
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

    def fill(self, relative: str, slot: str, content: bytes) -> None:
        if relative in self.files:
            self.files[relative] = filled(self.files[relative], slot, content)

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

    def fill(self, relative: str, slot: str, content: bytes) -> None:
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
        """The staging folder: the site the last build replaced, reused (write.Staging)."""
        self.staging = Staging(self.out, keep, self.input_folders, reuse=True)

    def put(self, relative: str, content: bytes) -> None:
        assert self.staging is not None
        self.staging.write(relative, content)

    def put_file(self, relative: str, source: Path) -> None:
        assert self.staging is not None
        self.staging.link(relative, source)

    def path(self, relative: str) -> str:
        """Where a file of the site is in the staging folder (for a worker to change it there)."""
        assert self.staging is not None
        return self.staging.path(relative)

    def fill(self, relative: str, slot: str, content: bytes) -> None:
        assert self.staging is not None
        self.staging.rewrite(relative, lambda old: filled(old, slot, content))

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
    keep_pages: bool  # return each PageSource to the caller (a run into memory)
    renderer: SiteRenderer | None = None
    # pages whose numbers the cache kept (a written stub whose prose alone changed): rendered
    # from them, with the problems computing them found, without computing again
    known: dict[str, Numbers] = field(default_factory=dict)
    keep_numbers: bool = False  # hand back a written stub's numbers, pickled, for the cache
    compiled: Path | None = None  # where Jinja keeps the compiled theme (the build cache's)
    # where a worker keeps its pages' files as the build cache's blobs (a build into a folder,
    # cached): written there by the worker, beside the others, instead of sent back
    blobs: Path | None = None

    def new_renderer(self, log: ProblemLog) -> SiteRenderer:
        assert self.inputs.catalog is not None
        return SiteRenderer(self.project, self.inputs.config, self.inputs.catalog, log, self.compiled)


_WORK: _Work | None = None


def _start_worker(work: _Work) -> None:
    global _WORK
    _WORK = work
    # a page makes and drops hundreds of thousands of objects; collecting the young every 700 net
    # allocations (the default) cost 2 % of a worker's instructions, every 20,000 two thirds less
    gc.set_threshold(WORKER_GC_YOUNG, *gc.get_threshold()[1:])


@dataclass
class _PageDone:
    """One page, computed and rendered, as a worker hands it back: its head (None: not
    published), files (the HTML with the related slot still in it), index entry, problems, and
    the CPU seconds each step took."""

    slug: str
    head: PageHead | None
    files: dict[str, bytes]
    entry: dict[str, Any] | None
    problems: list[Problem]
    page: PageSource | None
    compute_seconds: float
    render_seconds: float
    numbers: bytes | None = None  # pickled Numbers: a written stub's, for the cache
    kept: dict[str, list[Any]] | None = None  # the files' blob stamps, when the worker kept them

    @property
    def paths(self) -> list[str]:
        return sorted(self.kept if self.kept is not None else self.files)


def _page(slug: str) -> _PageDone:
    """One page from its stub to its files, in one step: the related links, which need every
    other page, are filled into the HTML's slot after all pages are done (`fill_related`)."""
    work = _WORK
    assert work is not None
    started = time.process_time()
    stub = work.stubs[slug]
    page, problems = compute_one(stub, work.inputs)
    computed = time.process_time()
    if page is None or work.inputs.catalog is None:
        return _PageDone(slug, None, {}, None, problems, None, computed - started, 0.0)
    log = ProblemLog()
    files, narrative = render_page(_worker_renderer(log), page)
    entry = index_entry(page, narrative, work.inputs.catalog)
    head = PageHead.of(page.comparison)
    kept = page if work.keep_pages else None
    numbers = kept_files = None
    found = [*problems, *log.problems]
    rendered = time.process_time()
    if work.blobs is not None and not _errors(found):
        kept_files = {name: blob_stamp(keep_blob(work.blobs, content)) for name, content in files.items()}
        files = {}
    return _PageDone(
        slug,
        head,
        files,
        entry,
        found,
        kept,
        computed - started,
        rendered - computed,
        numbers,
        kept_files,
    )


def _errors(problems: Iterable[Problem]) -> bool:
    return any(p.severity == Severity.ERROR for p in problems)


def compute_one(stub: Stub, inputs: Inputs) -> tuple[PageSource | None, list[Problem]]:
    """One page's numbers in the comparison.json schema, or None, with the problems found."""
    log = ProblemLog()
    if inputs.catalog is None:
        return None, []
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
        return None, log.problems
    comparison = comparison_result(computed, inputs.catalog)
    return PageSource(comparison, shown_points(computed), stub.body, stub.generated), log.problems


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


def _forks(workers: int | None) -> bool:
    """Whether pages are made in this process or in forked workers, which share what it holds."""
    return (workers or os.cpu_count() or 1) <= 1 or _can_fork()


def _can_fork_early(workers: int | None) -> bool:
    """Whether a worker may be forked before the points are loaded (`_early_worker`): more than
    one core to use, and fork safe here."""
    return (workers or os.cpu_count() or 1) > 1 and _can_fork()


def _can_fork() -> bool:
    # fork shares the loaded inputs for free; from a program with threads (serve) it is unsafe,
    # and spawn starts a fresh interpreter a worker and sends it the inputs: worth it for more pages
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _pool(work: _Work, pages: int, workers: int | None) -> Executor:
    count = workers or os.cpu_count() or 1
    fork = _can_fork()
    if count <= 1 or pages < (PARALLEL_FROM if fork else SPAWN_FROM):
        return _Serial(work)
    method = "fork" if fork else "spawn"
    return _workers(work, count, method)


def _workers(work: _Work, count: int, method: str) -> ProcessPoolExecutor:
    """A pool of `count` worker processes started by `method`, each given `work` once."""
    return ProcessPoolExecutor(
        count, mp_context=multiprocessing.get_context(method), initializer=_start_worker, initargs=(work,)
    )


def _early_worker(work: _Work) -> ProcessPoolExecutor:
    """One worker forked now, before the points a rebuild's few pages need are loaded: it imports
    scipy and compiles the theme (≈ 0.5 s) while this process loads them and links the pages the
    cache holds."""
    pool = _workers(work, 1, "fork")
    pool.submit(_warm_up)  # forks it now
    return pool


def _warm_up() -> None:
    """In an early worker: what computing and rendering a page first needs."""
    work = _WORK
    assert work is not None
    if work.renderer is None and work.inputs.catalog is not None:
        work.renderer = work.new_renderer(ProblemLog())
        work.renderer.compile_templates()


def _page_given(inputs: Inputs, slug: str) -> _PageDone:
    """`_page` in an early worker, given the inputs loaded after it was forked."""
    assert _WORK is not None
    _WORK.inputs = inputs
    return _page(slug)


def _chunk(fn: Callable[[str], _PageDone], slugs: list[str]) -> list[_PageDone]:
    return [fn(slug) for slug in slugs]


def _chunks(slugs: Iterable[str], group: Callable[[str], Hashable]) -> list[list[str]]:
    """The pages in order, cut into the chunks workers take: a group's pages (one model and GPU,
    whose sides and their curves they share) in one chunk, so one worker derives what they share
    once (a quarter of a page's CPU at 990 pages); small groups together, CHUNK pages at least;
    CHUNK_MAX at most."""
    chunks: list[list[str]] = []
    last: Hashable = None
    for slug in slugs:
        key = group(slug)
        if chunks and (key == last or len(chunks[-1]) < CHUNK) and len(chunks[-1]) < CHUNK_MAX:
            chunks[-1].append(slug)
        else:
            chunks.append([slug])
        last = key
    return chunks


def _in_order(pool: Executor, fn: Callable[[str], _PageDone], chunks: list[list[str]]) -> Iterator[_PageDone]:
    """`fn` over the chunks' pages, results in order, at most AHEAD pages in flight (and a
    chunk): a worker's finished pages wait for the writer in a bounded queue, so memory does not
    grow with the site."""
    if isinstance(pool, _Serial):
        yield from pool.map(fn, [slug for chunk in chunks for slug in chunk])
        return
    pending: deque[tuple[int, Future[list[_PageDone]]]] = deque()
    in_flight = 0
    for chunk in chunks:
        while pending and in_flight + len(chunk) > AHEAD:
            size, future = pending.popleft()
            yield from future.result()
            in_flight -= size
        pending.append((len(chunk), pool.submit(_chunk, fn, chunk)))
        in_flight += len(chunk)
    while pending:
        yield from pending.popleft()[1].result()


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
        lazy: bool = False,
    ) -> None:
        self.project = project
        self.site_url = site_url
        self.cache = cache
        self.workers = workers
        self._inputs_cache: tuple[Hashable, Inputs] | None = None
        # a build (not serve, which keeps its inputs) may plan from the cache's summary of the
        # data and load only the points of the pages it makes
        self.lazy = lazy
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

    def _keys(self, config: SiteConfig, data: DataFiles, summary: InputsSummary) -> PageKeys:
        project = self.project
        theme = [*project.template_folders(), *project.guide_files().values()]
        settings = {"config": config.model_dump_json(), "date": os.environ.get("SOURCE_DATE_EPOCH")}
        return PageKeys(data, summary.files_of_model, self._settings_files(), theme, settings)

    def _settings_files(self) -> list[Path]:
        project = self.project
        return [
            project.catalog_file("hardware.yaml"),
            project.catalog_file("models.yaml"),
            project.content / "site.yaml",
        ]

    def _inputs_key(self, data: DataFiles) -> str:
        """A digest of everything loading reads: every data file, the catalogs, the site config."""
        settings = [file_digest(p) for p in self._settings_files()]
        return digest(code_digest(), sorted(data.hashes.items()), settings, self.site_url)

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
        cache = BuildCache(self.project.content.parent / FOLDER) if self.cache else None
        cache = cache if cache is not None and cache.usable else None
        data = DataFiles(self.project.data) if cache is not None else None
        inputs_key = self._inputs_key(data) if data is not None else ""
        stored = cache.inputs(inputs_key) if cache is not None and self.lazy else None
        if stored is not None:  # the data did not change: its points are loaded for the pages made
            summary = InputsSummary.from_json(stored)
            inputs = load_inputs(self.project, self.site_url, results=False)
            inputs.problems = summary.problems
        else:
            inputs = self._inputs()
            summary = InputsSummary.of(inputs)
            if cache is not None:
                cache.store_inputs(inputs_key, summary.to_json())
        self._lap("load")
        log.problems.extend(inputs.problems)
        stubs = load_stubs(self.project.content, log)
        if not stubs and not log.errors:
            log.add(
                self.project.content.as_posix(), "", "", "no comparison stubs (*.md) found", Severity.WARNING
            )
        planned = plan_pages(stubs, summary.facts, inputs.config)
        keys = self._keys(inputs.config, data, summary) if data is not None else None
        stubs_by_slug = {s.slug: s for s in planned}
        work = _Work(self.project, inputs, stubs_by_slug, keep_pages=isinstance(sink, MemorySink))
        lazy = stored is not None
        return self._pages(work, planned, cache, keys, sink, log, progress, summary if lazy else None)

    def _problems_from_all_points(
        self, work: _Work, slugs: list[str], page_problems: dict[str, list[Problem]]
    ) -> None:
        """A page that fails names what the whole data holds instead (select.explain_empty), so
        a failing page's problems are found again with every point loaded (the build stops)."""
        inputs = load_inputs(self.project, self.site_url)
        for slug in slugs:
            if _errors(page_problems[slug]):
                page_problems[slug] = compute_one(work.stubs[slug], inputs)[1]

    def _load_points_for(self, work: _Work, summary: InputsSummary, slugs: list[str]) -> None:
        """Load the points the pages to make may select (every point of their models)."""
        wanted = summary.files_for(work.stubs[s] for s in slugs)
        with_points = {f for files in summary.files_of_model.values() for f in files}
        skip = None if wanted is None else (lambda name: name in with_points and name not in wanted)
        loaded = load_inputs(self.project, self.site_url, skip=skip)
        loaded.problems = summary.problems  # every problem of the whole data, as a clean load found
        work.inputs = loaded

    def _pages(
        self,
        work: _Work,
        planned: list[Stub],
        cache: BuildCache | None,
        keys: PageKeys | None,
        sink: Sink,
        log: ProblemLog,
        progress: Progress | None,
        lazy: InputsSummary | None = None,
    ) -> SiteOutput:
        """Every page computed and rendered (or taken from the cache) and written as it comes,
        its HTML with the related slot; then the related links filled in, then the shared files."""
        inputs = work.inputs
        if isinstance(sink, StagingSink):
            sink.open(inputs.config.keep)
        page_keys = {s.slug: keys.page(s) for s in planned} if keys is not None else {}
        heads: dict[str, PageHead | None] = {}
        entries: dict[str, dict[str, Any]] = {}
        page_paths: dict[str, list[str]] = {}
        page_problems: dict[str, list[Problem]] = {}
        pages: list[PageSource] = []
        in_cache: set[str] = set()  # pages whose files the cache holds (their HTML is linked from it)
        todo = []
        hits: list[tuple[str, dict[str, Any]]] = []
        for stub in planned:
            hit = cache.page(stub.slug, page_keys[stub.slug]) if cache is not None else None
            if cache is None or hit is None:
                todo.append(stub.slug)
            else:
                hits.append((stub.slug, hit))
        cpu = {"compute": 0.0, "render": 0.0}
        # pages on one model and GPU share their sides' points: made one after another, they land
        # on one worker in one chunk, where what they share is still in its caches
        nearby = sorted(todo, key=lambda slug: _locality(work.stubs[slug]))
        numbers_keys = {s: keys.numbers(work.stubs[s]) for s in todo if work.stubs[s].path} if keys else {}
        if cache is not None:
            work.keep_numbers = True
            work.compiled = cache.templates
            work.blobs = cache.blobs if isinstance(sink, StagingSink) else None
        to_compute = [s for s in todo if s not in work.known]
        with contextlib.ExitStack() as stack:
            early = None
            few = lazy is not None and len(to_compute) > 0 and len(todo) < PARALLEL_FROM
            if few and _can_fork_early(self.workers):  # a rebuild: its scipy imported meanwhile
                early = stack.enter_context(_early_worker(work))
            for slug, hit in hits:
                assert cache is not None
                heads[slug], page_problems[slug] = _head(hit["head"]), problems_in(hit["problems"])
                if hit["head"] is not None:
                    entries[slug], page_paths[slug] = hit["entry"], sorted(hit["files"])
                    in_cache.add(slug)
                    for relative, (name, _, _) in sorted(hit["files"].items()):
                        if relative != page_html(slug):  # the HTML once its related links are in
                            sink.put_file(relative, cache.blob(name))
            if lazy is not None and to_compute:
                self._load_points_for(work, lazy, to_compute)
            if early is None and todo and inputs.catalog is not None and _forks(self.workers):
                # the templates compiled once, here: forked workers share them (spawned ones compile)
                work.renderer = work.new_renderer(ProblemLog())
                work.renderer.compile_templates()
            # a pool only for enough pages to do; an early worker was forked before the points
            # were loaded, so each page it makes is sent them
            pool = early or stack.enter_context(_pool(work, len(todo), self.workers))
            make = _page if early is None else functools.partial(_page_given, work.inputs)
            chunks = _chunks(nearby, lambda slug: _locality(work.stubs[slug])[:2])
            for done, result in enumerate(_in_order(pool, make, chunks), 1):
                slug = result.slug
                heads[slug], page_problems[slug] = result.head, result.problems
                cpu["compute"] += result.compute_seconds
                cpu["render"] += result.render_seconds
                if result.page is not None:
                    pages.append(result.page)
                if result.head is not None and result.entry is not None:
                    entries[slug], page_paths[slug] = result.entry, result.paths
                if cache is not None and not _errors(result.problems):
                    head = _head_out(result.head) if result.head is not None else None
                    numbers = (numbers_keys[slug], result.numbers) if result.numbers is not None else None
                    files = result.kept if result.kept is not None else result.files
                    blobs = cache.store_page(
                        slug, page_keys[slug], head, result.entry, result.problems, files, numbers
                    )
                    in_cache.add(slug)
                    for relative, path in blobs.items():
                        if relative != page_html(slug):  # the HTML once its related links are in
                            sink.put_file(relative, path)
                else:
                    for relative, content in result.files.items():
                        sink.put(relative, content)
                if progress:
                    progress("building pages", done, len(todo))
            if lazy is not None and any(_errors(page_problems[s]) for s in todo):
                self._problems_from_all_points(work, todo, page_problems)
            for stub in planned:
                log.problems.extend(page_problems[stub.slug])
            self._lap("pages")
            self._stages.update({f"{step} (CPU, all workers)": seconds for step, seconds in cpu.items()})
            if log.errors or inputs.catalog is None:
                raise InputError(log.errors, log.problems)
            # every page is known: each one's related links go into its slot
            ordered = sorted((h for h in heads.values() if h is not None), key=lambda h: h.slug)
            renderer = work.new_renderer(log)
            linked = related_links(ordered)
            fill = [(s, links) for s, links in linked.items() if page_html(s) in page_paths[s]]
            _fill_related(pool, fill, cache, in_cache, sink, renderer, log)
        self._lap("related")
        # the files that list or serve every page, then every claim checked
        slugs = [h.slug for h in ordered]
        if cache is not None:
            renderer.known_guides_html = cache.markdown()
        shared = render_shared(renderer, slugs, [entries[s] for s in slugs])
        if cache is not None:
            cache.store_markdown(renderer.guides_html)
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
            point_count=lazy.point_count if lazy is not None else len(inputs.table),
            problems=log.problems,
            site_url=inputs.config.site_url,
            keep=inputs.config.keep,
            rendered=[s for s in todo if heads[s] is not None],
            recomputed=len(to_compute),
            stages=dict(self._stages),
        )


def _known_numbers(cache: BuildCache, numbers_keys: dict[str, str]) -> dict[str, Numbers]:
    """The numbers the cache kept for these pages' keys (a written stub whose prose alone changed)."""
    known: dict[str, Numbers] = {}
    for slug, key in numbers_keys.items():
        kept = cache.numbers(slug, key)
        if kept is None:
            continue
        try:
            known[slug] = pickle.loads(kept)  # our own file, stamped when written: as trusted as the code
        except Exception:  # damaged beyond its stamp (or made by older code): compute it again
            continue
    return known


def _locality(stub: Stub) -> tuple[str, str, str]:
    return (str(stub.spec.model).lower(), str(stub.spec.hardware).lower(), stub.slug)


FILL_CHUNK = 64  # pages whose related links a worker fills at a time


def _fill_related(
    pool: Executor,
    fill: list[tuple[str, list[dict[str, str]]]],
    cache: BuildCache | None,
    in_cache: set[str],
    sink: Sink,
    renderer: SiteRenderer,
    log: ProblemLog,
) -> None:
    """Each page's related links into its HTML: a page the cache holds filled with these links is
    a link to it; one the cache holds unfilled is filled and kept by the workers; a page made
    this run without the cache is filled where it was written: by the workers (or this process,
    when it makes the pages itself) in the staging folder, in place; else in the sink."""
    jobs: list[tuple[str, str, list[dict[str, str]]]] = []
    staged: list[tuple[str, list[dict[str, str]]]] = []
    for slug, links in fill:
        html = page_html(slug)
        if cache is None or slug not in in_cache:
            if isinstance(sink, StagingSink):
                staged.append((sink.path(html), links))
            else:
                sink.fill(html, RELATED_SLOT, renderer.related_section(links))
            continue
        name = cache.pages[slug]["files"][html][0]
        found = cache.filled(slug, name, links)
        if found is not None:
            sink.put_file(html, found)
        else:
            jobs.append((slug, name, links))
    for problems in pool.map(_fill_in_place, _cut(staged, FILL_CHUNK)):
        log.problems.extend(problems)
    if cache is None or not jobs:
        return
    chunks = _cut(jobs, FILL_CHUNK)
    done = pool.map(functools.partial(_fill, cache.blobs), chunks)
    for chunk, (stamps, problems) in zip(chunks, done, strict=True):
        log.problems.extend(problems)
        for (slug, name, links), stamp in zip(chunk, stamps, strict=True):
            sink.put_file(page_html(slug), cache.store_filled(slug, name, links, stamp))


def _filled_related(page: bytes, section: bytes) -> bytes:
    return filled(page, RELATED_SLOT, section)


def _cut(items: list[Item], size: int) -> list[list[Item]]:
    return [items[n : n + size] for n in range(0, len(items), size)]


def _worker_renderer(log: ProblemLog) -> SiteRenderer:
    """In a worker (or `_Serial`): its renderer (made once), reporting to `log`."""
    work = _WORK
    assert work is not None
    if work.renderer is None:
        work.renderer = work.new_renderer(log)
    work.renderer.log = log
    return work.renderer


def _fill_in_place(jobs: list[tuple[str, list[dict[str, str]]]]) -> list[Problem]:
    """In a worker: each page's HTML in the staging folder (this build's own file) with its
    related links in, written over where it is; the problems rendering the section found."""
    log = ProblemLog()
    renderer = _worker_renderer(log)
    for path, links in jobs:
        rewrite_file(path, functools.partial(_filled_related, section=renderer.related_section(links)))
    return log.problems


def _fill(
    blobs: Path, jobs: list[tuple[str, str, list[dict[str, str]]]]
) -> tuple[list[list[Any]], list[Problem]]:
    """In a worker: each page's HTML (a blob in `blobs`) with its related links in, kept as a
    blob; the stamps, and the problems rendering the section found."""
    log = ProblemLog()
    renderer = _worker_renderer(log)
    stamps = []
    for _, name, links in jobs:
        page = filled((blobs / name).read_bytes(), RELATED_SLOT, renderer.related_section(links))
        stamps.append(blob_stamp(keep_blob(blobs, page)))
    return stamps, log.problems


def _head_out(head: PageHead) -> dict[str, Any]:
    """The head as the cache keeps it (`_head` reads it back): `asdict` without its deep copy."""
    return {
        "slug": head.slug,
        "title": head.title,
        "model": head.model,
        "hardware": list(head.hardware),
        "sequences": list(head.sequences),
    }


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
    return Pipeline(project, site_url=site_url, cache=cache, workers=workers, lazy=True).run(
        progress, sink, strict=strict
    )
