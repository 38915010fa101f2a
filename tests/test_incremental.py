"""The streaming, parallel and cached build (pipeline.py, cache.py): the same bytes serial or
parallel, cached or clean; a change redoes exactly the pages that depend on it; pages stream
through the pipeline; the cache folder is safe to delete and never takes over a user's folder."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment
from markupsafe import Markup

from site_builder import pipeline
from site_builder.cache import FOLDER, TAG
from site_builder.pipeline import Pipeline, SiteOutput, StagingSink, build, filled
from site_builder.problems import InputError
from site_builder.project import Project
from site_builder.render.environment import safe_markdown
from site_builder.render.pages import RELATED_SLOT, PageHead
from tests.factories import SHARED_EDITS, edit_shared_input

# a second model on another GPU: the build discovers its fp4-vs-fp8 page from the data
OTHER_CSV = """model,hardware,framework,precision,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms
llama70b,h100,vllm,fp8,8,8,1024,1024,4,200.0,12.0
llama70b,h100,vllm,fp8,8,8,1024,1024,32,1100.0,30.0
llama70b,h100,vllm,fp4,8,8,1024,1024,4,260.0,10.0
llama70b,h100,vllm,fp4,8,8,1024,1024,32,1500.0,26.0
"""
STUB_PAGE = "h200-fp4-vs-fp8"


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def inodes(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


@pytest.fixture
def two_models(project: Path) -> Path:
    (project / "data" / "results" / "other.csv").write_text(OTHER_CSV)
    return project


def _build(project: Path, out: str, **options: object) -> SiteOutput:
    return build(Project.under(project, project / out), **options)  # type: ignore[arg-type]


def _clean(project: Path) -> dict[str, bytes]:
    """What a build from nothing (no cache) writes now."""
    shutil.rmtree(project / "clean", ignore_errors=True)
    _build(project, "clean", cache=False)
    return tree(project / "clean")


def test_a_second_model_gives_a_generated_page(two_models: Path) -> None:
    output = _build(two_models, "site")
    slugs = sorted(p.name for p in (two_models / "site").iterdir() if (p / "comparison.json").is_file())
    assert output.page_count == len(slugs) == 2 and STUB_PAGE in slugs


@pytest.mark.parametrize(
    ("change", "recomputed", "rendered"),
    [
        ("nothing", 0, []),
        ("stub body", 0, [STUB_PAGE]),  # the written stub's numbers are kept: its prose changed
        ("other model's data", 1, ["other"]),
        ("stub model's data", 1, [STUB_PAGE]),
        # a page is computed and rendered in one step, keyed on the theme too (the spool between
        # two steps cost more than computing again), so a theme edit redoes both, but for the
        # written stub, whose numbers are kept
        ("template", 1, ["both"]),
        ("guide", 1, ["both"]),
        ("catalog", 2, ["both"]),
        ("site config", 2, ["both"]),
    ],
)
def test_a_change_redoes_exactly_the_pages_that_depend_on_it(
    two_models: Path, change: str, recomputed: int, rendered: list[str]
) -> None:
    first = _build(two_models, "site")
    assert first.recomputed == 2 and len(first.rendered) == 2
    other = next(s for s in first.rendered if s != STUB_PAGE)
    before = inodes(two_models / "site")
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    if change == "stub body":
        stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited."))
    elif change == "other model's data":
        csv = two_models / "data" / "results" / "other.csv"
        csv.write_text(csv.read_text().replace("1500.0", "1600.0"))
    elif change == "stub model's data":
        csv = two_models / "data" / "results" / "lab.csv"
        csv.write_text(csv.read_text().replace("2900.0", "3000.0"))
    elif change in SHARED_EDITS:
        edit_shared_input(two_models, change)
    second = _build(two_models, "site")
    expected = sorted(
        [STUB_PAGE, other] if rendered == ["both"] else [other if r == "other" else r for r in rendered]
    )
    assert (second.recomputed, sorted(second.rendered)) == (recomputed, expected)
    assert tree(two_models / "site") == _clean(two_models)
    after = inodes(two_models / "site")
    for page in {STUB_PAGE, other} - set(expected):  # an untouched page's files are not rewritten
        files = [f for f in after if f.startswith(f"{page}/")]
        assert files and all(after[f] == before[f] for f in files)


def test_serial_parallel_and_cached_builds_write_the_same_bytes(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "PARALLEL_FROM", 0)  # a pool even for two pages
    monkeypatch.setattr(pipeline, "SPAWN_FROM", 0)
    _build(two_models, "serial", cache=False, workers=1)
    _build(two_models, "parallel", cache=False, workers=2)
    first = tree(two_models / "parallel")
    _build(two_models, "parallel", cache=False, workers=2)  # over its spare: written in place
    assert tree(two_models / "parallel") == first
    _build(two_models, "cached", workers=2)
    _build(two_models, "cached", workers=2)  # every page from the cache
    serial = tree(two_models / "serial")
    assert serial == tree(two_models / "parallel") == tree(two_models / "cached")
    default = Pipeline(Project.under(two_models)).run()  # into memory, as tests and serve use it
    assert {k: v for k, v in serial.items() if k != ".site-builder-output"} == dict(default.files)


def test_the_cache_folder_is_safe_to_delete(two_models: Path) -> None:
    _build(two_models, "site")
    shutil.rmtree(two_models / FOLDER)
    output = _build(two_models, "site")
    assert output.recomputed == 2 and tree(two_models / "site") == _clean(two_models)


def test_a_folder_of_the_cache_name_that_is_not_ours_is_left_alone(two_models: Path) -> None:
    mine = two_models / FOLDER
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    _build(two_models, "site")
    output = _build(two_models, "site")
    assert output.recomputed == 2  # built uncached, every time
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"] and not (mine / TAG).exists()


def test_pages_stream_through_the_pipeline(two_models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's files reach the staging folder before the next page is rendered, and the run
    keeps none of them (its output holds no files): memory does not grow with the site."""
    events: list[str] = []
    render_page = pipeline.render_page  # type: ignore[attr-defined]

    def rendering(renderer, page):  # type: ignore[no-untyped-def]
        events.append(f"render {page.comparison.slug}")
        return render_page(renderer, page)

    class Recording(StagingSink):
        def put(self, relative: str, content: bytes) -> None:
            events.append(f"write {relative.split('/')[0]}")
            super().put(relative, content)

    monkeypatch.setattr(pipeline, "render_page", rendering)
    project = Project.under(two_models)
    output = Pipeline(project, workers=1).run(sink=Recording(project.out, project.input_folders()))
    pages = [e.split()[1] for e in events if e.startswith("render")]
    assert len(pages) == 2 and len(output.files) == 0 and output.pages == []
    for slug, following in zip(pages, [*pages[1:], None], strict=True):
        start = events.index(f"render {slug}")
        end = events.index(f"render {following}") if following else len(events)
        assert {f"write {slug}"} <= set(events[start:end])  # written before the next one renders
        assert f"write {slug}" not in events[end:]


def test_check_and_serve_run_the_same_pipeline_without_writing(two_models: Path) -> None:
    from site_builder.check import run_check

    report = run_check(Project.under(two_models))
    assert report.pages == 2 and not (two_models / "site").exists()


def test_a_failed_cached_build_leaves_the_previous_site(two_models: Path) -> None:
    _build(two_models, "site")
    before = tree(two_models / "site")
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("kind: precision", "kind: nonsense"))
    with pytest.raises(Exception, match="kind"):
        _build(two_models, "site")
    assert tree(two_models / "site") == before
    assert not [p for p in two_models.iterdir() if p.name.startswith(".site.")]


SECOND_STUB = """---
kind: precision
model: dsr1
hardware: h200
slug: h200-fp4-vs-fp8-sglang
title: "H200: FP4 vs FP8 on SGLang"
sides:
  - {label: FP4, precision: fp4, framework: sglang}
  - {label: FP8, precision: fp8, framework: sglang}
---
The same pair, on one engine.
"""


def related_hrefs(page: Path) -> list[str]:
    html = page.read_text()
    section = html[html.index('id="related-heading"') :]
    return re.findall(r'<li><a href="([^"]+)"', section[: section.index("</section>")])


def test_a_new_page_reaches_its_neighbours_related_links_without_redoing_them(project: Path) -> None:
    """Related links need every page, so they are filled in after the pages are made: adding a
    page on the same model and GPU changes its neighbour's links, but the neighbour is not made
    again, and the site is byte for byte what a clean build writes."""
    first = _build(project, "site")
    assert first.recomputed == 1
    # the stub's page links only to itself at its other sequence (1k/8k)
    alone = related_hrefs(project / "site" / STUB_PAGE / "index.html")
    assert alone == ["index.html?seq=1k/8k"]
    (project / "content" / "h200-fp4-vs-fp8-sglang.md").write_text(SECOND_STUB)
    second = _build(project, "site")
    assert (second.recomputed, second.rendered) == (1, ["h200-fp4-vs-fp8-sglang"])
    assert related_hrefs(project / "site" / STUB_PAGE / "index.html") == [
        *alone,
        "../h200-fp4-vs-fp8-sglang/index.html",
    ]
    assert (
        related_hrefs(project / "site" / "h200-fp4-vs-fp8-sglang" / "index.html")[-1]
        == f"../{STUB_PAGE}/index.html"
    )
    assert tree(project / "site") == _clean(project)
    pages = (STUB_PAGE, "h200-fp4-vs-fp8-sglang")
    before = {f: i for f, i in inodes(project / "site").items() if f.startswith(pages)}
    third = _build(project, "site")  # nothing changed: every page file, the filled HTML too, a link
    after = {f: i for f, i in inodes(project / "site").items() if f.startswith(pages)}
    assert third.rendered == [] and third.recomputed == 0 and len(after) >= 8 and after == before


def test_the_related_slot_filled_is_the_last_one() -> None:
    """An author who writes the slot's text in a stub does not move the related section."""
    page = f"<p>{RELATED_SLOT}</p><main></main>{RELATED_SLOT}<footer></footer>".encode()
    assert filled(page, RELATED_SLOT, b"<section>R</section>") == (
        f"<p>{RELATED_SLOT}</p><main></main><section>R</section><footer></footer>".encode()
    )
    assert filled(b"<p>no slot</p>", RELATED_SLOT, b"R") == b"<p>no slot</p>"


def test_pages_in_flight_are_bounded() -> None:
    """At most AHEAD pages (and one chunk) wait for the writer, however many pages the site has."""
    in_flight: list[int] = []

    class Counting(ThreadPoolExecutor):
        submitted = 0
        taken = 0

        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            Counting.submitted += len(args[1])  # _chunk(fn, slugs)
            in_flight.append(Counting.submitted - Counting.taken)
            return super().submit(fn, *args, **kwargs)

    slugs = [f"page-{n}" for n in range(pipeline.AHEAD * 5 + 3)]
    chunks = pipeline._chunks(slugs, lambda slug: int(slug.split("-")[1]) // 10)  # groups of 10
    made: list[str] = []
    with Counting(2) as pool:
        for n, done in enumerate(pipeline._in_order(pool, _fake_page, chunks), 1):
            made.append(done.slug)
            Counting.taken = n
    assert made == slugs  # in order, every one
    assert pipeline.AHEAD - 10 < max(in_flight) <= pipeline.AHEAD


@given(st.lists(st.integers(0, 5), max_size=80))
def test_a_groups_pages_go_to_one_worker_together(groups: list[int]) -> None:
    """Chunks keep the pages' order; a group's consecutive pages share a chunk, up to CHUNK_MAX;
    a chunk holds CHUNK pages at least unless it is the last."""
    slugs = [f"{group}-{n}" for n, group in enumerate(groups)]
    chunks = pipeline._chunks(slugs, lambda slug: slug.split("-")[0])
    assert [slug for chunk in chunks for slug in chunk] == slugs
    assert all(pipeline.CHUNK <= len(chunk) <= pipeline.CHUNK_MAX for chunk in chunks[:-1])
    for before, after in itertools.pairwise(chunks):  # a cut inside a group only at CHUNK_MAX
        if before[-1].split("-")[0] == after[0].split("-")[0]:
            assert len(before) == pipeline.CHUNK_MAX


def _fake_page(slug: str) -> pipeline._PageDone:
    return pipeline._PageDone(slug, None, {}, None, [], None, 0.0, 0.0)


def _models_loaded(monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The models whose points each load of the run validated (one set a load)."""
    loads: list[set[str]] = []
    validate = pipeline.validate_points  # type: ignore[attr-defined]

    def recording(table, catalog, log):  # type: ignore[no-untyped-def]
        loads.append(set(table.values("model")))
        return validate(table, catalog, log)

    monkeypatch.setattr(pipeline, "validate_points", recording)
    return loads


def test_a_rebuild_loads_only_the_points_of_the_pages_it_makes(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the data unchanged, a build plans from the cache's summary of the data: nothing to
    make loads no point; an edited stub loads its model's points only; the site is as clean."""
    first = _build(two_models, "site")
    loads = _models_loaded(monkeypatch)
    again = _build(two_models, "site")
    assert loads == [] and again.recomputed == 0  # no result file read
    assert (again.point_count, again.problems) == (first.point_count, first.problems)
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("label: FP8", "label: FP8 (E4M3)"))  # its numbers change
    loads.clear()
    edited = _build(two_models, "site")
    assert loads == [{"dsr1"}] and edited.rendered == [STUB_PAGE]
    assert edited.point_count == first.point_count == 11
    assert tree(two_models / "site") == _clean(two_models)
    csv = two_models / "data" / "results" / "other.csv"
    csv.write_text(csv.read_text().replace("1500.0", "1600.0"))
    loads.clear()
    _build(two_models, "site")  # the data changed: every point loaded, as a clean build does
    assert loads == [{"dsr1", "llama70b"}]


def test_a_rebuild_keeps_every_problem_loading_found(project: Path) -> None:
    """Warnings about the data (here a GPU the catalog lacks) are the clean build's, not lost
    when the rebuild loads no point."""
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h201,sglang,fp8,none,8,8,1024,1024,4,300.0,10.0,2026-09-01\n")
    first = _build(project, "site")
    assert any("h201" in p.reason for p in first.warnings)
    again = _build(project, "site")
    assert again.recomputed == 0 and again.problems == first.problems


def test_a_failing_page_names_what_the_whole_data_holds_on_a_rebuild(two_models: Path) -> None:
    """A side that selects nothing says what values exist; on a rebuild that loaded one model's
    points, the message is the clean build's, found again with every point."""
    _build(two_models, "site")
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("model: dsr1", "model: llama7b"))
    with pytest.raises(InputError) as rebuilt:
        _build(two_models, "site")
    with pytest.raises(InputError) as clean:
        _build(two_models, "clean", cache=False)
    reasons = [p.reason for p in rebuilt.value.stopping]
    assert reasons == [p.reason for p in clean.value.stopping]
    assert any("available: dsr1, llama70b" in r for r in reasons)


def _build_in_a_process(project: Path) -> list[str]:
    """A build into project/site in a process of its own: the pages rendered and computed, and
    whether pandas and scipy were imported in that process."""
    script = (
        "import sys; from pathlib import Path; from site_builder.pipeline import build; "
        "from site_builder.project import Project; "
        f"out = build(Project.under(Path({str(project)!r}), Path({str(project / 'site')!r}))); "
        "print(len(out.rendered), out.recomputed, 'pandas' in sys.modules, 'scipy' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    return done.stdout.split()


def test_a_stub_whose_prose_alone_changed_is_rendered_from_its_kept_numbers(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editing a written stub's prose loads no point and computes nothing: the numbers computed
    from exactly the same front matter and data are kept; the site is as a clean build's. An edit
    to the front matter computes them again, and a damaged kept copy is computed again too."""
    _build(two_models, "site")
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    computed: list[str] = []
    compute = pipeline.compute_one

    def counting(stub, inputs):  # type: ignore[no-untyped-def]
        computed.append(stub.slug)
        return compute(stub, inputs)

    monkeypatch.setattr(pipeline, "compute_one", counting)
    monkeypatch.setattr(pipeline, "_can_fork_early", lambda workers: False)  # computed here, counted
    loads = _models_loaded(monkeypatch)
    stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited *prose*."))
    edited = _build(two_models, "site")
    assert (edited.rendered, computed, loads) == ([STUB_PAGE], [], [])
    assert b"Edited <em>prose</em>." in (two_models / "site" / STUB_PAGE / "index.html").read_bytes()
    assert tree(two_models / "site") == _clean(two_models)

    computed.clear()
    stub.write_text(stub.read_text().replace("label: FP4", "label: NVFP4"))  # the numbers' labels change
    _build(two_models, "site")
    assert (
        computed == [STUB_PAGE]
        and b"NVFP4" in (two_models / "site" / STUB_PAGE / "comparison.json").read_bytes()
    )
    assert tree(two_models / "site") == _clean(two_models)

    cache = two_models / FOLDER
    manifest = json.loads((cache / "manifest.json").read_text())
    kept = cache / "blobs" / manifest["pages"][STUB_PAGE]["numbers"]["blob"][0]
    generated = next(slug for slug in manifest["pages"] if slug != STUB_PAGE)
    assert "numbers" not in manifest["pages"][generated]  # a generated page has no prose to edit
    stamp = kept.stat()
    kept.write_bytes(b"\x00" * stamp.st_size)  # damaged, with its size and time kept
    os.utime(kept, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    computed.clear()
    stub.write_text(stub.read_text().replace("Edited *prose*.", "Edited again."))
    _build(two_models, "site")
    assert computed == [STUB_PAGE]
    assert tree(two_models / "site") == _clean(two_models)


def test_a_rebuild_loads_the_theme_compiled_and_a_changed_template_anew(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jinja keeps the compiled theme in the cache folder: a rebuild that renders a page compiles
    no template; an edited template is compiled again (its source's checksum changed)."""
    _build(project, "site")
    assert list((project / FOLDER / "templates").glob("__jinja2_*.cache"))
    compiled: list[str | None] = []
    compile_template = Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):  # type: ignore[no-untyped-def]
        compiled.append(name)
        return compile_template(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(Environment, "compile", counting)
    monkeypatch.setattr(pipeline, "_can_fork_early", lambda workers: False)  # compiled here, counted
    stub = project / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited."))
    assert _build(project, "site").rendered == [STUB_PAGE] and compiled == []
    notes = project / "templates" / "sections" / "notes.html"
    notes.write_text(notes.read_text().replace("</section>", "<p>Theme edit.</p></section>", 1))
    _build(project, "site")
    assert compiled == ["sections/notes.html"]
    assert b"Theme edit." in (project / "site" / STUB_PAGE / "index.html").read_bytes()
    assert tree(project / "site") == _clean(project)


@given(
    st.text(),
    st.text(),
    st.text(),
    st.lists(st.text(), max_size=3).map(tuple),
    st.lists(st.text(), max_size=3).map(tuple),
)
def test_a_page_head_comes_back_from_the_cache_as_it_went_in(
    slug: str, title: str, model: str, hardware: tuple[str, ...], sequences: tuple[str, ...]
) -> None:
    head = PageHead(slug, title, model, hardware, sequences)
    stored = json.loads(json.dumps(pipeline._head_out(head)))  # the manifest is JSON
    assert pipeline._head(stored) == head and stored == dataclasses.asdict(head) | {
        "hardware": list(hardware),
        "sequences": list(sequences),
    }


def test_a_guide_is_made_from_its_markdown_again_only_when_its_text_changes(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(two_models, "site")
    guides = Project.under(two_models).guide_files()
    made: list[str] = []
    original = safe_markdown

    def counted(text: str) -> Markup:
        made.append(text)
        return original(text)

    monkeypatch.setattr("site_builder.render.site.safe_markdown", counted)
    _build(two_models, "site")
    texts = [path.read_text() for path in guides.values()]
    assert not [t for t in made if any(t.strip() in text for text in texts)]  # every guide from the cache
    docs = two_models / "docs"
    docs.mkdir(exist_ok=True)
    edited = guides["methodology.md"].read_text() + "\nA sentence added by the test.\n"
    (docs / "methodology.md").write_text(edited)
    _build(two_models, "site")
    assert [t for t in made if any(t.strip() in text for text in texts)] == []  # the others kept
    assert len([t for t in made if t.endswith("A sentence added by the test.\n")]) == 1  # the edited one
    page = (two_models / "site" / "methodology" / "index.html").read_text()
    assert "A sentence added by the test." in page
    monkeypatch.undo()
    assert tree(two_models / "site") == _clean(two_models)


def test_a_cached_build_reuses_the_site_it_replaced_as_its_next_staging_folder(two_models: Path) -> None:
    """The replaced site stays beside the output as `.site.spare` and the next cached build
    builds in it: whatever the spare holds in the way (a file where a page's folder goes, a
    folder where a file goes, a stray file, a link to a cache blob where a file is written) is
    replaced, never written through, and the site is a clean build's."""
    _build(two_models, "site")
    _build(two_models, "site")  # the first site is now the spare
    spare = two_models / ".site.spare"
    assert (spare / "index.html").is_file()
    shutil.rmtree(spare / STUB_PAGE)
    (spare / STUB_PAGE).write_text("a file where the page's folder goes")
    (spare / "robots.txt").unlink()
    (spare / "robots.txt").mkdir()
    (spare / "robots.txt" / "inside").write_text("a folder where a file goes")
    (spare / "stray" / "deep").mkdir(parents=True)
    (spare / "stray" / "deep" / "file.txt").write_text("left by nobody")
    blobs = two_models / FOLDER / "blobs"
    other = next(p for p in (two_models / "site").glob("*/comparison.json") if p.parent.name != STUB_PAGE)
    shared = next(b for b in blobs.iterdir() if b.stat().st_ino == other.stat().st_ino)  # a page kept
    (spare / "404.html").unlink()
    os.link(shared, spare / "404.html")  # the build writes 404.html: not through this link
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited."))
    _build(two_models, "site")
    assert tree(two_models / "site") == _clean(two_models)
    assert all(hashlib.sha256(b.read_bytes()).hexdigest() == b.name for b in blobs.iterdir())
    assert hashlib.sha256(shared.read_bytes()).hexdigest() == shared.name


def test_uncached_builds_write_over_the_spare_and_give_a_clean_builds_site(two_models: Path) -> None:
    """An uncached build builds in the spare too: over a cached build's links it writes new files
    (every blob keeps its content), over an uncached build's own files it writes in place (the
    same files, cut to their new lengths); either way the site is a clean build's, and a stub
    the last build had but this one has not leaves no page behind."""
    _build(two_models, "site")
    _build(two_models, "site")  # the spare: links to the cache's blobs
    _build(two_models, "site", cache=False)
    blobs = two_models / FOLDER / "blobs"
    assert all(hashlib.sha256(b.read_bytes()).hexdigest() == b.name for b in blobs.iterdir())
    assert tree(two_models / "site") == _clean(two_models)
    _build(two_models, "site", cache=False)  # the spare: the first uncached build's own files
    page = two_models / ".site.spare" / STUB_PAGE / "index.html"
    inode = page.stat().st_ino
    page.write_bytes(page.read_bytes() * 2)  # longer than what is written over it
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited."))
    _build(two_models, "site", cache=False)
    assert (two_models / "site" / STUB_PAGE / "index.html").stat().st_ino == inode
    assert tree(two_models / "site") == _clean(two_models)
    stub.unlink()
    _build(two_models, "site", cache=False)
    assert not (two_models / "site" / STUB_PAGE).exists()
    assert tree(two_models / "site") == _clean(two_models)
