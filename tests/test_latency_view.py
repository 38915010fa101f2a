"""The latency view (every comparison page) and the sweep latency section's p90/p99: values equal
the input points' (by hand, or by a plain loop over the records), a statistic a side lacks is
said once and never drawn as zero, and no subset of latency columns can make a page fail."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.compute import MetricLatency, SideLatency
from site_builder.engine.latency import by_concurrency, measured
from site_builder.pipeline import run
from site_builder.present.latency import not_measured_lines
from site_builder.project import Project

HEADER = "model,hardware,framework,precision,spec_method,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms"
# (precision, tp, concurrency, throughput per GPU, median TPOT ms): FP4 runs two deployments at 16
POINTS = [
    ("fp8", 8, 4, 300.0, 10.0),
    ("fp8", 8, 16, 900.0, 20.0),
    ("fp8", 8, 64, 1800.0, 40.0),
    ("fp4", 8, 4, 450.0, 9.0),
    ("fp4", 8, 16, 1400.0, 16.0),
    ("fp4", 4, 16, 1500.0, 18.0),
    ("fp4", 8, 64, 2900.0, 30.0),
]
STATS = ("median", "p90", "p99")
OPTIONAL = [f"{stat}_{metric}_ms" for metric in ("ttft", "e2el") for stat in STATS] + [
    "p90_tpot_ms",
    "p99_tpot_ms",
    "mean_ttft_ms",
]
STUB = """---
kind: precision
model: dsr1
hardware: h200
sides:
  - {label: FP4, precision: fp4}
  - {label: FP8, precision: fp8}
sections: [matched-interactivity, latency]
---
Latency test.
"""


# -- the engine ---------------------------------------------------------------------------------


def test_one_point_a_concurrency_the_highest_throughput_that_measured_it() -> None:
    concurrency = np.array([4, 16, 16, 16, 64], dtype=np.int64)
    throughput = np.array([100.0, 500.0, 900.0, 700.0, 2000.0])
    nan = math.nan
    values = np.array(
        [
            [0.1, 0.2, nan, 0.3, nan],  # median: the 900 tok/s point at 16 lacks it
            [nan, nan, nan, 0.5, nan],
            [0.4, nan, nan, 0.9, nan],
        ]
    )
    found = by_concurrency(concurrency, throughput, values)
    # 16: the 900 point measured nothing, so the 700 one (position 3) speaks; 64 measured nothing
    assert [(a.concurrency, a.point, a.values) for a in found] == [
        (4, 0, (0.1, None, 0.4)),
        (16, 3, (0.3, 0.5, 0.9)),
    ]
    assert measured(values) == (True, True, True)
    assert measured(np.full((3, 2), nan)) == (False, False, False)


def _reference(
    rows: list[tuple[int, float, list[float | None]]],
) -> dict[int, tuple[int, list[float | None]]]:
    """Plain loop: per concurrency, the first point of highest throughput among those with a value."""
    best: dict[int, tuple[int, list[float | None]]] = {}
    for n, (level, tput, stats) in enumerate(rows):
        if all(v is None for v in stats):
            continue
        if level not in best or tput > rows[best[level][0]][1]:
            best[level] = (n, stats)
    return best


latency_value = st.one_of(st.none(), st.floats(min_value=1e-4, max_value=1e3))


@given(
    st.lists(
        st.tuples(
            st.sampled_from([1, 4, 16, 64]),
            st.floats(1, 1e4),
            st.lists(latency_value, min_size=3, max_size=3),
        ),
        max_size=12,
    )
)
def test_by_concurrency_equals_a_plain_loop(rows: list[tuple[int, float, list[float | None]]]) -> None:
    concurrency = np.array([r[0] for r in rows], dtype=np.int64)
    throughput = np.array([r[1] for r in rows], dtype=np.float64)
    values = np.array([[math.nan if v is None else v for v in r[2]] for r in rows], dtype=np.float64).T
    values = values.reshape(3, len(rows))
    found = by_concurrency(concurrency, throughput, values)
    expected = _reference(rows)
    assert [a.concurrency for a in found] == sorted(expected)
    for a in found:
        point, stats = expected[a.concurrency]
        assert a.point == point and list(a.values) == stats  # None stays None: never a zero
    assert measured(values) == tuple(any(r[2][i] is not None for r in rows) for i in range(3))


# -- the words ----------------------------------------------------------------------------------


def _metric(metric: str, a: tuple[bool, ...], b: tuple[bool, ...]) -> MetricLatency:
    return MetricLatency(metric, (SideLatency(a, ()), SideLatency(b, ())))


def test_a_lacking_statistic_is_said_once_per_side_naming_its_workloads() -> None:
    full, no_p90, nothing = (True, True, True), (True, False, True), (False, False, False)
    one = [_metric("ttft", full, no_p90), _metric("e2el", full, no_p90), _metric("tpot", full, no_p90)]
    two = [
        _metric("ttft", nothing, no_p90),
        _metric("e2el", nothing, no_p90),
        _metric("tpot", nothing, no_p90),
    ]
    three = [_metric("ttft", no_p90, full), _metric("e2el", full, full), _metric("tpot", nothing, full)]
    lines = not_measured_lines(["A", "B"], [("1k/1k", one), ("1k/8k", two), ("8k/1k", three)])
    assert lines == [
        "No latency measured for A on 1k/8k.",
        "Median TPOT, p90 TTFT, p90 TPOT and p99 TPOT not measured for A on 8k/1k.",
        "p90 not measured for B on 1k/1k and 1k/8k.",
    ]


# -- pages --------------------------------------------------------------------------------------


def _csv(columns: dict[str, list[float | None]]) -> str:
    names = list(columns)
    lines = [",".join([HEADER, *names])]
    for n, (precision, tp, level, tput, tpot) in enumerate(POINTS):
        cells = [str(columns[name][n]) if columns[name][n] is not None else "" for name in names]
        lines.append(
            ",".join(
                ["dsr1,h200,sglang", precision, f"none,{tp},{tp},1024,1024,{level},{tput},{tpot}", *cells]
            )
        )
    return "\n".join(lines) + "\n"


def _build(project: Path, columns: dict[str, list[float | None]]) -> tuple[dict[str, Any], str]:
    (project / "data" / "results" / "lab.csv").write_text(_csv(columns))
    (project / "content" / "h200-fp4-vs-fp8.md").write_text(STUB)
    files = run(Project.under(project, project / "site")).files.files
    html = files["h200-fp4-vs-fp8/index.html"].decode()
    return json.loads(files["h200-fp4-vs-fp8/comparison.json"]), html


def _section(html: str, key: str) -> str:
    start = html.index(f'aria-labelledby="{key}-heading"')
    return html[start : html.index("</section>", start)]


def _lines(section: str) -> list[str]:
    return re.findall(r'<p class="not-measured-line">(.*?)</p>', section)


def _table(data: dict[str, Any], metric: str) -> dict[str, Any] | None:
    tables = data["latency"]["workloads"][0]["tables"]
    return next((t for t in tables if t["metric"] == metric), None)


FP4_P99_TTFT = [None, None, None, 40.0, 80.0, 70.0, 300.0]  # ms, in POINTS order


def test_values_are_the_points_and_the_side_lacking_a_statistic_is_named(project: Path) -> None:
    data, html = _build(project, {"p99_ttft_ms": FP4_P99_TTFT, "median_ttft_ms": [5, 6, 7, 4, 5, 9, 8]})
    ttft = _table(data, "ttft")
    assert ttft is not None and ttft["statistics"] == ["median", "p99"]
    assert ttft["measured"] == [["median", "p99"], ["median"]]
    rows = {r["concurrency"]: r["sides"] for r in ttft["rows"]}
    # FP4 at 16: the TP4 deployment (1500 tok/s/GPU) speaks, not the TP8 one (1400)
    assert rows[16][0]["values"] == {"median": 9.0, "p90": None, "p99": 70.0}
    assert rows[16][0]["throughput_per_gpu"] == 1500.0 and rows[16][0]["gpu_count"] == 4
    assert rows[64][1]["values"] == {"median": 7.0, "p90": None, "p99": None}
    tpot = _table(data, "tpot")
    assert tpot is not None and [r["sides"][1]["values"]["median"] for r in tpot["rows"]] == [
        10.0,
        20.0,
        40.0,
    ]
    section = _section(html, "latency-view")
    assert _lines(section) == [
        "Median E2E latency, p90, p99 E2E latency and p99 TPOT not measured for FP4 on 1k/1k.",
        "Median E2E latency, p90 and p99 not measured for FP8 on 1k/1k.",
    ]
    chart = json.loads(re.search(r'id="chart-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    first = chart["latency"][0]  # 1k/1k TTFT: FP4 median and p99, FP8 median; nothing drawn for FP8 p99
    assert [t["name"] for t in first["data"]] == ["FP4 median", "FP4 p99", "FP8 median"]
    assert first["data"][1]["y"] == [40, 70, 300] and 0 not in first["data"][1]["y"]


FOLD = re.compile(r'<details id="latency-fold"( open)?[^>]*>\s*<summary>(.*?)</summary>', re.S)


@pytest.mark.parametrize(
    "columns, summary",
    [
        ({"p99_ttft_ms": FP4_P99_TTFT}, "TTFT and TPOT at median and p99"),  # no E2E, no p90
        (
            {name: [1.0] * len(POINTS) for name in OPTIONAL},
            "TTFT, E2E latency and TPOT at median, p90 and p99",
        ),
    ],
)
def test_the_view_is_folded_under_its_heading_naming_what_it_holds(
    project: Path, columns: dict[str, Any], summary: str
) -> None:
    """The view is long: it is closed in the markup (the page script opens it when the URL asks),
    its summary the section's heading and the metrics and statistics the files give."""
    _, html = _build(project, columns)
    fold = FOLD.search(_section(html, "latency-view"))
    assert fold is not None and fold.group(1) is None
    assert (
        re.sub(r"<[^>]+>", "", fold.group(2)) == f"Latency against concurrency {summary}: a chart and tables"
    )


def test_sweep_latency_section_pairs_p90_and_p99_from_points(project: Path) -> None:
    data, html = _build(project, {"p99_ttft_ms": FP4_P99_TTFT, "p90_tpot_ms": [11, 22, 44, 10, 17, 19, 33]})
    w = data["sweep"]["workloads"][0]
    # the sweep analyses rank a concurrency's points by output throughput, which these points lack:
    # at 16 FP4's first point in the file (TP8) gives the values
    assert [(p["concurrency"], p["values"]) for p in w["ttft_p99_ms"]] == [
        (4, [40.0, None]),
        (16, [80.0, None]),
        (64, [300.0, None]),
    ]
    assert [(p["concurrency"], p["values"], p["ratio"]) for p in w["tpot_p90_ms"]] == [
        (4, [10.0, 11.0], 10 / 11),
        (16, [17.0, 22.0], 17 / 22),
        (64, [33.0, 44.0], 33 / 44),
    ]
    assert w["ttft_p90_ms"] == [] and w["tpot_p99_ms"] == []
    assert w["tails_not_measured"] == [
        "p99 TPOT and p90 TTFT not measured for FP4 on 1k/1k.",
        "p99 TPOT, p90 TTFT and p99 TTFT not measured for FP8 on 1k/1k.",
    ]
    section = _section(html, "latency")
    assert "p99 TTFT at each concurrency" in section and "p90 TPOT at each concurrency" in section
    assert _lines(section) == w["tails_not_measured"]


def test_sweep_latency_section_without_any_percentile_says_so_in_one_line(project: Path) -> None:
    data, html = _build(project, {})
    assert data["sweep"]["workloads"][0]["ttft_p99_ms"] == []
    assert _lines(_section(html, "latency")) == [
        "p90 and p99 TPOT and TTFT: not measured (neither side's files give them)."
    ]


# the subsets of latency columns a page must survive: (columns given, lines expected)
CASES = {
    "only the median TPOT every point has": ({}, 2),
    "all blank": ({name: [None] * len(POINTS) for name in OPTIONAL}, 2),
    "only p99": ({"p99_ttft_ms": FP4_P99_TTFT}, 2),
    "only a mean": ({"mean_ttft_ms": [5.0] * len(POINTS)}, 2),
    # FP8's first point gives every statistic, so only FP4 lacks any
    "one point with everything": ({name: [1.0, None, None, None, None, None, None] for name in OPTIONAL}, 1),
}


@pytest.mark.parametrize("columns, count", CASES.values(), ids=list(CASES))
def test_any_subset_of_latency_columns_renders(project: Path, columns: dict[str, Any], count: int) -> None:
    data, html = _build(project, columns)
    section = _section(html, "latency-view")
    assert len(_lines(section)) == count == len(data["latency"]["not_measured"])
    assert "None" not in section and "nan" not in section.lower()
    _check_cells(data)


def _check_cells(data: dict[str, Any]) -> None:
    """Every value shown is a positive number from a statistic its side measured."""
    for w in data["latency"]["workloads"]:
        for table in w["tables"]:
            for row in table["rows"]:
                for side, cell in zip(table["measured"], row["sides"], strict=True):
                    if cell is None:
                        continue
                    for stat, value in cell["values"].items():
                        assert value is None or (value > 0 and stat in side)


cell = st.one_of(st.none(), st.floats(min_value=0.01, max_value=1e5).map(lambda v: round(v, 3)))


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(OPTIONAL), st.lists(cell, min_size=len(POINTS), max_size=len(POINTS))))
def test_random_latency_columns_render_and_match_the_points(project: Path, columns: dict[str, Any]) -> None:
    data, html = _build(project, columns)
    _section(html, "latency-view")
    _check_cells(data)
    for table in data["latency"]["workloads"][0]["tables"]:
        if table["metric"] == "tpot":
            continue
        for row in table["rows"]:
            for n, precision in enumerate(("fp4", "fp8")):
                cell_found = row["sides"][n]
                if cell_found is None:
                    continue
                given_here = [
                    i for i, p in enumerate(POINTS) if p[0] == precision and p[2] == row["concurrency"]
                ]
                scale = 1000.0 if table["metric"] == "e2el" else 1.0  # E2E is shown in s
                for stat, value in cell_found["values"].items():
                    column = f"{stat}_{table['metric']}_ms"
                    possible = [columns[column][i] for i in given_here] if column in columns else [None]
                    if value is None:
                        assert None in possible
                    else:
                        assert any(v is not None and math.isclose(value * scale, v) for v in possible)
