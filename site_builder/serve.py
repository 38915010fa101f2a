"""`build-site serve`: build, serve on localhost, rebuild what a change touches, reload the browser.

The site lives in memory (a page the page cache holds is served from it). A watcher polls
content/, data/, templates/ and docs/ and runs the build's own pipeline (pipeline.run) again with
the page cache: a change to a stub makes that stub's page again (the related links of the others
are filled in anew, and the index made again); a change to data/ loads it again and makes the
pages of the models whose data changed; a change to templates/ or docs/ makes every page again.
The loaded data is kept between runs until a file it came from changes. A failed rebuild keeps
serving the last good site, prints the problems and shows them at the top of every page.

It is a local server: it answers only requests whose Host names the address it listens on (a
page on another site that rebinds its own name to 127.0.0.1 gets 400), a client that stalls is
dropped after SOCKET_TIMEOUT seconds, at most THREADS requests are answered at once (more wait in
the listen backlog), and a client that hangs up mid-answer is no error.
"""

from __future__ import annotations

import html
import http.server
import ipaddress
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from site_builder.pipeline import Inputs, Options, run, stamp
from site_builder.problems import InputError, Problem
from site_builder.project import Project, is_hidden

POLL_SECONDS = 0.2
THREADS = 64  # requests answered at once; more wait in the listen backlog
BACKLOG = 512  # connections the system holds while every thread is busy
SOCKET_TIMEOUT = 10.0  # seconds a client may stall before or during its request
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


Snapshot = dict[str, tuple[int, ...]]


def snapshot(project: Project) -> Snapshot:
    """What the pipeline's cache keys on (pipeline.stamp), for every file under the watched folders."""
    return {
        path: tuple(rest)
        for path, *rest in stamp(*(f for f in project.watched() if f.is_dir()))
        if not is_hidden(Path(path))
    }


def changed_files(before: Snapshot, after: Snapshot) -> list[str]:
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k))


@dataclass
class LiveSite:
    """The served site and the pipeline that built it, whose cache makes a rebuild incremental."""

    project: Project
    log: Log
    files: Mapping[str, Served] = field(default_factory=dict)
    version: int = 0
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    inputs: Inputs | None = None  # what the last good build loaded (used again while unchanged)
    partial: Mapping[str, Served] = field(default_factory=dict)  # the first build's files so far
    building: tuple[str, int, int] | None = None  # (stage, done, total) while a build runs

    # -- building -----------------------------------------------------------------------------

    def full_build(self) -> None:
        self._rebuild("initial build")

    def _progress(self, stage: str, done: int, total: int) -> None:
        with self.lock:
            self.building = (stage, done, total)
        step = max(total // 10, 1)
        if total >= 50 and (done == total or done % step == 0):  # a small site builds at once
            self.log(f"{stage}: {done}/{total}")

    def on_change(self, changed: list[str]) -> None:
        names = ", ".join(Path(c).name for c in changed[:4]) + (" …" if len(changed) > 4 else "")
        self._rebuild(f"{names} changed")

    def _rebuild(self, reason: str) -> None:
        sink = ServedFiles()
        with self.lock:
            self.partial = sink.files if not self.files else {}  # served while the first build runs
        try:
            output = run(
                self.project, sink, Options(cache=True, workers=None, progress=self._progress), self.inputs
            )
        except InputError as exc:
            self._fail(exc.stopping, reason)
            return
        finally:
            with self.lock:
                self.partial, self.building = {}, None
        with self.lock:
            self.files, self.inputs = sink.files, output.inputs
            self.error = None
            self.version += 1
        rebuilt = output.rendered
        shown = ", ".join(rebuilt[:8]) + (f" and {len(rebuilt) - 8} more" if len(rebuilt) > 8 else "")
        self.log(
            f"{reason}: rebuilt {len(rebuilt)} of {output.page_count} pages"
            + (f" ({shown})" if rebuilt else "")
            + f", in {output.seconds:.2f} s"
        )
        for warning in output.warnings:
            self.log(str(warning))

    def _fail(self, problems: list[Problem], reason: str) -> None:
        message = "\n".join(str(p) for p in problems)
        with self.lock:
            self.error = message
            self.version += 1
        self.log(f"{reason}: build failed; still serving the last good site\n{message}")

    # -- serving ------------------------------------------------------------------------------

    def response(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a request path; during the first build, a page
        already rendered, else the build's progress."""
        with self.lock:
            files, version, error = self.files, self.version, self.error
            partial, building = self.partial, self.building
        name = unquote(path).lstrip("/")
        if name == "" or name.endswith("/"):
            name += "index.html"
        first = building if not files else None  # the first build's progress, while it runs
        if first is not None:
            files, error = partial, None
        if name not in files and f"{name}/index.html" in files:
            return 301, "text/plain", b""
        found = files.get(name)
        if found is None and first is not None:
            return 503, "text/html; charset=utf-8", _progress_page(*first)
        status = 200
        if error and not files:
            page = "<!doctype html><html lang=en><title>Build failed</title><body><h1>Build failed</h1>"
            page += "</body></html>"
            return 500, "text/html; charset=utf-8", inject(page.encode(), version, error)
        if found is None:  # no such page
            status, name = 404, "404.html"
            found = files.get(name)
        body = b"not found" if found is None else found
        kind = content_type(name)
        if kind.startswith("text/html"):
            body = inject(body, version, error)
        return status, kind, body


def _progress_page(stage: str, done: int, total: int) -> bytes:
    """The page served during the first build where no page is rendered yet: its progress."""
    page = (
        '<!doctype html><html lang=en><meta charset=utf-8><meta http-equiv="refresh" content="1">'
        f"<title>Building…</title><body><h1>Building the site</h1><p>{html.escape(stage)}"
        + (f": {done} of {total}" if total else "…")
        + "</p><p>This page reloads until it is ready.</p></body></html>"
    )
    return page.encode()


Served = bytes  # a file's bytes, held by serve (never read from the cache, which another build may change)


class ServedFiles:
    """The served site: every file's bytes, held in memory (another build of the project may
    change the page cache's files at any time)."""

    def __init__(self) -> None:
        self.files: dict[str, Served] = {}

    def start(self, keep: list[str]) -> None:
        pass

    def put(self, relative: str, content: bytes) -> None:
        self.files[relative] = content

    def finish(self) -> None:
        pass

    def abort(self) -> None:
        pass


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
        banner = (  # sticky: in view however far the reloaded page is scrolled
            '<div id="build-error" role="alert" style="position:sticky;top:0;z-index:2147483647;'
            "max-height:40vh;overflow:auto;background:#b42318;color:#fff;padding:1rem;"
            'white-space:pre-wrap;font:14px/1.4 monospace">Build failed; showing the last good build.\n'
            f"{html.escape(error)}</div>"
        )
        text = text.replace("<body>", "<body>" + banner, 1)
    text = text.replace("</body>", (RELOAD_SCRIPT % version) + "</body>", 1)
    return text.encode("utf-8")


def host_allowed(header: str | None, listening: str) -> bool:
    """Whether a request's Host header names the address serve listens on: localhost, a loopback
    address, or the --host it was given (on all addresses, 0.0.0.0 or ::, any IP address), with
    any port or none. Any other name is how a page elsewhere reads a local server (DNS rebinding)."""
    name, port = _host_and_port((header or "").strip())
    if not name or (port and not port.isdigit()):
        return False
    wanted = listening.strip("[]").lower()
    if name in ("localhost", wanted):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    return address.is_loopback or wanted in ("0.0.0.0", "::", "")


def _host_and_port(header: str) -> tuple[str, str]:
    """('::1', '8000') from '[::1]:8000', ('localhost', '') from 'localhost'."""
    if header.startswith("["):
        name, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return "", ""
        return name.lower(), rest[1:] if rest else ""
    name, colon, port = header.partition(":")
    return name.lower(), port if colon else ""


def make_handler(site: LiveSite, listening: str) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        timeout = SOCKET_TIMEOUT  # a client that stalls mid-request is dropped

        def parse_request(self) -> bool:
            """Every method's request, refused with 400 unless its Host is this server's."""
            if not super().parse_request():
                return False
            if not host_allowed(self.headers.get("Host"), listening):
                self.send_error(400, "Unknown Host", "This server answers only requests for its own address.")
                return False
            return True

        def do_GET(self) -> None:
            self._answer(send_body=True)

        def do_HEAD(self) -> None:
            self._answer(send_body=False)

        def _answer(self, send_body: bool) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/__livereload":
                wanted = parse_qs(parts.query).get("v", ["-1"])[0]
                self._send(200, "application/json", json.dumps(self._wait(wanted)).encode(), send_body)
                return
            status, kind, body = site.response(parts.path)
            if status == 301:
                self.send_response(301)
                self.send_header("Location", parts.path + "/")
                self.end_headers()
                return
            self._send(status, kind, body, send_body)

        def _wait(self, wanted: str) -> dict[str, Any]:
            """Long-poll: answer when the version differs from the page's, or after a few seconds."""
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and str(site.version) == wanted:
                time.sleep(0.05)
            return {"version": site.version, "error": site.error}

        def _send(self, status: int, kind: str, body: bytes, send_body: bool) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


class LocalServer(http.server.ThreadingHTTPServer):
    """The HTTP server, bounded: at most THREADS requests answered at once (the accept loop waits
    for a free one; the system holds up to BACKLOG connections meanwhile). A client that hangs up
    or stalls is dropped without a word; any other failure of a request is one line in the log."""

    daemon_threads = True
    request_queue_size = BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[http.server.BaseHTTPRequestHandler], log: Log):
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.slots = threading.BoundedSemaphore(THREADS)
        self.log = log
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.slots.acquire()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError | TimeoutError):  # a closed or stalled connection
            self.log(f"serve: a request failed: {error!r}")


def watch(site: LiveSite, stop: threading.Event, before: Snapshot, first_build: bool = False) -> None:
    """Poll for changes since `before` (taken before the first build, so nothing slips through);
    run the first build here when the server did not wait for it."""
    if first_build:
        site.full_build()
    while not stop.wait(POLL_SECONDS):
        after = snapshot(site.project)
        changed = changed_files(before, after)
        if not changed:
            continue
        time.sleep(0.05)  # let an editor finish writing
        after = snapshot(site.project)
        changed = changed_files(before, after)
        before = after
        if not changed:  # the editor's write settled back to what was there
            continue
        try:
            site.on_change(changed)
        except Exception as exc:  # keep serving whatever went wrong
            site.log(f"rebuild crashed: {exc!r}; still serving the last good site")


@dataclass
class Server:
    site: LiveSite
    httpd: LocalServer
    stop: threading.Event

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        shown = f"[{host!s}]" if ":" in str(host) else str(host)
        return f"http://{shown}:{port}/"

    def shutdown(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def start(
    project: Project,
    host: str = "127.0.0.1",
    port: int = 8000,
    log: Log | None = None,
    *,
    wait: bool = True,
) -> Server:
    """Serve the project. With `wait=False` the server answers at once: while the first build
    runs, each page is served as soon as it is rendered, and others show the build's progress."""
    site = LiveSite(project, log or (lambda line: print(line, file=sys.stderr, flush=True)))
    httpd = LocalServer((host, port), make_handler(site, host), site.log)  # a port in use fails at once
    baseline = snapshot(project)
    if wait:
        try:
            site.full_build()
        except BaseException:
            httpd.server_close()
            raise
    else:
        site.building = ("loading the data", 0, 0)
    stop = threading.Event()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    threading.Thread(target=watch, args=(site, stop, baseline, not wait), daemon=True).start()
    return Server(site, httpd, stop)
