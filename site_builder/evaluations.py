"""Evaluation results (accuracy on a benchmark task) and which comparison side each belongs to.

An `EvalRun` is one evaluation of one served configuration on one task: a score with its
standard error or number of questions, and, where the harness logged them, the per-question
scores. Loaders (loaders/evals.py) make them from lm-evaluation-harness files, InferenceX
evaluation rows and our native score records; `runs_for_side` attaches them to a page's side.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import Field, field_validator

from site_builder.content import FilterValue
from site_builder.files import Identifier
from site_builder.filters import accepts as filter_accepts
from site_builder.points import Frozen, Provenance

# What harnesses call the same measurement: InferenceX's names → lm-evaluation-harness's.
METRIC_ALIASES = {
    "em_strict": "exact_match,strict-match",
    "em_flexible": "exact_match,flexible-extract",
}
METRIC_LABELS = {
    "exact_match,strict-match": "exact match, strict",
    "exact_match,flexible-extract": "exact match, flexible extraction",
}
TASK_NAMES = {"gsm8k": "GSM8K", "mmlu": "MMLU", "gpqa": "GPQA", "math500": "MATH-500", "aime24": "AIME 2024"}


def canonical_metric(name: str) -> str:
    key = name.strip()
    return METRIC_ALIASES.get(key.lower(), key)


def metric_label(metric: str) -> str:
    if metric in METRIC_LABELS:
        return METRIC_LABELS[metric]
    name, _, flt = metric.partition(",")
    name = name.replace("_", " ")
    return name if flt in ("", "none") else f"{name}, {flt.replace('-', ' ')}"


def task_name(task: str) -> str:
    return TASK_NAMES.get(task.lower(), task)


class EvalRun(Frozen):
    """One evaluation of one serving configuration on one task."""

    model: Identifier
    hardware: Identifier | None = None  # None: the source does not say where it ran
    precision: Identifier
    spec_method: Identifier = "none"
    framework: Identifier | None = None
    task: Identifier
    metric: Identifier
    higher_is_better: bool = True
    score: float = Field(ge=0.0, le=1.0, description="the proportion right: 0.955 for 95.5%")
    stderr: float | None = Field(default=None, ge=0.0, le=0.5)
    questions: int | None = Field(default=None, gt=0)
    setup: str | None = None  # the serving configuration and harness settings, for people
    per_question: tuple[tuple[str, float], ...] | None = None  # (question id, score), from a samples log
    provenance: Provenance

    @field_validator("score", "stderr")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @property
    def date(self) -> str | None:
        return self.provenance.date

    def per_question_map(self) -> dict[str, float] | None:
        return dict(self.per_question) if self.per_question is not None else None


@dataclass(frozen=True)
class SideRuns:
    """The runs attached to one side, and whether they ran on other hardware than the side's."""

    runs: tuple[EvalRun, ...]
    other_hardware: bool


def _same(value: str | None, wanted: FilterValue | None) -> bool:
    """An unset filter accepts anything; a set one, only a value it names (select.filter_accepts)."""
    return wanted is None or filter_accepts(value, wanted)


def runs_for_side(
    runs: Iterable[EvalRun],
    filters: Mapping[str, FilterValue],
    precisions: Sequence[str],
    spec_methods: Sequence[str],
) -> SideRuns:
    """Runs of the side's model at the precisions and speculative methods its points use.

    The side's own filters for framework narrow the runs too. Runs on the side's hardware are
    preferred; only where there are none do runs of the same model, precision and method on
    any hardware stand in, and the page says so.
    """
    candidates = [
        r
        for r in runs
        if _same(r.model, filters.get("model"))
        and r.precision.lower() in {p.lower() for p in precisions}
        and r.spec_method.lower() in {s.lower() for s in spec_methods}
        and _same(r.framework, filters.get("framework"))
    ]
    here = [r for r in candidates if _same(r.hardware, filters.get("hardware"))]
    if here:
        return SideRuns(tuple(here), other_hardware=False)
    return SideRuns(tuple(candidates), other_hardware=bool(candidates))
