"""Strict HTML parsing for tests (html5lib raises on any parse error in strict mode)."""

from __future__ import annotations

from pathlib import Path

import html5lib


def parse_strict(path: Path) -> None:
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(path.read_bytes())
