"""`build-site new`: write a stub with every front-matter field present and explained."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import yaml

KINDS = ("precision", "spec-decoding", "hardware", "custom")


class ScaffoldError(Exception):
    pass


def _label(kind: str, value: str) -> str:
    if kind == "spec-decoding" and value == "none":
        return "Off"
    return value.upper()


def _slug(*parts: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(p for p in parts if p).lower()).strip("-")


def _scalar(value: object) -> str:
    """A YAML scalar as it would be written by hand (quoted only where YAML needs it)."""
    if value is None:
        return ""
    text: str = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return text.removesuffix("\n...").removesuffix("...").strip()


def stub_text(
    kind: str,
    model: str,
    sides: Sequence[str],
    hardware: str | None = None,
    precision: str | None = None,
    sequence: str = "1k/1k",
) -> tuple[str, str]:
    """(slug, file text) of a new stub comparing `sides` of the given kind."""
    if kind not in KINDS:
        raise ScaffoldError(f"unknown kind '{kind}': choose one of {', '.join(KINDS)}")
    if len(sides) != 2:
        raise ScaffoldError("give exactly two sides, e.g. --sides fp4 fp8")
    varied = {
        "precision": "precision",
        "spec-decoding": "spec_method",
        "hardware": "hardware",
        "custom": "framework",
    }[kind]
    if kind != "hardware" and not hardware:
        raise ScaffoldError(f"a {kind} comparison needs --gpu")
    if kind == "spec-decoding":
        slug = _slug(
            hardware or "", precision or "", sides[0], "vs", "off" if sides[1] == "none" else sides[1], model
        )
    elif kind == "hardware":
        slug = _slug(sides[0], "vs", sides[1], precision or "", model)
    else:
        slug = _slug(hardware or "", sides[0], "vs", sides[1], model)
    side_lines = "\n".join(
        f"  - label: {_scalar(_label(kind, value))}\n    {varied}: {_scalar(value)}" for value in sides
    )
    page_hardware = "" if kind == "hardware" else _scalar(hardware)
    text = f"""---
# What the page compares: precision | spec-decoding | hardware | custom.
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
# Empty means "best available": every engine, method and deployment mode measured.
precision: {"" if kind == "precision" else _scalar(precision)}
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
Optional prose for the page, in Markdown. It appears below the generated paragraphs.
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
