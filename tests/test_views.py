"""A reader's own view of a comparison page: the filters and interactivity basis of the page data
(present/views.py) and the page engine's reading of them (engine.js viewPoints, then sideKnots).

The page data must carry every point of each side as the build pooled it: the all-points view,
worked out by the page engine from those points alone, gives back the build's knots, band and
targets on every page of the default site; a filtered view gives those of a page built from a
stub with the same filter. (tests/browser/test_views.py checks the page script in Chromium.)
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from site_builder.cli import main
from site_builder.present.schema import ComparisonResult, SideIdentity
from site_builder.render.pages import page_data
from tests.conftest import shared_build
from tests.factories import Point, SideInput, constants, point, sequence_and_points
from tests.test_point_columns import decoded

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "tests" / "js" / "view_check.cjs"
PAGE = "mi355x-fp4-vs-fp8-dsr1"  # FP4 vs FP8 on MI355X: each side pools engines, MTP and modes
ALL_POINTS: dict[str, Any] = {"filters": {}, "basis": "median"}


def built_page_data(html: Path) -> dict[str, Any]:
    """A built page's page data (its page-data script)."""
    found = re.search(
        r'<script type="application/json" id="page-data">(.*?)</script>', html.read_text(), re.S
    )
    assert found is not None, html
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def built_chart_data(html: Path) -> dict[str, Any]:
    """A built page's chart data (its chart-data script)."""
    found = re.search(
        r'<script type="application/json" id="chart-data">(.*?)</script>', html.read_text(), re.S
    )
    assert found is not None, html
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def made_page_data(a: Sequence[Point], b: Sequence[Point]) -> dict[str, Any]:
    """The page data of a 1k/1k page of two sides with these points."""
    inputs = [SideInput(label, {}, "", "mi355x", constants(), p) for label, p in (("A", a), ("B", b))]
    sequence, shown = sequence_and_points(1024, 1024, "1k/1k", inputs)
    comparison = ComparisonResult(
        slug="a-vs-b",
        kind="precision",
        title="A vs B",
        model="dsr1",
        model_name="DeepSeek-R1",
        hardware=["mi355x"],
        default_sequence="1k/1k",
        cost_tier="hyperscaler",
        sides=[SideIdentity(label=label, filters={}) for label in ("A", "B")],
        sequences=[sequence],
        constants=[constants(), constants()],
        data_sources=[],
        notices=[],
    )
    return page_data(comparison, [shown])


def run_views(cases: list[dict[str, Any]]) -> list[Any]:
    """Each case's views as the page engine works them out (tests/js/view_check.cjs)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "views.json"
        path.write_text(json.dumps(cases), encoding="utf-8")
        done = subprocess.run([node, str(CHECK), str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    answers: list[Any] = json.loads(done.stdout)
    return answers


# -- the page data ---------------------------------------------------------------------------------


def test_the_fields_offered_are_those_a_sides_points_differ_in() -> None:
    a = [point(20, 900, framework="sglang"), point(40, 500, framework="vllm")]
    b = [point(25, 800, tp=4), point(45, 400, tp=8), point(30, 600, tp=8, precision="fp8")]
    view = made_page_data(a, b)["view"]
    fields = {f["key"]: f for f in view["fields"]}
    assert list(fields) == ["framework", "tp", "gpus"]  # tp 4 and 8 are 4 and 8 GPUs too
    assert fields["framework"]["names"] == ["sglang", "vllm"]
    assert fields["tp"] == {"key": "tp", "label": "TP", "names": ["4", "8"], "tokens": ["4", "8"]}
    assert view["bases"] == []  # no point gives p90 or p99 TPOT


def test_a_page_with_nothing_to_narrow_has_no_view() -> None:
    a = [point(20, 900, 64), point(40, 500, 8)]
    b = [point(25, 800, 64), point(45, 400, 8)]
    assert "view" not in made_page_data(a, b)


def test_flags_and_missing_values_read_as_a_stub_and_a_reader_would() -> None:
    a = [point(20, 900) | {"disagg": True, "tp": None}, point(40, 500) | {"disagg": False}]
    b = [point(25, 800), point(45, 400)]
    fields = {f["key"]: f for f in made_page_data(a, b)["view"]["fields"]}
    assert fields["disagg"]["names"] == ["aggregated", "disaggregated"]
    assert fields["disagg"]["tokens"] == ["false", "true"]
    assert fields["tp"]["names"] == ["8", "not recorded"]
    assert fields["tp"]["tokens"] == ["8", "-"]


def test_each_sides_points_are_its_rows_column_by_column() -> None:
    a = [
        point(40, 500, 8, framework="vllm", gpu_count=8),
        point(20, 900, 64, framework="sglang", gpu_count=16),
        point(30, 700, 32, framework="sglang", gpu_count=16),
    ]
    b = [point(25, 800, 16), point(45, 400, 4)]
    page = made_page_data(a, b)
    view = page["view"]
    side = view["points"]["1k/1k"][0]
    framework = next(f for f in view["fields"] if f["key"] == "framework")
    fields = {"framework": framework["names"]}
    rows = sorted(
        (p["interactivity"], p["throughput"], p["concurrency"], p["gpus"], p["fields"]["framework"])
        for p in decoded(side, fields)
    )
    assert rows == [
        (20.0, 900.0, 64, 16, "sglang"),
        (30.0, 700.0, 32, 16, "sglang"),
        (40.0, 500.0, 8, 8, "vllm"),
    ]
    # a deployment a configuration, with its label in the view's list
    deployment = {p["interactivity"]: p["deployment"] for p in decoded(side, fields)}
    assert deployment[20.0] == deployment[30.0] != deployment[40.0]
    assert view["configurations"][deployment[20.0]].startswith("sglang TP8")
    assert view["configurations"][deployment[40.0]].startswith("vllm TP8")
    # the other side's configurations are numbered apart, though a table numbered them alike
    assert not set(side["deployment"]) & set(view["points"]["1k/1k"][1]["deployment"])
    assert len(decoded(page["view"]["points"]["1k/1k"][1], {})) == 2


def test_a_percentile_is_offered_where_each_side_has_a_point_measured_at_it() -> None:
    a = [point(20, 900, 64) | {"tpot_p90": 0.06, "tpot_p99": 0.09, "framework": "vllm"}, point(40, 500, 8)]
    b = [point(25, 800, 16) | {"tpot_p90": 0.05}, point(45, 400, 4)]
    view = made_page_data(a, b)["view"]
    # p99: only side A has it, so it could compare nothing
    assert [basis["key"] for basis in view["bases"]] == ["median", "p90"]
    assert [basis["label"] for basis in view["bases"]] == ["median TPOT", "p90 TPOT"]
    side = view["points"]["1k/1k"][0]
    assert {p["interactivity"]: p["tpot_p90"] for p in decoded(side, {})} == {20.0: 0.06, 40.0: None}
    assert "tpot_p99" not in side


# -- the page engine on the default site ------------------------------------------------------------


def _pages_with_views(site: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for html in sorted(site.glob("*/index.html")):
        if (html.parent / "comparison.json").is_file():
            data = built_page_data(html)
            if "view" in data:
                found[html.parent.name] = data
    return found


def test_every_pages_points_give_back_the_builds_knots(default_site: Path) -> None:
    pages = _pages_with_views(default_site)
    assert PAGE in pages and len(pages) > 50
    answers = run_views([{"page": page, "views": [ALL_POINTS]} for page in pages.values()])
    for (slug, page), (answer,) in zip(pages.items(), answers, strict=True):
        for seq, built in page["sequences"].items():
            view = answer[seq]
            assert view["sides"] == built["sides"], (slug, seq)
            assert view["band"] == built["band"], (slug, seq)
            if seq not in page["view"]["pinned"]:
                assert view["targets"] == built["targets"], (slug, seq)
            assert view["lacking"] == [0, 0]


def _stub(slug: str, extra: str) -> str:
    text = (ROOT / "content" / f"{PAGE}.md").read_text()
    return text.replace("kind: precision\n", f"kind: precision\nslug: {slug}\n{extra}\n", 1)


# a page filter, and the line a stub gives for it
FILTERS = {
    "no-mtp": ({"spec_method": "none"}, "spec_method: none"),
    "aggregated": ({"disagg": "false"}, "disagg: false"),
    "sglang-mtp": ({"framework": "sglang", "spec_method": "mtp"}, "framework: sglang\nspec_method: mtp"),
}


@pytest.fixture(scope="module")
def filtered_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page built from stubs with each of FILTERS (and the data of the default site), built
    once for the run (`shared_build`)."""

    def build(project: Path) -> Path:
        shutil.copytree(ROOT / "data", project / "data")
        (project / "content").mkdir()
        (project / "content" / "site.yaml").write_text("auto_pages: false\n")
        for name, (_, line) in FILTERS.items():
            (project / "content" / f"{name}.md").write_text(_stub(name, line))
        assert main(["build", "--root", str(project), "-q", "--no-cache"]) == 0
        return project / "site"

    return shared_build(tmp_path_factory, "filtered", build)


def test_a_filtered_view_is_the_page_a_stub_with_that_filter_builds(
    default_site: Path, filtered_site: Path
) -> None:
    page = built_page_data(default_site / PAGE / "index.html")
    fields = {f["key"]: f for f in page["view"]["fields"]}
    views = [
        {
            "filters": {key: fields[key]["tokens"].index(token) for key, token in chosen.items()},
            "basis": "median",
        }
        for chosen, _ in FILTERS.values()
    ]
    (answers,) = run_views([{"page": page, "views": views}])
    for name, answer in zip(FILTERS, answers, strict=True):
        built = built_page_data(filtered_site / name / "index.html")
        answer.pop("latency", None)
        for seq, view in answer.items():
            expected = built["sequences"].get(seq)
            if expected is None:  # the filtered stub's sides have no point there
                assert not view["band"], (name, seq)
                continue
            assert view["sides"] == expected["sides"], (name, seq)
            assert view["band"] == expected["band"], (name, seq)
            assert view["targets"] == expected["targets"], (name, seq)
        assert sum(sum(view["kept"]) for view in answer.values()) < sum(
            len(decoded(side, {})) for sides in page["view"]["points"].values() for side in sides
        )


# -- the latency view follows the filters ------------------------------------------------------------


def plotly_escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def latency_series(figure: dict[str, Any]) -> dict[tuple[int, str], dict[str, list[Any]]]:
    """A built latency chart's traces by side and statistic: x, y, text and customdata."""
    return {
        (t["meta"]["side"], t["meta"]["statistic"]): {k: t[k] for k in ("x", "y", "text", "customdata")}
        for t in figure["data"]
    }


def engine_series(answer: list[dict[str, Any]]) -> dict[tuple[int, str], dict[str, list[Any]]]:
    """The page engine's series of one chart, as the page script draws them (text escaped, a
    series without a point left out)."""
    return {
        (side, stat): line | {"text": [plotly_escaped(t) for t in line["text"]]}
        for side, lines in enumerate(answer)
        for stat, line in lines.items()
        if line["x"]
    }


def test_every_pages_latency_charts_come_back_from_its_points(default_site: Path) -> None:
    """With no filter, the page engine's latency series and table rows (engine.js latencySeries,
    latencyRows over the view data's points) are the build's latency charts and comparison.json's
    latency tables, on every page with a view and a latency view."""
    cases, figures = [], []
    for slug, page in _pages_with_views(default_site).items():
        charts = built_chart_data(default_site / slug / "index.html")["latency"]
        if charts:
            cases.append({"page": page, "views": [ALL_POINTS], "latency": [c["view"] for c in charts]})
            figures.append((slug, charts))
    assert len(cases) > 50
    for (slug, charts), (answer,) in zip(figures, run_views(cases), strict=True):
        tables = {
            (w["sequence"], t["metric"]): t
            for w in json.loads((default_site / slug / "comparison.json").read_text())["latency"]["workloads"]
            for t in w["tables"]
        }
        for n, (chart, found) in enumerate(zip(charts, answer["latency"], strict=True)):
            assert engine_series(found["series"]) == latency_series(chart), (slug, n)
            table = tables[chart["view"]["sequence"], chart["view"]["metric"]]
            assert found["rows"] == [
                {
                    "concurrency": row["concurrency"],
                    "sides": [
                        None if cell is None else [cell["values"][stat] for stat in ("median", "p90", "p99")]
                        for cell in row["sides"]
                    ],
                }
                for row in table["rows"]
            ], (slug, n)


def test_a_filtered_latency_chart_is_the_one_a_stub_with_that_filter_builds(
    default_site: Path, filtered_site: Path
) -> None:
    page = built_page_data(default_site / PAGE / "index.html")
    fields = {f["key"]: f for f in page["view"]["fields"]}
    charts = built_chart_data(default_site / PAGE / "index.html")["latency"]
    views = [
        {
            "filters": {key: fields[key]["tokens"].index(token) for key, token in chosen.items()},
            "basis": "median",
        }
        for chosen, _ in FILTERS.values()
    ]
    (answers,) = run_views([{"page": page, "views": views, "latency": [c["view"] for c in charts]}])
    compared = 0
    for name, answer in zip(FILTERS, answers, strict=True):
        built = {
            (c["view"]["sequence"], c["view"]["metric"]): latency_series(c)
            for c in built_chart_data(filtered_site / name / "index.html")["latency"]
        }
        for chart, found in zip(charts, answer["latency"], strict=True):
            expected = built.get((chart["view"]["sequence"], chart["view"]["metric"]), {})
            assert engine_series(found["series"]) == expected, (name, chart["view"])
            compared += len(expected)
    assert compared > 10
