"""The point table: one filter rule over whole columns, selections as rows of the whole table."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.filters import accepts
from site_builder.read.table import PointTable
from tests.factories import point

ROWS = [
    point(10, 100, framework="sglang", precision="FP8"),
    point(20, 90, framework="vllm", precision="fp4", spec_method="mtp"),
    point(30, 80, framework="trt", precision="fp4", gpu_count=None),
    {**point(40, 70, framework="SGLang", precision="fp8"), "disagg": True, "dataset": "other"},
]


def records(table: PointTable) -> list[tuple[float, str]]:
    return [
        (r["interactivity"], r["framework"])
        for r in table.records(range(len(table)), ["interactivity", "framework"])
    ]


def test_text_filters_ignore_case_and_a_list_means_any_of() -> None:
    table = PointTable.from_records(ROWS)
    assert records(table.select({"framework": "sglang"})) == [(10.0, "sglang"), (40.0, "SGLang")]
    assert records(table.select({"precision": "fp8", "framework": ["VLLM", "sglang"]})) == [
        (10.0, "sglang"),
        (40.0, "SGLang"),
    ]
    assert len(table.select({"precision": ["fp4"], "spec_method": "mtp"})) == 1
    assert len(table.select({"dataset": "OTHER"})) == 1


def test_a_flag_is_compared_exactly_and_a_missing_value_never_matches() -> None:
    table = PointTable.from_records(ROWS)
    assert records(table.select({"disagg": True})) == [(40.0, "SGLang")]
    assert len(table.select({"disagg": False})) == 3
    assert len(table.select({"framework": "none-such"})) == 0


def test_a_selection_of_a_selection_keeps_table_order_and_the_rows_values() -> None:
    table = PointTable.from_records(ROWS)
    fp4 = table.select({"precision": "fp4"})
    assert records(fp4.rows([1, 0])) == [(30.0, "trt"), (20.0, "vllm")]
    row = fp4.records([1], ["gpu_count", "users_per_gpu", "configuration", "date"])[0]
    # a missing GPU count gives no per-GPU concurrency, and the configuration's label says so
    assert row == {
        "gpu_count": None,
        "users_per_gpu": None,
        "configuration": "trt TP8 (agg)",
        "date": "2026-01-01",
    }
    assert fp4.records([0], ["users_per_gpu", "configuration"])[0] == {
        "users_per_gpu": 1.0,
        "configuration": "vllm TP8 (agg, MTP, 8 GPUs)",
    }


def test_equal_configurations_share_a_number_whatever_their_points() -> None:
    table = PointTable.from_records(
        [point(10, 1, 4), point(20, 2, 8), point(30, 3, 8, tp=4), point(40, 4, 16)]
    )
    ids = table.column("config_id").tolist()
    assert ids[0] == ids[1] == ids[3] != ids[2]


VALUES = st.sampled_from(["sglang", "SGLang", "vllm", "trt", "Trt"])
FILTER = st.one_of(VALUES, st.lists(VALUES, min_size=1, max_size=3))


@settings(max_examples=60, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=12), FILTER)
def test_a_selection_is_every_row_the_filter_rule_accepts(
    frameworks: list[str], wanted: str | list[str]
) -> None:
    table = PointTable.from_records([point(10 + i, 100, framework=f) for i, f in enumerate(frameworks)])
    expected = [i for i, f in enumerate(frameworks) if accepts(f, wanted)]
    assert table.select({"framework": wanted}).column("interactivity").tolist() == [
        10.0 + i for i in expected
    ]
    assert not math.isnan(table.column("users_per_gpu")[0])


def test_a_value_derived_per_row_is_made_once_a_row_and_read_in_each_selections_order() -> None:
    """`per_row`: what a later stage derives from each point (points.csv's cells) is made once
    a row of the table, when a selection first asks for it, and each selection reads its own
    rows' values, in its own order."""
    table = PointTable.from_records(ROWS)
    calls: list[int] = []

    def label(rows: PointTable) -> list[str]:
        calls.append(len(rows))
        return [f"{r['framework']}@{r['interactivity']:g}" for r in rows.records()]

    fp8 = table.select({"precision": "fp8"})
    backwards = table.rows([3, 1, 0])
    assert fp8.per_row("label", label) == ["sglang@10", "SGLang@40"]
    assert backwards.per_row("label", label) == ["SGLang@40", "vllm@20", "sglang@10"]
    assert table.per_row("label", label) == ["sglang@10", "vllm@20", "trt@30", "SGLang@40"]
    assert calls == [2, 1, 1]  # the two fp8 rows, then vllm's, then trt's: each row once
    other = PointTable.from_records(ROWS[:2])  # another table derives its own
    assert other.per_row("label", label) == ["sglang@10", "vllm@20"] and calls == [2, 1, 1, 2]
