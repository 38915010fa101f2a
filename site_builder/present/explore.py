"""The explorer's data: one compact, columnar document per model (docs/comparison-json.md,
"Explorer data files"), from which the explorer page (templates/explore.html,
assets/explore.js) selects any sides and computes with engine.js exactly as a page would.

Only what the explorer reads is kept: the configuration fields a side filters on (each a list
of its distinct values and a code per point), the workload, the numbers the engine reads and
the labels a reason names, the GPUs' constants and the metric registry's page table. Values are
the point table's own floats, never rounded (the page's numbers must equal the build's); a
median interactivity measured as 1 / median TPOT is stored as that TPOT, which is shorter
written and gives back the same float.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from site_builder import metrics
from site_builder.catalog import CONSTANTS, CostTier, HardwareCatalog, ModelInfo, constants_for, model_name
from site_builder.content import FILTER_COLUMNS, SiteConfig
from site_builder.engine.compare import SPARSE_RATIO, SPREAD_LIMIT, TIE_TOLERANCE
from site_builder.read.table import PointTable
from site_builder.workload import Workload, labelled, sorted_workloads

EXPLORE_SCHEMA_VERSION = 1
# The configuration fields a side filters on, by their stub names (content.Filters)
FIELDS = (
    "hardware",
    "precision",
    "framework",
    "spec_method",
    "disagg",
    "dataset",
    "variant",
    "tp",
    "ep",
    "gpus",
)
# The latencies whose percentiles give an interactivity of their own (1 / TPOT at that percentile)
PERCENTILES = ("p90", "p99")


def _numbers(rows: PointTable, column: str) -> list[float | None]:
    """A numeric column as floats, None where not given."""
    return [None if v is None else float(v) for v in rows.python_values(column)]


def _coded(values: Sequence[Any]) -> tuple[list[Any], list[int | None]]:
    """A field's distinct values (sorted: numbers as numbers, the rest as text) and each point's
    index among them (None where not given)."""
    distinct = sorted({v for v in values if v is not None}, key=lambda v: (isinstance(v, str), v))
    index = {v: n for n, v in enumerate(distinct)}
    return distinct, [None if v is None else index[v] for v in values]


def _median_interactivity(rows: PointTable) -> tuple[list[float | None], list[float | None]]:
    """(tpot, interactivity): a point's median TPOT in seconds where its interactivity is
    exactly 1 / that TPOT, else its interactivity as given (stated, or derived)."""
    tpot, stated = [], []
    for x, t in zip(_numbers(rows, "interactivity"), _numbers(rows, "tpot_median"), strict=True):
        exact = t is not None and t > 0 and 1.0 / t == x
        tpot.append(t if exact else None)
        stated.append(None if exact else x)
    return tpot, stated


def _deployments(rows: PointTable) -> tuple[list[int], list[str]]:
    """A number per point's deployment (equal configurations alike, numbered in order of first
    appearance) and each deployment's configuration label."""
    numbers: dict[int, int] = {}
    labels: list[str] = []
    found = []
    for config_id, label in zip(
        rows.python_values("config_id"), rows.python_values("configuration"), strict=True
    ):
        if config_id not in numbers:
            numbers[config_id] = len(labels)
            labels.append(str(label))
        found.append(numbers[config_id])
    return found, labels


def _sequences(rows: PointTable) -> tuple[list[list[Any]], list[int]]:
    """The model's workloads ([name, isl, osl], 1k/1k first, then by size, then labelled ones by
    label, their isl and osl null: their lengths vary) and each point's."""
    columns = zip(*(rows.python_values(name) for name in ("isl", "osl", "workload")), strict=True)
    found = [labelled(label) if label else Workload(isl, osl) for isl, osl, label in columns]
    workloads = sorted_workloads(set(found))
    index = {w: n for n, w in enumerate(workloads)}
    shown = [[w.name, None, None] if w.label else [w.name, w.isl, w.osl] for w in workloads]
    return shown, [index[w] for w in found]


def _gpus(
    hardware: Sequence[str], catalog: HardwareCatalog, config: SiteConfig, tier: CostTier
) -> dict[str, dict[str, Any]]:
    """Each GPU's name, vendor and constants (catalog, then the site's overrides)."""
    found = {}
    for key in hardware:
        applied = constants_for(catalog, key, tier, config.constants)
        spec = catalog.gpus.get(key)
        found[key] = {
            "name": applied.hardware_name,
            "vendor": spec.vendor if spec and spec.vendor else None,
            "constants": applied.values(),
        }
    return found


def model_data(
    model: str,
    rows: PointTable,
    catalog: HardwareCatalog,
    config: SiteConfig,
    models: Mapping[str, ModelInfo],
) -> dict[str, Any]:
    """One model's explorer data: its points in table order, a column each."""
    tier = config.cost_tier or catalog.default_cost_tier
    fields, codes = {}, {}
    for key in FIELDS:
        fields[key], codes[key] = _coded(rows.python_values(FILTER_COLUMNS.get(key, key)))
    sequences, sequence = _sequences(rows)
    deployment, configurations = _deployments(rows)
    tpot, interactivity = _median_interactivity(rows)
    points: dict[str, list[Any]] = {
        **codes,
        "sequence": sequence,
        "tpot": tpot,
        "interactivity": interactivity,
        **{f"tpot_{p}": _numbers(rows, f"tpot_{p}") for p in PERCENTILES},
        "throughput": _numbers(rows, "throughput_per_gpu"),
        "output_throughput": _numbers(rows, "output_throughput_per_gpu"),
        "concurrency": [int(c) for c in rows.python_values("concurrency")],
        "deployment": deployment,
        "output_only": [int(b == "output") for b in rows.python_values("throughput_basis")],
    }
    return {
        "schema_version": EXPLORE_SCHEMA_VERSION,
        "model": model,
        "model_name": model_name(models, model),
        "cost_tier": tier,
        "fields": fields,
        "sequences": sequences,
        "points": points,
        "configurations": configurations,
        "gpus": _gpus(fields["hardware"], catalog, config, tier),
        "metrics": metrics.page_table(metrics.SHOWN),
        "constants": [{"key": c.key, "missing": c.missing} for c in CONSTANTS.values()],
        "quantities": metrics.shown_quantities(),
        "tie": TIE_TOLERANCE,
        "sparse_ratio": SPARSE_RATIO,
        "spread_limit": SPREAD_LIMIT,
    }


def explorer_models(
    table: PointTable,
    catalog: HardwareCatalog,
    config: SiteConfig,
    models: Mapping[str, ModelInfo],
) -> dict[str, dict[str, Any]]:
    """Every model's explorer data, by model key, models in order."""
    keys = sorted({str(m) for m in table.values("model")})
    return {key: model_data(key, table.select({"model": key}), catalog, config, models) for key in keys}
