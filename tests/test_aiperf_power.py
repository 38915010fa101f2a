"""AIPerf's GPU telemetry (`telemetry_data` of profile_export_aiperf.json) gives a run its measured
power per GPU, counting only the run's GPUs: DCGM reports every GPU of the host, idle ones too.

The telemetry is real: the example export of AIPerf's GPU telemetry guide (one H100 at
concurrency 4), in tests/fixtures/clients/aiperf-telemetry (source and licence in
tests/fixtures/clients/README.md). The run it is put into is the aiperf-sweep fixture's
concurrency-4 export. A host's other GPUs are that real GPU's block with its identity and its
power and utilization averages changed, as said in each test.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

CLIENTS = Path(__file__).resolve().parent / "fixtures" / "clients"
RUN = CLIENTS / "aiperf-sweep" / "concurrency_4" / "profile_export_aiperf.json"
EXAMPLE = json.loads("{" + (CLIENTS / "aiperf-telemetry" / "telemetry_data.fragment").read_text() + "}")
GPU_0 = EXAMPLE["telemetry_data"]["endpoints"]["localhost:9401"]["gpus"]["gpu_0"]
WATTS = GPU_0["metrics"]["nvidia_power_usage"]["avg"]  # 348.69 W over the run


def _other_gpu(index: int, watts: float, busy: float) -> dict[str, Any]:
    """Another GPU of the host: the example's block, its identity and averages changed."""
    gpu: dict[str, Any] = copy.deepcopy(GPU_0)
    gpu["gpu_index"], gpu["gpu_uuid"] = index, f"GPU-{index:08d}-0000-0000-0000-000000000000"
    gpu["metrics"]["nvidia_power_usage"]["avg"] = watts
    gpu["metrics"]["nvidia_gpu_utilization"]["avg"] = busy
    return gpu


def _load(
    tmp_path: Path, gpus: dict[str, Any], gpu_count: int, more_endpoints: dict[str, Any] | None = None
) -> tuple[list[Any], ProblemLog]:
    """The run with this telemetry (the example's endpoint listing `gpus`, and `more_endpoints`),
    declared on `gpu_count` GPUs: its measured power, and the log."""
    folder = tmp_path / "results" / "aiperf"
    folder.mkdir(parents=True)
    shutil.copy(CLIENTS / "aiperf-sweep" / "_meta.yaml", folder / "_meta.yaml")
    (folder / "profile_export_aiperf.meta.yaml").write_text(f"tp: {gpu_count}\n")
    raw = json.loads(RUN.read_text())
    telemetry = copy.deepcopy(EXAMPLE["telemetry_data"])
    telemetry["endpoints"]["localhost:9401"]["gpus"] = gpus
    telemetry["endpoints"].update(more_endpoints or {})
    raw["telemetry_data"] = telemetry
    (folder / "profile_export_aiperf.json").write_text(json.dumps(raw))
    log = ProblemLog()
    records = load_results(tmp_path / "results", log).table.records(columns=("avg_watts_per_gpu",))
    return [r["avg_watts_per_gpu"] for r in records], log


def test_the_runs_one_gpu_gives_its_mean_power(tmp_path: Path) -> None:
    watts, log = _load(tmp_path, {"gpu_0": GPU_0}, gpu_count=1)
    assert watts == [WATTS] and WATTS == 348.6908823529412
    assert log.errors == [] and log.warnings == []


def test_idle_gpus_of_the_host_are_left_out(tmp_path: Path) -> None:
    """Seven idle GPUs (0 % busy, 70 W) beside the run's one: only the busy one counts."""
    idle = {f"gpu_{i}": _other_gpu(i, 70.0, 0.0) for i in range(1, 8)}
    watts, log = _load(tmp_path, {"gpu_0": GPU_0, **idle}, gpu_count=1)
    assert watts == [WATTS]
    assert log.warnings == []


def test_the_n_busiest_are_averaged(tmp_path: Path) -> None:
    """Two GPUs served the run (the example's and one at 60 % and 300 W), two idle: 2 declared."""
    gpus = {
        "gpu_0": GPU_0,
        "gpu_1": _other_gpu(1, 300.0, 60.0),
        "gpu_2": _other_gpu(2, 70.0, 0.0),
        "gpu_3": _other_gpu(3, 72.0, 1.0),
    }
    watts, log = _load(tmp_path, gpus, gpu_count=2)
    assert watts == [(WATTS + 300.0) / 2]
    assert log.warnings == []


def test_busy_gpus_not_apart_from_the_rest_give_no_power_and_one_warning(tmp_path: Path) -> None:
    """A second GPU as busy as the run's (another job on the host): which one served the run
    is not known, so no power, and one warning naming the file, the record and the field."""
    gpus = {"gpu_0": GPU_0, "gpu_1": _other_gpu(1, 340.0, 40.0)}
    watts, log = _load(tmp_path, gpus, gpu_count=1)
    assert watts == [None]
    (warning,) = log.warnings
    assert warning.file.endswith("aiperf/profile_export_aiperf.json") and warning.field == "telemetry_data"
    assert "it lists 2 GPUs, more than the run's 1" in warning.reason
    assert "not clearly apart" in warning.reason and "none is counted" in warning.reason


def test_fewer_gpus_than_declared_give_no_power(tmp_path: Path) -> None:
    """The aiperf-sweep fixture's own metadata: TP 8. Telemetry of one GPU cannot stand for eight."""
    watts, log = _load(tmp_path, {"gpu_0": GPU_0}, gpu_count=8)
    assert watts == [None]
    (warning,) = log.warnings
    assert "it has the power of 1 GPUs, fewer than the run's 8" in warning.reason


def test_a_gpu_two_endpoints_report_counts_once(tmp_path: Path) -> None:
    """DCGM on both default ports reporting the same GPU (one UUID): one GPU, not two."""
    more = {"localhost:9400": {"gpus": {"gpu_0": GPU_0}}}
    watts, log = _load(tmp_path, {"gpu_0": GPU_0}, gpu_count=1, more_endpoints=more)
    assert watts == [WATTS] and log.warnings == []
