"""Authoring workflow: new, check, schema, and the guides in the built site."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from site_builder.cli import main
from site_builder.content import stub_json_schema

ROOT = Path(__file__).resolve().parents[1]
MORE_LAB = """dsr1,h100,sglang,fp8,none,8,8,1024,1024,4,200.0,11.0,2026-09-01
dsr1,h100,sglang,fp8,none,8,8,1024,1024,64,1200.0,45.0,2026-09-01
dsr1,h200,sglang,fp8,mtp,8,8,1024,1024,4,400.0,8.0,2026-09-03
dsr1,h200,sglang,fp8,mtp,8,8,1024,1024,64,2100.0,30.0,2026-09-03
"""


@pytest.mark.parametrize(
    ("args", "slug", "labels"),
    [
        (
            ["precision", "--model", "dsr1", "--gpu", "h200", "--sides", "fp4", "fp8"],
            "h200-fp4-vs-fp8-dsr1",
            ["FP4", "FP8"],
        ),
        (
            [
                "spec-decoding",
                "--model",
                "dsr1",
                "--gpu",
                "h200",
                "--precision",
                "fp8",
                "--sides",
                "mtp",
                "none",
            ],
            "h200-fp8-mtp-vs-off-dsr1",
            ["MTP", "Off"],
        ),
        (
            ["hardware", "--model", "dsr1", "--precision", "fp8", "--sides", "h200", "h100"],
            "h200-vs-h100-fp8-dsr1",
            ["H200", "H100"],
        ),
    ],
)
def test_new_then_build_gives_a_working_page(
    project: Path, args: list[str], slug: str, labels: list[str]
) -> None:
    (project / "content" / "h200-fp4-vs-fp8.md").unlink()
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + MORE_LAB)
    assert main(["new", *args, "--root", str(project)]) == 0
    stub = project / "content" / f"{slug}.md"
    text = stub.read_text()
    for key in (
        "kind:",
        "title:",
        "slug:",
        "model:",
        "hardware:",
        "precision:",
        "spec_method:",
        "framework:",
        "disagg:",
        "dataset:",
        "sequence:",
        "sides:",
        "targets:",
        "cost_tier:",
        "constants:",
        "draft:",
    ):
        assert f"\n{key}" in text, key
    assert text.count("\n# ") >= 12  # every field explained
    assert main(["build", "--root", str(project), "-q"]) == 0
    data = json.loads((project / "site" / slug / "comparison.json").read_text())
    assert [s["label"] for s in data["sides"]] == labels
    first = data["sequences"][0]
    assert first["band"]["overlap"] and all(m["measured"] for m in first["results"][1]["sides"])
    assert (project / "site" / slug / "index.html").is_file()


def test_new_never_overwrites(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "new",
        "precision",
        "--model",
        "dsr1",
        "--gpu",
        "h200",
        "--sides",
        "fp4",
        "fp8",
        "--root",
        str(project),
    ]
    assert main([*args, "--name", "h200-fp4-vs-fp8"]) == 1
    assert "never overwrites" in capsys.readouterr().err
    assert "A small comparison for tests." in (project / "content" / "h200-fp4-vs-fp8.md").read_text()


BROKEN = """---
kind: precision
modle: dsr1
hardware: h200
targets: [40, fast]
sides:
  - label: FP4
    precison: fp4
  - {label: FP8, precision: fp8}
---
"""


def check(project: Path, *extra: str) -> tuple[int, dict[str, object]]:
    code = main(["check", "--root", str(project), "--format", "json", *extra])
    return code, {}


def test_check_reports_typos_types_and_missing_data(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "content" / "broken.md").write_text(BROKEN)
    (project / "content" / "nomodel.md").write_text(
        "---\nkind: precision\nmodel: dsr\nhardware: h200\nsides:\n"
        "  - {label: A, precision: fp4}\n  - {label: B, precision: fp8}\n---\n"
    )
    assert main(["check", "--root", str(project), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    problems = {(p["file"], p["line"], p["field"]): p for p in report["problems"]}
    typo = problems[("content/broken.md", 3, "modle")]
    assert typo["suggestion"] == "model" and "did you mean 'model'" in typo["reason"]
    nested = problems[("content/broken.md", 8, "sides[0].precison")]
    assert nested["suggestion"] == "precision"
    assert "valid number" in problems[("content/broken.md", 5, "targets[1]")]["reason"]
    missing = [p for p in report["problems"] if p["file"] == "content/nomodel.md"]
    assert {(p["line"], p["field"], p["suggestion"]) for p in missing} == {(3, "model", "dsr1")}
    assert all("no points with model=dsr among all data; available: dsr1" in p["reason"] for p in missing)
    assert not (project / "site").exists()  # check writes nothing


def test_check_text_and_strict(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--root", str(project)]) == 0
    assert capsys.readouterr().out.strip().startswith("check ok: 1 pages from 7 points")
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h200,sglang,fp8,none,8,8,1024,1024,64,1700.0,41.0,2026-08-01\n")
    assert main(["check", "--root", str(project)]) == 0
    assert main(["check", "--root", str(project), "--strict"]) == 1
    assert "duplicate point" in capsys.readouterr().out


def test_check_a_built_site_finds_broken_links(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--root", str(project), "-q"]) == 0
    assert main(["check", "--root", str(project), "--site", str(project / "site"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["site_checked"] is True
    page = project / "site" / "h200-fp4-vs-fp8" / "index.html"
    page.write_text(
        page.read_text().replace(
            'class="site-title" href="../index.html"', 'class="site-title" href="../gone.html"'
        )
    )
    assert main(["check", "--root", str(project), "--site", str(project / "site"), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (broken,) = [p for p in report["problems"] if p["reason"] == "broken link"]
    assert broken["file"] == "h200-fp4-vs-fp8/index.html" and broken["field"] == "../gone.html"


def test_schema_file_is_current() -> None:
    committed = json.loads((ROOT / "docs" / "stub.schema.json").read_text())
    assert committed == json.loads(json.dumps(stub_json_schema()))
    assert committed["additionalProperties"] is False
    assert set(committed["required"]) == {"kind", "model", "sides"}


def test_guides_are_in_the_site(project: Path) -> None:
    import shutil

    shutil.copytree(ROOT / "docs", project / "docs")
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    for name in ("authoring", "data-format", "deployment", "comparison-json"):
        assert (site / "docs" / name / "index.html").is_file()
    page = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert 'href="../methodology/index.html"' in page and 'href="../docs/authoring/index.html"' in page
    methodology = (site / "methodology" / "index.html").read_text()
    assert "Why cost is derived from throughput" in methodology


def _with_two_variants(project: Path) -> None:
    """The lab's H200 FP8 runs measured twice, once as each variant of one configuration."""
    csv = project / "data" / "results" / "lab.csv"
    header, *rows = csv.read_text().splitlines()
    fp8 = [row for row in rows if ",h200," in row and ",fp8," in row]
    assert fp8, "the lab data has H200 FP8 points"
    (project / "data" / "results" / "ab.csv").write_text(
        "\n".join([header + ",variant", *(row + ",cc-on" for row in fp8), *(row + ",cc-off" for row in fp8)])
        + "\n"
    )
    csv.unlink()
    (project / "content" / "h200-fp4-vs-fp8.md").unlink()


def test_new_custom_by_a_field_writes_sides_that_select_their_points(project: Path) -> None:
    """An A/B of one configuration (CC on vs off) is one `build-site new custom --by variant`."""
    _with_two_variants(project)
    args = ["custom", "--model", "dsr1", "--gpu", "h200", "--by", "variant", "--sides", "cc-on", "cc-off"]
    assert main(["new", *args, "--root", str(project)]) == 0
    (stub,) = (project / "content").glob("*.md")
    assert "\n    variant: cc-on\n" in stub.read_text() and "framework: cc-on" not in stub.read_text()
    assert main(["build", "--root", str(project), "-q"]) == 0
    data = json.loads((project / "site" / stub.stem / "comparison.json").read_text())
    assert [s["label"] for s in data["sides"]] == ["CC-ON", "CC-OFF"]


def test_a_side_filtering_a_value_under_the_wrong_field_is_told_which_field_holds_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_two_variants(project)
    args = ["custom", "--model", "dsr1", "--gpu", "h200", "--sides", "cc-on", "cc-off"]  # framework
    assert main(["new", *args, "--root", str(project)]) == 0
    assert main(["check", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "no points with framework=cc-on" in out
    assert "cc-on is a variant in the data: filter with variant: cc-on" in out


def test_by_is_for_custom_pages_and_configuration_fields(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["new", "--root", str(project), "--model", "dsr1", "--gpu", "h200", "--sides", "a", "b"]
    assert main([*base[:1], "precision", *base[1:], "--by", "variant"]) == 1
    assert "--by applies to custom pages" in capsys.readouterr().err
    assert main([*base[:1], "custom", *base[1:], "--by", "colour"]) == 1
    assert "not a configuration field" in capsys.readouterr().err
