"""Cross-point checks (validate.py): duplicates keep the newest point whichever objects hold the
configurations (validate.py numbers each configuration object once), and an unknown GPU is
named once, with the first file and record that uses it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.catalog import HardwareCatalog
from site_builder.points import BenchmarkPoint, Configuration, LatencyStats, Provenance
from site_builder.problems import ProblemLog
from site_builder.validate import drop_duplicates, unknown_hardware

SHARED = {
    gpu: Configuration(model="dsr1", hardware=gpu, framework="vllm", precision="fp8", tp=8)
    for gpu in ("h100", "b200")
}


def point(gpu: str, shared: bool, concurrency: int, date: str | None, file: str, line: int) -> BenchmarkPoint:
    config = (
        SHARED[gpu]
        if shared
        else Configuration(model="dsr1", hardware=gpu, framework="vllm", precision="fp8", tp=8)
    )
    return BenchmarkPoint(
        config=config,
        isl=1024,
        osl=1024,
        concurrency=concurrency,
        throughput_per_gpu=100.0 + line,
        interactivity=50.0,
        tpot=LatencyStats(median=0.02),
        provenance=Provenance(dataset="d", source_file=file, record=f"line {line}", date=date),
    )


def newest_by_hand(points: list[BenchmarkPoint]) -> tuple[list[BenchmarkPoint], list[tuple[str, str]]]:
    """The rule restated: one point per (configuration, isl, osl, concurrency); a later point
    replaces an earlier one unless its date is older; each loser is named (file, record)."""
    kept: dict[tuple[object, ...], BenchmarkPoint] = {}
    dropped: list[tuple[str, str]] = []
    for p in points:
        key = (p.config.model_dump_json(), p.isl, p.osl, p.concurrency)
        if key not in kept:
            kept[key] = p
            continue
        old = kept[key]
        if (p.provenance.date or "") >= (old.provenance.date or ""):
            kept[key], loser = p, old
        else:
            loser = p
        dropped.append((loser.provenance.source_file, loser.provenance.record))
    return list(kept.values()), dropped


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["h100", "b200"]),
            st.booleans(),
            st.sampled_from([4, 8]),
            st.sampled_from([None, "2026-01-01", "2026-02-01"]),
            st.sampled_from(["a.csv", "b.csv"]),
        ),
        max_size=12,
    )
)
def test_duplicates_keep_the_newest_whichever_object_holds_the_configuration(
    rows: list[tuple[str, bool, int, str | None, str]],
) -> None:
    points = [point(*row, line=n) for n, row in enumerate(rows, 2)]
    log = ProblemLog()
    kept = drop_duplicates(points, log)
    expected, dropped = newest_by_hand(points)
    assert [id(p) for p in kept] == [id(p) for p in expected]
    assert [(w.file, w.record) for w in log.warnings] == dropped


def test_an_unknown_gpu_is_named_once_with_its_first_file() -> None:
    points = [
        point("b200", False, 4, None, "a.csv", 2),
        point("b200", True, 8, None, "b.csv", 3),
        point("b200", True, 4, None, "b.csv", 4),
        point("h100", True, 4, None, "a.csv", 5),
    ]
    log = ProblemLog()
    unknown_hardware(points, HardwareCatalog(source="test", as_of="2026-01-01", gpus={}), log)
    assert [(w.file, w.record, w.field) for w in log.warnings] == [
        ("a.csv", "line 2", "hardware"),
        ("a.csv", "line 5", "hardware"),
    ]
    b200, h100 = (w.reason for w in log.warnings)
    assert b200.startswith("GPU 'b200' is not in the hardware catalog (and 1 other file)")
    assert h100.startswith("GPU 'h100' is not in the hardware catalog:")
