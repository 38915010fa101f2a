"""Stubs and settings are parsed with libyaml's C loader where it is installed (files.py); the
strict pure-Python loader stays the judge: for any text both give the same document and lines,
or the same refusal, word for word."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder import files

pytestmark = pytest.mark.skipif(files._C_LOADER is None, reason="PyYAML without libyaml (no CSafeLoader)")

PIECES = st.sampled_from(
    [
        "kind: precision\n",
        "model: dsr1\n",
        "sides:\n",
        "  - {label: A, precision: fp4}\n",
        "  - label: B\n",
        "    precision: fp8\n",
        "targets: [1, 2.5]\n",
        "model: again\n",
        "a: &x 1\n",
        "b: *x\n",
        "note: 'quoted: text'\n",
        "n: 1e999\n",
        "n: " + "9" * 40 + "\n",
        "bad: [1, 2\n",
        "\t tab: 1\n",
        'x: "\\0"\n',
        "- - - - 1\n",
        "k:\n  - - - v\n",
        "v: yes\n",
        "date: 2026-01-02\n",
        "empty:\n",
        "? complex\n: key\n",
        "%TAG ! x\n",
        "---\n",
        "...\n",
    ]
)


def _outcome(text: str, c_loader: object) -> object:
    saved = files._C_LOADER
    files._C_LOADER = c_loader  # type: ignore[assignment]
    try:
        return files.parse_yaml(text, 2)
    except files.Refused as exc:
        return ("refused", exc.reason, exc.where, exc.field_name)
    finally:
        files._C_LOADER = saved


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=8).map("".join))
def test_the_c_loader_agrees_with_the_strict_loader(text: str) -> None:
    assert _outcome(text, files._C_LOADER) == _outcome(text, None)


def test_a_plain_stub_is_read_by_the_c_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the strict loader was asked")

    monkeypatch.setattr(files, "_StrictLoader", refuse)
    document = files.parse_yaml("kind: precision\nsides:\n  - {label: A}\n", 2)
    assert document.data == {"kind": "precision", "sides": [{"label": "A"}]}
    assert document.lines[("sides", 0, "label")] == 4  # third line of text starting on line 2


def test_an_alias_is_still_refused_naming_its_line() -> None:
    with pytest.raises(files.Refused) as caught:
        files.parse_yaml("a: &x 1\nb: *x\n", 2)
    assert caught.value.where == "line 3" and "alias" in caught.value.reason
