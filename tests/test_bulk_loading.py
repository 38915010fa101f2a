"""Native records loaded in bulk (loaders/bulk.py) give exactly what the per-record path gives:
the same points (every field, in the same order) and the same problems, word for word, for
sound and hostile records alike. The per-record path is the reference: with bulk loading
turned off every record goes through `finish_point`."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder import loaders
from site_builder.files import MAX_NUMBER_CHARS
from site_builder.loaders import bulk, load_results
from site_builder.loaders.common import LATENCY_METRICS, LATENCY_STATS
from site_builder.problems import ProblemLog
from tests.test_hostile import native_json

SETTINGS = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
GOOD: dict[str, Any] = json.loads(native_json())[0]
OPTIONAL: dict[str, list[Any]] = {
    "spec_method": ["mtp", "none", " MTP ", ""],
    "tp": [8, 0, 2.5, -1, "x"],
    "gpu_count": [8, 0, 4.0, 10**12],
    "output_throughput_per_gpu": [150.5, 0, -3, "nan"],
    "input_throughput_per_gpu": [0, 150.0, -1],
    "interactivity": [50.0, 0, "inf"],
    "avg_power_w": [700.0, -1],
    "joules_per_total_token": [0.5, 0],
    "disagg": ["true", "false", "maybe", True, 1],
    "dp_attention": ["yes", "no", "?"],
    "prefill_tp": [4, "y"],
    "decode_workers": [2],
    "decode_dp_attention": ["true"],
    "p99_ttft_ms": [120.0, -5, "1e999"],
    "mean_e2el_ms": [900, "12"],
    "date": ["2026-01-02", "20260314-193625", "soon", ""],
    "note": ["a note", "  ", ""],
    "run_url": ["https://example.com/run"],
    "colour": ["blue"],
}
CELLS = st.one_of(
    st.sampled_from(["", " ", "NaN", "Infinity", "-1", "0", "1_000", "1e999", "9" * 40, "abc", "\u0661"]),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-10, max_value=1e4).map(repr),
    st.integers(min_value=-2, max_value=5000).map(str),
    st.text(max_size=6),
)


@st.composite
def records(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A few native records: mostly sound, with optional fields and hostile cells mixed in."""
    rows = []
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        row = dict(GOOD)
        for key in draw(st.lists(st.sampled_from(sorted(OPTIONAL)), max_size=4, unique=True)):
            row[key] = draw(st.sampled_from(OPTIONAL[key]))
        for key in draw(st.lists(st.sampled_from(sorted({*GOOD, *OPTIONAL})), max_size=2, unique=True)):
            row[key] = draw(CELLS)
        for key in draw(st.lists(st.sampled_from(sorted(GOOD)), max_size=1)):
            row.pop(key)
        rows.append(row)
    return rows


def _load(folder: Path, monkeypatch: pytest.MonkeyPatch, in_bulk: bool) -> tuple[list[str], list[str]]:
    with monkeypatch.context() as patch:
        if not in_bulk:
            patch.setattr(bulk, "native_points", lambda *_: None)
        result = load_results(folder, ProblemLog())
    points = [
        f"{p!r} {sorted(p.model_fields_set)} {[sorted(m.model_fields_set) for m in p.__dict__.values() if hasattr(m, 'model_fields_set')]}"
        for p in result.points
    ]
    return points, [str(p) for p in result.log.problems]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "data"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    return folder


def _csv(rows: list[dict[str, Any]]) -> str:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else str(row.get(c)) for c in columns])
    return out.getvalue()


@SETTINGS
@given(records())
def test_csv_in_bulk_equals_record_by_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: list[dict[str, Any]]
) -> None:
    folder = _write(tmp_path, "lab.csv", _csv(rows))
    assert _load(folder, monkeypatch, in_bulk=True) == _load(folder, monkeypatch, in_bulk=False)


@SETTINGS
@given(records())
def test_json_in_bulk_equals_record_by_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: list[dict[str, Any]]
) -> None:
    folder = _write(tmp_path, "lab.json", json.dumps(rows, allow_nan=True))
    assert _load(folder, monkeypatch, in_bulk=True) == _load(folder, monkeypatch, in_bulk=False)


def test_sound_records_are_taken_in_bulk_and_a_bad_one_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sound rows and one with a negative throughput: the bulk path builds the two (the
    per-record path is never asked for them) and the bad row's error names line and column."""
    rows = [dict(GOOD), {**GOOD, "throughput_per_gpu": -5}, {**GOOD, "concurrency": 8}]
    folder = _write(tmp_path, "lab.csv", _csv(rows))
    asked: list[str] = []
    import site_builder.loaders as loaders

    original = loaders._FileLoader._record

    def spy(self: Any, record: tuple[str, Any], *args: Any) -> None:
        asked.append(record[0])
        original(self, record, *args)

    monkeypatch.setattr(loaders._FileLoader, "_record", spy)
    result = load_results(folder, ProblemLog())
    assert asked == ["line 3"]
    assert [p.concurrency for p in result.points] == [4, 8]
    # 1 / (10 ms) = 100 tok/s/user, by hand
    assert [p.interactivity for p in result.points] == [100.0, 100.0]
    assert [str(p) for p in result.log.errors] == [
        "error: data/lab.csv, line 3, field 'throughput_per_gpu': must be greater than 0, got '-5'"
    ]


def test_every_latency_column_is_read_in_bulk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row = dict(GOOD)
    for metric in LATENCY_METRICS:
        for n, stat in enumerate(LATENCY_STATS, 1):
            row[f"{stat}_{metric}_ms"] = 10 * n
    folder = _write(tmp_path, "lab.csv", _csv([row]))
    points, problems = _load(folder, monkeypatch, in_bulk=True)
    assert (points, problems) == _load(folder, monkeypatch, in_bulk=False)
    result = load_results(folder)
    assert result.points[0].ttft is not None and result.points[0].ttft.p99_9 == 0.06  # 60 ms


def test_a_long_file_of_repeated_counts_reads_as_record_by_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over 1,024 rows a column that repeats a few values is parsed once per distinct value
    (bulk._parse_numbers): sound, odd and hostile cells among them still read exactly as the
    per-record path reads them."""
    odd = ["1_000", " 8 ", "8.0", "-1", "abc", "1e999", "0", "2.5", "\u0661", ""]
    rows = [
        {**GOOD, "concurrency": odd[n // 7 % len(odd)] if n % 7 == 0 else ("4", "8")[n % 2], "tp": "8"}
        for n in range(1100)
    ]
    folder = _write(tmp_path, "lab.csv", _csv(rows))
    points, problems = _load(folder, monkeypatch, in_bulk=True)
    assert (points, problems) == _load(folder, monkeypatch, in_bulk=False)
    # the sound 4s and 8s load, and "1_000", " 8 ", "8.0" and "\u0661" (an Arabic-Indic 1), all
    # of which Python's float reads; "-1", "abc", "1e999", "0", "2.5" and "" do not
    concurrencies = {p.concurrency for p in load_results(folder).points}
    assert concurrencies == {1, 4, 8, 1000}


def test_loading_pauses_the_collector_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    """load_results pauses garbage collection while it loads (loaders._no_collection): after it,
    the collector is on or off as before, and objects someone else froze stay frozen."""
    import gc

    folder = _write(tmp_path, "lab.csv", _csv([dict(GOOD)]))
    assert gc.isenabled()
    assert len(load_results(folder).points) == 1
    assert gc.isenabled()
    gc.disable()
    try:
        load_results(folder)
        assert not gc.isenabled()
    finally:
        gc.enable()
    marker: list[list[int]] = [[]]
    gc.freeze()
    try:
        load_results(folder)
        assert gc.get_freeze_count() > 0
        assert not any(o is marker for o in gc.get_objects())  # still frozen: in no generation
    finally:
        gc.unfreeze()
    assert any(o is marker for o in gc.get_objects())


# -- a native CSV read with its number columns parsed by pandas (loaders._typed_csv) -------------

NUMBER_TEXT = st.one_of(
    st.text(alphabet="0123456789.eE+-_ \tinfatyINFATY\u0661\xa0", max_size=40),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=0, max_value=1e12).map(lambda x: f"{x:.25g}"),
    st.integers(min_value=0, max_value=10**40).map(str),
)
NUMBER_FIELDS = ["concurrency", "throughput_per_gpu", "median_tpot_ms", "tp", "p99_ttft_ms", "avg_power_w"]


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(NUMBER_FIELDS), NUMBER_TEXT), min_size=1, max_size=4))
def test_a_number_cell_parsed_by_pandas_reads_as_the_per_record_path_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cells: list[tuple[str, str]]
) -> None:
    """Odd number cells (signs, exponents, blanks, underscores, words, long literals, other
    digits) in a file pandas reads with typed number columns: the same points and problems as
    the per-record path, and pandas's number is Python's `float` of the cell wherever the bulk
    path keeps the row."""
    rows = [dict(GOOD) for _ in cells]
    for row, (key, text) in zip(rows, cells, strict=True):
        row[key] = text
    text = _csv(rows).replace("\r\n", "\n")  # as decode gives it
    folder = _write(tmp_path, "lab.csv", text)
    assert _load(folder, monkeypatch, in_bulk=True) == _load(folder, monkeypatch, in_bulk=False)
    header = text.splitlines()[0].split(",")
    found = loaders._typed_csv(text, header)
    if found is None:
        return
    frame, too_long = found
    for n, (key, written) in enumerate(cells):
        value = frame[key].tolist()[n]
        if written == "":
            assert value != value  # NaN: an empty cell, a missing field
        else:
            assert value == float(written) or (value != value and math.isnan(float(written)))
            assert too_long[n] == (len(written) > MAX_NUMBER_CHARS) or any(
                len(c) > MAX_NUMBER_CHARS for c in frame.iloc[n].astype(str)
            )


@SETTINGS
@given(
    st.integers(min_value=2, max_value=5).flatmap(
        lambda width: st.lists(
            st.lists(st.text(alphabet="ab1.é ", max_size=5), min_size=width, max_size=width), max_size=6
        ).map(lambda rows: (width, rows))
    ),
    st.booleans(),
)
def test_cell_lengths_are_those_the_csv_module_reads(
    shape: tuple[int, list[list[str]]], newline: bool
) -> None:
    """Every cell's length in an unquoted CSV (in UTF-8 bytes: at least its characters), as
    the csv module splits it, with or without a newline at the end."""
    width, rows = shape
    text = "\n".join(",".join(row) for row in [[f"c{i}" for i in range(width)], *rows])
    text += "\n" if newline else ""
    found = loaders._cell_lengths(text, width)
    if any(row == [""] for row in rows):  # a blank line: no cells to count
        assert found is None
        return
    assert found is not None
    expected = [[len(c.encode()) for c in row] for row in csv.reader(io.StringIO(text))][1:]
    assert found.tolist() == expected


def test_cell_lengths_refuse_a_line_of_another_width() -> None:
    assert loaders._cell_lengths("a,b\n1,2\n3\n", 2) is None
    assert loaders._cell_lengths("a,b\n1,2,3\n", 2) is None
    assert loaders._cell_lengths("a,b\n1,2\n", 2) is not None
    assert loaders._cell_lengths("a\n\n1\n", 1) is None  # one column: a blank line is no cell


@SETTINGS
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a", "b", " ", "", None, float("nan"), 1, 1.0, True, "1"]), st.integers(1, 9)
        ),
        max_size=12,
    )
)
def test_factorizing_by_runs_equals_pandas_factorize(runs: list[tuple[Any, int]]) -> None:
    """bulk._factorize (by runs of equal cells) gives pandas' codes and distinct values."""
    import numpy as np
    import pandas as pd

    cells = np.empty(sum(n for _, n in runs), dtype=object)
    cells[:] = [value for value, n in runs for _ in range(n)]
    codes, distinct = bulk._factorize(cells)
    expected_codes, expected = pd.factorize(cells)
    assert codes.tolist() == expected_codes.tolist()
    assert [repr(v) for v in distinct] == [repr(v) for v in expected]
