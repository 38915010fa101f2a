"""A workload's real lengths behind its nominal label: measured mean lengths and the range
lengths were drawn from travel with each point, and a page says where they differ from the
label (short outputs in the claims' caveat too)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

ROOT = Path(__file__).resolve().parents[1]
VLLM = ROOT / "tests" / "fixtures" / "clients" / "vllm-bench-serve"
META = "hardware: mi355x\nframework: vllm\ntp: 8\nisl: 1024\nosl: 1024\n"


def _runs(folder: Path, precision: str, output_share: float | None, extra: str = "") -> list[dict[str, Any]]:
    """The vLLM fixture's three runs under `folder`, outputs cut to `output_share` of theirs."""
    folder.mkdir(parents=True)
    raws = []
    for path in sorted(VLLM.glob("*.json")):
        raw = json.loads(path.read_text())
        if output_share is not None:
            raw["total_output_tokens"] = round(raw["total_output_tokens"] * output_share)
        (folder / path.name).write_text(json.dumps(raw))
        raws.append(raw)
    (folder / "_meta.yaml").write_text(META + f"precision: {precision}\n" + extra)
    return raws


def _project(tmp_path: Path) -> tuple[Path, list[dict[str, Any]], list[dict[str, Any]]]:
    (tmp_path / "content").mkdir()
    (tmp_path / "data").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    results = tmp_path / "data" / "results"
    drawn = _runs(results / "drawn", "fp4", None, "random_range_ratio: 0.8\n")
    short = _runs(results / "short", "fp8", 1 / 3)
    return tmp_path, drawn, short


def _mean(raws: list[dict[str, Any]], total: str) -> float:
    return float(sum(r[total] / r["completed"] for r in raws) / len(raws))


def test_points_carry_measured_means_and_the_range(tmp_path: Path) -> None:
    project, drawn, short = _project(tmp_path)
    log = ProblemLog()
    points = load_results(project / "data" / "results", log).table.records()
    assert [str(e) for e in log.errors] == []
    by_precision: dict[str, list[dict[str, Any]]] = {p["precision"]: [] for p in points}
    for p in points:
        by_precision[p["precision"]].append(p)
    assert {(p["isl"], p["osl"]) for p in points} == {(1024, 1024)}  # nominal lengths kept
    assert {p["random_range_ratio"] for p in by_precision["fp4"]} == {0.8}
    assert {p["random_range_ratio"] for p in by_precision["fp8"]} == {None}
    expected = sorted(r["total_output_tokens"] / r["completed"] for r in short)
    assert sorted(p["osl_mean"] for p in by_precision["fp8"]) == pytest.approx(expected, rel=1e-12)
    assert sorted(p["isl_mean"] for p in by_precision["fp4"]) == pytest.approx(
        sorted(r["total_input_tokens"] / r["completed"] for r in drawn), rel=1e-12
    )


def _text(page: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_a_page_names_short_outputs_and_drawn_lengths(tmp_path: Path) -> None:
    project, _, short = _project(tmp_path)
    assert main(["build", "--root", str(project), "-q"]) == 0
    page = project / "site" / "mi355x-fp4-vs-fp8-dsr1"
    data = json.loads((page / "comparison.json").read_text())
    sides = {s["label"]: s for s in data["sequences"][0]["sides"]}
    fp4, fp8 = (next(label for label in sides if p in label) for p in ("FP4", "FP8"))
    assert sides[fp8]["lengths"]["osl_mean"] == pytest.approx(_mean(short, "total_output_tokens"), rel=1e-12)
    assert sides[fp8]["lengths"]["random_range_ratios"] == []
    assert sides[fp4]["lengths"]["random_range_ratios"] == [0.8]
    assert sides[fp4]["lengths"]["points"] == 3
    source = (page / "index.html").read_text()
    text = _text(source)
    mean_out = _mean(short, "total_output_tokens")
    short_by = round((1 - mean_out / 1024) * 100)
    said = f"{fp8}'s outputs averaged {round(mean_out)} tokens, {short_by}% short of the nominal 1,024"
    assert short_by == 67
    # in the headline, where the claims are made (and so on the index card), and under the
    # workload's heading
    (summary,) = re.findall(r'<p class="summary">(.*?)</p>', source, re.S)
    assert f"1k/1k is nominal: {said} (requests ended early" in _text(summary)
    (lengths,) = re.findall(r'<p class="workload-lengths">(.*?)</p>', source, re.S)
    assert said in _text(lengths)
    assert said in _text((project / "site" / "index.html").read_text())
    assert f"{fp4}'s lengths were drawn from 819–1,024 input and 819–1,024 output tokens" in text
    assert "1k/1k is the nominal workload" in text


def test_lengths_as_given_leave_a_page_unchanged(tmp_path: Path) -> None:
    """Points whose files give no mean lengths and no range: no lengths in comparison.json."""
    project, _, _ = _project(tmp_path)
    for folder in ("drawn", "short"):
        shutil.rmtree(project / "data" / "results" / folder)
    _runs(project / "data" / "results" / "a", "fp4", None)
    _runs(project / "data" / "results" / "b", "fp8", None)
    assert main(["build", "--root", str(project), "-q"]) == 0
    page = project / "site" / "mi355x-fp4-vs-fp8-dsr1"
    data = json.loads((page / "comparison.json").read_text())
    # the files give token totals, so means are listed; none is short, so the page says nothing
    assert all(s["lengths"]["random_range_ratios"] == [] for s in data["sequences"][0]["sides"])
    assert "nominal workload" not in (page / "index.html").read_text()


def test_a_range_ratio_above_one_is_refused_naming_the_field(tmp_path: Path) -> None:
    record = {
        "model": "dsr1",
        "hardware": "mi355x",
        "framework": "vllm",
        "precision": "fp4",
        "isl": 1024,
        "osl": 1024,
        "concurrency": 8,
        "throughput_per_gpu": 100.0,
        "median_tpot_ms": 20.0,
        "gpu_count": 8,
        "random_range_ratio": 1.5,
    }
    (tmp_path / "points.json").write_text(
        json.dumps(
            {
                "format": "site-builder-points",
                "version": 1,
                "dataset": {"id": "lab", "title": "Lab runs", "source": "our lab", "licence": "CC-BY-4.0"},
                "points": [record],
            }
        )
    )
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    (error,) = log.errors
    assert error.field == "random_range_ratio" and "at most 1" in error.reason


def test_import_keeps_the_lengths(tmp_path: Path) -> None:
    """`build-site import` writes the measured means and the range into the native file, and
    loading that file gives the points the client's files gave."""
    project, _, short = _project(tmp_path)
    results = project / "data" / "results"
    imported = tmp_path / "imported"
    attribution = ["--id", "x", "--title", "X", "--source", "s"]
    for folder in ("short", "drawn"):
        out = imported / f"{folder}.json"
        assert main(["import", str(results / folder), "-o", str(out), *attribution]) == 0
    short_records = json.loads((imported / "short.json").read_text())["points"]
    assert sorted(r["osl_mean"] for r in short_records) == pytest.approx(
        sorted(r["total_output_tokens"] / r["completed"] for r in short), rel=1e-12
    )
    assert all("random_range_ratio" not in r for r in short_records)
    drawn_records = json.loads((imported / "drawn.json").read_text())["points"]
    assert {r["random_range_ratio"] for r in drawn_records} == {0.8}
    columns = ("precision", "concurrency", "isl_mean", "osl_mean", "random_range_ratio")
    log = ProblemLog()
    again = load_results(imported, log).table.records(columns=columns)
    before = load_results(results, ProblemLog()).table.records(columns=columns)
    assert [str(e) for e in log.errors] == []
    assert sorted(again, key=str) == sorted(before, key=str)
