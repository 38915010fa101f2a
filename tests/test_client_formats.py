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


def test_aiperf_records_export_is_read_and_its_deliberate_cancellations_are_not_failures(
    tmp_path: Path,
) -> None:
    """AIPerf's own example export (tests/fixtures/clients/README.md): the blocks under `records`
    (AIPerf until October 2025), 11 of 100 requests cancelled on purpose by the run's
    --request-cancellation-rate 10."""
    (point,), log = _points("aiperf-records")
    raw = json.loads((CLIENTS / "aiperf-records" / "run1" / "profile_export_aiperf.json").read_text())
    blocks = raw["records"]
    tokens = blocks["total_isl"]["avg"] + blocks["total_osl"]["avg"]
    assert point["throughput_per_gpu"] == pytest.approx(
        tokens / blocks["benchmark_duration"]["avg"], rel=1e-12
    )
    assert point["interactivity"] == pytest.approx(1000 / blocks["inter_token_latency"]["p50"], rel=1e-12)
    assert point["ttft_median"] == pytest.approx(blocks["ttft"]["p50"] / 1000, rel=1e-12)
    assert point["concurrency"] == raw["input_config"]["loadgen"]["concurrency"] == 100
    assert point["date"] == "2025-10-03" and point["client"] == "AIPerf"
    (cancelled,) = [p for p in log.notices if "on purpose" in p.reason]
    assert cancelled.reason.startswith("11 requests cancelled on purpose")
    # the same run without the setting: 89 of 100 is too few, and the message says what to do
    config = {**raw["input_config"], "loadgen": {"concurrency": 100}}
    shutil.copy(CLIENTS / "aiperf-records" / "_meta.yaml", tmp_path / "_meta.yaml")
    (tmp_path / "profile_export_aiperf.json").write_text(json.dumps({**raw, "input_config": config}))
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    (error,) = log.errors
    assert "only 89 of 100 requests completed (89%; 11 errors, 0 cancelled)" in error.reason
    assert "leave the file out of the build with exclude: [" in error.reason


def test_guidellm_report_picks_the_fields_of_our_definitions() -> None:
    points, log = _points("guidellm")
    raw = json.loads((CLIENTS / "guidellm" / "benchmarks.json").read_text())
    by_index = {int(p["record"].split("[")[1].rstrip("]")): p for p in points}
    assert sorted(by_index) == [0, 1, 2, 3, 4]
    # [1] is the sweep's throughput run: no fixed concurrency, so its measured mean (Little's law)
    (rate,) = [p for p in log.notices if p.field == "config.strategy"]
    assert rate.record == "benchmarks[1]" and "measured mean" in rate.reason
    throughput_run = raw["benchmarks"][1]["metrics"]
    in_flight = (
        throughput_run["requests_per_second"]["successful"]["mean"]
        * throughput_run["request_latency"]["successful"]["mean"]
    )
    assert by_index.pop(1)["concurrency"] == round(in_flight)
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
    (warning,) = log.warnings  # said once the points are made, as for every format (test_short_outputs)
    assert warning.reason.startswith("short outputs") and warning.field == "osl"
    # the outputs are 30% shorter than the nominal 1024, and the warning says 30% (not 43%, of the mean)
    mean = raw["total_output_tokens"] * 7 // 10 / raw["completed"]
    assert f"OSL 1,024, {(1024 - mean) / 1024:.0%} short" in warning.reason
    assert "30% short" in warning.reason


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


LLMPERF = CLIENTS / "llmperf"


def test_llmperf_summaries_equal_a_hand_computation() -> None:
    """Real llmperf summaries (tests/fixtures/clients/README.md): Yi-1.5-34B on 4 A10G, vLLM."""
    points, log = _points("llmperf")
    assert [p["concurrency"] for p in points] == [1, 8, 64]
    conc8 = points[1]
    # by hand from the file: output 95.817 tok/s over 4 GPUs; total = output × (550 + 159.5) / 159.5
    assert conc8["output_throughput_per_gpu"] == pytest.approx(95.81719381923115 / 4, rel=1e-12)
    assert conc8["throughput_per_gpu"] == pytest.approx(95.81719381923115 * 709.5 / 159.5 / 4, rel=1e-12)
    assert conc8["throughput_per_gpu"] == pytest.approx(106.5553, rel=1e-6)
    # llmperf's inter-token latency includes the first token's wait: not read as TPOT, so the
    # interactivity is derived (output tok/s ÷ concurrency) and said to be
    assert conc8["interactivity"] == pytest.approx(95.81719381923115 / 8, rel=1e-12)
    assert conc8["interactivity_source"] == "derived" and conc8["tpot_median"] is None
    assert conc8["ttft_median"] == pytest.approx(3.1766039474996433, rel=1e-12)
    assert conc8["e2el_p99"] == pytest.approx(12.886684354570388, rel=1e-12)
    assert (conc8["isl"], conc8["osl"]) == (550, 150)  # the run's settings, mean_input/output_tokens
    assert conc8["client"] == "llmperf (summary format 2023-08-31)" and conc8["date"] == "2024-06-12"
    (notice,) = log.notices
    assert notice.file.endswith("_individual_responses.json") and "per-request records" in notice.reason


def test_llmperf_records_alone_and_failed_requests(tmp_path: Path) -> None:
    run = LLMPERF / "result_01-ai_Yi-1.5-34B-Chat_8"
    shutil.copy(LLMPERF / "_meta.yaml", tmp_path / "_meta.yaml")
    shutil.copy(
        run / "01-ai-Yi-1-5-34B-Chat_550_150_individual_responses.json",
        tmp_path / "x_individual_responses.json",
    )
    summary = json.loads((run / "01-ai-Yi-1-5-34B-Chat_550_150_summary.json").read_text())
    failing = {**summary, "results_num_completed_requests": 90, "results_number_errors": 14}
    (tmp_path / "y_summary.json").write_text(json.dumps(failing))
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    alone, failed = sorted(log.errors, key=lambda p: p.file)
    assert "not read on its own; put x_summary.json beside it" in alone.reason
    assert failed.field == "results_num_completed_requests" and "only 90 of 104" in failed.reason


def test_llmperf_renamed_per_request_files_are_one_notice_and_a_short_run_names_its_exclude(
    tmp_path: Path,
) -> None:
    """The leaderboard layout (summary/ and individual/, files renamed `<provider>_<size>.json`),
    made from the real Yi-1.5-34B files: per-request records are known by their keys, not their
    name; a run that completed too few requests says how to leave it out."""
    run = LLMPERF / "result_01-ai_Yi-1.5-34B-Chat_8"
    results = tmp_path / "data" / "results" / "lb"
    (results / "summary").mkdir(parents=True)
    (results / "individual").mkdir()
    shutil.copy(LLMPERF / "_meta.yaml", results / "_meta.yaml")
    requests = run / "01-ai-Yi-1-5-34B-Chat_550_150_individual_responses.json"
    for name in ("a_34b.json", "b_34b.json"):
        shutil.copy(requests, results / "individual" / name)
    summary = json.loads((run / "01-ai-Yi-1-5-34B-Chat_550_150_summary.json").read_text())
    (results / "summary" / "a_34b.json").write_text(json.dumps(summary))
    short = {**summary, "results_num_completed_requests": 20, "results_number_errors": 84}
    (results / "summary" / "b_34b.json").write_text(json.dumps(short))
    log = ProblemLog()
    assert len(load_results(tmp_path / "data", log).table) == 1
    (notice,) = [p for p in log.notices if "per-request" in p.reason]
    assert notice.file == "data/results/lb/individual/"
    assert notice.reason.endswith("(2 files: a_34b.json, b_34b.json)")
    (error,) = log.errors
    assert error.file == "data/results/lb/summary/b_34b.json"
    assert "only 20 of 104 requests completed" in error.reason
    assert "exclude: [results/lb/summary/b_34b.json] in content/site.yaml" in error.reason


def test_llmperf_metadata_a_folder_lacks_is_one_error_per_field_for_the_folder(tmp_path: Path) -> None:
    """The real Yi-1.5-34B summaries in one folder whose _meta.yaml gives neither the model (the
    files name 01-ai/Yi-1.5-34B-Chat, not a known model) nor the framework: one error for each,
    naming the folder's files, not three errors a file restating each other."""
    for n, summary in enumerate(sorted(LLMPERF.glob("*/*_summary.json"))):
        shutil.copy(summary, tmp_path / f"run{n}.json")
    (tmp_path / "_meta.yaml").write_text("hardware: a10g\nprecision: bf16\ntp: 4\n")
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    meta = f"{tmp_path.name}/_meta.yaml"
    assert sorted((p.file, p.field) for p in log.errors) == [
        (f"{tmp_path.name}/", f"{meta}: framework"),
        (f"{tmp_path.name}/", f"{meta}: model"),
    ]
    assert all(p.reason.endswith("(3 files: run0.json, run1.json, run2.json)") for p in log.errors)
    (model,) = [p for p in log.errors if p.field.endswith("model")]
    assert "the result's model is not a known model key: add model: <key>" in model.reason


GUIDELLM_V1 = CLIENTS / "guidellm-v1"
V1_FILE = "Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json"


def test_guidellm_report_version_1_equals_a_hand_computation() -> None:
    """Real GuideLLM 0.5 reports (report version 1: `args`, not `config`) from Intel XPU runs."""
    points, _ = _points("guidellm-v1")
    assert [p["concurrency"] for p in points] == [1, 4]  # synchronous; concurrent, 4 streams
    for point, folder in zip(points, ("sync-tp4", "concurrent4-tp4"), strict=True):
        raw = json.loads((GUIDELLM_V1 / folder / V1_FILE).read_text())
        assert raw["metadata"]["version"] == 1 and "config" not in raw
        metrics = raw["benchmarks"][0]["metrics"]
        itl = metrics["inter_token_latency_ms"]["successful"]["median"]
        assert point["interactivity"] == pytest.approx(1000 / itl, rel=1e-12)
        assert point["throughput_per_gpu"] == pytest.approx(metrics["tokens_per_second"]["total"]["mean"] / 4)
        assert point["client"] == "GuideLLM 0.5.0.dev0" and point["date"] == "2026-03-02"
        assert point["model"] == "qwen3-4b-thinking" and point["osl"] == 1024
    # by hand: synchronous, median inter-token latency 20.379 ms → 49.07 tok/s/user;
    # 54.103 tok/s over 4 GPUs → 13.53 tok/s/GPU
    assert points[0]["interactivity"] == pytest.approx(49.0694, rel=1e-5)
    assert points[0]["throughput_per_gpu"] == pytest.approx(13.5258, rel=1e-5)


def test_a_report_version_we_do_not_read_is_one_error(tmp_path: Path) -> None:
    raw = json.loads((GUIDELLM_V1 / "sync-tp4" / V1_FILE).read_text())
    shutil.copy(GUIDELLM_V1 / "_meta.yaml", tmp_path / "_meta.yaml")
    (tmp_path / "benchmarks.json").write_text(json.dumps({**raw, "metadata": {"version": 3}}))
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    (error,) = log.errors  # not also one "missing" error per required field
    assert error.field == "metadata.version" and "reads versions 1 and 2" in error.reason


SGLANG_RATE = CLIENTS / "sglang-request-rate"


def test_sglang_request_rate_runs_get_their_measured_mean_concurrency() -> None:
    """Real SGLang outputs of request-rate and all-at-once runs (no max_concurrency), written by an
    older bench_serving without total_throughput, request_throughput or TPOT."""
    log = ProblemLog()
    result = load_results(SGLANG_RATE, log)
    assert [str(p) for p in log.errors] == []
    points = {(Path(p["source_file"]).name, p["record"]): p for p in result.table.records()}
    assert len(points) == 14  # 7 runs a file, none dropped
    raw = json.loads((SGLANG_RATE / "llama_3_3_70b_online_output.jsonl").read_text().splitlines()[0])
    assert raw["request_rate"] == 1.0 and raw["max_concurrency"] is None and "total_throughput" not in raw
    point = points[("llama_3_3_70b_online_output.jsonl", "line 1")]
    # by hand: 300 requests in 298.37 s, mean end-to-end 7.84 s: 7.88 requests in flight
    assert raw["completed"] / raw["duration"] * raw["mean_e2e_latency_ms"] / 1000 == pytest.approx(
        7.884, abs=1e-3
    )
    assert point["concurrency"] == 8
    tokens = raw["total_input_tokens"] + raw["total_output_tokens"]
    assert point["throughput_per_gpu"] == pytest.approx(tokens / raw["duration"] / 4, rel=1e-12)
    # no TPOT in the file: interactivity derived from output tok/s ÷ concurrency, and said to be
    assert point["interactivity_source"] == "derived"
    assert point["interactivity"] == pytest.approx(raw["output_throughput"] / 8, rel=1e-12)
    # one notice for the sweep's folder, naming its files, not one a run
    rule = [p for p in log.notices if p.field == "request_rate"]
    assert len(rule) == 1 and rule[0].file.rstrip("/").endswith("sglang-request-rate"), rule
    assert "llama_3_3_70b_offline_output.jsonl" in rule[0].reason
    assert "llama_3_3_70b_online_output.jsonl" in rule[0].reason


def test_a_rate_run_that_cannot_be_measured_is_skipped_once(tmp_path: Path) -> None:
    lines = (SGLANG_RATE / "llama_3_3_70b_online_output.jsonl").read_text().splitlines()[:3]
    bare = [{k: v for k, v in json.loads(line).items() if k != "mean_e2e_latency_ms"} for line in lines]
    (tmp_path / "runs.jsonl").write_text("\n".join(json.dumps(run) for run in bare) + "\n")
    shutil.copy(SGLANG_RATE / "_meta.yaml", tmp_path / "_meta.yaml")
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    assert log.errors == []
    (skipped,) = log.notices
    assert skipped.field == "request_rate" and skipped.reason.startswith("skipped: a run without")


def test_vllm_rate_run_measured_from_its_latencies(tmp_path: Path) -> None:
    source = (
        CLIENTS / "vllm-bench-serve" / "openai-chat-infqps-concurrency8-DeepSeek-R1-0528-20261022-101500.json"
    )
    raw = json.loads(source.read_text())
    run = {**raw, "max_concurrency": None, "request_rate": 4.0}
    assert "mean_e2el_ms" not in run and run["latencies"]  # vLLM's default: no E2E statistics
    (tmp_path / "run.json").write_text(json.dumps(run))
    shutil.copy(CLIENTS / "vllm-bench-serve" / "_meta.yaml", tmp_path / "_meta.yaml")
    log = ProblemLog()
    (point,) = load_results(tmp_path, log).table.records()
    mean_latency = sum(run["latencies"]) / len(run["latencies"])
    assert point["concurrency"] == max(1, round(run["request_throughput"] * mean_latency))


def test_check_lists_every_file_it_does_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "data" / "results" / "run"
    (tmp_path / "content").mkdir()
    shutil.copytree(LLMPERF, results)
    (results / "gpu_metrics.csv").write_text("timestamp,index,power.draw [W]\n")
    (results / "mlperf_log_summary.txt").write_text("MLPerf Results Summary\n")
    (results / "notes.md").write_text("our notes\n")
    main(["check", "--root", str(tmp_path)])
    lines = capsys.readouterr().out.splitlines()
    skipped = {line.split(": ", 2)[1].rsplit("/", 1)[-1]: line for line in lines if ": skipped: " in line}
    assert set(skipped) == {
        "gpu_metrics.csv",
        "mlperf_log_summary.txt",
        "notes.md",
        "01-ai-Yi-1-5-34B-Chat_550_150_individual_responses.json",
    }
    assert "GPU telemetry" in skipped["gpu_metrics.csv"] and "MLPerf" in skipped["mlperf_log_summary.txt"]


SWEEP_STUB = """---
kind: precision
title: "B200 FP4 vs FP8 from client runs"
model: dsr1
hardware: b200
sequence: 1k/1k
sides:
  - {{label: FP4, precision: fp4}}
  - {{label: FP8, precision: fp8}}
sections: [matched-concurrency, peak, latency, latency-sla, power, matched-interactivity]
sla: {{tpot_ms: {tpot}, basis: measured}}
---
"""


def _client_project(tmp_path: Path) -> Path:
    """The AIPerf FP8 and GuideLLM FP4 folders (B200, DeepSeek-R1): client points only, no
    sweep rows."""
    (tmp_path / "content").mkdir()
    (tmp_path / "data").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    for folder in ("aiperf-sweep", "guidellm"):
        shutil.copytree(CLIENTS / folder, tmp_path / "data" / "results" / folder)
    return tmp_path


def test_sweep_sections_on_client_points(tmp_path: Path) -> None:
    """Matched-concurrency, peak, latency and SLA sections read ordinary client points (no sweep
    rows): the FP8 side's AIPerf runs, the FP4 side's GuideLLM report."""
    root = _client_project(tmp_path)
    (root / "content" / "clients.md").write_text(SWEEP_STUB.format(tpot=10))
    assert main(["build", "--root", str(root), "-q"]) == 0
    page = root / "site" / "clients"
    (workload,) = json.loads((page / "comparison.json").read_text())["sweep"]["workloads"]
    at = {row["concurrency"]: row["values"] for row in workload["output_throughput"]}
    tpot = {row["concurrency"]: row["values"] for row in workload["tpot_ms"]}
    for concurrency in (4, 16, 64):
        raw = json.loads(
            (
                CLIENTS / "aiperf-sweep" / f"concurrency_{concurrency}" / "profile_export_aiperf.json"
            ).read_text()
        )
        assert at[concurrency][1] == pytest.approx(raw["output_token_throughput"]["avg"], rel=1e-12)
        assert tpot[concurrency][1] == pytest.approx(raw["inter_token_latency"]["p50"], rel=1e-12)
    report = json.loads((CLIENTS / "guidellm" / "benchmarks.json").read_text())
    streams4 = report["benchmarks"][2]["metrics"]
    assert at[4][0] == pytest.approx(streams4["output_tokens_per_second"]["total"]["mean"], rel=1e-12)
    html = (page / "index.html").read_text()
    for heading in ("matched-concurrency-heading", "peak-heading", "latency-heading", "sweep-charts-heading"):
        assert heading in html


FULL_POINTS: dict[str, list[Any]] = {
    "model": ["dsr1"] * 4,
    "hardware": ["b200"] * 4,
    "framework": ["vllm"] * 4,
    "precision": ["fp4", "fp4", "fp8", "fp8"],
    "gpu_count": [8] * 4,
    "isl": [1024] * 4,
    "osl": [1024] * 4,
    "concurrency": [8, 32, 8, 32],
    "throughput_per_gpu": [500, 1500, 400, 1200],
    "output_throughput_per_gpu": [250, 750, 200, 600],
    "median_tpot_ms": [10, 20, 11, 22],
    "median_ttft_ms": [100, 300, 120, 330],
    "avg_power_w": [700, 900, 650, 850],
}
OPTIONAL = ("output_throughput_per_gpu", "median_tpot_ms", "median_ttft_ms", "avg_power_w")


@pytest.mark.parametrize(
    "missing", [(), *((c,) for c in OPTIONAL), ("output_throughput_per_gpu", "median_ttft_ms", "avg_power_w")]
)
def test_every_sweep_section_renders_over_points_lacking_a_field(
    tmp_path: Path, missing: tuple[str, ...]
) -> None:
    """No input makes a section's template fail: each sweep section over client points that lack
    a field either shows the field's numbers or says, in words, that it was not measured."""
    (tmp_path / "content").mkdir()
    (tmp_path / "data" / "results").mkdir(parents=True)
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    columns = {k: v for k, v in FULL_POINTS.items() if k not in missing}
    lines = [",".join(columns)] + [",".join(str(v[i]) for v in columns.values()) for i in range(4)]
    (tmp_path / "data" / "results" / "points.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "content" / "all.md").write_text(SWEEP_STUB.format(tpot=15))
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    html = (tmp_path / "site" / "all" / "index.html").read_text()
    for key in ("matched-concurrency", "peak", "latency", "latency-sla", "power", "sweep-charts"):
        assert f'aria-labelledby="{key}-heading"' in html
    if "avg_power_w" in missing or "output_throughput_per_gpu" in missing:
        assert "Neither side's rows carry a measured system power." in html
    if "median_ttft_ms" in missing:
        assert "No concurrency has a TTFT from both sides" in html
    if "output_throughput_per_gpu" in missing:
        assert "neither side measured this" in html
