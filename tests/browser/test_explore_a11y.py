"""The explorer's accessibility and keyboard use in Chromium: axe-core finds nothing with three
sides shown, in light and dark, at 1,400 and 390 px; everything works by keyboard alone (pick a
model and a sequence, add and remove a side, set a side's filter, edit a target, switch the
metric), each control showing its focus; an index link into the explorer shows the row's values
at the tiers, equal to the scorecard's cells."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.test_layout import _axe

THREE_SIDES = (
    "explore/index.html?model=dsr1&seq=1k/1k&side=hardware:mi355x,precision:fp4"
    "&side=hardware:mi355x,precision:fp8&side=hardware:b200,precision:fp4"
)
WIDTHS = {"desktop": 1400, "phone": 390}
# What keyboard focus shows on the focused element: an outline (or a ring drawn as a box shadow)
FOCUS_SHOWN = """() => {
    const e = document.activeElement, s = getComputedStyle(e);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none';
}"""


def open_explorer(page: Page, url: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    page.wait_for_selector("html[data-charts=drawn]", timeout=30000)
    assert errors == []


@pytest.fixture(params=[(w, s) for w in WIDTHS for s in ("light", "dark")], ids=lambda p: f"{p[0]}-{p[1]}")
def themed(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    width, scheme = request.param
    context = browser.new_context(viewport={"width": WIDTHS[width], "height": 900}, color_scheme=scheme)
    yield context.new_page()
    context.close()


def test_axe_finds_nothing_on_the_explorer_with_three_sides(themed: Page, root_url: str) -> None:
    script = _axe()
    open_explorer(themed, root_url + THREE_SIDES)
    assert themed.locator("fieldset.explore-side").count() == 3
    assert themed.eval_on_selector('table[data-target-index="0"] thead tr', "r => r.cells.length") == 4
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


def tab_to(page: Page, selector: str, limit: int = 80) -> None:
    """Press Tab until the element is focused, each stop showing its focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            assert page.evaluate(FOCUS_SHOWN), selector
            return
        if page.evaluate("document.activeElement !== document.body"):
            tag = page.evaluate("document.activeElement.outerHTML.slice(0, 80)")
            assert page.evaluate(FOCUS_SHOWN), tag
    raise AssertionError(f"Tab never reached {selector}")


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_everything_works_by_keyboard(page: Page, root_url: str) -> None:
    open_explorer(page, root_url + "explore/index.html")
    # every stop from the top to the last table (the chart's toolbar on the way) shows its focus
    tab_to(page, "#explore-tables .table-wrap:last-child", limit=200)
    page.evaluate("document.activeElement.blur()")
    # a model, then a sequence
    models = page.eval_on_selector_all("#explore-model option", "os => os.map(o => o.value)")
    tab_to(page, "#explore-model")
    first = page.input_value("#explore-model")
    page.keyboard.press("ArrowDown" if models.index(first) + 1 < len(models) else "ArrowUp")
    page.wait_for_function(f"new URLSearchParams(location.search).get('model') !== {first!r}")
    page.keyboard.press("Home" if models.index(first) + 1 < len(models) else "End")
    page.wait_for_function(f"new URLSearchParams(location.search).get('model') === {first!r}")
    page.wait_for_selector("html[data-ready=true]")
    tab_to(page, "#explore-seq")
    seq = page.input_value("#explore-seq")
    page.keyboard.press("ArrowDown")
    page.wait_for_function(f"new URLSearchParams(location.search).get('seq') !== {seq!r}")
    assert query(page)["seq"] == [page.input_value("#explore-seq")]
    # the chart's metric
    tab_to(page, "#explore-metric")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("new URLSearchParams(location.search).get('metric') !== 'throughput'")
    metric = page.input_value("#explore-metric")
    assert query(page)["metric"] == [metric] and metric != "throughput"
    # a side added: focus lands on its first filter, which is then set
    sides = page.locator("fieldset.explore-side").count()
    tab_to(page, "#explore-add")
    page.keyboard.press("Enter")
    assert page.locator("fieldset.explore-side").count() == sides + 1
    assert page.evaluate(
        f"document.activeElement.closest('fieldset') === document.querySelectorAll('fieldset.explore-side')[{sides}]"
    )
    assert page.evaluate(FOCUS_SHOWN)
    field = page.evaluate("document.activeElement.id")
    legend = page.locator("fieldset.explore-side legend").nth(sides).text_content()
    page.keyboard.press("ArrowDown")
    page.wait_for_function(
        f"document.querySelectorAll('fieldset.explore-side legend')[{sides}].textContent !== {legend!r}"
    )
    # the select keeps the focus through the redraw: a second step reaches the next value
    assert page.evaluate("document.activeElement.id") == field
    chosen = page.input_value(f"#{field}")
    page.keyboard.press("ArrowDown")
    page.wait_for_function(f"document.getElementById({field!r}).value !== {chosen!r}")
    assert len(query(page)["side"]) == sides + 1
    # a target edited: the table's column moves to it
    tab_to(page, "#explore-target-0")
    page.keyboard.press("Control+A")
    page.keyboard.type("42")
    page.keyboard.press("Tab")
    page.wait_for_function("new URLSearchParams(location.search).get('t').split(',')[0] === '42'")
    caption = page.locator('table[data-target-index="0"] caption').text_content() or ""
    assert caption.startswith("At 42 tok/s/user")
    # Enter in the next target field commits it, and never submits the form (which would drop the sides)
    assert page.evaluate("document.activeElement.id") == "explore-target-1"
    page.keyboard.press("Control+A")
    page.keyboard.type("43")
    page.keyboard.press("Enter")
    page.wait_for_function("new URLSearchParams(location.search).get('t').split(',')[1] === '43'")
    assert len(query(page)["side"]) == sides + 1
    # the side removed again: focus goes to "Add a side"
    page.evaluate("document.activeElement.blur()")
    tab_to(page, f"fieldset.explore-side:nth-of-type({sides + 1}) button")
    page.keyboard.press("Enter")
    assert page.locator("fieldset.explore-side").count() == sides
    assert page.evaluate("document.activeElement.id") == "explore-add"
    assert page.evaluate(FOCUS_SHOWN)
    assert len(query(page)["side"]) == sides


def _number(text: str) -> float:
    return float(re.sub(r"[^0-9.]", "", text))


def test_an_index_link_into_the_explorer_shows_the_rows_values(page: Page, root_url: str) -> None:
    page.goto(root_url + "index.html")
    card = page.locator('details.scorecard:has(a[href^="explore/"])').first
    if card.get_attribute("open") is None:  # a folded card: opened by keyboard
        card.locator("summary").focus()
        page.keyboard.press("Enter")
    links = card.locator('.scorecard-table a[href^="explore/"]')
    assert links.count() >= 3
    href = links.first.get_attribute("href")
    assert href
    row = page.locator(".scorecard-table tr", has=page.locator(f'a[href="{href}"]')).first
    expected = [
        _number(t)
        for t in row.locator("td").evaluate_all(
            "tds => tds.map(td => td.querySelector('[data-metric=throughput]').firstChild.textContent)"
        )
    ]
    links.first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    tiers = query(page)["t"][0].split(",")
    assert len(tiers) == len(expected)
    for col, (tier, value) in enumerate(zip(tiers, expected, strict=True)):
        caption = page.locator(f'table[data-target-index="{col}"] caption').text_content() or ""
        assert caption.startswith(f"At {tier} tok/s/user")
        shown = page.eval_on_selector(
            f'table[data-target-index="{col}"] tr[data-metric="throughput"] td',
            "e => e.getAttribute('data-value')",
        )
        assert round(float(shown), 1) == value, (tier, shown, value)
