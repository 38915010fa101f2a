"""Measure the build on a synthetic site of realistic shape: `python benchmarks/bench_build.py`.

By default: 11 models × 9 GPUs × 4 precisions × 6 engines × 2 speculative settings × 3
sequences × 8 concurrencies = 114,048 native CSV points, from which the build discovers
990 comparison pages (10 per model and GPU: 6 precision pairs and 4 MTP-vs-off pages); one of
them is written as a stub, so that editing a stub can be timed. Each build runs as a process of
its own (as a user runs it), and the figures are printed:

- clean build: load rate (points/s), page rate (pages/s; CPU a page to compute and to render,
  summed over the workers), total wall time,
  peak memory (maximum resident set of the build process and of its largest worker) and the
  bytes of a page's HTML (raw and gzip -6);
- rebuild with nothing changed, and after editing one stub (the build cache);
- with `--mkdocs`: MkDocs building as many plain Markdown pages, interleaved with clean builds,
  medians of `--repeat` runs, and the ratio (MkDocs is not a dependency: pip install mkdocs).

Performance is measured here, not in timed tests; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GPUS = ("h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x")
PRECISIONS = ("fp4", "fp8", "bf16", "int4")
SEQUENCES = ((1024, 1024), (1024, 8192), (8192, 1024))
HEADER = ["model", "hardware", "framework", "precision", "spec_method", "tp", "gpu_count", "isl", "osl"]
HEADER += ["concurrency", "throughput_per_gpu", "median_tpot_ms", "date"]
STUB = "h100-fp4-vs-fp8-model0.md"


def generate(root: Path, models: int, engines: int, concurrencies: int, seed: int = 7) -> int:
    """A project under `root`: one native CSV per model, one stub; returns the number of points."""
    rng = random.Random(seed)
    (root / "data" / "results").mkdir(parents=True)
    (root / "content").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, root / "data" / name)
    points = 0
    for m in range(models):
        model = f"model{m}"
        with (root / "data" / "results" / f"{model}.csv").open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(HEADER)
            for gpu in GPUS:
                for precision in PRECISIONS:
                    for e in range(engines):
                        for spec in ("none", "mtp"):
                            for isl, osl in SEQUENCES:
                                peak = rng.uniform(2000, 12000)
                                for c in range(concurrencies):
                                    tpot = rng.uniform(5, 12) * (1 + c * 0.6)
                                    tput = peak * (1 - 0.9 ** (c + 1)) * rng.uniform(0.9, 1.1)
                                    row: list[object] = [model, gpu, f"engine{e}", precision, spec, 8, 8]
                                    row += [
                                        isl,
                                        osl,
                                        2 ** (c + 1),
                                        round(tput, 3),
                                        round(tpot, 4),
                                        "2026-01-01",
                                    ]
                                    writer.writerow(row)
                                    points += 1
    write_stub(root, "A stub among the generated pages.")
    return points


def write_stub(root: Path, body: str) -> None:
    (root / "content" / STUB).write_text(
        "---\nkind: precision\nmodel: model0\nhardware: h100\nsides:\n"
        "  - {label: FP4, precision: fp4}\n  - {label: FP8, precision: fp8}\n---\n" + body + "\n"
    )


def measure(root: Path, out: Path, no_cache: bool, workers: int | None) -> None:
    """Run inside the measured process: one build, its figures as JSON on stdout."""
    from site_builder.pipeline import build
    from site_builder.project import Project

    started = time.perf_counter()
    output = build(Project.under(root, out), cache=not no_cache, workers=workers)
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(
        json.dumps(
            {
                "wall": wall,
                "stages": output.stages,
                "pages": output.page_count,
                "points": output.point_count,
                "rendered": len(output.rendered),
                "peak_kb": own,
                "worker_peak_kb": workers_peak,
            }
        )
    )


def run_build(root: Path, out: Path, *, no_cache: bool = False, workers: int | None = None) -> dict[str, Any]:
    """One build as its own process (the wall time includes Python's start and imports)."""
    command = [sys.executable, __file__, "--measure", str(root), "--out", str(out)]
    command += ["--no-cache"] if no_cache else []
    command += ["--workers", str(workers)] if workers else []
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["process_wall"] = time.perf_counter() - started
    wait_for_old_site_removal(out)
    return figures


def wait_for_old_site_removal(out: Path) -> None:
    """The replaced site is deleted by a process of its own after the build exits
    (write.remove_in_background): wait for it, so that what runs next is not measured with it."""
    while any(out.parent.glob(f".{out.name}.previous-*")):
        time.sleep(0.05)


def page_sizes(out: Path) -> tuple[float, float]:
    pages = [p for p in out.glob("*/index.html") if (p.parent / "comparison.json").is_file()]
    raw = [p.stat().st_size for p in pages]
    zipped = [len(gzip.compress(p.read_bytes(), compresslevel=6)) for p in pages]
    return statistics.mean(raw), statistics.mean(zipped)


def mkdocs_project(root: Path, pages: int) -> Path:
    """As many plain Markdown pages as the site has comparison pages, a paragraph and a table each."""
    docs = root / "docs"
    docs.mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: Plain pages\n")
    (docs / "index.md").write_text("# Plain pages\n")
    for n in range(pages):
        rows = "\n".join(f"| {c} | {c * 812.5:.1f} | {1000 / (5 + c):.2f} |" for c in range(1, 9))
        (docs / f"page-{n}.md").write_text(
            f"# Page {n}\n\nA plain page of about the length of a comparison's summary.\n\n"
            f"| concurrency | tok/s/GPU | tok/s/user |\n|---|---|---|\n{rows}\n"
        )
    return root


def run_mkdocs(project: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "-q",
            "-f",
            str(project / "mkdocs.yml"),
            "-d",
            str(project / "site"),
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def report(root: Path, args: argparse.Namespace) -> None:
    out = root / "site"
    clean = run_build(root, out, no_cache=True, workers=args.workers)
    stages, points, pages = clean["stages"], clean["points"], clean["pages"]
    raw, zipped = page_sizes(out)
    print(f"site: {pages} pages from {points} points (root {root})")
    print(f"clean build, whole process: {clean['process_wall']:.2f} s (in the build: {clean['wall']:.2f} s)")
    print(f"  load:    {stages['load']:.2f} s = {points / stages['load']:,.0f} points/s")
    print(f"  pages:   {stages['pages']:.2f} s = {pages / stages['pages']:,.1f} pages/s (written as made)")
    compute, render = stages["compute (CPU)"], stages["render (CPU)"]
    print(f"    compute: {compute:.2f} CPU s = {1000 * compute / pages:.1f} ms a page")
    print(f"    render:  {render:.2f} CPU s = {1000 * render / pages:.1f} ms a page")
    print(f"  finish:  {stages['finish']:.2f} s (index, guides, assets, swap)")
    print(
        f"  peak memory: build process {clean['peak_kb'] / 1024:.0f} MB, "
        f"largest worker {clean['worker_peak_kb'] / 1024:.0f} MB"
    )
    print(f"  page HTML: {raw / 1024:.1f} KB raw, {zipped / 1024:.1f} KB gzip (mean of {pages})")
    run_build(root, out, workers=args.workers)  # fills the cache
    again = run_build(root, out, workers=args.workers)
    print(f"rebuild, nothing changed (cached): {again['process_wall']:.2f} s, {again['rendered']} rendered")
    write_stub(root, "An edited stub.")
    edited = run_build(root, out, workers=args.workers)
    print(
        f"rebuild after editing one stub: {edited['process_wall']:.2f} s, {edited['rendered']} pages rendered"
    )
    if args.mkdocs:
        plain = mkdocs_project(root / "mkdocs", pages)
        ours, theirs = [], []
        for _ in range(args.repeat):  # interleaved, so both see the same load
            ours.append(run_build(root, out, no_cache=True, workers=args.workers)["process_wall"])
            theirs.append(run_mkdocs(plain))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(
            f"MkDocs, {pages} plain pages: median {b:.2f} s; site-builder clean: median {a:.2f} s; "
            f"ratio {a / b:.2f}"
        )
        print(
            f"  runs (s): site-builder {[round(x, 2) for x in ours]}, MkDocs {[round(x, 2) for x in theirs]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--models", type=int, default=11, help="10 pages each per GPU (default 11: 990 pages)"
    )
    parser.add_argument("--engines", type=int, default=6)
    parser.add_argument("--concurrencies", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="generate the site root here and keep it (must not exist)")
    parser.add_argument("--workers", type=int, help="build processes (default: one a core)")
    parser.add_argument("--mkdocs", action="store_true", help="also time MkDocs on as many plain pages")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each for the MkDocs ratio")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-cache", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        from site_builder.cli import leave

        measure(args.measure, args.out, args.no_cache, args.workers)
        leave(0)  # as `build-site` ends: without tearing the interpreter down
    if args.keep:
        args.keep.mkdir(parents=True)
        root = args.keep
    else:
        root = Path(tempfile.mkdtemp(prefix="bench-site-"))
    try:
        started = time.perf_counter()
        points = generate(root, args.models, args.engines, args.concurrencies)
        print(f"generated {points} points in {time.perf_counter() - started:.2f} s")
        report(root, args)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
