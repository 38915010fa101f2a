"""Bounded output for unbounded input: long texts refused naming the field, a repeated cause said
once past 20 files, a page comparing a thing with itself warned of, and a page's files
proportional to what it shows however many files its points come from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from site_builder.cli import main
from site_builder.files import MAX_PROSE_CHARS, MAX_TITLE_CHARS
from site_builder.problems import Problem, Severity, summarised

ROOT = Path(__file__).resolve().parent.parent
HEADER = (
    "model,hardware,framework,precision,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms\n"
)


def _project(tmp_path: Path, stub: str, *, data: bool = True) -> Path:
    project = tmp_path / "project"
    (project / "content").mkdir(parents=True)
    (project / "content" / "site.yaml").write_text("auto_pages: false\n", encoding="utf-8")
    (project / "content" / "page.md").write_text(stub, encoding="utf-8")
    if data:
        shutil.copytree(ROOT / "data", project / "data")
    return project


def _stub(title: str = "A page", summary: str = "", second: str = "h200") -> str:
    summary_line = f"summary: '{summary}'\n" if summary else ""
    return (
        f"---\nkind: hardware\ntitle: '{title}'\n{summary_line}model: dsr1\nprecision: fp8\nsides:\n"
        f"  - {{label: B200, hardware: b200}}\n  - {{label: Other, hardware: {second}}}\n---\n"
    )


def _build(project: Path) -> int:
    return main(["build", "--root", str(project), "-q", "--no-cache", "-o", str(project / "site")])


@pytest.mark.parametrize(
    ("field", "stub"),
    [
        ("title", _stub(title="T" * (MAX_TITLE_CHARS + 1))),
        ("summary", _stub(summary="S" * (MAX_PROSE_CHARS + 1))),
    ],
)
def test_a_text_over_its_limit_is_refused_naming_the_field(
    field: str, stub: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, stub)
    assert _build(project) == 1
    err = capsys.readouterr().err
    assert "content/page.md, line" in err and f"field '{field}'" in err
    assert "at most" in err and len(err) < 2000  # the text is not echoed whole
    assert not (project / "site").exists()


def test_a_title_at_its_limit_builds(tmp_path: Path) -> None:
    project = _project(tmp_path, _stub(title="T" * MAX_TITLE_CHARS))
    assert _build(project) == 0


def test_a_data_set_title_over_the_limit_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, _stub())
    info = project / "data" / "results" / "example-sweep" / "_dataset.yaml"
    info.write_text(
        f"id: example-sweep\ntitle: '{'x' * (MAX_TITLE_CHARS + 1)}'\nsource: s\n", encoding="utf-8"
    )
    assert _build(project) == 1
    assert "data/results/example-sweep/_dataset.yaml, field 'title'" in capsys.readouterr().err


def test_two_sides_selecting_the_same_points_are_warned_of(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, _stub(second="b200"))
    assert _build(project) == 0
    err = capsys.readouterr().err
    assert "warning: content/page.md, line" in err and "field 'sides'" in err and "very same" in err
    differing = _project(tmp_path / "other", _stub(second="h200"))
    assert _build(differing) == 0
    assert "very same" not in capsys.readouterr().err


def _problem(n: int, reason: str = "cannot read: Permission denied") -> Problem:
    return Problem(f"data/results/r{n}.json", "", "", reason, Severity.ERROR)


def test_a_cause_repeated_past_20_files_is_said_once() -> None:
    other = Problem("content/x.md", "line 2", "model", "unknown model", Severity.ERROR)
    lines = summarised([*(_problem(n) for n in range(50_000)), other])
    assert len(lines) == 22
    assert lines[:20] == [str(_problem(n)) for n in range(20)]
    assert lines[20] == str(other)
    assert lines[21] == "error: … and 49,980 more files like it (cannot read: Permission denied)"


def test_a_cause_whose_reasons_differ_only_in_paths_and_numbers_is_one_cause() -> None:
    problems = [
        _problem(n, f"duplicate point; kept the newer one from data/r{n + 1}.csv line {n}") for n in range(25)
    ]
    lines = summarised(problems)
    assert len(lines) == 21 and lines[-1].startswith("error: … and 5 more files like it (duplicate point")


def test_twenty_are_all_listed() -> None:
    assert summarised([_problem(n) for n in range(20)]) == [str(_problem(n)) for n in range(20)]


def test_many_unreadable_files_give_a_bounded_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, _stub())
    bad = project / "data" / "results" / "bad"
    bad.mkdir()
    for n in range(60):
        (bad / f"r{n:02d}.json").write_bytes(b'{"a":\x00}')
    assert _build(project) == 1
    err = capsys.readouterr().err.splitlines()
    assert len([line for line in err if "NUL" in line]) == 21
    assert "… and 40 more files like it" in err[-2]


def test_comparison_json_stays_proportional_to_its_points(tmp_path: Path) -> None:
    """Each of 600 one-point files is a data set of its own: the page lists 20 of them and one
    entry for the rest, so comparison.json grows with the frontier it shows, not the files."""
    project = _project(tmp_path, _stub(), data=False)
    many = project / "data" / "results" / "many"
    many.mkdir(parents=True)
    for source in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / source, project / "data" / source)
    files = 600
    for n in range(files):
        hardware, concurrency = ("b200", "h200")[n % 2], 1 + n // 2
        row = f"dsr1,{hardware},vllm,fp8,8,8,1024,1024,{concurrency},{100 + 3 * concurrency},{10 + concurrency / 10}\n"
        (many / f"r{n:04d}.csv").write_text(HEADER + row, encoding="utf-8")
    assert _build(project) == 0
    page = project / "site" / "page"
    document = json.loads((page / "comparison.json").read_text(encoding="utf-8"))
    sources = document["data_sources"]
    assert len(sources) == 21 and sources[-1]["dataset"] == "*"
    assert sources[-1]["title"] == f"{files - 20} more data sets"
    knots = sum(len(side["frontier"]) for sequence in document["sequences"] for side in sequence["sides"])
    assert (page / "comparison.json").stat().st_size < 8_000 + 700 * knots
    points = (page / "points.csv").read_text(encoding="utf-8").splitlines()
    assert len(points) == files + 1  # every point still named, with its data set and file
