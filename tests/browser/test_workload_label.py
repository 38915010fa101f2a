"""A labelled workload (`workload: sharegpt`) in Chromium: a comparison page opened with
?seq=sharegpt shows that workload's panel and draws it; the explorer reached with seq=sharegpt
selects it and counts every labelled run of the side (tests/test_workload_label.py builds the
project from real SGLang ShareGPT runs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from site_builder.cli import main
from tests.browser.conftest import _serve
from tests.test_workload_label import STUB, _project


@pytest.fixture(scope="module")
def labelled_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    project = _project(tmp_path_factory.mktemp("labelled-browser"))
    fixed = STUB.replace("sequence: sharegpt", "sequence: 1k/1k").replace('title: "', 'title: "1k/1k first: ')
    (project / "content" / "fixed-first.md").write_text(fixed)
    assert main(["build", "--root", str(project), "-q"]) == 0
    for url in _serve(project / "site"):
        yield url, project / "site"


def test_a_page_opens_on_the_label_from_its_address(page: Page, labelled_url: tuple[str, Path]) -> None:
    url, _ = labelled_url
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}fixed-first/index.html?seq=sharegpt")
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    page.wait_for_selector("html[data-charts=drawn]", state="attached", timeout=30000)
    assert page.locator("#sequence-select").input_value() == "sharegpt"
    visible = page.locator(".sequence-panel:not([hidden])")
    assert visible.count() == 1 and visible.get_attribute("data-sequence") == "sharegpt"
    assert "workload of varying lengths" in (visible.locator(".workload-lengths").text_content() or "")
    assert (page.locator("#chart").get_attribute("data-drawn") or "").startswith("sharegpt|")
    page.select_option("#sequence-select", "1k/1k")
    page.wait_for_function("/seq=1k(%2F|\\/)1k/.test(location.search)")
    page.select_option("#sequence-select", "sharegpt")
    page.wait_for_function("/seq=sharegpt/.test(location.search)")
    assert errors == []


def test_the_explorer_selects_the_label_from_its_address(page: Page, labelled_url: tuple[str, Path]) -> None:
    url, site = labelled_url
    comparison = json.loads((site / "sharegpt" / "comparison.json").read_text())
    rate_points = comparison["sequences"][0]["sides"][0]["point_count"]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(
        f"{url}explore/index.html?model=llama3.3-70b&seq=sharegpt&side=dataset:online&side=dataset:offline"
    )
    page.wait_for_selector("html[data-ready=true]", timeout=15000)
    assert page.locator("#explore-seq").input_value() == "sharegpt"
    counts = page.locator(".explore-count").all_text_contents()
    assert counts and counts[0].startswith(f"{rate_points} points on sharegpt")
    assert "seq=sharegpt" in page.url
    assert errors == []
