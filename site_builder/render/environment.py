"""The Jinja environment a site is rendered with: the theme's search path under the input rule,
autoescaping, and the filters templates use. Every value a reader wrote (model names, labels,
stub bodies) is escaped or sanitised.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import markdown
import nh3
from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    TemplateError,
    select_autoescape,
)
from markupsafe import Markup

from site_builder.files import Refused, read_bytes_checked, web_address
from site_builder.formatting import fixed
from site_builder.present.charts import script_json_text

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
    """An outside address only if it keeps the address rule (files.web_address); else none."""
    return web_address(value)


def json_for_script(value: Any) -> Markup:
    """JSON safe inside <script>: no '</script>', no HTML comment openers."""
    text = script_json_text(value)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def build_date() -> str | None:
    """Only from SOURCE_DATE_EPOCH: a build never reads the clock, so rebuilds are identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch or not epoch.isdigit():
        return None
    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%d")


class _ConfinedLoader(FileSystemLoader):
    """Jinja's file loader under the input rule: a template that is a symbolic link leaving its
    theme folder is refused, naming the link (files.py)."""

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


def environment(folders: Sequence[Path]) -> Environment:
    """Jinja over the theme's search path: the project's own templates first, then the default.
    The theme is compiled anew each run: compiled code kept on disk (Jinja's bytecode cache)
    would be code read back from the build cache. The markup is all in the templates; the
    filters only format a number (`fixed`), write JSON for a script block and refuse an unsafe
    link."""
    env = Environment(
        loader=_ConfinedLoader([str(f) for f in folders]),
        autoescape=select_autoescape(["html", "xml"], default=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fixed"] = fixed
    env.filters["script_json"] = json_for_script
    env.filters["safe_url"] = safe_url
    return env


def shown_path(path: Path) -> str:
    """A theme or guide file as the user knows it: 'templates/base.html', 'docs/methodology.md'."""
    return f"{path.parent.name}/{path.name}"
