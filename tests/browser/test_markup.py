"""Markup in every text field of the data and stubs stays text in every chart the browser draws:
no link, no bold, no extra line in any legend, tick label, hover or title."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import _serve
from tests.browser.test_pages import Watch, open_page
from tests.markup_project import STUBS

# Every chart's SVG, each of its traces hovered in turn: what Plotly drew from markup (an <a>,
# anything with an href, a bold or italic tspan) and the text it shows.
DRAWN = """(id) => {
    const gd = document.getElementById(id);
    const found = {links: 0, styled: 0, texts: []};
    const look = () => {
        gd.querySelectorAll('.main-svg').forEach(svg => {
            found.links += svg.querySelectorAll('a, [href], [*|href]').length;
            found.styled += Array.from(svg.querySelectorAll('tspan')).filter(t =>
                /font-weight|font-style/.test(t.getAttribute('style') || '')).length;
            found.texts.push(svg.textContent);
        });
    };
    look();
    gd.data.forEach((trace, curve) => {
        if (!(trace.x || []).length) { return; }
        Plotly.Fx.hover(id, [{curveNumber: curve, pointNumber: 0}]);
        look();
    });
    return found;
}"""


@pytest.fixture(scope="module")
def markup_url(markup_site: Path) -> Iterator[str]:
    yield from _serve(markup_site)


def test_no_chart_shows_markup_from_data(page: Page, markup_url: str) -> None:
    watch = Watch(page, markup_url)
    charts = 0
    for stub in STUBS:
        open_page(page, f"{markup_url}{Path(stub).stem}/index.html#latency-chart")  # the latency view opened
        for chart in ("chart", "accuracy-chart", "sweep-chart", "latency-chart"):
            if not page.locator(f"#{chart} .main-svg").count():
                continue
            charts += 1
            drawn = page.evaluate(DRAWN, chart)
            assert drawn["links"] == 0 and drawn["styled"] == 0, chart
            text = "".join(drawn["texts"])
            assert "<b>B</b>" in text, chart  # the data's markup, shown as written
            assert '<a href="https://x">' in text, chart
    assert charts >= 3  # the interactivity chart twice, the accuracy and the sweep chart
    assert watch.problems == []
