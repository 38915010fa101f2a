"""An MLPerf submission's accuracy-target copies count once: a run filed under both
`llama2-70b-99/` and `llama2-70b-99.9/` (the same bytes) is one point, kept from the stricter
target, with one warning per pair naming both folders and the `exclude:` that keeps the other.
Two different runs that share a configuration stay two points.

The runs are real (tests/fixtures/clients/mlperf-targets, sources and licence in
tests/fixtures/clients/README.md): AMD's 8 × MI300X llama2-70b Server summary, which the v4.1
submission files byte for byte under both targets, and HPE's Cray XD670 (8 × H100) Server
summaries, two different runs under the two targets.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.problems import Problem, ProblemLog
from site_builder.read.load import load_results
from site_builder.validate import drop_duplicates

TARGETS = Path(__file__).parent / "fixtures" / "clients" / "mlperf-targets"
AMD = "results/8xMI300X_2xEPYC-9374F"
HPE = "results/HPE_Cray_XD670_H100_SXM_80GBx8_TRT"
RUN = "Server/performance/run_1/mlperf_log_summary.txt"


def _summary(relative: str) -> dict[str, str]:
    """The summary's `key : value` lines, read here on their own."""
    found: dict[str, str] = {}
    for line in (TARGETS / relative).read_text().splitlines():
        key, colon, value = line.partition(":")
        if colon and value.strip():
            found.setdefault(key.strip(), value.strip())
    return found


def _copies(log: ProblemLog) -> list[Problem]:
    return [p for p in log.warnings if p.reason.startswith("an accuracy-target copy")]


def _load(data: Path, exclude: tuple[str, ...] = ()) -> tuple[list[dict[str, object]], ProblemLog]:
    log = ProblemLog()
    table = drop_duplicates(load_results(data, log, exclude=exclude).table, log)
    assert [str(p) for p in log.errors] == []
    return table.records(columns=("source_file", "throughput_per_gpu", "concurrency")), log


def test_the_fixture_holds_one_run_under_two_targets_and_two_runs_under_two() -> None:
    """What the test rests on, read from the files themselves."""
    amd = [(TARGETS / AMD / f"llama2-70b-{t}" / RUN).read_bytes() for t in ("99", "99.9")]
    hpe = [(TARGETS / HPE / f"llama2-70b-{t}" / RUN).read_bytes() for t in ("99", "99.9")]
    assert amd[0] == amd[1] and hpe[0] != hpe[1]


def test_a_copy_under_both_targets_counts_once(tmp_path: Path) -> None:
    shutil.copytree(TARGETS, tmp_path / "mlperf")
    points, log = _load(tmp_path)
    name = tmp_path.name
    files = [p["source_file"] for p in points]
    assert files == [
        f"{name}/mlperf/{AMD}/llama2-70b-99.9/{RUN}",  # the stricter target's copy
        f"{name}/mlperf/{HPE}/llama2-70b-99/{RUN}",  # two runs: both kept
        f"{name}/mlperf/{HPE}/llama2-70b-99.9/{RUN}",
    ]
    raw = _summary(f"{AMD}/llama2-70b-99.9/{RUN}")
    assert points[0]["throughput_per_gpu"] == pytest.approx(float(raw["Completed tokens per second"]) / 8)
    hpe = [_summary(f"{HPE}/llama2-70b-{t}/{RUN}") for t in ("99", "99.9")]
    assert [p["throughput_per_gpu"] for p in points[1:]] == pytest.approx(
        [float(r["Completed tokens per second"]) / 8 for r in hpe]
    )
    (warning,) = _copies(log)
    assert warning.file == f"{name}/mlperf/{AMD}/llama2-70b-99/{RUN}"
    assert "llama2-70b-99/ and llama2-70b-99.9/ hold one run" in warning.reason
    assert "from llama2-70b-99.9/ (the stricter accuracy target" in warning.reason
    assert f"exclude: ['mlperf/{AMD}/llama2-70b-99.9'] to content/site.yaml" in warning.reason
    assert log.warnings == [warning]  # and no duplicate warning besides


def test_the_exclude_the_warning_names_keeps_the_other_copy(tmp_path: Path) -> None:
    shutil.copytree(TARGETS, tmp_path / "mlperf")
    points, log = _load(tmp_path, exclude=(f"mlperf/{AMD}/llama2-70b-99.9",))
    assert points[0]["source_file"] == f"{tmp_path.name}/mlperf/{AMD}/llama2-70b-99/{RUN}"
    assert _copies(log) == []


def test_in_one_data_set_the_copy_is_said_once_and_different_runs_stay_two(tmp_path: Path) -> None:
    """One `_dataset.yaml` above both systems: the copy is said once as a copy (not again as a
    duplicate); HPE's two runs, whose measured concurrencies differ (LoadGen paces by rate), stay
    two points of the one data set."""
    shutil.copytree(TARGETS, tmp_path / "mlperf")
    (tmp_path / "mlperf" / "_dataset.yaml").write_text("id: v41\ntitle: MLPerf v4.1\nsource: mlcommons\n")
    points, log = _load(tmp_path)
    assert len(points) == 3
    assert [p["concurrency"] for p in points[1:]] == [
        round(float(r["Completed samples per second"]) * float(r["Mean latency (ns)"]) / 1e9)
        for r in (_summary(f"{HPE}/llama2-70b-{t}/{RUN}") for t in ("99", "99.9"))
    ]
    (copy,) = _copies(log)
    assert log.warnings == [copy]


def test_copies_given_different_configurations_are_both_kept(tmp_path: Path) -> None:
    """A `variant:` the user gives one target's folder makes the two different points on purpose."""
    shutil.copytree(TARGETS / AMD, tmp_path / "amd")
    (tmp_path / "amd" / "llama2-70b-99.9" / "_meta.yaml").write_text("variant: high-accuracy\n")
    points, log = _load(tmp_path)
    assert len(points) == 2 and _copies(log) == []


def test_a_copy_of_another_system_or_folder_is_no_accuracy_target_copy(tmp_path: Path) -> None:
    """The same bytes in two submissions' folders (lab-a/, lab-b/) are not copies of one
    benchmark folder: each is kept (they are two data sets: tests/test_mlperf_datasets.py)."""
    for lab in ("lab-a", "lab-b"):
        shutil.copytree(TARGETS / AMD / "llama2-70b-99", tmp_path / lab / "llama2-70b-99")
        shutil.copy(TARGETS / AMD / "_meta.yaml", tmp_path / lab / "_meta.yaml")
    points, log = _load(tmp_path)
    assert len(points) == 2 and _copies(log) == []
