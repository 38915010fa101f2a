"""The one columnar encoding of measured points for the page scripts: a comparison page's view
data (present/views.py, in its page data) and the explorer's data files (present/explore.py)
carry points with it, and engine.js `decodePoints` reads it back (docs/comparison-json.md,
"Point columns").

Points are listed column by column in a given order. A configuration field is a list of its
distinct values (`field_values`: numbers by size, text without case, not given last) and a code
per point, its value's index there (`codes`). A number is the point table's own value, never
rounded (a page's numbers must equal the build's), None where not given. A median interactivity
measured as 1 / median TPOT is stored as that TPOT (`tpot`, shorter written, giving back the same
float), any other in `interactivity`: a point has exactly one of the two, and a column holding
no point's is left out. A point's median TPOT (`tpot_median`, where asked for: the latency view)
is written only where `tpot` does not hold it, so no value is written twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from site_builder.content import FILTER_COLUMNS
from site_builder.read.table import PointTable

# The interactivity bases: 1 / TPOT at a percentile (DESIGN.md's definition, at that percentile),
# each read from a point-table column in seconds. The median is each point's own interactivity.
BASES: dict[str, str] = {"p90": "tpot_p90", "p99": "tpot_p99"}


def _sort_key(value: Any) -> tuple[int, Any]:
    """Numbers by size, text without case, not given last."""
    if value is None:
        return (2, "")
    if isinstance(value, bool | int | float):
        return (0, float(value))
    return (1, str(value).lower())


def field_values(values: Iterable[Any]) -> list[Any]:
    """A field's distinct values in the order its codes number them (None: not given, last)."""
    return sorted(set(values), key=lambda v: (_sort_key(v), str(v)))


def field_column(rows: PointTable, key: str) -> list[Any]:
    """The points' values of a configuration field, by its stub key (content.Filters)."""
    return rows.python_values(FILTER_COLUMNS.get(key, key))


def codes(values: Sequence[Any], distinct: Sequence[Any]) -> list[int]:
    """Each value's index among `distinct`."""
    index = {value: n for n, value in enumerate(distinct)}
    return [index[value] for value in values]


def median_interactivity(rows: PointTable) -> dict[str, list[float | None]]:
    """`tpot`: a point's median TPOT in seconds where its interactivity is exactly 1 / that TPOT;
    `interactivity`: its interactivity where not (stated, or derived). Either is left out where
    it holds no point's."""
    tpot: list[float | None] = []
    stated: list[float | None] = []
    for x, t in zip(rows.python_values("interactivity"), rows.python_values("tpot_median"), strict=True):
        exact = t is not None and t > 0 and 1.0 / t == x
        tpot.append(t if exact else None)
        stated.append(None if exact else x)
    both = {"tpot": tpot, "interactivity": stated}
    return {name: column for name, column in both.items() if any(v is not None for v in column)}


MEDIAN_TPOT = "tpot_median"  # the point-table column `tpot` holds where exact


def median_tpot_rest(
    median_tpot: Sequence[float | None], tpot: Sequence[float | None] | None
) -> list[float | None]:
    """The median TPOTs `tpot` (median_interactivity's) does not hold: a reader takes a point's
    from `tpot` where this has none."""
    if tpot is None:
        return list(median_tpot)
    return [None if held is not None else value for value, held in zip(median_tpot, tpot, strict=True)]


class Deployments:
    """Deployments numbered in order of first appearance (equal configurations alike, within a
    scope: a page's side) with each one's configuration label."""

    def __init__(self) -> None:
        self.numbers: dict[tuple[Any, Any], int] = {}
        self.labels: list[str] = []

    def column(self, rows: PointTable, scope: Any = None) -> list[int]:
        """Each point's deployment number."""
        found = []
        for config_id, label in zip(
            rows.python_values("config_id"), rows.python_values("configuration"), strict=True
        ):
            key = (scope, config_id)
            if key not in self.numbers:
                self.numbers[key] = len(self.labels)
                self.labels.append(str(label))
            found.append(self.numbers[key])
        return found


def point_columns(
    rows: PointTable,
    numbers: Mapping[str, str],
    fields: Mapping[str, Sequence[Any]],
    deployments: Deployments,
    scope: Any = None,
) -> dict[str, Any]:
    """The points' columns: the median interactivity (`median_interactivity`), each of `numbers`
    (its name → a point-table column; the median TPOT only where `tpot` lacks it, left out where
    that is nowhere), the deployment and, under `codes`, each field's code (`fields`: key → its
    distinct values)."""
    median = median_interactivity(rows)
    given = {name: rows.python_values(column) for name, column in numbers.items()}
    for name, column in numbers.items():
        if column == MEDIAN_TPOT:
            given[name] = median_tpot_rest(given[name], median.get("tpot"))
            if all(value is None for value in given[name]):
                del given[name]
    return {
        **median,
        **given,
        "deployment": deployments.column(rows, scope),
        "codes": {key: codes(field_column(rows, key), values) for key, values in fields.items()},
    }
