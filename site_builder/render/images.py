"""Preview images (`build-site build --preview-images`): each page's preview figure
(present/preview.py) drawn to a PNG by Plotly's static export, kaleido, in one headless Chrome or
Chromium for the whole build. kaleido is an optional extra (`pip install 'site-builder[preview]'`);
where it or a browser is missing, the build goes on without preview images and says so once.

The browser starts at the first image, not before: the pages' workers are forked from a process
with one thread only (runner.py), and the browser brings threads. Its event loop runs in a thread
of its own (the caller may be inside a running event loop, e.g. Playwright's), one image at a time;
`close` ends the browser, the loop and the thread, so nothing here outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.metadata
import os
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from site_builder.present.preview import HEIGHT, WIDTH

EXTRA = "pip install 'site-builder[preview]'"
SKIPPED = "preview images skipped"
# the chart library the pages load (render/site.py PLOTLY_FOLDER): no download, the same drawing
PLOTLY_JS = Path(__file__).resolve().parents[1] / "vendor" / "plotly" / "plotly-basic.min.js"
PNG = {"format": "png", "width": WIDTH, "height": HEIGHT, "scale": 1}
DRIVERS = ("kaleido", "choreographer")  # the packages that draw, by their distribution names


class ImageFailed(Exception):
    """The browser could not draw an image (it did not start, crashed or timed out)."""


class PreviewImages:
    """One headless browser drawing every preview image of a build, started at the first."""

    def __init__(self, browser: str) -> None:
        self.browser = browser
        self.drawn_by = drawn_by(browser)  # for the page cache's keys
        self.failed: str | None = None  # why the last image was not drawn (the build then stops)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None  # runs the loop
        self._kaleido: Any = None
        self._opened = contextlib.AsyncExitStack()  # closes the browser

    def png(self, figure: dict[str, Any]) -> bytes:
        """The figure as PNG bytes, WIDTH × HEIGHT pixels; ImageFailed says why not."""
        try:
            if self._kaleido is None:
                self._start()
            image = self._run(self._kaleido.calc_fig(figure, opts=PNG))
        except Exception as exc:  # the browser's or kaleido's, whatever they raise: said, never a traceback
            self.failed = f"{type(exc).__name__}: {exc}".rstrip(": ")
            raise ImageFailed(self.failed) from exc
        return bytes(image)

    def _run(self, work: Coroutine[Any, Any, Any]) -> Any:
        """The coroutine run to its end on the images' own loop."""
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def _start(self) -> None:
        import kaleido

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="preview-images", daemon=True)
        self._thread.start()
        # mathjax off: nothing is fetched from the network
        session = kaleido.Kaleido(path=self.browser, mathjax=False, plotlyjs=str(PLOTLY_JS))
        self._kaleido = self._run(self._opened.enter_async_context(session))

    def close(self) -> None:
        """Close the browser, if it was started, then its loop and thread."""
        if self._loop is None or self._thread is None:
            return
        try:
            self._run(self._opened.aclose())
        except Exception:  # a browser that fails to close is gone either way
            pass
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()
            self._loop, self._thread, self._kaleido = None, None, None


def program_file(path: str) -> str:
    """A program as its file stands: where it is (links followed), its size and when it was last
    written. A browser update replaces the file; its version number would mean starting it."""
    real = os.path.realpath(path)
    try:
        found = os.stat(real)
    except OSError:
        return f"{real} (not found)"
    return f"{real} {found.st_size} bytes, written {found.st_mtime_ns} ns"


def drawn_by(browser: str) -> str:
    """What draws the images, for the page cache's keys: kaleido and the library it drives the
    browser with (choreographer) by version, the chart library by its bytes, the browser by its
    program file (program_file) and the image size. Any of them changed, the images are drawn
    again."""
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}" for name in DRIVERS)
    plotly = hashlib.sha256(PLOTLY_JS.read_bytes()).hexdigest()
    return f"{versions}, plotly.js {plotly}, browser {program_file(browser)}, {WIDTH}x{HEIGHT}"


def find_browser() -> tuple[str | None, str | None]:
    """(the browser to drive, None), or (None, why preview images cannot be made and what to
    install): kaleido not importable, or no Chrome or Chromium: the program BROWSER_PATH names
    where it is set, else the one kaleido's own lookup finds (a Chrome it downloaded, then one
    on the PATH or in the usual places)."""
    try:
        import kaleido  # noqa: F401
        from choreographer.browsers.chromium import Chromium
    except ImportError:
        return None, f"{SKIPPED}: the kaleido package is not installed; install it with `{EXTRA}`"
    chosen = os.environ.get("BROWSER_PATH")
    if chosen:
        if os.path.isfile(chosen) and os.access(chosen, os.X_OK):
            return chosen, None
        return None, f"{SKIPPED}: BROWSER_PATH={chosen} is not a program; set it to a Chrome or Chromium"
    try:
        found = Chromium.find_browser(skip_local=False)
    except Exception:  # a failed lookup is a browser not found
        found = None
    if not found or not os.access(found, os.X_OK):
        why = "no Chrome or Chromium found for kaleido"
        return None, f"{SKIPPED}: {why}; install one (e.g. the chromium package) or set BROWSER_PATH to it"
    return found, None


def preview_images(wanted: bool) -> tuple[PreviewImages | None, str | None]:
    """What draws the preview images (None: none asked for, or none can be made) and the one
    notice saying why not, where they were asked for."""
    if not wanted:
        return None, None
    browser, why_not = find_browser()
    return (PreviewImages(browser), None) if browser is not None else (None, why_not)
