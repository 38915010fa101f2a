"""The registries are the one place a metric, kind, format or section is defined: check them whole."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import pytest

from site_builder import metrics
from site_builder.content import StubSpec
from site_builder.kinds import KINDS, Found, PageKind, Words, slugify
from site_builder.metrics import METRICS, Metric, check_registry, evaluate
from site_builder.plan import PlanFacts
from site_builder.read.formats import FORMATS, detect
from site_builder.sections import SECTIONS
from site_builder.workload import Workload
from tests.conftest import LAB_CSV, ROOT


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
        slug = kind.slug("dsr1", "mi355x", "fp8", "fp4", "fp8", "")
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
    assert (
        KINDS["spec-decoding"].slug("dsr1", "mi355x", "fp4", "mtp", "none", "")
        == "mi355x-fp4-mtp-vs-off-dsr1"
    )
    hardware = KINDS["hardware"]
    assert hardware.slug("dsr1", "", "fp8", "b200", "h200", "none") == "b200-vs-h200-fp8-dsr1"
    assert hardware.slug("dsr1", "", "fp8", "b200", "h200", "mtp") == "b200-vs-h200-fp8-mtp-dsr1"
    assert hardware.title(Words("B200", "H200", "DeepSeek-R1", "", "", "FP8", "MTP")) == (
        "DeepSeek-R1 FP8 MTP: B200 vs H200"
    )


def _gpu_pairs(facts: PlanFacts) -> Iterator[Found]:
    """A test kind's discovery: every two GPUs measured on one model and precision without
    speculative decoding, sharing a workload."""
    by_model: dict[tuple[str, str], dict[str, set[Workload]]] = defaultdict(lambda: defaultdict(set))
    for (model, hardware, precision, method), workloads in facts.workloads.items():
        if method == "none":
            by_model[(model, precision)][hardware] |= workloads
    for (model, precision), gpus in sorted(by_model.items()):
        for a, b in combinations(sorted(gpus), 2):
            shared = gpus[a] & gpus[b]
            if shared:
                yield Found(model, None, precision, (a, b), shared, facts.datasets(model, a, b))


def test_a_new_generated_kind_is_one_entry(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    """A kind whose entry says which pages the data implies has them generated, worded and listed
    in the index by that entry alone; a kind without `discover` comes only from stubs."""
    from site_builder.cli import main

    kind = PageKind(
        key="gpu-pair",
        name="GPU Pairs",
        varies="hardware",
        title=lambda w: f"{w.model} {w.precision}: {w.a} against {w.b}",
        lede=lambda w: f"{w.a} and {w.b} serving {w.model}",
        closers=("One closer.", "Another closer.", "A third closer.", "A fourth closer."),
        slug=lambda model, gpu, precision, a, b, method: slugify(a, "and", b, precision, model),
        needs_gpu=False,
        discover=_gpu_pairs,
    )
    monkeypatch.setitem(KINDS, kind.key, kind)
    b200 = [line.replace(",h200,", ",b200,") for line in LAB_CSV.splitlines() if ",h200,sglang,fp8," in line]
    (project / "data" / "results" / "lab.csv").write_text(LAB_CSV + "\n".join(b200) + "\n")
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    generated = sorted(p.parent.name for p in site.glob("*/comparison.json"))
    # the stub's page, the new kind's and the built-in hardware kind's
    assert generated == ["b200-and-h200-fp8-dsr1", "b200-vs-h200-fp8-dsr1", "h200-fp4-vs-fp8"]
    document = json.loads((site / "b200-and-h200-fp8-dsr1" / "comparison.json").read_text())
    assert document["kind"] == "gpu-pair"
    assert document["title"] == f"{document['model_name']} FP8: B200 against H200"
    assert [side["label"] for side in document["sides"]] == ["B200", "H200"]
    assert "GPU Pairs" in (site / "index.html").read_text()


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


def test_every_constant_is_a_field_where_authors_give_it_and_pages_read_it() -> None:
    """A per-GPU constant is one registry entry (catalog.CONSTANTS) plus its field in the models
    an author's catalog and overrides are validated by, the page's applied constants and the
    engine's: a missing field would silently drop the constant."""
    from dataclasses import fields

    from site_builder.catalog import CONSTANTS, AppliedConstants, ConstantOverride, HardwareSpec
    from site_builder.engine.compare import Constants

    for key, constant in CONSTANTS.items():
        assert constant.key == key
        for model in (HardwareSpec, ConstantOverride, AppliedConstants):
            assert key in model.model_fields, (model.__name__, key)
        assert key in {f.name for f in fields(Constants)}, key
        assert "{gpu}" in constant.missing  # the reason names the GPU


def test_a_constants_words_come_from_its_entry() -> None:
    """The registry words a missing constant, the warnings' short names and the provenance's
    constants table (as they were written before the registry)."""
    from site_builder.catalog import CONSTANTS
    from tests.factories import constants

    cost, power = CONSTANTS["usd_per_gpu_hour"], CONSTANTS["watts_all_in"]
    assert cost.reason("neocloud", "B200") == "no neocloud cost per GPU-hour for B200"
    assert power.reason("rental", "B200") == "no all-in power per GPU for B200"
    assert constants(usd=1.95, watts=2170.0).texts() == ["$1.95", "2170 W"]
    assert constants(usd=None, watts=None).texts() == ["unknown", "unknown"]
    assert constants(usd=None, watts=1400.4).missing() == ["cost"]
