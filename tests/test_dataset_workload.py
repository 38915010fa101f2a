"""A data set's `workload:` label (`_dataset.yaml`, or a native file's `dataset` block): said once
for a folder whose runs are all one variable-length workload. A record's own label wins, then the
nearest `_meta.yaml` that gives one, then the data set's.

The runs are real: the ShareGPT lines of SGLang bench_serving outputs in
tests/fixtures/clients/sglang-request-rate (source and licence in tests/fixtures/clients/README.md),
each line copied byte for byte; only the metadata and attribution files are ours.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

RUNS = Path(__file__).resolve().parent / "fixtures" / "clients" / "sglang-request-rate"
ONLINE = "llama_3_3_70b_online_output.jsonl"
ATTRIBUTION = "id: h200\ntitle: Llama 3.3 70B on 4 x H200\nsource: datacrunch-research/h200-benchmarks\n"


def _sharegpt_lines() -> list[str]:
    """The fixture's ShareGPT runs (`dataset_name: sharegpt`), as written."""
    lines = (RUNS / ONLINE).read_text().splitlines()
    return [line for line in lines if json.loads(line)["dataset_name"] == "sharegpt"]


def _folder(results: Path, dataset_yaml: str) -> Path:
    """A data set of ShareGPT runs in two files (one in a subfolder), with the fixture's metadata."""
    folder = results / "h200"
    (folder / "more").mkdir(parents=True)
    text = "\n".join(_sharegpt_lines()) + "\n"
    (folder / "a.jsonl").write_text(text)
    (folder / "more" / "b.jsonl").write_text(text)
    shutil.copy(RUNS / "_meta.yaml", folder / "_meta.yaml")
    (folder / "_dataset.yaml").write_text(dataset_yaml)
    return folder


def _labels(results: Path) -> tuple[dict[str, set[str | None]], ProblemLog]:
    log = ProblemLog()
    records = load_results(results, log).table.records(columns=("source_file", "workload"))
    found: dict[str, set[str | None]] = {}
    for record in records:
        found.setdefault(record["source_file"].rsplit("/", 1)[-1], set()).add(record["workload"])
    return found, log


def test_the_data_set_labels_every_run_of_its_folders(tmp_path: Path) -> None:
    _folder(tmp_path, ATTRIBUTION + "workload: sharegpt\n")
    labels, log = _labels(tmp_path)
    assert labels == {"a.jsonl": {"sharegpt"}, "b.jsonl": {"sharegpt"}}
    # labelled runs need no "derived from the file" notice: their lengths are each run's own
    assert not [n for n in log.notices if "derived from the file" in n.reason]
    assert log.errors == [] and log.warnings == []


def test_a_meta_yaml_label_wins_over_the_data_sets(tmp_path: Path) -> None:
    folder = _folder(tmp_path, ATTRIBUTION + "workload: sharegpt\n")
    (folder / "more" / "_meta.yaml").write_text("workload: sharegpt-v3\n")
    labels, log = _labels(tmp_path)
    assert labels == {"a.jsonl": {"sharegpt"}, "b.jsonl": {"sharegpt-v3"}}
    assert log.errors == []


def test_without_a_label_the_runs_stay_workloads_of_their_own(tmp_path: Path) -> None:
    _folder(tmp_path, ATTRIBUTION)
    labels, log = _labels(tmp_path)
    assert labels == {"a.jsonl": {None}, "b.jsonl": {None}}
    assert [n for n in log.notices if "`workload: <name>`" in n.reason]


def test_a_bad_label_is_one_error_naming_the_data_set_file_and_field(tmp_path: Path) -> None:
    _folder(tmp_path, ATTRIBUTION + "workload: ShareGPT v3\n")
    labels, log = _labels(tmp_path)
    assert labels == {}  # nothing from a data set that cannot be read
    (error,) = log.errors  # once, though two result files lie under it
    assert error.file == f"{tmp_path.name}/h200/_dataset.yaml" and error.field == "workload"
    assert "a letter, then letters, digits" in error.reason and "ShareGPT v3" in error.reason


def test_native_records_take_the_data_sets_label_unless_they_name_one(tmp_path: Path) -> None:
    """An import of the runs, its records without a label, its `dataset` block naming one: each
    record takes it, but the one that names its own label keeps that."""
    folder = _folder(tmp_path / "raw", ATTRIBUTION)
    out = tmp_path / "native" / "runs.json"
    attribution = ["--id", "imported", "--title", "Imported", "--source", "the SGLang runs"]
    assert main(["import", str(folder / "a.jsonl"), "-o", str(out), *attribution]) == 0
    document = json.loads(out.read_text())
    document["dataset"]["workload"] = "sharegpt"
    document["points"][1]["workload"] = "sharegpt-v3"
    out.write_text(json.dumps(document))
    log = ProblemLog()
    records = load_results(out.parent, log).table.records(columns=("record", "workload"))
    assert [(r["record"], r["workload"]) for r in records] == [
        ("record 1", "sharegpt"),
        ("record 2", "sharegpt-v3"),
    ]
    assert log.errors == []


def test_a_native_csv_takes_the_label_of_its_dataset_yaml(tmp_path: Path) -> None:
    """The same import written as a native CSV beside a `_dataset.yaml` naming the label: a row
    with an empty `workload` cell takes it, a row naming one keeps it."""
    folder = _folder(tmp_path / "raw", ATTRIBUTION)
    out = tmp_path / "imported.json"
    attribution = ["--id", "imported", "--title", "Imported", "--source", "the SGLang runs"]
    assert main(["import", str(folder / "a.jsonl"), "-o", str(out), *attribution]) == 0
    points = json.loads(out.read_text())["points"]
    points[1]["workload"] = "sharegpt-v3"
    header = sorted({key for point in points for key in point} - {"note"})
    csv_folder = tmp_path / "csv"
    csv_folder.mkdir()
    rows = [",".join(header)] + [",".join(str(p.get(key, "")) for key in header) for p in points]
    (csv_folder / "runs.csv").write_text("\n".join(rows) + "\n")
    (csv_folder / "_dataset.yaml").write_text(ATTRIBUTION + "workload: sharegpt\n")
    log = ProblemLog()
    records = load_results(csv_folder, log).table.records(columns=("record", "workload"))
    assert [(r["record"], r["workload"]) for r in records] == [
        ("line 2", "sharegpt"),
        ("line 3", "sharegpt-v3"),
    ]
    assert log.errors == []
