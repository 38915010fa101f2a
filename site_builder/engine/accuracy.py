"""Accuracy statistics: a score's 95% interval, several runs pooled, and the difference of two sides.

Pure numbers, no wording. Scores are proportions (0.955 for 95.5%) of a benchmark's questions
answered right; their uncertainty is the sampling of questions, which is what lm-evaluation-
harness reports as `*_stderr` (the standard error of the mean per-question score, sample standard
deviation with n − 1). The rules, each chosen so that an interval is never narrower than the data
allow:

- **One run.** score ± z·se, with se the file's standard error, or, where only the number of
  questions n is known, sqrt(p(1 − p) / (n − 1)) (the harness's own formula for a 0/1 score).
  The interval is clipped to [0, 1].
- **Several runs of one side** answer the same questions, so their errors are correlated and
  averaging them does not shrink the question-sampling uncertainty as independent samples would.
  The pooled score is the mean of the runs' scores. Its standard error is the standard deviation
  of the per-question means across runs ÷ sqrt(n) when every run has per-question results on
  the same questions (exact), and otherwise sqrt(mean(se²)), which is never smaller than the
  exact value (the variance of an average of correlated estimates is at most their mean
  variance). Runs whose scores differ by more than their combined noise are flagged.
- **Difference of two sides** (a − b). Paired when both sides have per-question results on
  common questions: the mean of the per-question differences and their standard error, much
  tighter because question difficulty cancels. Otherwise unpaired: sqrt(se_a² + se_b²).
- **Verdict.** A difference whose interval contains 0 is within noise — never a win or a loss.

A run that scored exactly 0 almost always failed (no answer could be parsed); it is kept out of
the pooled figure and reported as such.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Z95 = 1.959963984540054  # two-sided 95% normal quantile
MIN_PAIRED_QUESTIONS = 10  # fewer common questions than this: not enough to pair on

Verdict = Literal["within-noise", "a-better", "b-better"]
PoolMethod = Literal["single", "per-question", "conservative"]
DifferenceMethod = Literal["paired", "unpaired"]


@dataclass(frozen=True)
class RunScore:
    """One evaluation run as the statistics need it."""

    score: float
    stderr: float | None = None
    questions: int | None = None
    per_question: Mapping[str, float] | None = None  # question id → that question's score


@dataclass(frozen=True)
class Estimate:
    value: float
    stderr: float
    lo: float
    hi: float


@dataclass(frozen=True)
class RunNumbers:
    """A run's interval, or why it has none or is kept out of the pooled figure."""

    estimate: Estimate | None
    excluded: Literal["failed", "no-error"] | None = None


@dataclass(frozen=True)
class Pooled:
    estimate: Estimate
    runs: int  # runs pooled
    method: PoolMethod
    spread: tuple[float, float]  # lowest and highest pooled run score
    consistent: bool  # every pair of pooled runs agrees within its combined 95% noise
    per_question: Mapping[str, float] | None  # per-question mean over the pooled runs, where all have it


@dataclass(frozen=True)
class Difference:
    estimate: Estimate  # a − b, in proportion units (0.012 = 1.2 points)
    method: DifferenceMethod
    questions: int | None  # common questions a paired difference used
    verdict: Verdict


@dataclass(frozen=True)
class TaskNumbers:
    """One task on one page: each side's runs and pooled score, and the difference where both have one."""

    runs: tuple[tuple[RunNumbers, ...], tuple[RunNumbers, ...]]
    pooled: tuple[Pooled | None, Pooled | None]
    difference: Difference | None


def interval(value: float, stderr: float, bounded: bool) -> Estimate:
    lo, hi = value - Z95 * stderr, value + Z95 * stderr
    if bounded:
        lo, hi = max(0.0, lo), min(1.0, hi)
    return Estimate(value, stderr, lo, hi)


def run_stderr(run: RunScore) -> float | None:
    """The run's standard error: given, or from the number of questions for a 0/1 score."""
    if run.stderr is not None:
        return run.stderr
    if run.per_question is not None and len(run.per_question) > 1:
        return _sd(list(run.per_question.values())) / math.sqrt(len(run.per_question))
    if run.questions is not None and run.questions > 1:
        p = run.score
        return math.sqrt(max(p * (1.0 - p), 0.0) / (run.questions - 1))
    return None


def run_numbers(run: RunScore) -> RunNumbers:
    stderr = run_stderr(run)
    if stderr is None:
        return RunNumbers(None, "no-error")
    estimate = interval(run.score, stderr, bounded=True)
    return RunNumbers(estimate, "failed" if run.score == 0.0 else None)


def _sd(values: Sequence[float]) -> float:
    """The sample standard deviation (n − 1) of at least two values (every caller has two or more)."""
    n = len(values)
    mean = math.fsum(values) / n
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))


def _per_question_means(runs: Sequence[RunScore]) -> dict[str, float] | None:
    """Each question's mean over the runs, when every run has per-question scores on the same questions."""
    logs = [r.per_question for r in runs if r.per_question is not None]
    question_sets = {frozenset(log) for log in logs}
    if len(logs) < len(runs) or len(question_sets) != 1:
        return None
    (questions,) = question_sets
    return {q: math.fsum(log[q] for log in logs) / len(logs) for q in sorted(questions)}


def pool(runs: Sequence[RunScore]) -> Pooled | None:
    """The side's pooled score from its usable runs (failed and error-less runs left out)."""
    usable = [
        (r, n.estimate) for r in runs if (n := run_numbers(r)).excluded is None and n.estimate is not None
    ]
    if not usable:
        return None
    scores = [r.score for r, _ in usable]
    errors = [estimate.stderr for _, estimate in usable]
    value = math.fsum(scores) / len(scores)
    means = _per_question_means([r for r, _ in usable])
    method: PoolMethod
    if len(usable) == 1:
        stderr, method = errors[0], "single"
    elif means is not None and len(means) > 1:
        stderr, method = _sd(list(means.values())) / math.sqrt(len(means)), "per-question"
    else:
        stderr, method = math.sqrt(math.fsum(e * e for e in errors) / len(errors)), "conservative"
    consistent = all(
        abs(score_a - score_b) <= Z95 * math.hypot(error_a, error_b)
        for (score_a, error_a), (score_b, error_b) in itertools.combinations(
            zip(scores, errors, strict=True), 2
        )
    )
    return Pooled(
        estimate=interval(value, stderr, bounded=True),
        runs=len(usable),
        method=method,
        spread=(min(scores), max(scores)),
        consistent=consistent,
        per_question=means,
    )


def verdict(estimate: Estimate, higher_is_better: bool) -> Verdict:
    if estimate.lo <= 0.0 <= estimate.hi:
        return "within-noise"
    a_higher = estimate.value > 0
    return "a-better" if a_higher == higher_is_better else "b-better"


def difference(a: Pooled, b: Pooled, higher_is_better: bool = True) -> Difference:
    """a − b: paired on the questions both answered where both have per-question results."""
    questions_a, questions_b = a.per_question or {}, b.per_question or {}
    common = sorted(set(questions_a) & set(questions_b))
    if len(common) >= MIN_PAIRED_QUESTIONS:
        diffs = [questions_a[q] - questions_b[q] for q in common]
        value = math.fsum(diffs) / len(diffs)
        estimate = interval(value, _sd(diffs) / math.sqrt(len(diffs)), bounded=False)
        return Difference(estimate, "paired", len(common), verdict(estimate, higher_is_better))
    value = a.estimate.value - b.estimate.value
    estimate = interval(value, math.hypot(a.estimate.stderr, b.estimate.stderr), bounded=False)
    return Difference(estimate, "unpaired", None, verdict(estimate, higher_is_better))


def compare_task(
    a_runs: Sequence[RunScore], b_runs: Sequence[RunScore], higher_is_better: bool = True
) -> TaskNumbers:
    pooled_a, pooled_b = pool(a_runs), pool(b_runs)
    diff = difference(pooled_a, pooled_b, higher_is_better) if pooled_a and pooled_b else None
    return TaskNumbers(
        runs=(tuple(run_numbers(r) for r in a_runs), tuple(run_numbers(r) for r in b_runs)),
        pooled=(pooled_a, pooled_b),
        difference=diff,
    )
