"""The index's scorecard: one row per GPU × precision × speculative method, pooled as a page pools
it, read at tiers chosen from the data, the best marked, "not measured" outside a row's range, each
value linked to a page that shows it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from site_builder.cli import main
from site_builder.scorecard import scorecard_tiers
from tests.conftest import LAB_CSV

# B200 at FP8 as H200 measured it, and B200 at FP4 measured only between 25 and 40 tok/s/user
B200 = [line.replace(",h200,", ",b200,") for line in LAB_CSV.splitlines() if ",h200,sglang,fp8," in line] + [
    "dsr1,b200,trt,fp4,none,8,8,1024,1024,64,3000.0,40.0,2026-09-04",
    "dsr1,b200,trt,fp4,none,8,8,1024,1024,16,2000.0,25.0,2026-09-04",
]


def test_tiers_are_a_quarter_half_and_three_quarters_between_the_median_ends() -> None:
    # medians: start 25, end 100 -> 43.75, 62.5, 81.25 rounded half-up
    assert scorecard_tiers([(25.0, 100.0), (33.3, 111.1), (25.0, 100.0), (25.0, 40.0)]) == [44.0, 63.0, 81.0]
    # medians that enclose no whole number: the whole span instead
    assert scorecard_tiers([(10.2, 10.4), (10.25, 10.45), (5.0, 30.0)]) == [11.0, 18.0, 24.0]
    assert scorecard_tiers([]) == []


def _row(html: str, gpu: str, precision: str) -> list[str]:
    """A row's cells, as the page shows them before any script runs (the first metric)."""
    match = re.search(
        rf'<tr data-vendor="[^"]*" data-gpu="{gpu}" data-precision="{precision}"[^>]*>(.*?)</tr>', html, re.S
    )
    assert match, (gpu, precision)
    return re.findall(r"<td[^>]*>(.*?)</td>", match.group(1), re.S)


def _shown(cell: str) -> str:
    """The first metric's text of a cell (the others are hidden), without its best mark."""
    span = re.search(r'<span data-metric="throughput"[^>]*>([^<]*)', cell)
    return span.group(1) if span else ""


@pytest.fixture
def site(project: Path) -> Path:
    (project / "data" / "results" / "lab.csv").write_text(LAB_CSV + "\n".join(B200) + "\n")
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text().replace("sides:", "targets: [44, 63, 81]\nsides:"))
    assert main(["build", "--root", str(project), "-q"]) == 0
    return project / "site"


def test_a_row_is_pooled_as_a_page_pools_it_and_read_at_the_tiers(site: Path) -> None:
    html = (site / "index.html").read_text()
    assert [t for t in re.findall(r'<th scope="col">(\d+) tok/s/user</th>', html)] == ["44", "63", "81"]
    page = json.loads((site / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    results = page["sequences"][0]["results"]
    assert [r["interactivity"] for r in results] == [44, 63, 81]
    for side, precision in enumerate(("FP4", "FP8")):  # the page's sides pool exactly these rows
        expected = [f"{r['sides'][side]['throughput_per_gpu']:,.1f}" for r in results]
        assert [_shown(cell) for cell in _row(html, "H200", precision)] == expected


def test_the_best_is_marked_and_a_tier_outside_a_range_is_not_measured(site: Path) -> None:
    html = (site / "index.html").read_text()
    h200_fp4 = _row(html, "H200", "FP4")
    assert all("(best)" in cell for cell in h200_fp4)  # FP4 on H200 gives the most at every tier
    assert not any("(best)" in cell for cell in _row(html, "H200", "FP8"))
    b200_fp4 = _row(html, "B200", "FP4")  # measured from 25 to 40 tok/s/user only
    assert [_shown(cell) for cell in b200_fp4] == ["not measured"] * 3
    assert all("<a " not in cell for cell in b200_fp4)


def test_each_value_links_to_a_page_whose_side_pools_that_row(site: Path) -> None:
    html = (site / "index.html").read_text()
    links = [re.search(r'<a href="([^"]+)"', cell) for cell in _row(html, "B200", "FP8")]
    hrefs = [link.group(1) if link else None for link in links]
    assert hrefs == ["b200-vs-h200-fp8-dsr1/index.html?seq=1k/1k&amp;t=44,63,81"] * 3
    assert (site / "b200-vs-h200-fp8-dsr1" / "index.html").is_file()
