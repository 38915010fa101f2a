"""The real DeepSeek-R1 data: our pipeline against an independent implementation of DESIGN.md."""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from site_builder.catalog import constants_for, load_hardware
from site_builder.pipeline import load, run
from site_builder.problems import ProblemLog
from site_builder.project import Project
from tests import outside
from tests import reference_impl as ref
from tests.factories import SideInput, compare_sequence

ROOT = Path(__file__).resolve().parents[1]
RAW_PARTS = ("real-data", "inferencex-api-dsr1", "benchmarks.json")
RAW = outside.path(*RAW_PARTS)
IMPORTED = ROOT / "data" / "results" / "inferencex-dsr1.json"
pytestmark = outside.needs(*RAW_PARTS)

METRICS = (
    "throughput_per_gpu",
    "cost_per_million_tokens",
    "tokens_per_sec_per_mw",
    "joules_per_token",
    "concurrency_interpolated",
    "users_per_gpu",
)


@functools.cache
def imported_points() -> list[dict[str, Any]]:
    """The points of the imported file, as the pipeline's point table holds them."""
    table = load(Project.under(ROOT), None).table
    return [row for row in table.records() if row["source_file"] == "data/results/" + IMPORTED.name]


def raw_rows(path: Path = RAW) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(path.read_text())
    return rows


def pairs(path: Path = RAW) -> list[tuple[str, str, int, int, str, str]]:
    """Every FP4-vs-FP8 and MTP-vs-none pair in the file: (kind, hw, isl, osl, a, b)."""
    groups: dict[tuple[str, int, int], set[tuple[str, str]]] = defaultdict(set)
    for r in raw_rows(path):
        groups[(r["hardware"], r["isl"], r["osl"])].add((r["precision"], r["spec_method"]))
    found = []
    for (hw, isl, osl), keys in sorted(groups.items()):
        precisions = {p for p, _ in keys}
        if {"fp4", "fp8"} <= precisions:
            found.append(("precision", hw, isl, osl, "fp4", "fp8"))
        for precision in sorted(precisions):
            specs = {s for p, s in keys if p == precision}
            if {"mtp", "none"} <= specs:
                found.append((f"spec:{precision}", hw, isl, osl, "mtp", "none"))
    return found


def test_there_are_many_pairs() -> None:
    assert len(pairs()) >= 40


def _side_rows(kind: str, hw: str, isl: int, osl: int, value: str) -> list[dict[str, Any]]:
    rows = [r for r in raw_rows() if r["hardware"] == hw and r["isl"] == isl and r["osl"] == osl]
    if kind == "precision":
        return [r for r in rows if r["precision"] == value]
    precision = kind.split(":")[1]
    return [r for r in rows if r["precision"] == precision and r["spec_method"] == value]


@pytest.mark.parametrize("pair", outside.params(pairs, *RAW_PARTS, ids=lambda p: "-".join(map(str, p))))
def test_matches_independent_implementation(pair: tuple[str, str, int, int, str, str]) -> None:
    kind, hw, isl, osl, a, b = pair
    log = ProblemLog()
    points = imported_points()
    catalog = load_hardware(ROOT / "data" / "hardware.yaml", log)
    assert catalog is not None
    const = constants_for(catalog, hw, "hyperscaler")
    assert const.usd_per_gpu_hour is not None and const.watts_all_in is not None

    def ours(value: str) -> list[Any]:
        sel = [p for p in points if p["hardware"] == hw and (p["isl"], p["osl"]) == (isl, osl)]
        if kind == "precision":
            return [p for p in sel if p["precision"] == value]
        return [p for p in sel if p["precision"] == kind.split(":")[1] and p["spec_method"] == value]

    sides = [SideInput(v, {}, "best available", hw, const, ours(v)) for v in (a, b)]
    a_label, b_label = a, b
    fa, fb = (ref.frontier(_side_rows(kind, hw, isl, osl, v)) for v in (a, b))
    expected_band = ref.band(fa, fb)
    # probe the default targets plus a spread of points across both frontiers' ranges
    probes: list[float] = []
    if expected_band:
        probes += [float(t) for t in ref.targets(expected_band)]
    for f in (fa, fb):
        lo, hi = ref.x_of(f[0]), ref.x_of(f[-1])
        probes += [lo + k / 10 * (hi - lo) for k in range(11)]
    probes += [ref.x_of(fa[0]) - 1.0, ref.x_of(fa[-1]) + 1.0]
    result = compare_sequence(isl, osl, "x", sides, probes)
    default = compare_sequence(isl, osl, "x", sides)

    assert default.band.overlap == (expected_band is not None)
    if expected_band:
        assert (default.band.lo, default.band.hi) == pytest.approx(expected_band, rel=1e-12)
        assert default.targets == [float(t) for t in ref.targets(expected_band)]
    for side_result, f in zip(result.sides, (fa, fb), strict=True):
        assert [k.interactivity for k in side_result.frontier] == pytest.approx(
            [ref.x_of(r) for r in f], rel=1e-12
        )
        assert [k.throughput_per_gpu for k in side_result.frontier] == [ref.y_of(r) for r in f]
    for target in result.results:
        for m, f in zip(target.sides, (fa, fb), strict=True):
            expected = ref.metrics(f, target.interactivity, const.usd_per_gpu_hour, const.watts_all_in)
            if expected is None:
                assert not m.measured and m.reason and "not measured" in m.reason
                continue
            assert m.measured
            for name in METRICS:
                value = expected[name]
                assert m.model_dump()[name] == (None if value is None else pytest.approx(value, rel=1e-9)), (
                    name
                )
            assert m.model_dump()["concurrency"] == expected["concurrency"]
            # the value lies between its bracketing knots, which give the bounds
            bounds = ref.throughput_bounds(f, target.interactivity)
            assert bounds is not None and m.bound("throughput") == pytest.approx(bounds, rel=1e-12)
            value = m.value("throughput")
            assert value is not None and bounds[0] * (1 - 1e-12) <= value <= bounds[1] * (1 + 1e-12)
        made = target.claim("throughput")
        if all(m.measured for m in target.sides):
            va, vb = (m.value("throughput") for m in target.sides)
            ends = [ref.throughput_bounds(f, target.interactivity) for f in (fa, fb)]
            assert va is not None and vb is not None and ends[0] is not None and ends[1] is not None
            leader, grade, worst = ref.claim_grade(va, vb, ends[0], ends[1])
            assert made is not None and made.grade == grade
            if grade in ("decided", "bounded"):
                assert made.leader == (a_label, b_label)[leader if leader is not None else 0]
                assert made.lead_at_least == pytest.approx(worst, rel=1e-12)


def test_every_frontier_knot_is_a_measured_point_of_the_file() -> None:
    comparisons = [p.comparison for p in run(Project.under(ROOT)).pages]
    measured = {
        (
            r["hardware"],
            r["framework"],
            r["precision"],
            r["spec_method"],
            r["conc"],
            r["isl"],
            r["osl"],
            r["metrics"]["tput_per_gpu"],
            r["date"],
            r["run_url"],
        )
        for r in raw_rows()
    }
    checked = 0
    for comparison in comparisons:
        for sequence in comparison.sequences:
            for side in sequence.sides:
                for knot in side.frontier:
                    if knot.dataset != "inferencex-dsr1":
                        continue
                    key = (
                        knot.hardware,
                        knot.framework,
                        knot.precision,
                        knot.spec_method,
                        knot.concurrency,
                        sequence.isl,
                        sequence.osl,
                        knot.throughput_per_gpu,
                        knot.date,
                        knot.run_url,
                    )
                    assert key in measured, key
                    checked += 1
    assert checked >= 20


def test_stub_page_matches_independent_implementation() -> None:
    comparisons = [p.comparison for p in run(Project.under(ROOT)).pages]
    page = next(c for c in comparisons if c.slug == "mi355x-fp4-vs-fp8-dsr1")
    seq = page.sequences[0]
    assert seq.sequence == "1k/1k" and page.default_sequence == "1k/1k"
    fa, fb = (ref.frontier(_side_rows("precision", "mi355x", 1024, 1024, v)) for v in ("fp4", "fp8"))
    b = ref.band(fa, fb)
    assert b is not None and seq.targets == [float(t) for t in ref.targets(b)]
    assert (seq.band.display_lo, seq.band.display_hi) == (32, 136)
    for target in seq.results:
        for m, f in zip(target.sides, (fa, fb), strict=True):
            expected = ref.metrics(f, target.interactivity, 1.48, 2650.0)
            assert expected is not None
            assert m.model_dump()["throughput_per_gpu"] == pytest.approx(
                expected["throughput_per_gpu"], rel=1e-9
            )
            assert m.model_dump()["cost_per_million_tokens"] == pytest.approx(
                expected["cost_per_million_tokens"], rel=1e-9
            )
            assert m.model_dump()["concurrency"] == expected["concurrency"]
