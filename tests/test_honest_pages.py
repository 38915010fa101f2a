"""Pages that tell the truth at a glance (issue 10): bands, headlines over every target, sparse
data marked where a ratio is stated, concurrency that describes a deployment, pooling named,
unknown GPUs warned about and never credited. Expected values are derived here from
comparison.json (and tests/reference_impl.py for the definitions), not copied from the output."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from site_builder.check import run_check
from site_builder.cli import main
from site_builder.formatting import fixed
from site_builder.problems import Severity
from site_builder.project import Project
from tests.conftest import LAB_CSV, SCORES_CSV, STUB

ROOT = Path(__file__).resolve().parents[1]
TIE = 0.01
NO_RANGE = {"b300-fp8-mtp-vs-off-dsr1": "1k/1k", "gb200-fp8-mtp-vs-off-dsr1": "8k/1k"}


@pytest.fixture(scope="module")
def site(default_site: Path) -> Path:
    return default_site


def pages(site: Path) -> list[tuple[Path, dict[str, Any]]]:
    return [
        (folder, json.loads((folder / "comparison.json").read_text()))
        for folder in sorted(site.iterdir())
        if (folder / "comparison.json").is_file()
    ]


def texts(page: str, tag: str) -> list[str]:
    """The text of every <tag> element in the page's main part, tags stripped and whitespace folded."""
    main_part = page.split('<main id="main">', 1)[1].split("</main>", 1)[0]
    found = re.findall(rf"<{tag}\b[^>]*>(.*?)</{tag}>", main_part, re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", t)).split()) for t in found]


def summary_of(page: str) -> str:
    (found,) = re.findall(r'<p class="summary">(.*?)</p>', page, re.S)
    return html.unescape(found)


def test_every_band_has_its_low_end_at_or_below_its_high_end(site: Path) -> None:
    checked = 0
    for folder, data in pages(site):
        for sequence in data["sequences"]:
            band = sequence["band"]
            if band["lo"] is not None and band["hi"] is not None:
                assert band["lo"] <= band["hi"], (folder.name, sequence["sequence"])
            if band["overlap"]:
                assert band["display_lo"] <= band["display_hi"], (folder.name, sequence["sequence"])
                assert len(set(sequence["targets"])) == len(sequence["targets"])
            checked += 1
    assert checked > 40


def test_no_page_repeats_a_paragraph(site: Path) -> None:
    for page in sorted(site.glob("*/index.html")):
        paragraphs = [t for t in texts(page.read_text(), "p") if t]
        repeated = [t for t, n in Counter(paragraphs).items() if n > 1]
        assert not repeated, (page.parent.name, repeated)


def _range(side: dict[str, Any]) -> str:
    lo, hi = side["interactivity_range"]
    from site_builder.formatting import fixed

    return (
        f"({fixed(lo, 1)} tok/s/user)"
        if len(side["frontier"]) == 1
        else f"{fixed(lo, 1)}–{fixed(hi, 1)} tok/s/user"
    )


@pytest.mark.parametrize(("slug", "sequence"), sorted(NO_RANGE.items()))
def test_a_one_point_side_gives_no_matched_range(site: Path, slug: str, sequence: str) -> None:
    data = json.loads((site / slug / "comparison.json").read_text())
    seq = next(s for s in data["sequences"] if s["sequence"] == sequence)
    assert not seq["band"]["overlap"] and seq["targets"] == [] and seq["results"] == []
    assert min(len(side["frontier"]) for side in seq["sides"]) == 1  # the side with one measured point
    page = (site / slug / "index.html").read_text()
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert f"No matched range at {sequence}" in text
    for side in seq["sides"]:  # each side's measured range is given
        assert _range(side) in text
    assert "band 19–18" not in text and "band 75–74" not in text


def knot_bounds(sequence: dict[str, Any], result: dict[str, Any]) -> list[tuple[float, float]]:
    """Each side's tok/s/GPU bounds at a target: the lowest and highest throughput of the frontier
    knots whose interactivities bracket it (found here from the knots, not from `brackets`)."""
    x = result["interactivity"]
    found = []
    for side in sequence["sides"]:
        knots = [(k["interactivity"], k["throughput_per_gpu"]) for k in side["frontier"]]
        at = [y for kx, y in knots if kx == x]
        if not at:
            right = next(i for i, (kx, _) in enumerate(knots) if kx > x)
            at = [knots[right - 1][1], knots[right][1]]
        found.append((min(at), max(at)))
    return found


def outcomes(sequence: dict[str, Any]) -> list[tuple[int | None, float, float]]:
    """(the side the knots' worst case still leaves ahead, or None where they allow either side or
    a tie; leader ÷ other at the interpolated values; the leader's worst case) at each target where
    both sides were measured."""
    found = []
    for result in sequence["results"]:
        a, b = (m["throughput_per_gpu"] for m in result["sides"])
        if a is None or b is None:
            continue
        ends = knot_bounds(sequence, result)
        leader = 0 if a > b else 1
        worst = ends[leader][0] / ends[1 - leader][1]
        decided = abs(a - b) > TIE * max(a, b) and worst > 1 / (1 - TIE)
        found.append((leader if decided else None, max(a, b) / min(a, b), worst))
    return found


def test_every_headline_holds_under_the_knots_bounds(site: Path) -> None:
    """Each 'X ahead at <targets>' holds at the knots' worst case; a stated ratio is the table's,
    an 'at least N×' no more than the worst case; and the headline, meta description, Open Graph,
    JSON-LD and index card say the same."""
    checked = 0
    index = (site / "index.html").read_text()
    for folder, data in pages(site):
        if "matched-interactivity" not in data["sections"] or data["sweep"] is not None:
            continue  # a sweep page headlines its own findings (below)
        page = (folder / "index.html").read_text()
        summary = summary_of(page)
        sequence = data["sequences"][0]
        labels = [s["label"] for s in data["sides"]]
        found = {r["interactivity"]: o for r, o in zip(sequence["results"], outcomes(sequence), strict=False)}
        for match in re.finditer(
            "("
            + "|".join(map(re.escape, labels))
            + r") ahead at (?:[a-z ]+ targets \([^,]+, )?([\d., and]+?) tok/s/user",
            summary,
        ):
            leader = labels.index(match.group(1))
            for target in re.findall(r"\d+(?:\.\d+)?", match.group(2)):
                assert found[float(target)][0] == leader, (folder.name, summary)
                checked += 1
        for least in re.findall(r"at least (\d[\d,]*\.\d\d)×", summary):
            assert any(float(least) <= worst for leader, _, worst in found.values() if leader is not None)
        stated = set(re.findall(r"(?<![\d.,])(?<!least )(?<!between )(?<!and )(\d[\d,]*\.\d\d)×", summary))
        assert stated <= {fixed(ratio, 2) for _, ratio, _ in found.values()}, (folder.name, summary)
        (og,) = re.findall(r'<meta property="og:description" content="([^"]*)"', page)
        assert html.unescape(og).startswith(summary)
        assert summary in html.unescape(index)
    assert checked >= 20


def test_a_winner_the_knots_do_not_decide_is_said_so(site: Path) -> None:
    slug = "gb300-fp4-mtp-vs-off-dsr1"  # MTP's frontier is two measured points far apart
    data = json.loads((site / slug / "comparison.json").read_text())
    assert all(leader is None for leader, _, _ in outcomes(data["sequences"][0]))
    page = (site / slug / "index.html").read_text()
    assert summary_of(page).startswith("Winner not determined by the measurements at all three targets")
    findings = [t for t in texts(page, "p") if "tok/s/GPU winner not determined" in t]
    assert len(findings) == 3  # each paragraph
    assert "(winner not determined)</span>" in page  # in the table's cells
    assert 'title="winner not determined by the measurements: MTP ÷ Off between ' in page
    assert "sparse data" not in page


# what a point summary says beyond its deployment: the run, the load and the values measured
RUN_FIELDS = {
    "interactivity", "interactivity_source", "throughput_per_gpu", "output_throughput_per_gpu",
    "concurrency", "users_per_gpu", "date", "run_url", "record", "source_file", "dataset", "client",
    "on_frontier",
}  # fmt: skip


def deployment(knot: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in knot.items() if k not in RUN_FIELDS}


def test_concurrency_never_describes_no_deployment(site: Path) -> None:
    between = 0
    for _, data in pages(site):
        for sequence in data["sequences"]:
            for result in sequence["results"]:
                for m, side in zip(result["sides"], sequence["sides"], strict=True):
                    if not m["measured"] or len(m["brackets"]) != 2:
                        continue
                    low, high = (side["frontier"][k] for k in m["brackets"])
                    same = deployment(low) == deployment(high)
                    if m["concurrency"] is not None:
                        # interpolated only within one deployment, never rising with interactivity
                        assert same and low["concurrency"] >= high["concurrency"]
                        assert high["concurrency"] <= m["concurrency"] <= low["concurrency"]
                    else:
                        between += 1
                        assert "concurrency" in m["unavailable"]
    assert between > 100


def test_pooling_is_named_beside_the_table(site: Path) -> None:
    page = (site / "gb200-fp4-vs-fp8-dsr1" / "index.html").read_text()
    (pooled,) = [t for t in texts(page, "p") if t.startswith("At 1k/1k each side's frontier pools")]
    data = json.loads((site / "gb200-fp4-vs-fp8-dsr1" / "comparison.json").read_text())
    sides = data["sequences"][0]["sides"]
    for side in sides:
        for engine in side["engines"]:
            assert engine in pooled
        if side["unknown_gpu_counts"]:
            assert "no recorded GPU count" in pooled
        if side["dates"] and side["dates"][0] != side["dates"][1]:
            assert f"runs from {side['dates'][0]} to {side['dates'][1]}" in pooled


# -- unknown GPUs, pages with nothing to compare -----------------------------------------------------


@pytest.fixture
def gaudi(project: Path) -> Path:
    shutil.copy(ROOT / "tests" / "fixtures" / "unknown-gpu" / "gaudi3.csv", project / "data" / "results")
    return project


def test_an_unknown_gpu_is_warned_about_naming_gpu_and_file(gaudi: Path) -> None:
    report = run_check(Project.under(gaudi))
    (warning,) = [p for p in report.problems if "not in the hardware catalog" in p.reason]
    assert warning.severity is Severity.WARNING
    assert warning.file.endswith("gaudi3.csv") and "'gaudi3' is not in the hardware catalog" in warning.reason
    assert "data/hardware.yaml" in warning.reason and "constants:" in warning.reason


def test_an_unknown_gpu_is_named_as_written_and_credited_to_nobody(gaudi: Path) -> None:
    assert main(["build", "--root", str(gaudi), "-q"]) == 0
    # the one page on gaudi3 alone (its GPU-vs-GPU page against H200 has two GPUs' constants)
    (folder,) = [
        p
        for p in (gaudi / "site").iterdir()
        if p.name.startswith("gaudi3") and "-vs-h200" not in p.name and p.is_dir()
    ]
    data = json.loads((folder / "comparison.json").read_text())
    (constants,) = data["constants"]
    assert (constants["hardware_name"], constants["source"]) == ("gaudi3", "none")
    page = (folder / "index.html").read_text()
    assert "GAUDI3" not in page and "an unknown cost" not in page
    notes = " ".join(t for t in texts(page, "li") if "gaudi3" in t)
    assert "InferenceX" not in notes and "No cost or power constant is known for gaudi3" in notes


def test_a_generated_pair_with_nothing_to_compare_is_not_published(gaudi: Path) -> None:
    report = run_check(Project.under(gaudi))
    (notice,) = [
        p for p in report.problems if p.severity is Severity.NOTICE and "gaudi3-fp4-vs-fp8" in p.file
    ]
    assert "not published" in notice.reason
    assert main(["build", "--root", str(gaudi), "-q"]) == 0
    assert not (gaudi / "site" / "gaudi3-fp4-vs-fp8-dsr1").exists()
    assert "gaudi3-fp4-vs-fp8" not in (gaudi / "site" / "index.html").read_text()


def test_check_strict_fails_on_a_stub_page_with_no_matched_numbers(gaudi: Path) -> None:
    stub = gaudi / "content" / "gaudi3-fp4-vs-fp8.md"
    stub.write_text(STUB.replace("hardware: h200", "hardware: gaudi3"))
    report = run_check(Project.under(gaudi))
    (warning,) = [
        p for p in report.problems if p.file.endswith("gaudi3-fp4-vs-fp8.md") and "matched" in p.reason
    ]
    assert warning.severity is Severity.WARNING and "no matched numbers" in warning.reason
    assert report.failed(strict=True) and not report.failed(strict=False)
    assert LAB_CSV  # the h200 pages of the fixture still build


def test_pages_carry_open_graph_and_twitter_tags(site: Path) -> None:
    page = (site / "mi355x-fp4-vs-fp8-dsr1" / "index.html").read_text()
    summary = html.escape(summary_of(page))
    assert '<meta property="og:type" content="article">' in page
    assert '<meta property="og:url" content="https://example.org/bench/mi355x-fp4-vs-fp8-dsr1/">' in page
    assert f'<meta name="twitter:description" content="{summary}">' in page
    assert '<meta name="twitter:card" content="summary">' in page
    assert re.search(r'<meta property="og:title" content="MI355X[^"]*">', page)


def test_the_accuracy_runs_table_names_hardware_as_the_catalog_or_the_data_does(project: Path) -> None:
    # FP4's only run is on a GPU the catalog lacks: it stands in, named by its key as written
    scores = SCORES_CSV.replace("dsr1,h200,fp4,", "dsr1,gaudi3,fp4,")
    (project / "data" / "results" / "scores.csv").write_text(scores)
    assert main(["build", "--root", str(project), "-q"]) == 0
    page = (project / "site" / "h200-fp4-vs-fp8" / "index.html").read_text()
    cells = texts(page, "td")
    assert "gaudi3" in cells and "GAUDI3" not in page
    assert "H200" in cells  # FP8's run, named as the catalog names it


def test_example_data_is_marked_everywhere_a_reader_meets_the_page(site: Path) -> None:
    """Pages whose datasets are attributed as example or invented say so in the title, headline,
    index card, meta description and Open Graph text; pages of measured data do not."""
    index = html.unescape((site / "index.html").read_text())
    marked = 0
    for folder, data in pages(site):
        example = any(
            d["example"] or re.search(r"example data|invented", d["title"], re.I)
            for d in data["data_sources"]
        )
        page = html.unescape((folder / "index.html").read_text())
        (title,) = re.findall(r"<title>(.*?)</title>", page)
        (og,) = re.findall(r'<meta property="og:description" content="([^"]*)"', page)
        (description,) = re.findall(r'<meta name="description" content="([^"]*)"', page)
        summary = summary_of((folder / "index.html").read_text())
        said = [title, og, description, summary]
        if example:
            marked += 1
            assert all("Example data" in text for text in said), folder.name
            assert f"{data['title']}</a>" in index and data["title"].startswith("Example data")
        else:
            assert not any("Example data" in text for text in said), folder.name
    assert marked >= 2  # the example sweep's two pages


def test_a_gain_from_a_setting_one_side_lacks_is_named_in_the_headline(site: Path) -> None:
    """Where one side's frontier uses speculative decoding, disaggregation or a precision the
    other's lacks (read here from comparison.json), the headline names it."""
    named = 0
    for folder, data in pages(site):
        if "matched-interactivity" not in data["sections"]:
            continue
        sequence = data["sequences"][0]
        if not sequence["band"]["overlap"]:
            continue
        a, b = sequence["sides"]
        summary = summary_of((folder / "index.html").read_text())
        for side, other in ((a, b), (b, a)):
            if data["kind"] != "spec-decoding":
                for method in set(side["spec_methods"]) - set(other["spec_methods"]) - {"none"}:
                    assert f"{side['label']}'s frontier uses {method.upper()} speculative decoding" in summary
                    named += 1
            if "disagg" in side["modes"] and "disagg" not in other["modes"]:
                assert "disaggregated serving" in summary, folder.name
                named += 1
    assert named >= 3
    summary = summary_of((site / "mi355x-vs-mi300x-fp8-dsr1" / "index.html").read_text())
    assert (
        "MI355X's frontier uses MTP speculative decoding and disaggregated serving, which MI300X's lacks"
        in summary
    )


def test_every_page_opens_on_a_sequence_with_a_matched_range_where_it_has_one(site: Path) -> None:
    opened_elsewhere = 0
    for folder, data in pages(site):
        overlaps = [s["band"]["overlap"] for s in data["sequences"]]
        assert data["sequences"][0]["sequence"] == data["default_sequence"]
        if any(overlaps):
            assert overlaps[0], folder.name
            opened_elsewhere += data["default_sequence"] != "1k/1k" and any(
                s["sequence"] == "1k/1k" for s in data["sequences"]
            )
    assert opened_elsewhere >= 1  # b300-fp8-mtp-vs-off-dsr1: no matched range at 1k/1k, one at 8k/1k


def test_a_sweep_page_headlines_its_own_findings(site: Path) -> None:
    """The sweep page's headline gives its smallest and largest peak, matched-concurrency and SLA
    ratios (derived here from comparison.json), says where a peak sits on the highest concurrency
    a side tested, and no matched-interactivity ratio."""
    slug = "example-b200-fp4-vs-h200-fp8-sweep"
    data = json.loads((site / slug / "comparison.json").read_text())
    summary = summary_of((site / slug / "index.html").read_text())
    sweep = data["sweep"]
    peaks = sorted((w["peak_ratio"], w["sequence"]) for w in sweep["workloads"] if w["peak_ratio"])
    assert f"peak output tok/s from {fixed(peaks[0][0], 2)}× ({peaks[0][1]}" in summary
    assert f"to {fixed(peaks[-1][0], 2)}× ({peaks[-1][1]}" in summary
    matched = [p["ratio"] for w in sweep["workloads"] for p in w["output_throughput"] if p["ratio"]]
    assert f"matched concurrency from {fixed(min(matched), 2)}×" in summary
    assert f"to {fixed(max(matched), 2)}×" in summary
    sla = [w["sla_concurrency_ratio"] for w in sweep["workloads"] if w["sla_concurrency_ratio"]]
    assert f"users served within 50 ms per output token from {fixed(min(sla), 2)}×" in summary
    top = next(w for w in sweep["workloads"] if w["sequence"] == peaks[0][1])
    tested = [
        [p["concurrency"] for p in top["output_throughput"] if p["values"][i] is not None] for i in (0, 1)
    ]
    if all(peak["concurrency"] == max(t) for peak, t in zip(top["peaks"], tested, strict=True)):
        assert f"({peaks[0][1]}; at the highest concurrency both tested)" in summary
    assert "tok/s/user" not in summary


def _like_for_like(page: str) -> list[str]:
    """The slugs the like-for-like link under the headline points to."""
    return re.findall(r'<p class="like-for-like">[^<]*<a href="\.\./([^/]+)/index\.html">', page)


def test_a_confounded_headline_links_to_the_like_for_like_page_where_the_site_has_one(site: Path) -> None:
    """A headline whose caveat names a setting one side lacks links to the page whose sides share
    that setting and otherwise select the same (read from both pages' comparison.json)."""
    linked = 0
    for folder, data in pages(site):
        for slug in _like_for_like((folder / "index.html").read_text()):
            other = json.loads((site / slug / "comparison.json").read_text())
            ours = [side["filters"] for side in data["sides"]]
            theirs = [side["filters"] for side in other["sides"]]
            shared = {
                k
                for k in ("spec_method", "disagg", "precision")
                if all(k in f for f in theirs) and not any(k in f for f in ours)
            }
            assert shared and all(theirs[0][k] == theirs[1][k] for k in shared), (folder.name, slug)

            def rest(filters: dict[str, Any], shared: set[str] = shared) -> str:
                return json.dumps(
                    {k: v if v != [v[0]] else v[0] for k, v in filters.items() if k not in shared}
                )

            assert sorted(map(rest, ours)) == sorted(map(rest, theirs)), (folder.name, slug)
            linked += 1
    assert linked >= 1
    page = (site / "mi355x-vs-mi300x-fp8-dsr1" / "index.html").read_text()
    assert _like_for_like(page) == ["mi300x-vs-mi355x-fp8-dsr1"]


def test_a_confounded_headline_has_no_like_for_like_link_where_no_such_page_is_made(tmp_path: Path) -> None:
    """Without generated pages, MI355X against MI300X still names MTP in its caveat but links
    nowhere; with an author's page of the two GPUs both without speculative decoding, it links
    there."""
    for name in ("data", "templates"):
        shutil.copytree(ROOT / name, tmp_path / name)
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "site.yaml").write_text("auto_pages: false\n")
    stub = "mi355x-vs-mi300x-fp8-dsr1.md"
    shutil.copy(ROOT / "content" / stub, tmp_path / "content" / stub)
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    page = (tmp_path / "site" / "mi355x-vs-mi300x-fp8-dsr1" / "index.html").read_text()
    assert "MTP speculative decoding" in summary_of(page)
    assert _like_for_like(page) == [] and "Like for like" not in page
    alike = (
        (ROOT / "content" / stub)
        .read_text()
        .replace("precision: fp8\n", "precision: fp8\nspec_method: none\n")
    )
    (tmp_path / "content" / "gpus-without-mtp.md").write_text(alike.replace('title: "', 'title: "No MTP: '))
    assert main(["build", "--root", str(tmp_path), "-q"]) == 0
    page = (tmp_path / "site" / "mi355x-vs-mi300x-fp8-dsr1" / "index.html").read_text()
    assert _like_for_like(page) == ["gpus-without-mtp"]
