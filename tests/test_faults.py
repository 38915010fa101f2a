"""Kills, interrupts, full disks and concurrent builds (pipeline.py, write.py, cache.py,
runner.py, importer.py): a build killed at any point leaves nothing the next build keeps, and
the next build equals a clean one; a killed build's workers end within seconds; an interrupted
or failed build removes its own staging folder; a full disk names the folder it is about (and,
for the cache, goes on without it); two builds of one project at once both succeed."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from site_builder import write
from site_builder.cache import FOLDER
from site_builder.importer import ImportRefused
from site_builder.pipeline import SiteOutput, build
from site_builder.project import Project
from site_builder.read.provenance import DatasetInfo
from site_builder.write import OutputError
from tests.test_incremental import OTHER_CSV, tree

ROOT = Path(__file__).resolve().parent.parent
BUILD = [sys.executable, "-m", "site_builder.cli", "build", "-q"]


@pytest.fixture
def two_models(project: Path) -> Path:
    (project / "data" / "results" / "other.csv").write_text(OTHER_CSV)
    return project


def _build(project: Path, out: str = "site", **options: Any) -> SiteOutput:
    return build(Project.under(project, project / out), **options)


def _clean(project: Path) -> dict[str, bytes]:
    """What a build from nothing (no cache) writes, into a folder of its own."""
    _build(project, "clean", cache=False)
    return tree(project / "clean")


def _wait_for(condition: Callable[[], object], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _beside(project: Path) -> list[str]:
    """What stands beside the output folder that a build made: staging, retired, spare folders."""
    return sorted(p.name for p in project.iterdir() if p.name.startswith(".site."))


def _writing(project: Path) -> list[Path]:
    return [p for p in (project / FOLDER).rglob("*") if p.name.startswith(".writing-")]


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
@pytest.mark.parametrize("cached_before", [False, True], ids=["clean", "cached"])
def test_a_build_killed_once_its_staging_folder_appears_leaves_nothing_behind(
    two_models: Path, cached_before: bool
) -> None:
    """SIGKILL to the build process once its staging folder is there: the previous site is
    whole, and the next build removes the staging folder, leaves no unfinished cache file and
    writes a clean build's site."""
    if cached_before:
        _build(two_models)
    previous = tree(two_models / "site") if cached_before else None
    (two_models / "content" / "h200-fp4-vs-fp8.md").write_text(
        (two_models / "content" / "h200-fp4-vs-fp8.md").read_text().replace("tests.", "tests, edited.")
    )
    process = subprocess.Popen([*BUILD, "--root", str(two_models)], cwd=ROOT)
    try:
        _wait_for(lambda: any(p.name.startswith(".site.building-") for p in two_models.iterdir()))
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert (tree(two_models / "site") if cached_before else None) == previous
    _build(two_models)
    assert tree(two_models / "site") == _clean(two_models)
    _wait_for(lambda: _beside(two_models) == [])
    assert _writing(two_models) == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_the_workers_of_a_killed_build_end_within_seconds(tmp_path: Path) -> None:
    """Only the build process is killed (what a CI timeout does): its workers end too."""
    script = textwrap.dedent(
        """
        import sys, time
        from site_builder.runner import map_pages

        def slow(shared, page):
            time.sleep(0.5)
            return page

        print("started", flush=True)
        for _ in map_pages(slow, list(range(400)), 2, None):
            pass
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None and process.stdout.readline() == b"started\n"
        _wait_for(lambda: len(_children(process.pid)) >= 2)
        workers = _children(process.pid)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    _wait_for(lambda: all(_gone(pid) for pid in workers), seconds=5)


def test_an_interrupted_build_removes_its_staging_and_keeps_the_previous_site(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _build(two_models)
    previous = tree(two_models / "site")

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("site_builder.make.render_page", interrupted)
    (two_models / "content" / "h200-fp4-vs-fp8.md").write_text(
        (two_models / "content" / "h200-fp4-vs-fp8.md").read_text().replace("tests.", "tests, edited.")
    )
    with pytest.raises(KeyboardInterrupt):
        _build(two_models, workers=1)
    assert _beside(two_models) == [] and tree(two_models / "site") == previous
    monkeypatch.undo()
    _build(two_models)  # the cache was let go: the next build holds it, no notice
    assert tree(two_models / "site") == _clean(two_models)


def test_a_staging_folder_no_build_holds_is_removed_whatever_process_its_name_holds(
    two_models: Path,
) -> None:
    """The name of a killed build's staging folder may hold an id a new process now has: the
    folder is judged by whether a build holds it, not by its name."""
    left = two_models / f".site.building-{os.getppid()}"  # a live process, not a build
    (left / "page").mkdir(parents=True)
    (left / "page" / "index.html").write_text("half")
    output = _build(two_models)
    assert not left.exists() and output.remarks == []


def test_two_builds_of_one_project_at_once_both_write_a_clean_site(two_models: Path) -> None:
    _build(two_models)  # a cache to share
    (two_models / "content" / "h200-fp4-vs-fp8.md").write_text(
        (two_models / "content" / "h200-fp4-vs-fp8.md").read_text().replace("tests.", "tests, edited.")
    )
    builds = [
        subprocess.Popen([*BUILD, "--root", str(two_models), "-o", str(two_models / out)], cwd=ROOT)
        for out in ("one", "two")
    ]
    assert [process.wait(timeout=600) for process in builds] == [0, 0]
    clean = _clean(two_models)
    assert tree(two_models / "one") == clean and tree(two_models / "two") == clean
    assert _build(two_models).rendered == [] and tree(two_models / "site") == clean


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """`full_disk(folder)`: every file the tool writes under `folder` from now on goes to
    /dev/full, whose writes fail with the system's own ENOSPC."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    folders: list[str] = []
    mkstemp, builtin_open = tempfile.mkstemp, open

    def mkstemp_full(*args: Any, **kwargs: Any) -> tuple[int, str]:
        folder = str(kwargs.get("dir", ""))
        if any(folder.startswith(full) for full in folders):
            return os.open("/dev/full", os.O_WRONLY), os.path.join(folder, ".writing-nowhere")
        return mkstemp(*args, **kwargs)

    def open_full(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "r" not in mode and any(os.fspath(file).startswith(full) for full in folders):
            return builtin_open("/dev/full", "wb")
        return builtin_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_full)
    monkeypatch.setattr(write, "open", open_full, raising=False)
    return lambda folder: folders.append(str(folder))


def test_a_full_disk_where_the_cache_lives_builds_on_without_it_saying_so_once(
    two_models: Path, full_disk: Callable[[Path], None]
) -> None:
    full_disk(two_models / FOLDER)
    output = _build(two_models)
    assert tree(two_models / "site") == _clean(two_models)
    assert len(output.remarks) == 1
    assert str(two_models / FOLDER) in output.remarks[0] and os.strerror(errno.ENOSPC) in output.remarks[0]
    assert "--no-cache" in output.remarks[0]
    assert _writing(two_models) == []


def test_a_damaged_cache_builds_a_clean_site_with_one_notice(two_models: Path) -> None:
    for damage in (
        lambda: (two_models / FOLDER / "manifest.json").write_text(
            '{"format": 8, "pages": {"k": "a string"}}'
        ),
        lambda: next((two_models / FOLDER / "blobs").iterdir()).write_bytes(b"other bytes"),
        lambda: shutil.rmtree(two_models / FOLDER / "blobs"),
    ):
        _build(two_models)
        damage()
        output = _build(two_models)
        assert tree(two_models / "site") == _clean(two_models)
        assert len(output.remarks) == 1 and str(two_models / FOLDER) in output.remarks[0]
        assert _build(two_models).remarks == []  # written anew
    shutil.rmtree(two_models / FOLDER)
    (two_models / FOLDER).write_text("a file where the cache was")
    output = _build(two_models)
    assert tree(two_models / "site") == _clean(two_models) and len(output.remarks) == 1
    assert (two_models / FOLDER).read_text() == "a file where the cache was"


def test_a_full_disk_for_the_output_names_it_and_keeps_the_previous_site(
    two_models: Path, full_disk: Callable[[Path], None]
) -> None:
    _build(two_models)
    previous = tree(two_models / "site")
    full_disk(two_models / ".site.building-")
    with pytest.raises(OutputError) as refused:
        _build(two_models, cache=False)
    assert str(two_models / "site") in str(refused.value) and os.strerror(errno.ENOSPC) in str(refused.value)
    assert tree(two_models / "site") == previous and _beside(two_models) == []


@pytest.fixture
def results_file(tmp_path: Path) -> Iterator[Path]:
    from tests.conftest import LAB_CSV

    source = tmp_path / "lab.csv"
    source.write_text(LAB_CSV)
    yield source


def _import(source: Path, out: Path) -> None:
    from site_builder.importer import import_results

    import_results([source], DatasetInfo(id="lab", title="Lab", source="a test"), out)


def test_an_import_that_cannot_write_leaves_no_file_at_its_output(
    tmp_path: Path, results_file: Path, full_disk: Callable[[Path], None]
) -> None:
    out = tmp_path / "data" / "results" / "lab.json"
    full_disk(tmp_path / "data")
    with pytest.raises(ImportRefused) as refused:
        _import(results_file, out)
    assert str(out) in str(refused.value) and os.strerror(errno.ENOSPC) in str(refused.value)
    assert list(out.parent.iterdir()) == []


def test_an_import_killed_while_writing_leaves_nothing_the_next_refuses(
    tmp_path: Path, results_file: Path
) -> None:
    out = tmp_path / "lab.json"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    unfinished = tmp_path / f".lab.json.writing-{dead.pid}"  # what a killed import left
    unfinished.write_text('{"format": ')
    _import(results_file, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab.csv", "lab.json"]
    with pytest.raises(ImportRefused):
        _import(results_file, out)


def test_a_build_of_other_data_beside_serve_leaves_every_served_page_whole(two_models: Path) -> None:
    """serve and a build of the same project with other data share the cache folder: the build
    drops the blobs serve's pages came from, and serve still answers every page as it did."""
    import urllib.request

    from site_builder.serve import start

    server = start(Project.under(two_models), port=0, log=lambda line: None)
    try:
        _build(two_models, "clean", cache=False)
        paths = sorted(
            p.relative_to(two_models / "clean").as_posix() for p in (two_models / "clean").rglob("*.html")
        )

        def served() -> dict[str, bytes]:
            found = {}
            for path in paths:
                with urllib.request.urlopen(server.url + path, timeout=30) as response:
                    assert response.status == 200
                    found[path] = response.read()
            return found

        before = served()
        other = two_models / "other-data"
        shutil.copytree(two_models / "data", other)
        for csv in (other / "results").glob("*.csv"):
            csv.write_text(csv.read_text().replace(".0,", ".5,"))
        command = [*BUILD, "--root", str(two_models), "--data", str(other), "-o", str(two_models / "other")]
        assert subprocess.run(command, cwd=ROOT, timeout=600).returncode == 0
        assert served() == before
    finally:
        server.shutdown()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc")
def test_ctrl_c_reaches_the_build_process_alone_and_its_workers_end_quietly() -> None:
    """Ctrl+C is sent to the terminal's whole process group: no worker prints a traceback of
    its own; the build process stops the pool and its workers end."""
    script = textwrap.dedent(
        """
        import time
        from site_builder.runner import map_pages

        def quick(shared, page):
            return page

        print("started", flush=True)
        try:
            for _ in map_pages(quick, list(range(400)), 2, None):
                time.sleep(0.2)  # the workers wait for the build process, idle
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline() == b"started\n"
        _wait_for(lambda: len(_children(process.pid)) >= 2)
        workers = _children(process.pid)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert out == b"interrupted\n" and b"Traceback" not in err, err.decode()
    _wait_for(lambda: all(_gone(pid) for pid in workers), seconds=5)


def _dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


def test_a_leftover_the_build_cannot_remove_is_named(
    two_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A retired site of a killed build that cannot be removed (another user's: simulated, the
    tests may run as root) is named in one line, saying to remove it."""
    left = two_models / f".site.previous-{_dead_pid()}"
    (left / "page").mkdir(parents=True)
    rmtree = shutil.rmtree

    def refusing(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path) != left:
            rmtree(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", refusing)
    output = _build(two_models)
    assert [remark for remark in output.remarks if str(left) in remark and "remove it" in remark] != []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may delete read-only folders: nothing to test")
def test_a_read_only_previous_site_is_replaced_and_removed(two_models: Path) -> None:
    _build(two_models)
    for folder in [two_models / "site", *(p for p in (two_models / "site").rglob("*") if p.is_dir())]:
        folder.chmod(0o555)
    _build(two_models)
    _build(two_models)  # removes what the first's background removal could not
    _wait_for(lambda: _beside(two_models) == [])
    assert tree(two_models / "site") == _clean(two_models)
