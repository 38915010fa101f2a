"""The latency view's chart in Chromium: drawn as built, one workload and metric at a time, the
switch redrawing it with that table's values and the build's caption; nothing drawn for a
statistic a side lacks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.test_pages import Watch, open_page

SLUG = "mi355x-fp4-vs-fp8-dsr1"


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
