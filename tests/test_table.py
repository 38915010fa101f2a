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
