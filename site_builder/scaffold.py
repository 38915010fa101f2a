"""`build-site new` writes a stub with every front-matter field present and explained;
`build-site init` writes a whole new site project that builds as it is."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

from site_builder.kinds import KIND_KEYS, KINDS


class ScaffoldError(Exception):
    pass


def _scalar(value: object) -> str:
    """A YAML scalar as it would be written by hand (quoted only where YAML needs it)."""
    if value is None:
        return ""
    text: str = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


# The body `new` writes for the author to replace (and the one `init` wrote before its example had
# a folder of its own): published as it is, it would read as the page's own words, so a build
# warns about it and `check --strict` fails (content.py).
STUB_PLACEHOLDER = "Optional prose for the page, in Markdown. It appears below the generated paragraphs."
PLACEHOLDERS = (
    STUB_PLACEHOLDER,
    "This page compares the invented example data in data/results/example.csv: replace it with your "
    "own results and this stub with your own comparisons.",
)
# What `init`'s example page says of itself: true for its readers while the example is there (the
# README tells the author to delete the stub with the example's folder), so not a placeholder
INIT_EXAMPLE_BODY = (
    "The numbers on this page are invented (the example build-site init writes, in "
    "data/results/example/): they are not measurements."
)


def stub_text(
    kind: str,
    model: str,
    sides: Sequence[str],
    hardware: str | None = None,
    precision: str | None = None,
    sequence: str = "1k/1k",
    by: str | None = None,
) -> tuple[str, str]:
    """(slug, file text) of a new stub comparing `sides` of the given kind (a custom page: in
    the configuration field `by`, framework where not given)."""
    if kind not in KINDS:
        raise ScaffoldError(f"unknown kind '{kind}': choose one of {', '.join(KIND_KEYS)}")
    if len(sides) != 2:
        raise ScaffoldError("give exactly two sides, e.g. --sides fp4 fp8")
    kind_of = KINDS[kind]
    if by is not None and kind != "custom" and by != kind_of.varies:
        raise ScaffoldError(f"--by applies to custom pages; a {kind} page's sides differ in {kind_of.varies}")
    from site_builder.content import FILTER_KEYS  # here: content reads this module's placeholders

    if by is not None and by not in FILTER_KEYS:
        raise ScaffoldError(f"--by {by}: not a configuration field; choose one of {', '.join(FILTER_KEYS)}")
    varied = by or kind_of.varies
    if kind_of.needs_gpu and not hardware:
        raise ScaffoldError(f"a {kind} comparison needs --gpu")
    slug = kind_of.slug(model, hardware or "", precision or "", sides[0], sides[1], "")
    side_lines = "\n".join(
        f"  - label: {_scalar(kind_of.side_label(value))}\n    {varied}: {_scalar(value)}" for value in sides
    )
    page_hardware = _scalar(hardware) if kind_of.needs_gpu else ""
    text = f"""---
# What the page compares: {" | ".join(KIND_KEYS)}.
kind: {kind}
# Page title. Empty: a default such as "MI355X: FP4 vs FP8 Precision Comparison".
title:
# URL segment of the page. Empty: the file name ({slug}).
slug:
# Model key in the data (data/models.yaml lists display names), e.g. dsr1.
model: {_scalar(model)}
# GPU key shared by both sides (data/hardware.yaml). A hardware comparison sets it per side.
hardware: {page_hardware}
# Filters both sides share; each side may narrow further with the same keys.
#   precision: fp4 | fp8 | bf16 | int4        spec_method: none | mtp | eagle | ...
#   framework: one engine or a list           disagg: true | false (aggregated only: false)
#   dataset: one dataset id or a list (data/results/*.json "dataset.id")
#   variant, tp, ep, pp, gpus, dp_attention, multinode: any other configuration field
# Empty means "best available": every engine, method and deployment mode measured.
precision: {"" if varied == "precision" else _scalar(precision)}
spec_method:
framework:
disagg:
dataset:
# Workload shown first: 1k/1k, 1k/8k or 8k/1k (the others appear in the sequence switch).
sequence: {sequence}
# The two sides: a label for the page and the filters that select its points.
sides:
{side_lines}
# Interactivity targets in tok/s/user for the table. Empty: 25, 50 and 75% of the band.
targets:
# Cost tier: hyperscaler | neocloud | rental. Empty: the site's (content/site.yaml).
cost_tier:
# Per-GPU constants for this page only, e.g.
#   mi355x: {{usd_per_gpu_hour: 1.60, watts_all_in: 2650, source: "our quote", as_of: 2026-10}}
constants: {{}}
# true keeps the page out of the build.
draft: false
---
{STUB_PLACEHOLDER}
"""
    return slug, "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def write_stub(content: Path, slug: str, text: str, name: str | None = None) -> Path:
    path = content / f"{name or slug}.md"
    content.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise ScaffoldError(f"{path} exists; new never overwrites a stub (choose --name)") from None
    return path


# -- build-site init ------------------------------------------------------------------------------

EXAMPLE_ROWS = (
    # precision, concurrency, median TPOT (ms), total tok/s per GPU: invented, shaped like a real sweep
    ("fp8", 4, 12.0, 120.0),
    ("fp8", 8, 14.0, 210.0),
    ("fp8", 16, 18.0, 340.0),
    ("fp8", 32, 25.0, 500.0),
    ("fp8", 64, 38.0, 680.0),
    ("fp4", 4, 9.0, 160.0),
    ("fp4", 8, 10.5, 290.0),
    ("fp4", 16, 13.0, 470.0),
    ("fp4", 32, 18.0, 700.0),
    ("fp4", 64, 27.0, 950.0),
)

INIT_SITE = """# Site-wide settings (docs/authoring.md lists them all).
title: My inference comparisons
description: Matched-interactivity comparisons of our own LLM inference benchmarks.
# Absolute address the site is served from, for the sitemap and canonical links, e.g.
# site_url: https://example.org/benchmarks/
# Also publish a page for every comparable pair found in data/ (true) or only the stubs (false).
auto_pages: true
"""

EXAMPLE_FOLDER = "data/results/example"
EXAMPLE_FILE = "example.csv"
INIT_DATASET = f"""# Attribution of the invented example in this folder: shown on every page that uses it.
# It covers this folder only: put your own results in a folder of their own, with their own
# _dataset.yaml, and delete this folder (and the example stub) when you have them.
id: example
title: Example data written by build-site init
source: Invented numbers shaped like a real sweep; not measurements. Replace them with your own results.
licence: CC0-1.0
# The files build-site init wrote here: the build warns about any other file in this folder.
example_files: [{EXAMPLE_FILE}]
"""

INIT_README = """# {name}

A comparison site built with `build-site` (site-builder).

```sh
build-site            # builds the site into site/ (open site/index.html)
build-site serve      # serves it on http://127.0.0.1:8000/ and rebuilds on every change
build-site check      # everything but the write: data, stubs, templates, guides
```

- `content/` holds one Markdown stub per comparison page and `site.yaml`;
  `build-site new precision --model M --gpu G --sides fp4 fp8` writes another stub.
- `data/results/` holds result files: the native CSV or JSON, InferenceX rows, vLLM or SGLang
  client results with a metadata file. `_dataset.yaml` attributes a folder's files.
- `data/results/example/` is invented (its `_dataset.yaml` says so on every page that uses it).
  Put your own results in a folder of their own, e.g. `data/results/ours/` with its own
  `_dataset.yaml`, then delete `data/results/example/` and `content/h200-fp4-vs-fp8-example.md`.
- Each stub's body is yours to write: the placeholder sentence `build-site new` puts there is
  warned about by `build-site` and fails `build-site check --strict` until you replace it.
- The theme, the hardware and model catalogs and the guides come with site-builder. To change
  one, add your own file of the same name: `templates/base.html` or `templates/assets/site.css`,
  `data/hardware.yaml` (your GPU costs and power), `data/models.yaml`, `docs/methodology.md`.
"""


def example_csv() -> str:
    header = (
        "model,hardware,framework,precision,spec_method,tp,gpu_count,isl,osl,concurrency,"
        "throughput_per_gpu,median_tpot_ms,date"
    )
    rows = [
        f"example-70b,h200,vllm,{precision},none,8,8,1024,1024,{conc},{tput},{tpot},2026-01-15"
        for precision, conc, tpot, tput in EXAMPLE_ROWS
    ]
    return "\n".join([header, *rows]) + "\n"


def init_project(folder: Path) -> list[Path]:
    """Write a new site project that builds as it is; refuses a folder that has anything in it."""
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"{folder} exists and is not a folder")
    if folder.is_dir() and any(folder.iterdir()):
        raise ScaffoldError(f"{folder} is not empty; init writes only into a new or empty folder")
    _, stub = stub_text("precision", "example-70b", ["fp4", "fp8"], hardware="h200")
    files = {
        "content/site.yaml": INIT_SITE,
        "content/h200-fp4-vs-fp8-example.md": stub.replace(STUB_PLACEHOLDER, INIT_EXAMPLE_BODY),
        f"{EXAMPLE_FOLDER}/{EXAMPLE_FILE}": example_csv(),
        f"{EXAMPLE_FOLDER}/_dataset.yaml": INIT_DATASET,
        "README.md": INIT_README.format(name=folder.resolve().name),
        ".gitignore": "/site/\n/.site-builder-cache/\n",
    }
    written = []
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
        written.append(path)
    return written
