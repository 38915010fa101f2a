"""The one columnar encoding of measured points for the page scripts (present/columns.py): an
explorer data file of the default site and a comparison page's view data, decoded here by the
rule docs/comparison-json.md states ("Point columns"), give back the point table's values, every
one, exactly.

The decoding is this file's own (not the encoder's code); the values it is held to are the point
table the pipeline loads for the default site.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from site_builder.pipeline import load
from site_builder.project import Project
from site_builder.read.table import PointTable

ROOT = Path(__file__).resolve().parents[1]
PAGE = "mi355x-fp4-vs-fp8-dsr1"


def decoded(columns: Mapping[str, Any], fields: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Points from their columns: interactivity 1 / `tpot` where given, else `interactivity` (a
    column left out holds no point's value); under "fields", the value of each field `fields`
    lists: its code's place there."""
    count = max(len(v) for v in columns.values() if isinstance(v, list))
    tpot = columns.get("tpot") or [None] * count
    stated = columns.get("interactivity") or [None] * count
    found = []
    for n in range(count):
        assert (tpot[n] is None) != (stated[n] is None), n  # exactly one of the two
        point = {"interactivity": 1 / tpot[n] if tpot[n] is not None else stated[n]}
        point |= {
            name: column[n]
            for name, column in columns.items()
            if name not in ("tpot", "interactivity", "codes") and isinstance(column, list)
        }
        point["fields"] = {
            key: fields[key][codes[n]] for key, codes in columns["codes"].items() if key in fields
        }
        found.append(point)
    return found


@pytest.fixture(scope="module")
def table(default_site: Path) -> PointTable:
    """The default site's point table, as the pipeline loads it."""
    return load(Project.under(default_site.parent), None).table


def registered(path: Path, model: str) -> dict[str, Any]:
    """A data file's document: the JSON after `["<model>"] = `, before the final ';'."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"[{json.dumps(model)}] = ") + len(json.dumps(model)) + 5
    document: dict[str, Any] = json.loads(text[start:].rstrip().removesuffix(";"))
    return document


FIELD_COLUMNS = {"gpus": "gpu_count"}  # a stub's filter key → its point-table column, where they differ


def test_an_explorer_data_file_gives_back_the_point_table(default_site: Path, table: PointTable) -> None:
    document = registered(default_site / "explore" / "data" / "dsr1.js", "dsr1")
    rows = table.select({"model": "dsr1"})
    points = decoded(document["points"], document["fields"])
    assert len(points) == len(rows) > 400
    numbers = {
        "interactivity": "interactivity",
        "throughput": "throughput_per_gpu",
        "output_throughput": "output_throughput_per_gpu",
        "concurrency": "concurrency",
        "tpot_p90": "tpot_p90",
        "tpot_p99": "tpot_p99",
    }
    for name, column in numbers.items():
        assert [p[name] for p in points] == rows.python_values(column), name
    for key in document["fields"]:
        assert [p["fields"][key] for p in points] == rows.python_values(FIELD_COLUMNS.get(key, key)), key
    assert [document["configurations"][p["deployment"]] for p in points] == rows.python_values(
        "configuration"
    )
    workloads = [(isl, osl) for _, isl, osl in document["sequences"]]
    assert [workloads[p["sequence"]] for p in points] == list(
        zip(rows.python_values("isl"), rows.python_values("osl"), strict=True)
    )


def page_data(html: Path) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="page-data">(.*?)</script>', html.read_text(), re.S
    )
    assert found is not None, html
    data: dict[str, Any] = json.loads(found.group(1))
    return data


VIEW_NUMBERS = {
    "interactivity": "interactivity",
    "throughput": "throughput_per_gpu",
    "output_throughput": "output_throughput_per_gpu",
    "concurrency": "concurrency",
    "gpus": "gpu_count",
    "tpot_p90": "tpot_p90",
    "tpot_p99": "tpot_p99",
}


def test_a_pages_view_data_gives_back_each_sides_points(default_site: Path, table: PointTable) -> None:
    """Every point of each side of every page whose sides read total tok/s, on every workload."""
    checked = 0
    for html in sorted(default_site.glob("*/index.html")):
        comparison_file = html.parent / "comparison.json"
        if not comparison_file.is_file():
            continue
        comparison = json.loads(comparison_file.read_text())
        data = page_data(html)
        if "view" not in data or comparison["throughput_basis"] != "total":
            continue
        view = data["view"]
        values = {f["key"]: f["tokens"] for f in view["fields"]}  # tokens: values as a stub writes them
        for sequence in comparison["sequences"]:
            for n, side in enumerate(comparison["sides"]):
                columns = view["points"][sequence["sequence"]][n]
                names = [name for name in VIEW_NUMBERS if name in columns or name == "interactivity"]
                points = decoded(columns, values)
                rows = table.select(side["filters"])
                rows = rows.rows(
                    (rows.column("isl") == sequence["isl"]) & (rows.column("osl") == sequence["osl"])
                )
                fields = list(columns["codes"])
                tokens = [
                    [("-" if v is None else str(v).lower() if isinstance(v, bool) else str(v)) for v in c]
                    for c in (rows.python_values(FIELD_COLUMNS.get(k, k)) for k in fields)
                ]
                expected = Counter(
                    zip(
                        *[rows.python_values(VIEW_NUMBERS[name]) for name in names],
                        *tokens,
                        rows.python_values("configuration"),
                        strict=True,
                    )
                )
                got = Counter(
                    tuple(p[name] for name in names)
                    + tuple(p["fields"][k] for k in fields)
                    + (view["configurations"][p["deployment"]],)
                    for p in points
                )
                assert got == expected, (html.parent.name, sequence["sequence"], n)
                checked += len(points)
    assert checked > 1000


ENGINE = ROOT / "templates" / "assets" / "engine.js"


def test_the_page_engine_decodes_an_explorer_data_file_to_the_point_table(
    default_site: Path, table: PointTable
) -> None:
    """engine.js decodePoints, the page scripts' one decoder, on a data file of the default site."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        f"const E = require({json.dumps(str(ENGINE))});"
        "const d = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "process.stdout.write(JSON.stringify(E.decodePoints(d.points)));"
    )
    document = registered(default_site / "explore" / "data" / "dsr1.js", "dsr1")
    done = subprocess.run(
        [node, "-e", script],
        input=json.dumps(document),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    points = json.loads(done.stdout)
    rows = table.select({"model": "dsr1"})
    assert points["interactivity"] == rows.python_values("interactivity")
    assert points["throughput"] == rows.python_values("throughput_per_gpu")
    assert "tpot" not in points
