"""The generated English, page by page (issue 26, item 4): every page of a build is scanned for
placeholder tokens, repeated dates, doubled punctuation and wrong plurals, in its text and in
the attributes a reader sees (hover titles, descriptions)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

# what a reader must never meet, each with why
PATTERNS = {
    "placeholder": re.compile(r"\{[a-z_]+\}|\bTP\?|\bNone\b|\bnan\b|\bTODO\b|\bundefined\b"),
    "repeated date": re.compile(r"\b(\d{4}-\d\d-\d\d) to \1\b"),
    "doubled punctuation": re.compile(r"\)\)|(?<![.\w])\.\.(?!\.)|(?<=\w)\.\.(?!\.)|,,|;;|, ,|\(,"),
    "plural after 1": re.compile(
        r"(?<![\d.,])\b1 (GPUs|comparison pages|pages|points|runs|targets|concurrencies|workloads|"
        r"questions|warnings|notices|files|records)\b"
    ),
    "setup opening with a comma": re.compile(r"(?:^|[>\n])\s*, "),
}


def reader_text(page: str) -> str:
    """A page's text and the attributes a reader sees, tags dropped (inline markup joins words as
    the browser shows them), scripts and styles left out."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S)
    shown = " ".join(re.findall(r'(?:title|content|aria-label|alt)="([^"]*)"', page))
    return html.unescape(re.sub(r"<[^>]+>", "", page) + "\n" + shown)


def generated_pages(site: Path) -> list[Path]:
    """The pages whose English the tool writes: every comparison page, the index and the 404
    (the guides are hand-written Markdown, with code and formulas of their own)."""
    pages = [site / name for name in ("index.html", "404.html") if (site / name).is_file()]
    return pages + sorted(p.parent / "index.html" for p in site.glob("*/comparison.json"))


def problems_in(site: Path) -> list[str]:
    found = []
    for path in generated_pages(site) or sorted(site.glob("*.html")):
        text = reader_text(path.read_text())
        for name, pattern in PATTERNS.items():
            for match in pattern.finditer(text):
                where = text[max(0, match.start() - 50) : match.end() + 30].replace("\n", " ")
                found.append(f"{path.relative_to(site)}: {name}: …{where}…")
    return found


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    """Each pattern fires on the text the issue found (so the scan below can fail)."""
    bad = [
        "parallelism: TP?;",
        "dates 2026-02-01 to 2026-02-01.",
        "0.49× (B200 FP4 lower))",
        "GPL-3.0 material.. Address",
        "Built 1 comparison pages",
        "<td>, concurrency 64, lm-evaluation-harness</td>",
    ]
    for n, text in enumerate(bad):
        (tmp_path / f"page{n}.html").write_text(f"<p>{text}</p>")
    assert len(problems_in(tmp_path)) == len(bad)
    (tmp_path / "page-good.html").write_text(
        "<p>1 comparison page, dates 2026-02-01 to 2026-02-03, 0.49× (B200 FP4 lower). Next…</p>"
    )
    assert len(problems_in(tmp_path)) == len(bad)


@pytest.mark.parametrize("name", ["default"])
def test_no_page_of_the_default_site_has_broken_english(default_site: Path, name: str) -> None:
    assert problems_in(default_site) == []
