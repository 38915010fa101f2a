"""MLPerf summaries without a `_dataset.yaml`: every one is named `mlperf_log_summary.txt`, so its
data set's id comes from its path under the results root, never from the file name alone. Two
submissions in two folders are then two data sets, and duplicates (judged within one data set)
never let one replace the other; within one attributed data set they are duplicates, as any.

The runs are real: AMD's v4.1 Server run in tests/fixtures/clients/mlperf (source and licence in
tests/fixtures/clients/README.md), copied whole with its `_meta.yaml` into two folders.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from site_builder.validate import drop_duplicates

SUBMISSION = Path(__file__).resolve().parent / "fixtures" / "clients" / "mlperf"
SERVER = "results/8xMI300X_2xEPYC-9374F/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt"


def _id_of(relative: str) -> str:
    """The id the docs promise for a file without a `_dataset.yaml`: its path under the results
    root without the suffix, lowercased, each run of other characters a '-', cut to 64 characters
    with the first 8 hex digits of the path's SHA-256 where it is longer."""
    stem = relative.removesuffix(".txt")
    slug = re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-.")
    if len(slug) <= 64:
        return slug
    return slug[:55].rstrip("-.") + "-" + hashlib.sha256(stem.encode()).hexdigest()[:8]


def _two_submissions(results: Path) -> None:
    for lab in ("lab-a", "lab-b"):
        shutil.copytree(SUBMISSION, results / lab)


def test_two_submissions_in_two_folders_are_two_data_sets(tmp_path: Path) -> None:
    _two_submissions(tmp_path)
    log = ProblemLog()
    loaded = load_results(tmp_path, log)
    kept = drop_duplicates(loaded.table, log)
    records = kept.records(columns=("dataset", "source_file", "throughput_per_gpu"))
    assert [r["dataset"] for r in records] == [_id_of(f"{lab}/{SERVER}") for lab in ("lab-a", "lab-b")]
    assert records[0]["dataset"] != records[1]["dataset"]
    assert records[0]["throughput_per_gpu"] == records[1]["throughput_per_gpu"]  # same run, both kept
    assert [r["source_file"] for r in records] == [
        f"{tmp_path.name}/{lab}/{SERVER}" for lab in ("lab-a", "lab-b")
    ]
    assert log.errors == [] and log.warnings == []


def test_the_id_is_the_same_wherever_the_project_lies(tmp_path: Path) -> None:
    """Stable: derived from the path under the results root only, not from where that root is."""
    ids = []
    for where in ("one", "two/deeper"):
        results = tmp_path / where / "results"
        _two_submissions(results)
        ids.append(load_results(results, ProblemLog()).table.records(columns=("dataset",)))
    assert ids[0] == ids[1]


def test_in_one_attributed_data_set_they_are_duplicates(tmp_path: Path) -> None:
    """One `_dataset.yaml` above both copies: one data set, so the second copy is a duplicate of
    the first, said once, naming which is kept and why."""
    _two_submissions(tmp_path)
    (tmp_path / "_dataset.yaml").write_text("id: amd\ntitle: AMD's MLPerf v4.1 runs\nsource: mlcommons\n")
    log = ProblemLog()
    kept = drop_duplicates(load_results(tmp_path, log).table, log)
    assert len(kept) == 1
    (warning,) = log.warnings
    assert "a duplicate point (dataset 'amd'" in warning.reason and "neither dated" in warning.reason
