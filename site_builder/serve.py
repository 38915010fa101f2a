"""`build-site serve`: build, serve on localhost, rebuild what a change touches, reload the browser.

The site lives in memory. A watcher polls content/, data/, templates/ and docs/; a change to a stub
recomputes and re-renders that stub's page only (plus pages whose related links changed, and the
index); a change to data/ recomputes every comparison but re-renders only those whose numbers
changed; a change to templates/ or docs/ re-renders without recomputing. A failed rebuild keeps
serving the last good site, prints the problems and shows them at the top of every page.
"""

from __future__ import annotations

import html
import http.server
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from site_builder.build import (
    Inputs,
    Paths,
    compute_page,
    index_entry,
    load_inputs,
    plan_pages,
    related_links,
    render_page,
    render_shared,
)
from site_builder.content import Stub, load_stubs
from site_builder.problems import ProblemLog
from site_builder.render import PageSource, SiteRenderer

WATCHED = ("content", "data", "templates", "docs")
POLL_SECONDS = 0.2
RELOAD_SCRIPT = """<script>
(function () {
  var version = %d;
  function poll() {
    fetch("/__livereload?v=" + version, {cache: "no-store"})
      .then(function (r) { return r.json(); })
      .then(function (d) {
        if (d.version !== version) { location.reload(); } else { setTimeout(poll, 250); }
      })
      .catch(function () { setTimeout(poll, 1000); });
  }
  setTimeout(poll, 250);
})();
</script>
"""

Log = Callable[[str], None]


def snapshot(paths: Paths) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every file under the watched folders."""
    state: dict[str, tuple[int, int]] = {}
    for folder in (paths.content, paths.data, paths.templates, paths.docs):
        if not folder.is_dir():
            continue
        for path in folder.rglob("*"):
            if path.is_file() and not path.name.startswith("."):
                stat = path.stat()
                state[path.as_posix()] = (stat.st_mtime_ns, stat.st_size)
    return state


def changed_files(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k))


@dataclass
class LiveSite:
    """The served site and the state it was built from, so a change rebuilds only what it touches."""

    paths: Paths
    log: Log
    files: dict[str, bytes] = field(default_factory=dict)
    version: int = 0
    error: str | None = None
    inputs: Inputs | None = None
    planned: dict[str, Stub] = field(default_factory=dict)
    pages: dict[str, PageSource] = field(default_factory=dict)
    related: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # -- building -----------------------------------------------------------------------------

    def full_build(self) -> None:
        self._rebuild(reload_inputs=True, rerender_all=True, reason="initial build")

    def on_change(self, changed: list[str]) -> None:
        roots = {name: getattr(self.paths, name).resolve().as_posix() for name in WATCHED}

        def under(folder: str) -> bool:
            return any(Path(c).resolve().as_posix().startswith(roots[folder] + "/") for c in changed)

        site_config = any(Path(c).name == "site.yaml" for c in changed)
        names = ", ".join(Path(c).name for c in changed[:4]) + (" …" if len(changed) > 4 else "")
        self._rebuild(
            reload_inputs=under("data") or site_config,
            rerender_all=under("templates") or under("docs") or site_config,
            reason=f"{names} changed",
        )

    def _rebuild(self, reload_inputs: bool, rerender_all: bool, reason: str) -> None:
        started = time.perf_counter()
        problems = ProblemLog()
        inputs = load_inputs(self.paths, problems) if reload_inputs or self.inputs is None else self.inputs
        stubs = load_stubs(self.paths.content, problems)
        if problems.errors or inputs.catalog is None:
            self._fail(problems, reason)
            return
        planned = {stub.slug: stub for stub in plan_pages(inputs, stubs)}
        previous = self.pages
        pages: dict[str, PageSource] = {}
        recomputed = 0
        for slug, stub in planned.items():
            old = previous.get(slug)
            if not reload_inputs and old is not None and self.planned.get(slug) == stub:
                pages[slug] = old
                continue
            page = compute_page(stub, inputs, problems)
            recomputed += 1
            if page is not None:
                pages[stub.slug] = page
        if problems.errors:
            self._fail(problems, reason)
            return
        ordered = sorted(pages.values(), key=lambda p: p.comparison.slug)
        related = related_links(ordered)
        renderer = SiteRenderer(self.paths.templates, inputs.config, inputs.catalog, self.paths.docs)
        files = {} if rerender_all else dict(self.files)
        for slug in set(previous) - set(pages):
            for name in ("index.html", "comparison.json", "table.csv", "points.csv"):
                files.pop(f"{slug}/{name}", None)
            self.entries.pop(slug, None)
        rebuilt = []
        for page in ordered:
            slug = page.comparison.slug
            same = previous.get(slug) == page and self.related.get(slug) == related[slug]
            if same and not rerender_all and f"{slug}/index.html" in files:
                continue
            page_files, narrative = render_page(renderer, page, related[slug])
            files.update(page_files)
            self.entries[slug] = index_entry(page, narrative, inputs.catalog)
            rebuilt.append(slug)
        files.update(render_shared(renderer, ordered, [self.entries[p.comparison.slug] for p in ordered]))
        with self.lock:
            self.inputs, self.planned, self.pages, self.related = inputs, planned, pages, related
            self.files = files
            self.error = None
            self.version += 1
        seconds = time.perf_counter() - started
        shown = ", ".join(rebuilt[:8]) + (f" and {len(rebuilt) - 8} more" if len(rebuilt) > 8 else "")
        self.log(
            f"{reason}: rebuilt {len(rebuilt)} of {len(ordered)} pages"
            + (f" ({shown})" if rebuilt else "")
            + f", recomputed {recomputed}, in {seconds:.2f} s"
        )
        for warning in problems.warnings:
            self.log(str(warning))

    def _fail(self, problems: ProblemLog, reason: str) -> None:
        message = "\n".join(str(p) for p in problems.errors)
        with self.lock:
            self.error = message
            self.version += 1
        self.log(f"{reason}: build failed; still serving the last good site\n{message}")

    # -- serving ------------------------------------------------------------------------------

    def response(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a request path."""
        with self.lock:
            files, version, error = self.files, self.version, self.error
        name = unquote(path).lstrip("/")
        if name == "" or name.endswith("/"):
            name += "index.html"
        status = 200
        if name not in files and f"{name}/index.html" in files:
            return 301, "text/plain", b""
        if name not in files and error and not files:
            page = "<!doctype html><html lang=en><title>Build failed</title><body><h1>Build failed</h1>"
            page += "</body></html>"
            return 500, "text/html; charset=utf-8", inject(page.encode(), version, error)
        if name not in files:
            status, name = 404, "404.html"
        body = files.get(name, b"not found")
        kind = content_type(name)
        if kind.startswith("text/html"):
            body = inject(body, version, error)
        return status, kind, body


def content_type(name: str) -> str:
    suffix = Path(name).suffix
    return {
        ".html": "text/html; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
        ".json": "application/json",
        ".csv": "text/csv; charset=utf-8",
        ".svg": "image/svg+xml",
        ".xml": "application/xml",
        ".txt": "text/plain; charset=utf-8",
    }.get(suffix, "application/octet-stream")


def inject(body: bytes, version: int, error: str | None) -> bytes:
    """The live-reload script, and the build error (if any) at the top of the page."""
    text = body.decode("utf-8")
    if error:
        banner = (
            '<div id="build-error" role="alert" style="background:#b42318;color:#fff;padding:1rem;'
            'white-space:pre-wrap;font:14px/1.4 monospace">Build failed; showing the last good build.\n'
            f"{html.escape(error)}</div>"
        )
        text = text.replace("<body>", "<body>" + banner, 1)
    text = text.replace("</body>", (RELOAD_SCRIPT % version) + "</body>", 1)
    return text.encode("utf-8")


def make_handler(site: LiveSite) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/__livereload":
                wanted = parse_qs(parts.query).get("v", ["-1"])[0]
                self._send(200, "application/json", json.dumps(self._wait(wanted)).encode())
                return
            status, kind, body = site.response(parts.path)
            if status == 301:
                self.send_response(301)
                self.send_header("Location", parts.path + "/")
                self.end_headers()
                return
            self._send(status, kind, body)

        def _wait(self, wanted: str) -> dict[str, Any]:
            """Long-poll: answer when the version differs from the page's, or after a few seconds."""
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and str(site.version) == wanted:
                time.sleep(0.05)
            return {"version": site.version, "error": site.error}

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


def watch(site: LiveSite, stop: threading.Event, before: dict[str, tuple[int, int]]) -> None:
    """Poll for changes since `before` (taken before the first build, so nothing slips through)."""
    while not stop.wait(POLL_SECONDS):
        after = snapshot(site.paths)
        changed = changed_files(before, after)
        if not changed:
            continue
        time.sleep(0.05)  # let an editor finish writing
        after = snapshot(site.paths)
        changed = changed_files(before, after)
        before = after
        try:
            site.on_change(changed)
        except Exception as exc:  # keep serving whatever went wrong
            site.log(f"rebuild crashed: {exc!r}; still serving the last good site")


@dataclass
class Server:
    site: LiveSite
    httpd: http.server.ThreadingHTTPServer
    stop: threading.Event

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def shutdown(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def start(paths: Paths, host: str = "127.0.0.1", port: int = 8000, log: Log | None = None) -> Server:
    site = LiveSite(paths, log or (lambda line: print(line, file=sys.stderr, flush=True)))
    baseline = snapshot(paths)
    site.full_build()
    httpd = http.server.ThreadingHTTPServer((host, port), make_handler(site))
    httpd.daemon_threads = True
    stop = threading.Event()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    threading.Thread(target=watch, args=(site, stop, baseline), daemon=True).start()
    return Server(site, httpd, stop)
