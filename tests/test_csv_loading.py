"""Native CSV loading (pandas): ragged rows and repeated columns are refused, blank lines kept in count."""

from __future__ import annotations

from pathlib import Path

from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from tests.conftest import LAB_CSV


def _load(tmp_path: Path, text: str) -> tuple[int, list[str]]:
    (tmp_path / "data").mkdir(parents=True)
    (tmp_path / "data" / "lab.csv").write_text(text)
    log = ProblemLog()
    result = load_results(tmp_path / "data", log)
    return len(result.table), [str(p) for p in log.errors]


def test_every_row_becomes_a_point_and_blank_lines_keep_line_numbers(tmp_path: Path) -> None:
    header, first, *rest = LAB_CSV.splitlines()
    broken_last = rest[-1].replace(",1000.0,", ",-5,")
    text = "\n".join([header, first, "", *rest[:-1], broken_last]) + "\n"
    count, errors = _load(tmp_path, text)
    assert count == len(rest)  # the blank line is skipped, the broken row refused
    assert errors == [
        f"error: data/lab.csv, line {len(rest) + 3}, field 'throughput_per_gpu': must be greater than 0, got '-5'"
    ]


def test_a_row_with_more_cells_than_columns_is_refused_with_its_line(tmp_path: Path) -> None:
    header, first, *rest = LAB_CSV.splitlines()
    count, errors = _load(tmp_path, "\n".join([header, first + ",surplus", *rest]) + "\n")
    assert count == 0 and len(errors) == 1
    assert errors == ["error: data/lab.csv: not a well-formed CSV: a row has more cells than the header"]
    _, later = _load(tmp_path / "later", "\n".join([header, first, rest[0] + ",surplus", *rest[1:]]) + "\n")
    assert later == [
        "error: data/lab.csv: not a well-formed CSV: Error tokenizing data. C error: Expected 13 fields in line 3, saw 14"
    ]


def test_a_repeated_column_is_refused_rather_than_one_value_chosen(tmp_path: Path) -> None:
    header, *rows = LAB_CSV.splitlines()
    doubled = [header + ",throughput_per_gpu", *(row + ",7" for row in rows)]
    count, errors = _load(tmp_path, "\n".join(doubled) + "\n")
    assert count == 0
    assert errors == [
        "error: data/lab.csv, line 1, field 'throughput_per_gpu': column appears twice (columns 11 and 14): "
        "keep one, so no value is silently dropped"
    ]
