"""Accessibility and layout in real Chromium: axe-core (a real copy from the npm registry, installed
by the README's test command into tests/js) finds nothing on any kind of page (the index with its
scorecards, an embed), at desktop and
phone widths, in both themes; the provenance reads at 1,400 px; phones need no sideways scroll;
the light/dark switch remembers the reader's choice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.conftest import ROOT
from tests.browser.test_pages import KINDS, open_page, slugs
from tests.outside import in_ci

AXE = ROOT / "tests" / "js" / "node_modules" / "axe-core" / "axe.min.js"
SWEEP = "example-b200-fp4-vs-h200-fp8-sweep"
# The index, every page kind, the methodology and a guide.
PAGES = {
    "index": "index.html",
    **{kind: f"{slug}/index.html" for kind, slug in KINDS.items()},
    "sweep": f"{SWEEP}/index.html",
    "embed": f"embed/{KINDS['precision']}/index.html",
    "methodology": "methodology/index.html",
    "guide": "docs/authoring/index.html",
}
WIDTHS = {"desktop": 1400, "phone": 390}


def _axe() -> str:
    if not AXE.is_file():
        if in_ci():
            raise AssertionError(f"{AXE} is missing: the README's test command runs npm ci --prefix tests/js")
        pytest.skip("axe-core is not installed (npm ci --prefix tests/js)")
    return AXE.read_text()


def _open(page: Page, url: str) -> None:
    if (
        "/index.html" in url
        and not url.endswith(("/methodology/index.html", "/authoring/index.html"))
        and url.count("/") > 3
    ):
        open_page(page, url)
    else:
        page.goto(url)
        page.wait_for_load_state("load")


@pytest.fixture(
    scope="module", params=[(w, s) for w in WIDTHS for s in ("light", "dark")], ids=lambda p: f"{p[0]}-{p[1]}"
)
def themed(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    width, scheme = request.param
    context = browser.new_context(viewport={"width": WIDTHS[width], "height": 900}, color_scheme=scheme)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_no_violations(themed: Page, root_url: str, name: str) -> None:
    script = _axe()
    _open(themed, root_url + PAGES[name])
    themed.add_script_tag(content=script)
    violations = themed.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
            .map(v => v.id + ' (' + v.nodes.length + '): ' + v.nodes.slice(0, 3)
                .map(n => n.target.join(' ')).join(' | '))"""
    )
    assert violations == []


def test_the_switched_dark_theme_passes_axe_too(page: Page, root_url: str) -> None:
    """The header's switch, not the system setting, picks dark: the same colours apply."""
    script = _axe()
    open_page(page, f"{root_url}{KINDS['precision']}/index.html")
    page.select_option("#theme-select", "dark")
    page.add_script_tag(content=script)
    violations = page.evaluate("async () => (await axe.run(document)).violations.map(v => v.id)")
    assert violations == []
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(17, 20, 24)"


def test_provenance_rows_are_short_and_pages_fit(browser: Browser, root_url: str, built_site: Path) -> None:
    """At 1,400 px: each provenance row under 120 px, each page under 5,000 px with it collapsed."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    for slug in slugs(built_site):
        open_page(page, f"{root_url}{slug}/index.html")
        page.evaluate("document.querySelectorAll('.provenance details').forEach(d => { d.open = false; })")
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height < 5000, (slug, height)
        page.evaluate("document.querySelectorAll('.provenance details').forEach(d => { d.open = true; })")
        rows = page.evaluate(
            "Array.from(document.querySelectorAll('.provenance tbody tr')).map(r => r.getBoundingClientRect().height)"
        )
        assert rows, slug
        assert max(rows) < 120, (slug, max(rows))
    context.close()


def test_a_phone_reads_every_target_without_scrolling_sideways(
    browser: Browser, root_url: str, built_site: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    for slug in slugs(built_site):
        open_page(page, f"{root_url}{slug}/index.html")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, slug
        for table in page.query_selector_all(".matched-table"):
            if not table.is_visible():
                continue
            box = table.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, slug
            wrap = table.evaluate("t => t.parentElement.scrollWidth - t.parentElement.clientWidth")
            assert wrap <= 0, slug
            # every target column's header and values are on screen
            for cell in table.query_selector_all("td, thead th.target"):
                cell_box = cell.bounding_box()
                assert cell_box is not None and cell_box["x"] + cell_box["width"] <= 390 + 0.5, slug
    context.close()


def test_the_theme_switch_remembers_the_choice(browser: Browser, root_url: str) -> None:
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    url = f"{root_url}{KINDS['precision']}/index.html"
    open_page(page, url)
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    page.select_option("#theme-select", "dark")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(17, 20, 24)"
    page.wait_for_function("document.getElementById('chart').layout.font.color === 'rgb(230, 232, 235)'")
    # Another page of the site, opened afresh, keeps the choice from its first paint.
    page.goto(f"{root_url}index.html")
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
    assert page.evaluate("document.getElementById('theme-select').value") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(17, 20, 24)"
    # "System" forgets it: the light system setting applies again.
    page.select_option("#theme-select", "system")
    page.reload()
    assert page.evaluate("document.documentElement.hasAttribute('data-theme')") is False
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    context.close()
