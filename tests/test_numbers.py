from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_builder.formatting import (
    fixed,
    parse_sequence_label,
    round_half_up,
    round_half_up_int,
    sequence_label,
)


@pytest.mark.parametrize(
    ("value", "decimals", "expected"),
    [
        (0.5, 0, 1.0),
        (1.5, 0, 2.0),
        (2.5, 0, 3.0),
        (-2.5, 0, -3.0),
        (1.005, 2, 1.01),
        (0.3905, 3, 0.391),
        (54.5, 0, 55.0),
        (54.49, 0, 54.0),
    ],
)
def test_round_half_up(value: float, decimals: int, expected: float) -> None:
    assert round_half_up(value, decimals) == expected


def test_round_half_up_int_and_fixed() -> None:
    assert round_half_up_int(119.5) == 120
    assert fixed(1064.05, 1) == "1064.1"
    assert fixed(0.3865, 3) == "0.387"
    assert fixed(401520.4, 0) == "401520"


def test_fixed_rounds_the_shown_digits_half_up() -> None:
    """Ties in the repr round up although the binary value lies below them (2.675 is stored as
    2.67499999…, which plain formatting rounds down); short reprs are padded."""
    assert [fixed(2.675, 2), fixed(0.125, 2), fixed(-2.5, 0), fixed(1.005, 2)] == [
        "2.68",
        "0.13",
        "-3",
        "1.01",
    ]
    assert [fixed(3.0, 0), fixed(3.0, 2), fixed(42, 1), fixed(-0.0, 1)] == ["3", "3.00", "42.0", "-0.0"]
    assert [fixed(0.1249, 2), fixed(1e-7, 3), fixed(1e16, 0)] == ["0.12", "0.000", "10000000000000000"]
    assert [fixed(0.0, 7), fixed(1234.5, -2)] == ["0E-7", "1.2E+3"]  # as Decimal writes them


@given(
    st.one_of(
        st.floats(min_value=-1e15, max_value=1e15),
        st.integers(-(10**9), 10**9),
        st.decimals(min_value=-10000, max_value=10000, places=4).map(float),  # many exact ties
    ),
    st.integers(-3, 10),
)
def test_fixed_equals_decimal_half_up_of_the_repr(value: float, decimals: int) -> None:
    expected = str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))
    assert fixed(value, decimals) == expected


def test_round_rejects_non_finite() -> None:
    with pytest.raises(ValueError):
        round_half_up(float("nan"))


def test_sequence_labels() -> None:
    assert sequence_label(1024, 8192) == "1k/8k"
    assert sequence_label(1000, 1024) == "1000/1k"
    assert parse_sequence_label("8k/1k") == (8192, 1024)
    assert parse_sequence_label("1k8k") == (1024, 8192)
    assert parse_sequence_label("1024/1024") == (1024, 1024)
    with pytest.raises(ValueError):
        parse_sequence_label("long")


def test_grouped_separates_thousands_of_the_half_up_text() -> None:
    from site_builder.formatting import grouped

    assert [grouped(fixed(v, 1)) for v in (0.05, 999.95, 12345.25, -1234567.0)] == [
        "0.1",
        "1,000.0",
        "12,345.3",
        "-1,234,567.0",
    ]


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.floats(-1e6, 1e6)
)


@given(
    st.one_of(
        st.floats(min_value=-1e15, max_value=1e15),
        st.integers(-(10**9), 10**9),
        st.decimals(min_value=-10000, max_value=10000, places=4).map(float),
    ),
    st.integers(-3, 10),
)
def test_fixed_with_thousands_is_the_grouped_text(value: float, decimals: int) -> None:
    from site_builder.formatting import grouped

    assert fixed(value, decimals, thousands=True) == grouped(fixed(value, decimals))
