"""The explorer's data: one compact, columnar document per model (docs/comparison-json.md,
"Explorer data files"), from which the explorer page (templates/explore.html,
assets/explore.js) selects any sides and computes with engine.js exactly as a page would.

Only what the explorer reads is kept: the configuration fields a side filters on, the
workload, the numbers the engine reads (the TPOT percentiles only where some point has them)
and the labels a reason names, the GPUs' constants and the metric registry's page table. The
points are in the site's one columnar encoding (present/columns.py), which a comparison page's
view data uses too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from site_builder import metrics
from site_builder.catalog import CONSTANTS, CostTier, HardwareCatalog, ModelInfo, constants_for, model_name
from site_builder.content import SiteConfig
from site_builder.engine.compare import SPARSE_RATIO, SPREAD_LIMIT, TIE_TOLERANCE
from site_builder.present.columns import BASES, Deployments, field_column, field_values, point_columns
from site_builder.read.table import PointTable
from site_builder.workload import Workload, labelled, sorted_workloads

EXPLORE_SCHEMA_VERSION = 2  # 2: point columns as present/columns.py encodes them
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
    fields = {key: field_values(field_column(rows, key)) for key in FIELDS}
    sequences, sequence = _sequences(rows)
    bases = [p for p, column in BASES.items() if any(v is not None for v in rows.python_values(column))]
    numbers = {BASES[p]: BASES[p] for p in bases} | {
        "throughput": "throughput_per_gpu",
        "output_throughput": "output_throughput_per_gpu",
        "concurrency": "concurrency",
    }
    deployments = Deployments()
    points = point_columns(rows, numbers, fields, deployments)
    points |= {
        "sequence": sequence,
        "output_only": [int(b == "output") for b in rows.python_values("throughput_basis")],
    }
    return {
        "schema_version": EXPLORE_SCHEMA_VERSION,
        "model": model,
        "model_name": model_name(models, model),
        "cost_tier": tier,
        "fields": fields,
        "sequences": sequences,
        "bases": bases,
        "points": points,
        "configurations": deployments.labels,
        "gpus": _gpus([h for h in fields["hardware"] if h is not None], catalog, config, tier),
        "metrics": metrics.page_table(metrics.SHOWN),
        "constants": [{"key": c.key, "missing": c.missing, "short": c.short} for c in CONSTANTS.values()],
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
