"""`build-site import` writes what a page needs of every point: loading the native file it wrote
gives the same point table as loading the client's files, column by column (the provenance
aside, which names the imported file), for every real client folder in tests/fixtures/clients.
Two losses this guards against were found on real files: MLPerf's output-only throughput read
back as total tokens, and a derived interactivity read back as stated."""

from __future__ import annotations

import math
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from site_builder.cli import main
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results

CLIENTS = Path(__file__).parent / "fixtures" / "clients"
# every client's output folder (aiperf-telemetry holds a fragment other tests put into a run)
FOLDERS = sorted(p.name for p in CLIENTS.iterdir() if p.is_dir() and p.name != "aiperf-telemetry")
# what names the file a point was read from, not the point
PROVENANCE = {"dataset", "source_file", "record", "client", "date", "run_url", "image", "note", "config_id"}


def _points(folder: Path) -> list[dict[str, Any]]:
    log = ProblemLog()
    return load_results(folder, log).table.records()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)
    return bool(a == b)


@pytest.mark.parametrize("name", FOLDERS)
def test_an_imported_folder_loads_as_the_same_points(name: str, tmp_path: Path) -> None:
    folder = tmp_path / name
    shutil.copytree(CLIENTS / name, folder)
    for archive in folder.glob("*.tar.xz"):  # a submission kept compressed (mlperf-power)
        with tarfile.open(archive) as opened:
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            opened.extractall(folder, **safe)  # type: ignore[arg-type]
        archive.unlink()
        for meta in folder.glob("_meta.yaml"):
            shutil.move(meta, next(folder.glob("results/*")) / "_meta.yaml")
    before = _points(folder)
    assert before, f"{name} gives no point"
    out = tmp_path / "imported.json"
    argv = ["import", str(folder), "-o", str(out), "--id", "x", "--title", "X", "--source", "s"]
    assert main(argv) == 0
    imported = tmp_path / "imported"
    imported.mkdir()
    shutil.move(out, imported / "imported.json")
    after = _points(imported)
    key = ("hardware", "precision", "isl", "osl", "workload", "concurrency", "throughput_per_gpu")
    before.sort(key=lambda p: [str(p[k]) for k in key])
    after.sort(key=lambda p: [str(p[k]) for k in key])
    assert len(after) == len(before)
    for a, b in zip(before, after, strict=True):
        differ = {k: (a[k], b.get(k)) for k in a if k not in PROVENANCE and not _same(a[k], b.get(k))}
        assert differ == {}, differ
