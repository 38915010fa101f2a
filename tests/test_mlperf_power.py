"""MLPerf Power: a real power submission's Server run (MLPerf Inference v4.1, NVIDIA 8 × H200
MaxQ, llama2-70b-99; tests/fixtures/clients/README.md gives its source and licence) copied as
docs/data-format.md says. The run's point carries the wall power the analyser measured inside
LoadGen's power window, shared among the GPUs; the ranging pass and the power session records
give no point and are each said once; a power log that cannot give a power says why."""

from __future__ import annotations

import re
import shutil
import tarfile
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from site_builder.read.telemetry import system_power

FIXTURE = Path(__file__).parent / "fixtures" / "clients" / "mlperf-power"
RUN = "results/H200-SXM-141GBx8_TRT_MaxQ/llama2-70b-99/Server/performance"


def _submission(folder: Path) -> Path:
    """The submission's files under `folder`, with the metadata the summary does not record."""
    with tarfile.open(FIXTURE / "submission.tar.xz") as archive:
        # the "data" filter where this Python has it (3.11.4 and later); the archive is our own
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(folder, **safe)  # type: ignore[arg-type]
    shutil.copy(FIXTURE / "_meta.yaml", folder / "results" / "H200-SXM-141GBx8_TRT_MaxQ" / "_meta.yaml")
    return folder


def _hand_mean_watts(run: Path) -> Decimal:
    """The analyser's total watts averaged over the samples inside [power_begin, power_end], the
    stamps compared as ISO strings (month-day-year reordered), in exact decimals."""

    def iso(stamp: str) -> str:
        return f"{stamp[6:10]}-{stamp[0:2]}-{stamp[3:5]}T{stamp[11:]}"

    log = (run / "mlperf_log_detail.txt").read_text()
    stamps = dict(re.findall(r'"key": "(power_begin|power_end)", "value": "([^"]+)"', log))
    begin, end = iso(stamps["power_begin"]), iso(stamps["power_end"])
    watts = [
        Decimal(cells[3])
        for line in (run / "spl.txt").read_text().splitlines()
        if len(cells := line.split(",")) > 3 and begin <= iso(cells[1]) <= end
    ]
    assert len(watts) == 2500  # one a second over the 41 min 40 s window
    return sum(watts, Decimal(0)) / len(watts)


def _load(folder: Path) -> tuple[list[dict[str, Any]], ProblemLog]:
    log = ProblemLog()
    return load_results(folder, log).table.records(), log


def test_a_power_run_carries_the_wall_power_per_gpu_inside_loadgens_window(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    (point,), log = _load(folder)  # run_1 only: the ranging pass gives no point
    assert [str(p) for p in log.errors] == [] and [str(p) for p in log.warnings] == []
    mean = _hand_mean_watts(folder / RUN / "run_1")
    assert float(mean) == pytest.approx(6280.214, abs=5e-4)
    assert point["avg_watts_per_gpu"] == pytest.approx(float(mean / 8), rel=1e-12)  # 785.03 W per GPU
    # the run's own figures, unchanged by the power: "Completed tokens per second: 23113.14"
    assert point["throughput_per_gpu"] == pytest.approx(23113.14 / 8, rel=1e-12)
    assert point["interactivity"] == pytest.approx(1e9 / 138267737, rel=1e-12)
    assert (point["hardware"], point["precision"], point["gpu_count"]) == ("h200", "fp8", 8)


def test_the_ranging_pass_and_the_power_records_are_each_said_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "content").mkdir()
    _submission(tmp_path / "data" / "results" / "mlperf")
    assert main(["check", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0 errors" in out and "from 1 points" in out
    skipped = [line for line in out.splitlines() if ": skipped: " in line]
    expected = {
        "ranging/mlperf_log_summary.txt": "ranging run of an MLPerf power submission",
        "power/": "MLPerf power session record",
        "run_1/spl.txt": "read as the measured power",
        "systems/": "system description",
    }
    for where, why in expected.items():
        (line,) = [line for line in skipped if f"/{where}" in line]
        assert why in line, line
    assert len(skipped) == len(expected) + 1  # and LoadGen's detailed log beside the summary


def test_without_loadgens_window_the_power_is_not_attached_and_it_says_why(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    (folder / RUN / "run_1" / "mlperf_log_detail.txt").unlink()
    (point,), log = _load(folder)
    assert point["avg_watts_per_gpu"] is None
    (notice,) = [p for p in log.notices if p.field == "avg_power_w"]
    assert "spl.txt beside it is not attached: no mlperf_log_detail.txt beside it" in str(notice)


def test_a_window_the_samples_miss_gives_no_power_and_says_why(tmp_path: Path) -> None:
    folder = _submission(tmp_path)
    run = folder / RUN / "run_1"
    spl = run / "spl.txt"
    spl.write_text("\n".join(spl.read_text().splitlines()[:400]))  # stops before power_begin
    (point,), log = _load(folder)
    assert point["avg_watts_per_gpu"] is None
    (notice,) = [p for p in log.notices if p.field == "avg_power_w"]
    assert "no 'Time,…,Watts,…' sample inside the run's power_begin–power_end window" in str(notice)


_STAMP = datetime(2024, 7, 17, 20, 58, 36).timestamp()


@given(st.text(max_size=400), st.one_of(st.none(), st.integers(min_value=1, max_value=64)))
def test_any_text_gives_a_power_or_a_reason(text: str, gpus: int | None) -> None:
    """Whatever spl.txt holds, the reader answers with a power or why not, never a traceback."""
    found = system_power(text, (_STAMP - 3600 * 24, _STAMP + 3600 * 24), gpus)
    assert isinstance(found, str) or found.watts_per_gpu > 0


STUB = """---
kind: custom
title: "Llama 2 70B: MI300X vs H200 MaxQ (MLPerf)"
model: llama2-70b
sequence: openorca
sides:
  - {label: MI300X, hardware: mi300x}
  - {label: H200 MaxQ, hardware: h200}
sections: [power]
---
"""


def test_two_submissions_labelled_one_workload_share_a_page_with_the_measured_power(tmp_path: Path) -> None:
    """AMD's v4.1 Server run and NVIDIA's power run, each folder's metadata naming the benchmark's
    dataset: one workload for both (their mean output lengths, 293 and 291, differ), and the
    power section shows the H200's measured 785 W per GPU against the catalog's all-in 1,730 W."""
    results = tmp_path / "data" / "results"
    _submission(results / "nvidia")
    shutil.copytree(FIXTURE.parent / "mlperf", results / "amd")
    for meta in results.glob("*/results/*/_meta.yaml"):
        meta.write_text(meta.read_text() + "workload: openorca\n")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "mlperf.md").write_text(STUB)
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    html = (tmp_path / "site" / "mlperf" / "index.html").read_text()
    section = html[html.index('id="measured-power-heading"') :]
    row = section[
        section.rindex("<tr", 0, section.index(">785</td>")) : section.index(
            "</tr>", section.index(">785</td>")
        )
    ]
    assert 'class="num">3150</th>' in row  # LoadGen: 79.36 samples/s × 39.696 s mean latency
    assert f">{round(23113.14 / 8 * 1e6 / 1730):,}</td>" in row  # catalog: H200 all-in 1,730 W
    assert "2.20×" in row and "disagree by more than 2×" in section
