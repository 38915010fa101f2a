"""A reader's own $/GPU-hour and kW per GPU on a comparison page, and the axes' scales, in the URL
(usd_hr, kw, log): the page script recomputes cost and tok/s per MW with the engine's formulas,
which these tests work out again from the page's comparison.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.test_pages import KINDS, open_page

SLUG = KINDS["precision"]


def _default_sequence(built_site: Path) -> dict[str, Any]:
    document = json.loads((built_site / SLUG / "comparison.json").read_text())
    found: dict[str, Any] = next(
        s for s in document["sequences"] if s["sequence"] == document["default_sequence"]
    )
    return found


def _row_values(page: Page, sequence: str, metric: str) -> list[list[str]]:
    """Each target's cell of a metric's row: each side's value text."""
    cells: list[list[str]] = page.eval_on_selector_all(
        f'.sequence-panel[data-sequence="{sequence}"] tr[data-metric="{metric}"] td',
        "tds => tds.map(td => Array.from(td.querySelectorAll('.value')).map(v => v.textContent.trim()))",
    )
    return cells


def _cost(usd_hr: float, throughput: float) -> str:
    return f"${usd_hr / (3600 * throughput) * 1e6:,.3f}"


def test_usd_hr_in_the_url_gives_that_cost_to_the_cent(page: Page, root_url: str, built_site: Path) -> None:
    sequence = _default_sequence(built_site)
    open_page(page, f"{root_url}{SLUG}/index.html?usd_hr=2")
    shown = _row_values(page, sequence["sequence"], "cost")
    expected = [[_cost(2, side["throughput_per_gpu"]) for side in r["sides"]] for r in sequence["results"]]
    assert [[text[:-1] for text in cell] for cell in shown] == [
        [text[:-1] for text in cell] for cell in expected
    ]
    for cell, result in zip(shown, sequence["results"], strict=True):  # to the cent
        for text, side in zip(cell, result["sides"], strict=True):
            assert (
                abs(float(text[1:].replace(",", "")) - 2 / (3600 * side["throughput_per_gpu"]) * 1e6) < 0.005
            )
    assert page.eval_on_selector_all(
        "#own-constants input[data-constant=usd_per_gpu_hour]", "es => es.map(e => e.value)"
    ) == ["2", "2"]


def test_kw_per_side_gives_tokens_per_megawatt(page: Page, root_url: str, built_site: Path) -> None:
    sequence = _default_sequence(built_site)
    open_page(page, f"{root_url}{SLUG}/index.html?kw=1.5,2")
    shown = _row_values(page, sequence["sequence"], "per_mw")
    for cell, result in zip(shown, sequence["results"], strict=True):
        for text, side, kw in zip(cell, result["sides"], (1.5, 2.0), strict=True):
            assert abs(float(text.replace(",", "")) - side["throughput_per_gpu"] * 1e6 / (kw * 1000)) <= 0.5


def test_an_edit_goes_to_the_url_and_reset_restores_the_page(
    page: Page, root_url: str, built_site: Path
) -> None:
    sequence = _default_sequence(built_site)["sequence"]
    open_page(page, f"{root_url}{SLUG}/index.html")
    built = _row_values(page, sequence, "cost")
    authored = page.input_value("#usd-hr-1")
    page.fill("#usd-hr-0", "3")
    page.press("#usd-hr-0", "Enter")  # commits the edit (a change event) by keyboard
    page.wait_for_function("location.search.indexOf('usd_hr=3') >= 0")
    assert f"usd_hr=3%2C{authored}" in page.url
    assert _row_values(page, sequence, "cost") != built
    page.focus("#own-constants-reset")
    page.keyboard.press("Enter")
    assert "usd_hr" not in page.url
    assert _row_values(page, sequence, "cost") == built


def test_the_axes_scales_live_in_the_url(page: Page, root_url: str) -> None:
    open_page(page, f"{root_url}{SLUG}/index.html?log=y")
    assert not page.is_checked("#log-x") and page.is_checked("#log-y")
    page.check("#log-x")
    assert "log=x%2Cy" in page.url
    page.uncheck("#log-x")
    page.uncheck("#log-y")
    assert "log=none" in page.url
    page.check("#log-x")  # the default scales leave the URL without the key
    assert "log=" not in page.url


def test_typing_the_authored_kw_back_leaves_the_url_without_it(page: Page, root_url: str) -> None:
    """kW is typed in kW and kept in W: 1.73 kW must be the authored 1,730 W again (not
    1,730.0000000000002), so the page is back at its own constants and the URL says nothing."""
    open_page(page, f"{root_url}{SLUG}/index.html")
    authored = page.input_value("#kw-0")
    page.fill("#kw-0", "2.5")
    page.press("#kw-0", "Enter")
    page.wait_for_function("location.search.indexOf('kw=') >= 0")
    page.fill("#kw-0", authored)
    page.press("#kw-0", "Enter")
    page.wait_for_function("location.search.indexOf('kw=') < 0")
    assert "kw=" not in page.url
