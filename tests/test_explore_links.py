"""The index's links into the explorer, on the built default site: every measured scorecard value
links somewhere, to a page where one shows its row, else to the explorer; each explorer link reads
(explore.js parseQuery, run by Node) as the row's model, sequence and tiers with one side whose
points (explore.js selectPoints on the model's data file) are exactly the points the Python table
selects for that row's filters on that workload. (tests/browser/test_explore_a11y.py follows a
link in Chromium and reads the row's values at the tiers.)"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from site_builder.pipeline import load
from site_builder.plan import PlanFacts
from site_builder.present.scorecard import explorer_href
from site_builder.project import Project
from site_builder.scorecard import Scorecard, ScoreRow
from site_builder.workload import Workload
from tests.test_explore_js import run_explore

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(
    r'<tr data-vendor="[^"]*" data-gpu="([^"]*)" data-precision="([^"]*)".*?data-method="([^"]*)"[^>]*>(.*?)</tr>',
    re.S,
)
CARD = re.compile(
    r'<details class="scorecard" id="[^"]*"[^>]*>\s*<summary>([^<]*)</summary>(.*?)</details>', re.S
)


def model_document(site: Path, model: str) -> dict[str, Any]:
    """A model's explorer data: the JSON its data file registers (docs/comparison-json.md)."""
    text = (site / "explore" / "data" / f"{model}.js").read_text(encoding="utf-8")
    found = re.fullmatch(
        r'\(window\.siteExplorerData = window\.siteExplorerData \|\| \{\}\)\[(".*?")\] = (.*);\n', text, re.S
    )
    assert found is not None and json.loads(found.group(1)) == model
    document: dict[str, Any] = json.loads(found.group(2))
    return document


def scorecard_links(site: Path) -> list[tuple[str, str, str, str, list[str | None]]]:
    """Per scorecard row: the card's summary, its GPU, precision and method as the row shows
    them, and each measured cell's link (None where a measured cell has none)."""
    page = (site / "index.html").read_text(encoding="utf-8")
    found = []
    for summary, body in CARD.findall(page):
        for gpu, precision, method, cells in ROW.findall(body):
            hrefs = []
            for attributes, cell in re.findall(r"<td([^>]*)>(.*?)</td>", cells, re.S):
                if "not-measured" in attributes:
                    assert "<a " not in cell
                    continue
                link = re.search(r'<a href="([^"]+)"', cell)
                hrefs.append(html.unescape(link.group(1)) if link else None)
            found.append((html.unescape(summary), gpu, precision, method, hrefs))
    return found


def test_every_measured_value_links_and_explorer_links_select_the_rows_points(default_site: Path) -> None:
    rows = scorecard_links(default_site)
    assert rows and all(None not in hrefs for *_, hrefs in rows)
    explorer = [
        (row, href) for row in rows for href in row[4] if href and href.startswith("explore/index.html?")
    ]
    assert explorer  # the default site has rows no page shows (Llama 70B B200 FP4)
    inputs = load(Project.under(ROOT), None)
    facts = PlanFacts.of(inputs.table, inputs.datasets)
    queries = [href.split("?", 1)[1] for _, href in explorer]
    models = {q: re.match(r"model=([^&]+)", q).group(1) for q in queries}  # type: ignore[union-attr]
    documents = {m: model_document(default_site, m) for m in set(models.values())}
    answers = run_explore([{"query": q, "data": documents[models[q]]} for q in queries])
    for ((summary, gpu, precision, method, _), href), answer in zip(explorer, answers, strict=True):
        assert "error" not in answer, (href, answer)
        state = answer["state"]
        document = documents[state["model"]]
        assert summary == f"{document['model_name']} · {state['seq']}", href
        (side,) = state["sides"]
        (hardware,) = side["hardware"]
        assert document["gpus"][hardware]["name"] == gpu and side["precision"] == [precision.lower()], href
        assert side["spec_method"] == [method.lower()], href
        # the side's points are the table's for the row's filters (as a generated page's side) there
        filters = {
            "model": state["model"],
            "hardware": hardware,
            "precision": side["precision"][0],
            "spec_method": side["spec_method"][0],
            "dataset": facts.datasets(state["model"], hardware),
        }
        assert side["dataset"] == filters["dataset"], href
        isl, osl = next(s[1:] for s in document["sequences"] if s[0] == state["seq"])
        rows_there = inputs.table.select(filters)
        on_workload = [
            t
            for t, i, o in zip(
                rows_there.python_values("throughput_per_gpu"),
                rows_there.python_values("isl"),
                rows_there.python_values("osl"),
                strict=True,
            )
            if (i, o) == (isl, osl)
        ]
        (selected,) = answer["selected"]
        assert len(selected) == len(on_workload) > 0, href
        shown = Counter(document["points"]["throughput"][i] for i in selected)
        assert shown == Counter(float(t) for t in on_workload), href


def test_explorer_links_carry_the_cards_tiers(default_site: Path) -> None:
    page = (default_site / "index.html").read_text(encoding="utf-8")
    checked = 0
    for _, body in CARD.findall(page):
        tiers = re.findall(r'<th scope="col">(\d+) tok/s/user</th>', body)
        for href in re.findall(r'<a href="(explore/index.html\?[^"]+)"', body):
            assert html.unescape(href).endswith("&t=" + ",".join(tiers)), href
            checked += 1
    assert checked >= 3


def _card(basis: str, output_only: bool, datasets: tuple[str, ...]) -> tuple[Scorecard, ScoreRow]:
    row = ScoreRow("b200", "fp4", "mtp", ("trt",), (False,), (), datasets, output_only)
    return Scorecard("my model", Workload(1024, 8192), basis, (40.0, 63.0, 90.0), (row,)), row


def test_an_explorer_link_reads_as_the_row_whatever_its_names_hold() -> None:
    card, row = _card("total", False, ("lab, 2026|a:b", "50%&more"))
    href = explorer_href(card, row)
    assert href is not None and href.startswith("explore/index.html?")
    (answer,) = run_explore([{"query": href.split("?", 1)[1]}])
    assert answer["state"] == {
        "model": "my model",
        "seq": "1k/8k",
        "sides": [
            {
                "hardware": ["b200"],
                "precision": ["fp4"],
                "spec_method": ["mtp"],
                "dataset": list(row.datasets),
            }
        ],
        "targets": [40, 63, 90],
        "metric": None,
        "basis": None,
    }


def test_no_explorer_link_where_the_explorer_would_read_another_basis() -> None:
    # the card reads output tok/s because another row gives only that; this row alone would not
    assert explorer_href(*_card("output", False, ("lab",))) is None
    assert explorer_href(*_card("output", True, ("lab",))) is not None
    assert explorer_href(*_card("total", False, ("lab",))) is not None
