"""The hardware catalog: its errors name GPU and field, and overrides layer site over catalog."""

from __future__ import annotations

from pathlib import Path

from site_builder.catalog import OVERRIDE_WITHOUT_SOURCE, ConstantOverride, constants_for, load_hardware
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
