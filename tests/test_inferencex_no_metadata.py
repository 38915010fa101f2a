"""InferenceX aggregate rows that name neither their model key nor their lengths, with no
`_meta.yaml` to give them: one error per folder naming the fields to add and where, not one per
record (the real rows of tests/fixtures/clients/inferencex-agg-no-prefix, source and licence in
its README)."""

from __future__ import annotations

import shutil
from pathlib import Path

from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

ROWS = Path(__file__).parent / "fixtures" / "clients" / "inferencex-agg-no-prefix" / "results.json"


def _errors(folder: Path) -> list[str]:
    log = ProblemLog()
    assert len(load_results(folder.parent, log).table) == 0
    return [str(p) for p in log.errors]


def test_rows_without_metadata_give_one_error_per_folder(tmp_path: Path) -> None:
    folder = tmp_path / "fork"
    folder.mkdir()
    for name in ("results.json", "results-copy.json"):  # two files of 5 rows each
        shutil.copy(ROWS, folder / name)
    (error,) = _errors(folder)
    assert error.startswith(f"error: {tmp_path.name}/fork/, field '_meta.yaml: model, isl, osl': missing")
    assert "add model: …, isl: …, osl: … to a _meta.yaml in the file's folder" in error
    assert "(2 files: results-copy.json, results.json)" in error


def test_a_metadata_file_giving_some_fields_leaves_the_others_named(tmp_path: Path) -> None:
    folder = tmp_path / "fork"
    folder.mkdir()
    shutil.copy(ROWS, folder / "results.json")
    (folder / "_meta.yaml").write_text("model: llama3.3-70b\n")
    (error,) = _errors(folder)
    assert "field '_meta.yaml: isl, osl'" in error and "add isl: …, osl: …" in error
    assert "by its path" not in error  # the model is given
