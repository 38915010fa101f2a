"""Cross-point checks (validate.py) on the point table: duplicates keep the newest point (equal
configurations alike, a field not given equal to itself), an unknown GPU is named once, with the
first file and record that uses it; and the planning facts read off the kept table."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.catalog import ConstantOverride, HardwareCatalog, load_hardware
from site_builder.plan import PlanFacts
from site_builder.problems import ProblemLog
from site_builder.read.provenance import DatasetInfo
from site_builder.read.table import PointTable
from site_builder.validate import drop_duplicates, implausible_configurations, unknown_hardware
from site_builder.workload import Workload

ROOT = Path(__file__).resolve().parents[1]

Row = tuple[str, int | None, int, str | None, str, str]  # GPU, TP, concurrency, date, file, dataset


def point(
    gpu: str, tp: int | None, concurrency: int, date: str | None, file: str, line: int, dataset: str = "d"
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
        "dataset": dataset,
        "source_file": file,
        "record": f"line {line}",
        "date": date,
    }


def newest_by_hand(points: list[dict[str, Any]]) -> tuple[list[str], list[tuple[str, str]]]:
    """The rule restated: one point per (dataset, configuration, isl, osl, concurrency); a later
    point replaces an earlier one unless its date is older. The kept points by record, in the
    order their keys first appear; and each pair of files (lost a point, kept it) once, in the
    order of the first point so lost."""
    kept: dict[tuple[object, ...], dict[str, Any]] = {}
    pairs: list[tuple[int, str, str]] = []  # (the later row of the two compared, lost, kept)
    for row, p in enumerate(points):
        key = (p["dataset"], p["hardware"], p["precision"], p["tp"], p["isl"], p["osl"], p["concurrency"])
        if key not in kept:
            kept[key] = p
            continue
        old = kept[key]
        if (p["date"] or "") >= (old["date"] or ""):
            kept[key], loser = p, old
        else:
            loser = p
        pairs.append((row, loser["source_file"], kept[key]["source_file"]))
    ordered = list(dict.fromkeys((lost, won) for _, lost, won in sorted(pairs)))
    return [p["record"] for p in kept.values()], ordered


ROWS = st.lists(
    st.tuples(
        st.sampled_from(["h100", "b200"]),
        st.sampled_from([8, None]),
        st.sampled_from([4, 8]),
        st.sampled_from([None, "2026-01-01", "2026-02-01"]),
        st.sampled_from(["a.csv", "b.csv"]),
        st.sampled_from(["d", "e"]),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(ROWS)
def test_duplicates_keep_the_newest_within_a_dataset_and_name_each_pair_of_files(rows: list[Row]) -> None:
    points = [point(*row[:5], line=n, dataset=row[5]) for n, row in enumerate(rows, 2)]
    log = ProblemLog()
    kept = drop_duplicates(PointTable.from_records(points), log)
    expected, pairs = newest_by_hand(points)
    assert kept.values("record") == expected and len(kept) == len(expected)
    assert [w.file for w in log.warnings] == [lost for lost, _ in pairs]
    assert [w.reason.split(" from ")[1].split(" ")[0] for w in log.warnings] == [won for _, won in pairs]
    # never across datasets: every dataset keeps every configuration it measured
    for dataset in {p["dataset"] for p in points}:
        own = {(p["hardware"], p["precision"], p["tp"]) for p in points if p["dataset"] == dataset}
        have = {(r["hardware"], r["precision"], r["tp"]) for r in kept.records() if r["dataset"] == dataset}
        assert have == own
    # the planning facts: each (model, GPU, precision, method)'s workloads, from the kept points
    facts = PlanFacts.of(kept, {d: DatasetInfo(id=d, title=d, source="s") for d in ("d", "e")})
    assert facts.workloads == {
        ("dsr1", gpu, precision, "none"): {Workload(1024, 1024)}
        for gpu, precision in {(p["hardware"], p["precision"]) for p in points}
    }


def test_a_duplicate_is_worded_with_its_configuration_the_file_kept_and_why() -> None:
    log = ProblemLog()
    table = PointTable.from_records(
        [point("h100", 8, 4, "2026-02-01", "a.csv", 2), point("h100", 8, 4, "2026-01-01", "b.csv", 7)]
    )
    assert drop_duplicates(table, log).values("record") == ["line 2"]
    (warning,) = log.warnings
    assert (warning.file, warning.record) == ("b.csv", "")
    assert warning.reason.startswith(
        "a duplicate point (dataset 'd', same configuration: vllm TP8 (agg), 1k/1k, concurrency 4); "
        "kept the one from a.csv (dated 2026-02-01, newer than 2026-01-01)."
    )


def test_duplicates_of_one_pair_of_files_are_one_warning_saying_load_order() -> None:
    log = ProblemLog()
    table = PointTable.from_records(
        [point("h100", 8, c, None, "a.csv", c) for c in (1, 2, 3)]
        + [point("h100", 8, c, None, "b.csv", 10 + c) for c in (1, 2, 3)]
    )
    assert drop_duplicates(table, log).values("record") == ["line 11", "line 12", "line 13"]
    (warning,) = log.warnings
    assert warning.file == "a.csv"
    assert warning.reason.startswith("3 duplicate points (dataset 'd', same configuration: ")
    assert "kept those from b.csv (neither dated: the later file in load order)" in warning.reason


def test_the_same_configuration_in_two_datasets_is_no_duplicate() -> None:
    log = ProblemLog()
    table = PointTable.from_records(
        [
            point("h100", 8, 4, "2026-02-01", "a.csv", 2, "inferencex"),
            point("h100", 8, 4, None, "b.csv", 2, "mine"),
        ]
    )
    assert len(drop_duplicates(table, log)) == 2 and not log.warnings


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


def test_implausible_configurations_are_named_once_per_folder_and_cause() -> None:
    catalog = load_hardware(ROOT / "data" / "hardware.yaml", ProblemLog())
    assert catalog is not None and catalog.gpus["h100"].gpus_per_node == 8
    rows = []
    for n, file in enumerate(("runs/a.json", "runs/b.json", "runs/c.json")):
        rows.append(point("h100", 8, 4, None, file, n) | {"gpu_count": 88})  # a 1-node run with 88 GPUs
    rows.append(point("h100", 3, 4, None, "other/d.json", 9) | {"gpu_count": 8})  # TP3 of 8 GPUs
    rows.append(point("h100", 8, 8, None, "other/e.json", 9) | {"gpu_count": 16, "multinode": True})  # fine
    log = ProblemLog()
    implausible_configurations(PointTable.from_records(rows), catalog, log)
    assert [(w.file, w.field) for w in log.warnings] == [
        ("runs/", "gpu_count"),
        ("other/d.json", "tp"),
    ]
    many, tp = (w.reason for w in log.warnings)
    assert many.startswith("implausible: 88 GPUs in a single-node run, but a H100 server holds 8")
    assert many.endswith(" (3 files: a.json, b.json, c.json)")
    assert tp.startswith("implausible: TP3 does not divide the 8 GPUs")


def test_no_unknown_gpu_warning_where_the_sites_constants_cover_it() -> None:
    table = PointTable.from_records([point("gaudi3", 8, 4, None, "a.csv", 2)])
    empty = HardwareCatalog(source="test", as_of="2026-01-01", gpus={})
    whole = {"gaudi3": ConstantOverride(watts_all_in=1500, usd_per_gpu_hour=1.2, source="our lab")}
    half = {"gaudi3": ConstantOverride(watts_all_in=1500, source="our lab")}
    for constants, warned in ((whole, 0), (half, 1), ({}, 1)):
        log = ProblemLog()
        unknown_hardware(table, empty, log, constants)
        assert len(log.warnings) == warned
