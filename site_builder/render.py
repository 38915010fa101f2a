"""Turn computed comparisons into the files of a static site (HTML, CSV, JSON, XML), in memory.

Every internal link is relative (the site works under a sub-path and from file://), and every
value a reader wrote (model names, labels, stub bodies) is escaped or sanitised.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import markdown
import nh3
import plotly
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from site_builder import __version__
from site_builder.charts import METRICS, Metric, chart_data
from site_builder.content import SiteConfig
from site_builder.models import HardwareCatalog
from site_builder.narrate import KIND_NAMES, TIE_TOLERANCE, Narrative, is_tie, narrate
from site_builder.numbers import fixed
from site_builder.results import ComparisonResult, MetricsAtTarget, SequenceResult

ASSETS = ("site.css", "site.js", "favicon.svg")
PLOTLY_ASSET = "plotly.min.js"
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


@dataclass(frozen=True)
class PageSource:
    """A comparison plus what its page needs beyond the numbers."""

    comparison: ComparisonResult
    body_markdown: str
    source: str  # the stub path, or "auto" for a generated page


# -- formatting ---------------------------------------------------------------------------------


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
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def metric_cells(
    metric: Metric, sides: Sequence[MetricsAtTarget], labels: Sequence[str]
) -> list[dict[str, Any]]:
    """One table cell: each side's formatted value, the better one marked (higher or lower wins)."""
    attribute, decimals, prefix, better = metric.attribute, metric.decimals, metric.prefix, metric.better
    values: list[float | None] = [getattr(m, attribute) for m in sides]
    winner = None
    present = [v for v in values if v is not None]
    if better and len(present) == 2 and all(m.measured for m in sides):
        a, b = present
        if not is_tie(a, b):
            winner = (0 if a > b else 1) if better == "higher" else (0 if a < b else 1)
    cells = []
    for i, (label, m, value) in enumerate(zip(labels, sides, values, strict=True)):
        if not m.measured:
            text, note = "not measured", m.reason or ""
        elif value is None:
            text, note = "n/a", m.unavailable.get(attribute, "unavailable")
        else:
            text, note = prefix + fixed(value, decimals), ""
        cells.append(
            {
                "label": label,
                "text": text,
                "note": note,
                "win": winner == i,
                "value": value,
                "measured": m.measured,
            }
        )
    return cells


def table(comparison: ComparisonResult, sequence: SequenceResult) -> list[dict[str, Any]]:
    labels = [s.label for s in comparison.sides]
    return [
        {
            "key": m.key,
            "title": m.row_title,
            "cells": [metric_cells(m, target.sides, labels) for target in sequence.results],
        }
        for m in METRICS
    ]


def _csv_text(value: Any) -> Any:
    """Text that a spreadsheet would run as a formula is quoted with a leading apostrophe."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value


def _csv(rows: Sequence[Sequence[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow([_csv_text(v) for v in row])
    return buffer.getvalue().encode()


def table_csv(comparison: ComparisonResult) -> bytes:
    header = [
        "sequence",
        "target_interactivity",
        "side",
        "measured",
        "throughput_per_gpu",
        "cost_per_million_tokens",
        "tokens_per_sec_per_mw",
        "joules_per_token",
        "concurrency",
        "reason",
    ]
    rows: list[list[Any]] = [header]
    for sequence in comparison.sequences:
        for target in sequence.results:
            for side, m in zip(comparison.sides, target.sides, strict=True):
                rows.append(
                    [
                        sequence.sequence,
                        target.interactivity,
                        side.label,
                        m.measured,
                        m.throughput_per_gpu,
                        m.cost_per_million_tokens,
                        m.tokens_per_sec_per_mw,
                        m.joules_per_token,
                        m.concurrency,
                        m.reason,
                    ]
                )
    return _csv(rows)


POINT_COLUMNS = (
    "interactivity",
    "interactivity_source",
    "throughput_per_gpu",
    "output_throughput_per_gpu",
    "concurrency",
    "gpu_count",
    "model",
    "hardware",
    "precision",
    "framework",
    "spec_method",
    "disagg",
    "parallelism",
    "date",
    "run_url",
    "dataset",
    "source_file",
    "record",
)


def points_csv(comparison: ComparisonResult) -> bytes:
    rows: list[list[Any]] = [["sequence", "side", "on_frontier", *POINT_COLUMNS]]
    for sequence in comparison.sequences:
        for side in sequence.sides:
            for p in side.points:
                rows.append(
                    [sequence.sequence, side.label, p.on_frontier, *(getattr(p, c) for c in POINT_COLUMNS)]
                )
    return _csv(rows)


# -- the site ---------------------------------------------------------------------------------


def build_date() -> str | None:
    """Only from SOURCE_DATE_EPOCH: a build never reads the clock, so rebuilds are identical."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if not epoch or not epoch.isdigit():
        return None
    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%d")


def environment(templates: Path) -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(templates)),
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


def page_url(slug: str) -> str:
    return f"{slug}/index.html"


class SiteRenderer:
    def __init__(
        self,
        templates: Path,
        config: SiteConfig,
        catalog: HardwareCatalog,
        docs: Path | None = None,
    ) -> None:
        self.env = environment(templates)
        self.templates = templates
        self.config = config
        self.catalog = catalog
        self.docs = docs
        self.site_url = (config.site_url.rstrip("/") + "/") if config.site_url else None
        self.built = build_date()

    def absolute(self, path: str) -> str | None:
        return self.site_url + path if self.site_url else None

    def _names(self, comparison: ComparisonResult) -> tuple[list[str], list[str]]:
        names, architectures = [], []
        for sequence in comparison.sequences[:1]:
            for side in sequence.sides:
                spec = self.catalog.gpus.get(side.hardware)
                names.append(spec.name if spec else side.hardware.upper())
                vendor = f"{spec.vendor} " if spec and spec.vendor else ""
                architectures.append(f"{vendor}{spec.architecture}" if spec and spec.architecture else "")
        return names, architectures

    def narrative(self, comparison: ComparisonResult) -> Narrative:
        names, architectures = self._names(comparison)
        return narrate(comparison, comparison.sequences[0], names, architectures)

    def _common(self, root: str) -> dict[str, Any]:
        return {
            "guides": self.guides(root),
            "root": root,
            "site": self.config,
            "version": __version__,
            "built": self.built,
            "has_methodology": self._methodology_source() is not None,
        }

    def _structured_data(
        self, comparison: ComparisonResult, narrative: Narrative, root: str
    ) -> list[dict[str, Any]]:
        here = self.absolute(f"{comparison.slug}/") or "index.html"
        home = self.absolute("") or f"{root}index.html"
        dates = [d for s in comparison.sequences for side in s.sides if side.dates for d in side.dates]
        dataset: dict[str, Any] = {
            "@context": "https://schema.org",
            "@type": "Dataset",
            "name": comparison.title,
            "description": f"{narrative.summary} {narrative.lede}",
            "url": here,
            "variableMeasured": [m.label for m in METRICS] + ["Interactivity (tok/s/user)"],
            "distribution": [
                {
                    "@type": "DataDownload",
                    "encodingFormat": "application/json",
                    "contentUrl": self.absolute(f"{comparison.slug}/comparison.json") or "comparison.json",
                },
                {
                    "@type": "DataDownload",
                    "encodingFormat": "text/csv",
                    "contentUrl": self.absolute(f"{comparison.slug}/points.csv") or "points.csv",
                },
            ],
            "isBasedOn": [s.url or s.source for s in comparison.data_sources],
            "creditText": "; ".join(s.source for s in comparison.data_sources),
        }
        licences = sorted({s.licence for s in comparison.data_sources if s.licence})
        if licences:
            dataset["license"] = licences[0] if len(licences) == 1 else licences
        if dates:
            dataset["temporalCoverage"] = f"{min(dates)}/{max(dates)}"
        crumbs = {
            "@context": "https://schema.org",
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": 1, "name": self.config.title, "item": home},
                {"@type": "ListItem", "position": 2, "name": KIND_NAMES[comparison.kind]},
                {"@type": "ListItem", "position": 3, "name": comparison.title, "item": here},
            ],
        }
        return [crumbs, dataset]

    def comparison_page(
        self, page: PageSource, narrative: Narrative, related: Sequence[dict[str, str]]
    ) -> bytes:
        comparison = page.comparison
        root = "../"
        context = {
            **self._common(root),
            "c": comparison,
            "n": narrative,
            "kind_name": KIND_NAMES[comparison.kind],
            "body": safe_markdown(page.body_markdown) if page.body_markdown.strip() else None,
            "auto": page.source == "auto",
            "tables": [(s, table(comparison, s)) for s in comparison.sequences],
            "charts": chart_data(comparison),
            "page_data": page_data(comparison),
            "related": related,
            "structured": self._structured_data(comparison, narrative, root),
            "canonical": self.absolute(f"{comparison.slug}/"),
        }
        return self.env.get_template("comparison.html").render(context).encode()

    def index_page(self, entries: Sequence[dict[str, Any]]) -> bytes:
        groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for entry in entries:
            kind = KIND_NAMES[entry["kind"]]
            groups.setdefault(kind, {}).setdefault(entry["group"], []).append(entry)
        structured = {
            "@context": "https://schema.org",
            "@type": "WebSite",
            "name": self.config.title,
            "description": self.config.description,
        }
        if self.site_url:
            structured["url"] = self.site_url
        context = {
            **self._common(""),
            "groups": groups,
            "count": len(entries),
            "structured": [structured],
            "canonical": self.site_url,
        }
        return self.env.get_template("index.html").render(context).encode()

    def _methodology_source(self) -> Path | None:
        if self.docs is None:
            return None
        path = self.docs / "methodology.md"
        return path if path.is_file() else None

    def doc_sources(self) -> list[Path]:
        """Every guide in docs/ (methodology.md has its own address: methodology/)."""
        if self.docs is None or not self.docs.is_dir():
            return []
        return sorted(p for p in self.docs.glob("*.md") if p.name != "methodology.md")

    def _doc_href(self, name: str, root: str) -> str:
        stem = name.removesuffix(".md")
        return f"{root}methodology/index.html" if stem == "methodology" else f"{root}docs/{stem}/index.html"

    def _doc_html(self, source: Path, root: str) -> Markup:
        """A guide as HTML, its links to other guides pointing at their pages in the site."""
        html = str(safe_markdown(source.read_text(encoding="utf-8")))

        def link(match: re.Match[str]) -> str:
            name, anchor = match.group(1), match.group(2) or ""
            if self.docs is not None and (self.docs / name).is_file():
                return f'href="{self._doc_href(name, root)}{anchor}"'
            return match.group(0)

        return Markup(re.sub(r'href="([\w.-]+\.md)(#[\w-]+)?"', link, html))

    def methodology_page(self) -> bytes | None:
        source = self._methodology_source()
        if source is None:
            return None
        context = {
            **self._common("../"),
            "content": self._doc_html(source, "../"),
            "canonical": self.absolute("methodology/"),
            "doc_title": "Methodology",
        }
        return self.env.get_template("methodology.html").render(context).encode()

    def doc_pages(self) -> dict[str, bytes]:
        pages = {}
        for source in self.doc_sources():
            title = _first_heading(source) or source.stem.replace("-", " ").capitalize()
            context = {
                **self._common("../../"),
                "content": self._doc_html(source, "../../"),
                "canonical": self.absolute(f"docs/{source.stem}/"),
                "doc_title": title,
            }
            pages[f"docs/{source.stem}/index.html"] = (
                self.env.get_template("methodology.html").render(context).encode()
            )
        return pages

    def guides(self, root: str) -> list[dict[str, str]]:
        return [
            {"href": f"{root}docs/{s.stem}/index.html", "title": _first_heading(s) or s.stem}
            for s in self.doc_sources()
        ]

    def not_found_page(self) -> bytes:
        context = {**self._common(self.site_url or ""), "canonical": None}
        return self.env.get_template("404.html").render(context).encode()

    def sitemap(self, slugs: Sequence[str]) -> bytes | None:
        if not self.site_url:
            return None
        urls = ["", *([("methodology/")] if self._methodology_source() else []), *(f"{s}/" for s in slugs)]
        context = {"urls": [self.site_url + u for u in urls], "lastmod": self.built}
        return self.env.get_template("sitemap.xml").render(context).encode()

    def robots(self) -> bytes:
        lines = ["User-agent: *", "Allow: /"]
        if self.site_url:
            lines.append(f"Sitemap: {self.site_url}sitemap.xml")
        return ("\n".join(lines) + "\n").encode()

    def assets(self) -> dict[str, bytes]:
        files = {f"assets/{name}": (self.templates / "assets" / name).read_bytes() for name in ASSETS}
        bundle = Path(plotly.__file__).parent / "package_data" / PLOTLY_ASSET
        files[f"assets/{PLOTLY_ASSET}"] = bundle.read_bytes()
        return files


def _first_heading(source: Path) -> str | None:
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip().strip("`")
    return None


def page_data(comparison: ComparisonResult) -> dict[str, Any]:
    """What the page script needs to re-interpolate and redraw: knots and constants per sequence."""
    return {
        "slug": comparison.slug,
        "labels": [s.label for s in comparison.sides],
        "tie": TIE_TOLERANCE,
        "formats": {m.key: {"decimals": m.decimals, "prefix": m.prefix, "better": m.better} for m in METRICS},
        "default_sequence": comparison.default_sequence,
        "sequences": {
            s.sequence: {
                "targets": s.targets,
                "band": [s.band.lo, s.band.hi] if s.band.overlap else None,
                "sides": [
                    {
                        "knots": [
                            [k.interactivity, k.throughput_per_gpu, k.concurrency] for k in side.frontier
                        ],
                        "usd_per_gpu_hour": side.constants.usd_per_gpu_hour,
                        "watts_all_in": side.constants.watts_all_in,
                    }
                    for side in s.sides
                ],
            }
            for s in comparison.sequences
        },
    }


def related_pages(
    comparisons: Sequence[ComparisonResult], titles: Mapping[str, str]
) -> Callable[[ComparisonResult], list[dict[str, str]]]:
    """Links from a page to the others on the same model and GPU, and to its other sequences."""

    def for_page(comparison: ComparisonResult) -> list[dict[str, str]]:
        links = [
            {"href": f"index.html?seq={s.sequence}", "text": f"This comparison at {s.sequence}"}
            for s in comparison.sequences[1:]
        ]
        for other in comparisons:
            if other.slug == comparison.slug or other.model != comparison.model:
                continue
            if set(other.hardware) & set(comparison.hardware):
                links.append({"href": f"../{page_url(other.slug)}", "text": titles[other.slug]})
        return links

    return for_page
