"""The pool (pool.py): points read in bulk are made only when read, and then exactly as the
per-record path makes them, whichever rows are read together and in whatever order; loading,
validating, planning and indexing make none; a side's selection makes its own rows only."""

from __future__ import annotations

import csv
import io
import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.loaders import bulk, load_results, native
from site_builder.plan import PlanFacts
from site_builder.points import BenchmarkPoint, DatasetInfo
from site_builder.pool import PointPool
from site_builder.problems import ProblemLog
from site_builder.select import PointIndex, select
from site_builder.validate import drop_duplicates
from tests.test_validate import newest_by_hand

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
COLUMNS = (*native.REQUIRED_COLUMNS, "median_tpot_ms", "p99_ttft_ms", "avg_power_w", "date", "note")


@st.composite
def rows(draw: st.DrawFn) -> list[dict[str, str]]:
    """Native CSV rows over a few configurations, some repeating a point (duplicates), some with
    power or a latency statistic and some without, a few with a cell the checks refuse."""
    found = []
    for _ in range(draw(st.integers(min_value=1, max_value=24))):
        found.append(
            {
                "model": draw(st.sampled_from(["dsr1", "gptoss"])),
                "hardware": draw(st.sampled_from(["h100", "b200"])),
                "framework": "sglang",
                "precision": draw(st.sampled_from(["fp8", "fp4"])),
                "isl": "1024",
                "osl": draw(st.sampled_from(["1024", "8192"])),
                "concurrency": str(draw(st.integers(min_value=1, max_value=4))),
                "throughput_per_gpu": repr(draw(st.floats(min_value=1, max_value=1e4))),
                "median_tpot_ms": draw(st.sampled_from(["10", "12.5", "7", "-1"])),
                "p99_ttft_ms": draw(st.sampled_from(["", "", "120.5", "x"])),
                "avg_power_w": draw(st.sampled_from(["", "", "700", "650.5"])),
                "date": draw(st.sampled_from(["", "2026-01-01", "2026-02-01"])),
                "note": draw(st.sampled_from(["", "a note"])),
            }
        )
    return found


def write_csv(folder: Path, name: str, table: list[dict[str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(table)
    (folder / name).write_text(out.getvalue())


def described(point: BenchmarkPoint) -> str:
    """Every field, and which fields pydantic holds as given, of the point and its parts."""
    parts = [sorted(m.model_fields_set) for m in point.__dict__.values() if hasattr(m, "model_fields_set")]
    return f"{point!r} {sorted(point.model_fields_set)} {parts}"


def load(folder: Path, monkeypatch: pytest.MonkeyPatch, in_bulk: bool) -> tuple[PointPool, list[str]]:
    with monkeypatch.context() as patch:
        if not in_bulk:
            patch.setattr(bulk, "native_points", lambda *_: None)
        result = load_results(folder, ProblemLog())
    return result.points, [str(p) for p in result.log.problems]


def made_rows(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rows of bulk-read files whose points get made from now on (in the order made)."""
    made: list[int] = []
    build = bulk.NativeRows._build

    def counting(self: bulk.NativeRows, rows: Sequence[int]) -> list[BenchmarkPoint]:
        made.extend(rows)
        return build(self, rows)

    monkeypatch.setattr(bulk.NativeRows, "_build", counting)
    return made


@SETTINGS
@given(rows(), rows(), st.randoms(use_true_random=False))
def test_points_made_on_demand_in_any_order_equal_those_read_one_at_a_time(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    first: list[dict[str, str]],
    second: list[dict[str, str]],
    shuffle: Any,
) -> None:
    folder = tmp_path_factory.mktemp("data")
    write_csv(folder, "a.csv", first)
    write_csv(folder, "b.csv", second)
    reference, reference_problems = load(folder, monkeypatch, in_bulk=False)
    pool, problems = load(folder, monkeypatch, in_bulk=True)
    assert problems == reference_problems
    # read in random pieces, in random order: each point as the per-record path makes it
    positions = list(range(len(pool)))
    shuffle.shuffle(positions)
    got: dict[int, BenchmarkPoint] = {}
    while positions:
        size = shuffle.randint(1, 5)
        piece, positions = positions[:size], positions[size:]
        got.update(zip(piece, pool.take(piece), strict=True))
    assert [described(got[i]) for i in range(len(pool))] == [described(p) for p in reference]
    # made once: reading again gives the same objects, and a file's rows share configurations
    assert all(a is b for a, b in zip(pool, (got[i] for i in range(len(pool))), strict=True))
    config_ids = {(p.provenance.source_file, p.config.model_dump_json()): id(p.config) for p in pool}
    assert all(
        config_ids[(p.provenance.source_file, p.config.model_dump_json())] == id(p.config) for p in pool
    )


@SETTINGS
@given(rows(), rows())
def test_duplicates_planning_and_selection_from_columns_equal_those_from_points(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    first: list[dict[str, str]],
    second: list[dict[str, str]],
) -> None:
    folder = tmp_path_factory.mktemp("data")
    write_csv(folder, "a.csv", first)
    write_csv(folder, "b.csv", second)
    pool, _ = load(folder, monkeypatch, in_bulk=True)
    made = made_rows(monkeypatch)
    log = ProblemLog()
    kept = drop_duplicates(pool, log)
    facts = PlanFacts.of(
        kept, {name: DatasetInfo(id=name, title=name, source=name) for name in kept.datasets}
    )
    index = PointIndex(kept)
    built_before_reading = len(made)
    # the rules restated on the points themselves
    points = list(pool)
    expected, dropped = newest_by_hand(points)
    assert [id(p) for p in kept] == [id(p) for p in expected]
    assert [(w.file, w.record) for w in log.warnings] == dropped
    workloads: dict[tuple[str, str, str, str], set[tuple[int, int]]] = {}
    for p in expected:
        c = p.config
        workloads.setdefault((c.model, c.hardware, c.precision, c.spec_method), set()).add((p.isl, p.osl))
    assert facts.workloads == workloads
    for filters in ({"model": "dsr1", "hardware": "h100"}, {"precision": "FP4"}, {"dataset": "a"}):
        assert [id(p) for p in index.select(filters)] == [id(p) for p in select(expected, filters)]
    # only the points of repeated keys were made before anything was read (to word the warning)
    assert built_before_reading <= 2 * len(dropped)


def test_loading_validating_planning_and_indexing_make_no_point_and_a_side_makes_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = [
        {
            "model": "dsr1",
            "hardware": "h100",
            "framework": "sglang",
            "precision": precision,
            "isl": "1024",
            "osl": "1024",
            "concurrency": str(concurrency),
            "throughput_per_gpu": str(100 * concurrency),
            "median_tpot_ms": "10",
        }
        for concurrency in (1, 2, 4)
        for precision in ("fp8", "fp4")
    ]  # rows 0, 2, 4 are fp8; 1, 3, 5 fp4
    write_csv(tmp_path / "data", "lab.csv", table)
    made = made_rows(monkeypatch)
    loaded = load_results(tmp_path / "data", ProblemLog())
    kept = drop_duplicates(loaded.points, ProblemLog())
    facts = PlanFacts.of(kept, loaded.datasets)
    index = PointIndex(kept)
    assert made == [] and len(kept) == 6
    assert facts.workloads == {
        ("dsr1", "h100", "fp4", "none"): {(1024, 1024)},
        ("dsr1", "h100", "fp8", "none"): {(1024, 1024)},
    }
    side = index.selection({"model": "dsr1", "hardware": "h100", "precision": "fp8"})
    assert made == [0, 2, 4]
    assert [(p.config.precision, p.concurrency, p.throughput_per_gpu) for p in side] == [
        ("fp8", 1, 100.0),
        ("fp8", 2, 200.0),
        ("fp8", 4, 400.0),
    ]
    assert [p.provenance.record for p in side] == ["line 2", "line 4", "line 6"]
    index.selection({"model": "dsr1", "hardware": "h100"})  # both precisions: the fp4 rows only are new
    assert made == [0, 2, 4, 1, 3, 5]


def test_a_pool_is_a_sequence_of_points_and_travels_to_a_spawned_worker(tmp_path: Path) -> None:
    table = [
        {
            "model": "dsr1",
            "hardware": "h100",
            "framework": "sglang",
            "precision": "fp8",
            "isl": "1024",
            "osl": "1024",
            "concurrency": str(concurrency),
            "throughput_per_gpu": str(concurrency * 10),
            "median_tpot_ms": "20",
            "avg_power_w": "700" if concurrency == 2 else "",
        }
        for concurrency in (1, 2, 3)
    ]
    write_csv(tmp_path / "data", "lab.csv", table)
    pool = load_results(tmp_path / "data", ProblemLog()).points
    assert len(pool) == 3 and pool[-1].concurrency == 3 and [p.concurrency for p in pool[1:]] == [2, 3]
    assert pool[1].power is not None and pool[1].power.avg_watts_per_gpu == 700.0 and pool[0].power is None
    assert pool[0].interactivity == 1000 / 20  # 1 / median TPOT in seconds
    with pytest.raises(IndexError):
        pool[3]
    copied = pickle.loads(pickle.dumps(pool))  # as spawned workers receive the inputs
    assert copied == pool and copied == list(pool) and PointPool.of([]) == []
