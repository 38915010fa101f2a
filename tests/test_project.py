"""A tool people install anywhere: packaged defaults, overrides, `init`, one output path per source."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from site_builder.cli import main
from site_builder.project import OPERATOR_GUIDES, Project, default_catalogs, default_guides, default_theme
from tests.conftest import ROOT


def test_defaults_are_the_repository_folders_in_a_checkout() -> None:
    assert default_theme() == ROOT / "templates"
    assert default_catalogs() == ROOT / "data"
    assert default_guides() == ROOT / "docs"


def test_a_project_with_only_content_and_data_builds_from_the_packaged_defaults(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "demo")]) == 0
    demo = tmp_path / "demo"
    assert not (demo / "templates").exists() and not (demo / "data" / "hardware.yaml").exists()
    assert main(["build", "--root", str(demo), "-q"]) == 0
    site = demo / "site"
    page = (site / "h200-fp4-vs-fp8-example" / "index.html").read_text()
    assert "H200: FP4 vs FP8 Precision Comparison" in page
    assert (site / "methodology" / "index.html").is_file()
    assert (site / "assets" / "site.css").read_bytes() == (ROOT / "templates/assets/site.css").read_bytes()
    assert main(["check", "--root", str(demo)]) == 0


def test_init_writes_a_working_project_with_attributed_example_data(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    assert main(["init", str(demo)]) == 0
    written = sorted(p.relative_to(demo).as_posix() for p in demo.rglob("*") if p.is_file())
    assert written == [
        ".gitignore",
        "README.md",
        "content/h200-fp4-vs-fp8-example.md",
        "content/site.yaml",
        "data/results/example/_dataset.yaml",
        "data/results/example/example.csv",
    ]
    assert main(["build", "--root", str(demo), "-q"]) == 0
    document = json.loads((demo / "site/h200-fp4-vs-fp8-example/comparison.json").read_text())
    (source,) = document["data_sources"]
    assert source["dataset"] == "example" and "not measurements" in source["source"]
    # FP4's invented sweep is faster at every interactivity both sides reach
    seq = document["sequences"][0]
    for target in seq["results"]:
        fp4, fp8 = target["sides"]
        assert fp4["throughput_per_gpu"] > fp8["throughput_per_gpu"]


def test_init_refuses_a_folder_with_anything_in_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["init", str(tmp_path)]) == 1
    assert "not empty" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_project_overrides_a_template_an_asset_and_the_catalog(project: Path) -> None:
    shutil.rmtree(project / "templates")
    (project / "templates" / "assets").mkdir(parents=True)
    base = (ROOT / "templates" / "base.html").read_text()
    (project / "templates" / "base.html").write_text(base.replace("<body>", "<body><p>OUR BANNER</p>"))
    (project / "templates" / "assets" / "site.css").write_text("body { color: red }\n")
    (project / "templates" / "assets" / "logo.svg").write_text("<svg/>")
    catalog = (
        (ROOT / "data" / "hardware.yaml")
        .read_text()
        .replace("usd_per_gpu_hour: {hyperscaler: 1.41", "usd_per_gpu_hour: {hyperscaler: 2.82")
    )
    assert "2.82" in catalog, "the H200 line of the catalog changed: update this test"
    (project / "data" / "hardware.yaml").write_text(catalog)
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    assert "OUR BANNER" in (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert (site / "assets" / "site.css").read_text() == "body { color: red }\n"
    assert (site / "assets" / "logo.svg").is_file()
    assert (site / "assets" / "site.js").read_bytes() == (ROOT / "templates/assets/site.js").read_bytes()
    constants = json.loads((site / "h200-fp4-vs-fp8" / "comparison.json").read_text())["constants"]
    assert [c["usd_per_gpu_hour"] for c in constants] == [2.82]


def test_a_themes_head_reaches_every_page_and_every_embed(project: Path) -> None:
    """One head (templates/head.html) for the pages (base.html) and the embeds (embed.html): a
    theme changing it changes both."""
    shutil.rmtree(project / "templates")
    (project / "templates").mkdir()
    head = (ROOT / "templates" / "head.html").read_text()
    colour = '<meta name="color-scheme" content="light dark">'
    assert colour in head
    (project / "templates" / "head.html").write_text(
        head.replace(colour, colour + '\n<meta name="theme-color" content="#123456">')
    )
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    for page in ("h200-fp4-vs-fp8/index.html", "embed/h200-fp4-vs-fp8/index.html", "index.html", "404.html"):
        assert f'{colour}\n<meta name="theme-color" content="#123456">\n' in (site / page).read_text(), page


def test_a_project_guide_replaces_the_packaged_one_and_adds_its_own(project: Path) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "methodology.md").write_text("# Methodology\n\nOur own words.\n")
    (project / "docs" / "faq.md").write_text("# Questions\n\nAsked often.\n")
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    assert "Our own words." in (site / "methodology" / "index.html").read_text()
    assert "Asked often." in (site / "docs" / "faq" / "index.html").read_text()
    assert (site / "docs" / "data-format" / "index.html").is_file()  # the packaged guides remain


@pytest.mark.parametrize(
    ("slug", "holder"),
    [
        ("methodology", "the guide (docs/methodology.md, packaged)"),
        ("assets", "the theme's assets"),
        ("index", "the index page"),
        ("docs", "the guide (docs/comparison-json.md, packaged)"),
        ("404", "the 404 page"),
    ],
)
def test_a_stub_whose_page_would_overwrite_another_file_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str], slug: str, holder: str
) -> None:
    stub = project / "content" / "clash.md"
    stub.write_text(
        (project / "content" / "h200-fp4-vs-fp8.md")
        .read_text()
        .replace("---\nkind", f"---\nslug: '{slug}'\nkind", 1)
    )
    assert main(["build", "--root", str(project), "-q"]) == 1
    err = capsys.readouterr().err
    assert f"error: content/clash.md, field 'slug': comparison page (content/clash.md) writes {slug}" in err
    assert holder in err
    assert not (project / "site").exists()
    assert main(["check", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "content/clash.md" in out and holder in out and "check failed" in out


def test_slugs_that_share_no_address_with_site_files_are_fine(project: Path) -> None:
    """robots.txt and sitemap.xml are files, not folders: slugs 'robots' and 'sitemap' clash with nothing."""
    for slug in ("robots", "sitemap"):
        text = (project / "content" / "h200-fp4-vs-fp8.md").read_text()
        (project / "content" / f"{slug}.md").write_text(text.replace("kind: precision", "kind: custom"))
    assert main(["build", "--root", str(project), "-q", "--site-url", "https://example.org/"]) == 0
    site = project / "site"
    assert (site / "robots" / "index.html").is_file() and (site / "robots.txt").is_file()
    assert (site / "sitemap" / "index.html").is_file() and (site / "sitemap.xml").is_file()


def test_check_reads_the_guides_and_names_a_file_that_is_not_utf8(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "broken.md").write_bytes(b"# Guide\n\ncaf\xe9 au lait\n")
    assert main(["check", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "error: docs/broken.md, line 3: not valid UTF-8 (byte 12" in out
    assert main(["build", "--root", str(project), "-q"]) == 1
    assert "docs/broken.md" in capsys.readouterr().err


def test_check_reports_a_template_syntax_error_with_file_and_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = (ROOT / "templates" / "index.html").read_text().replace("{% for", "{% fro", 1)
    (project / "templates" / "index.html").write_text(broken)
    assert main(["check", "--root", str(project)]) == 1
    out = capsys.readouterr().out
    assert "error: templates/index.html, line" in out and "template syntax error" in out


def test_project_paths_resolve_overrides_file_by_file(project: Path) -> None:
    own = Project.under(project)
    assert own.template_folders() == [project / "templates", default_theme()]
    assert own.catalog_file("hardware.yaml") == project / "data" / "hardware.yaml"
    packaged = default_catalogs() / "hardware.yaml"
    assert own.catalog_files("hardware.yaml") == (packaged, project / "data" / "hardware.yaml")
    (project / "data" / "models.yaml").unlink()
    assert own.catalog_file("models.yaml") == default_catalogs() / "models.yaml"
    assert own.catalog_files("models.yaml") == (default_catalogs() / "models.yaml", None)
    guides = {p.name for p in default_guides().glob("*.md")}
    readers = {"methodology.md", "data-format.md", "comparison-json.md"}
    assert set(own.guide_files()) == readers  # the operators' guides only when asked for
    assert set(own.guide_files(["deployment", "performance"])) == readers | {
        "deployment.md",
        "performance.md",
    }
    assert set(own.guide_files(OPERATOR_GUIDES)) == guides  # every packaged guide is one or the other


def test_the_wheel_carries_the_theme_catalogs_and_guides(tmp_path: Path) -> None:
    """What `pip install .` installs: every default a project can go without, and every subpackage."""
    import subprocess
    import sys
    import tomllib
    import zipfile

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "site_builder").rglob("__init__.py")
    }
    assert on_disk <= set(declared), "a subpackage is missing from [tool.setuptools] packages"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("site_builder-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    theme = {
        f"site_builder/defaults/theme/{p.relative_to(ROOT / 'templates').as_posix()}"
        for p in (ROOT / "templates").rglob("*")
        if p.is_file()
    }
    guides = {f"site_builder/defaults/guides/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    catalogs = {"site_builder/defaults/catalog/hardware.yaml", "site_builder/defaults/catalog/models.yaml"}
    assert theme | guides | catalogs <= names
    assert not any(
        n.startswith("site_builder/defaults/catalog/results") for n in names
    )  # not the default site's data
