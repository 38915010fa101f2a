"""A reader's own view of a comparison page in Chromium: a filter narrows what each side pools and
the page shows the numbers of a page built from a stub with that filter; interactivity from p90
TPOT gives the values an independent implementation works out from the data file; the view
lives in the URL; axe-core finds nothing with the filters shown; the controls work by keyboard."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from site_builder.cli import main
from tests import reference_impl as ref
from tests.browser.conftest import ROOT
from tests.browser.test_latency import open_latency
from tests.browser.test_layout import _axe
from tests.browser.test_pages import open_page
from tests.conftest import shared_build

SLUG = "mi355x-fp4-vs-fp8-dsr1"  # FP4 vs FP8 on MI355X (DeepSeek-R1): each side pools MTP and none
DATA = ROOT / "data" / "results" / "inferencex-dsr1.json"


def _panel(page: Page) -> str:
    """The sequence whose panel shows."""
    sequence: str = page.evaluate(
        "Array.from(document.querySelectorAll('.sequence-panel')).find(p => !p.hidden).dataset.sequence"
    )
    return sequence


def _shown(page: Page, metric: str) -> list[list[str]]:
    """The shown panel's row of a metric: per visible target column, each side's value text."""
    cells: list[list[str]] = page.evaluate(
        """metric => Array.from(Array.from(document.querySelectorAll('.sequence-panel')).find(p => !p.hidden)
            .querySelectorAll('tr[data-metric="' + metric + '"] td')).filter(td => !td.hidden)
            .map(td => Array.from(td.querySelectorAll('.value')).map(v => v.textContent.trim()))""",
        metric,
    )
    return cells


def _targets(page: Page) -> list[float]:
    values: list[str] = page.evaluate(
        """Array.from(Array.from(document.querySelectorAll('.sequence-panel')).find(p => !p.hidden)
            .querySelectorAll('th.target')).filter(th => !th.hidden)
            .map(th => th.querySelector('.target-input').value)"""
    )
    return [float(v) for v in values]


def _heading(page: Page) -> str:
    text: str = page.evaluate(
        "Array.from(document.querySelectorAll('.sequence-panel')).find(p => !p.hidden).querySelector('h3').textContent"
    )
    return text


def _throughput(value: float) -> str:
    return f"{value:,.1f}"


@pytest.fixture(scope="module")
def no_mtp_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the page built from its stub with `spec_method: none` added, over the
    repository's data, built once for the run (`shared_build`)."""

    def build(project: Path) -> Path:
        shutil.copytree(ROOT / "data", project / "data")
        (project / "content").mkdir()
        (project / "content" / "site.yaml").write_text("auto_pages: false\n")
        stub = (ROOT / "content" / f"{SLUG}.md").read_text()
        (project / "content" / f"{SLUG}.md").write_text(
            stub.replace("sequence:", "spec_method: none\nsequence:", 1)
        )
        assert main(["build", "--root", str(project), "-q", "--no-cache"]) == 0
        return project / "site"

    return shared_build(tmp_path_factory, "no-mtp", build)


@pytest.fixture(scope="module")
def no_mtp_page(no_mtp_site: Path) -> dict[str, Any]:
    """comparison.json of the page built from its stub with `spec_method: none` added."""
    document: dict[str, Any] = json.loads((no_mtp_site / SLUG / "comparison.json").read_text())
    return document


def test_no_speculative_decoding_shows_the_page_a_stub_with_that_filter_builds(
    page: Page, root_url: str, no_mtp_page: dict[str, Any]
) -> None:
    open_page(page, f"{root_url}{SLUG}/index.html")
    built = _shown(page, "throughput")
    page.select_option("#filter-spec_method", label="none")
    page.wait_for_function("location.search.indexOf('f=') >= 0")
    sequence = next(s for s in no_mtp_page["sequences"] if s["sequence"] == _panel(page))
    assert _targets(page) == [r["interactivity"] for r in sequence["results"]]
    band = sequence["band"]
    assert (
        _heading(page) == f"{sequence['sequence']}: band {band['display_lo']}–{band['display_hi']} tok/s/user"
    )
    expected = [[_throughput(side["throughput_per_gpu"]) for side in r["sides"]] for r in sequence["results"]]
    shown = _shown(page, "throughput")
    assert [[text.removesuffix(" (winner not determined)") for text in cell] for cell in shown] == expected
    assert shown != built
    cost = [[f"${side['cost_per_million_tokens']:,.3f}" for side in r["sides"]] for r in sequence["results"]]
    assert [
        [t.removesuffix(" (winner not determined)") for t in cell] for cell in _shown(page, "cost")
    ] == cost
    # every other sequence too
    for other in no_mtp_page["sequences"]:
        page.select_option("#sequence-select", other["sequence"])
        assert _targets(page) == [r["interactivity"] for r in other["results"]]
        values = [[_throughput(side["throughput_per_gpu"]) for side in r["sides"]] for r in other["results"]]
        shown = [
            [t.removesuffix(" (winner not determined)") for t in cell] for cell in _shown(page, "throughput")
        ]
        assert shown == values, other["sequence"]
    status = page.text_content("#view-status") or ""
    assert "points kept: FP4" in status


def _p90_rows(precision: str) -> tuple[list[dict[str, Any]], int]:
    """The page's 1k/1k points of one side from the data file, as the independent implementation
    reads a row (interactivity = 1 / TPOT in seconds), at p90 TPOT; and how many lack it."""
    points = json.loads(DATA.read_text())["points"]
    side = [
        p
        for p in points
        if (p["model"], p["hardware"], p["precision"], p["isl"], p["osl"])
        == ("dsr1", "mi355x", precision, 1024, 1024)
    ]
    rows = [
        {"metrics": {"median_tpot": p["p90_tpot_ms"] / 1000.0, "tput_per_gpu": p["throughput_per_gpu"]}}
        for p in side
        if p.get("p90_tpot_ms")
    ]
    return rows, len(side) - len(rows)


def test_interactivity_from_p90_tpot_gives_independently_computed_values(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{SLUG}/index.html?seq=1k/1k")
    page.select_option("#basis-select", "p90")
    page.wait_for_function("location.search.indexOf('basis=p90') >= 0")
    (fp4, lacking4), (fp8, lacking8) = _p90_rows("fp4"), _p90_rows("fp8")
    knots = [ref.frontier(fp4), ref.frontier(fp8)]
    band = ref.band(*knots)
    assert band is not None
    targets = ref.targets(band)
    assert _targets(page) == targets
    shown = _shown(page, "throughput")
    for cell, target in zip(shown, targets, strict=True):
        for text, side in zip(cell, knots, strict=True):
            value = ref.curve_value(side, ref.y_of, target)
            assert value is not None
            assert abs(float(text.split(" ")[0].replace(",", "")) - value) <= 0.05 + 1e-9 * value
    status = page.text_content("#view-status") or ""
    assert f"{lacking4 + lacking8} points lack p90 TPOT" in status
    assert lacking4 + lacking8 > 0
    assert page.evaluate("document.getElementById('chart').layout.xaxis.title.text") == (
        "Interactivity from p90 TPOT (tok/s/user)"
    )


def test_the_view_lives_in_the_url_and_a_reset_brings_every_point_back(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{SLUG}/index.html")
    built = _shown(page, "throughput")
    built_heading = _heading(page)
    page.select_option("#filter-disagg", label="aggregated")
    page.select_option("#basis-select", "p99")
    page.wait_for_function("location.search.indexOf('basis=p99') >= 0")
    url = page.url
    assert "f=disagg%3Afalse" in url
    viewed = _shown(page, "throughput")
    assert viewed != built
    # the same address opens the same view
    other = page.context.new_page()
    open_page(other, url)
    assert other.input_value("#filter-disagg") == page.input_value("#filter-disagg")
    assert other.input_value("#basis-select") == "p99"
    assert _shown(other, "throughput") == viewed
    other.close()
    # a written address too: a stub's filter key and value
    other = page.context.new_page()
    open_page(other, f"{root_url}{SLUG}/index.html?f=disagg:false&basis=p99")
    assert _shown(other, "throughput") == viewed
    other.close()
    # back to the page's own view, by the reset
    page.focus("#view-reset")
    page.keyboard.press("Enter")
    page.wait_for_function("location.search.indexOf('basis=') < 0")
    assert "f=" not in page.url
    assert _shown(page, "throughput") == built and _heading(page) == built_heading
    assert page.input_value("#filter-disagg") == "" and page.input_value("#basis-select") == "median"
    # and back again by the browser's history
    page.go_back()
    page.wait_for_function("location.search.indexOf('basis=p99') >= 0")
    assert _shown(page, "throughput") == viewed


def test_a_view_without_a_matched_range_says_so_in_place_of_the_table(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{SLUG}/index.html?seq=1k/1k&f=tp:4")  # no FP8 point ran TP4
    panel = page.locator('.sequence-panel[data-sequence="1k/1k"]')
    assert panel.locator(".table-wrap").is_hidden()
    assert panel.locator(".pooled").is_hidden()  # the build's words on what every point pools
    note = panel.locator(".view-no-match")
    assert note.is_visible()
    assert "No matched range at 1k/1k for the points kept" in (note.text_content() or "")
    assert "FP8 keeps no point" in (note.text_content() or "")
    assert _heading(page) == "1k/1k"
    page.click("#view-reset")
    assert panel.locator(".table-wrap").is_visible() and note.is_hidden()


def test_a_page_with_nothing_to_narrow_shows_no_filters(page: Page, root_url: str, built_site: Path) -> None:
    plain = next(
        folder.name
        for folder in sorted(built_site.iterdir())
        if (folder / "comparison.json").is_file()
        and 'id="view-filters"' not in (folder / "index.html").read_text()
    )
    open_page(page, f"{root_url}{plain}/index.html")
    assert page.locator("#view-filters").count() == 0


def test_the_filters_work_by_keyboard(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{SLUG}/index.html")
    page.focus(".sequence-panel:not([hidden]) .target-input")
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id"))
        if reached[-1] == "view-reset":
            break
    assert {"filter-framework", "filter-disagg", "filter-spec_method", "basis-select", "view-reset"} <= set(
        reached
    )
    page.focus("#filter-spec_method")
    page.keyboard.press("ArrowDown")  # all → the first value
    page.wait_for_function("location.search.indexOf('f=spec_method') >= 0")
    assert page.input_value("#filter-spec_method") == "0"


WIDTHS = {"desktop": 1400, "phone": 390}


@pytest.fixture(params=[(w, s) for w in WIDTHS for s in ("light", "dark")], ids=lambda p: f"{p[0]}-{p[1]}")
def themed(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    width, scheme = request.param
    context = browser.new_context(viewport={"width": WIDTHS[width], "height": 900}, color_scheme=scheme)
    yield context.new_page()
    context.close()


def test_axe_finds_nothing_with_the_filters_shown(themed: Page, root_url: str) -> None:
    script = _axe()
    # a filter that leaves a sequence without a matched range shows the note in its place
    open_page(themed, f"{root_url}{SLUG}/index.html?f=spec_method:none,disagg:false&basis=p90")
    assert themed.locator("#view-filters").is_visible()
    assert themed.locator("#view-status").is_visible()
    themed.add_script_tag(content=script)
    violations = themed.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
            .map(v => v.id + ' (' + v.nodes.length + '): ' + v.nodes.slice(0, 3)
                .map(n => n.target.join(' ')).join(' | '))"""
    )
    assert violations == []
    viewport = themed.viewport_size
    assert viewport is not None
    assert themed.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


# -- the latency view and the embed follow the filters ------------------------------------------------


def _latency_traces(page: Page) -> dict[tuple[int, str], dict[str, list[Any]]]:
    """The latency chart's traces as drawn, by side and statistic."""
    traces: list[dict[str, Any]] = page.evaluate(
        """Array.from(document.getElementById('latency-chart').data).map(t => ({side: t.meta.side,
            statistic: t.meta.statistic, x: Array.from(t.x), y: Array.from(t.y), text: Array.from(t.text),
            customdata: Array.from(t.customdata)}))"""
    )
    return {(t["side"], t["statistic"]): {k: t[k] for k in ("x", "y", "text", "customdata")} for t in traces}


def _built_latency(site: Path) -> dict[tuple[str, str], dict[tuple[int, str], dict[str, list[Any]]]]:
    """A built page's latency charts by workload and metric: its traces by side and statistic."""
    html = (site / SLUG / "index.html").read_text()
    start = html.index('id="chart-data">') + len('id="chart-data">')
    charts = json.loads(html[start : html.index("</script>", start)])
    return {
        (c["view"]["sequence"], c["view"]["metric"]): {
            (t["meta"]["side"], t["meta"]["statistic"]): {k: t[k] for k in ("x", "y", "text", "customdata")}
            for t in c["data"]
        }
        for c in charts["latency"]
    }


def _latency_shown(page: Page) -> tuple[str, str]:
    """The latency chart's workload and metric, as its switch names them ("1k/1k · TTFT")."""
    view: dict[str, str] = page.evaluate(
        "charts => charts.latency[Number(document.getElementById('latency-chart').dataset.view)].view",
        page.evaluate("JSON.parse(document.getElementById('chart-data').textContent)"),
    )
    return view["sequence"], view["metric"]


def test_the_latency_chart_follows_the_filters(page: Page, root_url: str, no_mtp_site: Path) -> None:
    """With a filter, each latency chart is the one the page built from a stub with that filter
    draws; without one, the page's own."""
    expected = _built_latency(no_mtp_site)
    open_page(page, f"{root_url}{SLUG}/index.html")
    open_latency(page)
    own = _latency_traces(page)
    page.select_option("#filter-spec_method", label="none")
    page.wait_for_function("location.search.indexOf('f=') >= 0")
    page.wait_for_function("document.getElementById('latency-chart').data.every(t => t.x.length > 0)")
    filtered = _latency_traces(page)
    assert filtered == expected[_latency_shown(page)]
    assert filtered != own
    # every workload and metric the switch offers
    options = page.eval_on_selector_all("#latency-view option", "os => os.map(o => o.value)")
    for value in options:
        page.select_option("#latency-view", value)
        assert _latency_traces(page) == expected.get(_latency_shown(page), {}), value
    # an address with the filter opens with it; the reset brings the page's own chart back
    open_page(page, f"{root_url}{SLUG}/index.html?f=spec_method:none")
    open_latency(page)
    assert _latency_traces(page) == expected[_latency_shown(page)]
    page.click("#view-reset")
    page.wait_for_function("location.search.indexOf('f=') < 0")
    assert _latency_traces(page) == own


def _main_chart(page: Page) -> list[dict[str, Any]]:
    """The interactivity chart's traces as drawn: role, side, x and y."""
    traces: list[dict[str, Any]] = page.evaluate(
        """Array.from(document.getElementById('chart').data).map(t => ({role: t.meta.role, side: t.meta.side,
            x: Array.from(t.x), y: Array.from(t.y)}))"""
    )
    return traces


def test_an_embed_takes_the_pages_filters_and_basis(
    page: Page, root_url: str, no_mtp_page: dict[str, Any]
) -> None:
    query = "?seq=1k/1k&f=spec_method:none"
    open_page(page, f"{root_url}embed/{SLUG}/index.html?seq=1k/1k")
    own = _main_chart(page)
    open_page(page, f"{root_url}embed/{SLUG}/index.html{query}")
    embedded = _main_chart(page)
    assert embedded != own
    sequence = next(s for s in no_mtp_page["sequences"] if s["sequence"] == "1k/1k")
    assert page.get_attribute("#chart", "data-marks") == ",".join(
        f"{r['interactivity']:g}" for r in sequence["results"]
    )
    open_page(page, f"{root_url}{SLUG}/index.html{query}")
    assert _main_chart(page) == embedded  # the page with the same filter draws the same chart
    # the basis too
    open_page(page, f"{root_url}embed/{SLUG}/index.html?seq=1k/1k&basis=p90")
    assert page.evaluate("document.getElementById('chart').layout.xaxis.title.text") == (
        "Interactivity from p90 TPOT (tok/s/user)"
    )


def _latency_tables(page: Page) -> dict[tuple[str, str, str], list[list[str]]]:
    """The latency tables' rows as shown, by workload, metric and statistics: each row's texts."""
    tables: list[dict[str, Any]] = page.evaluate(
        """Array.from(document.querySelectorAll('table.latency-table')).map(t => ({sequence: t.dataset.sequence,
            metric: t.dataset.metric, statistics: t.dataset.statistics,
            rows: Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c => c.textContent.trim()))}))"""
    )
    return {(t["sequence"], t["metric"], t["statistics"]): t["rows"] for t in tables}


def test_the_latency_tables_follow_the_filters(page: Page, root_url: str, no_mtp_site: Path) -> None:
    """With a filter, each latency table shows the rows the page built from a stub with that
    filter shows (where it shows the same statistics); the reset brings the build's back."""
    page.goto((no_mtp_site / SLUG / "index.html").as_uri())
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    expected = _latency_tables(page)
    open_page(page, f"{root_url}{SLUG}/index.html")
    own = _latency_tables(page)
    page.select_option("#filter-spec_method", label="none")
    page.wait_for_function("location.search.indexOf('f=') >= 0")
    shown = _latency_tables(page)
    compared = [key for key in shown if key in expected]
    assert len(compared) >= 3
    for key in compared:
        assert shown[key] == expected[key], key
    assert shown != own
    page.click("#view-reset")
    page.wait_for_function("location.search.indexOf('f=') < 0")
    assert _latency_tables(page) == own


def test_the_basis_switch_shows_only_where_it_can_do_something(page: Page, root_url: str) -> None:
    """Explorer: shown where the workload's points give a percentile, offering those only; a
    page: offering a percentile only where each side has a point measured at it."""
    page.goto(f"{root_url}explore/index.html?model=qwen3.5")  # no point gives p90 or p99 TPOT
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    assert page.locator("#explore-basis").is_hidden()
    assert page.locator("label[for='explore-basis']").is_hidden()
    page.goto(f"{root_url}explore/index.html?model=dsr1&seq=1k/1k&basis=p99")
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    assert page.locator("#explore-basis").is_visible()
    offered = page.eval_on_selector_all("#explore-basis option:not([disabled])", "os => os.map(o => o.value)")
    assert offered == ["median", "p90", "p99"]
    assert page.input_value("#explore-basis") == "p99"
    # B200 vs GB200 FP4: only the p99 TPOT is measured on both sides somewhere
    open_page(page, f"{root_url}b200-vs-gb200-fp4-dsr1/index.html")
    options = page.eval_on_selector_all("#basis-select option", "os => os.map(o => o.value)")
    assert options == ["median", "p99"]
