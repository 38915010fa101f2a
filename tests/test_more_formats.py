"""MLPerf LoadGen summaries and NVIDIA GenAI-Perf exports, read from real files
(tests/fixtures/clients/README.md gives each one's source and licence): every figure equals a
hand computation from the raw file's numbers, written out here; files that give no point are
listed with their reason; the detectors never raise on arbitrary input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read import formats, mlperf
from site_builder.read.load import load_results

CLIENTS = Path(__file__).parent / "fixtures" / "clients"
MLPERF = CLIENTS / "mlperf"
AMD_SERVER = "results/8xMI300X_2xEPYC-9374F/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt"


def _load(folder: Path) -> tuple[list[dict[str, Any]], ProblemLog]:
    log = ProblemLog()
    points = load_results(folder, log).table.records()
    return points, log


def test_mlperf_server_summary_equals_a_hand_computation() -> None:
    (point,), log = _load(MLPERF)
    assert [str(p) for p in log.errors] == []
    # "Completed tokens per second: 21028.23" on 8 GPUs; output tokens only: the output basis
    assert point["throughput_per_gpu"] == pytest.approx(21028.23 / 8, rel=1e-12)
    assert point["output_throughput_per_gpu"] == pytest.approx(21028.23 / 8, rel=1e-12)
    assert point["throughput_basis"] == "output"
    # "50.00 percentile time to output token (ns)   : 143943044"
    assert point["interactivity"] == pytest.approx(1e9 / 143943044, rel=1e-12)
    assert point["interactivity_source"] == "tpot"
    # Poisson arrivals: 71.74 samples/s × mean latency 42835428215 ns (Little's law)
    assert point["concurrency"] == round(71.74 * 42.835428215) == 3073
    # mean output length: tokens ÷ samples per second
    assert point["osl"] == round(21028.23 / 71.74) == 293
    assert point["isl"] == 1024  # the metadata's
    assert point["ttft_median"] == pytest.approx(0.990199455, rel=1e-12)
    assert point["ttft_p99"] == pytest.approx(1.604171041, rel=1e-12)
    assert point["tpot_mean"] == pytest.approx(0.143097185, rel=1e-12)
    assert point["e2el_p99_9"] == pytest.approx(179.752985275, rel=1e-12)
    assert (point["model"], point["hardware"], point["precision"], point["gpu_count"]) == (
        "llama2-70b",
        "mi300x",
        "fp8",
        8,
    )
    assert point["client"] == "MLPerf Inference LoadGen (Server, TTFT ≤ 2,000 ms, TPOT ≤ 200 ms)"


MLPERF_INTERACTIVE = CLIENTS / "mlperf-interactive"


def test_mlperf_interactive_summary_equals_a_hand_computation() -> None:
    """MLPerf Inference v5.1, AMD 8 × MI300X, llama2-70b-99 Interactive: LoadGen writes it as a
    Server run ("Scenario : Server") held to the Interactive bounds (TTFT 450 ms, TPOT 40 ms)."""
    (point,), log = _load(MLPERF_INTERACTIVE)
    assert [str(p) for p in log.errors] == [] and log.warnings == []
    # "Completed tokens per second: 8840.42" on 8 GPUs, output tokens only
    assert point["throughput_per_gpu"] == pytest.approx(8840.42 / 8, rel=1e-12)
    assert point["output_throughput_per_gpu"] == pytest.approx(8840.42 / 8, rel=1e-12)
    assert point["throughput_basis"] == "output"
    # "50.00 percentile time to output token (ns)   : 31888318"
    assert point["interactivity"] == pytest.approx(1e9 / 31888318, rel=1e-12)
    # 29.41 samples/s × mean latency 9716742157 ns (Little's law) = 285.77
    assert point["concurrency"] == round(29.41 * 9.716742157) == 286
    assert point["osl"] == round(8840.42 / 29.41) == 301
    assert point["osl_mean"] == pytest.approx(8840.42 / 29.41, rel=1e-12)
    assert point["isl"] == 1024  # the benchmark's input bound, from the metadata
    assert point["ttft_median"] == pytest.approx(0.198602240, rel=1e-12)
    assert point["ttft_p99"] == pytest.approx(0.435976100, rel=1e-12)
    assert point["tpot_mean"] == pytest.approx(0.032102490, rel=1e-12)
    assert point["tpot_p99"] == pytest.approx(0.039507635, rel=1e-12)
    assert point["e2el_mean"] == pytest.approx(9.716742157, rel=1e-12)
    assert point["e2el_p99_9"] == pytest.approx(33.399939469, rel=1e-12)
    assert (point["model"], point["hardware"], point["precision"], point["gpu_count"]) == (
        "llama2-70b",
        "mi300x",
        "fp8",
        8,
    )
    # the summary's ttft_latency 450000000 ns and tpot_latency 40000000 ns
    assert point["client"] == "MLPerf Inference LoadGen (Server, TTFT ≤ 450 ms, TPOT ≤ 40 ms)"
    # each said once: the mean OSL, the measured mean concurrency, the system description skipped
    fields = sorted(p.field for p in log.notices)
    assert fields == [
        "Completed tokens per second ÷ Completed samples per second",
        "Scenario",
        "accelerators_per_node",
    ]


def test_mlperf_files_without_a_point_are_each_listed_with_their_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "content").mkdir()
    shutil.copytree(MLPERF, tmp_path / "data" / "results" / "mlperf")
    main(["check", "--root", str(tmp_path)])
    lines = [line for line in capsys.readouterr().out.splitlines() if ": skipped: " in line]
    run = "8xMI300X_2xEPYC-9374F/llama2-70b-99"
    expected = {
        f"{run}/Offline/performance/run_1/mlperf_log_summary.txt": "Offline run",
        f"{run}/Server/accuracy/mlperf_log_summary.txt": "holds no result",
        f"{run}/Server/accuracy/accuracy.txt": "accuracy script",
        "systems/8xMI300X_2xEPYC-9374F.json": "system description",
    }
    for file, why in expected.items():
        (line,) = [line for line in lines if f"/{file}" in line]
        assert why in line, line
    assert len(lines) == len(expected)


def test_mlperf_metadata_is_asked_for_once_per_folder(tmp_path: Path) -> None:
    server = (MLPERF / AMD_SERVER).read_text()
    for run in ("run_1", "run_2"):
        (tmp_path / "Server" / run).mkdir(parents=True)
        (tmp_path / "Server" / run / "mlperf_log_summary.txt").write_text(server)
    (tmp_path / "_meta.yaml").write_text("hardware: mi300x\nprecision: fp8\n")
    points, log = _load(tmp_path)
    assert points == []
    # one message per folder, naming every field to add and where the GPU count is found
    assert len(log.errors) == 2 and {Path(p.file).parent.name for p in log.errors} == {"run_1", "run_2"}
    reason = log.errors[0].reason
    assert "add model: …, isl: …, gpu_count: …" in reason
    assert "accelerators_per_node × number_of_nodes" in reason


def test_mlperf_invalid_run_is_kept_with_a_warning(tmp_path: Path) -> None:
    shutil.copy(MLPERF / "results" / "8xMI300X_2xEPYC-9374F" / "_meta.yaml", tmp_path / "_meta.yaml")
    text = (MLPERF / AMD_SERVER).read_text().replace("Result is : VALID", "Result is : INVALID")
    (tmp_path / "mlperf_log_summary.txt").write_text(text)
    points, log = _load(tmp_path)
    assert len(points) == 1 and [str(p) for p in log.errors] == []
    (warning,) = log.warnings
    assert warning.field == "Result is" and "'INVALID'" in warning.reason


def test_the_summary_parser_reads_lines_as_loadgen_writes_them() -> None:
    record = mlperf.parse_summary((MLPERF / AMD_SERVER).read_text())
    assert record["SUT name"] == "PySUT" and record["Mode"] == "PerformanceOnly"
    assert record["Completed tokens per second"] == "21028.23"  # given twice, alike
    assert record["ttft_latency (ns)"] == "2000000000"
    assert formats.detect(record) is formats.BY_NAME["mlperf"]


_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
_summary_keys = st.sampled_from(sorted(mlperf.parse_summary((MLPERF / AMD_SERVER).read_text())))


@_SETTINGS
@given(st.dictionaries(st.text(max_size=20) | _summary_keys, _json_values, max_size=8))
def test_the_detectors_never_raise_on_arbitrary_records(record: dict[str, Any]) -> None:
    found = formats.detect(record)
    assert found is None or found in formats.FORMATS
    if found is not None:
        found.skip(record)


@_SETTINGS
@given(
    st.text(max_size=400),
    st.dictionaries(
        _summary_keys, st.text(max_size=14) | st.sampled_from(["0", "-1", "nan", "1e400", "inf"])
    ),
)
def test_an_arbitrary_summary_never_raises(tmp_path: Path, text: str, changes: dict[str, str]) -> None:
    folder = tmp_path / "data"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    shutil.copy(MLPERF / "results" / "8xMI300X_2xEPYC-9374F" / "_meta.yaml", folder / "_meta.yaml")
    lines = (MLPERF / AMD_SERVER).read_text().splitlines()
    kept = [line for line in lines if line.split(":")[0].strip() not in changes]
    body = "\n".join(kept + [f"{key} : {value}" for key, value in changes.items()] + [text])
    (folder / "mlperf_log_summary.txt").write_text(body, encoding="utf-8", errors="replace")
    log = ProblemLog()
    for point in load_results(folder, log).table.records():
        assert point["throughput_per_gpu"] > 0 and point["interactivity"] > 0 and point["concurrency"] > 0
    for problem in log.problems:
        assert str(problem).isprintable() and problem.file.startswith("data")


GENAI_PERF = CLIENTS / "genai-perf"
GENAI_RUN = GENAI_PERF / "c8" / "profile_export_genai_perf.json"


def test_genai_perf_export_equals_a_hand_computation() -> None:
    (point,), log = _load(GENAI_PERF)
    assert [str(p) for p in log.errors] == [] and [str(p) for p in log.warnings] == []
    # no total in the file: output tok/s × (mean input + mean output) ÷ mean output, on 1 GPU
    assert point["throughput_per_gpu"] == pytest.approx(
        666.0876301399244 * (200.2 + 100.0) / 100.0, rel=1e-12
    )
    assert point["output_throughput_per_gpu"] == pytest.approx(666.0876301399244, rel=1e-12)
    # inter_token_latency is (latency − TTFT) ÷ (OSL − 1) per request: TPOT; its p50 in ms
    assert point["interactivity"] == pytest.approx(1000 / 9.903838499999999, rel=1e-12)
    assert point["concurrency"] == 8
    # the lengths the run asked for (synthetic_input_tokens_mean, output_tokens_mean)
    assert (point["isl"], point["osl"]) == (200, 100)
    assert point["ttft_p99"] == pytest.approx(0.28353810265999397, rel=1e-12)
    assert point["e2el_mean"] == pytest.approx(1.0220364213999999, rel=1e-12)
    assert point["client"] == "GenAI-Perf" and point["throughput_basis"] == "total"


def test_genai_perf_run_whose_outputs_stopped_early_keeps_its_measured_lengths() -> None:
    """The same server without `ignore_eos`: outputs stopped at end-of-sequence, 50.0375 tokens
    on average of the 100 asked for; the point is the run's, at the nominal 200/100."""
    (point,), log = _load(CLIENTS / "genai-perf-eos")
    assert [str(p) for p in log.errors] == []
    assert point["throughput_per_gpu"] == pytest.approx(
        547.2243547932175 * (200.2 + 50.0375) / 50.0375, rel=1e-12
    )
    assert point["interactivity"] == pytest.approx(1000 / 10.781291, rel=1e-12)
    assert (point["isl"], point["osl"], point["concurrency"]) == (200, 100, 8)
    assert point["osl_mean"] == pytest.approx(50.0375, rel=1e-12)
    (warning,) = log.warnings  # said once, with the share: 1 − 50.0375 ÷ 100
    assert warning.file.endswith("c8/profile_export_genai_perf.json") and "50% short" in warning.reason


def test_genai_perf_config_file_export_equals_a_hand_computation() -> None:
    """GenAI-Perf 0.0.16's export: its settings nested as its config file has them
    (`perf_analyzer.stimulus.concurrency`, `input.synthetic_tokens.mean`, `input.output_tokens.mean`)
    and the per-request rate named `output_token_throughput_per_user`."""
    (point,), log = _load(CLIENTS / "genai-perf-config")
    assert [str(p) for p in log.errors] == [] and [str(p) for p in log.warnings] == []
    assert point["client"] == "GenAI-Perf"
    assert point["throughput_per_gpu"] == pytest.approx(
        441.3918622224634 * (200.0 + 100.0) / 100.0, rel=1e-12
    )
    assert point["interactivity"] == pytest.approx(1000 / 8.5485855, rel=1e-12)
    assert (point["isl"], point["osl"], point["concurrency"]) == (200, 100, 4)


def _genai_copy(tmp_path: Path, changes: dict[str, Any], drop: tuple[str, ...] = ()) -> Path:
    record = json.loads(GENAI_RUN.read_text())
    for key in drop:
        del record[key]
    record["input_config"] = {**record["input_config"], **changes}
    shutil.copy(GENAI_PERF / "_meta.yaml", tmp_path / "_meta.yaml")
    (tmp_path / "profile_export_genai_perf.json").write_text(json.dumps(record))
    return tmp_path


def test_genai_perf_outputs_longer_than_asked_are_a_warning_with_the_share(tmp_path: Path) -> None:
    """GenAI-Perf 24.12's streaming runs ignored `--output-tokens-mean` (perf_analyzer issue 298:
    2,565.855 tokens on average for 500 asked): the run's export with such outputs is warned about,
    naming the field and the share (250 for 100: 150 % more)."""
    folder = _genai_copy(tmp_path, {})
    record = json.loads((folder / "profile_export_genai_perf.json").read_text())
    record["output_sequence_length"] = {**record["output_sequence_length"], "avg": 250.0}
    (folder / "profile_export_genai_perf.json").write_text(json.dumps(record))
    (point,), log = _load(folder)
    assert point["osl"] == 100
    (warning,) = log.warnings
    assert warning.field == "output_sequence_length.avg" and "150% more than" in warning.reason


def test_genai_perf_request_rate_run_gets_its_measured_mean_concurrency(tmp_path: Path) -> None:
    (point,), log = _load(_genai_copy(tmp_path, {"concurrency": None, "request_rate": 10}))
    # 6.660876301399243 requests/s × mean latency 1.0220364214 s (Little's law)
    assert point["concurrency"] == round(6.660876301399243 * 1.0220364213999999) == 7
    assert any("measured mean" in p.reason for p in log.notices)


def test_genai_perf_without_streaming_is_one_error(tmp_path: Path) -> None:
    points, log = _load(_genai_copy(tmp_path, {"streaming": False}, drop=("inter_token_latency",)))
    assert points == []
    (error,) = log.errors
    assert error.field == "inter_token_latency.p50" and "--streaming" in error.reason


def test_genai_perf_companions_are_skipped_and_alone_refused(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    run = _genai_copy(tmp_path / "run", {})
    (run / "profile_export_genai_perf.csv").write_text("Metric,avg\n")
    raw = {"service_kind": "triton", "endpoint": "", "experiments": [{"experiment": {"mode": "concurrency"}}]}
    (run / "profile_export.json").write_text(json.dumps(raw))
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "profile_export_genai_perf.csv").write_text("Metric,avg\n")
    points, log = _load(tmp_path)
    assert len(points) == 1
    skipped = {Path(p.file).name: p.reason for p in log.notices if "skipped" in p.reason}
    assert "CSV copy" in skipped["profile_export_genai_perf.csv"]
    assert "perf_analyzer's per-request records" in skipped["profile_export.json"]
    (error,) = log.errors
    assert error.file.endswith("alone/profile_export_genai_perf.csv")
    assert "put profile_export_genai_perf.json beside it" in error.reason


def _config_file_layout(tmp_path: Path, stimulus: dict[str, Any]) -> Path:
    """The flat-layout run as GenAI-Perf writes it since it took a config file (2025): the same
    measurements, its settings nested as its config is (GenAI-Perf's config_perf_analyzer.py and
    config_input.py, BSD-3-Clause: `model_names`, `perf_analyzer.stimulus`,
    `input.synthetic_tokens.mean`, `input.output_tokens.mean`, `input.prompt_source`) and the
    per-request output rate named `output_token_throughput_per_user` (its llm_metrics.py)."""
    record = json.loads(GENAI_RUN.read_text())
    flat = record.pop("input_config")
    record["output_token_throughput_per_user"] = record.pop("output_token_throughput_per_request")
    record["input_config"] = {
        "model_names": flat["model"],
        "subcommand": "profile",
        "perf_analyzer": {"path": "perf_analyzer", "stimulus": stimulus},
        "input": {
            "synthetic_tokens": {"mean": flat["synthetic_input_tokens_mean"], "stddev": 20},
            "output_tokens": {"mean": flat["output_tokens_mean"], "deterministic": False, "stddev": 0},
            "prompt_source": "synthetic",
        },
    }
    shutil.copy(GENAI_PERF / "_meta.yaml", tmp_path / "_meta.yaml")
    (tmp_path / "profile_export_genai_perf.json").write_text(json.dumps(record))
    return tmp_path


def test_genai_perf_config_file_layout_reads_as_the_same_run(tmp_path: Path) -> None:
    """A config-file-era export is GenAI-Perf's, not taken for AIPerf's (whose run accounting it
    lacks), and gives the point the flat layout gives: its settings read where they lie (the flat
    names are absent from it)."""
    (flat,), _ = _load(GENAI_PERF)
    (nested,), log = _load(_config_file_layout(tmp_path, {"concurrency": 8}))
    assert [str(p) for p in log.errors] == []
    assert nested["client"] == "GenAI-Perf"
    for column in (
        "throughput_per_gpu",
        "output_throughput_per_gpu",
        "interactivity",
        "concurrency",
        "isl",
        "osl",
    ):
        assert nested[column] == flat[column], column
    assert nested["concurrency"] == 8 and (nested["isl"], nested["osl"]) == (200, 100)


def test_genai_perf_config_file_layout_request_rate_run_gets_its_measured_mean_concurrency(
    tmp_path: Path,
) -> None:
    (point,), log = _load(_config_file_layout(tmp_path, {"request_rate": 10}))
    assert point["concurrency"] == round(6.660876301399243 * 1.0220364213999999) == 7
    assert any("measured mean" in p.reason for p in log.notices)


def test_an_aiperf_export_is_never_taken_for_genai_perfs() -> None:
    for export in CLIENTS.glob("aiperf*/**/profile_export_aiperf.json"):
        found = formats.detect(json.loads(export.read_text()))
        assert found is not None and found.name == "aiperf", export


AIPERF_11 = CLIENTS / "aiperf-legacy" / "schema-1.1" / "profile_export_aiperf.json"


def test_agentic_and_trace_runs_are_kept_out_alike_in_every_format(tmp_path: Path) -> None:
    """The markers are those of real files: an AIPerf 0.8.0 AgentX run
    (github.com/ajith-sirra-amd/InferenceMAX_Rocm_Team@598828615e77, results/0601/…/aiperf_artifacts/
    profile_export_aiperf.json: `input_config.loadgen.trajectory_start_min_ratio`, `branch_stats`),
    AIPerf's own trace input (`custom_dataset_type: mooncake_trace`), InferenceX AgentX rows
    (`scenario_type`) and dashboard rows (`benchmark_type: agentic_traces`)."""
    base = json.loads(AIPERF_11.read_text())
    config = base["input_config"]
    runs = {
        "trajectories": {
            **base,
            "input_config": {**config, "loadgen": {**config["loadgen"], "trajectory_start_min_ratio": 0.25}},
        },
        "branches": {**base, "branch_stats": {"children_spawned": 7}},
        "trace": {
            **base,
            "input_config": {**config, "input": {**config["input"], "custom_dataset_type": "mooncake_trace"}},
        },
    }
    for name, record in runs.items():
        (tmp_path / "aiperf" / name).mkdir(parents=True)
        (tmp_path / "aiperf" / name / "profile_export_aiperf.json").write_text(json.dumps(record))
    (tmp_path / "aiperf" / "_meta.yaml").write_text("hardware: b200\nprecision: fp8\ntp: 8\n")
    api = json.loads(
        (Path(__file__).parent / "fixtures" / "inferencex-api" / "benchmarks-excerpt.json").read_text()
    )
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "rows.json").write_text(
        json.dumps([{**api[0], "benchmark_type": "agentic_traces"}, api[1]])
    )
    points, log = _load(tmp_path)
    assert [str(p) for p in log.errors] == []
    assert len(points) == 1  # the dashboard's single-turn row
    unfixed = {
        (Path(p.file).parent.name, p.field) for p in log.notices if "agentic or trace-replay" in p.reason
    }
    assert unfixed == {
        ("trajectories", "input_config.loadgen.trajectory_start_min_ratio"),
        ("branches", "branch_stats"),
        ("trace", "input_config.input.custom_dataset_type"),
        ("api", "benchmark_type"),
    }
    reasons = {p.reason.split(" (", 1)[0] for p in log.notices if "agentic or trace-replay" in p.reason}
    assert reasons == {"skipped: an agentic or trace-replay run"}  # one wording for every format


def test_a_missing_gpu_count_is_one_error_per_folder(tmp_path: Path) -> None:
    """Every client format divides by the GPUs: a folder whose metadata gives no GPU count is one
    error naming the field and where to add it, not one per file."""
    runs = sorted((CLIENTS / "vllm-bench-serve").glob("*.json"))
    for run in runs:
        shutil.copy(run, tmp_path / run.name)
    (tmp_path / "_meta.yaml").write_text("hardware: mi355x\nframework: vllm\nprecision: mxfp4\n")
    points, log = _load(tmp_path)
    assert points == [] and len(runs) > 1
    (error,) = log.errors
    assert error.file == f"{tmp_path.name}/"  # the folder, listing the files it applies to
    assert "giving gpu_count (or tp, or prefill_gpus and decode_gpus)" in error.reason
    assert "add gpu_count: …" in error.reason and f"({len(runs)} files:" in error.reason


def _system_with_two_benchmarks(folder: Path) -> Path:
    """AMD's v4.1 system folder as a submission holding a second benchmark (its Server run
    copied under llama3.1-8b-99, as a system that ran several benchmarks has them)."""
    system = folder / "8xMI300X_2xEPYC-9374F"
    shutil.copytree(MLPERF / "results" / "8xMI300X_2xEPYC-9374F", system)
    shutil.copytree(system / "llama2-70b-99" / "Server", system / "llama3.1-8b-99" / "Server")
    return system


def test_a_model_given_above_a_systems_benchmark_folders_labels_none_of_the_others(tmp_path: Path) -> None:
    """The system folder's _meta.yaml names llama2-70b: the llama3.1-8b runs are refused once,
    naming the folder to put their own model in, never read as llama2-70b points."""
    system = _system_with_two_benchmarks(tmp_path)
    points, log = _load(tmp_path)
    assert [p["model"] for p in points] == ["llama2-70b"]
    (error,) = log.errors
    assert error.field == "model" and "/llama3.1-8b-99/" in error.file
    assert f"{system.name}/llama3.1-8b-99/_meta.yaml" in error.reason


def test_each_benchmark_folder_may_name_its_model(tmp_path: Path) -> None:
    """A _meta.yaml inside a benchmark folder gives its runs their model, whatever the key."""
    system = _system_with_two_benchmarks(tmp_path)
    (system / "llama3.1-8b-99" / "_meta.yaml").write_text("model: l31-8b\n")
    points, log = _load(tmp_path)
    assert [str(p) for p in log.errors] == []
    assert sorted(p["model"] for p in points) == ["l31-8b", "llama2-70b"]
