"""Accessibility and layout in real Chromium: axe-core (a real copy from the npm registry, installed
by the README's test command into tests/js) finds nothing on any kind of page (the index with its
scorecards, an embed), at desktop and
phone widths, in both themes; the provenance reads at 1,400 px; phones need no sideways scroll;
the light/dark switch remembers the reader's choice."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


@pytest.mark.xdist_group("layout-desktop")
def test_provenance_rows_are_short_and_pages_fit(measured: Measured, built_site: Path) -> None:
    """At 1,400 px: each provenance row under 120 px, each page under 5,000 px with it collapsed
    (7,500 px for a page that adds analyses to the matched table: peak, SLA, latency with its
    p90/p99 tables, measured power beside the catalog's …), the latency view every page carries
    folded (its summary line: about 50 px; open, its chart and tables take about 720 px more)."""
    pages = measured(WIDTHS["desktop"])
    assert list(pages) == slugs(built_site)
    for slug, seen in pages.items():
        assert seen["latency"] < 150, (slug, seen["latency"])
        sections = json.loads((built_site / slug / "comparison.json").read_text(encoding="utf-8"))["sections"]
        assert seen["height"] < (5000 if sections == ["matched-interactivity"] else 7500), (
            slug,
            seen["height"],
        )
        rows = seen["provenance_rows"]
        assert rows, slug
        assert max(rows) < 120, (slug, max(rows))


@pytest.mark.xdist_group("layout-phone")
def test_a_phone_reads_every_target_without_scrolling_sideways(measured: Measured, built_site: Path) -> None:
    """At 390 px no page scrolls sideways, and every visible matched table, every target
    column's header and every value lie inside the screen with nothing to scroll in their box."""
    pages = measured(WIDTHS["phone"])
    assert list(pages) == slugs(built_site)
    for slug, seen in pages.items():
        assert seen["scroll_width"] <= 390, slug
        for table in seen["table_boxes"]:
            box = table["box"]
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, slug
            assert table["wrap"] <= 0, slug
            # every target column's header and values are on screen
            for right in table["cell_rights"]:
                assert right is not None and right <= 390 + 0.5, slug


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


# Every number in a visible table cell or caption whose glyphs sit on more than one line box
SPLIT_NUMBERS = r"""() => {
    const split = [];
    document.querySelectorAll('details').forEach(d => { d.open = true; });
    const walker = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.parentElement.closest('td, th, caption') || !node.parentElement.offsetParent) continue;
        for (const m of node.textContent.matchAll(/[−+$]?\d(?:[\d,.]*\d)?%?/g)) {
            const range = document.createRange();
            range.setStart(node, m.index);
            range.setEnd(node, m.index + m[0].length);
            const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top / 4)));
            if (tops.size > 1) split.push(m[0] + ' in ' + node.parentElement.closest('td, th, caption').textContent.trim().slice(0, 60));
        }
    }
    return split;
}"""


@pytest.fixture(scope="module", params=list(WIDTHS.values()), ids=list(WIDTHS))
def sized(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": request.param, "height": 900})
    yield context.new_page()
    context.close()


# What the every-page tests below read of one page at one width, in an order where no reading
# changes what a later one sees: the first screen and the matched tables as the page opens, then
# the provenance collapsed and opened (its own details only), last every number's lines with
# every details open
Seen = dict[str, Any]
Measured = Callable[[int], dict[str, Seen]]

FIRST_SCREEN = """() => { const e = Array.from(document.querySelectorAll('article table, article .chart'))
    .find(e => e.offsetParent);
    const row = e.tagName === 'TABLE' ? e.querySelector('tbody tr') : null;
    return {tag: e.tagName, top: e.getBoundingClientRect().top,
            bottom: (row || e).getBoundingClientRect()[row ? 'bottom' : 'top']}; }"""


def _seen(page: Page) -> Seen:
    seen: Seen = {"first": page.evaluate(FIRST_SCREEN), "tables": [], "table_boxes": []}
    seen["scroll_width"] = page.evaluate("document.documentElement.scrollWidth")
    for table in page.query_selector_all(".matched-table"):
        if table.is_visible():
            wrap = table.evaluate("t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]")
            seen["tables"].append((wrap, table.evaluate("t => t.caption.getBoundingClientRect().toJSON()")))
            seen["table_boxes"].append(
                {
                    "box": table.bounding_box(),
                    "wrap": wrap[0] - wrap[1],
                    "cell_rights": table.evaluate(
                        "t => Array.from(t.querySelectorAll('td, thead th.target'))"
                        ".map(c => c.getClientRects().length ? c.getBoundingClientRect().right : null)"
                    ),
                }
            )
    page.evaluate("document.querySelectorAll('.provenance details').forEach(d => { d.open = false; })")
    seen["latency"] = page.evaluate(
        "(() => { const s = document.querySelector('section.latency-view'); return s ? s.offsetHeight : 0; })()"
    )
    seen["height"] = page.evaluate("document.documentElement.scrollHeight")
    page.evaluate("document.querySelectorAll('.provenance details').forEach(d => { d.open = true; })")
    seen["provenance_rows"] = page.evaluate(
        "Array.from(document.querySelectorAll('.provenance tbody tr')).map(r => r.getBoundingClientRect().height)"
    )
    seen["split"] = page.evaluate(SPLIT_NUMBERS)
    return seen


@pytest.fixture(scope="module")
def measured(browser: Browser, root_url: str, built_site: Path) -> Measured:
    """Every page opened once at a width (1,400 × 900 or 390 × 900), the first time a test asks
    for that width, and read by `_seen` for all the every-page tests (a page's visit costs a
    second or more; each test opening every page again made this file the suite's slowest).
    The tests of one width share an xdist group, so one test process makes each width's visit."""
    done: dict[int, dict[str, Seen]] = {}

    def at(width: int) -> dict[str, Seen]:
        if width not in done:
            context = browser.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            done[width] = {}
            for slug in slugs(built_site):
                open_page(page, f"{root_url}{slug}/index.html")
                done[width][slug] = _seen(page)
            context.close()
        return done[width]

    return at


@pytest.mark.parametrize(
    "width", [pytest.param(w, marks=pytest.mark.xdist_group(f"layout-{w}")) for w in WIDTHS]
)
def test_the_matched_table_fits_a_desktop_and_its_caption_reads_on_a_phone(
    measured: Measured, built_site: Path, width: str
) -> None:
    """At 1,400 px the matched table needs no sideways scroll; at 390 px its caption runs across
    the width (not a column a character wide) and every cell stays inside the screen."""
    pages = measured(WIDTHS[width])
    assert list(pages) == slugs(built_site)
    checked = 0
    for slug, seen in pages.items():
        for wrap, caption in seen["tables"]:
            checked += 1
            assert wrap[0] <= wrap[1], (slug, wrap)
            assert caption["width"] > min(200, WIDTHS[width] / 2) and caption["height"] < 100, (slug, caption)
    assert checked >= len(slugs(built_site)) - 2  # a page may open on a sequence with no matched range


@pytest.mark.parametrize(
    "width", [pytest.param(w, marks=pytest.mark.xdist_group(f"layout-{w}")) for w in WIDTHS]
)
def test_no_number_splits_across_lines(measured: Measured, built_site: Path, width: str) -> None:
    """Every number in every table (matched, sweep, accuracy, provenance) keeps to one line."""
    pages = measured(WIDTHS[width])
    assert list(pages) == slugs(built_site)
    for slug, seen in pages.items():
        assert seen["split"] == [], slug


@pytest.mark.xdist_group("layout-desktop")
def test_a_desktop_opens_on_numbers(measured: Measured, built_site: Path) -> None:
    """At 1,400 × 900 a comparison page's first screen shows numbers, not only words: the first
    table's header and first row, or the top of the chart where no table comes first."""
    pages = measured(WIDTHS["desktop"])
    assert list(pages) == slugs(built_site)
    for slug, seen in pages.items():
        assert seen["first"]["bottom"] <= 900, (slug, seen["first"])


def test_the_y_axis_title_is_never_clipped(sized: Page, root_url: str) -> None:
    """Every metric's axis title lies inside its chart, at 1,400 px and on a phone."""
    open_page(sized, f"{root_url}{KINDS['precision']}/index.html")
    for metric in sized.eval_on_selector_all("#metric-select option", "options => options.map(o => o.value)"):
        sized.select_option("#metric-select", metric)
        sized.wait_for_function(
            f"document.getElementById('chart').getAttribute('data-drawn').includes('|{metric}|')"
        )
        boxes = sized.evaluate(
            """() => [document.getElementById('chart'), document.querySelector('#chart .ytitle')]
                .map(e => e.getBoundingClientRect().toJSON())"""
        )
        chart, title = boxes
        assert title["width"] > 0 and title["height"] > 100, metric
        assert chart["left"] <= title["left"] and title["right"] <= chart["right"], metric
        assert chart["top"] <= title["top"] and title["bottom"] <= chart["bottom"], metric
