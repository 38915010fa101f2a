"""The metric registry: every number a page shows at a target, defined once.

Each metric has a formula over the quantities interpolated along a side's frontier
(`CURVE_QUANTITIES`) and the GPU's constants (`CONSTANTS`, the registry in catalog.py). The
formula is a small expression tree, not Python code, so the page script (`assets/engine.js`)
evaluates exactly the same arithmetic in exactly the same order: `["/", ["*",
"usd_per_gpu_hour", 1e6], ["*", 3600, "throughput"]]` is (usd × 10⁶) ÷ (3600 × throughput).
Display rules (unit, decimals, prefix, which direction is better, axis title) sit beside the
formula, so adding a metric is one entry.

Cost and energy are derived from the interpolated throughput, never splined on their own
(DESIGN.md). A metric whose constant is unknown for a GPU is unavailable, with that constant
named as the reason.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from site_builder.catalog import CONSTANTS as CONSTANTS  # re-exported: formulas name these

# The quantities a side's frontier interpolates (one spline each, sharing the knots), with the
# attribute that holds each on a measured point (BenchmarkPoint and its summary alike).
CURVE_QUANTITIES: dict[str, str] = {
    "throughput": "throughput_per_gpu",
    "concurrency": "concurrency",
    "output_throughput": "output_throughput_per_gpu",
    "users_per_gpu": "users_per_gpu",
}
# Why a curve quantity can have no value where throughput has one (engine/compare.py), with the
# short name the page uses, like a missing constant: a knot without a GPU count, or a target
# between two different deployments (whose concurrency no deployment ran).
QUANTITY_GAPS: dict[str, str] = {"gpu_count": "GPU count", "deployment": "deployment"}
# The per-GPU constants a formula may use (data/hardware.yaml, overridable per site and page) are
# the registry catalog.CONSTANTS, imported above: a formula names one by its key.

Expr: TypeAlias = "str | float | int | list[Expr]"
Better = Literal["higher", "lower", ""]
# the binary operators a formula may use (engine.js applies the same four)
_APPLY: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


@dataclass(frozen=True)
class Metric:
    """One metric: how it is computed and how a page shows it."""

    key: str  # URL and script name: ?metric=cost
    attribute: str  # its name in comparison.json and the CSV downloads
    formula: Expr
    label: str  # chart switch
    row_title: str  # table row
    axis: str  # chart y-axis title
    unit: str  # hover text
    decimals: int  # table precision
    better: Better = ""  # which value wins a table cell; "" for neither
    prefix: str = ""  # "$", or "~" for an approximate count
    shown: bool = True  # a table row and a chart; False: only in the downloads
    whole: bool = False  # stored rounded half-up, the raw value beside it as <attribute>_interpolated
    scorecard: bool = False  # a choice of the index's scorecard metric switch

    @property
    def needs(self) -> tuple[str, ...]:
        """The constants the formula uses: without them the metric is unavailable."""
        return tuple(name for name in variables(self.formula) if name in CONSTANTS)


# Order = the order of fields in comparison.json; the shown ones are also the table's rows.
METRICS: tuple[Metric, ...] = (
    Metric(
        key="throughput",
        attribute="throughput_per_gpu",
        formula="throughput",
        label="Throughput per GPU",
        row_title="Throughput (tok/s/GPU)",
        axis="Throughput (tok/s/GPU)",
        unit="tok/s/GPU",
        decimals=1,
        better="higher",
        scorecard=True,
    ),
    Metric(
        key="output_throughput",
        attribute="output_throughput_per_gpu",
        formula="output_throughput",
        label="Output throughput per GPU",
        row_title="Output throughput (tok/s/GPU)",
        axis="Output throughput (tok/s/GPU)",
        unit="tok/s/GPU",
        decimals=1,
        better="higher",
        shown=False,
    ),
    Metric(
        key="cost",
        attribute="cost_per_million_tokens",
        formula=["/", ["*", "usd_per_gpu_hour", 1e6], ["*", 3600, "throughput"]],
        label="Cost per million tokens",
        row_title="Cost ($ per million tokens)",
        axis="Cost (USD per million tokens)",
        unit="$/M tok",
        decimals=3,
        better="lower",
        prefix="$",
        scorecard=True,
    ),
    Metric(
        key="per_mw",
        attribute="tokens_per_sec_per_mw",
        formula=["/", ["*", "throughput", 1e6], "watts_all_in"],
        label="Tokens per second per MW",
        row_title="tok/s per MW",
        axis="tok/s per MW (all-in power)",
        unit="tok/s/MW",
        decimals=0,
        better="higher",
        scorecard=True,
    ),
    Metric(
        key="joules",
        attribute="joules_per_token",
        formula=["/", "watts_all_in", "throughput"],
        label="Energy per token",
        row_title="Joules per token",
        axis="Energy (J per token, all-in power)",
        unit="J/tok",
        decimals=3,
        better="lower",
        shown=False,
    ),
    Metric(
        key="concurrency",
        attribute="concurrency",
        formula="concurrency",
        label="Concurrency",
        row_title="Concurrency",
        axis="Concurrency (whole deployment)",
        unit="",
        decimals=0,
        prefix="~",
        whole=True,
    ),
    Metric(
        key="users_per_gpu",
        attribute="users_per_gpu",
        formula="users_per_gpu",
        label="Concurrency per GPU",
        row_title="Users per GPU (concurrency ÷ GPUs)",
        axis="Concurrent users per GPU",
        unit="users/GPU",
        decimals=2,
    ),
)
SHOWN: tuple[Metric, ...] = tuple(m for m in METRICS if m.shown)
BY_KEY: dict[str, Metric] = {m.key: m for m in METRICS}
SCORECARD: tuple[Metric, ...] = tuple(m for m in METRICS if m.scorecard)  # the index's metric switch


def variables(expr: Expr) -> list[str]:
    """Names an expression reads, in order of first use."""
    if isinstance(expr, str):
        return [expr]
    if isinstance(expr, list):
        names: list[str] = []
        for operand in expr[1:]:
            names.extend(n for n in variables(operand) if n not in names)
        return names
    return []


def evaluate(expr: Expr, values: Mapping[str, float | None]) -> float | None:
    """The expression's value, or None when a name it reads has no value.

    Binary operators fold left to right, as JavaScript and Python both evaluate `a / b / c`.
    """
    if isinstance(expr, str):
        return values.get(expr)
    if isinstance(expr, int | float):
        return float(expr)
    name, *operands = expr
    apply = _APPLY[str(name)]
    result = evaluate(operands[0], values)
    for operand in operands[1:]:
        right = evaluate(operand, values)
        if result is None or right is None:
            return None
        result = apply(result, right)
    return result


def check_registry(metrics: Sequence[Metric] = METRICS) -> None:
    """Every formula well formed over known names; keys and attributes unique (run by the tests)."""
    known = set(CURVE_QUANTITIES) | set(CONSTANTS)

    def walk(expr: Expr, where: str) -> None:
        if isinstance(expr, str):
            if expr not in known:
                raise ValueError(f"{where}: unknown name {expr!r} (known: {', '.join(sorted(known))})")
        elif isinstance(expr, list):
            if len(expr) < 3 or expr[0] not in _APPLY:
                raise ValueError(f"{where}: {expr!r} is not [operator, operand, operand, …]")
            for operand in expr[1:]:
                walk(operand, where)
        elif isinstance(expr, bool) or not isinstance(expr, int | float):
            raise ValueError(f"{where}: {expr!r} is not a name, number or list")

    for metric in metrics:
        walk(metric.formula, metric.key)
    for name in ("key", "attribute"):
        values = [getattr(m, name) for m in metrics]
        if len(set(values)) != len(values):
            raise ValueError(f"metric {name}s repeat: {values}")


def shown_quantities() -> list[str]:
    """The curve quantities the shown metrics read (throughput always: it decides 'measured')."""
    used = {name for m in SHOWN for name in variables(m.formula)}
    return [q for q in CURVE_QUANTITIES if q == "throughput" or q in used]


def page_table(metrics: Sequence[Metric] = SHOWN) -> list[dict[str, object]]:
    """What the page script needs of each shown metric: its formula and display rules."""
    return [
        {
            "key": m.key,
            "label": m.label,
            "formula": m.formula,
            "needs": list(m.needs),
            "decimals": m.decimals,
            "prefix": m.prefix,
            "better": m.better,
            "whole": m.whole,
        }
        for m in metrics
    ]
