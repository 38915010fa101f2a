"""Measured power: the InferenceX runner's gpu_metrics.csv attached to the run beside it, and the
power section's measured tok/s per MW beside the catalog's, flagged beyond 2×.

No real gpu_metrics.csv is published (the InferenceX runner uploads it as a CI artifact only), so
the tests write one with the header the runner's query gives: `nvidia-smi
--query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.current.sm,clocks.current.memory,
utilization.gpu,utilization.memory --format=csv -l 1` (SemiAnalysisAI/InferenceX,
benchmarks/benchmark_lib.sh), cells as nvidia-smi writes them ("412.34 W", "1980 MHz", "98 %").
"""

from __future__ import annotations

import json
import math
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.engine.power import PowerCheck, power_checks
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from site_builder.read.telemetry import RunPower, window_power

ROOT = Path(__file__).resolve().parents[1]
VLLM = ROOT / "tests" / "fixtures" / "vllm"
HEADER = (
    "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], "
    "clocks.current.memory [MHz], utilization.gpu [%], utilization.memory [%]"
)
RESULT = json.loads((VLLM / "kimi_fp4_b200_c16.json").read_text())
START, END = RESULT["benchmark_start_time_unix"], RESULT["benchmark_end_time_unix"]


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]


def _telemetry(inside: dict[int, list[float]], idle: float = 95.0) -> str:
    """Samples of each GPU a second apart inside the run's window, idle ones before and after."""
    lines = [HEADER]
    for gpu in inside:
        lines.append(f"{_stamp(START - 120)}, {gpu}, {idle:.2f} W, 30, 345 MHz, 3996 MHz, 0 %, 0 %")
    for step in range(max(len(w) for w in inside.values())):
        for gpu, watts in inside.items():
            if step < len(watts):
                when = _stamp(START + 1 + step)
                lines.append(f"{when}, {gpu}, {watts[step]:.2f} W, 61, 1965 MHz, 3996 MHz, 98 %, 41 %")
    for gpu in inside:
        lines.append(f"{_stamp(END + 5)}, {gpu}, {idle:.2f} W, 40, 345 MHz, 3996 MHz, 0 %, 0 %")
    lines.append(f"{_stamp(START + 2)}, 2, [N/A], 61, 1965 MHz, 3996 MHz, 98 %, 41 %")
    return "\n".join(lines) + "\n"


def _run_folder(folder: Path, telemetry: str | None, precision: str = "fp4") -> Path:
    folder.mkdir(parents=True)
    shutil.copy(VLLM / "kimi_fp4_b200_c16.json", folder / "run.json")
    meta = re.sub(
        r"(?m)^precision: .*$", f"precision: {precision}", (VLLM / "kimi_fp4_b200_c16.meta.yaml").read_text()
    )
    (folder / "run.meta.yaml").write_text(meta)
    if telemetry is not None:
        (folder / "gpu_metrics.csv").write_text(telemetry)
    return folder


def test_mean_power_per_gpu_inside_the_window_equals_a_hand_computation(tmp_path: Path) -> None:
    telemetry = _telemetry({0: [600.0, 620.0, 640.0], 1: [700.0, 720.0]})
    log = ProblemLog()
    (point,) = load_results(_run_folder(tmp_path / "results", telemetry), log).table.records()
    # GPU 0: (600 + 620 + 640) / 3 = 620; GPU 1: (700 + 720) / 2 = 710; per GPU: (620 + 710) / 2
    assert point["avg_watts_per_gpu"] == pytest.approx(665.0, rel=1e-12)
    assert [str(p) for p in log.errors] == []


def test_without_units_and_without_an_index_column() -> None:
    text = (
        f"timestamp, power.draw\n{_stamp(START + 1)}, 500\n{_stamp(START + 2)}, 300\n{_stamp(END + 1)}, 90\n"
    )
    found = window_power(text, (START, END))
    assert isinstance(found, RunPower)
    assert (found.watts_per_gpu, found.samples, found.column) == (400.0, 2, "power.draw")


@given(st.text(max_size=400))
def test_any_text_gives_a_power_or_a_reason(text: str) -> None:
    """Whatever the file holds, the reader answers with a power or why not, never a traceback."""
    found = window_power(HEADER + "\n" + text, (START, END))
    assert isinstance(found, str) or found.watts_per_gpu > 0


def test_no_telemetry_no_power(tmp_path: Path) -> None:
    log = ProblemLog()
    (point,) = load_results(_run_folder(tmp_path / "results", None), log).table.records()
    assert point["avg_watts_per_gpu"] is None
    assert not [p for p in log.problems if "gpu_metrics" in str(p)]


@pytest.mark.parametrize(
    ("telemetry", "why"),
    [
        ("timestamp, index, temperature.gpu\n", "no 'timestamp' and 'power.draw [W]' columns"),
        (
            f"{HEADER}\n{_stamp(START - 60)}, 0, 90.00 W, 30, 1 MHz, 1 MHz, 0 %, 0 %\n",
            "no power sample inside",
        ),
    ],
)
def test_telemetry_that_gives_no_power_is_named(tmp_path: Path, telemetry: str, why: str) -> None:
    log = ProblemLog()
    (point,) = load_results(_run_folder(tmp_path / "results", telemetry), log).table.records()
    assert point["avg_watts_per_gpu"] is None
    (notice,) = [p for p in log.notices if "gpu_metrics.csv" in str(p) and "not attached" in str(p)]
    assert why in str(notice) and "run.json" in str(notice)


def test_a_result_without_its_window_is_not_given_the_power(tmp_path: Path) -> None:
    folder = _run_folder(tmp_path / "results", _telemetry({0: [600.0]}))
    run = json.loads((folder / "run.json").read_text())
    del run["benchmark_start_time_unix"]
    (folder / "run.json").write_text(json.dumps(run))
    log = ProblemLog()
    (point,) = load_results(folder, log).table.records()
    assert point["avg_watts_per_gpu"] is None
    assert any("benchmark_start_time_unix" in str(p) for p in log.notices)


def test_a_power_the_result_gives_itself_is_kept(tmp_path: Path) -> None:
    """An InferenceX aggregate row carries the runner's own windowed power: the file beside it
    does not replace it."""
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "agg" / "agg_bmk.json", folder / "agg_bmk.json")
    (folder / "gpu_metrics.csv").write_text(_telemetry({0: [100.0]}))
    watts = [r["avg_watts_per_gpu"] for r in load_results(folder, ProblemLog()).table.records()]
    assert 600.0 in watts and 100.0 not in watts


def test_flag_only_beyond_two_times() -> None:
    def flagged(catalog_w: float, measured_w: float) -> bool:
        return PowerCheck(16, 1000.0, measured_w, catalog_w).disagrees

    assert not flagged(2000.0, 1000.0) and not flagged(1000.0, 2000.0)  # exactly 2×: not beyond
    assert flagged(2000.1, 1000.0) and flagged(1000.0, 2000.1)
    assert not PowerCheck(16, 1000.0, 500.0, None).disagrees  # no catalog power: nothing to flag


@given(
    throughput=st.floats(1, 1e5),
    measured=st.floats(1, 1e5),
    catalog=st.floats(1, 1e5),
)
def test_measured_and_catalog_figures(throughput: float, measured: float, catalog: float) -> None:
    (check,) = power_checks([(8, throughput, measured)], catalog)
    assert check.measured_per_mw == pytest.approx(throughput * 1e6 / measured, rel=1e-12)
    assert check.catalog_per_mw == pytest.approx(throughput * 1e6 / catalog, rel=1e-12)
    spread = max(measured / catalog, catalog / measured)
    assume(not math.isclose(spread, 2, rel_tol=1e-9))
    assert check.disagrees == (spread > 2)


STUB = """---
kind: precision
title: "Kimi K2.5 on B200, FP4 vs FP8, measured power"
model: kimik2.5
hardware: b200
sequence: 1k/1k
sides:
  - {label: FP4, precision: fp4}
  - {label: FP8, precision: fp8}
sections: [power]
---
"""


def test_power_section_shows_measured_beside_catalog_and_flags_beyond_two_times(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "data").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    results = tmp_path / "data" / "results"
    _run_folder(results / "fp4", _telemetry({0: [1200.0], 1: [1300.0]}), "fp4")  # 1,250 W per GPU
    _run_folder(results / "fp8", _telemetry({0: [700.0], 1: [800.0]}), "fp8")  # 750 W per GPU
    (tmp_path / "content" / "power.md").write_text(STUB)
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    html = (tmp_path / "site" / "power" / "index.html").read_text()
    section = html[html.index('id="measured-power-heading"') :]
    throughput = RESULT["total_token_throughput"] / 8  # tok/s per GPU: 8 GPUs (tp 8)
    catalog = 2170  # B200's all-in watts (data/hardware.yaml)
    for watts, flagged in ((1250, False), (750, True)):  # catalog ÷ measured: 1.74× and 2.89×
        measured_text = f"{round(throughput * 1e6 / watts):,}"
        assert measured_text in section
        ratio = catalog / watts
        assert f"{ratio:.2f}×" in section
        assert flagged == (ratio > 2)
    assert f"{round(throughput * 1e6 / catalog):,}" in section
    assert section.count("disagree by more than 2×") == 1


def test_an_edited_telemetry_file_remakes_the_page(tmp_path: Path) -> None:
    """The page cache keys a page on every data file, the telemetry beside a result included."""
    (tmp_path / "content").mkdir()
    (tmp_path / "data").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    results = tmp_path / "data" / "results"
    _run_folder(results / "fp4", _telemetry({0: [1200.0]}), "fp4")
    _run_folder(results / "fp8", _telemetry({0: [700.0]}), "fp8")
    (tmp_path / "content" / "power.md").write_text(STUB)
    page = tmp_path / "site" / "power" / "index.html"
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    assert ">1,200</td>" in page.read_text()
    (results / "fp4" / "gpu_metrics.csv").write_text(_telemetry({0: [1400.0]}))
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    assert ">1,400</td>" in page.read_text() and ">1,200</td>" not in page.read_text()


def test_one_notice_a_file_for_rows_without_a_window(tmp_path: Path) -> None:
    """The aggregate rows that lack a power and a window are named once, not once a row."""
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "agg" / "agg_bmk.json", folder / "agg_bmk.json")
    (folder / "gpu_metrics.csv").write_text(_telemetry({0: [100.0]}))
    log = ProblemLog()
    load_results(folder, log)
    assert len([p for p in log.notices if "gpu_metrics.csv beside it is not attached" in str(p)]) == 1
