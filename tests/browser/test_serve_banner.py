"""build-site serve in a real browser: the build-error banner is in view wherever the page is."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser

from site_builder.project import Project
from site_builder.serve import start

IN_VIEW = """() => {
  const box = document.getElementById('build-error').getBoundingClientRect();
  return {top: box.top, bottom: box.bottom, height: box.height, scrolled: window.scrollY,
          fits: box.top >= 0 && box.height > 20 && box.bottom <= window.innerHeight};
}"""


def test_the_error_banner_is_in_view_however_far_the_page_is_scrolled(
    browser: Browser, project: Path
) -> None:
    """A live reload keeps the reader's scroll position; the banner it brings is in the window
    there, and stays there while the reader scrolls up or down."""
    server = start(Project.under(project), port=0, log=lambda line: None)
    context = browser.new_context(viewport={"width": 1280, "height": 700})
    try:
        page = context.new_page()
        page.goto(server.url + "h200-fp4-vs-fp8/")
        page.wait_for_selector("html[data-ready=true]")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        bottom = page.evaluate("window.scrollY")
        assert bottom > 700  # a page longer than the window, read at its end
        stub = project / "content" / "h200-fp4-vs-fp8.md"
        stub.write_text(stub.read_text().replace("kind: precision", "kind: precisionn"))
        page.wait_for_selector("#build-error", timeout=30000)
        page.wait_for_selector("html[data-ready=true]")
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")  # as the reader left it
        where = page.evaluate(IN_VIEW)
        assert where["scrolled"] > 700 and where["fits"], where
        assert where["top"] < 1, where  # at the top of the window
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
        assert page.evaluate(IN_VIEW)["fits"]
        assert "precisionn" in (page.locator("#build-error").text_content() or "")
    finally:
        context.close()
        server.shutdown()
