"""The index's scorecards and page search in Chromium: the metric switch shows the build's other
values, the filters hide rows, the search narrows the page list, all by keyboard; without the
script the index shows the first metric and every row."""

from __future__ import annotations

from playwright.sync_api import Browser, Page


def _visible_texts(page: Page, selector: str) -> list[str]:
    texts: list[str] = page.eval_on_selector_all(
        selector, "els => els.filter(e => e.offsetParent !== null).map(e => e.textContent.trim())"
    )
    return texts


def test_the_metric_switch_shows_the_precomputed_values(page: Page, root_url: str) -> None:
    page.goto(root_url + "index.html")
    first = "details.scorecard[open] tbody tr:first-child td:nth-child(2)"
    assert page.locator("#scorecard-controls").is_visible()
    before = _visible_texts(page, f"{first} [data-metric]")
    assert len(before) == 1 and not before[0].startswith("$")
    page.focus("#scorecard-metric")
    page.select_option("#scorecard-metric", "cost")
    shown = _visible_texts(page, f"{first} [data-metric]")
    hidden_cost = page.eval_on_selector(f"{first} [data-metric=cost]", "e => e.textContent.trim()")
    assert shown == [hidden_cost] and shown[0].startswith("$")
    captions = _visible_texts(page, "details.scorecard[open] caption [data-metric]")
    assert captions and all(text.startswith("Cost") for text in captions)


def test_the_filters_hide_rows_by_vendor_and_method(page: Page, root_url: str) -> None:
    page.goto(root_url + "index.html")
    rows = page.locator(".scorecard-table tbody tr")
    total = rows.count()
    page.select_option("select[data-filter=vendor]", "AMD")
    vendors = page.eval_on_selector_all(
        ".scorecard-table tbody tr", "rs => rs.filter(r => !r.hidden).map(r => r.dataset.vendor)"
    )
    assert vendors and set(vendors) == {"AMD"} and len(vendors) < total
    assert page.locator("#scorecard-status").text_content() == f"{len(vendors)} of {total} rows shown"
    page.select_option("select[data-filter=method]", "MTP")
    shown = page.eval_on_selector_all(
        ".scorecard-table tbody tr",
        "rs => rs.filter(r => !r.hidden).map(r => [r.dataset.vendor, r.dataset.method])",
    )
    assert shown and all(row == ["AMD", "MTP"] for row in shown)
    page.select_option("select[data-filter=vendor]", "")
    page.select_option("select[data-filter=method]", "")
    assert (
        page.eval_on_selector_all(".scorecard-table tbody tr", "rs => rs.filter(r => r.hidden).length") == 0
    )


def test_the_search_narrows_the_page_list_by_keyboard(page: Page, root_url: str) -> None:
    page.goto(root_url + "index.html")
    items = page.locator(".index-list li")
    total = items.count()
    page.focus("#page-search")
    page.keyboard.type("mi355x mtp")
    titles = _visible_texts(page, ".index-list li > a")
    assert titles and len(titles) < total
    # every word is in the entry a reader sees: its title, or its headline (a caveat naming MTP)
    assert all("MI355X" in t and "MTP" in t for t in _visible_texts(page, ".index-list li"))
    assert any("MTP" in t for t in titles)
    assert page.locator("#page-search-status").text_content() == f"{len(titles)} of {total} pages match"


def test_a_value_links_to_the_page_at_its_sequence_and_tier(page: Page, root_url: str) -> None:
    page.goto(root_url + "index.html")
    link = page.locator("details.scorecard[open] tbody tr:first-child td a").first
    href = link.get_attribute("href")
    assert href and "?seq=" in href and "&t=" in href
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    tiers = href.rsplit("&t=", 1)[1].split(",")
    seq = href.split("?seq=", 1)[1].split("&", 1)[0]
    inputs = page.eval_on_selector_all(
        f'.sequence-panel[data-sequence="{seq}"] .target-input', "els => els.map(e => e.value)"
    )
    assert inputs == tiers  # the page opens at the scorecard's tiers


def test_without_the_script_the_first_metric_and_every_row_show(page: Page, root_url: str) -> None:
    page.context.set_offline(False)
    page.route("**/assets/index.js", lambda route: route.abort())
    page.goto(root_url + "index.html")
    assert not page.locator("#scorecard-controls").is_visible()
    cells = page.eval_on_selector_all(
        "details.scorecard[open] tbody tr:first-child td:nth-child(2) [data-metric]",
        "els => els.filter(e => e.offsetParent !== null).map(e => e.dataset.metric)",
    )
    assert cells == ["throughput"]


def test_a_phone_reads_the_index_without_scrolling_the_page_sideways(browser: Browser, root_url: str) -> None:
    """At 390 px the page does not scroll sideways; a scorecard wider than the screen scrolls in its
    own focusable region, and its first two columns (row and first tier) are on screen."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(root_url + "index.html")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    first = page.locator("details.scorecard[open] tbody tr:first-child td").first.bounding_box()
    assert first is not None and first["x"] + first["width"] <= 390
    context.close()
