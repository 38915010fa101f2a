"""What each part of a page costs: `python benchmarks/bench_parts.py [--root ROOT] [--perf]`.

The benchmark's site (bench_build.py's, 990 pages by default; or a project root given) is built
with nothing written (as `check` does), once whole and once with each part of a page left out
in turn: its `comparison.json`, its `points.csv`, its `table.csv`, its HTML, all of its
rendering (with the index and the guides, which list and link the pages), and everything a
page does (computing too: what is left is start-up, load and planning). A part costs the whole
build less the build without it. Each build is a process of its own with its workers; its CPU
is the user and system time of the process and the workers it waited for, the median of
`--repeat` runs, or, with `--perf`, the instructions `perf stat -e instructions:u` counts (the
figure a shared host's noise does not move).

Performance is measured here, not in timed tests; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# what each build leaves out of every page: a part costs the whole build less the build without it
PARTS = {
    "whole": [],
    "comparison.json": ["comparison_json"],
    "points.csv": ["points_csv"],
    "table.csv": ["table_csv"],
    "the HTML": ["html"],
    "all rendering (and the index, the guides)": ["render"],
    "rendering and computing": ["render", "compute"],
}


def build_without(root: Path, left_out: list[str], workers: int) -> int:
    """Run inside the measured process: the site built with nothing written and the named parts
    of each page made empty (their makers replaced), the pages' count returned."""
    from site_builder import make, pipeline
    from site_builder.project import Project
    from site_builder.render import pages, site
    from site_builder.write import NoSink

    def empty(*_: object) -> bytes:
        return b""

    replaced: dict[str, list[tuple[object, str, object]]] = {
        "comparison_json": [(pages, "comparison_json", empty)],
        "points_csv": [(pages, "points_csv", empty)],
        "table_csv": [(pages, "table_csv", empty)],
        "html": [(site.SiteRenderer, "comparison_page", empty)],
        "render": [
            (make, "render_page", lambda *_: ({}, None)),
            (make, "index_entry", lambda *_: {}),
            (pipeline, "render_shared", lambda *_: []),  # the index of those entries, the guides
        ],
        "compute": [(make, "compute_page", lambda *_: None)],
    }
    for name in left_out:
        for owner, attribute, replacement in replaced[name]:
            if not hasattr(owner, attribute):  # renamed: setattr would add it and leave nothing out
                raise SystemExit(f"bench_parts.py: {owner!r} has no {attribute} to leave out any more")
            setattr(owner, attribute, replacement)
    project = Project.under(root, root / "unused-site")
    output = pipeline.run(project, NoSink(), pipeline.Options(workers=workers))
    return output.page_count


def cost(root: Path, left_out: list[str], workers: int, perf: bool) -> tuple[float, int]:
    """One build as its own process: CPU seconds of it and its workers (or, with `perf`, their
    instructions), and the number of pages it built."""
    command = [sys.executable, __file__, "--measure", str(root), "--workers", str(workers)]
    command += [f"--leave-out={name}" for name in left_out]
    if perf:
        command = ["perf", "stat", "-x,", "-e", "instructions:u", *command]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    pages = int(done.stdout.split()[-1])
    if perf:  # perf's line is the last of the standard error: count,unit,event,…
        return float(done.stderr.strip().splitlines()[-1].split(",")[0]), pages
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), pages


def report(root: Path, args: argparse.Namespace) -> None:
    unit, scale = ("G instructions", 1e9) if args.perf else ("CPU s", 1.0)
    figures = {}
    for part, left_out in PARTS.items():
        runs = [cost(root, left_out, args.workers, args.perf) for _ in range(args.repeat)]
        figures[part] = statistics.median(figure for figure, _ in runs) / scale
        if part == "whole":
            pages = runs[0][1]
    whole = figures["whole"]
    print(f"{pages} pages, {args.workers} workers, median of {args.repeat}; {unit}")
    print(f"  whole build: {whole:.2f}")
    for part in list(PARTS)[1:]:
        spent = whole - figures[part]
        per_page = f"{1000 * spent / pages:.2f} ms" if not args.perf else f"{1000 * spent / pages:.1f} M"
        print(f"  {part}: {spent:.2f} ({100 * spent / whole:.0f} %; {per_page} a page)")
    left = figures["rendering and computing"]
    print(f"  left when nothing is made (start-up, load, planning, imports): {left:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, help="a project root to build (default: bench_build's site)")
    parser.add_argument("--models", type=int, default=11, help="bench_build's site: 90 pages a model")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--perf", action="store_true", help="count instructions with perf stat")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--leave-out", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(build_without(args.measure, args.leave_out, args.workers))
        return
    if args.perf and shutil.which("perf") is None:
        parser.error("--perf needs perf (Debian: linux-perf)")
    from bench_build import generate  # the same site as bench_build.py

    root = args.root or Path(tempfile.mkdtemp(prefix="bench-parts-"))
    try:
        if args.root is None:
            generate(root, args.models, engines=6, concurrencies=8)
        report(root, args)
    finally:
        if args.root is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
