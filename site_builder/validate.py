"""Checks across all loaded points (each record was validated as it loaded), on the point table.

Duplicates keep the newest, and the build says which it dropped; a GPU the hardware catalog does
not know gets one warning, since its pages can show no cost or energy figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from site_builder.catalog import HardwareCatalog
from site_builder.formatting import sequence_label
from site_builder.problems import ProblemLog, Severity

if TYPE_CHECKING:  # the table's module imports pandas, which a rebuild from the cache never needs
    from site_builder.read.table import PointTable

POINT_KEY = ["config_id", "isl", "osl", "concurrency"]  # one point per configuration, workload, concurrency


def drop_duplicates(table: PointTable, log: ProblemLog) -> PointTable:
    """One point per (configuration, workload, concurrency): the newest; ties go to the later
    file. Each dropped point is named in a warning (in table order), and the kept points come
    in the order their keys first appear."""
    frame = table.frame
    keys = frame.groupby(POINT_KEY, sort=False).ngroup().to_numpy()  # numbered by first appearance
    repeated = np.bincount(keys)[keys] > 1
    if not repeated.any():
        return table
    chosen = np.unique(keys, return_index=True)[1]  # each key's first row, for now
    rows_of: dict[int, list[int]] = {}
    for row in np.flatnonzero(repeated).tolist():
        rows_of.setdefault(int(keys[row]), []).append(row)
    dates = [date or "" for date in frame["date"].tolist()]
    warnings: list[tuple[int, int, int]] = []  # (row, newer, older)
    for key, rows in rows_of.items():
        chosen[key] = _newest(rows, dates, warnings)
    text = {
        name: frame[name].tolist()
        for name in ("source_file", "record", "configuration", "date", "isl", "osl", "concurrency")
    }
    for row, newer, older in sorted(warnings):
        log.add(
            text["source_file"][older],
            text["record"][older],
            "",
            f"duplicate point ({text['configuration'][row]}, "
            f"{sequence_label(text['isl'][row], text['osl'][row])}, concurrency "
            f"{text['concurrency'][row]}); kept the newer one from {text['source_file'][newer]} "
            f"{text['record'][newer]} (date {text['date'][newer] or 'unknown'})",
            Severity.WARNING,
        )
    return table.rows(chosen)


def _newest(rows: list[int], dates: list[str], warnings: list[tuple[int, int, int]]) -> int:
    """The row kept of the rows of one key (in table order): each in turn against the one kept
    so far, the later kept unless it is older; each comparison a warning."""
    kept = rows[0]
    for row in rows[1:]:
        newer, older = (row, kept) if dates[row] >= dates[kept] else (kept, row)
        warnings.append((row, newer, older))
        kept = newer
    return kept


def unknown_hardware(table: PointTable, catalog: HardwareCatalog, log: ProblemLog) -> None:
    """One warning per GPU key the catalog lacks, naming the files that use it and how to add it."""
    hardware = table.frame["hardware"].to_numpy()
    files, records = table.frame["source_file"].tolist(), table.frame["record"].tolist()
    for key in sorted(set(table.values("hardware")) - set(catalog.gpus)):
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


def validate_points(table: PointTable, catalog: HardwareCatalog | None, log: ProblemLog) -> PointTable:
    """The points to build from, with every cross-point problem logged."""
    kept = drop_duplicates(table, log)
    if catalog is not None:
        unknown_hardware(kept, catalog, log)
    return kept
