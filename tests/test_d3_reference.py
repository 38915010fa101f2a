"""Our spline is the curve d3-shape's curveMonotoneX draws (the real package, run by Node)."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from site_builder.engine.spline import MonotoneSpline
from tests.test_spline import bezier_y_at

JS = Path(__file__).parent / "js"
NODE = shutil.which("node")
ready = NODE is not None and (JS / "node_modules" / "d3-shape").is_dir()
if not ready and os.environ.get("CI"):
    raise RuntimeError("node and tests/js/node_modules are needed: the README's test command installs them")
pytestmark = pytest.mark.skipif(not ready, reason="node or d3-shape not installed (npm ci --prefix tests/js)")


def d3_paths(knot_sets: list[list[tuple[float, float]]]) -> list[list[list[Any]]]:
    assert NODE is not None
    result = subprocess.run(
        [NODE, str(JS / "monotone_x.mjs")],
        input=json.dumps(knot_sets),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    paths: list[list[list[Any]]] = json.loads(result.stdout)
    return paths


def knot_sets(count: int) -> list[list[tuple[float, float]]]:
    rng = random.Random(20261122)
    sets = []
    for i in range(count):
        n = 3 + i % 8
        xs = sorted(rng.sample(range(5, 400), n))
        if i % 3 == 0:  # frontier-like: falling throughput
            ys = sorted((rng.uniform(10, 20000) for _ in range(n)), reverse=True)
        else:  # anything, including sign changes and flats
            ys = [round(rng.uniform(-50, 50), 1) if i % 5 else float(rng.choice([3, 3, 7])) for _ in range(n)]
        sets.append([(float(x) + rng.random(), y) for x, y in zip(xs, ys, strict=True)])
    return sets


def test_equal_to_d3_curve_monotone_x() -> None:
    sets = knot_sets(200)
    compared = 0
    for knots, path in zip(sets, d3_paths(sets), strict=True):
        assert path[0][0] == "M" and all(c[0] == "C" for c in path[1:])
        segments = [
            (float(p[-2]), float(p[-1]), *(float(v) for v in c[1:])) for p, c in itertools.pairwise(path)
        ]
        spline = MonotoneSpline([x for x, _ in knots], [y for _, y in knots])
        lo, hi = knots[0][0], knots[-1][0]
        for k in range(101):
            x = lo + (hi - lo) * k / 100
            ours = spline.value(min(x, hi))
            assert ours is not None
            assert ours == pytest.approx(bezier_y_at(segments, min(x, hi)), rel=1e-9, abs=1e-9)
            compared += 1
    assert compared == 200 * 101


def test_two_knots_are_a_straight_line_in_d3_too() -> None:
    (path,) = d3_paths([[(10.0, 500.0), (30.0, 100.0)]])
    assert path == [["M", 10, 500], ["L", 30, 100]]
    assert MonotoneSpline([10.0, 30.0], [500.0, 100.0]).value(25.0) == pytest.approx(200.0)
