"""The one 'did you mean' rule: a word a typing slip or two away gets the name it was meant to
be; a word far from every name gets nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from site_builder.problems import suggest
from site_builder.spelling import closest, slips_between

NAMES = ["precision", "hardware", "framework", "spec_method", "concurrency", "build", "serve"]


def test_slips_by_hand() -> None:
    assert slips_between("precison", "precision") == 1  # a letter left out
    assert slips_between("biuld", "build") == 1  # neighbours swapped
    assert slips_between("hardwear", "hardware") == 2
    assert slips_between("", "abc") == 3 and slips_between("abc", "abc") == 0


def test_close_and_far_words() -> None:
    assert closest("precison", NAMES) == "precision"
    assert closest("bild", NAMES) == "build"
    assert closest("servce", NAMES) == "serve"
    assert closest("gpu", NAMES) is None  # nothing is close: no guess
    assert suggest("framwork", NAMES) == " (did you mean 'framework'?)"
    assert suggest("zzz", NAMES) == ""


@given(st.sampled_from(NAMES), st.integers(min_value=0, max_value=20), st.sampled_from("abcxyz_"))
def test_one_slip_always_finds_the_name(name: str, at: int, letter: str) -> None:
    """One letter changed, left out or added anywhere in a name: that name (or one as close) is
    suggested, never nothing."""
    at %= len(name)
    for typed in (
        name[:at] + letter + name[at + 1 :],
        name[:at] + name[at + 1 :],
        name[:at] + letter + name[at:],
    ):
        if typed in NAMES or not typed:
            continue
        found = closest(typed, NAMES)
        assert found is not None and slips_between(typed, found) <= slips_between(typed, name) == 1
