"""`rendered_once`: a template macro's output for an object kept and reused (render.RenderedOnce),
only for a macro that reads nothing but its argument, and escaped exactly as Jinja escapes it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Environment
from markupsafe import escape

from site_builder.render.environment import environment

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


@dataclass(frozen=True)
class Item:
    name: str


def _env_counting() -> tuple[Environment, list[str]]:
    env = environment([TEMPLATES])
    seen: list[str] = []

    def counted(value: str) -> str:
        seen.append(value)
        return value

    env.filters["counted"] = counted
    return env, seen


PURE = (
    "{% macro cell(k) %}<td>{{ k.name | counted }}</td>{% endmacro %}"
    "{% for k in items %}{{ rendered_once(cell, k) }}{% endfor %}"
)


def test_a_macro_reading_only_its_argument_is_rendered_once_an_object() -> None:
    env, seen = _env_counting()
    a, b = Item("<a>"), Item('x & "y"')
    template = env.from_string(PURE)
    first = template.render(items=[a, b, a])
    second = template.render(items=[b, a])
    assert first == "<td>&lt;a&gt;</td><td>x &amp; &#34;y&#34;</td><td>&lt;a&gt;</td>"
    assert second == "<td>x &amp; &#34;y&#34;</td><td>&lt;a&gt;</td>"
    assert seen == ["<a>", 'x & "y"']  # each object's cell made once over both pages


def test_an_equal_but_different_object_gets_its_own_rendering() -> None:
    env, seen = _env_counting()
    template = env.from_string(PURE)
    template.render(items=[Item("a")])
    template.render(items=[Item("a")])
    assert seen == ["a", "a"]  # keyed by identity, never by value


def test_a_macro_reading_a_page_variable_is_rendered_every_time() -> None:
    env, seen = _env_counting()
    template = env.from_string(
        "{% macro cell(k) %}{{ k.name | counted }} on {{ page }}{% endmacro %}{{ rendered_once(cell, item) }}"
    )
    item = Item("n")
    assert template.render(item=item, page="one") == "n on one"
    assert template.render(item=item, page="two") == "n on two"
    assert seen == ["n", "n"]


def test_a_macro_calling_another_of_its_templates_macros_is_rendered_every_time() -> None:
    env, _ = _env_counting()
    template = env.from_string(
        "{% macro wrap(k) %}[{{ k.name }}{{ varargs | length }}]{% endmacro %}"
        "{% macro cell(k) %}{{ wrap(k) }}{{ page }}{% endmacro %}{{ rendered_once(cell, item) }}"
    )
    item = Item("n")
    assert template.render(item=item, page="1") == "[n0]1"
    assert template.render(item=item, page="2") == "[n0]2"


@given(st.text(max_size=40), st.text(max_size=40))
def test_a_kept_rendering_is_escaped_as_jinja_escapes_it(first: str, second: str) -> None:
    env, _ = _env_counting()
    once = env.from_string(PURE)
    inline = env.from_string("{% for k in items %}<td>{{ k.name | counted }}</td>{% endfor %}")
    items = [Item(first), Item(second), Item(first)]
    expected = "".join(f"<td>{escape(i.name)}</td>" for i in items)
    assert once.render(items=items) == inline.render(items=items) == expected
    assert once.render(items=items) == expected  # kept, the same text
