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
from site_builder.present.columns import Deployments, point_columns
from site_builder.project import Project
from site_builder.read.table import PointTable
from tests.factories import point
from tests.factories import table as point_table

ROOT = Path(__file__).resolve().parents[1]
PAGE = "mi355x-fp4-vs-fp8-dsr1"


def decoded(columns: Mapping[str, Any], fields: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Points from their columns: interactivity 1 / `tpot` where given, else `interactivity` (a
    column left out holds no point's value); the median TPOT `tpot_median` where given, else
    `tpot` (never both); under "fields", the value of each field `fields` lists: its code's place
    there."""
    count = max(len(v) for v in columns.values() if isinstance(v, list))
    tpot = columns.get("tpot") or [None] * count
    stated = columns.get("interactivity") or [None] * count
    median = columns.get("tpot_median") or [None] * count
    found = []
    for n in range(count):
        assert (tpot[n] is None) != (stated[n] is None), n  # exactly one of the two
        assert tpot[n] is None or median[n] is None, n  # each median TPOT written once
        point = {"interactivity": 1 / tpot[n] if tpot[n] is not None else stated[n]}
        point |= {
            name: column[n]
            for name, column in columns.items()
            if name not in ("tpot", "interactivity", "codes") and isinstance(column, list)
        }
        point["tpot_median"] = median[n] if median[n] is not None else tpot[n]
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
    # the latency view's (seconds), on a page with one
    **{
        f"{metric}_{stat}": f"{metric}_{stat}"
        for metric in ("ttft", "e2el")
        for stat in ("median", "p90", "p99")
    },
    "tpot_median": "tpot_median",
}


def latency_view(comparison: Mapping[str, Any], metric: str) -> bool:
    """Whether a page's latency view has a table of the metric."""
    workloads = (comparison.get("latency") or {}).get("workloads", [])
    return any(t["metric"] == metric for w in workloads for t in w["tables"])


def test_a_pages_view_data_gives_back_each_sides_points(default_site: Path, table: PointTable) -> None:
    """Every point of each side of every page whose sides read total tok/s, on every workload."""
    checked = medians = 0
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
                if latency_view(comparison, "tpot") and "tpot_median" not in names:
                    names.append("tpot_median")  # every one held by `tpot`
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
                medians += len(points) if "tpot_median" in names else 0
    assert checked > 1000 and medians > 1000


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


def test_the_page_engine_decodes_a_pages_view_as_the_rule_does(default_site: Path) -> None:
    """engine.js decodePoints on each side's points of a page's view: the interactivity and the
    median TPOT (each written once) this file's decoder reads, which the test above holds to the
    point table."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    view = page_data(default_site / PAGE / "index.html")["view"]
    script = (
        f"const E = require({json.dumps(str(ENGINE))});"
        "const v = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "const out = {}; Object.keys(v.points).forEach(s => { out[s] = v.points[s].map(E.decodePoints); });"
        "process.stdout.write(JSON.stringify(out));"
    )
    done = subprocess.run(
        [node, "-e", script], input=json.dumps(view), capture_output=True, text=True, check=True, timeout=60
    )
    found = json.loads(done.stdout)
    for sequence, sides in view["points"].items():
        for columns, by_engine in zip(sides, found[sequence], strict=True):
            points = decoded(columns, {})
            assert by_engine["interactivity"] == [p["interactivity"] for p in points]
            assert by_engine["tpot_median"] == [p["tpot_median"] for p in points]
            assert "tpot" not in by_engine


def test_a_median_tpot_is_written_once_wherever_tpot_cannot_hold_it() -> None:
    """Three points: interactivity exactly 1 / its median TPOT (`tpot` holds it), a stated
    interactivity beside a median TPOT (only `tpot_median` can hold that TPOT), and a median TPOT
    not given; decoded, each point's median TPOT is its own. With every one held by `tpot`, the
    column is left out."""
    rows = [
        point(1 / 0.02, 1000.0) | {"tpot_median": 0.02},
        point(45.0, 900.0) | {"tpot_median": 0.025},
        point(30.0, 800.0),
    ]
    found = point_table(rows)
    columns = point_columns(found, {"tpot_median": "tpot_median"}, {}, Deployments())
    assert columns["tpot"] == [0.02, None, None]
    assert columns["tpot_median"] == [None, 0.025, None]
    assert [p["tpot_median"] for p in decoded(columns, {})] == [0.02, 0.025, None]
    assert [p["interactivity"] for p in decoded(columns, {})] == [1 / 0.02, 45.0, 30.0]
    exact = point_columns(point_table(rows[:1]), {"tpot_median": "tpot_median"}, {}, Deployments())
    assert "tpot_median" not in exact and [p["tpot_median"] for p in decoded(exact, {})] == [0.02]
