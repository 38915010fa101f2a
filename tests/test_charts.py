"""charts.py: what the page's chart script receives. Markers carry 6 significant digits."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from site_builder.present.charts import MARKER_DIGITS, StringTable, marker_value


def test_marker_values_keep_six_significant_digits() -> None:
    assert marker_value(16.04175990939614) == 16.0418
    assert marker_value(2144.257) == 2144.26
    assert marker_value(0.000123456789) == 0.000123457
    assert marker_value(256) == 256 and isinstance(marker_value(256), int)  # counts stay exact
    assert marker_value(None) is None


@given(st.floats(min_value=1e-6, max_value=1e9, allow_nan=False))
def test_a_marker_is_within_half_a_unit_of_its_sixth_digit(value: float) -> None:
    shown = marker_value(value)
    assert isinstance(shown, float | int)
    unit = 10 ** (math.floor(math.log10(value)) - MARKER_DIGITS + 1)
    assert abs(shown - value) <= unit / 2 * (1 + 1e-9)


def test_a_whole_marker_is_written_as_an_integer() -> None:
    assert marker_value(2144.0) == 2144 and isinstance(marker_value(2144.0), int)
    assert marker_value(1e16) == 1e16 and isinstance(marker_value(1e16), float)  # beyond exact integers


@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "é"])), max_size=12), st.data())
def test_string_table_indices_are_index_of_each_text(texts: list[str | None], data: st.DataObject) -> None:
    """A side's texts indexed in one pass: the indices and the table's order are those of
    indexing each text in turn, also on a table that already holds some texts."""
    before = data.draw(st.lists(st.sampled_from(["b", "z"]), max_size=2))
    one, many = StringTable(), StringTable()
    for text in before:
        one.index(text), many.index(text)
    assert many.indices(texts) == [one.index(t) for t in texts]
    assert many.texts == one.texts
