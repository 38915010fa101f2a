"""The one validation of native records (read/validate_rows.py), held to the rules of
docs/data-format.md restated here on their own: for generated records, sound and hostile, a CSV
and a JSON file load exactly the points the rules keep, with their values, and name exactly the
fields the rules refuse, record by record."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.files import LIMIT, MAX_NUMBER_CHARS
from site_builder.problems import ProblemLog
from site_builder.read.fields import LATENCY_METRICS, LATENCY_STATS
from site_builder.read.load import LoadResult, load_results

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
JSON_ONLY = object()  # a value a CSV cannot write (its text would be another value)


@dataclass(frozen=True)
class Value:
    """A value a record may give a field: as JSON and as a CSV cell, and what the rules make of
    it (None: the rules refuse it; ABSENT: the field is not given)."""

    json: Any
    cell: Any
    means: Any


ABSENT = "absent"


def v(written: Any, means: Any, cell: Any = None) -> Value:
    return Value(written, str(written) if cell is None else cell, means)


# each field's values: what it is written as, what the rules make of it
POOLS: dict[str, list[Value]] = {
    "model": [
        v("dsr1", "dsr1"),
        v(" dsr1 ", "dsr1"),
        v(5, None, JSON_ONLY),
        v("m" * 70, None),
        v("x\x1b", None),
    ],
    "hardware": [v("h200", "h200"), v("H200-NV", "h200"), v("cluster:b200_12", "b200"), v("cluster:", "")],
    "framework": [v("sglang", "sglang"), v("TRTLLM", "trt"), v("sglang-disagg", "mori-sglang")],
    "precision": [v("fp8", "fp8"), v("NVFP4", "fp4"), v("", ABSENT)],
    "spec_method": [v("MTP", "mtp"), v(" ", ABSENT), v("none", "none")],
    "isl": [
        v(1024, 1024),
        v("8.0", 8),
        v("2.5", None),
        v("0", None),
        v("-1", None),
        v("abc", None),
        v("", ABSENT),
    ],
    "osl": [v(1024, 1024), v(" 512 ", 512)],
    "concurrency": [v(4, 4), v("1_000", 1000), v(True, None, JSON_ONLY), v("1e999", None), v("", ABSENT)],
    "gpu_count": [v(8, 8), v("0", None), v("x", None), v("", ABSENT)],
    "tp": [v(8, 8), v("0", 0), v("2.5", None)],
    "throughput_per_gpu": [
        *(v(300.0, 300.0), v("1e3", 1000.0), v("0", None), v("-5", None), v("nan", None)),
        *(v("1e10", None), v("9" * 40, None), v("", ABSENT)),
    ],
    "output_throughput_per_gpu": [v(150.5, 150.5), v("0", None), v("", ABSENT)],
    "median_tpot_ms": [
        v(10, 10.0),
        v("20.0", 20.0),
        v("0", None),
        v("-3", None),
        v("x", None),
        v("", ABSENT),
    ],
    "interactivity": [v(50, 50.0), v("0", None), v("", ABSENT)],
    "avg_power_w": [v(700, 700.0), v("-1", None), v("", ABSENT)],
    "joules_per_total_token": [v(0.5, 0.5), v("0", None)],
    "p99_ttft_ms": [v(120, 120.0), v("-5", None), v("1e999", None)],
    "disagg": [v("true", True), v("0", False), v("maybe", None)],
    "colour": [v("blue", None)],  # a field the format lacks
}
GOOD: dict[str, Any] = {
    "model": "dsr1",
    "hardware": "h200",
    "framework": "sglang",
    "precision": "fp8",
    "isl": 1024,
    "osl": 1024,
    "concurrency": 4,
    "throughput_per_gpu": 300.0,
    "median_tpot_ms": 10,
}
COLUMNS = [*GOOD, *(k for k in POOLS if k not in GOOD)]


@dataclass
class Expected:
    """What the rules make of one record: the fields they refuse, and the point's values."""

    refused: list[str] = field(default_factory=list)
    point: dict[str, Any] = field(default_factory=dict)


def meaning(record: dict[str, Value], key: str) -> Any:
    given = record.get(key)
    if given is None:
        return v(GOOD[key], GOOD[key]).means if key in GOOD else ABSENT
    return given.means


def expect(record: dict[str, Value]) -> Expected:
    """The documented rules, on their own: every refused field, in no order; the values kept."""
    out = Expected()
    value = {key: meaning(record, key) for key in POOLS}
    early = [key for key in ("colour", "p99_ttft_ms") if value[key] is None]  # a reader's, or a statistic
    for key in (
        "model",
        "hardware",
        "framework",
        "precision",
        "isl",
        "osl",
        "concurrency",
        "throughput_per_gpu",
    ):
        if value[key] is None or value[key] == ABSENT:
            out.refused.append(key)
    for key in ("spec_method", "output_throughput_per_gpu", "gpu_count", "avg_power_w", "disagg", "tp"):
        if value[key] is None:
            out.refused.append(key)
    if value["avg_power_w"] not in (None, ABSENT) and value["joules_per_total_token"] is None:
        out.refused.append("joules_per_total_token")
    tpot, stated = value["median_tpot_ms"], value["interactivity"]
    output, gpus, concurrency = value["output_throughput_per_gpu"], value["gpu_count"], value["concurrency"]
    if tpot != ABSENT:
        source = "tpot"
        if tpot is None:
            out.refused.append("median_tpot_ms")
    elif stated != ABSENT:
        source = "stated"
        if stated is None:
            out.refused.append("interactivity")
    elif all(x not in (None, ABSENT) for x in (output, gpus, concurrency)):
        source = "derived"
    else:
        out.refused.append("median_tpot_s")
    if not out.refused and value["hardware"] == "":  # a name normalised to nothing: the last check
        out.refused.append("hardware")
    out.refused += early
    if out.refused:
        return out
    interactivity = {"tpot": lambda: 1000 / tpot, "stated": lambda: stated}.get(
        source, lambda: output * gpus / concurrency
    )()
    spec = value["spec_method"]
    power = value["avg_power_w"] if value["avg_power_w"] != ABSENT else None
    joules = value["joules_per_total_token"]
    out.point = {
        **{
            key: value[key]
            for key in ("model", "hardware", "framework", "precision", "isl", "osl", "concurrency")
        },
        "spec_method": "none" if spec == ABSENT else spec,
        "gpu_count": None if gpus == ABSENT else gpus,
        "tp": None if value["tp"] == ABSENT else value["tp"],
        "disagg": value["disagg"] is True,
        "throughput_per_gpu": value["throughput_per_gpu"],
        "interactivity_source": source,
        "interactivity": interactivity,
        "ttft_p99": None if value["p99_ttft_ms"] == ABSENT else value["p99_ttft_ms"] / 1000,
        "avg_watts_per_gpu": power,
        "joules_per_total_token": None if power is None or joules == ABSENT else joules,
    }
    return out


@st.composite
def records(draw: st.DrawFn, csv_cells: bool) -> list[dict[str, Value]]:
    """A few native records: most fields sound, a few drawn from each field's pool."""
    found = []
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        keys = draw(st.lists(st.sampled_from(sorted(POOLS)), max_size=5, unique=True))
        record = {}
        for key in keys:
            choices = [p for p in POOLS[key] if not (csv_cells and p.cell is JSON_ONLY)]
            record[key] = draw(st.sampled_from(choices))
        found.append(record)
    return found


def written(record: dict[str, Value], key: str, csv_cells: bool) -> Any:
    given = record.get(key)
    if given is None:
        return (str(GOOD[key]) if csv_cells else GOOD[key]) if key in GOOD else ""
    return given.cell if csv_cells else given.json


def load(tmp_path: Path, name: str, text: str) -> LoadResult:
    folder = tmp_path / "data"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8")
    return load_results(folder, ProblemLog())


def check(result: LoadResult, generated: list[dict[str, Value]], label: str) -> None:
    """Exactly the refused fields, record by record, and the kept points with their values."""
    expected = [expect(record) for record in generated]
    first = 2 if label == "line" else 1  # a CSV's header is line 1
    refused: dict[str, list[str]] = {}
    for problem in result.log.problems:
        assert problem.severity.value == "error" and problem.file.startswith("data/lab."), str(problem)
        refused.setdefault(problem.record, []).append(problem.field)
    assert {record: sorted(fields) for record, fields in refused.items()} == {
        f"{label} {n}": sorted(e.refused) for n, e in enumerate(expected, first) if e.refused
    }
    kept = [e.point for e in expected if not e.refused]
    rows = result.table.records()
    assert len(rows) == len(kept)
    for row, point in zip(rows, kept, strict=True):
        for key, wanted in point.items():
            assert row[key] == (pytest.approx(wanted, rel=1e-15) if isinstance(wanted, float) else wanted), (
                key
            )


@SETTINGS
@given(records(csv_cells=True))
def test_a_native_csv_loads_what_the_rules_keep(tmp_path: Path, generated: list[dict[str, Value]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([[written(record, key, True) for key in COLUMNS] for record in generated])
    check(load(tmp_path, "lab.csv", out.getvalue()), generated, "line")


@SETTINGS
@given(records(csv_cells=False))
def test_a_native_json_file_loads_what_the_rules_keep(
    tmp_path: Path, generated: list[dict[str, Value]]
) -> None:
    points = []
    for record in generated:
        point = {key: written(record, key, False) for key in COLUMNS}
        points.append({key: value for key, value in point.items() if value != "" or key in record})
    document = {
        "format": "site-builder-points",
        "version": 1,
        "dataset": {"id": "lab", "title": "Lab", "source": "notebook"},
        "points": points,
    }
    check(load(tmp_path, "lab.json", json.dumps(document)), generated, "record")


NUMBER_TEXT = st.one_of(
    st.text(alphabet="0123456789.eE+-_ \tinfatyINFATY\u0661\xa0", max_size=40),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(min_value=0, max_value=1e12).map(lambda x: f"{x:.25g}"),
    st.integers(min_value=0, max_value=10**40).map(str),
)


@SETTINGS
@given(st.lists(NUMBER_TEXT, min_size=1, max_size=4))
def test_a_number_cell_reads_as_pythons_float_of_its_text(tmp_path: Path, cells: list[str]) -> None:
    """A number written in a CSV cell: Python's `float` of the text, at most MAX_NUMBER_CHARS
    long, finite, at most LIMIT, > 0 for a throughput; an empty cell is a missing field."""
    text = "model,hardware,framework,precision,isl,osl,concurrency,median_tpot_ms,throughput_per_gpu\n"
    # each cell quoted as CSV quotes (its quotes doubled), its text as it is: JSON's quoting would
    # write '١' or a tab as an escape, another text than the one Python reads as a number
    quoted = ['"' + cell.replace('"', '""') + '"' for cell in cells]
    text += "".join(f"dsr1,h200,sglang,fp8,1024,1024,4,10,{cell}\n" for cell in quoted)
    result = load(tmp_path, "lab.csv", text)
    kept = iter(result.table.records())
    for n, cell in enumerate(cells, 2):
        try:
            number = float(cell) if len(cell) <= MAX_NUMBER_CHARS else math.nan
        except ValueError:
            number = math.nan
        if math.isfinite(number) and 0 < number <= LIMIT:
            assert next(kept)["throughput_per_gpu"] == number
        else:
            assert [(p.record, p.field) for p in result.log.errors if p.record == f"line {n}"] == [
                (f"line {n}", "throughput_per_gpu")
            ]
    assert next(kept, None) is None


# -- what the rules keep, by hand ------------------------------------------------------------------


def _csv(rows: list[dict[str, Any]]) -> str:
    columns = list(dict.fromkeys(k for row in rows for k in row))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([["" if row.get(c) is None else str(row.get(c)) for c in columns] for row in rows])
    return out.getvalue()


def test_sound_records_are_kept_and_a_bad_one_is_named(tmp_path: Path) -> None:
    rows = [dict(GOOD), {**GOOD, "throughput_per_gpu": -5}, {**GOOD, "concurrency": 8}]
    result = load(tmp_path, "lab.csv", _csv(rows))
    assert [p["concurrency"] for p in result.table.records()] == [4, 8]
    # 1 / (10 ms) = 100 tok/s/user, by hand
    assert [p["interactivity"] for p in result.table.records()] == [100.0, 100.0]
    assert [str(p) for p in result.log.errors] == [
        "error: data/lab.csv, line 3, field 'throughput_per_gpu': must be greater than 0, got '-5'"
    ]


def test_every_latency_column_is_read_in_seconds(tmp_path: Path) -> None:
    row = dict(GOOD)
    for metric in LATENCY_METRICS:
        for n, stat in enumerate(LATENCY_STATS, 1):
            row[f"{stat}_{metric}_ms"] = 10 * n
    (point,) = load(tmp_path, "lab.csv", _csv([row])).table.records()
    for metric in LATENCY_METRICS:
        assert [point[f"{metric}_{stat}"] for stat in LATENCY_STATS.values()] == [
            pytest.approx(n / 100) for n in range(1, 7)
        ]
    assert point["ttft_p99_9"] == 0.06  # 60 ms


def test_a_long_file_of_repeated_counts_reads_each_cell_by_the_rule(tmp_path: Path) -> None:
    """Over a thousand rows whose counts repeat (each distinct value judged once): sound, odd
    and hostile cells among them read exactly as a cell on its own does."""
    odd = ["1_000", " 8 ", "8.0", "-1", "abc", "1e999", "0", "2.5", "\u0661", ""]
    rows = [
        {**GOOD, "concurrency": odd[n // 7 % len(odd)] if n % 7 == 0 else ("4", "8")[n % 2], "tp": "8"}
        for n in range(1100)
    ]
    result = load(tmp_path, "lab.csv", _csv(rows))
    # "1_000", " 8 ", "8.0" and "\u0661" (an Arabic-Indic 1) read as Python's float reads them;
    # "-1", "abc", "1e999", "0", "2.5" and "" do not
    assert set(result.table.values("concurrency")) == {1, 4, 8, 1000}
    refused = {p.record for p in result.log.errors}
    assert len(result.table) + len(refused) == 1100
    assert all(p.field == "concurrency" for p in result.log.errors)
