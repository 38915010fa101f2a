"""SGLang bench_serving records the server's layout (`server_info`) and how it drew lengths
(`random_range_ratio`): both decide numbers on the page. `--dp-size N` without DP attention
runs N replicas of the TP group, so N × TP GPUs serve the run and share its throughput; SGLang's
long-time default range ratio 0.0 draws lengths from 1 to the nominal one, so outputs averaging
half the nominal length did not end early."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

CLIENTS = Path(__file__).parent / "fixtures" / "clients"
SWEEP = CLIENTS / "sglang-bench-serving"
RATE = CLIENTS / "sglang-request-rate"


def _first_line_with(
    tmp_path: Path, server_info: dict[str, Any], meta: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The sweep's first run with these server_info fields, alone in a folder with `meta`."""
    raw = json.loads(next(SWEEP.glob("*.jsonl")).read_text().splitlines()[0])
    raw["server_info"] = {**raw["server_info"], **server_info}
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(json.dumps(raw) + "\n")
    (folder / "_meta.yaml").write_text(meta)
    log = ProblemLog()
    (point,) = load_results(folder, log).table.records()
    assert [str(p) for p in log.errors] == []
    return raw, point


META = "hardware: h200\nprecision: fp8\n"


def test_data_parallel_replicas_share_the_throughput_among_all_their_gpus(tmp_path: Path) -> None:
    raw, point = _first_line_with(tmp_path, {"tp_size": 4, "dp_size": 2, "enable_dp_attention": False}, META)
    assert (point["tp"], point["gpu_count"]) == (4, 8)  # 2 replicas of TP4
    assert point["throughput_per_gpu"] == pytest.approx(raw["total_throughput"] / 8, rel=1e-12)


def test_dp_attention_groups_share_the_tp_gpus(tmp_path: Path) -> None:
    raw, point = _first_line_with(tmp_path, {"tp_size": 8, "dp_size": 8, "enable_dp_attention": True}, META)
    assert (point["tp"], point["gpu_count"], point["dp_attention"]) == (8, 8, True)
    assert point["throughput_per_gpu"] == pytest.approx(raw["total_throughput"] / 8, rel=1e-12)


def test_a_gpu_count_the_metadata_gives_wins(tmp_path: Path) -> None:
    info = {"tp_size": 4, "dp_size": 2, "enable_dp_attention": False}
    raw, point = _first_line_with(tmp_path, info, META + "gpu_count: 16\n")
    assert point["gpu_count"] == 16
    assert point["throughput_per_gpu"] == pytest.approx(raw["total_throughput"] / 16, rel=1e-12)


def test_a_zero_range_ratio_accepts_half_length_outputs_as_drawn(tmp_path: Path) -> None:
    """Real runs of the older bench_serving at its default random_range_ratio 0.0: the mean
    output is about half of random_output_len 1024, which is what the draw gives."""
    log = ProblemLog()
    points = load_results(RATE, log).table.records()
    assert [str(p) for p in log.errors] == [] and log.warnings == []
    raw = json.loads((RATE / "llama_3_3_70b_online_output.jsonl").read_text().splitlines()[0])
    assert raw["random_range_ratio"] == 0.0
    assert raw["total_output_tokens"] / raw["completed"] == pytest.approx(534.5, abs=0.1)  # 52 % of 1024
    for point in points:
        line = int(point["record"].removeprefix("line "))
        run = json.loads((RATE / Path(point["source_file"]).name).read_text().splitlines()[line - 1])
        if run["dataset_name"] == "random":  # its own random_output_len is its nominal OSL, accepted
            assert (point["osl"], point["random_range_ratio"]) == (run["random_output_len"], 0.0)
        else:  # ShareGPT prompts are not drawn from a range: the ratio the file records is not theirs
            assert point["random_range_ratio"] is None


def test_a_page_says_the_lengths_were_drawn_from_one_token_up(tmp_path: Path) -> None:
    from site_builder.cli import main

    results = tmp_path / "data" / "results"
    for name in ("a", "b"):
        shutil.copytree(RATE, results / name)
    meta = results / "b" / "_meta.yaml"
    meta.write_text(meta.read_text().replace("bf16", "fp8"))
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "p.md").write_text(
        "---\nkind: precision\ntitle: t\nmodel: llama3.3-70b\nhardware: h200\nsequence: 1k/1k\n"
        "sides:\n  - {label: BF16, precision: bf16}\n  - {label: FP8, precision: fp8}\n---\n"
    )
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    html = (tmp_path / "site" / "p" / "index.html").read_text()
    assert "drawn from 1–1,024 input and 1–1,024 output tokens" in html
    assert "short of the nominal" not in html
