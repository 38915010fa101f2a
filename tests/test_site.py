"""The default site as the README's first command builds it, checked as a reader would."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from html.parser import HTMLParser
from pathlib import Path

import pytest

from site_builder.cli import main
from site_builder.linkcheck import broken_links, refs
from tests.htmlcheck import parse_strict

ROOT = Path(__file__).resolve().parents[1]
SEEDS = (
    "mi355x-fp4-vs-int4-kimi",
    "b200-fp4-vs-int4-kimi",
    "mi355x-fp4-vs-bf16-qwen",
    "mi355x-fp4-mtp-vs-off-qwen",
)
REAL_STUBS = ("mi355x-fp4-vs-fp8-dsr1", "b200-fp4-mtp-vs-off-dsr1", "b200-vs-h200-fp8-dsr1")


@pytest.fixture(scope="module")
def site(default_site: Path) -> Path:
    return default_site


def test_default_site_has_the_pages(site: Path) -> None:
    for slug in (*SEEDS, *REAL_STUBS):
        assert (site / slug / "index.html").is_file(), slug
        assert (site / slug / "comparison.json").is_file()
    for name in (
        "index.html",
        "404.html",
        "robots.txt",
        "sitemap.xml",
        ".nojekyll",
        "methodology/index.html",
        "assets/plotly-basic.min.js",
        "assets/plotly-basic.LICENSE.txt",
        "assets/site.js",
        "assets/site.css",
    ):
        assert (site / name).is_file(), name
    pages = [p for p in site.iterdir() if (p / "comparison.json").is_file()]
    assert len(pages) >= 20  # stubs plus generated pairs of the real data


def test_every_page_parses_cleanly(site: Path) -> None:
    for page in sorted(site.rglob("*.html")):
        parse_strict(page)


def test_no_broken_links_and_nothing_outside(site: Path) -> None:
    assert broken_links(site, "https://example.org/bench/") == []
    # every address outside the site is text, never a link or a resource
    for page in site.rglob("*.html"):
        assert 'href="http' not in page.read_text().replace('href="https://example.org/bench/', "")


def test_index_lists_every_comparison(site: Path) -> None:
    found = refs(site / "index.html")
    listed = {link.split("/")[0] for link in found.links if link.endswith("/index.html")}
    pages = {p.name for p in site.iterdir() if (p / "comparison.json").is_file()}
    assert pages <= listed


class _TableReader(HTMLParser):
    """Reads the matched table of each sequence panel: {sequence: {metric: [[side texts] per target]}}."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, dict[str, list[list[str]]]] = {}
        self.sequence = ""
        self.metric = ""
        self.in_value = False
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "div" and "sequence-panel" in (a.get("class") or ""):
            self.sequence = a["data-sequence"] or ""
            self.tables[self.sequence] = {}
        elif tag == "tr" and a.get("data-metric"):
            self.metric = a["data-metric"] or ""
            self.tables[self.sequence][self.metric] = []
        elif tag == "td" and self.metric:
            self.cell = []
            self.tables[self.sequence][self.metric].append(self.cell)
        elif tag == "span" and a.get("class") == "value":
            self.in_value = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "span":
            self.in_value = False
        elif tag == "tr":
            self.metric = ""

    def handle_data(self, data: str) -> None:
        if self.in_value and self.cell is not None:
            self.cell.append(data)


ATTRIBUTES = {
    "throughput": "throughput_per_gpu",
    "cost": "cost_per_million_tokens",
    "per_mw": "tokens_per_sec_per_mw",
    "concurrency": "concurrency",
}


def _expected(
    m: dict[str, object], key: str, frontier: list[dict[str, object]], claim: dict[str, object], side: int
) -> str:
    if not m["measured"]:
        return "not measured"
    attribute, decimals, prefix = {
        "throughput": ("throughput_per_gpu", 1, ""),
        "cost": ("cost_per_million_tokens", 3, "$"),
        "per_mw": ("tokens_per_sec_per_mw", 0, ""),
        "concurrency": ("concurrency", 0, "~"),
    }[key]
    value = m[attribute]
    # brackets as comparison.json writes them (positions in the frontier) or as the knots themselves
    brackets = [k if isinstance(k, dict) else frontier[k] for k in m["brackets"]]  # type: ignore[attr-defined]
    if value is None and key == "concurrency" and len(brackets) == 2:
        # between two deployments: the two measured concurrencies and their GPU counts
        return "measured: " + ", ".join(
            f"{k['concurrency']:,} ({k['gpu_count']} GPUs)"
            if k["gpu_count"]
            else f"{k['concurrency']:,} (GPU count not recorded)"
            for k in brackets
        )
    if value is None:
        return "n/a"
    text = prefix + f"{Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP):,}"  # type: ignore[arg-type]
    # where the knots do not decide the row's winner, the second value says so
    return text + (" (winner not determined)" if side == 1 and claim.get("grade") == "undetermined" else "")


def test_page_numbers_equal_comparison_json(site: Path) -> None:
    checked = 0
    for folder in sorted(p for p in site.iterdir() if (p / "comparison.json").is_file()):
        data = json.loads((folder / "comparison.json").read_text())
        reader = _TableReader()
        reader.feed((folder / "index.html").read_text())
        for sequence in data["sequences"]:
            if not sequence["band"]["overlap"]:
                assert reader.tables[sequence["sequence"]] == {}
                continue
            table = reader.tables[sequence["sequence"]]
            for key in ("throughput", "cost", "per_mw", "concurrency"):
                shown = table[key]
                expected = [
                    [
                        _expected(m, key, s["frontier"], r["claims"].get(ATTRIBUTES[key], {}), i)
                        for i, (m, s) in enumerate(zip(r["sides"], sequence["sides"], strict=True))
                    ]
                    for r in sequence["results"]
                ]
                assert shown == expected, (folder.name, sequence["sequence"], key)
                checked += 1
    assert checked > 100


def test_comparison_json_lists_each_sides_frontier_and_points_csv_every_point(site: Path) -> None:
    """Schema 2: a side's frontier knots in comparison.json, every measured point in points.csv
    (the knots among them, marked), and each target's brackets as positions in the frontier."""
    checked = 0
    for folder in sorted(p for p in site.iterdir() if (p / "comparison.json").is_file()):
        data = json.loads((folder / "comparison.json").read_text())
        assert data["schema_version"] == 2
        rows = list(csv.DictReader(io.StringIO((folder / "points.csv").read_text())))
        for sequence in data["sequences"]:
            for side in sequence["sides"]:
                mine = [
                    r for r in rows if (r["sequence"], r["side"]) == (sequence["sequence"], side["label"])
                ]
                assert len(mine) == side["point_count"]
                knots = [r for r in mine if r["on_frontier"] == "True"]
                assert [float(r["interactivity"]) for r in knots] == [
                    k["interactivity"] for k in side["frontier"]
                ]
                assert [r["record"] for r in knots] == [k["record"] for k in side["frontier"]]
            for result in sequence["results"]:
                for m, side in zip(result["sides"], sequence["sides"], strict=True):
                    xs = [side["frontier"][k]["interactivity"] for k in m["brackets"]]
                    assert xs == sorted(xs) and all(0 <= k < len(side["frontier"]) for k in m["brackets"])
                    if len(xs) == 2:
                        assert xs[0] < result["interactivity"] < xs[1]
                    elif xs:
                        assert xs == [result["interactivity"]]
                    checked += 1
    assert checked > 100


def test_prose_comparatives_are_true(site: Path) -> None:
    for page in sorted(site.glob("*/index.html")):
        text = re.sub(r"<[^>]+>", " ", page.read_text())
        assert not re.search(r"\d+% cheaper", text), page
        for match in re.finditer(r"(\d+)% less", text):
            assert int(match.group(1)) < 100, page
        assert "% more expensive" not in text


def test_seed_page_shows_the_published_figures(site: Path) -> None:
    html = (site / "mi355x-fp4-vs-int4-kimi" / "index.html").read_text()
    for figure in (
        "1,064.0",
        "495.8",
        "631.8",
        "334.4",
        "541.4",
        "230.0",
        "~120",
        "~57",
        "~24",
        "~12",
        "~16",
        "~6",
    ):
        assert f'<span class="value">{figure}</span>' in html
    assert (
        "FP4 costs 53% less per token than INT4" in html
        or "INT4 costs 2.15× as much per token as FP4" in html
    )


def test_sitemap_robots_404_and_structured_data(site: Path) -> None:
    sitemap = (site / "sitemap.xml").read_text()
    assert "<loc>https://example.org/bench/</loc>" in sitemap
    assert "<loc>https://example.org/bench/mi355x-fp4-vs-int4-kimi/</loc>" in sitemap
    assert "Sitemap: https://example.org/bench/sitemap.xml" in (site / "robots.txt").read_text()
    assert "Page not found" in (site / "404.html").read_text()
    html = (site / "mi355x-fp4-vs-fp8-dsr1" / "index.html").read_text()
    block = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert block is not None
    crumbs, dataset = json.loads(block.group(1))
    assert crumbs["@type"] == "BreadcrumbList" and dataset["@type"] == "Dataset"
    assert (
        dataset["distribution"][0]["contentUrl"]
        == "https://example.org/bench/mi355x-fp4-vs-fp8-dsr1/comparison.json"
    )
    assert dataset["temporalCoverage"].startswith("20")


def test_downloads(site: Path) -> None:
    folder = site / "mi355x-fp4-vs-fp8-dsr1"
    table = (folder / "table.csv").read_text().splitlines()
    assert table[0].startswith("sequence,target_interactivity,side,measured,throughput_per_gpu")
    data = json.loads((folder / "comparison.json").read_text())
    assert len(table) - 1 == sum(len(s["results"]) * 2 for s in data["sequences"])
    points = (folder / "points.csv").read_text().splitlines()
    assert len(points) - 1 == sum(side["point_count"] for s in data["sequences"] for side in s["sides"])


def test_two_builds_are_byte_identical(site: Path, tmp_path: Path) -> None:
    project = site.parent
    assert (
        main(
            [
                "build",
                "--root",
                str(project),
                "-q",
                "-o",
                str(tmp_path / "again"),
                "--site-url",
                "https://example.org/bench/",
            ]
        )
        == 0
    )
    first = {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    second = {
        p.relative_to(tmp_path / "again").as_posix(): p.read_bytes()
        for p in (tmp_path / "again").rglob("*")
        if p.is_file()
    }
    assert first == second


def test_real_fp4_vs_fp8_pages_show_the_gsm8k_rows_with_a_verdict_derived_by_hand(site: Path) -> None:
    """MI355X and B200 DeepSeek-R1 FP4 vs FP8: the page's accuracy equals a hand calculation from
    the imported InferenceX rows (the mean of each side's runs; the root-mean-square of their
    standard errors, since the runs answer the same 1,319 questions; the unpaired difference)."""
    rows = json.loads((ROOT / "data" / "results" / "inferencex-evals.json").read_text())["evaluations"]
    z = 1.959963984540054
    for slug, gpu in (("mi355x-fp4-vs-fp8-dsr1", "mi355x"), ("b200-fp4-vs-fp8-dsr1", "b200")):
        page = json.loads((site / slug / "comparison.json").read_text())
        (task,) = page["accuracy"]["tasks"]
        assert task["task"] == "gsm8k" and task["metric"] == "exact_match,strict-match"
        pooled = []
        for side, precision in zip(task["sides"], ("fp4", "fp8"), strict=True):
            mine = [
                r for r in rows if (r["model"], r["hardware"], r["precision"]) == ("dsr1", gpu, precision)
            ]
            assert {r["spec_method"] for r in mine} <= {"mtp", "none"} and len(side["runs"]) == len(mine)
            mean = sum(r["score"] for r in mine) / len(mine)
            se = math.sqrt(sum(r["stderr"] ** 2 for r in mine) / len(mine))
            assert side["score"] == pytest.approx(mean) and side["stderr"] == pytest.approx(se)
            pooled.append((mean, se))
        (a, se_a), (b, se_b) = pooled
        se = math.hypot(se_a, se_b)
        d = task["difference"]
        assert (d["value"], d["ci_lo"], d["ci_hi"]) == pytest.approx((a - b, a - b - z * se, a - b + z * se))
        within = a - b - z * se <= 0 <= a - b + z * se
        assert d["verdict"] == ("within-noise" if within else ("a-better" if a > b else "b-better"))
        html = (site / slug / "index.html").read_text()
        assert "is within noise" in html if within else "is better by" in html
        assert 'id="accuracy-heading"' in html and "accuracy.csv" in html


def test_pages_without_evaluation_results_say_so_once(site: Path) -> None:
    html = (site / "mi355x-fp4-vs-int4-kimi" / "index.html").read_text()
    assert html.count("No accuracy results for either side") == 1 and 'id="accuracy-heading"' not in html
    index = (site / "index.html").read_text()
    assert "accuracy: no data" in index and "accuracy: within noise" in index
