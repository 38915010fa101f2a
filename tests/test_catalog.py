"""The hardware catalog: its errors name GPU and field, and overrides layer site over catalog."""

from __future__ import annotations

from pathlib import Path

from site_builder.catalog import (
    OVERRIDE_WITHOUT_SOURCE,
    ConstantOverride,
    constants_for,
    load_hardware,
    load_models,
)
from site_builder.problems import ProblemLog

ROOT = Path(__file__).resolve().parents[1]


def test_a_mistyped_key_names_the_gpu_and_suggests(tmp_path: Path) -> None:
    path = tmp_path / "hardware.yaml"
    path.write_text("source: x\nas_of: 2026-04\ngpus:\n  mi355x: {name: MI355X, watts_allin: 2650}\n")
    log = ProblemLog()
    assert load_hardware(path, log) is None
    (problem,) = log.errors
    assert (problem.record, problem.field) == ("gpu 'mi355x'", "gpus.mi355x.watts_allin")
    assert problem.reason == "unknown field (did you mean 'watts_all_in'?)"


def test_overrides_layer_over_the_catalog() -> None:
    catalog = load_hardware(ROOT / "data" / "hardware.yaml", ProblemLog())
    assert catalog is not None
    plain = constants_for(catalog, "mi355x", "hyperscaler")
    assert (plain.usd_per_gpu_hour, plain.watts_all_in) == (1.48, 2650)
    site = {"mi355x": ConstantOverride(usd_per_gpu_hour=1.6, source="site deal")}
    page = {"mi355x": ConstantOverride(watts_all_in=2500)}
    layered = constants_for(catalog, "mi355x", "neocloud", site, page)
    assert (layered.usd_per_gpu_hour, layered.watts_all_in) == (1.6, 2500)
    # each constant credited to the layer that gave it; the page named no source, and says so
    assert layered.source == "cost: site deal; power: a site or page override that names no source"
    unknown = constants_for(catalog, "tpuv7", "hyperscaler")
    assert unknown.usd_per_gpu_hour is None and unknown.watts_all_in is None
    # a GPU the catalog lacks is never credited to the catalog's source, and keeps its own name
    assert (unknown.source, unknown.as_of, unknown.hardware_name) == ("none", "—", "tpuv7")
    half = constants_for(catalog, "gaudi3", "hyperscaler", {"gaudi3": ConstantOverride(watts_all_in=900)})
    assert half.source == OVERRIDE_WITHOUT_SOURCE and "InferenceX" not in half.source


def test_a_projects_catalog_adds_and_overrides_entry_by_entry(tmp_path: Path) -> None:
    """A project's own file names one new GPU and one changed one; every other packaged entry
    stays, and each entry is credited to the file that gave it."""
    own = tmp_path / "hardware.yaml"
    own.write_text(
        "source: our lab's price list\nas_of: 2026-09\ngpus:\n"
        "  gaudi3: {name: Gaudi 3, watts_all_in: 1500, usd_per_gpu_hour: {hyperscaler: 1.2}, gpus_per_node: 8}\n"
        "  h200: {name: H200, watts_all_in: 1800, usd_per_gpu_hour: {hyperscaler: 2.0}}\n"
    )
    packaged = ROOT / "data" / "hardware.yaml"
    alone = load_hardware(packaged, ProblemLog())
    log = ProblemLog()
    catalog = load_hardware(packaged, log, own)
    assert alone is not None and catalog is not None and not log.problems
    assert set(catalog.gpus) == set(alone.gpus) | {"gaudi3"}
    added = constants_for(catalog, "gaudi3", "hyperscaler")
    assert (added.usd_per_gpu_hour, added.watts_all_in, added.source, added.as_of) == (
        1.2, 1500, "our lab's price list", "2026-09"
    )  # fmt: skip
    replaced = constants_for(catalog, "h200", "hyperscaler")
    assert (replaced.usd_per_gpu_hour, replaced.watts_all_in) == (2.0, 1800)
    kept = constants_for(catalog, "mi355x", "hyperscaler")
    assert kept == constants_for(alone, "mi355x", "hyperscaler")  # same values, same credit
    assert catalog.source == alone.source  # the packaged catalog's own credit is not taken over


def test_a_projects_catalog_without_a_source_is_credited_to_its_file(tmp_path: Path) -> None:
    own = tmp_path / "hardware.yaml"
    own.write_text("gpus:\n  tpuv7: {name: TPU v7, watts_all_in: 1000}\n")
    catalog = load_hardware(ROOT / "data" / "hardware.yaml", ProblemLog(), own)
    assert catalog is not None
    assert constants_for(catalog, "tpuv7", "hyperscaler").source == f"{own.as_posix()} of this project"


def test_a_projects_models_add_to_the_packaged_names(tmp_path: Path) -> None:
    own = tmp_path / "models.yaml"
    own.write_text("mymodel: {name: My Model 7B}\ndsr1: {name: DeepSeek R1 (ours)}\n")
    packaged = load_models(ROOT / "data" / "models.yaml", ProblemLog())
    merged = load_models(ROOT / "data" / "models.yaml", ProblemLog(), own)
    assert set(merged) == set(packaged) | {"mymodel"}
    assert merged["dsr1"].name == "DeepSeek R1 (ours)" and merged["glm5"] == packaged["glm5"]


def test_a_projects_catalog_is_held_to_the_packaged_ones_rules(tmp_path: Path) -> None:
    """A project's own source address must be a web address and its source prose of bounded
    length, as the packaged catalog's are: refused naming the file and field, never taken as
    written."""
    own = tmp_path / "hardware.yaml"
    own.write_text(
        f"source: {'x' * 2001}\nsource_url: javascript:alert(1)\n"
        "gpus:\n  tpuv7: {name: TPU v7, watts_all_in: 1000}\n"
    )
    log = ProblemLog()
    load_hardware(ROOT / "data" / "hardware.yaml", log, own)
    fields = sorted(p.field for p in log.errors)
    assert fields == ["source", "source_url"], [str(p) for p in log.errors]
    assert all(p.file == own.as_posix() for p in log.errors)
