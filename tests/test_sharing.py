"""Sharing: a chart-only page per comparison at embed/<slug>/ and the site-wide index.json."""

from __future__ import annotations

import json
from pathlib import Path

from site_builder.cli import main
from tests.conftest import LAB_CSV
from tests.htmlcheck import parse_strict

B200 = [line.replace(",h200,", ",b200,") for line in LAB_CSV.splitlines() if ",h200,sglang,fp8," in line]


def _site(project: Path) -> Path:
    (project / "data" / "results" / "lab.csv").write_text(LAB_CSV + "\n".join(B200) + "\n")
    assert main(["build", "--root", str(project), "-q"]) == 0
    return project / "site"


def test_every_page_has_an_embed_and_an_entry_in_index_json(project: Path) -> None:
    site = _site(project)
    slugs = sorted(p.parent.name for p in site.glob("*/comparison.json"))
    assert slugs == ["b200-vs-h200-fp8-dsr1", "h200-fp4-vs-fp8"]
    listed = json.loads((site / "index.json").read_text())
    assert listed["schema_version"] == 1
    assert [p["slug"] for p in listed["pages"]] == slugs
    for entry in listed["pages"]:
        document = json.loads((site / entry["comparison_json"]).read_text())
        assert (site / entry["page"]).is_file() and (site / entry["embed"]).is_file()
        assert entry["embed"] == f"embed/{entry['slug']}/index.html"
        for key in ("title", "kind", "model", "model_name", "hardware", "default_sequence"):
            assert entry[key] == document[key], key
        assert entry["sides"] == document["sides"]
        assert entry["sequences"] == [s["sequence"] for s in document["sequences"]]
        default = next(s for s in document["sequences"] if s["sequence"] == document["default_sequence"])
        assert entry["headline"]["targets"] == [r["interactivity"] for r in default["results"]]
        for n, side in enumerate(entry["headline"]["sides"]):
            assert side["label"] == document["sides"][n]["label"]
            assert side["cost_per_million_tokens"] == [
                r["sides"][n]["cost_per_million_tokens"] for r in default["results"]
            ]


def test_an_embed_is_the_chart_without_the_site_chrome_and_links_back(project: Path) -> None:
    site = _site(project)
    embed = site / "embed" / "h200-fp4-vs-fp8" / "index.html"
    parse_strict(embed)
    html = embed.read_text()
    assert '<div id="chart"' in html and 'id="chart-data"' in html and 'id="page-data"' in html
    assert "site-header" not in html and "site-footer" not in html
    assert 'href="../../h200-fp4-vs-fp8/index.html" target="_top"' in html
    assert 'src="../../assets/site.js"' in html and '<meta name="robots" content="noindex">' in html
    page = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    between = 'id="page-data">'
    assert html.split(between)[1].split("</script>")[0] == page.split(between)[1].split("</script>")[0]
