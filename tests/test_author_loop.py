"""The author's loop from `build-site init` to a site of one's own: the invented example stays in
its own folder (its attribution cannot reach the author's data, and the build says when it
would), placeholder prose is warned about, the operators' guides stay out of the site unless
asked for."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from site_builder.cli import main
from site_builder.scaffold import EXAMPLE_ROWS
from tests.conftest import ROOT

OURS = """# Our own runs
id: ours
title: Our H100 sweep
source: measured in our lab, run book 7
"""


def _our_results() -> str:
    """A sweep of our own on another model and GPU (values shaped like the example's, scaled)."""
    header = "model,hardware,framework,precision,spec_method,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms,date"
    rows = [
        f"our-8b,h100,sglang,{precision},none,1,1,1024,1024,{conc},{tput * 3},{tpot / 2},2026-03-01"
        for precision, conc, tpot, tput in EXAMPLE_ROWS
    ]
    return "\n".join([header, *rows]) + "\n"


def _site_text(site: Path) -> str:
    """The index and every comparison page with its downloads (the guides' worked examples aside)."""
    files = [
        site / "index.html",
        *(p for page in site.glob("*/comparison.json") for p in page.parent.iterdir()),
    ]
    return "\n".join(p.read_text() for p in sorted(files) if p.suffix in {".html", ".json", ".csv"})


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    assert main(["init", str(folder)]) == 0
    return folder


def test_following_the_readme_leaves_no_invented_text_on_real_data(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Add one's own results in a folder of their own, delete the example (folder and stub) as the
    README says: the pages built from the real data say nothing of invented or example data."""
    ours = demo / "data" / "results" / "ours"
    ours.mkdir()
    (ours / "_dataset.yaml").write_text(OURS)
    (ours / "sweep.csv").write_text(_our_results())
    readme = (demo / "README.md").read_text()
    assert "delete `data/results/example/` and `content/h200-fp4-vs-fp8-example.md`" in readme
    shutil.rmtree(demo / "data" / "results" / "example")
    (demo / "content" / "h200-fp4-vs-fp8-example.md").unlink()
    new = [
        "new",
        "precision",
        "--root",
        str(demo),
        "--model",
        "our-8b",
        "--gpu",
        "h100",
        "--sides",
        "fp4",
        "fp8",
    ]
    assert main([*new, "--name", "ours"]) == 0
    stub = demo / "content" / "ours.md"
    stub.write_text(stub.read_text().split("\n---\n")[0] + "\n---\nOur first sweep on H100.\n")
    capsys.readouterr()
    assert main(["build", "--root", str(demo)]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err
    site = demo / "site"
    pages = sorted(p.parent.name for p in site.glob("*/comparison.json"))
    assert (
        len(pages) == 1 and "our first sweep on h100" in (site / pages[0] / "index.html").read_text().lower()
    )
    text = _site_text(site).lower()
    assert "our h100 sweep" in text
    for word in ("invented", "example data", "not measurements"):
        assert word not in text, word


def test_a_file_of_ones_own_under_the_examples_attribution_is_warned_about(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example's attribution covers only its folder; a file put there is named, with the way out."""
    (demo / "data" / "results" / "example" / "mine.csv").write_text(_our_results())
    (demo / "data" / "results" / "ours.csv").write_text(_our_results().replace("our-8b", "our-70b"))
    capsys.readouterr()
    assert main(["build", "--root", str(demo)]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning")]
    invented = [line for line in warnings if "invented" in line and "_dataset.yaml" in line]
    assert len(invented) == 1  # once, for the one file, not for the example's own nor the other
    assert "example/mine.csv" in invented[0] and "folder of its own" in invented[0]
    assert "ours.csv" not in " ".join(invented) and "example.csv," not in invented[0]


def test_a_project_from_an_earlier_init_is_warned_about_too(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """init used to write the example and its attribution straight into data/results/: a file of
    one's own beside them there is labelled invented, and the build says so."""
    results = demo / "data" / "results"
    example = results / "example"
    text = (example / "_dataset.yaml").read_text()
    (results / "_dataset.yaml").write_text(text.split("# The files build-site init wrote")[0])
    (example / "example.csv").rename(results / "example.csv")
    shutil.rmtree(example)
    (results / "ours.csv").write_text(_our_results())
    capsys.readouterr()
    assert main(["build", "--root", str(demo)]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "attributed by" in line]
    assert len(warnings) == 1 and "ours.csv" in warnings[0]


def test_placeholder_prose_warns_in_build_and_fails_strict_check(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A fresh init project passes `check --strict` (its example page says truly what it is); a
    stub `new` wrote still holding its placeholder sentence warns in build and fails strict."""
    assert main(["check", "--root", str(demo), "--strict"]) == 0
    new = ["new", "precision", "--root", str(demo), "--model", "example-70b", "--gpu", "h200"]
    assert main([*new, "--sides", "fp8", "fp4", "--name", "second"]) == 0
    capsys.readouterr()
    assert main(["build", "--root", str(demo), "-q"]) == 0
    err = capsys.readouterr().err
    assert "content/second.md, line" in err and "placeholder" in err
    assert main(["check", "--root", str(demo)]) == 0
    assert main(["check", "--root", str(demo), "--strict"]) == 1
    out = capsys.readouterr()
    assert "content/second.md, line" in out.out and "placeholder" in out.out
    stub = demo / "content" / "second.md"
    stub.write_text(stub.read_text().split("\n---\n")[0] + "\n---\nOur own notes on this page.\n")
    assert main(["check", "--root", str(demo), "--strict"]) == 0


def test_the_placeholder_an_earlier_init_wrote_is_warned_about_too(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub = demo / "content" / "h200-fp4-vs-fp8-example.md"
    old = (
        "This page compares the invented example data in data/results/example.csv: replace it with "
        "your own results and this stub with your own comparisons."
    )
    stub.write_text(stub.read_text().split("\n---\n")[0] + "\n---\n" + old + "\n")
    assert main(["check", "--root", str(demo), "--strict"]) == 1
    assert "h200-fp4-vs-fp8-example.md, line" in capsys.readouterr().out


def test_the_operators_guides_are_published_only_when_asked_for(demo: Path) -> None:
    assert main(["build", "--root", str(demo), "-q"]) == 0
    guides = sorted(p.name for p in (demo / "site" / "docs").iterdir())
    assert guides == ["comparison-json", "data-format"]
    assert (demo / "site" / "methodology" / "index.html").is_file()
    footer = (demo / "site" / "index.html").read_text()
    assert "docs/deployment/" not in footer and "docs/performance/" not in footer
    with (demo / "content" / "site.yaml").open("a") as handle:
        handle.write("guides: [deployment, performance]\n")
    assert main(["build", "--root", str(demo), "-q"]) == 0
    guides = sorted(p.name for p in (demo / "site" / "docs").iterdir())
    assert guides == ["comparison-json", "data-format", "deployment", "performance"]


def test_an_unknown_guide_in_site_yaml_is_refused_with_the_choices(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (demo / "content" / "site.yaml").open("a") as handle:
        handle.write("guides: [deploy]\n")
    assert main(["build", "--root", str(demo), "-q"]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "content/site.yaml" in text and "'deploy'" in text and "authoring, deployment, performance" in text


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[str]:
    """A local web server standing in for the outside world: /ok.html answers, the rest is 404."""
    folder = tmp_path / "www"
    folder.mkdir()
    (folder / "ok.html").write_text("<p>fine</p>")
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_check_site_accepts_the_outside_links_prose_may_hold_and_fetches_them_only_when_asked(
    demo: Path, outside: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refused = f"https://127.0.0.1:{_closed_port()}/paper"
    stub = demo / "content" / "h200-fp4-vs-fp8-example.md"
    links = f"See [the run]({outside}ok.html), [a gone page]({outside}gone.html), [the paper]({refused}) and [us](mailto:a@example.org)."
    stub.write_text(stub.read_text() + links + "\n")
    assert main(["build", "--root", str(demo), "-q"]) == 0
    page = (demo / "site" / "h200-fp4-vs-fp8-example" / "index.html").read_text()
    assert f'href="{outside}gone.html"' in page and 'href="mailto:a@example.org"' in page
    check = ["check", "--root", str(demo), "--site", str(demo / "site"), "--format", "json"]
    capsys.readouterr()
    assert main(check) == 0  # accepted, nothing fetched
    assert json.loads(capsys.readouterr().out)["problems"] == []
    assert main([*check, "--check-external"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert sorted(p["field"] for p in problems) == sorted([f"{outside}gone.html", refused])
    assert all(p["file"] == "h200-fp4-vs-fp8-example/index.html" for p in problems)
    reasons = {p["field"]: p["reason"] for p in problems}
    assert "HTTP 404" in reasons[f"{outside}gone.html"] and "unreachable" in reasons[refused]


def _recipe(section: str, language: str) -> list[str]:
    """The commands of a code block in docs/deployment.md, under the heading `section`."""
    text = (ROOT / "docs" / "deployment.md").read_text()
    body = text.split(f"## {section}\n", 1)[1]
    block = body.split(f"```{language}\n", 1)[1].split("```", 1)[0]
    if language == "sh":
        return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
    workflow = yaml.safe_load(block)
    return [step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step]


def test_the_ci_recipes_work_in_a_fresh_init_project(demo: Path, tmp_path: Path) -> None:
    """Every command of the deployment guide's CI recipes, in a project `init` wrote, with
    `build-site` this checkout's code; only the network install of the tool is left out."""
    shim = tmp_path / "bin"
    shim.mkdir()
    command = shim / "build-site"
    command.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m site_builder.cli "$@"\n')
    command.chmod(0o755)
    environment = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}
    workflow = _recipe("GitHub Pages (project site under a sub-path)", "yaml")
    assert (
        workflow[0] == 'python -m pip install "$SITE_BUILDER"'
    )  # no `pip install .`: nothing to install there
    ci = _recipe("In CI", "sh")
    assert len(workflow) == 4 and len(ci) == 2

    def run(line: str) -> None:
        done = subprocess.run(["sh", "-c", line], cwd=demo, env=environment, capture_output=True, text=True)
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])

    for line in workflow[1:]:
        run(line)
    assert "https://OWNER.github.io/REPO/" in (demo / "site" / "sitemap.xml").read_text()
    for line in ci:
        run(line)
    assert json.loads((demo / "check.json").read_text())["ok"] is True
