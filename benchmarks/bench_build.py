"""Measure the build on a synthetic site of realistic shape: `python benchmarks/bench_build.py`.

Generates N stubs over P points (InferenceX-like curves: 9 GPUs × precisions × engines × spec
methods × 3 sequences × concurrencies), then times each phase of the build. Prints figures;
asserts nothing (performance is measured here, not in timed tests).
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import tempfile
import time
from pathlib import Path

from site_builder.pipeline import Pipeline
from site_builder.project import Project
from site_builder.write import write_site

ROOT = Path(__file__).resolve().parents[1]
GPUS = ("h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x")
PRECISIONS = ("fp4", "fp8", "bf16", "int4")
SEQUENCES = ((1024, 1024), (1024, 8192), (8192, 1024))
HEADER = ["model", "hardware", "framework", "precision", "spec_method", "tp", "gpu_count", "isl", "osl"]
HEADER += ["concurrency", "throughput_per_gpu", "median_tpot_ms", "date"]


def generate(root: Path, models: int, engines: int, concurrencies: int, seed: int = 7) -> tuple[int, int]:
    rng = random.Random(seed)
    (root / "data" / "results").mkdir(parents=True)
    (root / "content").mkdir()
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, root / "data" / name)
    shutil.copytree(ROOT / "templates", root / "templates")
    shutil.copytree(ROOT / "docs", root / "docs")
    points = stubs = 0
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
                                    conc = 2 ** (c + 1)
                                    tpot = rng.uniform(5, 12) * (1 + c * 0.6)
                                    tput = peak * (1 - 0.9 ** (c + 1)) * rng.uniform(0.9, 1.1)
                                    row: list[object] = [
                                        model,
                                        gpu,
                                        f"engine{e}",
                                        precision,
                                        spec,
                                        8,
                                        8,
                                        isl,
                                        osl,
                                    ]
                                    row += [conc, round(tput, 3), round(tpot, 4), "2026-01-01"]
                                    writer.writerow(row)
                                    points += 1
            for gpu in GPUS:
                for a, b in (("fp4", "fp8"), ("fp8", "bf16"), ("fp4", "int4")):
                    (root / "content" / f"{gpu}-{a}-vs-{b}-{model}.md").write_text(
                        f"---\nkind: precision\nmodel: {model}\nhardware: {gpu}\nsides:\n"
                        f"  - {{label: {a.upper()}, precision: {a}}}\n"
                        f"  - {{label: {b.upper()}, precision: {b}}}\n---\n"
                    )
                    stubs += 1
                (root / "content" / f"{gpu}-fp4-mtp-vs-off-{model}.md").write_text(
                    f"---\nkind: spec-decoding\nmodel: {model}\nhardware: {gpu}\nprecision: fp4\nsides:\n"
                    "  - {label: MTP, spec_method: mtp}\n  - {label: 'Off', spec_method: none}\n---\n"
                )
                stubs += 1
    return points, stubs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--engines", type=int, default=3)
    parser.add_argument("--concurrencies", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        points, stubs = generate(root, args.models, args.engines, args.concurrencies)
        print(f"generated {points} points, {stubs} stubs in {time.perf_counter() - started:.2f} s")
        project = Project.under(root)
        pipeline = Pipeline(project, cache=True)
        t0 = time.perf_counter()
        output = pipeline.run()
        t1 = time.perf_counter()
        write_site(project.out, output.files)
        t2 = time.perf_counter()
        pipeline.run()
        t3 = time.perf_counter()
        size = sum(len(b) for b in output.files.values())
        files = f"{len(output.files)} files ({size / 1e6:.1f} MB)"
        print(f"load, validate, plan, compute, render {files}: {t1 - t0:.2f} s")
        print(f"write: {t2 - t1:.2f} s")
        print(f"total: {t2 - t0:.2f} s for {len(output.pages)} pages from {output.point_count} points")
        print(f"serve's rebuild with nothing changed (cached): {t3 - t2:.2f} s")

if __name__ == "__main__":
    main()
