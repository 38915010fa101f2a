"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright, over a built site."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from site_builder.cli import main
from tests.conftest import shared_build

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts" / "screenshots"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in tests/browser/ carries the `browser` mark, so `-m 'not browser'` leaves them out.

    (A `pytestmark` in a conftest applies to nothing: pytest reads it only from test modules.)
    """
    for item in items:
        if item.path.resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


if not CHROMIUM.is_file():
    if os.environ.get("CI"):
        raise RuntimeError(f"{CHROMIUM} is missing: the README's test command installs Debian's chromium")
    pytest.skip("no Chromium at /usr/bin/chromium (install Debian's chromium)", allow_module_level=True)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default site, built once for the run (`shared_build`), placed under /sub/path/ of a
    served folder."""

    def build(project: Path) -> Path:
        for name in ("data", "content", "templates", "docs"):
            shutil.copytree(ROOT / name, project / name)
        out = project / "www" / "sub" / "path"
        assert main(["build", "--root", str(project), "-q", "-o", str(out)]) == 0
        return out

    return shared_build(tmp_path_factory, "browser-project", build)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(folder: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def root_url(built_site: Path) -> Iterator[str]:
    """The site served at the root of a local static server."""
    yield from _serve(built_site)


@pytest.fixture(scope="session")
def subpath_url(built_site: Path) -> Iterator[str]:
    """The same site served under /sub/path/."""
    for base in _serve(built_site.parent.parent):
        yield base + "sub/path/"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()
