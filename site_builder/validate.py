"""Checks across all loaded points (each record was validated as it loaded), on the point table.

Duplicates are judged within one dataset: of the points of one dataset with the same
configuration (its variant included), workload and concurrency the newest is kept, and the build
says once per pair of files which it kept and why; points of different datasets never replace
each other (an A/B comparison). A GPU the hardware catalog does not know gets one warning, since
its pages can show no cost or energy figures, unless the site's own constants cover it; and a
configuration that cannot be what it says (more GPUs than a server holds for a single-node run, a
TP that does not divide the GPU count) gets one warning per folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from posixpath import dirname
from typing import TYPE_CHECKING

import numpy as np

from site_builder.catalog import CONSTANTS, ConstantOverride, HardwareCatalog, HardwareSpec
from site_builder.formatting import sequence_label
from site_builder.problems import ProblemLog, Severity
from site_builder.read.metadata import Grouped

if TYPE_CHECKING:  # the table's module imports pandas, which a rebuild from the cache never needs
    import pandas as pd

    from site_builder.read.table import PointTable

# one point per dataset, configuration (variant included), workload and concurrency
POINT_KEY = ["dataset", "config_id", "workload", "isl", "osl", "concurrency"]
Pair = tuple[str, str]  # (the file a point was dropped from, the file of the point kept)


def drop_duplicates(table: PointTable, log: ProblemLog) -> PointTable:
    """One point per (dataset, configuration, workload, concurrency): the newest; of equal dates
    (or none) the later in load order. One warning per pair of files (the one that lost points,
    the one kept), in the order the first such point appears, saying how many points, an
    example and why; the kept points come in the order their keys first appear."""
    frame = table.frame
    keys = frame.groupby(POINT_KEY, sort=False, dropna=False).ngroup().to_numpy()
    repeated = np.bincount(keys)[keys] > 1
    if not repeated.any():
        return table
    chosen = np.unique(keys, return_index=True)[1]  # each key's first row, for now
    rows_of: dict[int, list[int]] = {}
    for row in np.flatnonzero(repeated).tolist():
        rows_of.setdefault(int(keys[row]), []).append(row)
    dates = [date or "" for date in frame["date"].tolist()]
    pairs: list[tuple[int, int, int]] = []  # (row, newer, older)
    for key, rows in rows_of.items():
        chosen[key] = _newest(rows, dates, pairs)
    files = frame["source_file"].tolist()
    by_files: dict[Pair, list[tuple[int, int]]] = {}
    for _, newer, older in sorted(pairs):
        by_files.setdefault((files[older], files[newer]), []).append((older, newer))
    for (dropped, kept), losses in by_files.items():
        log.add(dropped, "", "", _duplicate_reason(frame, losses, kept, dates), Severity.WARNING)
    return table.rows(chosen)


def _duplicate_reason(frame: pd.DataFrame, losses: list[tuple[int, int]], kept: str, dates: list[str]) -> str:
    """'3 duplicate points (dataset 'd', same configuration: vllm TP8 (agg), 1k/1k,
    concurrency 4, …); kept those from b.csv (dated 2026-02-01, newer than 2026-01-01)'."""
    older, newer = losses[0]
    first = frame.iloc[older]
    example = (
        f"{first['configuration']}, {first['workload'] or sequence_label(first['isl'], first['osl'])}, "
        f"concurrency {first['concurrency']}"
    )
    count = len(losses)
    what = "a duplicate point" if count == 1 else f"{count} duplicate points"
    more = "" if count == 1 else ", …"
    kept_what = "the one" if count == 1 else "those"
    same_date = f"both dated {dates[newer]}" if dates[newer] else "neither dated"
    if dates[newer] != dates[older]:
        why = f"dated {dates[newer]}, newer than {dates[older] or 'undated'}"
    elif frame.iloc[newer]["source_file"] == first["source_file"]:
        why = f"{same_date}: the later record in the file"
    else:
        why = f"{same_date}: the later file in load order"
    return (
        f"{what} (dataset '{first['dataset']}', same configuration: {example}{more}); "
        f"kept {kept_what} from {kept} ({why}). Points of different datasets never replace each "
        "other: give an intended second run its own dataset or a `variant:` to compare both"
    )


def _newest(rows: list[int], dates: list[str], pairs: list[tuple[int, int, int]]) -> int:
    """The row kept of the rows of one key (in table order): each in turn against the one kept
    so far, the later kept unless it is older; each comparison recorded."""
    kept = rows[0]
    for row in rows[1:]:
        newer, older = (row, kept) if dates[row] >= dates[kept] else (kept, row)
        pairs.append((row, newer, older))
        kept = newer
    return kept


def covered_by_constants(key: str, constants: Mapping[str, ConstantOverride]) -> bool:
    """Whether the site's own constants give every constant a page needs for this GPU."""
    given = constants.get(key)
    return given is not None and all(getattr(given, name) is not None for name in CONSTANTS)


def unknown_hardware(
    table: PointTable,
    catalog: HardwareCatalog,
    log: ProblemLog,
    constants: Mapping[str, ConstantOverride] | None = None,
) -> None:
    """One warning per GPU key the catalog lacks (and the site's constants do not cover), naming
    the files that use it and how to add it."""
    hardware = table.frame["hardware"].to_numpy()
    files, records = table.frame["source_file"].tolist(), table.frame["record"].tolist()
    for key in sorted(set(table.values("hardware")) - set(catalog.gpus)):
        if covered_by_constants(key, constants or {}):
            continue
        rows = np.flatnonzero(hardware == key).tolist()
        others = len({files[row] for row in rows}) - 1
        also = f" (and {others} other file{'s' if others > 1 else ''})" if others else ""
        log.add(
            files[rows[0]],
            records[rows[0]],
            "hardware",
            f"GPU '{key}' is not in the hardware catalog{also}: its pages show no cost or tok/s/MW and "
            f"name it '{key}'. Add it to data/hardware.yaml (gpus: {key}: {{name, watts_all_in, "
            f"usd_per_gpu_hour}}), or give its constants with their source under `constants:` in "
            "content/site.yaml or a stub (docs/data-format.md, 'Adding a GPU')",
            Severity.WARNING,
        )


def implausible_configurations(table: PointTable, catalog: HardwareCatalog | None, log: ProblemLog) -> None:
    """One warning per folder and cause for a configuration that cannot be what it says: a
    single-node run with more GPUs than the catalog's server of that GPU holds, or a TP that does
    not divide the GPU count (each names the files, the values and what to check)."""
    grouped = Grouped()
    columns = ["source_file", "hardware", "gpu_count", "tp", "pp", "multinode", "disagg"]
    found = table.distinct(columns).astype(object)
    found = found.where(found.notna(), None)  # a value not given: None
    for file, gpu, gpus, tp, pp, multinode, disagg in found.itertuples(index=False):
        if gpus is None or disagg:
            continue
        spec = catalog.gpus.get(gpu) if catalog else None
        for field_name, cause in (
            ("gpu_count", None if multinode else _beyond_a_server(gpus, gpu, spec)),
            ("tp", _tp_does_not_divide(gpus, tp, pp)),
        ):
            if cause:
                grouped.add(
                    f"{dirname(file) or '.'}/",
                    "",
                    field_name,
                    f"implausible: {cause}",
                    Severity.WARNING,
                    file,
                )
    for where, record, field_name, reason, severity, _ in grouped.each():
        log.add(where, record, field_name, reason, Severity(severity))


def _beyond_a_server(gpus: int, gpu: str, spec: HardwareSpec | None) -> str | None:
    """Why a single-node run of `gpus` GPUs cannot be one, if it cannot (catalog.gpus_per_node)."""
    node = spec.gpus_per_node if spec else None
    if spec is None or not node or gpus <= node:
        return None
    return (
        f"{gpus} GPUs in a single-node run, but a {spec.name} server holds {node}: set "
        "`multinode: true` (and the prefill/decode GPUs of a disaggregated run) or correct "
        "gpu_count / tp in the metadata"
    )


def _tp_does_not_divide(gpus: int, tp: int | None, pp: int | None) -> str | None:
    width = (tp or 0) * (pp or 1)
    if not width or gpus % width == 0:
        return None
    across = "" if (pp or 1) == 1 else f" × PP{pp}"
    return f"TP{tp}{across} does not divide the {gpus} GPUs: correct tp or gpu_count in the metadata"


def validate_points(
    table: PointTable,
    catalog: HardwareCatalog | None,
    log: ProblemLog,
    constants: Mapping[str, ConstantOverride] | None = None,
) -> PointTable:
    """The points to build from, with every cross-point problem logged (`constants`: the site's
    own, which may cover a GPU the catalog lacks)."""
    kept = drop_duplicates(table, log)
    if catalog is not None:
        unknown_hardware(kept, catalog, log, constants)
    if len(kept):
        implausible_configurations(kept, catalog, log)
    return kept
