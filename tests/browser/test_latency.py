"""The latency view's chart in Chromium: folded until a reader (or the URL) opens it, then drawn at
the width it has; drawn as built, one workload and metric at a time, the switch redrawing it with
that table's values and the build's caption; nothing drawn for a statistic a side lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.test_pages import Watch, open_page

SLUG = "mi355x-fp4-vs-fp8-dsr1"
# the latency chart's drawn width and its container's, or null when nothing is drawn
CHART_WIDTH = """(() => {
    const el = document.getElementById('latency-chart'), svg = el.querySelector('.main-svg');
    return svg ? [Math.round(svg.getBoundingClientRect().width), el.clientWidth] : null;
})()"""


def open_latency(page: Page) -> None:
    """Open the latency view from the keyboard (its summary focused, Enter) and wait for its chart."""
    assert page.evaluate("document.getElementById('latency-fold').open") is False
    page.focus("#latency-fold > summary")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.getElementById('latency-chart').getAttribute('data-drawn') === 'latency'"
    )


def _expected(table: dict[str, Any]) -> list[list[float]]:
    """Per side and statistic measured there, the values at each concurrency, as the table has them."""
    lines = []
    for side in (0, 1):
        for stat in table["statistics"]:
            ys = [
                row["sides"][side]["values"][stat]
                for row in table["rows"]
                if row["sides"][side] is not None and row["sides"][side]["values"][stat] is not None
            ]
            if ys:
                lines.append(ys)
    return lines


def test_latency_switch_draws_each_table(page: Page, root_url: str, built_site: Path) -> None:
    data = json.loads((built_site / SLUG / "comparison.json").read_text())
    tables = [(w["sequence"], t) for w in data["latency"]["workloads"] for t in w["tables"]]
    assert len(tables) > 1
    watch = Watch(page, root_url)
    open_page(page, f"{root_url}{SLUG}/index.html")
    open_latency(page)
    chart = page.locator("#latency-chart")
    options = page.locator("#latency-view option").all_inner_texts()
    assert options == [f"{sequence} · {t['label']}" for sequence, t in tables]
    for index in (1, len(tables) - 1, 0):
        sequence, table = tables[index]
        page.select_option("#latency-view", str(index))
        page.wait_for_function(
            f"document.getElementById('latency-chart').getAttribute('data-view') === '{index}'"
        )
        assert chart.get_attribute("data-drawn") == "latency"
        drawn = chart.evaluate("el => el.data.map(t => t.y)")
        assert len(drawn) == len(_expected(table))
        for ys, expected in zip(drawn, _expected(table), strict=True):
            assert [round(y, 3) for y in ys] == [round(float(f"{v:.6g}"), 3) for v in expected]
        assert page.locator("#latency-caption").inner_text().startswith(f"{sequence}: {table['label']}")
        assert chart.evaluate("el => el.layout.yaxis.type") == "log"
    colours = chart.evaluate("el => el.data.map(t => [t.meta.side, t.line.color])")
    by_side = {side: {c for s, c in colours if s == side} for side in (0, 1)}
    assert all(len(found) == 1 for found in by_side.values()) and by_side[0] != by_side[1]
    assert watch.problems == []


def test_the_view_is_folded_and_drawn_at_its_width_once_opened(page: Page, root_url: str) -> None:
    """Closed, nothing is drawn (Plotly would size the chart from a container not laid out);
    opened from the keyboard, the chart fills its container; closed, the window narrowed and
    opened again (Space), it fills the narrower container."""
    watch = Watch(page, root_url)
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(page, f"{root_url}{SLUG}/index.html")
    assert page.locator("#latency-chart").is_hidden()
    assert page.evaluate(CHART_WIDTH) is None
    open_latency(page)
    drawn, box = page.evaluate(CHART_WIDTH)
    assert box > 900 and abs(drawn - box) <= 1
    page.keyboard.press("Enter")  # the summary keeps the focus: closes
    assert page.evaluate("document.getElementById('latency-fold').open") is False
    page.set_viewport_size({"width": 700, "height": 900})
    page.keyboard.press(" ")
    page.wait_for_function(
        f"(() => {{ const w = {CHART_WIDTH}; return w !== null && w[1] < 700 && Math.abs(w[0] - w[1]) <= 1; }})()"
    )
    assert watch.problems == []


def test_the_url_opens_the_view_it_asks_for(page: Page, root_url: str) -> None:
    """A shared link into the view (a fragment naming something in it) or reading interactivity
    from a tail TPOT (basis=p90 or p99) opens it, drawn; a plain link leaves it closed."""
    url = f"{root_url}{SLUG}/index.html"
    for query in ("#latency-chart", "#latency-view-heading", "?basis=p99", "?seq=1k/1k&basis=p90"):
        open_page(page, url + query)
        assert page.evaluate("document.getElementById('latency-fold').open") is True, query
        page.wait_for_function(
            "document.getElementById('latency-chart').getAttribute('data-drawn') === 'latency'"
        )
        drawn, box = page.evaluate(CHART_WIDTH)
        assert abs(drawn - box) <= 1, query
    for query in ("", "?seq=1k/1k", "#provenance-heading"):
        open_page(page, url + query)
        assert page.evaluate("document.getElementById('latency-fold').open") is False, query
        assert page.evaluate(CHART_WIDTH) is None, query
    # a link followed on the page
    page.evaluate("location.hash = 'latency-caption'")
    page.wait_for_function("document.getElementById('latency-fold').open")
