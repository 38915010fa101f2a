"""build-site serve: answers on localhost, rebuilds only the touched page, shows errors, stays up."""

from __future__ import annotations

import gc
import http.client
import json
import shutil
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from site_builder import serve
from site_builder.cli import main
from site_builder.project import Project
from site_builder.serve import LiveSite, Server, host_allowed, start


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


# how long a change may take to show: generous, as a timed test would measure the machine (speed is
# measured by benchmarks/, not by tests)
PATIENCE = 30.0


def wait_for(check: object, seconds: float) -> float:
    """Poll until check() is true; return how long it took."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if check():  # type: ignore[operator]
            return time.monotonic() - started
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s")


@pytest.fixture
def served(project: Path) -> Iterator[tuple[Server, list[str]]]:
    (project / "content" / "second.md").write_text(
        "---\nkind: spec-decoding\nmodel: dsr1\nhardware: h200\nprecision: fp8\nsides:\n"
        "  - {label: FP8, precision: fp8}\n  - {label: FP4, precision: fp4}\n---\nAnother page.\n"
    )
    lines: list[str] = []
    server = start(Project.under(project), port=0, log=lines.append)
    yield server, lines
    server.shutdown()


def test_serves_the_site(served: tuple[Server, list[str]]) -> None:
    server, lines = served
    status, html = get(server.url)
    assert status == 200 and "h200-fp4-vs-fp8/index.html" in html and "__livereload" in html
    assert get(server.url + "h200-fp4-vs-fp8/")[0] == 200
    assert get(server.url + "h200-fp4-vs-fp8/comparison.json")[0] == 200
    assert get(server.url + "nothing-here/")[0] == 404
    assert lines[0].startswith("initial build: rebuilt 2 of 2 pages")


def test_stub_edit_shows_within_two_seconds_and_rebuilds_only_that_page(
    served: tuple[Server, list[str]], project: Path
) -> None:
    server, lines = served
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text().replace("A small comparison for tests.", "Edited while serving."))
    wait_for(lambda: "Edited while serving." in get(server.url + "h200-fp4-vs-fp8/")[1], PATIENCE)
    (line,) = [entry for entry in lines if entry.startswith("h200-fp4-vs-fp8.md changed")]
    assert "rebuilt 1 of 2 pages (h200-fp4-vs-fp8)" in line


def test_live_reload_answers_when_the_version_changes(
    served: tuple[Server, list[str]], project: Path
) -> None:
    server, _ = served
    version = server.site.version
    stub = project / "content" / "second.md"
    stub.write_text(stub.read_text().replace("Another page.", "Changed."))
    status, body = get(f"{server.url}__livereload?v={version}")
    assert status == 200 and json.loads(body)["version"] > version


def test_a_broken_stub_shows_its_error_and_the_server_stays_up(
    served: tuple[Server, list[str]], project: Path
) -> None:
    server, lines = served
    broken = project / "content" / "broken.md"
    broken.write_text("---\nkind: precision\nmodle: dsr1\n---\n")
    wait_for(lambda: "build-error" in get(server.url)[1], PATIENCE)
    status, html = get(server.url + "h200-fp4-vs-fp8/")
    assert status == 200 and "Build failed; showing the last good build." in html
    assert (
        "content/broken.md, line 3, field &#x27;modle&#x27;: unknown field (did you mean &#x27;model&#x27;?)"
        in html
    )
    assert any("build failed; still serving the last good site" in line for line in lines)
    broken.unlink()
    wait_for(lambda: "build-error" not in get(server.url)[1], PATIENCE)
    assert get(server.url + "h200-fp4-vs-fp8/")[0] == 200


def test_a_data_change_remakes_the_pages_of_that_data(
    served: tuple[Server, list[str]], project: Path
) -> None:
    _, lines = served
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h200,sglang,fp4,none,8,8,1024,8192,64,2000.0,30.0,2026-09-02\n")
    wait_for(lambda: any(line.startswith("lab.csv changed") for line in lines), PATIENCE)
    (line,) = [entry for entry in lines if entry.startswith("lab.csv changed")]
    assert "rebuilt 2 of 2 pages" in line


def test_the_command_line_server(project: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "site_builder.cli", "serve", "--root", str(project), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("Serving on http://127.0.0.1:")
        url = first.split()[2]
        assert get(url)[0] in (200, 503)  # served at once: the site, or the build's progress
        wait_for(lambda: get(url)[0] == 200, 60)
        assert get(url)[0] == 200
    finally:
        process.terminate()
        process.wait(timeout=10)


def _our_objects() -> int:
    """Live objects of this tool's own classes, after a full collection."""
    gc.collect()
    return sum(
        1 for o in gc.get_objects() if str(getattr(type(o), "__module__", "")).startswith("site_builder")
    )


def test_twenty_data_changing_rebuilds_keep_memory_flat(project: Path) -> None:
    """Serve holds the current site and the data it was made from only: after the first few
    rebuilds, as many of this tool's objects are alive after each data-changing rebuild."""
    site = LiveSite(Project.under(project), log=lambda line: None)
    site.full_build()
    csv = project / "data" / "results" / "lab.csv"
    original = csv.read_text()
    counts = []
    for n in range(20):
        csv.write_text(original.replace("2900.0", f"{2901 + n}.0"))
        site.on_change([str(csv)])
        assert site.error is None and site.version == n + 2
        counts.append(_our_objects())
    assert max(counts[5:]) <= counts[4], counts


def address(server: Server) -> tuple[str, int]:
    host, port = server.httpd.server_address[:2]
    return str(host), port


def ask(server: Server, path: str, host: str | None, method: str = "GET") -> tuple[int, bytes]:
    """One request with exactly this Host header (None: none at all)."""
    connection = http.client.HTTPConnection(*address(server), timeout=10)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_binds_the_loopback_address_by_default(served: tuple[Server, list[str]]) -> None:
    server, _ = served
    assert server.httpd.server_address[0] == "127.0.0.1"
    assert server.url.startswith("http://127.0.0.1:")


def test_answers_only_its_own_host_names(served: tuple[Server, list[str]]) -> None:
    server, _ = served
    port = server.httpd.server_address[1]
    for own in ("localhost", f"localhost:{port}", "127.0.0.1", f"127.0.0.1:{port}", "[::1]", f"[::1]:{port}"):
        status, body = ask(server, "/", own)
        assert status == 200 and b"h200-fp4-vs-fp8/index.html" in body, own
    for foreign in (
        "evil.example",
        f"evil.example:{port}",
        "localhost.evil.example",
        "127.0.0.1.nip.io",
        "10.0.0.1",
        "localhost:abc",
        "[::1",
        "",
        None,
    ):
        status, body = ask(server, "/", foreign)
        assert status == 400 and b"h200-fp4-vs-fp8" not in body, foreign
        assert ask(server, "/__livereload?v=0", foreign)[0] == 400


@pytest.mark.parametrize(
    ("header", "listening", "allowed"),
    [
        ("LOCALHOST:8000", "127.0.0.1", True),
        ("127.0.0.2", "127.0.0.1", True),  # all of 127/8 is this machine
        ("devbox:8000", "devbox", True),  # what --host names
        ("devbox:8000", "127.0.0.1", False),
        ("192.168.1.20:8000", "0.0.0.0", True),  # on every address, any of the machine's addresses
        ("192.168.1.20:8000", "127.0.0.1", False),
        ("[fe80::1]:8000", "::", True),
        ("rebind.example:8000", "0.0.0.0", False),  # a name is never enough
        ("localhost:8000:1", "127.0.0.1", False),
    ],
)
def test_host_rule(header: str, listening: str, allowed: bool) -> None:
    assert host_allowed(header, listening) is allowed


def test_refuses_traversal_and_unsafe_methods(served: tuple[Server, list[str]]) -> None:
    server, _ = served
    for path in (
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "//etc/passwd",
    ):
        status, body = ask(server, path, "localhost")
        assert status == 404 and b"root:" not in body, path
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        status, _ = ask(server, "/index.html", "localhost", method)
        assert status == 501, method
    assert ask(server, "/", "localhost", "HEAD") == (200, b"")


def test_two_hundred_parallel_requests_are_all_answered(served: tuple[Server, list[str]]) -> None:
    server, _ = served
    started = time.monotonic()
    with ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(lambda n: get(f"{server.url}h200-fp4-vs-fp8/?n={n}")[0], range(200)))
    assert statuses == [200] * 200
    assert time.monotonic() - started < PATIENCE


def test_a_stalled_client_is_dropped_and_holds_no_one_up(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More half-sent requests than the server has threads: each is dropped after the socket
    timeout, and a whole request is answered meanwhile or right after."""
    monkeypatch.setattr(serve, "SOCKET_TIMEOUT", 1.0)
    server = start(Project.under(project), port=0, log=lambda line: None)
    stalled = []
    try:
        for _ in range(serve.THREADS + 10):
            client = socket.create_connection(address(server), timeout=30)
            client.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")  # and no more
            stalled.append(client)
        assert get(server.url)[0] == 200
        for client in stalled:  # the server hung up on each (a 408 or nothing), long before 30 s
            assert client.recv(1024) == b""
    finally:
        for client in stalled:
            client.close()
        server.shutdown()


def test_a_closed_connection_is_no_error(
    served: tuple[Server, list[str]], capfd: pytest.CaptureFixture[str]
) -> None:
    """A reader who closes the tab while the live-reload poll waits: the answer meets a reset
    connection, and nothing is printed or logged."""
    server, lines = served
    before = list(lines)
    for _ in range(3):
        client = socket.create_connection(address(server))
        version = server.site.version
        client.sendall(f"GET /__livereload?v={version} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, at once
    time.sleep(6)  # the polls answer after 5 s at most
    assert get(server.url)[0] == 200
    assert lines == before
    assert "Traceback" not in capfd.readouterr().err


def test_another_build_of_the_project_never_serves_not_found_with_200(
    served: tuple[Server, list[str]], project: Path
) -> None:
    """`build --data OTHER` of the same project changes the shared build cache: serve holds its
    files' bytes, so every page it served stays served whole (never a 200 saying "not found")."""
    server, _lines = served
    other = project / "other-data"
    shutil.copytree(project / "data", other)
    csv = other / "results" / "lab.csv"
    csv.write_text(csv.read_text().replace("2900.0", "2950.0").replace("300.0", "310.0"))
    pages = ["", "h200-fp4-vs-fp8/", "h200-fp4-vs-fp8/comparison.json", "second-page/"]
    pages = [p for p in pages if get(server.url + p)[0] == 200]
    assert len(pages) >= 3
    assert (
        main(["build", "--root", str(project), "--data", str(other), "-o", str(project / "out"), "-q"]) == 0
    )
    for page in pages:
        status, body = get(server.url + page)
        assert status == 200 and body.strip() != "not found", page
