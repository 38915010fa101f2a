"""Parquet input (the optional `parquet` extra, pyarrow): a typed table of native points loads
like the same rows as CSV, in bulk, with the same checks and record-by-record messages."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from site_builder import files
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from tests.conftest import LAB_CSV

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow", reason="Parquet input needs the optional pyarrow (pip install '.[parquet]')")


def _write(folder: Path, frame: object, name: str = "lab.parquet") -> Path:
    (folder / "data").mkdir(parents=True, exist_ok=True)
    frame.to_parquet(folder / "data" / name)  # type: ignore[attr-defined]
    return folder / "data"


def test_a_parquet_table_loads_like_the_same_csv(tmp_path: Path) -> None:
    frame = pd.read_csv(io.StringIO(LAB_CSV))  # typed columns: ints, floats, text
    parquet = load_results(_write(tmp_path / "p", frame))
    (tmp_path / "c" / "data").mkdir(parents=True)
    (tmp_path / "c" / "data" / "lab.csv").write_text(LAB_CSV)
    csv = load_results(tmp_path / "c" / "data")
    assert not parquet.log.problems and len(parquet.table) == len(csv.table) == 7
    provenance = ["dataset", "source_file", "record", "client", "date", "run_url", "image", "note"]
    assert parquet.table.frame.drop(columns=provenance).equals(csv.table.frame.drop(columns=provenance))
    first = parquet.table.records()[0]
    assert first["record"] == "row 1"
    # 1 / 10 ms = 100 tok/s/user, by hand
    assert first["interactivity"] == 100.0 and first["isl"] == 1024


def test_a_null_cell_is_a_missing_field_and_bad_rows_are_named(tmp_path: Path) -> None:
    frame = pd.read_csv(io.StringIO(LAB_CSV))
    frame.loc[1, "median_tpot_ms"] = None  # no TPOT and no other way to interactivity: an error
    frame.loc[2, "throughput_per_gpu"] = -1.0
    result = load_results(_write(tmp_path, frame), ProblemLog())
    assert len(result.table) == 5
    assert [(p.record, p.field) for p in result.log.errors] == [
        ("row 2", "median_tpot_s"),
        ("row 3", "throughput_per_gpu"),
    ]


def test_a_parquet_file_is_held_to_the_input_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _write(tmp_path, pd.read_csv(io.StringIO(LAB_CSV)))
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 100)
    result = load_results(folder)
    assert len(result.table) == 0 and "larger than" in str(result.log.errors[0])
    (folder / "lab.parquet").write_bytes(b"PAR1 not really")
    monkeypatch.undo()
    result = load_results(folder)
    assert [p.file for p in result.log.errors] == ["data/lab.parquet"]
    assert "not a readable Parquet file" in result.log.errors[0].reason
