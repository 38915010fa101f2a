"""The InferenceX dashboard's CSV export, read from a real export (tests/fixtures/clients/README.md
gives its source and licence): every point equals the raw file's numbers, read here with the csv
module alone; the licence lines above the header are skipped and said once per folder; the
chart-axis columns (whatever the chart showed) are not read."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.files import LIMIT
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

FOLDER = Path(__file__).parent / "fixtures" / "clients" / "inferencex-csv"
EXPORT = FOLDER / "InferenceX_Kimi-K2.5_interactivity.csv"
PREAMBLE = 3  # the export's licence lines


def _load(folder: Path) -> tuple[list[dict[str, Any]], ProblemLog]:
    log = ProblemLog()
    return load_results(folder, log).table.records(), log


def _raw_rows(text: str) -> list[dict[str, str]]:
    """The export's rows as the csv module reads them, its comment lines left out."""
    return list(csv.DictReader(io.StringIO("".join(text.splitlines(keepends=True)[PREAMBLE:]))))


def test_every_point_equals_the_raw_export() -> None:
    points, log = _load(FOLDER)
    assert [str(p) for p in log.problems] == []  # the folder's _dataset.yaml credits the licence
    raw = _raw_rows(EXPORT.read_text())
    assert len(points) == len(raw) == 22
    by_line = {point["record"]: point for point in points}
    for line, row in enumerate(raw, PREAMBLE + 2):  # the header is line 4
        point = by_line[f"line {line}"]
        assert point["model"] == "kimik2.5"  # the dashboard's "Kimi-K2.5"
        assert (point["hardware"], point["framework"], point["precision"]) == (
            row["Hardware"],
            row["Framework"],
            row["Precision"],
        )
        assert (point["isl"], point["osl"]) == (8192, 1024)
        assert point["concurrency"] == int(row["Concurrency"])
        assert point["tp"] == point["gpu_count"] == int(row["TP"])
        assert point["ep"] == int(row["EP"])
        # per-chip throughput as published; interactivity 1 ÷ the median TPOT in seconds
        assert point["throughput_per_gpu"] == float(row["Throughput/Chip (tok/s)"])
        assert point["output_throughput_per_gpu"] == float(row["Output Throughput/Chip (tok/s)"])
        assert point["interactivity"] == pytest.approx(1 / float(row["Median TPOT (s)"]), rel=1e-12)
        assert point["interactivity"] == pytest.approx(
            float(row["Median Interactivity (tok/s/user)"]), rel=1e-12
        )
        for ours, theirs in (("ttft_p99", "P99 TTFT (s)"), ("e2el_median", "Median E2E Latency (s)")):
            assert point[ours] == float(row[theirs])  # seconds, as the header says
        assert point["date"] == "2026-08-22"
        assert point["run_url"] == row["Run URL"]
        assert point["client"] == "InferenceX dashboard CSV export"


def test_one_row_by_hand() -> None:
    """Line 5, MI355X TP8 at concurrency 4, its numbers written out."""
    points, _ = _load(FOLDER)
    (point,) = [p for p in points if p["record"] == "line 5"]
    assert point["throughput_per_gpu"] == 495.89065076265484
    assert point["interactivity"] == pytest.approx(1 / 0.008606551530706419, rel=1e-12)  # 116.19
    assert point["ttft_median"] == 0.2092948849312961
    assert point["tpot_p99"] == 0.008839763496319954
    assert point["configuration"] == "vllm TP8 (agg, 8 GPUs)"


def test_comment_lines_are_said_once_per_folder_without_a_dataset_file(tmp_path: Path) -> None:
    shutil.copy(EXPORT, tmp_path / "a.csv")
    shutil.copy(EXPORT, tmp_path / "b.csv")
    points, log = _load(tmp_path)
    assert len(points) == 44 and log.errors == []
    (notice,) = [p for p in log.notices if "comment lines" in p.reason]
    assert "_dataset.yaml" in notice.reason and "licence" in notice.reason
    assert "a.csv" in notice.reason and "b.csv" in notice.reason  # one message, both files


def test_the_chart_axis_columns_are_not_read(tmp_path: Path) -> None:
    """The two columns after Date are the chart's axes as the reader had chosen them (another
    choice names them differently); the points are the same whatever they hold."""
    lines = EXPORT.read_text().splitlines(keepends=True)
    header = lines[PREAMBLE].replace(
        "Token Throughput per All in Utility MW (tok/s/MW),Interactivity (tok/s/user)",
        "Token Throughput per Chip (tok/s/chip),P90 Interactivity (tok/s/user)",
    )
    assert header != lines[PREAMBLE]
    (tmp_path / "export.csv").write_text("".join([*lines[:PREAMBLE], header, *lines[PREAMBLE + 1 :]]))
    shutil.copy(FOLDER / "_dataset.yaml", tmp_path)
    theirs, log = _load(tmp_path)
    ours, _ = _load(FOLDER)
    assert log.problems == []
    keys = ("throughput_per_gpu", "interactivity", "concurrency", "gpu_count", "ttft_median")
    assert [[p[k] for k in keys] for p in theirs] == [[p[k] for k in keys] for p in ours]


def test_a_disaggregated_row_runs_on_its_prefill_and_decode_chips(tmp_path: Path) -> None:
    lines = EXPORT.read_text().splitlines(keepends=True)
    row = next(csv.reader([lines[PREAMBLE + 1]]))
    names = next(csv.reader([lines[PREAMBLE]]))
    cells = dict(zip(names, row, strict=True))
    cells.update(
        {"Disaggregated": "true", "Is Multinode": "true", "Num Prefill Chips": "8", "Num Decode Chips": "16"}
    )
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([names, [cells[n] for n in names]])
    (tmp_path / "disagg.csv").write_text(text.getvalue())
    (point,), log = _load(tmp_path)
    assert log.errors == []
    assert (point["gpu_count"], point["prefill_gpus"], point["decode_gpus"]) == (24, 8, 16)
    assert point["throughput_per_gpu"] == float(cells["Throughput/Chip (tok/s)"])  # as published


# The export's columns before mid-2026 (InferenceX-app, lib/csv-export-helpers.ts at commit
# c410b1f5b2422761d304581c797e95d72730dee2): per-GPU names and "(ms)" latency headers over the
# same values, the API's seconds (lib/benchmark-transform.ts takes `metrics.median_tpot`).
OLD_COLUMNS = [
    "Model", "ISL", "OSL", "Hardware", "Hardware Key", "Framework", "Precision", "TP", "Concurrency", "Date",
    "Throughput/GPU (tok/s)", "Output Throughput/GPU (tok/s)", "Input Throughput/GPU (tok/s)",
    *(f"{s} {m} (ms)" for m in ("TTFT", "TPOT") for s in ("Mean", "Median", "P99", "Std")),
    *(f"{s} Interactivity (tok/s/user)" for s in ("Mean", "Median", "P99", "Std")),
    *(f"{s} {m} (ms)" for m in ("ITL", "E2E Latency") for s in ("Mean", "Median", "P99", "Std")),
    "Disaggregated", "Num Prefill GPUs", "Num Decode GPUs", "Spec Decoding", "EP", "DP Attention", "Is Multinode",
]  # fmt: skip


def _as_old_export(row: dict[str, str]) -> list[str]:
    """A row of the real export written under the older columns (the same values)."""
    renamed = {
        name.replace("Chip", "GPU").replace("(s)", "(ms)").replace("Chips", "GPUs"): value
        for name, value in row.items()
    }
    return [renamed[name] for name in OLD_COLUMNS]


def test_an_older_export_with_ms_headers_over_seconds_gives_the_same_points(tmp_path: Path) -> None:
    raw = _raw_rows(EXPORT.read_text())
    text = io.StringIO()
    lines = EXPORT.read_text().splitlines(keepends=True)
    text.write("".join(lines[:PREAMBLE]))
    csv.writer(text, lineterminator="\n").writerows([OLD_COLUMNS, *map(_as_old_export, raw)])
    (tmp_path / "old.csv").write_text(text.getvalue())
    shutil.copy(FOLDER / "_dataset.yaml", tmp_path)
    assert len(OLD_COLUMNS) == 40
    theirs, log = _load(tmp_path)
    ours, _ = _load(FOLDER)
    assert log.problems == []
    keys = ("throughput_per_gpu", "interactivity", "ttft_median", "e2el_p99", "gpu_count", "concurrency")
    assert [[p[k] for k in keys] for p in theirs] == [[p[k] for k in keys] for p in ours]
    assert theirs[0]["ttft_median"] == 0.2092948849312961  # seconds, though the header says ms


def test_newer_exports_give_the_physical_chips(tmp_path: Path) -> None:
    """A DP deployment (TP 1 on 8 chips): the current exporter writes Physical Chips."""
    lines = EXPORT.read_text().splitlines(keepends=True)
    names = [*next(csv.reader([lines[PREAMBLE]])), "Physical Chips", "DP"]
    row = [*next(csv.reader([lines[PREAMBLE + 1]])), "8", "8"]
    row[names.index("TP")] = "1"
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([names, row])
    (tmp_path / "dp.csv").write_text(text.getvalue())
    (point,), log = _load(tmp_path)
    assert log.errors == []
    assert (point["tp"], point["gpu_count"]) == (1, 8)


def test_check_and_import_read_the_export_as_the_docs_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "content").mkdir()
    shutil.copytree(FOLDER, tmp_path / "data" / "results" / "inferencex-csv")
    main(["check", "--root", str(tmp_path)])
    out = capsys.readouterr().out
    assert "check ok:" in out and "from 22 points, 0 errors" in out
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "imported.json"
    main(
        [
            "import",
            str(tmp_path / "data" / "results" / "inferencex-csv" / EXPORT.name),
            "-o",
            str(target),
            "--id",
            "ix",
            "--title",
            "InferenceX export",
            "--source",
            "InferenceX dashboard",
            "--licence",
            "Apache-2.0",
        ]
    )
    imported, log = _load(target.parent)
    assert log.problems == []
    original, _ = _load(FOLDER)
    keys = (
        "hardware",
        "tp",
        "ep",
        "concurrency",
        "throughput_per_gpu",
        "interactivity",
        "e2el_p99",
        "run_url",
    )
    assert sorted(tuple(p[k] for k in keys) for p in imported) == sorted(
        tuple(p[k] for k in keys) for p in original
    )


_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_COLUMNS = [
    "Concurrency",
    "TP",
    "Throughput/Chip (tok/s)",
    "Median TPOT (s)",
    "Model",
    "Disaggregated",
    "Date",
]


@_SETTINGS
@given(
    st.dictionaries(
        st.sampled_from(_COLUMNS),
        st.text(max_size=12) | st.sampled_from(["0", "-1", "nan", "1e999", "inf", ""]),
    )
)
def test_hostile_cells_never_raise(tmp_path: Path, changes: dict[str, str]) -> None:
    lines = EXPORT.read_text().splitlines(keepends=True)
    names = next(csv.reader([lines[PREAMBLE]]))
    cells = dict(zip(names, next(csv.reader([lines[PREAMBLE + 1]])), strict=True)) | changes
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([names, [cells[n] for n in names]])
    folder = tmp_path / "data"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / "export.csv").write_text(text.getvalue(), encoding="utf-8", errors="replace")
    points, log = _load(folder)
    for point in points:
        assert 0 < point["throughput_per_gpu"] <= LIMIT and 0 < point["interactivity"] <= LIMIT
    for problem in log.problems:
        assert str(problem).isprintable() and problem.file.startswith("data")
