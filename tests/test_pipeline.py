"""The one pipeline: a cached run that keeps the loaded inputs (serve) equals a fresh run
(build), problems included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from site_builder.pipeline import Inputs, Options, run
from site_builder.problems import InputError
from site_builder.project import Project
from tests.conftest import ROOT
from tests.factories import SHARED_EDITS, edit_shared_input


class Served:
    """Runs as serve makes them: cached, each given what the last good run loaded."""

    def __init__(self, project: Path) -> None:
        self.project = Project.under(project)
        self.inputs: Inputs | None = None

    def run(self) -> tuple[dict[str, bytes] | None, list[str]]:
        try:
            output = run(self.project, options=Options(cache=True), kept=self.inputs)
        except InputError as exc:
            return None, [str(p) for p in exc.problems]
        self.inputs = output.inputs
        return dict(output.files), [str(p) for p in output.problems]


def _fresh(project: Path) -> tuple[dict[str, bytes] | None, list[str]]:
    try:
        output = run(Project.under(project))
    except InputError as exc:
        return None, [str(p) for p in exc.problems]
    return dict(output.files), [str(p) for p in output.problems]


def _same_as_fresh(cached: Served, project: Path) -> None:
    assert cached.run() == _fresh(project)


def _second_stub(project: Path) -> Path:
    stub = project / "content" / "second.md"
    stub.write_text(
        "---\nkind: spec-decoding\nmodel: dsr1\nhardware: h200\nprecision: fp8\nsides:\n"
        "  - {label: FP8, precision: fp8}\n  - {label: FP4, precision: fp4}\n---\nAnother page.\n"
    )
    return stub


def test_a_page_whose_template_fails_keeps_failing_when_another_page_changes(project: Path) -> None:
    _second_stub(project)
    notes = (ROOT / "templates" / "sections" / "notes.html").read_text()
    (project / "templates" / "sections").mkdir(exist_ok=True)
    (project / "templates" / "sections" / "notes.html").write_text(
        '{% if c.slug == "second" %}{{ no_such_thing }}{% endif %}\n' + notes
    )
    cached = Served(project)
    files, problems = cached.run()
    assert files is None
    assert any("templates/sections/notes.html, line 1" in p and "no_such_thing" in p for p in problems), (
        problems
    )
    other = project / "content" / "h200-fp4-vs-fp8.md"
    other.write_text(other.read_text().replace("A small comparison for tests.", "Edited."))
    assert cached.run() == (None, problems)


def test_cached_problems_name_the_lines_of_the_stub_as_it_is_now(project: Path) -> None:
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text().replace("hardware: h200", "hardware: h200\nsequence: 8k/1k"))
    cached = Served(project)
    _, first = cached.run()
    assert any("sequence" in p for p in first)
    stub.write_text(stub.read_text().replace("---\n", "---\n# a comment\n# another\n", 1))
    _same_as_fresh(cached, project)


@pytest.mark.parametrize(
    "change",
    [
        "stub body",
        "stub deleted",
        "data row",
        "catalog",
        "template",
        "guide",
        "site config",
        "copy keeping mtime",
    ],
)
def test_a_cached_run_after_a_change_equals_a_fresh_run(project: Path, change: str) -> None:
    second = _second_stub(project)
    cached = Served(project)
    assert cached.run()[0] is not None
    lab = project / "data" / "results" / "lab.csv"
    if change == "stub body":
        second.write_text(second.read_text().replace("Another page.", "Changed."))
    elif change == "stub deleted":
        second.unlink()
    elif change == "data row":
        lab.write_text(lab.read_text().replace("2900.0", "3100.0"))
    elif change in SHARED_EDITS:
        edit_shared_input(project, change)
    else:  # same size, old modification time: what cp -p or rsync -t leave behind
        before = os.stat(lab)
        lab.write_text(lab.read_text().replace("2900.0", "2901.0"))
        os.utime(lab, ns=(before.st_atime_ns, before.st_mtime_ns))
    _same_as_fresh(cached, project)


def test_hidden_and_editor_files_are_not_stubs(project: Path) -> None:
    text = (project / "content" / "h200-fp4-vs-fp8.md").read_text()
    for name in (".draft.md", ".#h200-fp4-vs-fp8.md", "backup.md~"):
        (project / "content" / name).write_text(text.replace("kind: precision", "kind: nonsense"))
    files, problems = _fresh(project)
    assert files is not None and not [p for p in problems if p.startswith("error")]
