"""The page-kind registry: what each kind of comparison varies and how its pages are worded.

A kind names the filter its two sides differ in, how a side value becomes a label and a slug, the
default title, the opening sentence and the closing sentences of its paragraphs, which caveats
always apply, and which pages the data implies (`discover`: plan.py turns each into a generated
stub). Stubs (`kind:`), `build-site new`, generated pages, prose and the index all read this
table, so adding a kind is one entry.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # `build-site --help` reads the kinds: nothing heavy is imported for it
    from site_builder.plan import PlanFacts
    from site_builder.workload import Workload


@dataclass(frozen=True)
class Words:
    """The names a title or sentence may use; `precision` is '' where the page has none."""

    a: str  # side labels
    b: str
    model: str  # display name
    gpu: str  # display name(s), "MI355X" or "B200 and H200"
    gpu_with_architecture: str
    precision: str  # page-wide precision, upper case
    method: str = ""  # page-wide speculative method, upper case ("" where the page fixes none or "none")


def _upper(value: str) -> str:
    return value.upper()


def _method_label(value: str) -> str:
    return "Off" if value == "none" else value.upper()


def slugify(*parts: str) -> str:
    """Lowercase words joined by '-': the one rule for every page's URL segment."""
    return re.sub(r"[^a-z0-9]+", "-", "-".join(p for p in parts if p).lower()).strip("-")


@dataclass(frozen=True)
class Found:
    """A page the data implies, as its stub would say it (plan.py writes the stub): the filters
    the whole page shares, the varied filter's value on each side, the workloads both sides
    measured (the page opens on 1k/1k where they share it) and the datasets it reads."""

    model: str
    hardware: str | None  # None: the sides differ in it
    precision: str | None  # None: the page does not fix one
    values: tuple[str, str]
    workloads: set[Workload]
    datasets: list[str]
    spec_method: str | None = None  # None: the page does not fix one (unless a side varies it)


@dataclass(frozen=True)
class PageKind:
    key: str  # the stub's `kind:`
    name: str  # index section, eyebrow, breadcrumb
    varies: str  # the filter the two sides differ in
    title: Callable[[Words], str]
    lede: Callable[[Words], str]
    closers: tuple[str, ...]  # one ends each paragraph, chosen by a stable hash
    # (model, gpu, precision, side a, side b, page-wide spec method or "")
    slug: Callable[[str, str, str, str, str, str], str]
    side_label: Callable[[str], str] = _upper  # a side's label from its filter value
    accuracy_caveat: bool = False  # a precision change may change model quality
    engine_caveat: bool = False  # acceptance rates differ between engines
    same_outputs: bool = False  # the two sides should give the same answers (greedy decoding)
    needs_gpu: bool = True  # both sides share one GPU
    # the pages the data implies, in order of model and GPU; None: only stubs make this kind's pages
    discover: Callable[[PlanFacts], Iterator[Found]] | None = None


def _precision(words: Words) -> str:
    return f" {words.precision}" if words.precision else ""


def _method(words: Words) -> str:
    return f" {words.method}" if words.method else ""


def _method_slug(method: str) -> str:
    """A page-wide speculative method in a slug: none is left out (the page most stubs mean)."""
    return "" if method in ("", "none") else method


PRECISION_ORDER = ("fp4", "int4", "fp8", "bf16", "fp16")


def precision_rank(precision: str) -> tuple[int, str]:
    """Where a precision comes in a generated page's order: the known ones lowest first."""
    order = PRECISION_ORDER.index(precision) if precision in PRECISION_ORDER else len(PRECISION_ORDER)
    return order, precision


def _precision_pairs(facts: PlanFacts) -> Iterator[Found]:
    """Every two precisions measured on one model and GPU (with or without speculative
    decoding) that share a workload, the lower precision first."""
    by_gpu: dict[tuple[str, str], dict[str, set[Workload]]] = defaultdict(lambda: defaultdict(set))
    for (model, hardware, precision, _), workloads in facts.workloads.items():
        by_gpu[(model, hardware)][precision] |= workloads
    for (model, hardware), by_precision in sorted(by_gpu.items()):
        for a, b in combinations(sorted(by_precision, key=precision_rank), 2):
            shared = by_precision[a] & by_precision[b]
            if shared:
                yield Found(model, hardware, None, (a, b), shared, facts.datasets(model, hardware))


def _methods_against_none(facts: PlanFacts) -> Iterator[Found]:
    """Every speculative-decoding method against none on one model, GPU and precision, where the
    two share a workload."""
    by_precision: dict[tuple[str, str, str], dict[str, set[Workload]]] = defaultdict(dict)
    for (model, hardware, precision, method), workloads in facts.workloads.items():
        by_precision[(model, hardware, precision)][method] = workloads
    for (model, hardware, precision), methods in sorted(
        by_precision.items(), key=lambda item: (item[0][:2], precision_rank(item[0][2]))
    ):
        for method in sorted(set(methods) - {"none", "unknown"}):
            shared = methods[method] & methods.get("none", set())
            if shared:
                yield Found(
                    model, hardware, precision, (method, "none"), shared, facts.datasets(model, hardware)
                )


def _gpu_pairs(facts: PlanFacts) -> Iterator[Found]:
    """Every two GPUs measured on one model at one precision and one speculative method that
    share a workload (GPU keys in sorted order), so a hardware pair needs no stub."""
    by_setting: dict[tuple[str, str, str], dict[str, set[Workload]]] = defaultdict(dict)
    for (model, hardware, precision, method), workloads in facts.workloads.items():
        if method != "unknown":
            by_setting[(model, precision, method)][hardware] = workloads
    for (model, precision, method), gpus in sorted(
        by_setting.items(),
        key=lambda item: (item[0][0], precision_rank(item[0][1]), item[0][2] != "none", item[0][2]),
    ):
        for a, b in combinations(sorted(gpus), 2):
            shared = gpus[a] & gpus[b]
            if shared:
                yield Found(model, None, precision, (a, b), shared, facts.datasets(model, a, b), method)


KINDS: dict[str, PageKind] = {
    kind.key: kind
    for kind in (
        PageKind(
            key="precision",
            name="Precision Comparison",
            varies="precision",
            title=lambda w: f"{w.gpu}: {w.a} vs {w.b} Precision Comparison",
            lede=lambda w: (
                f"How {w.a} and {w.b} precision affect {w.model} inference on {w.gpu_with_architecture}"
            ),
            closers=(
                "Precision changes model quality as well as speed: check accuracy results before choosing.",
                "Lower precision trades some accuracy for throughput; "
                "the cost figures say nothing about quality.",
                "Quantization-level accuracy differences are not part of these numbers.",
                "A faster precision is only cheaper if its accuracy is good enough for the workload.",
            ),
            slug=lambda model, gpu, precision, a, b, method: slugify(gpu, a, "vs", b, model),
            accuracy_caveat=True,
            discover=_precision_pairs,
        ),
        PageKind(
            key="spec-decoding",
            name="Speculative Decoding",
            varies="spec_method",
            title=lambda w: f"{w.gpu}{_precision(w)}: {w.a} vs {w.b} Speculative Decoding",
            lede=lambda w: (
                f"Speculative decoding, {w.a} against {w.b}, for {w.model} on {w.gpu_with_architecture}"
            ),
            closers=(
                "Draft-token acceptance decides whether speculative decoding helps at a given concurrency.",
                "Speculative decoding spends compute on draft tokens to save decoding steps; the payoff "
                "depends on sequence length and batch size.",
                "Gains from speculative decoding vary by workload and by how well the draft model predicts.",
                "Acceptance rates differ between engines, "
                "so part of a gap can be the engine, not the method.",
            ),
            slug=lambda model, gpu, precision, a, b, method: slugify(
                gpu, precision, a, "vs", "off" if b == "none" else b, model
            ),
            side_label=_method_label,
            same_outputs=True,
            engine_caveat=True,
            discover=_methods_against_none,
        ),
        PageKind(
            key="hardware",
            name="Hardware Comparison",
            varies="hardware",
            title=lambda w: f"{w.model}{_precision(w)}{_method(w)}: {w.a} vs {w.b}",
            lede=lambda w: f"{w.a} against {w.b} serving {w.model}",
            closers=(
                "Cost and energy use each GPU's own constants, printed below.",
                "Per-GPU figures hide how many GPUs each deployment needs: see the concurrency row.",
                "The faster GPU is only cheaper per token "
                "if its hourly cost grows more slowly than its throughput.",
                "Both sides pool their best available configuration, "
                "which may differ in engine and parallelism.",
            ),
            slug=lambda model, gpu, precision, a, b, method: slugify(
                a, "vs", b, precision, _method_slug(method), model
            ),
            needs_gpu=False,
            discover=_gpu_pairs,
        ),
        PageKind(
            key="custom",
            name="Comparison",
            varies="framework",
            title=lambda w: f"{w.model}: {w.a} vs {w.b}",
            lede=lambda w: f"{w.a} against {w.b} serving {w.model} on {w.gpu_with_architecture}",
            closers=(
                "Each side pools the configurations its filters select.",
                "See the provenance section for the configurations behind each number.",
                "Numbers are interpolated along each side's measured frontier.",
                "Cost and energy use the constants printed below.",
            ),
            slug=lambda model, gpu, precision, a, b, method: slugify(gpu, a, "vs", b, model),
        ),
    )
}
KIND_KEYS = tuple(KINDS)
