"""The registries are the one place a metric, kind, format or section is defined: check them whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_builder import metrics
from site_builder.content import StubSpec
from site_builder.kinds import KINDS, Words
from site_builder.metrics import METRICS, Metric, check_registry, evaluate
from site_builder.read.formats import FORMATS, detect
from site_builder.sections import SECTIONS
from tests.conftest import ROOT


def test_every_metric_formula_is_well_formed() -> None:
    check_registry()
    with pytest.raises(ValueError, match="unknown name 'power'"):
        check_registry([Metric("x", "x", ["*", "power", 2], "x", "x", "x", "", 0)])
    with pytest.raises(ValueError, match="is not \\[operator"):
        check_registry([Metric("x", "x", ["^", "throughput", 2], "x", "x", "x", "", 0)])


def test_formulas_are_the_definitions_of_design_md() -> None:
    values = {"throughput": 1234.5, "concurrency": 17.25, "usd_per_gpu_hour": 1.48, "watts_all_in": 2650.0}
    by_key = {m.key: m for m in METRICS}
    assert evaluate(by_key["cost"].formula, values) == 1.48 * 1e6 / (3600 * 1234.5)
    assert evaluate(by_key["per_mw"].formula, values) == 1234.5 * 1e6 / 2650.0
    assert evaluate(by_key["joules"].formula, values) == 2650.0 / 1234.5
    assert evaluate(by_key["concurrency"].formula, values) == 17.25
    assert evaluate(by_key["cost"].formula, {**values, "usd_per_gpu_hour": None}) is None
    assert by_key["cost"].needs == ("usd_per_gpu_hour",) and by_key["throughput"].needs == ()


def test_a_new_metric_is_one_entry(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    """Adding a registry entry alone puts the metric in the JSON, the table, the charts and the CSV."""
    from site_builder.cli import main

    extra = Metric(
        key="gpu_hours",
        attribute="gpu_hours_per_million_tokens",
        formula=["/", 1e6, ["*", 3600, "throughput"]],
        label="GPU-hours per million tokens",
        row_title="GPU-hours per million tokens",
        axis="GPU-hours per million tokens",
        unit="GPU-h/M",
        decimals=3,
        better="lower",
    )
    everything = (*METRICS, extra)
    monkeypatch.setattr(metrics, "METRICS", everything)
    monkeypatch.setattr(metrics, "SHOWN", tuple(m for m in everything if m.shown))
    monkeypatch.setattr(metrics, "BY_KEY", {m.key: m for m in everything})
    assert main(["build", "--root", str(project), "-q"]) == 0
    page = project / "site" / "h200-fp4-vs-fp8"
    document = json.loads((page / "comparison.json").read_text())
    at = document["sequences"][0]["results"][0]["sides"][0]
    assert at["gpu_hours_per_million_tokens"] == pytest.approx(
        1e6 / (3600 * at["throughput_per_gpu"]), rel=1e-12
    )
    html = (page / "index.html").read_text()
    assert '<tr data-metric="gpu_hours">' in html and "GPU-hours per million tokens" in html
    assert "gpu_hours_per_million_tokens" in (page / "table.csv").read_text().splitlines()[0]


def test_every_kind_titles_slugs_and_labels() -> None:
    words = Words(
        a="FP4",
        b="FP8",
        model="DeepSeek-R1",
        gpu="MI355X",
        gpu_with_architecture="MI355X (CDNA 4)",
        precision="FP8",
    )
    for kind in KINDS.values():
        assert kind.title(words) and kind.lede(words) and len(kind.closers) == 4
        slug = kind.slug("dsr1", "mi355x", "fp8", "fp4", "fp8")
        assert slug == slug.lower() and " " not in slug and slug
        StubSpec.model_validate(
            {
                "kind": kind.key,
                "model": "dsr1",
                "hardware": "mi355x",
                "sides": [{"label": "A"}, {"label": "B"}],
            }
        )
    assert KINDS["precision"].title(words) == "MI355X: FP4 vs FP8 Precision Comparison"
    assert KINDS["spec-decoding"].side_label("none") == "Off"
    assert KINDS["spec-decoding"].slug("dsr1", "mi355x", "fp4", "mtp", "none") == "mi355x-fp4-mtp-vs-off-dsr1"


def test_an_unknown_kind_is_refused_with_a_suggestion() -> None:
    with pytest.raises(ValueError, match="did you mean 'precision'"):
        StubSpec.model_validate(
            {"kind": "precison", "model": "m", "hardware": "h", "sides": [{"label": "A"}, {"label": "B"}]}
        )


def test_formats_detect_their_own_fixtures() -> None:
    names = [f.name for f in FORMATS]
    assert len(names) == len(set(names)) and names[-1] == "native"  # native is the fallback
    vllm = json.loads((ROOT / "tests/fixtures/vllm/kimi_fp4_b200_c16.json").read_text())
    sglang = json.loads(
        (ROOT / "tests/fixtures/sglang/qwen35_mxfp4_mtp_isl32768_osl1024.jsonl").read_text().splitlines()[0]
    )
    agg = json.loads((ROOT / "tests/fixtures/agg/agg_bmk.json").read_text())[0]
    found = [detect(r) for r in (vllm, sglang, agg)]
    assert [f.name if f else None for f in found] == ["vllm", "sglang", "inferencex-agg"]
    assert detect({"nothing": 1}) is None
    assert [f.needs_metadata for f in found if f is not None] == [True, True, False]


def test_every_section_has_its_partial_in_the_theme() -> None:
    keys = [s.key for s in SECTIONS]
    assert len(keys) == len(set(keys))
    for section in SECTIONS:
        assert (ROOT / "templates" / section.template).is_file(), section.template
