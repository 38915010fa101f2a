"""A data set's `workload:` label (`_dataset.yaml`, or a native file's `dataset` block): said once
for a folder whose runs are all one variable-length workload. A record's own label wins, then the
nearest `_meta.yaml` that gives one, then the data set's.

The runs are real: two GuideLLM reports over a prompt file (AIME 2024 problems, so every run's
mean input length is its own) in tests/fixtures/clients/guidellm-v1 (source and licence in
tests/fixtures/clients/README.md), copied as they are with their `_meta.yaml`; only the
attribution files and the metadata added here are ours.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

RUNS = Path(__file__).resolve().parent / "fixtures" / "clients" / "guidellm-v1"
ATTRIBUTION = "id: xpu\ntitle: Qwen3 4B on Intel XPUs\nsource: danielkorat/guidellm-bench\n"
SYNC, CONCURRENT = "sync-tp4", "concurrent4-tp4"  # the two runs' folders


def _folder(results: Path, dataset_yaml: str) -> Path:
    """The fixture's folder (two runs, one a subfolder, and its _meta.yaml) as one data set."""
    folder = results / "xpu"
    shutil.copytree(RUNS, folder)
    (folder / "_dataset.yaml").write_text(dataset_yaml)
    return folder


def _labels(results: Path) -> tuple[dict[str, set[str | None]], ProblemLog]:
    log = ProblemLog()
    records = load_results(results, log).table.records(columns=("source_file", "workload"))
    found: dict[str, set[str | None]] = {}
    for record in records:
        found.setdefault(record["source_file"].split("/")[-2], set()).add(record["workload"])
    return found, log


def test_the_data_set_labels_every_run_of_its_folders(tmp_path: Path) -> None:
    _folder(tmp_path, ATTRIBUTION + "workload: aime-2024\n")
    labels, log = _labels(tmp_path)
    assert labels == {SYNC: {"aime-2024"}, CONCURRENT: {"aime-2024"}}
    # labelled runs need no "derived from the file" notice: their lengths are each run's own
    assert not [n for n in log.notices if "derived from the file" in n.reason]
    assert log.errors == [] and log.warnings == []


def test_a_meta_yaml_label_wins_over_the_data_sets(tmp_path: Path) -> None:
    folder = _folder(tmp_path, ATTRIBUTION + "workload: aime-2024\n")
    (folder / SYNC / "_meta.yaml").write_text("workload: aime-2024-v2\n")
    labels, log = _labels(tmp_path)
    assert labels == {SYNC: {"aime-2024-v2"}, CONCURRENT: {"aime-2024"}}
    assert log.errors == []


def test_without_a_label_the_runs_stay_workloads_of_their_own(tmp_path: Path) -> None:
    _folder(tmp_path, ATTRIBUTION)
    labels, log = _labels(tmp_path)
    assert labels == {SYNC: {None}, CONCURRENT: {None}}
    assert [n for n in log.notices if "`workload: <name>`" in n.reason]


def test_a_bad_label_is_one_error_naming_the_data_set_file_and_field(tmp_path: Path) -> None:
    _folder(tmp_path, ATTRIBUTION + "workload: AIME 2024\n")
    labels, log = _labels(tmp_path)
    assert labels == {}  # nothing from a data set that cannot be read
    (error,) = log.errors  # once, though two result files lie under it
    assert error.file == f"{tmp_path.name}/xpu/_dataset.yaml" and error.field == "workload"
    assert "a letter, then letters, digits" in error.reason and "AIME 2024" in error.reason


def test_native_records_take_the_data_sets_label_unless_they_name_one(tmp_path: Path) -> None:
    """An import of the runs, its records without a label, its `dataset` block naming one: each
    record takes it, but the one that names its own label keeps that."""
    folder = _folder(tmp_path / "raw", ATTRIBUTION)
    out = tmp_path / "native" / "runs.json"
    attribution = ["--id", "imported", "--title", "Imported", "--source", "the GuideLLM runs"]
    assert main(["import", str(folder), "-o", str(out), *attribution]) == 0
    document = json.loads(out.read_text())
    document["dataset"]["workload"] = "aime-2024"
    document["points"][1]["workload"] = "aime-2024-v2"
    out.write_text(json.dumps(document))
    log = ProblemLog()
    records = load_results(out.parent, log).table.records(columns=("record", "workload"))
    assert [(r["record"], r["workload"]) for r in records] == [
        ("record 1", "aime-2024"),
        ("record 2", "aime-2024-v2"),
    ]
    assert log.errors == []


def test_a_native_csv_takes_the_label_of_its_dataset_yaml(tmp_path: Path) -> None:
    """The same import written as a native CSV beside a `_dataset.yaml` naming the label: a row
    with an empty `workload` cell takes it, a row naming one keeps it."""
    folder = _folder(tmp_path / "raw", ATTRIBUTION)
    out = tmp_path / "imported.json"
    attribution = ["--id", "imported", "--title", "Imported", "--source", "the GuideLLM runs"]
    assert main(["import", str(folder), "-o", str(out), *attribution]) == 0
    points = json.loads(out.read_text())["points"]
    points[1]["workload"] = "aime-2024-v2"
    header = sorted({key for point in points for key in point} - {"note"})
    csv_folder = tmp_path / "csv"
    csv_folder.mkdir()
    rows = [",".join(header)] + [",".join(str(p.get(key, "")) for key in header) for p in points]
    (csv_folder / "runs.csv").write_text("\n".join(rows) + "\n")
    (csv_folder / "_dataset.yaml").write_text(ATTRIBUTION + "workload: aime-2024\n")
    log = ProblemLog()
    records = load_results(csv_folder, log).table.records(columns=("record", "workload"))
    assert [(r["record"], r["workload"]) for r in records] == [
        ("line 2", "aime-2024"),
        ("line 3", "aime-2024-v2"),
    ]
    assert log.errors == []
