"""Readers' controls in real Chromium: numbers equal the Python engine's, switches, URL state,
keyboard, offline use, phone width, light and dark themes, screenshots."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Request

from site_builder.catalog import AppliedConstants
from tests.browser.conftest import ARTIFACTS
from tests.factories import Point, SideInput, compare_sequence, point
from tests.test_site import ATTRIBUTES
from tests.test_site import _expected as expected_text  # the table's text of a value

KINDS = {
    "precision": "mi355x-fp4-vs-fp8-dsr1",
    "spec-decoding": "b200-fp4-mtp-vs-off-dsr1",
    "hardware": "b200-vs-h200-fp8-dsr1",
    "published": "mi355x-fp4-vs-int4-kimi",
}
FORMATS = {
    "throughput": ("throughput_per_gpu", 1, ""),
    "cost": ("cost_per_million_tokens", 3, "$"),
    "per_mw": ("tokens_per_sec_per_mw", 0, ""),
    "concurrency": ("concurrency", 0, "~"),
}


def slugs(site: Path) -> list[str]:
    """The pages the every-page checks open: every page but the generated GPU-vs-GPU pairs, of
    which one a model stands for the rest (the site has one a pair of GPUs at each shared precision
    and method, 76 on the default site, all one template and one rule; opening each would take
    most of the suite's time)."""
    chosen: list[str] = []
    pairs_seen: set[str] = set()
    stubs = {p.stem for p in (Path(__file__).resolve().parents[2] / "content").glob("*.md")}
    for folder in sorted(p for p in site.iterdir() if (p / "comparison.json").is_file()):
        document = json.loads((folder / "comparison.json").read_text(encoding="utf-8"))
        pair = document["kind"] == "hardware" and folder.name not in stubs
        if pair and document["model"] in pairs_seen:
            continue
        pairs_seen.update([document["model"]] if pair else [])
        chosen.append(folder.name)
    return chosen


class Watch:
    """Every console error, page error, failed request and request that leaves the site."""

    def __init__(self, page: Page, base: str) -> None:
        self.problems: list[str] = []
        self.base = base
        page.on(
            "console",
            lambda m: self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", self._failed)
        page.on("request", self._request)
        page.on(
            "response",
            lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None,
        )

    def _failed(self, request: Request) -> None:
        # Cancelled by the next navigation (a late favicon, say): not a failure. A missing file
        # still shows as an HTTP 404 response above.
        if request.failure != "net::ERR_ABORTED":
            self.problems.append(f"failed: {request.url} {request.failure}")

    def _request(self, request: Request) -> None:
        url = request.url
        if url.startswith("data:") or url.startswith("blob:"):
            return
        if not url.startswith(self.base):
            self.problems.append(f"left the site: {url}")


def open_page(page: Page, url: str) -> None:
    """Open a page and wait for its script: the table wired, then (the chart library loads after
    the page) every chart drawn."""
    page.goto(url)
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    page.wait_for_selector("html[data-charts=drawn]", state="attached", timeout=30000)


def _points(side: dict[str, Any]) -> list[Point]:
    """The page's frontier knots as points; knots the page joins (one deployment) share a
    configuration, so the engine's concurrency rule sees what the page saw."""
    deployment = 0
    points = []
    for i, k in enumerate(side["frontier"]):
        if i and not side["concurrency_joins"][i - 1]:
            deployment += 1
        points.append(
            point(
                k["interactivity"],
                k["throughput_per_gpu"],
                k["concurrency"],
                model="m",
                hardware=side["hardware"],
                framework=f"d{deployment}",
                precision="p",
                gpu_count=k["gpu_count"],
                record=str(i),
            )
        )
    return points


def python_engine(sequence: dict[str, Any], targets: list[float]) -> list[list[dict[str, Any]]]:
    """The Python engine's metrics at these targets, from the page's own comparison.json knots."""
    sides = [
        SideInput(s["label"], {}, "", s["hardware"], AppliedConstants(**s["constants"]), _points(s))
        for s in sequence["sides"]
    ]
    result = compare_sequence(sequence["isl"], sequence["osl"], sequence["sequence"], sides, targets)
    knots = [[k.model_dump() for k in s.frontier] for s in result.sides]
    return [
        [
            {
                **m.model_dump(),
                "brackets": [knots[i][k] for k in m.brackets],
                "target_claims": r.model_dump()["claims"],
            }
            for i, m in enumerate(r.sides)
        ]
        for r in result.results
    ]


def shown(page: Page) -> dict[str, list[list[str]]]:
    table: dict[str, list[list[str]]] = page.evaluate("""() => {
        const panel = document.querySelector('.sequence-panel:not([hidden])');
        const out = {};
        panel.querySelectorAll('tbody tr[data-metric]').forEach(row => {
            out[row.dataset.metric] = Array.from(row.querySelectorAll('td')).map(td =>
                Array.from(td.querySelectorAll('.value')).map(v => v.textContent));
        });
        return out;
    }""")
    return table


def set_target(page: Page, column: int, value: float) -> None:
    field = page.locator(".sequence-panel:not([hidden]) input.target-input").nth(column)
    field.fill(repr(value))
    field.press("Enter")


@pytest.mark.parametrize("kind", list(KINDS))
def test_random_targets_equal_the_python_engine(
    page: Page, root_url: str, built_site: Path, kind: str
) -> None:
    slug = KINDS[kind]
    data = json.loads((built_site / slug / "comparison.json").read_text())
    rng = random.Random(slug)
    checked = 0
    for sequence in data["sequences"]:
        if not sequence["band"]["overlap"]:
            continue
        open_page(page, f"{root_url}{slug}/index.html?seq={sequence['sequence']}")
        lo, hi = sequence["band"]["lo"], sequence["band"]["hi"]
        ranges = [s["interactivity_range"] for s in sequence["sides"]]
        outside = [min(r[0] for r in ranges) - 1.5, max(r[1] for r in ranges) + 2.25]
        targets = [round(rng.uniform(lo, hi), rng.choice([0, 1, 2, 3])) for _ in range(12)] + outside
        for start in range(0, len(targets), 3):
            chunk = (targets[start : start + 3] + sequence["targets"])[:3]
            for column, value in enumerate(chunk):
                set_target(page, column, value)
            expected = python_engine(sequence, chunk)
            table = shown(page)
            for key in FORMATS:
                assert table[key] == [
                    [
                        expected_text(m, key, [], m["target_claims"].get(ATTRIBUTES[key], {}), i)
                        for i, m in enumerate(column)
                    ]
                    for column in expected
                ], (
                    slug,
                    sequence["sequence"],
                    chunk,
                    key,
                )
            checked += len(chunk)
    assert checked >= 14


# Per sequence of a page: its table's cells as built, and after each target was moved away and
# back by the page script (each side's span, as markup)
REDRAWN = """() => {
    const panels = Array.from(document.querySelectorAll('.sequence-panel'));
    const cells = panel => Array.from(panel.querySelectorAll('tbody tr[data-metric]'))
        .map(row => Array.from(row.querySelectorAll('td')).map(td =>
            Array.from(td.querySelectorAll('.side-value')).map(span => span.outerHTML)));
    const built = panels.map(cells);  // before the script writes any cell
    const select = document.getElementById('sequence-select');
    return panels.map((panel, n) => {
        if (select) { select.value = panel.dataset.sequence; select.dispatchEvent(new Event('change')); }
        panel.querySelectorAll('input.target-input').forEach(input => {
            const target = input.value;
            for (const value of [String(Number(target) + 0.5), target]) {
                input.value = value;
                input.dispatchEvent(new Event('change'));
            }
        });
        return {sequence: panel.dataset.sequence, built: built[n], redrawn: cells(panel)};
    });
}"""


@dataclass
class Visit:
    """What one visit of every page (tests of every page share it: a visit costs a second or more)
    saw: per page its chart's SVG and trace counts as drawn, then each sequence's table as built
    and as redrawn by the script (`REDRAWN`); every problem (`Watch`) while the pages loaded and
    drew, and apart, those while the script redrew the tables."""

    charts: dict[str, tuple[int, int]]
    tables: dict[str, list[dict[str, Any]]]
    problems: list[str]
    redrawing_problems: list[str]


@pytest.fixture(scope="module")
def every_page(browser: Browser, root_url: str, built_site: Path) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    watch = Watch(page, root_url)
    visit = Visit({}, {}, [], [])
    for slug in slugs(built_site):
        open_page(page, f"{root_url}{slug}/index.html")
        visit.charts[slug] = (
            page.locator("#chart .main-svg").count(),
            page.locator("#chart .scatterlayer .trace").count(),
        )
        visit.problems += watch.problems
        watch.problems.clear()
        visit.tables[slug] = page.evaluate(REDRAWN)
        page.goto(
            "about:blank"
        )  # what the redrawing set going ends with its page, not in the next one's load
        visit.redrawing_problems += [f"{slug}: {problem}" for problem in watch.problems]
        watch.problems.clear()
    yield visit
    context.close()


@pytest.mark.xdist_group("every-page")  # one test process makes the visit
def test_every_page_loads_cleanly_and_draws(
    page: Page, root_url: str, built_site: Path, every_page: Visit
) -> None:
    assert list(every_page.charts) == slugs(built_site)
    for slug, (svgs, traces) in every_page.charts.items():
        assert svgs >= 1, slug
        assert traces >= 4, slug  # 2 curves + 2 point sets
    watch = Watch(page, root_url)
    guides = [f"docs/{p.name}/index.html" for p in sorted((built_site / "docs").iterdir())]
    assert {"docs/data-format/index.html", "docs/comparison-json/index.html"} <= set(
        guides
    )  # readers' guides
    for other in ("index.html", "methodology/index.html", "404.html", *guides):
        page.goto(root_url + other)
        page.wait_for_load_state("load")
    assert every_page.problems == []  # the comparison pages, loaded and drawn
    assert watch.problems == []


@pytest.mark.xdist_group("every-page")  # one test process makes the visit
def test_the_scripts_cells_are_the_builds(built_site: Path, every_page: Visit) -> None:
    """Every cell the script writes (text, note, winner mark, classes) is the build's markup: each
    target moved away and back, on every page, in every sequence, the table reads as built."""
    checked = 0
    assert list(every_page.tables) == slugs(built_site)
    for slug, tables in every_page.tables.items():
        for table in tables:
            assert table["redrawn"] == table["built"], (slug, table["sequence"])
            checked += bool(table["built"])
    assert checked >= 20
    # and nothing the redrawing set going failed (a column announced after its sequence left)
    assert every_page.redrawing_problems == []


def test_outside_a_frontier_says_not_measured(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    set_target(page, 0, 5.0)  # below both frontiers
    set_target(page, 2, 200.0)  # FP4 reaches 244 tok/s/user, FP8 only 137
    table = shown(page)
    assert table["throughput"][0] == ["not measured", "not measured"]
    assert table["throughput"][2][0] != "not measured" and table["throughput"][2][1] == "not measured"
    assert "▲" not in page.locator(".sequence-panel:not([hidden]) td").nth(2).inner_text()


def drawn(page: Page) -> str:
    return page.locator("#chart").get_attribute("data-drawn") or ""


def test_sequence_and_metric_switches_update_table_and_chart(
    page: Page, root_url: str, built_site: Path
) -> None:
    slug = KINDS["precision"]
    data = json.loads((built_site / slug / "comparison.json").read_text())
    open_page(page, f"{root_url}{slug}/index.html")
    assert drawn(page) == "1k/1k|throughput|57,84,110"
    page.select_option("#sequence-select", "8k/1k")
    page.wait_for_function("document.querySelector('#chart').getAttribute('data-drawn').startsWith('8k/1k')")
    eight = next(s for s in data["sequences"] if s["sequence"] == "8k/1k")
    assert page.locator(".sequence-panel[data-sequence='8k/1k']").is_visible()
    assert not page.locator(".sequence-panel[data-sequence='1k/1k']").is_visible()
    assert shown(page)["throughput"] == [
        [
            expected_text(m, "throughput", s["frontier"], r["claims"].get("throughput_per_gpu", {}), i)
            for i, (m, s) in enumerate(zip(r["sides"], eight["sides"], strict=True))
        ]
        for r in eight["results"]
    ]
    page.select_option("#metric-select", "cost")
    page.wait_for_function("document.querySelector('#chart').getAttribute('data-drawn').includes('|cost|')")
    assert "Cost" in (page.locator("#chart .ytitle").text_content() or "")
    page.select_option("#metric-select", "per_mw")
    page.wait_for_function("document.querySelector('#chart').getAttribute('data-drawn').includes('|per_mw|')")
    assert "MW" in (page.locator("#chart .ytitle").text_content() or "")


def test_url_round_trip_back_and_forward(page: Page, root_url: str) -> None:
    base = f"{root_url}{KINDS['precision']}/index.html"
    open_page(page, base + "?seq=8k/1k&metric=cost&t=50,60.5,70")
    assert drawn(page) == "8k/1k|cost|50,60.5,70"
    assert page.locator("#metric-select").input_value() == "cost"
    assert page.locator("#sequence-select").input_value() == "8k/1k"
    values = page.locator(".sequence-panel:not([hidden]) input.target-input").evaluate_all(
        "els => els.map(e => e.value)"
    )
    assert values == ["50", "60.5", "70"]
    set_target(page, 0, 55.0)  # the history entry is written after the next paint
    page.wait_for_function("/t=55(%2C|,)60.5(%2C|,)70/.test(location.search)")
    page.select_option("#metric-select", "concurrency")
    page.go_back()
    page.wait_for_function("document.querySelector('#chart').getAttribute('data-drawn').includes('|cost|')")
    assert drawn(page) == "8k/1k|cost|55,60.5,70"
    page.go_back()
    page.wait_for_function(
        "document.querySelector('#chart').getAttribute('data-drawn').endsWith('50,60.5,70')"
    )
    page.go_forward()
    page.wait_for_function(
        "document.querySelector('#chart').getAttribute('data-drawn').endsWith('55,60.5,70')"
    )
    # a shared link opens the same view in a fresh tab
    shared = page.url
    fresh = page.context.new_page()
    open_page(fresh, shared)
    assert drawn(fresh) == "8k/1k|cost|55,60.5,70"
    fresh.close()


def test_invalid_url_targets_fall_back_to_the_defaults(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{KINDS['precision']}/index.html?t=abc,-1&metric=nonsense&seq=9k/9k")
    assert drawn(page) == "1k/1k|throughput|57,84,110"


def test_keyboard_only(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    focused: list[str] = []
    for _ in range(60):
        page.keyboard.press("Tab")
        focused.append(page.evaluate("document.activeElement.id || document.activeElement.tagName"))
        if focused[-1] == "metric-select":
            break
    assert focused.index("sequence-select") < focused.index("target-0-0") < focused.index("metric-select")
    # type a target by keyboard in the first target field
    while page.evaluate("document.activeElement.id") != "target-0-0":
        page.keyboard.press("Shift+Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("65")
    page.keyboard.press("Enter")
    # the chart's diamonds move in the frame after the edit's
    page.wait_for_function(
        "document.querySelector('#chart').getAttribute('data-drawn').endsWith('|65,84,110')"
    )
    page.wait_for_function("document.getElementById('live').textContent.startsWith('At 65 tok/s/user')")
    # change the metric with the arrow keys
    while page.evaluate("document.activeElement.id") != "metric-select":
        page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("document.querySelector('#chart').getAttribute('data-drawn').includes('|cost|')")
    page.wait_for_function("document.getElementById('live').textContent.includes('Cost per million tokens')")


def test_every_control_has_a_label(page: Page, root_url: str, built_site: Path) -> None:
    for slug in KINDS.values():
        open_page(page, f"{root_url}{slug}/index.html")
        unlabelled = page.evaluate("""() => Array.from(document.querySelectorAll('input, select, button'))
            .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')).map(el => el.outerHTML)""")
        assert unlabelled == [], slug
        assert page.locator("#live[aria-live=polite]").count() == 1


def test_offline_from_file_and_under_a_sub_path(browser: Browser, built_site: Path, subpath_url: str) -> None:
    for base in (built_site.as_uri() + "/", subpath_url):
        context = browser.new_context()
        page = context.new_page()
        watch = Watch(page, base)
        for slug in (*KINDS.values(),):
            open_page(page, f"{base}{slug}/index.html")
            assert page.locator("#chart .main-svg").count() >= 1
        page.goto(base + "index.html")
        page.locator(f"a[href='{KINDS['hardware']}/index.html']").click()
        page.wait_for_selector("html[data-ready=true]")
        assert urlsplit(page.url).path.endswith(f"{KINDS['hardware']}/index.html")
        assert watch.problems == [], base
        context.close()


def _no_horizontal_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


@pytest.mark.parametrize(
    ("name", "viewport", "scheme"),
    [
        ("desktop", {"width": 1280, "height": 900}, "light"),
        ("phone", {"width": 390, "height": 844}, "light"),
        ("desktop-dark", {"width": 1280, "height": 900}, "dark"),
        ("phone-dark", {"width": 390, "height": 844}, "dark"),
    ],
)
def test_screenshots_phone_width_and_themes(
    browser: Browser, root_url: str, name: str, viewport: dict[str, int], scheme: str
) -> None:
    context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
    page = context.new_page()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pages: dict[str, str] = {**KINDS, "index": ""}
    for kind, slug in pages.items():
        url = f"{root_url}{slug}/index.html" if slug else f"{root_url}index.html"
        if slug:
            open_page(page, url)
        else:
            page.goto(url)
        assert _no_horizontal_scroll(page), (kind, name)
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == ("rgb(17, 20, 24)" if scheme == "dark" else "rgb(255, 255, 255)")
        if slug:
            font = page.evaluate("document.getElementById('chart').layout.font.color")
            assert font == ("rgb(230, 232, 235)" if scheme == "dark" else "rgb(27, 31, 36)")
        shot = ARTIFACTS / f"{kind}-{name}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
    context.close()


def test_theme_follows_a_live_system_change(browser: Browser, root_url: str) -> None:
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    assert page.evaluate("document.getElementById('chart').layout.font.color") == "rgb(27, 31, 36)"
    page.emulate_media(color_scheme="dark")
    page.wait_for_function("document.getElementById('chart').layout.font.color === 'rgb(230, 232, 235)'")
    context.close()


def test_serve_reloads_the_open_page(browser: Browser, tmp_path: Path) -> None:
    """build-site serve: an open tab shows a stub edit by itself, without the reader reloading."""
    import shutil

    from site_builder.project import Project
    from site_builder.serve import start
    from tests.browser.conftest import ROOT

    for name in ("data", "content", "templates", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    server = start(Project.under(tmp_path), port=0, log=lambda line: None)
    try:
        page = browser.new_page()
        watch = Watch(page, server.url)
        page.goto(server.url + "mi355x-fp4-vs-fp8-dsr1/")
        page.wait_for_selector("html[data-ready=true]")
        stub = tmp_path / "content" / "mi355x-fp4-vs-fp8-dsr1.md"
        stub.write_text(
            stub.read_text().replace("DeepSeek-R1-0528 on MI355X", "Reloaded by itself: DeepSeek-R1-0528")
        )
        page.wait_for_function("document.body.textContent.includes('Reloaded by itself')", timeout=15000)
        stub.write_text(stub.read_text().replace("kind: precision", "kind: precisionn"))
        page.wait_for_selector("#build-error", timeout=15000)
        assert "kind" in (page.locator("#build-error").text_content() or "")
        assert watch.problems == []
        page.close()
    finally:
        server.shutdown()


def test_accuracy_chart_draws_each_run_and_side_with_its_interval(
    page: Page, root_url: str, built_site: Path
) -> None:
    slug = KINDS["precision"]
    accuracy = json.loads((built_site / slug / "comparison.json").read_text())["accuracy"]
    open_page(page, f"{root_url}{slug}/index.html")
    page.wait_for_selector("#accuracy-chart[data-drawn=accuracy]")
    drawn = page.evaluate(
        """() => document.getElementById('accuracy-chart').data.map(t => ({
             x: t.x[0], lo: t.x[0] - t.error_x.arrayminus[0], hi: t.x[0] + t.error_x.array[0],
             role: t.meta.role, side: t.meta.side, color: t.marker.color }))"""
    )
    expected = []
    for task in accuracy["tasks"]:
        for index, side in enumerate(task["sides"]):
            expected += [("run", index, r["score"], r["ci_lo"], r["ci_hi"]) for r in side["runs"]]
            expected.append(("pooled", index, side["score"], side["ci_lo"], side["ci_hi"]))
    assert len(drawn) == len(expected)
    for trace, (role, side, score, lo, hi) in zip(drawn, expected, strict=True):
        assert (trace["role"], trace["side"]) == (role, side)
        assert trace["x"] == pytest.approx(score * 100, abs=1e-3)
        assert (trace["lo"], trace["hi"]) == pytest.approx((lo * 100, hi * 100), abs=1e-3)
    colors = {t["side"]: t["color"] for t in drawn}
    assert colors[0] != colors[1]
    open_page(page, f"{root_url}{KINDS['published']}/index.html")
    assert page.locator("#accuracy-chart").count() == 0
    assert page.locator(".accuracy-none").inner_text().startswith("No accuracy results for either side")


def test_sweep_page_draws_each_workload_with_its_sla_lines(
    page: Page, root_url: str, built_site: Path
) -> None:
    """One sweep chart, one workload at a time: the switch redraws it with that workload's lines."""
    slug = "example-b200-fp4-vs-h200-fp8-sweep"
    data = json.loads((built_site / slug / "comparison.json").read_text())
    open_page(page, f"{root_url}{slug}/index.html")
    workloads = data["sweep"]["workloads"]
    assert len(workloads) > 1
    chart = page.locator("#sweep-chart")
    options = page.locator("#sweep-workload option").all_inner_texts()
    assert options == [w["sequence"] for w in workloads]
    for index, workload in enumerate(workloads):
        page.select_option("#sweep-workload", str(index))
        page.wait_for_function(
            f"document.getElementById('sweep-chart').getAttribute('data-sweep') === '{index}'"
        )
        assert chart.get_attribute("data-drawn") == "sweep"
        measured = [
            [p["concurrency"] for p in workload["output_throughput"] if p["values"][side] is not None]
            for side in (0, 1)
        ]
        lines = [xs for xs in measured if xs]  # one line per side that was measured here
        assert chart.locator(".scatterlayer .trace").count() == len(lines)
        expected_lines = sum(1 for r in workload["sla"] if r["concurrency"] is not None)
        assert chart.locator(".shapelayer path").count() == expected_lines
        assert page.locator("#sweep-caption").inner_text().startswith(workload["sequence"] + ":")
        assert chart.evaluate("el => el.data.map(t => t.x).filter(xs => xs.length)") == lines
    assert "not measured" in page.locator("section.matched-concurrency").inner_text()
