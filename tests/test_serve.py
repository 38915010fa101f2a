"""build-site serve: answers on localhost, rebuilds only the touched page, shows errors, stays up."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from site_builder.project import Project
from site_builder.serve import LiveSite, Server, start


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
