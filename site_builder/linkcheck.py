"""Checks over a built site: internal links resolve, nothing is loaded from outside the site, and
the outside links an author's prose may hold (http, https, mailto: authoring.md) are accepted,
fetched only when asked (`check --check-external`)."""

from __future__ import annotations

import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from site_builder.problems import Problem

LINKABLE_SCHEMES = {"http", "https", "mailto"}  # what a stub's Markdown may link (render/environment.py)
FETCH_SECONDS = 15
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
            elif (tag, name) == ("a", "href"):
                self.links.append(value)


def refs(path: Path) -> _Refs:
    parser = _Refs()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc)


def resolve(site: Path, page: Path, url: str) -> Path | None:
    """The file inside the site a relative link points to, None if there is none (pretty URLs: a
    folder means its index.html)."""
    parts = urlsplit(url)
    if not parts.path:
        return page
    target = (page.parent / unquote(parts.path)).resolve()
    if target.is_dir():
        target = target / "index.html"
    return target if target.is_file() and site.resolve() in target.parents else None


def external_failure(url: str) -> str | None:
    """Why an outside http(s) link fails when fetched (None: it answers; a mailto is not fetched)."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return None
    headers = {"User-Agent": "build-site link check"}
    for method in ("HEAD", "GET"):  # some servers refuse HEAD
        request = urllib.request.Request(url, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=FETCH_SECONDS):
                return None
        except urllib.error.HTTPError as exc:
            if method == "HEAD" and exc.code in (403, 405, 501):
                continue
            return f"outside link answers HTTP {exc.code}: fix or remove the link"
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            return f"outside link unreachable ({reason}): fix or remove the link"
    return None


def broken_links(site: Path, site_url: str | None = None, check_external: bool = False) -> list[Problem]:
    """Every internal link or resource that does not resolve, and anything referring outside but
    the links an author's prose may hold (accepted; with `check_external`, each distinct one
    fetched once and reported, on the first page holding it, if it fails).

    Outside addresses the build writes (a run's URL, a data source) are shown as text, never
    linked or loaded."""
    problems: list[Problem] = []
    outside: dict[str, Path] = {}  # each outside link the check accepts, with the first page holding it

    def add(page: Path, url: str, reason: str) -> None:
        problems.append(Problem(page.relative_to(site).as_posix(), "", url, reason))

    own = (site_url.rstrip("/") + "/") if site_url else None
    ids: dict[Path, set[str]] = {}  # each page's ids, read once (a page is linked from many)

    def missing_anchor(target: Path, fragment: str) -> bool:
        if fragment and target not in ids:
            ids[target] = refs(target).ids
        return bool(fragment) and fragment not in ids[target]

    def local(page: Path, url: str) -> str:
        """An absolute address inside the site, as a link relative to this page."""
        if own and url.startswith(own):
            depth = len(page.relative_to(site).parts) - 1
            return "../" * depth + url[len(own) :]
        return url

    for page in sorted(site.rglob("*.html")):
        found = refs(page)
        ids[page.resolve()] = found.ids
        found.links = [local(page, url) for url in found.links]
        for url in found.resources:
            if url.startswith("data:"):
                continue  # inline, no request
            if is_external(url):
                add(page, url, "loads a resource from outside the site")
            elif resolve(site, page, url) is None:
                add(page, url, "broken resource")
        for url in found.links:
            if is_external(url) and urlsplit(url).scheme.lower() in LINKABLE_SCHEMES:
                outside.setdefault(url, page)
                continue
            if is_external(url):
                add(page, url, "links outside the site")
                continue
            target = resolve(site, page, url)
            if target is None:
                add(page, url, "broken link")
            elif target.suffix == ".html" and missing_anchor(target, urlsplit(url).fragment):
                add(page, url, "missing anchor")
    for url, page in outside.items() if check_external else ():
        failure = external_failure(url)
        if failure:
            add(page, url, failure)
    return problems
