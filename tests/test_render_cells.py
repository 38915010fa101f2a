"""Table markup written in Python for speed (render.side_values) is byte for byte what the plain
template loop it replaced writes, for every kind of cell and text that needs escaping."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from site_builder.render import SideCell, environment, side_values

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
