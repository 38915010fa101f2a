"""Cross-point checks (validate.py) on the point table: duplicates keep the newest point (equal
configurations alike, a field not given equal to itself), an unknown GPU is named once, with the
first file and record that uses it; and the planning facts read off the kept table."""

from __future__ import annotations

import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.catalog import HardwareCatalog
from site_builder.plan import PlanFacts
from site_builder.problems import ProblemLog
from site_builder.read.provenance import DatasetInfo
from site_builder.read.table import PointTable
from site_builder.validate import drop_duplicates, unknown_hardware

Row = tuple[str, int | None, int, str | None, str]  # GPU, TP, concurrency, date, file


def point(
    gpu: str, tp: int | None, concurrency: int, date: str | None, file: str, line: int
) -> dict[str, Any]:
    return {
        "model": "dsr1",
        "hardware": gpu,
        "framework": "vllm",
        "precision": "fp8" if concurrency < 8 else "fp4",
        "tp": tp,
        "isl": 1024,
        "osl": 1024,
        "concurrency": concurrency,
        "throughput_per_gpu": 100.0 + line,
        "interactivity": 50.0,
        "tpot_median": 0.02,
        "dataset": "d",
        "source_file": file,
        "record": f"line {line}",
        "date": date,
    }


def newest_by_hand(points: list[dict[str, Any]]) -> tuple[list[str], list[tuple[str, str]]]:
    """The rule restated: one point per (configuration, isl, osl, concurrency); a later point
    replaces an earlier one unless its date is older; each loser is named (file, record). The
    kept points by record, in the order their keys first appear."""
    kept: dict[tuple[object, ...], dict[str, Any]] = {}
    dropped: list[tuple[str, str]] = []
    for p in points:
        key = (p["hardware"], p["precision"], p["tp"], p["isl"], p["osl"], p["concurrency"])
        if key not in kept:
            kept[key] = p
            continue
        old = kept[key]
        if (p["date"] or "") >= (old["date"] or ""):
            kept[key], loser = p, old
        else:
            loser = p
        dropped.append((loser["source_file"], loser["record"]))
    return [p["record"] for p in kept.values()], dropped


ROWS = st.lists(
    st.tuples(
        st.sampled_from(["h100", "b200"]),
        st.sampled_from([8, None]),
        st.sampled_from([4, 8]),
        st.sampled_from([None, "2026-01-01", "2026-02-01"]),
        st.sampled_from(["a.csv", "b.csv"]),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(ROWS)
def test_duplicates_keep_the_newest_and_name_each_dropped_point(rows: list[Row]) -> None:
    points = [point(*row, line=n) for n, row in enumerate(rows, 2)]
    log = ProblemLog()
    kept = drop_duplicates(PointTable.from_records(points), log)
    expected, dropped = newest_by_hand(points)
    assert kept.values("record") == expected and len(kept) == len(expected)
    assert [(w.file, w.record) for w in log.warnings] == dropped
    # the planning facts: each (model, GPU, precision, method)'s workloads, from the kept points
    facts = PlanFacts.of(kept, {"d": DatasetInfo(id="d", title="d", source="s")})
    assert facts.workloads == {
        ("dsr1", gpu, precision, "none"): {(1024, 1024)}
        for gpu, precision in {(p["hardware"], p["precision"]) for p in points}
    }
    assert facts.sources == {("dsr1", gpu): {"d"} for gpu in {p["hardware"] for p in points}}


def test_a_duplicate_is_worded_with_its_configuration_and_the_point_kept() -> None:
    log = ProblemLog()
    table = PointTable.from_records(
        [point("h100", 8, 4, "2026-02-01", "a.csv", 2), point("h100", 8, 4, "2026-01-01", "b.csv", 7)]
    )
    assert drop_duplicates(table, log).values("record") == ["line 2"]
    (warning,) = log.warnings
    assert (warning.file, warning.record) == ("b.csv", "line 7")
    assert warning.reason == (
        "duplicate point (vllm TP8 (agg), 1k/1k, concurrency 4); kept the newer one from a.csv "
        "line 2 (date 2026-02-01)"
    )


def test_published_values_plan_no_page() -> None:
    table = PointTable.from_records([point("h100", 8, 4, None, "a.csv", 2)])
    published = DatasetInfo(id="d", title="d", source="s", published_values=True)
    assert PlanFacts.of(table, {"d": published}).workloads == {}


def test_an_unknown_gpu_is_named_once_with_its_first_file() -> None:
    table = PointTable.from_records(
        [
            point("b200", None, 4, None, "a.csv", 2),
            point("b200", 8, 8, None, "b.csv", 3),
            point("b200", 8, 4, None, "b.csv", 4),
            point("h100", 8, 4, None, "a.csv", 5),
        ]
    )
    log = ProblemLog()
    unknown_hardware(table, HardwareCatalog(source="test", as_of="2026-01-01", gpus={}), log)
    assert [(w.file, w.record, w.field) for w in log.warnings] == [
        ("a.csv", "line 2", "hardware"),
        ("a.csv", "line 5", "hardware"),
    ]
    b200, h100 = (w.reason for w in log.warnings)
    assert b200.startswith("GPU 'b200' is not in the hardware catalog (and 1 other file)")
    assert h100.startswith("GPU 'h100' is not in the hardware catalog:")


def test_a_table_travels_to_a_spawned_worker() -> None:
    """A build under spawn pickles the loaded inputs, the table among them, once per worker."""
    table = PointTable.from_records([point("h100", None, c, None, "a.csv", c) for c in (1, 2, 3)])
    copied = pickle.loads(pickle.dumps(table))
    assert copied.frame.equals(table.frame) and copied.records() == table.records()
