"""Each loader on real examples, aliases and quirks, and every kind of bad input."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from site_builder.problems import ProblemLog, Severity
from site_builder.read.load import detect_record, load_file, load_results
from site_builder.validate import drop_duplicates
from tests import outside

FIXTURES = Path(__file__).parent / "fixtures"
API_PARTS = ("real-data", "inferencex-api-dsr1", "benchmarks.json")
API_FILE = outside.path(*API_PARTS)
# four rows of API_FILE, byte for byte (fixtures/inferencex-api/SOURCES.md): the first row, a
# single-node TP8 EP8 row, an early disaggregated row without multinode topology, a multinode row
API_EXCERPT = FIXTURES / "inferencex-api" / "benchmarks-excerpt.json"


def errors(log: ProblemLog) -> list[str]:
    return [str(p) for p in log.errors]


def test_inferencex_api_rows_excerpt() -> None:
    result = load_file(API_EXCERPT)
    assert errors(result.log) == []
    raw = json.loads(API_EXCERPT.read_text())
    assert len(raw) == 4 and len(result.table) == 4
    single, tp8ep8, early, multinode = result.table.records()
    for point, row in zip(result.table.records(), raw, strict=True):
        assert (point["hardware"], point["framework"]) == (row["hardware"], row["framework"])
        assert (point["precision"], point["spec_method"]) == (row["precision"], row["spec_method"])
        assert (point["isl"], point["osl"], point["concurrency"]) == (row["isl"], row["osl"], row["conc"])
        assert point["throughput_per_gpu"] == row["metrics"]["tput_per_gpu"]
        assert point["interactivity"] == pytest.approx(row["metrics"]["median_intvty"], rel=1e-12)
        assert point["ttft_median"] == row["metrics"]["median_ttft"]
        assert point["run_url"] == row["run_url"] and point["date"] == row["date"]
    # the first row of the full file: single node, TP4, with power
    assert single["hardware"] == "mi355x" and single["framework"] == "sglang"
    assert single["gpu_count"] == 4 and single["tp"] == 4
    assert single["avg_watts_per_gpu"] == 628.907
    assert single["date"] == "2026-06-11"
    # single node: the GPU count is TP, never the tp×ep (64) the API puts in num_*_gpu
    assert raw[1]["num_decode_gpu"] == 64 and not tp8ep8["disagg"]
    assert (tp8ep8["tp"], tp8ep8["ep"], tp8ep8["gpu_count"]) == (8, 8, 8)
    assert tp8ep8["avg_watts_per_gpu"] is None
    # early disaggregated row without multinode topology: used as published, GPU count unknown
    assert early["disagg"] and not early["multinode"] and early["gpu_count"] is None
    (notice,) = result.log.notices
    assert notice.record == "record 3" and notice.field == "is_multinode"
    # multinode: prefill GPUs + decode GPUs
    assert multinode["multinode"] and multinode["gpu_count"] == 4 + 32
    assert multinode["prefill_gpus"] is not None and multinode["decode_gpus"] is not None
    assert (multinode["prefill_gpus"], multinode["decode_gpus"]) == (4, 32)
    assert multinode["prefill_dp_attention"] is True and multinode["decode_dp_attention"] is False


@outside.needs(*API_PARTS)
def test_inferencex_api_excerpt_rows_are_rows_of_the_real_file() -> None:
    full = json.loads(API_FILE.read_text())
    assert all(row in full for row in json.loads(API_EXCERPT.read_text()))


@outside.needs(*API_PARTS)
def test_inferencex_api_rows_real_file() -> None:
    result = load_file(API_FILE)
    assert errors(result.log) == []
    assert len(result.table) == 435
    first = result.table.records()[0]
    raw = json.loads(API_FILE.read_text())[0]
    assert first["hardware"] == "mi355x" and first["framework"] == "sglang"
    assert first["gpu_count"] == 4 and first["tp"] == 4
    assert first["throughput_per_gpu"] == raw["metrics"]["tput_per_gpu"]
    assert first["interactivity"] == pytest.approx(raw["metrics"]["median_intvty"], rel=1e-12)
    assert first["ttft_median"] == raw["metrics"]["median_ttft"]
    assert first["avg_watts_per_gpu"] == 628.907
    assert first["run_url"] == raw["run_url"] and first["date"] == "2026-06-11"
    multinode = [p for p in result.table.records() if p["multinode"]]
    assert len(multinode) == 227
    assert all(p["gpu_count"] == (p["prefill_gpus"] or 0) + (p["decode_gpus"] or 0) for p in multinode)
    # single-node rows: the GPU count is TP, never the tp×ep the API puts in num_*_gpu
    tp8ep8 = [p for p in result.table.records() if not p["disagg"] and p["tp"] == 8 and p["ep"] == 8]
    assert tp8ep8 and all(p["gpu_count"] == 8 for p in tp8ep8)
    # early disaggregated rows without multinode topology: used as published, GPU count unknown
    early = [p for p in result.table.records() if p["disagg"] and not p["multinode"]]
    assert len(early) == 8 and all(p["gpu_count"] is None for p in early)
    assert len(result.log.notices) == 8


def test_inferencex_agg_multinode_row() -> None:
    result = load_file(FIXTURES / "agg" / "agg_dsr1_fp4_b200_dynamo-sglang_mtp_8k1k_conc2048.json")
    assert errors(result.log) == []
    (p,) = result.table.records()
    assert p["hardware"] == "b200"  # '-dgxc' stripped
    assert p["model"] == "dsr1" and p["spec_method"] == "mtp" and p["disagg"]
    assert p["gpu_count"] == 28  # 20 prefill + 8 decode
    assert p["prefill_gpus"] is not None and p["prefill_dp_attention"] is True
    assert p["decode_gpus"] is not None and p["decode_dp_attention"] is False
    assert (p["isl"], p["osl"], p["concurrency"]) == (8192, 1024, 2048)
    assert p["throughput_per_gpu"] == 8282.1 and p["output_throughput_per_gpu"] == 3223.4
    assert p["interactivity"] == pytest.approx(37.75, rel=1e-12)
    assert p["ttft_median"] == 48.4
    assert p["parallelism"] == "P 5×TP4 EP4 DPA + D 1×TP8 EP8"


def test_inferencex_agg_bmk_array() -> None:
    result = load_file(FIXTURES / "agg" / "agg_bmk.json")
    assert errors(result.log) == []
    single, pp = result.table.records()
    assert single["model"] == "dsr1"  # '-fp8' suffix stripped from the prefix
    assert single["disagg"] is False and single["gpu_count"] == 8
    assert single["interactivity"] == pytest.approx(40.0) and single["ttft_median"] is not None
    assert single["ttft_median"] == 0.1505
    assert single["avg_watts_per_gpu"] is not None and single["joules_per_output_token"] == 9.6
    # TP4 × PP2 × PCP2 = 16 GPUs (DCP does not count); unversioned power is treated as absent
    assert pp["gpu_count"] == 16 and pp["avg_watts_per_gpu"] is None
    (agentic,) = result.log.notices
    assert agentic.field == "scenario_type" and agentic.reason.startswith(
        "skipped: an agentic or trace-replay run (scenario_type: "
    )


def test_inferencex_v1_row_takes_sequence_from_file_name_and_legacy_mtp() -> None:
    result = load_file(FIXTURES / "agg" / "agg_dsr1_fp8_h200_trt_1k1k_v1.json")
    assert errors(result.log) == []
    (p,) = result.table.records()
    assert p["hardware"] == "h200" and p["framework"] == "trt" and p["spec_method"] == "mtp"
    assert (p["isl"], p["osl"]) == (1024, 1024) and p["model"] == "dsr1"
    assert any("taken from the file name" in n.reason for n in result.log.notices)


def test_vllm_raw_result_with_metadata() -> None:
    log = ProblemLog()
    root = FIXTURES / "vllm"
    result = load_results(root, log)
    (p,) = result.table.records()
    assert p["precision"] == "fp4" and p["spec_method"] == "none" and p["model"] == "kimik2.5"
    assert p["gpu_count"] == 8 and p["ep"] == 8
    assert p["throughput_per_gpu"] == pytest.approx(447.59 / 8, rel=1e-12)
    assert p["output_throughput_per_gpu"] == pytest.approx(186.48 / 8, rel=1e-12)
    assert p["interactivity"] == pytest.approx(1000 / 81.25, rel=1e-12)
    assert (
        p["ttft_median"] is not None
        and p["ttft_median"] == pytest.approx(0.1505)
        and p["ttft_p99_9"] == pytest.approx(0.6402)
    )
    assert p["date"] == "2026-03-14" and p["run_url"] == "https://example.org/runs/1"
    # the failed run (604 of 640 completed, 36 failed) is an error, naming file and field
    failed = [e for e in log.errors if "kimi_fp4_b200_c64.json" in e.file]
    assert {e.field for e in failed} == {"completed", "failed"}


def test_sglang_jsonl_with_folder_metadata() -> None:
    result = load_results(FIXTURES / "sglang")
    assert errors(result.log) == []
    c8, c16 = result.table.records()
    assert c8["precision"] == "fp4" and c8["spec_method"] == "mtp"
    assert c8["tp"] == 8 and c8["gpu_count"] == 8
    assert (c8["isl"], c8["osl"], c8["concurrency"]) == (32768, 1024, 8)
    assert c8["throughput_per_gpu"] == pytest.approx(22266.1 / 8, rel=1e-12)
    assert c8["interactivity"] == pytest.approx(1000 / 9.58, rel=1e-12)
    assert c8["e2el_median"] == pytest.approx(10.75)
    # an older line without total_throughput: input + output
    assert c16["throughput_per_gpu"] == pytest.approx((30000.0 + 950.0) / 8, rel=1e-12)
    assert c16["record"] == "line 2"


def test_native_csv_typed_by_a_person() -> None:
    result = load_file(FIXTURES / "native" / "typed-in.csv")
    assert errors(result.log) == []
    a, _b, c = result.table.records()
    assert a["hardware"] == "h100" and a["precision"] == "fp8" and a["spec_method"] == "none"
    assert a["disagg"] is False
    assert a["interactivity"] == pytest.approx(1000 / 22.5) and a["interactivity_source"] == "tpot"
    assert a["ttft_median"] == pytest.approx(0.18)
    assert a["note"] == "from our lab notebook" and a["record"] == "line 2"
    # no TPOT: interactivity derived from output tok/s of the deployment ÷ concurrency, and marked
    assert c["interactivity_source"] == "derived"
    assert c["interactivity"] == pytest.approx(1300.0 * 8 / 128)


def test_native_json_envelope() -> None:
    result = load_file(FIXTURES / "native" / "points.json")
    assert errors(result.log) == []
    assert result.datasets["lab-h200"].licence == "CC-BY-4.0"
    stated, tpot = result.table.records()
    assert stated["interactivity"] == 48.0 and stated["interactivity_source"] == "stated"
    assert stated["avg_watts_per_gpu"] == 650.0
    assert tpot["interactivity"] == pytest.approx(80.0)
    assert {p["dataset"] for p in result.table.records()} == {"lab-h200"}


def test_detection_is_by_keys_not_names() -> None:
    assert detect_record({"metrics": {}, "hardware": "b200", "spec_method": "mtp"}) == "inferencex-api"
    assert detect_record({"hw": "b200", "tput_per_gpu": 1.0}) == "inferencex-agg"
    assert detect_record({"max_concurrency": 4, "total_token_throughput": 1.0}) == "vllm"
    assert detect_record({"server_info": {}, "max_concurrency": 4}) == "sglang"
    assert detect_record({"aiperf_version": "0.8.0"}) == "aiperf"
    assert (
        detect_record({"model": "x", "hardware": "y", "throughput_per_gpu": 1, "concurrency": 2}) == "native"
    )
    assert detect_record({"hello": "world"}) is None


# -- bad input ---------------------------------------------------------------------------------


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


HEADER = "model,hardware,framework,precision,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms\n"


@pytest.mark.parametrize(
    ("row", "field", "reason"),
    [
        ("dsr1,h100,vllm,fp8,1024,1024,16,-5,20", "throughput_per_gpu", "greater than 0"),
        ("dsr1,h100,vllm,fp8,1024,1024,16,0,20", "throughput_per_gpu", "greater than 0"),
        ("dsr1,h100,vllm,fp8,1024,1024,16,NaN,20", "throughput_per_gpu", "finite"),
        ("dsr1,h100,vllm,fp8,1024,1024,16,inf,20", "throughput_per_gpu", "finite"),
        ("dsr1,h100,vllm,fp8,1024,1024,16,100,0", "median_tpot_ms", "greater than 0"),
        ("dsr1,h100,vllm,fp8,1024,1024,16,100,-3", "median_tpot_ms", "greater than 0"),
        ("dsr1,,vllm,fp8,1024,1024,16,100,20", "hardware", "missing"),
        ("dsr1,h100,vllm,fp8,1024,1024,,100,20", "concurrency", "missing"),
        ("dsr1,h100,vllm,fp8,1024,1024,2.5,100,20", "concurrency", "whole number"),
        ("dsr1,h100,vllm,fp8,1024,1024,16,fast,20", "throughput_per_gpu", "not a number"),
    ],
)
def test_bad_values_name_file_record_and_field(tmp_path: Path, row: str, field: str, reason: str) -> None:
    path = write(tmp_path, "bad.csv", HEADER + row + "\n")
    result = load_file(path)
    assert len(result.table) == 0
    (problem,) = result.log.errors
    assert problem.file.endswith("bad.csv") and problem.record == "line 2" and problem.field == field
    assert reason in problem.reason


def test_missing_tpot_and_no_way_to_derive(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", HEADER + "dsr1,h100,vllm,fp8,1024,1024,16,100,\n")
    (problem,) = load_file(path).log.errors
    assert problem.field == "median_tpot_s" or "TPOT" in problem.reason


def test_unknown_column_gets_a_suggestion(tmp_path: Path) -> None:
    path = write(
        tmp_path, "typo.csv", HEADER.strip() + ",concurency\n" + "dsr1,h100,vllm,fp8,1024,1024,16,100,20,3\n"
    )
    (problem,) = load_file(path).log.errors
    assert problem.field == "concurency" and "did you mean 'concurrency'" in problem.reason


def test_unknown_formats(tmp_path: Path) -> None:
    log = ProblemLog()
    write(tmp_path, "random.json", json.dumps({"hello": "world"}))
    write(tmp_path, "table.csv", "a,b\n1,2\n")
    write(tmp_path, "broken.json", "{not json")
    write(tmp_path, "aiperf.json", json.dumps({"aiperf_version": "0.8.0", "schema_version": "1.1"}))
    load_results(tmp_path, log)
    by_file = {Path(p.file).name: p.reason for p in log.errors}
    assert "unknown format" in by_file["random.json"]
    assert "unknown format" in by_file["table.csv"]
    assert "not valid JSON" in by_file["broken.json"]
    assert "AIPerf" in by_file["aiperf.json"]


def test_all_problems_of_all_files_in_one_run(tmp_path: Path) -> None:
    write(
        tmp_path,
        "a.csv",
        HEADER + "dsr1,h100,vllm,fp8,1024,1024,16,-5,20\ndsr1,h100,vllm,fp8,1024,1024,16,5,0\n",
    )
    write(tmp_path, "b.csv", HEADER + "dsr1,,vllm,fp8,1024,1024,16,100,20\n")
    log = ProblemLog()
    load_results(tmp_path, log)
    assert sorted((Path(p.file).name, p.record, p.field) for p in log.errors) == [
        ("a.csv", "line 2", "throughput_per_gpu"),
        ("a.csv", "line 3", "median_tpot_ms"),
        ("b.csv", "line 2", "hardware"),
    ]


def test_json_nan_and_infinity_tokens_are_rejected(tmp_path: Path) -> None:
    row = {
        "hw": "b200",
        "conc": 4,
        "infmax_model_prefix": "dsr1",
        "framework": "sglang",
        "precision": "fp8",
        "isl": 1024,
        "osl": 1024,
        "tp": 8,
    }
    text = (
        "["
        + json.dumps({**row, "tput_per_gpu": 1.0})[:-1]
        + ', "median_tpot": NaN}, '
        + json.dumps(row)[:-1]
        + ', "tput_per_gpu": Infinity, "median_tpot": 0.01}]'
    )
    result = load_file(write(tmp_path, "agg_x.json", text))
    assert sorted((p.record, p.field) for p in result.log.errors) == [
        ("record 1", "median_tpot"),
        ("record 2", "tput_per_gpu"),
    ]


def test_raw_result_without_metadata_is_an_error(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "vllm" / "kimi_fp4_b200_c16.json", tmp_path / "run.json")
    (problem,) = load_results(tmp_path).log.errors
    assert "metadata file" in problem.reason and problem.file.endswith("run.json")


def test_metadata_typo_is_named(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "vllm" / "kimi_fp4_b200_c16.json", tmp_path / "run.json")
    write(
        tmp_path, "_meta.yaml", "hardware: b200\nprecision: fp4\nprecison: fp4\ntp: 8\nisl: 1024\nosl: 1024\n"
    )
    (problem,) = load_results(tmp_path).log.errors
    assert problem.file.endswith("_meta.yaml") and problem.field == "precison"
    assert "did you mean 'precision'" in problem.reason


def test_booleans_written_as_strings() -> None:
    from site_builder.read.fields import parse_bool, parse_number

    assert [parse_bool(v) for v in (True, "true", "True", "1", 1)] == [True] * 5
    assert [parse_bool(v) for v in (False, "false", "False", "0", 0)] == [False] * 5
    with pytest.raises(ValueError):
        parse_bool("maybe")
    for not_finite in ("inf", "Infinity", "-inf", "NaN", math.nan, 1e308 * 10):
        with pytest.raises(ValueError, match="finite"):
            parse_number(not_finite)
    assert parse_number(" 12.5 ") == 12.5


def test_duplicates_keep_the_newest_and_say_so(tmp_path: Path) -> None:
    write(tmp_path, "_dataset.yaml", "id: lab\ntitle: Lab runs\nsource: our lab\n")
    write(
        tmp_path,
        "old.csv",
        HEADER.strip() + ",date\n" + "dsr1,h100,vllm,fp8,1024,1024,16,100,20,2026-01-01\n",
    )
    write(
        tmp_path,
        "new.csv",
        HEADER.strip() + ",date\n" + "dsr1,h100,vllm,fp8,1024,1024,16,120,19,2026-03-01\n",
    )
    log = ProblemLog()
    (kept,) = drop_duplicates(load_results(tmp_path, log).table, log).records()
    assert kept["throughput_per_gpu"] == 120.0
    (warning,) = log.warnings
    assert warning.severity is Severity.WARNING and warning.file.endswith("old.csv")
    assert (
        "duplicate point" in warning.reason
        and "kept the one from" in warning.reason
        and "newer than" in warning.reason
    )
