from __future__ import annotations

import fcntl
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from tests import outside

ROOT = Path(__file__).resolve().parents[1]

# No property test has a deadline: an example's time measures the machine (a shared CI runner),
# not the code; speed is measured by benchmarks/, never by tests
settings.register_profile("site-builder", deadline=None)
settings.load_profile("site-builder")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", outside.MARKER_HELP)
    # Ctrl+C as at a terminal: a shell starts a background job (and some CI runners start their
    # steps) with SIGINT ignored, which every command the tests start would inherit, so the tests
    # of what Ctrl+C does would see nothing happen
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs ../shared: skipped in a fresh clone (see tests/outside.py)."""
    outside.skip_missing(items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """... and failed in CI, where ../shared is always beside the clone."""
    outside.fail_if_missing(item)


LAB_CSV = """model,hardware,framework,precision,spec_method,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms,date
dsr1,h200,sglang,fp8,none,8,8,1024,1024,4,300.0,10.0,2026-09-01
dsr1,h200,sglang,fp8,none,8,8,1024,1024,16,900.0,20.0,2026-09-01
dsr1,h200,sglang,fp8,none,8,8,1024,1024,64,1800.0,40.0,2026-09-01
dsr1,h200,sglang,fp4,none,8,8,1024,1024,4,450.0,9.0,2026-09-02
dsr1,h200,sglang,fp4,none,8,8,1024,1024,16,1400.0,16.0,2026-09-02
dsr1,h200,sglang,fp4,none,8,8,1024,1024,64,2900.0,30.0,2026-09-02
dsr1,h200,sglang,fp4,none,8,8,1024,8192,16,1000.0,15.0,2026-09-02
"""

# Typed-in GSM8K scores for the two sides of STUB: FP4 with only its question count, FP8 with its
# standard error (tests/test_accuracy.py derives the page's figures from these by hand).
SCORES_CSV = """model,hardware,precision,spec_method,framework,task,metric,score,stderr,questions,date,setup
dsr1,h200,fp4,none,sglang,gsm8k,"exact_match,strict-match",0.93,,1319,2026-09-03,"sglang TP8, concurrency 64"
dsr1,h200,fp8,none,sglang,gsm8k,"exact_match,strict-match",0.95,0.006,1319,2026-09-03,"sglang TP8, concurrency 64"
"""

STUB = """---
kind: precision
model: dsr1
hardware: h200
sides:
  - {label: FP4, precision: fp4}
  - {label: FP8, precision: fp8}
---
A small comparison for tests.
"""


def shared_build(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """What `build(folder)` makes (a built site, say), made once for the whole test run: the first
    test process (xdist worker) to ask builds it, under a lock, into a folder all workers see; the
    others wait for it and read the same files. A session fixture that builds a site wraps its
    build in this, so `-n auto` does not build it once per worker. Its tests must only read it."""
    worker_root = factory.getbasetemp()
    root = worker_root.parent if worker_root.name.startswith("popen-gw") else worker_root
    folder, done = root / f"shared-{name}", root / f"shared-{name}.done"
    with (root / f"shared-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, even if the build fails
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            done.write_text(str(build(folder)))
    return Path(done.read_text())


@pytest.fixture(scope="session")
def default_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default site as the README's first command builds it (with a site URL), built once."""
    from site_builder.cli import main

    def build(project: Path) -> Path:
        for name in ("data", "content", "templates", "docs"):
            shutil.copytree(ROOT / name, project / name)
        assert main(["build", "--root", str(project), "-q", "--site-url", "https://example.org/bench/"]) == 0
        return project / "site"

    return shared_build(tmp_path_factory, "default-project", build)


@pytest.fixture(scope="session")
def markup_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of tests/markup_project.py (markup in every text a page shows from data), built once."""
    from site_builder.cli import main
    from tests.markup_project import markup_project

    def build(folder: Path) -> Path:
        project = markup_project(folder / "project")
        assert main(["build", "--root", str(project), "-o", str(project / "site"), "-q", "--no-cache"]) == 0
        return project / "site"

    return shared_build(tmp_path_factory, "markup", build)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tiny project: the real catalogs and templates, one CSV of lab points, one stub."""
    (tmp_path / "data" / "results").mkdir(parents=True)
    (tmp_path / "content").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, tmp_path / "data" / name)
    shutil.copytree(ROOT / "templates", tmp_path / "templates")
    (tmp_path / "data" / "results" / "lab.csv").write_text(LAB_CSV)
    (tmp_path / "content" / "h200-fp4-vs-fp8.md").write_text(STUB)
    return tmp_path
