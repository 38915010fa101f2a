"""Markup written in Python for speed (render.side_values, bracket_rows, filters_text, lacking) is byte for byte
what the plain template code it replaced writes, for every kind of cell and text that needs
escaping."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from site_builder.present.schema import SequenceResult
from site_builder.present.tables import SideCell
from site_builder.render.environment import bracket_rows, environment, filters_text, lacking, side_values

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


# The provenance's bracket table rows as the default theme wrote them in Jinja before bracket_rows
PLAIN_BRACKETS = """{% macro bracket_cells(k) -%}
<td class="configuration">{{ k.configuration }}</td><td>{{ k.concurrency }}</td><td>{{ k.interactivity | fixed(1) }}</td><td>{{ k.throughput_per_gpu | fixed(1) }}</td><td>{{ k.date or 'date not recorded' }}</td><td class="source">{{ k.source_file }}, {{ k.record }}{% if k.client %} ({{ k.client }}){% endif %}{% if k.run_url | safe_url %}<br><code class="url">{{ k.run_url | safe_url }}</code>{% endif %}</td>
{%- endmacro %}
{% for target in s.results %}
{% for m in target.sides %}
{% set side_label = s.sides[loop.index0].label %}
{% if m.measured %}
{% for k in m.brackets %}
<tr><td>{{ target.interactivity | fixed(0) }}</td><td>{{ side_label }}</td>{{ bracket_cells(k) }}</tr>
{% endfor %}
{% else %}
<tr><td>{{ target.interactivity | fixed(0) }}</td><td>{{ side_label }}</td><td colspan="6" class="reason">{{ m.reason }}</td></tr>
{% endif %}
{% endfor %}
{% endfor %}
"""


@dataclass(frozen=True)
class Point:
    """What bracket_rows reads of a comparison_json.PointSummary."""

    configuration: str
    concurrency: int
    interactivity: float
    throughput_per_gpu: float
    date: str | None
    source_file: str
    record: str
    client: str | None
    run_url: str | None


@dataclass(frozen=True)
class AtTarget:
    measured: bool
    reason: str | None
    brackets: list[Point]


@dataclass(frozen=True)
class Target:
    interactivity: float
    sides: list[AtTarget]


@dataclass(frozen=True)
class Side:
    label: str


@dataclass(frozen=True)
class Sequence:
    sides: list[Side]
    results: list[Target]


def _rows(sequence: Sequence) -> str:
    return bracket_rows(cast(SequenceResult, sequence))


numbers = st.floats(min_value=0, max_value=1e6, allow_nan=False) | st.sampled_from([0.05, 2.5, 12.25, 1e-7])
points = st.builds(
    Point,
    configuration=texts,
    concurrency=st.integers(min_value=1, max_value=4096),
    interactivity=numbers,
    throughput_per_gpu=numbers,
    date=st.none() | texts,
    source_file=texts,
    record=texts,
    client=st.none() | texts,
    run_url=st.sampled_from([None, "", "https://ci.example/run?a=1&b=<2>", "javascript:alert(1)", "http:/x"]),
)
sides_at_target = st.builds(
    AtTarget,
    measured=st.just(True),
    reason=st.none(),
    brackets=st.lists(points, max_size=2),
) | st.builds(AtTarget, measured=st.just(False), reason=texts, brackets=st.just([]))
sequences = st.builds(
    Sequence,
    sides=st.tuples(texts, texts).map(lambda labels: [Side(label) for label in labels]),
    results=st.lists(
        st.builds(Target, interactivity=numbers, sides=st.lists(sides_at_target, min_size=2, max_size=2)),
        max_size=3,
    ),
)


def _plain_brackets(sequence: Sequence) -> str:
    return environment([TEMPLATES]).from_string(PLAIN_BRACKETS).render(s=sequence).lstrip("\n")


@given(sequences)
def test_bracket_rows_are_what_the_template_loop_writes(sequence: Sequence) -> None:
    assert _rows(sequence) == _plain_brackets(sequence)


def test_bracket_rows_by_example() -> None:
    point = Point(
        configuration="sglang TP8 <fp8>",
        concurrency=64,
        interactivity=41.25,
        throughput_per_gpu=1234.55,
        date=None,
        source_file="runs/a&b.json",
        record="row 3",
        client="bench 'x'",
        run_url="https://ci.example/run?a=1&b=2",
    )
    measured = AtTarget(measured=True, reason=None, brackets=[point, point])
    missing = AtTarget(measured=False, reason="below B's range", brackets=[])
    sequence = Sequence(
        sides=[Side("A"), Side("B")],
        results=[Target(interactivity=42.5, sides=[measured, missing])],
    )
    cells = (
        '<td class="configuration">sglang TP8 &lt;fp8&gt;</td><td>64</td><td>41.3</td><td>1234.6</td>'
        '<td>date not recorded</td><td class="source">runs/a&amp;b.json, row 3 (bench &#39;x&#39;)'
        '<br><code class="url">https://ci.example/run?a=1&amp;b=2</code></td>'
    )
    row = "<tr><td>43</td><td>A</td>" + cells + "</tr>\n"  # 42.5 rounds half up
    reason = '<tr><td>43</td><td>B</td><td colspan="6" class="reason">below B&#39;s range</td></tr>\n'
    assert _rows(sequence) == row + row + reason
    assert _rows(sequence) == _plain_brackets(sequence)  # its cells again, kept from the first


def test_filters_text_remembers_a_flag_apart_from_an_equal_number() -> None:
    assert filters_text({"disagg": True}) == "disagg=True"
    assert filters_text({"disagg": 1}) == "disagg=1"  # True == 1, yet its own text
    assert filters_text({"x": Markup("<b>")}) == "x=<b>"  # already safe: as Jinja leaves it
    assert filters_text({"x": "<b>"}) == "x=&lt;b&gt;"
