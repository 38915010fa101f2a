"""Preview images (`build-site build --preview-images`): each comparison page's chart as a
1200×630 PNG beside it, named by the page's og:image and twitter:image; one notice and no images
where kaleido or a browser is missing; nothing changes without the flag.

The tests that draw images need kaleido, an optional extra (`pip install '.[preview]'`) that the
README's test command does not install, and a Chrome or Chromium: without them they skip, saying
why, under CI too.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import re
import struct
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from site_builder.cli import main, parser
from site_builder.pipeline import build, run
from site_builder.present.preview import preview_figure
from site_builder.project import Project
from site_builder.render import images
from site_builder.render.images import PreviewImages, find_browser
from tests.conftest import LAB_CSV, ROOT

B200 = [line.replace(",h200,", ",b200,") for line in LAB_CSV.splitlines() if ",h200,sglang,fp8," in line]
SITE_URL = "https://example.org/bench/"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def needs_browser() -> None:
    """Skip, saying why, where images cannot be drawn (kaleido is an optional extra)."""
    browser, why_not = find_browser()
    if browser is None:
        pytest.skip(f"{why_not} (an optional extra the test command does not install: skipped under CI too)")


def two_pages(project: Path) -> Path:
    """The tiny project with a second page (B200 vs H200 at FP8)."""
    (project / "data" / "results" / "lab.csv").write_text(LAB_CSV + "\n".join(B200) + "\n")
    return project


class Heads(HTMLParser):
    """A page's <meta> tags: property or name -> content."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        key = found.get("property") or found.get("name")
        if tag == "meta" and key:
            self.meta[key] = found.get("content") or ""


def meta(page: Path) -> dict[str, str]:
    heads = Heads()
    heads.feed(page.read_text())
    return heads.meta


def png_size(content: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk, which comes first after the signature."""
    assert content[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", content[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", content[16:24])
    return width, height


def slugs(site: Path) -> list[str]:
    return sorted(p.parent.name for p in site.glob("*/comparison.json"))


def every_file(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


# -- the flag is documented -----------------------------------------------------------------------


def test_build_help_documents_the_flag() -> None:
    shown = " ".join(parser().commands["build"].format_help().split())
    assert "--preview-images" in shown
    assert "1200x630" in shown and "pip install 'site-builder[preview]'" in shown


# -- with kaleido and a browser ---------------------------------------------------------------------


def test_every_page_gets_a_preview_image_its_head_names(project: Path) -> None:
    needs_browser()
    two_pages(project)
    made = build(Project.under(project, project / "site"), site_url=SITE_URL, preview_images=True, workers=1)
    site = project / "site"
    assert made.remarks == [] and slugs(site) == ["b200-vs-h200-fp8-dsr1", "h200-fp4-vs-fp8"]
    for slug in slugs(site):
        assert png_size((site / slug / "preview.png").read_bytes()) == (1200, 630)
        head = meta(site / slug / "index.html")
        address = f"{SITE_URL}{slug}/preview.png"
        assert head["og:image"] == head["twitter:image"] == address
        assert (head["og:image:width"], head["og:image:height"]) == ("1200", "630")
        assert head["twitter:card"] == "summary_large_image"
        title = json.loads((site / slug / "comparison.json").read_text())["title"]
        assert head["og:image:alt"].endswith(title)
    first = every_file(site)

    again = build(Project.under(project, project / "site"), site_url=SITE_URL, preview_images=True, workers=1)
    assert again.rendered == []  # every page, its image too, from the page cache: no page drawn again
    assert every_file(site) == first

    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text() + "One more sentence.\n")
    edited = build(
        Project.under(project, project / "site"), site_url=SITE_URL, preview_images=True, workers=1
    )
    assert edited.rendered == ["h200-fp4-vs-fp8"]  # only the edited page (and its image) made again
    assert every_file(site)["b200-vs-h200-fp8-dsr1/preview.png"] == first["b200-vs-h200-fp8-dsr1/preview.png"]
    assert png_size(every_file(site)["h200-fp4-vs-fp8/preview.png"]) == (1200, 630)

    without = build(Project.under(project, project / "site"), site_url=SITE_URL, workers=1)
    assert sorted(without.rendered) == slugs(site)  # the pages differ: their heads name no image
    assert not list(site.rglob("preview.png"))
    assert all("og:image" not in meta(site / slug / "index.html") for slug in slugs(site))


def test_without_a_site_url_the_image_is_named_relative_to_its_page(project: Path) -> None:
    needs_browser()
    assert main(["build", "--root", str(project), "-q", "--no-cache", "--preview-images"]) == 0
    page = project / "site" / "h200-fp4-vs-fp8" / "index.html"
    head = meta(page)
    assert head["og:image"] == head["twitter:image"] == "preview.png"
    assert png_size((page.parent / head["og:image"]).read_bytes()) == (1200, 630)


def test_a_build_called_inside_a_running_event_loop_draws_its_images(project: Path) -> None:
    """A caller may already run an event loop in its thread (Playwright's sync API does, for the
    whole of a browser-test session): the images are drawn all the same."""
    needs_browser()

    async def build_inside_a_loop() -> int:
        return main(["build", "--root", str(project), "-q", "--no-cache", "--preview-images"])

    # in a thread of its own: this test's thread may run Playwright's loop already
    with ThreadPoolExecutor(1) as thread:
        assert thread.submit(asyncio.run, build_inside_a_loop()).result() == 0
    assert png_size((project / "site" / "h200-fp4-vs-fp8" / "preview.png").read_bytes()) == (1200, 630)


def test_a_browser_that_does_not_start_stops_the_build_with_one_error(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    needs_browser()
    monkeypatch.setenv("BROWSER_PATH", "/bin/false")  # found and runnable, but no browser
    two_pages(project)
    assert main(["build", "--root", str(project), "-q", "--no-cache", "--preview-images"]) == 1
    err = capsys.readouterr().err
    assert err.count("preview image not drawn") == 1 and "BROWSER_PATH" in err
    assert not (project / "site").exists()


# -- what draws the images is in the page cache's keys (no browser needed) ------------------------


def test_a_rebuild_draws_the_images_again_when_what_draws_them_changed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached rebuild reuses the images while kaleido, its browser driver and the browser are
    the same; a browser updated in place (its program file replaced), another kaleido or another
    choreographer, and the pages (their images) are made again."""
    two_pages(project)
    browser = project / "chromium"
    browser.write_text("#!/bin/sh\n# version 1\n")
    versions = {"kaleido": "1.0.0", "choreographer": "1.0.0"}
    real_version = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: versions.get(name) or real_version(name))
    monkeypatch.setattr(images, "find_browser", lambda: (str(browser), None))
    drawn: list[dict[str, Any]] = []  # the figures drawn, in place of a browser

    def png(self: PreviewImages, figure: dict[str, Any]) -> bytes:
        drawn.append(figure)
        return PNG_SIGNATURE + b"drawn"

    monkeypatch.setattr(PreviewImages, "png", png)

    def rebuilt() -> int:
        """How many images a cached build drew."""
        before = len(drawn)
        made = build(Project.under(project, project / "site"), preview_images=True, cache=True, workers=1)
        assert made.remarks == [] and (project / "site" / "h200-fp4-vs-fp8" / "preview.png").is_file()
        return len(drawn) - before

    pages = rebuilt()
    assert pages == len(slugs(project / "site")) == 2
    assert rebuilt() == 0  # nothing changed: every page from the cache
    browser.write_text("#!/bin/sh\n# version 2, a longer file\n")  # the browser updated
    assert rebuilt() == pages
    assert rebuilt() == 0
    versions["kaleido"] = "1.0.1"
    assert rebuilt() == pages
    versions["choreographer"] = "1.0.1"
    assert rebuilt() == pages
    assert rebuilt() == 0


# -- without kaleido or a browser -------------------------------------------------------------------


def test_without_kaleido_the_build_succeeds_with_one_notice_and_no_images(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    two_pages(project)
    assert main(["build", "--root", str(project), "-q", "--no-cache", "-o", str(project / "plain")]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "kaleido", None)  # `import kaleido` fails, as where it is not installed
    for verbose in ([], ["-v"]):
        assert main(["build", "--root", str(project), "-q", "--no-cache", "--preview-images", *verbose]) == 0
        said = capsys.readouterr()
        lines = [line for line in (said.out + said.err).splitlines() if "preview images" in line]
        assert lines == [
            "notice: preview images skipped: the kaleido package is not installed; "
            "install it with `pip install 'site-builder[preview]'`"
        ]
        assert every_file(project / "site") == every_file(project / "plain")  # as without the flag


def test_without_a_browser_the_build_succeeds_with_one_notice_naming_browser_path(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        import kaleido  # noqa: F401
    except ImportError:
        pytest.skip("kaleido (the optional 'preview' extra) is not installed: the test above covers that")
    missing = project / "no-such-browser"
    monkeypatch.setenv("BROWSER_PATH", str(missing))
    made = build(Project.under(project, project / "site"), preview_images=True, cache=False, workers=1)
    assert made.remarks == [
        f"notice: preview images skipped: BROWSER_PATH={missing} is not a program; "
        "set it to a Chrome or Chromium"
    ]
    assert not list((project / "site").rglob("preview.png"))


# -- what the image shows (no browser needed) -------------------------------------------------------


def _figure(project: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The tiny project's page's preview figure and its comparison.json."""
    made = run(Project.under(project, project / "site"))
    page = next(p for p in made.pages if p.comparison.slug == "h200-fp4-vs-fp8")
    figure = preview_figure(page.comparison, page.points)
    assert figure is not None
    document = json.loads(made.files["h200-fp4-vs-fp8/comparison.json"])
    return figure, document


def test_the_figure_is_the_default_chart_with_the_pages_values(project: Path) -> None:
    figure, document = _figure(project)
    layout, traces = figure["layout"], {t["name"]: t for t in figure["data"]}
    assert (layout["width"], layout["height"]) == (1200, 630)
    assert document["title"] in layout["title"]["text"]
    assert "Example data" not in json.dumps(figure)
    default = next(s for s in document["sequences"] if s["sequence"] == document["default_sequence"])
    for n, side in enumerate(default["sides"]):
        label = side["label"]
        curve, points, targets = (
            traces[f"{label} {role}"] for role in ("frontier", "measured", "at targets")
        )
        knots = {k["interactivity"]: k["throughput_per_gpu"] for k in side["frontier"]}
        drawn = dict(zip(curve["x"], curve["y"], strict=True))
        assert all(drawn[x] == pytest.approx(y) for x, y in knots.items())  # the curve passes its knots
        assert len(curve["x"]) >= 64 and min(curve["x"]) == min(knots) and max(curve["x"]) == max(knots)
        assert len(points["x"]) == side["point_count"]
        at = [(r["interactivity"], r["sides"][n]) for r in default["results"]]
        expected = [(x, s["throughput_per_gpu"]) for x, s in at if s["measured"]]
        assert list(targets["x"]) == pytest.approx([x for x, _ in expected])
        assert list(targets["y"]) == pytest.approx([y for _, y in expected])


def test_example_data_is_marked_on_the_image(project: Path) -> None:
    (project / "data" / "results" / "_dataset.yaml").write_text(
        "id: lab\ntitle: Lab runs\nsource: made up for a test\nexample: true\n"
    )
    figure, document = _figure(project)
    assert str(document["title"]).startswith("Example data")
    text = json.dumps(figure["layout"])
    assert "Example data: not measurements" in text


def test_the_image_colours_are_the_default_themes_light_ones() -> None:
    from site_builder.present.preview import COLOURS

    css = (ROOT / "templates" / "assets" / "site.css").read_text()
    light = dict(re.findall(r"--(\w+):\s*light-dark\((#\w+|rgba\([^)]*\)),", css))
    assert COLOURS["bg"] == light["bg"] and COLOURS["fg"] == light["fg"]
    assert COLOURS["grid"] == light["grid"]
    assert COLOURS["sides"] == [light["side0"], light["side1"]]
