"""The Jinja environment a site is rendered with: the theme's search path under the input rule,
autoescaping, and the filters templates use. Every value a reader wrote (model names, labels,
stub bodies) is escaped or sanitised.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from types import CodeType
from typing import Any

import markdown
import nh3
from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    select_autoescape,
)
from jinja2.runtime import Macro
from markupsafe import Markup, escape

from site_builder.files import Refused, read_bytes_checked
from site_builder.formatting import fixed
from site_builder.memo import IdentityMemo
from site_builder.present.charts import script_json_text
from site_builder.present.schema import PointSummary, SequenceResult
from site_builder.present.tables import SideCell

SAFE_TAGS = {
    "p",
    "a",
    "em",
    "strong",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "h2",
    "h3",
    "h4",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "hr",
    "br",
}


def filters_text(filters: Mapping[str, Any]) -> Markup:
    """A side's filters as 'key=value, …' (a list's values joined by commas), escaped: the
    `filters_text` filter (a loop over a page's six sides' filters costs more in Jinja). A key
    with a string or flag recurs on every page, so its text is remembered (`_filter_text`)."""
    return Markup(
        ", ".join(
            [
                _filter_text(key, value) if type(value) in _REMEMBERED else _filter_words(key, value)
                for key, value in filters.items()
            ]
        )
    )


def _filter_words(key: str, value: Any) -> str:
    return f"{escape(key)}={escape(','.join(map(str, value)) if _listed(value) else value)}"


# The values a filter's text is remembered by: hashable, and equal only to their own kind's
# (typed: True and 1 are remembered apart)
_REMEMBERED = {str, bool}


_filter_text = lru_cache(maxsize=1024, typed=True)(_filter_words)


def _listed(value: Any) -> bool:
    """What Jinja's `is not string and is iterable` holds of a value: a list to join."""
    if isinstance(value, str):
        return False
    try:
        iter(value)
    except TypeError:
        return False
    return True


def lacking(items: Iterable[Any], attribute: str) -> int:
    """How many of the items have the attribute empty (the `lacking` filter: the frontier points
    without a recorded date), for `rejectattr(…) | list | length`."""
    return sum(1 for item in items if not getattr(item, attribute))


def safe_markdown(text: str) -> Markup:
    """Author Markdown to HTML: raw HTML is shown as text, links limited to safe schemes."""
    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(text)
    cleaned = nh3.clean(
        html, tags=SAFE_TAGS, url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer"
    )
    return Markup(cleaned)


def safe_url(value: str | None) -> str | None:
    """An outside link only if it is plain http(s); anything else is not linked."""
    if value and value.split(":", 1)[0].lower() in ("http", "https") and "://" in value:
        return value
    return None


def json_for_script(value: Any) -> Markup:
    """JSON safe inside <script>: no '</script>', no HTML comment openers."""
    text = script_json_text(value)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


# The win mark after the better side's value (the same words the table's hint explains)
WIN_MARK = ' <span class="win-mark" aria-hidden="true">▲</span><span class="visually-hidden"> (better)</span>'


def side_values(cells: Sequence[Sequence[SideCell]]) -> Markup:
    """A matched-table row's cells (the `side_values` filter): per target a <td> holding each
    side's value in its span. Written here, not looped in the template: a page has ≈ 270 such
    spans, and Jinja's attribute lookup and escaping per field cost more than the page's other
    markup. A theme may loop over `row.cells` (SideCell) itself instead."""
    parts = []
    for cell in cells:
        parts.append("<td>\n")
        for label, text, note, win, _, measured, side in cell:
            parts.append(_span_start(label, note, win, measured, side))
            # a value's text is most often a plain number, with nothing to escape (and new on
            # each page: remembering its escaped text would not help)
            parts.append(text if type(text) is str and _ESCAPED_CHARS.isdisjoint(text) else str(escape(text)))
            parts.append(_WON if win else _END)
        parts.append("</td>\n")
    return Markup("".join(parts))


@lru_cache(maxsize=1024)
def _span_start(label: str, note: str, win: bool, measured: bool, side: int) -> str:
    """A side's span up to its value, remembered: a page's labels, notes and wins recur."""
    classes = "side-value side-" + str(side) + (" win" if win else "")
    if not measured:
        classes += " not-measured"
    title = f' title="{_escaped(note)}"' if note else ""
    label_span = f'<span class="side-label">{_escaped(label)}:</span>'
    return f'<span class="{classes}"{title}>{label_span} <span class="value">'


_END = "</span></span>\n"


_WON = "</span>" + WIN_MARK + "</span>\n"


# What Jinja's escaping changes
_ESCAPED_CHARS = frozenset("&<>'\"")


@lru_cache(maxsize=4096)
def _escaped(text: str) -> str:
    """Text escaped as Jinja escapes it, remembered: a page's labels and most of its words recur
    in every cell."""
    return str(escape(text))


def bracket_rows(sequence: SequenceResult) -> Markup:
    """The provenance's bracket table rows for a sequence (the `bracket_rows` filter): per target
    and side, a row per frontier point bracketing the target, or one row saying why the side is
    not measured there. Written here, not looped in the template: a page has ≈ 36 such rows, and
    Jinja's loops, macro calls and escaping cost more than the rest of the section; a point's
    cells are the same on every page showing it, so made once a process."""
    labels = [_escaped(side.label) for side in sequence.sides]
    rows: list[str] = []
    for target in sequence.results:
        start = "<tr><td>" + _escaped(fixed(target.interactivity, 0)) + "</td><td>"
        for i, m in enumerate(target.sides):
            lead = start + labels[i] + "</td>"
            if m.measured:
                cells = [_bracket_cells(sequence.sides[i].frontier[k]) for k in m.brackets]
                rows.extend([lead + point + "</tr>\n" for point in cells])
            else:
                rows.append(lead + '<td colspan="6" class="reason">' + str(escape(m.reason)) + "</td></tr>\n")
    return Markup("".join(rows))


def _bracket_cells(k: PointSummary) -> str:
    """A bracketing point's cells: configuration, concurrency, interactivity, throughput, date,
    source (file, record, client, run address)."""
    url = safe_url(k.run_url)
    return (
        f'<td class="configuration">{_escaped(k.configuration)}</td><td>{k.concurrency}</td>'
        f"<td>{fixed(k.interactivity, 1)}</td><td>{fixed(k.throughput_per_gpu, 1)}</td>"
        f"<td>{_escaped(k.date) if k.date else 'date not recorded'}</td>"
        f'<td class="source">{_escaped(k.source_file)}, {escape(k.record)}'
        + (f" ({escape(k.client)})" if k.client else "")
        + (f'<br><code class="url">{escape(url)}</code>' if url else "")
        + "</td>"
    )


# A frontier point's bracket cells, once a process (a point brackets targets on several pages)
_BRACKET_CELLS: IdentityMemo[PointSummary, str] = IdentityMemo(4096)


def build_date() -> str | None:
    """Only from SOURCE_DATE_EPOCH: a build never reads the clock, so rebuilds are identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch or not epoch.isdigit():
        return None
    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%d")


class _ConfinedLoader(FileSystemLoader):
    """Jinja's file loader under the input rule: a template that is a symbolic link leaving its
    theme folder is refused, naming the link (inputs.py)."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        path = Path(filename)
        for folder in self.searchpath:
            if Path(folder) in path.parents:
                try:
                    read_bytes_checked(path, Path(folder))
                except Refused as exc:
                    raise TemplateError(f"{template}: {exc.reason}") from None
                break
        return source, filename, uptodate


class RenderedOnce:
    """`rendered_once(macro, obj)` in a template: the macro's output for an immutable object,
    rendered once a process and reused on later pages (a side's frontier points bracket targets
    on every page that shows the side). The markup stays in the template; only its output is
    kept. A macro that reads anything but its argument (a page's variable, the caller) is
    rendered every time, so a theme's macro can never show another page's text."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._memos: dict[CodeType, IdentityMemo[Any, Markup]] = {}

    def __call__(self, macro: Macro, obj: Any) -> Markup:
        code = macro._func.__code__
        memo = self._memos.get(code)
        if memo is None:
            if not _reads_only_arguments(code):
                return Markup(macro(obj))
            if len(self._memos) >= 64:  # templates recompiled by `serve` leave old code behind
                self._memos.clear()
            memo = self._memos[code] = IdentityMemo(self.limit)
        return memo.get(obj, lambda held: Markup(macro(held)))


# What a compiled Jinja macro may close over and still depend on its arguments alone: the
# environment and its helpers, and its filters and tests ('t_N'). A template's variables
# ('l_…'), the page's context, a caller: not these.
_MACRO_NEEDS = re.compile(r"t_\d+|environment|undefined|missing|concat|cond_expr_undefined")


def _reads_only_arguments(code: CodeType) -> bool:
    """Whether a compiled Jinja macro reads nothing from its template beyond its arguments."""
    return all(_MACRO_NEEDS.fullmatch(name) for name in code.co_freevars)


def environment(folders: Sequence[Path], compiled: Path | None = None) -> Environment:
    """Jinja over the theme's search path: the project's own templates first, then the default;
    with `compiled`, a folder where Jinja keeps each template's compiled code, under a checksum
    of its source (compiling the theme is ≈ 0.3 s a process; loading it from there ≈ 0.02 s).
    A template is loaded once an environment and kept, never checked again (no modification time
    asked for, no least-recently-used bookkeeping): an environment serves one build, made with
    one theme (`serve` builds again with a new environment), and a page includes a dozen
    sections."""
    env = Environment(
        loader=_ConfinedLoader([str(f) for f in folders]),
        bytecode_cache=FileSystemBytecodeCache(str(compiled)) if compiled is not None else None,
        autoescape=select_autoescape(["html", "xml"], default=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
        cache_size=-1,
    )
    env.filters["fixed"] = fixed
    env.filters["script_json"] = json_for_script
    env.filters["safe_url"] = safe_url
    env.filters["side_values"] = side_values
    env.filters["filters_text"] = filters_text
    env.filters["lacking"] = lacking
    env.filters["bracket_rows"] = bracket_rows
    env.globals["rendered_once"] = RenderedOnce(4096)
    return env


def shown_path(path: Path) -> str:
    """A theme or guide file as the user knows it: 'templates/base.html', 'docs/methodology.md'."""
    return f"{path.parent.name}/{path.name}"
