"""Markup written in Python for speed (render.side_values, filters_text, lacking) is byte for byte
what the plain template code it replaced writes, for every kind of cell and text that needs
escaping."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from site_builder.render import SideCell, environment, filters_text, lacking, side_values

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"

# The matched table's cell loop as the default theme wrote it in Jinja before side_values
PLAIN = """{% for cell in cells %}
<td>
{% for side in cell %}
<span class="side-value side-{{ side.side }}{% if side.win %} win{% endif %}{% if not side.measured %} not-measured{% endif %}"{% if side.note %} title="{{ side.note }}"{% endif %}><span class="side-label">{{ side.label }}:</span> <span class="value">{{ side.text }}</span>{% if side.win %} <span class="win-mark" aria-hidden="true">▲</span><span class="visually-hidden"> (better)</span>{% endif %}</span>
{% endfor %}
</td>
{% endfor %}
"""

texts = st.text(alphabet=st.sampled_from(list("ab1,.& <>\"'—▲")), max_size=12)
side_cells = st.builds(
    SideCell,
    label=texts,
    text=texts,
    note=texts,
    win=st.booleans(),
    value=st.none() | st.floats(allow_nan=False),
    measured=st.booleans(),
    side=st.sampled_from([0, 1]),
)


def _plain(cells: list[list[SideCell]]) -> str:
    return environment([TEMPLATES]).from_string(PLAIN).render(cells=cells).lstrip("\n")


def test_a_row_of_cells_is_what_the_template_loop_writes() -> None:
    win = SideCell("A <fp8>", "1,234.5", "", True, 1234.5, True, 0)
    lost = SideCell('B "x" & y', "n/a", "no cost for 'B'", False, None, True, 1)
    missing = SideCell("B", "not measured", "", False, None, False, 1)
    cells = [[win, lost], [win, missing]]
    written = side_values(cells)
    assert written == _plain(cells)
    assert 'title="no cost for &#39;B&#39;"' in written  # escaped as Jinja escapes
    assert written.count("</td>\n") == 2


@given(st.lists(st.lists(side_cells, min_size=1, max_size=2), max_size=4))
def test_any_cells_are_what_the_template_loop_writes(cells: list[list[SideCell]]) -> None:
    assert side_values(cells) == _plain(cells)


# The provenance's side heading as the default theme wrote it in Jinja before filters_text/lacking
PLAIN_FILTERS = (
    "{% for k, v in filters.items() %}{{ k }}={{ v | join(',') if v is not string and v is iterable else v }}"
    "{% if not loop.last %}, {% endif %}{% endfor %}"
)
PLAIN_LACKING = "{{ items | rejectattr('date') | list | length }}"

filter_values = texts | st.booleans() | st.lists(texts, max_size=3)


@given(st.dictionaries(texts, filter_values, max_size=5))
def test_filters_text_is_what_the_template_loop_writes(filters: dict[str, object]) -> None:
    plain = environment([TEMPLATES]).from_string(PLAIN_FILTERS).render(filters=filters)
    assert filters_text(filters) == plain


def test_filters_text_by_example() -> None:
    written = filters_text({"model": "m<1>", "dataset": ["a", "b&c"], "disagg": True})
    assert written == "model=m&lt;1&gt;, dataset=a,b&amp;c, disagg=True"


@dataclass(frozen=True)
class Dated:
    date: str | None


@given(st.lists(st.sampled_from([None, "", "2026-01-01"]).map(Dated), max_size=8))
def test_lacking_counts_what_rejectattr_counts(items: list[Dated]) -> None:
    plain = environment([TEMPLATES]).from_string(PLAIN_LACKING).render(items=items)
    assert str(lacking(items, "date")) == plain
    assert lacking(items, "date") == sum(1 for item in items if not item.date)
