"""The explorer's constants for a side pooling several GPUs (assets/explore.js `view`, under
Node, on the default site's DeepSeek-R1 data file): a constant the pooled GPUs agree on applies,
one they differ in is left out, and the metrics needing it say why instead of a number
(docs/comparison-json.md, "Explorer data files")."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.test_point_columns import registered

ROOT = Path(__file__).resolve().parents[1]
EXPLORE = ROOT / "templates" / "assets" / "explore.js"
ENGINE = ROOT / "templates" / "assets" / "engine.js"


def explorer_cells(document: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """Per side its constants, and per metric each side's cell at the first target."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = (
        f"const X = require({json.dumps(str(EXPLORE))});"
        "const input = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "const v = X.view(input.data, input.state);"
        "const results = X.resultsAt(v, v.targets[0]);"
        "const cells = {};"
        "v.page.metrics.forEach((m) => { cells[m.key] = X.rowCells(m, results, v.page); });"
        "process.stdout.write(JSON.stringify({constants: v.sides.map((s) => s.constants), cells: cells}));"
    )
    done = subprocess.run(
        [node, "-e", script],
        input=json.dumps({"data": document, "state": state}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_a_side_pooling_gpus_whose_prices_differ_has_no_cost(default_site: Path) -> None:
    document = registered(default_site / "explore" / "data" / "dsr1.js", "dsr1")
    gpus = document["gpus"]
    # B200 and B300 share their all-in power, not their price
    assert gpus["b200"]["constants"]["watts_all_in"] == gpus["b300"]["constants"]["watts_all_in"]
    assert gpus["b200"]["constants"]["usd_per_gpu_hour"] != gpus["b300"]["constants"]["usd_per_gpu_hour"]
    state = {
        "model": "dsr1",
        "seq": "1k/1k",
        "sides": [
            {"hardware": ["b200", "b300"], "precision": ["fp8"]},
            {"hardware": ["b200"], "precision": ["fp8"]},
        ],
        "targets": None,
        "metric": "throughput",
        "basis": "median",
    }
    found = explorer_cells(document, state)
    pooled, alone = found["constants"]
    assert pooled == {"usd_per_gpu_hour": None, "watts_all_in": gpus["b200"]["constants"]["watts_all_in"]}
    assert alone == gpus["b200"]["constants"]
    cost = found["cells"]["cost"]
    assert cost[0]["text"] == "n/a"
    assert cost[0]["note"].startswith("cost needs one GPU per side: this side pools B200, B300")
    assert cost[1]["text"].startswith("$")
    assert not cost[0]["win"] and not cost[1]["win"]
    # the constant they agree on applies: tok/s per MW has a value on both sides
    assert all(cell["text"] not in ("n/a", "not measured") for cell in found["cells"]["per_mw"])
