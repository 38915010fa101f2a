"""What benchmark clients write (AIPerf, GuideLLM, vLLM bench serve, SGLang bench_serving), loaded
as a user drops the client's output folder under data/: numbers equal to the client's own summary
numbers, companion files skipped, and a comparison page built from them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read.load import excluded, load_results

CLIENTS = Path(__file__).parent / "fixtures" / "clients"
ROOT = Path(__file__).resolve().parents[1]


def _points(folder: str) -> tuple[list[dict[str, Any]], ProblemLog]:
    log = ProblemLog()
    result = load_results(CLIENTS / folder, log)
    assert [str(p) for p in log.errors] == []
    return sorted(result.table.records(), key=lambda p: p["concurrency"]), log


def test_aiperf_sweep_equals_its_own_summary_numbers() -> None:
    points, log = _points("aiperf-sweep")
    assert [p["concurrency"] for p in points] == [4, 16, 64]
    for point in points:
        raw = json.loads(
            (
                CLIENTS
                / "aiperf-sweep"
                / f"concurrency_{point['concurrency']}"
                / "profile_export_aiperf.json"
            ).read_text()
        )
        # AIPerf's inter_token_latency is per request (latency - TTFT) / (OSL - 1): our TPOT, in ms
        assert point["interactivity"] == pytest.approx(1000 / raw["inter_token_latency"]["p50"], rel=1e-12)
        assert point["throughput_per_gpu"] == pytest.approx(
            raw["total_token_throughput"]["avg"] / 8, rel=1e-12
        )
        assert point["tpot_p99"] == pytest.approx(raw["inter_token_latency"]["p99"] / 1000)
        assert point["itl_median"] == pytest.approx(raw["inter_chunk_latency"]["p50"] / 1000)
        assert (point["isl"], point["osl"]) == (1024, 1024)
        assert point["model"] == "dsr1" and point["gpu_count"] == 8 and point["precision"] == "fp8"
        assert point["client"] == "AIPerf 0.13.0" and point["date"] == "2026-10-20"
    # the run at concurrency 4: 9.8 ms median TPOT is 102.04 tok/s/user
    assert points[0]["interactivity"] == pytest.approx(102.0408, rel=1e-5)
    skipped = {Path(p.file).name for p in log.notices}
    assert skipped >= {"inputs.json", "run_config.json", "profile_export.jsonl", "profile_export_aiperf.csv"}
    # the sweep's two aggregate files, skipped for one reason in one folder: one notice naming both
    (aggregate,) = [p for p in log.notices if p.file.endswith("sweep_aggregate/")]
    assert aggregate.reason.endswith(
        "(2 files: profile_export_aiperf_sweep.csv, profile_export_aiperf_sweep.json)"
    )


def test_aiperf_older_schemas() -> None:
    points, _ = _points("aiperf-legacy")
    no_version, schema_11 = points
    raw = json.loads((CLIENTS / "aiperf-legacy" / "no-version" / "profile_export_aiperf.json").read_text())
    # no total_token_throughput: (total_isl + total_osl) / benchmark_duration, here 80 × 2048 tokens
    tokens = raw["total_isl"]["avg"] + raw["total_osl"]["avg"]
    assert tokens == 80 * 2048
    assert no_version["throughput_per_gpu"] == pytest.approx(
        tokens / raw["benchmark_duration"]["avg"] / 8, rel=1e-12
    )
    assert no_version["concurrency"] == 8 and no_version["client"] == "AIPerf"
    assert schema_11["concurrency"] == 32 and schema_11["client"] == "AIPerf 0.8.0"
    assert schema_11["interactivity"] == pytest.approx(1000 / 16.0, rel=1e-12)


def test_aiperf_cancelled_run_and_failed_requests(tmp_path: Path) -> None:
    source = json.loads(
        (CLIENTS / "aiperf-sweep" / "concurrency_16" / "profile_export_aiperf.json").read_text()
    )
    (tmp_path / "_meta.yaml").write_text("hardware: b200\nframework: vllm\nprecision: fp8\ntp: 8\n")
    cancelled = {**source, "was_cancelled": True}
    failing = {**source, "error_request_count": {"unit": "requests", "avg": 20.0}}  # 160 of 180 = 89 %
    (tmp_path / "a.json").write_text(json.dumps(cancelled))
    (tmp_path / "b.json").write_text(json.dumps(failing))
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    found = {(Path(p.file).name, p.field) for p in log.errors}
    assert found == {("a.json", "was_cancelled"), ("b.json", "request_count")}
    assert "only 160 of 180 requests completed (89%; 20 errors, 0 cancelled)" in str(log.errors[1])


def test_guidellm_report_picks_the_fields_of_our_definitions() -> None:
    points, log = _points("guidellm")
    raw = json.loads((CLIENTS / "guidellm" / "benchmarks.json").read_text())
    by_index = {int(p["record"].split("[")[1].rstrip("]")): p for p in points}
    assert sorted(by_index) == [0, 2, 3, 4]  # [1] is the sweep's throughput run: no fixed concurrency
    (skip,) = [p for p in log.notices if p.field == "config.strategy"]
    assert skip.record == "benchmarks[1]" and "throughput benchmark skipped" in skip.reason
    for index, point in by_index.items():
        metrics = raw["benchmarks"][index]["metrics"]
        itl = metrics["inter_token_latency_ms"]["successful"]["median"]
        tpot_with_first = metrics["time_per_output_token_ms"]["successful"]["median"]
        assert tpot_with_first != itl
        assert point["interactivity"] == pytest.approx(1000 / itl, rel=1e-12)
        # the run's throughput is the time-weighted mean over all requests, not the rate series' median
        total = metrics["tokens_per_second"]["total"]
        assert point["throughput_per_gpu"] == pytest.approx(total["mean"] / 8, rel=1e-12)
        assert total["median"] != total["mean"]
        assert point["client"] == "GuideLLM 0.8.0" and point["date"] == "2026-10-21"
    assert by_index[0]["concurrency"] == 1  # synchronous
    assert [by_index[i]["concurrency"] for i in (2, 3, 4)] == [4, 16, 64]
    # concurrent@4 by hand: 7.5 ms → 133.33 tok/s/user
    assert by_index[2]["interactivity"] == pytest.approx(133.3333, rel=1e-5)


def test_vllm_sequence_lengths_from_token_totals_and_checked(tmp_path: Path) -> None:
    points, log = _points("vllm-bench-serve")
    assert {(p["isl"], p["osl"]) for p in points} == {(1024, 1024)}
    # the same lengths derived from each of the folder's 3 files: one notice per length, naming them
    notices = [p for p in log.notices if "derived from the file" in p.reason]
    assert [p.field for p in notices] == ["total_input_tokens ÷ completed", "total_output_tokens ÷ completed"]
    assert all(p.file == "vllm-bench-serve/" and "(3 files: " in p.reason for p in notices)
    assert all(p["client"] == "vLLM bench serve" for p in points)
    raw = json.loads(next((CLIENTS / "vllm-bench-serve").glob("*concurrency8-*.json")).read_text())
    assert points[0]["throughput_per_gpu"] == pytest.approx(raw["total_token_throughput"] / 8, rel=1e-12)
    # metadata that contradicts the file: an error naming the metadata field
    shutil.copy(next((CLIENTS / "vllm-bench-serve").glob("*concurrency8-*.json")), tmp_path / "run.json")
    (tmp_path / "_meta.yaml").write_text(
        "hardware: mi355x\nframework: vllm\nprecision: fp4\ntp: 8\nisl: 2048\n"
    )
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    contradiction = log.errors[0]
    assert contradiction.field.endswith("_meta.yaml: isl")
    assert (
        contradiction.reason
        == "2048 contradicts the result file (total_input_tokens ÷ completed = 1024, 50% below the nominal "
        "2048); if the client drew lengths from a range (--random-range-ratio), give random_range_ratio "
        "in the metadata file"
    )
    # mean outputs shorter than the stated OSL (end of sequence not ignored): a warning only
    short = {**raw, "total_output_tokens": raw["total_output_tokens"] * 7 // 10}
    (tmp_path / "run.json").write_text(json.dumps(short))
    (tmp_path / "_meta.yaml").write_text(
        "hardware: mi355x\nframework: vllm\nprecision: fp4\ntp: 8\nosl: 1024\n"
    )
    log = ProblemLog()
    (point,) = load_results(tmp_path, log).table.records()
    assert point["osl"] == 1024 and log.errors == []
    (warning,) = log.warnings
    assert "outputs ended early" in warning.reason and warning.field.endswith("_meta.yaml: osl")


def test_sglang_without_a_date_and_metadata_date(tmp_path: Path) -> None:
    points, _ = _points("sglang-bench-serving")
    assert [p["date"] for p in points] == [None, None, None]
    assert points[0]["client"] == "SGLang bench_serving (sglang 0.5.4)"
    shutil.copytree(CLIENTS / "sglang-bench-serving", tmp_path / "s")
    with (tmp_path / "s" / "_meta.yaml").open("a") as meta:
        meta.write("date: 2026-10-22\n")
    assert {p["date"] for p in load_results(tmp_path).table.records()} == {"2026-10-22"}


def test_companion_copy_without_its_main_file_is_an_error(tmp_path: Path) -> None:
    shutil.copy(CLIENTS / "guidellm" / "benchmarks.csv", tmp_path / "benchmarks.csv")
    log = ProblemLog()
    load_results(tmp_path, log)
    (error,) = log.errors
    assert "put benchmarks.json beside it" in error.reason


def test_unknown_csv_names_only_a_few_columns(tmp_path: Path) -> None:
    header = ",".join(f"Server Throughput Statistics column number {i}" for i in range(200))
    (tmp_path / "wide.csv").write_text(header + "\n" + ",".join("1" * 200) + "\n")
    log = ProblemLog()
    load_results(tmp_path, log)
    (error,) = log.errors
    assert error.reason.count("column number") <= 4 and "(200 columns)" in error.reason
    assert len(error.reason) < 300


def test_exclude_globs() -> None:
    assert excluded("runs/a/logs/x.json", ["runs/**/logs"])
    assert excluded("runs/logs/x.json", ["runs/**/logs"])
    assert excluded("x/inputs.json", ["**/inputs.json"])
    assert not excluded("runs/a/result.json", ["runs/*/logs", "*.json"])
    assert excluded("result.json", ["*.json"])


_SEGMENT = st.text("abcXYZ019_-.", min_size=1, max_size=8).filter(lambda s: s not in (".", ".."))


@given(st.lists(_SEGMENT, min_size=1, max_size=5), st.integers(0, 4))
def test_exclude_glob_properties(parts: list[str], cut: int) -> None:
    path = "/".join(parts)
    assert excluded(path, [path])  # a path excludes itself
    assert excluded(path, ["**"])  # everything
    folder = "/".join(parts[: max(1, min(cut, len(parts)))])
    assert excluded(path, [folder])  # a folder excludes what is under it
    assert excluded(path, ["**/" + parts[-1]])
    assert not excluded(path, [path + "x"])


def test_a_folder_of_each_clients_output_builds_a_fp4_vs_fp8_page(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "data").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    for folder in ("aiperf-sweep", "guidellm", "vllm-bench-serve", "sglang-bench-serving"):
        shutil.copytree(CLIENTS / folder, tmp_path / "data" / "results" / folder)
    # a log the user keeps beside the results, kept out by an exclude glob
    (tmp_path / "data" / "results" / "notes").mkdir()
    (tmp_path / "data" / "results" / "notes" / "scratch.json").write_text('{"hello": 1}')
    (tmp_path / "content" / "site.yaml").write_text("exclude: [results/notes]\n")
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    site = tmp_path / "site"
    b200 = json.loads((site / "b200-fp4-vs-fp8-dsr1" / "comparison.json").read_text())
    mi355x = json.loads((site / "mi355x-fp4-vs-fp8-dsr1" / "comparison.json").read_text())
    assert b200["sequences"][0]["band"]["overlap"] and mi355x["sequences"][0]["band"]["overlap"]
    clients = {p["client"] for s in b200["sequences"][0]["sides"] for p in s["frontier"]}
    assert clients == {"AIPerf 0.13.0", "GuideLLM 0.8.0"}
    page = (site / "mi355x-fp4-vs-fp8-dsr1" / "index.html").read_text()
    assert "date not recorded" in page and "SGLang bench_serving (sglang 0.5.4)" in page
