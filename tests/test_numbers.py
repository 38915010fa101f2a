from __future__ import annotations

import pytest

from site_builder.numbers import fixed, parse_sequence_label, round_half_up, round_half_up_int, sequence_label


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
    from site_builder.numbers import grouped

    assert [grouped(fixed(v, 1)) for v in (0.05, 999.95, 12345.25, -1234567.0)] == [
        "0.1",
        "1,000.0",
        "12,345.3",
        "-1,234,567.0",
    ]
