"""The parallel and cached build (pipeline.py, runner.py, cache.py): the same bytes serial or
parallel, cached or clean; a change redoes exactly the pages that depend on it; pages stream
through the pipeline; the cache folder is safe to delete, never takes over a user's folder, and a
damaged manifest is a miss; an output file edited in place is never published again."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from site_builder import runner
from site_builder.cache import FOLDER, TAG
from site_builder.pipeline import SiteOutput, build, run
from site_builder.problems import InputError
from site_builder.project import Project
from site_builder.render.environment import safe_markdown
from site_builder.write import StagingSink
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
    ("change", "rendered"),
    [
        ("nothing", []),
        ("stub body", [STUB_PAGE]),
        ("other model's data", ["other"]),
        ("stub model's data", [STUB_PAGE]),
        ("template", ["both"]),
        ("guide", ["both"]),
        ("catalog", ["both"]),
        ("site config", ["both"]),
    ],
)
def test_a_change_redoes_exactly_the_pages_that_depend_on_it(
    two_models: Path, change: str, rendered: list[str]
) -> None:
    first = _build(two_models, "site")
    assert len(first.rendered) == 2
    other = next(s for s in first.rendered if s != STUB_PAGE)
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
    assert sorted(second.rendered) == expected
    assert tree(two_models / "site") == _clean(two_models)


def test_serial_parallel_and_cached_builds_write_the_same_bytes(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "PARALLEL_FROM", 0)  # a pool even for two pages
    monkeypatch.setattr(runner, "SPAWN_FROM", 0)
    _build(two_models, "serial", cache=False, workers=1)
    _build(two_models, "parallel", cache=False, workers=2)
    _build(two_models, "cached", workers=2)
    _build(two_models, "cached", workers=2)  # every page from the cache
    serial = tree(two_models / "serial")
    assert serial == tree(two_models / "parallel") == tree(two_models / "cached")
    default = run(Project.under(two_models))  # into memory, as tests and serve use it
    assert {k: v for k, v in serial.items() if k != ".site-builder-output"} == dict(default.files)


def test_the_cache_folder_is_safe_to_delete(two_models: Path) -> None:
    _build(two_models, "site")
    shutil.rmtree(two_models / FOLDER)
    output = _build(two_models, "site")
    assert len(output.rendered) == 2 and tree(two_models / "site") == _clean(two_models)


def test_a_folder_of_the_cache_name_that_is_not_ours_is_left_alone(two_models: Path) -> None:
    mine = two_models / FOLDER
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    _build(two_models, "site")
    output = _build(two_models, "site")
    assert len(output.rendered) == 2  # built uncached, every time
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"] and not (mine / TAG).exists()


def test_pages_stream_through_the_pipeline(two_models: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each page's files, its HTML with its related links among them, reach the staging folder
    before the next page is rendered, and the run keeps none of them (its output holds no
    files): memory does not grow with the pages' data."""
    events: list[str] = []
    from site_builder.render.pages import render_page

    def rendering(renderer, page, *links):  # type: ignore[no-untyped-def]
        events.append(f"render {page.comparison.slug}")
        return render_page(renderer, page, *links)

    class Recording(StagingSink):
        def put(self, relative: str, content: bytes) -> None:
            events.append(f"write {relative}")
            super().put(relative, content)

    monkeypatch.setattr("site_builder.make.render_page", rendering)
    project = Project.under(two_models)
    output = run(project, Recording(project.out, project.input_folders()))
    pages = [e.split()[1] for e in events if e.startswith("render")]
    assert len(pages) == 2 and len(output.files) == 0 and output.pages == []
    for slug, following in zip(pages, [*pages[1:], None], strict=True):
        start = events.index(f"render {slug}")
        end = events.index(f"render {following}") if following else len(events)
        assert f"write {slug}/comparison.json" in events[start:end]  # before the next one renders
        assert f"write {slug}/index.html" in events[start:end]


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


def test_a_new_page_reaches_its_neighbours_related_links(project: Path) -> None:
    """The plan decides every page's related links before any page is made: adding a page on
    the same model and GPU changes its neighbour's links, so the neighbour is made again (its
    links are part of its key), and the site is byte for byte what a clean build writes."""
    first = _build(project, "site")
    assert first.rendered == [STUB_PAGE]
    # the stub's page links only to itself at its other sequence (1k/8k)
    alone = related_hrefs(project / "site" / STUB_PAGE / "index.html")
    assert alone == ["index.html?seq=1k/8k"]
    (project / "content" / "h200-fp4-vs-fp8-sglang.md").write_text(SECOND_STUB)
    second = _build(project, "site")
    assert sorted(second.rendered) == [STUB_PAGE, "h200-fp4-vs-fp8-sglang"]
    assert related_hrefs(project / "site" / STUB_PAGE / "index.html") == [
        *alone,
        "../h200-fp4-vs-fp8-sglang/index.html",
    ]
    assert (
        related_hrefs(project / "site" / "h200-fp4-vs-fp8-sglang" / "index.html")[-1]
        == f"../{STUB_PAGE}/index.html"
    )
    assert tree(project / "site") == _clean(project)
    third = _build(project, "site")  # nothing changed: every page from the cache
    assert third.rendered == [] and tree(project / "site") == _clean(project)


def test_a_rebuild_keeps_every_problem_loading_found(project: Path) -> None:
    """Warnings about the data (here a GPU the catalog lacks) are the clean build's, not lost
    when the rebuild loads no point."""
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h201,sglang,fp8,none,8,8,1024,1024,4,300.0,10.0,2026-09-01\n")
    first = _build(project, "site")
    assert any("h201" in p.reason for p in first.warnings)
    again = _build(project, "site")
    assert again.rendered == [] and again.problems == first.problems


def test_a_failing_page_names_what_the_whole_data_holds_on_a_rebuild(two_models: Path) -> None:
    """A side that selects nothing says what values exist; on a rebuild, as on a clean build."""
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


def test_a_stub_edit_remakes_its_page_as_a_clean_build_makes_it(two_models: Path) -> None:
    """An edit to a written stub's prose, then to its front matter: that page alone is made
    again, and the site is byte for byte a clean build's."""
    _build(two_models, "site")
    stub = two_models / "content" / f"{STUB_PAGE}.md"
    stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited *prose*."))
    assert _build(two_models, "site").rendered == [STUB_PAGE]
    assert b"Edited <em>prose</em>." in (two_models / "site" / STUB_PAGE / "index.html").read_bytes()
    assert tree(two_models / "site") == _clean(two_models)
    stub.write_text(stub.read_text().replace("label: FP4", "label: NVFP4"))  # the numbers' labels change
    assert _build(two_models, "site").rendered == [STUB_PAGE]
    assert b"NVFP4" in (two_models / "site" / STUB_PAGE / "comparison.json").read_bytes()
    assert tree(two_models / "site") == _clean(two_models)


def test_the_cache_holds_json_and_the_files_bytes_only(project: Path) -> None:
    """Nothing in the cache folder is code (no pickle, no compiled theme): the tag, the lock,
    the JSON manifest and blobs named by the SHA-256 of their bytes; an edited template still
    reaches every page."""
    (project / FOLDER / "templates").mkdir(parents=True)  # what earlier versions kept: removed
    (project / FOLDER / "templates" / "__jinja2_x.cache").write_bytes(b"compiled")
    (project / FOLDER / TAG).write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    _build(project, "site")
    folder = project / FOLDER
    assert sorted(p.name for p in folder.iterdir()) == [TAG, "blobs", "lock", "manifest.json"]
    json.loads((folder / "manifest.json").read_text())
    for blob in (folder / "blobs").iterdir():
        assert blob.name == hashlib.sha256(blob.read_bytes()).hexdigest()
    notes = project / "templates" / "sections" / "notes.html"
    notes.write_text(notes.read_text().replace("</section>", "<p>Theme edit.</p></section>", 1))
    _build(project, "site")
    assert b"Theme edit." in (project / "site" / STUB_PAGE / "index.html").read_bytes()
    assert tree(project / "site") == _clean(project)


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


def _append(page: Path) -> None:
    with page.open("ab") as handle:
        handle.write(b"<!-- deployed -->")


def _rewrite_same_size(page: Path) -> None:
    """Truncated and written again in place, as long as before, its time put back."""
    stamp, size = page.stat(), page.stat().st_size
    with page.open("r+b") as handle:
        handle.truncate(0)
        handle.write(b"<!-- deployed -->".ljust(size, b" "))
    os.utime(page, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))


@pytest.mark.parametrize("edit", [_append, _rewrite_same_size])
def test_an_output_file_edited_in_place_touches_neither_the_cache_nor_a_later_build(
    two_models: Path, edit: Callable[[Path], None]
) -> None:
    """The site's files are its own (copies, never links to the cache): a deploy step that edits
    site/x/index.html in place changes no blob, and the next build, every page from the cache,
    writes the site as a clean build does."""
    _build(two_models, "site")
    blobs = {p.name: p.read_bytes() for p in (two_models / FOLDER / "blobs").iterdir()}
    for page in (two_models / "site").glob("*/index.html"):
        edit(page)
    assert {p.name: p.read_bytes() for p in (two_models / FOLDER / "blobs").iterdir()} == blobs
    assert _build(two_models, "site").rendered == []
    assert tree(two_models / "site") == _clean(two_models)
    assert {p.name: p.read_bytes() for p in (two_models / FOLDER / "blobs").iterdir()} == blobs


def test_an_output_file_replaced_leaves_the_cache_as_it_was(two_models: Path) -> None:
    """A deploy step that replaces a file of the site (writes a new one in its place) touches no
    blob: the next build makes no page and writes every page as a clean build does."""
    _build(two_models, "site")
    blobs = {p.name: p.read_bytes() for p in (two_models / FOLDER / "blobs").iterdir()}
    (two_models / "site" / STUB_PAGE / "comparison.json").unlink()
    (two_models / "site" / STUB_PAGE / "comparison.json").write_text("{}")
    assert {p.name: p.read_bytes() for p in (two_models / FOLDER / "blobs").iterdir()} == blobs
    assert _build(two_models, "site").rendered == []
    assert tree(two_models / "site") == _clean(two_models)


def _damaged(value: Any, path: list[int], replacement: Any) -> Any:
    """`value` (a JSON document) with the node `path` leads to replaced (each step picks a child)."""
    if not path or not isinstance(value, dict | list) or not value:
        return replacement
    keys = list(value) if isinstance(value, dict) else list(range(len(value)))
    key = keys[path[0] % len(keys)]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[key] = _damaged(value[key], path[1:], replacement)
    return copy


def _digest(files: dict[str, bytes]) -> str:
    return hashlib.sha256(json.dumps({k: v.hex() for k, v in files.items()}).encode()).hexdigest()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.integers(0, 20), max_size=8),
    st.one_of(st.text(max_size=5), st.integers(), st.none(), st.booleans(), st.just([]), st.just({})),
)
def test_a_damaged_manifest_is_a_miss_never_an_error(
    built_twice: tuple[Path, str], path: list[int], replacement: Any
) -> None:
    """Any node of the manifest replaced by a value of another kind (a string where a dict
    belongs, a number where a list does …): the build succeeds, and writes a clean build's site."""
    project, clean = built_twice
    manifest = project / FOLDER / "manifest.json"
    original = manifest.read_text()
    try:
        manifest.write_text(json.dumps(_damaged(json.loads(original), path, replacement)))
        _build(project, "site")
        assert _digest(tree(project / "site")) == clean
    finally:
        manifest.write_text(original)


@pytest.fixture(scope="module")
def built_twice(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A project built (cached) into site/, with what a clean build writes."""
    from tests.conftest import LAB_CSV, STUB

    project = tmp_path_factory.mktemp("damaged")
    (project / "data" / "results").mkdir(parents=True)
    (project / "data" / "results" / "lab.csv").write_text(LAB_CSV)
    (project / "data" / "results" / "other.csv").write_text(OTHER_CSV)
    (project / "content").mkdir()
    (project / "content" / f"{STUB_PAGE}.md").write_text(STUB)
    _build(project, "site")
    return project, _digest(_clean(project))


def test_a_manifest_naming_a_file_outside_the_cache_is_a_miss(two_models: Path) -> None:
    """A manifest entry whose file is not one of the cache's blobs (another path) is not used,
    even with its digest made to match: nothing outside the cache is copied into the site."""
    from site_builder.cache import digest

    _build(two_models, "site")
    secret = two_models / "secret.txt"
    secret.write_text("not for the site")
    manifest_path = two_models / FOLDER / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for key, entry in manifest["pages"].items():
        entry["files"] = {name: "../../secret.txt" for name in entry["files"]}
        entry["check"] = digest(key, {part: entry[part] for part in ("files", "entry", "problems")})
    manifest_path.write_text(json.dumps(manifest))
    assert len(_build(two_models, "site").rendered) == 2
    assert tree(two_models / "site") == _clean(two_models)


def test_a_build_leaves_nothing_beside_the_output_folder(two_models: Path) -> None:
    """No staging folder, spare or replaced site stays beside the output once the replaced
    site's removal (a process of its own) is done; a `.site.spare` older versions left is removed."""
    import time

    (two_models / ".site.spare" / "old").mkdir(parents=True)
    for options in ({}, {"cache": False}, {}):
        _build(two_models, "site", **options)
    deadline = time.monotonic() + 30
    while [p for p in two_models.iterdir() if p.name.startswith(".site.")] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p.name for p in two_models.iterdir() if p.name.startswith(".site.")] == []
