"""No markup from data reaches a chart: Plotly reads tags (`<a href>`, `<b>`, `<br>`…) in every
text it draws, so each text from data or a stub is escaped before it reaches a figure."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from site_builder.present.charts import plotly_text
from tests.markup_project import MARKUP

TAG = re.compile(r"<[^<>]*>")  # what Plotly reads as a tag


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _chart_data(page: Path) -> dict[str, Any]:
    found = re.search(
        r'<script[^>]*id="chart-data"[^>]*>(.*?)</script>', page.read_text(encoding="utf-8"), re.S
    )
    assert found, page
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@pytest.fixture(scope="module")
def site(markup_site: Path) -> Path:
    return markup_site


def test_plotly_text_makes_every_tag_literal() -> None:
    assert plotly_text(MARKUP) == '&lt;a href="https://x"&gt;L&lt;/a&gt;&lt;b&gt;B&lt;/b&gt;&lt;br&gt;'
    assert plotly_text("a &lt; b & c") == "a &amp;lt; b &amp; c"  # an entity in data stays as written
    assert plotly_text('H200 "tuned"') == 'H200 "tuned"'  # Plotly decodes no &quot;


def test_the_built_figures_hold_no_markup_from_data(site: Path) -> None:
    """Every text of the accuracy and sweep figures: the only tag is the build's own <br>, and
    the markup in the data is there, escaped (so the labels did reach the figures)."""
    escaped = plotly_text(MARKUP)
    seen = {"accuracy": 0, "sweeps": 0}
    for page in ("b200-vs-h200-fp8-dsr1", "example-b200-fp4-vs-h200-fp8-sweep"):
        data = _chart_data(site / page / "index.html")
        for figure in ("accuracy", "sweeps"):
            for text in _strings(data[figure]):
                assert set(TAG.findall(text)) <= {"<br>"}, (page, text)
                seen[figure] += escaped in text
    assert seen["accuracy"] and seen["sweeps"]


def test_the_page_script_receives_data_as_plain_text(site: Path) -> None:
    """What the page script words itself (trace names, configurations, the title) arrives as
    written; the script escapes it (tests/browser/test_markup.py draws it)."""
    data = _chart_data(site / "b200-vs-h200-fp8-dsr1" / "index.html")
    assert MARKUP in data["title"]
    assert all(MARKUP in name for side in data["names"] for name in side.values())
    assert any(MARKUP.lower() in text for text in data["strings"])  # a framework, lower-cased
    assert html.unescape(plotly_text(data["title"])) == data["title"]
