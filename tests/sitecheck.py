"""Checks over a built site: strict HTML parsing, internal links, outside references."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import html5lib

RESOURCE_ATTRS = {("script", "src"), ("link", "href"), ("img", "src"), ("source", "src"), ("iframe", "src")}


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.resources: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            if (tag, name) in RESOURCE_ATTRS and not (tag == "link" and ("rel", "canonical") in attrs):
                self.resources.append(value)
            elif tag == "a" and name == "href":
                self.links.append(value)


def parse_strict(path: Path) -> None:
    """html5lib in strict mode raises on any parse error."""
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())


def refs(path: Path) -> _Refs:
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc)


def resolve(site: Path, page: Path, url: str) -> Path | None:
    """The file a relative link points to (pretty URLs: a folder means its index.html)."""
    parts = urlsplit(url)
    if not parts.path:
        return page
    target = (page.parent / unquote(parts.path)).resolve()
    if target.is_dir():
        target = target / "index.html"
    return target if site.resolve() in [target, *target.parents] else None


def broken_links(site: Path) -> list[str]:
    problems = []
    for page in sorted(site.rglob("*.html")):
        found = refs(page)
        for url in found.resources:
            if url.startswith("data:"):
                continue  # inline, no request
            if is_external(url):
                problems.append(f"{page}: loads an outside resource {url}")
            elif (target := resolve(site, page, url)) is None or not target.is_file():
                problems.append(f"{page}: broken resource {url}")
        for url in found.links:
            if is_external(url):
                if not url.startswith(("https://", "http://")):
                    problems.append(f"{page}: unsafe link {url}")
                continue
            target = resolve(site, page, url)
            if target is None or not target.is_file():
                problems.append(f"{page}: broken link {url}")
            elif urlsplit(url).fragment and target.suffix == ".html":
                fragment = urlsplit(url).fragment
                if fragment not in refs(target).ids:
                    problems.append(f"{page}: missing anchor {url}")
    return problems
