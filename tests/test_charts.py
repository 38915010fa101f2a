"""charts.py: what the page's chart script receives. Markers carry 6 significant digits."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from site_builder.charts import MARKER_DIGITS, marker_value


def test_marker_values_keep_six_significant_digits() -> None:
    assert marker_value(16.04175990939614) == 16.0418
    assert marker_value(2144.257) == 2144.26
    assert marker_value(0.000123456789) == 0.000123457
    assert marker_value(256) == 256 and isinstance(marker_value(256), int)  # counts stay exact
    assert marker_value(None) is None


@given(st.floats(min_value=1e-6, max_value=1e9, allow_nan=False))
def test_a_marker_is_within_half_a_unit_of_its_sixth_digit(value: float) -> None:
    shown = marker_value(value)
    assert isinstance(shown, float)
    unit = 10 ** (math.floor(math.log10(value)) - MARKER_DIGITS + 1)
    assert abs(shown - value) <= unit / 2 * (1 + 1e-9)
