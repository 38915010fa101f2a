"""The index's scorecards in words (present stage): each row's label and what the index filters
read, each cell's text per scorecard metric (metrics.SCORECARD), the best marked, "not measured"
where a row does not reach a tier, and the page that shows the cell.

The numbers are the compute stage's (site_builder/scorecard.py); the page script only shows and
hides what this precomputes (assets/index.js).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from site_builder import metrics
from site_builder.catalog import HardwareCatalog, ModelInfo, hardware_name, model_name
from site_builder.engine.compare import is_tie
from site_builder.formatting import fixed
from site_builder.metrics import Metric
from site_builder.plan import PlannedPage
from site_builder.scorecard import Scorecard, ScoreRow

RowKey = tuple[str, str, str, str]  # model, GPU, precision, speculative method
MODES = {False: "aggregated", True: "disaggregated"}
EXPLORER = "explore/index.html"  # the explorer, from the site's root (render/explore.py)


@dataclass(frozen=True)
class MetricText:
    """One metric's text in a cell, and whether it is the column's best."""

    key: str
    text: str
    best: bool


@dataclass(frozen=True)
class CellView:
    measured: bool
    texts: tuple[MetricText, ...]  # one per scorecard metric
    href: str | None  # the page showing this row at this tier, else the explorer's view of it


@dataclass(frozen=True)
class RowView:
    """A row's label and what each index filter reads of it."""

    gpu: str  # display name
    hardware: str  # key
    vendor: str
    precision: str  # upper case
    method: str  # "MTP", or "none"
    engines: tuple[str, ...]
    modes: tuple[str, ...]
    cells: tuple[CellView, ...]

    @property
    def label(self) -> str:
        method = "" if self.method == "none" else f" {self.method}"
        return f"{self.gpu} {self.precision}{method}"

    @property
    def filter_values(self) -> dict[str, str]:
        """Each filter's values of the row, joined by '|', as the page script reads them."""
        return {key: "|".join(values) for key, values in row_filters(self).items()}


@dataclass(frozen=True)
class ScorecardView:
    anchor: str  # the section's id
    model: str  # display name
    sequence: str
    basis: str
    tiers: tuple[str, ...]  # as shown, tok/s/user
    rows: tuple[RowView, ...]


def scorecard_views(
    cards: Sequence[Scorecard],
    planned: Sequence[PlannedPage],
    catalog: HardwareCatalog,
    models: Mapping[str, ModelInfo],
) -> list[ScorecardView]:
    """Every scorecard worded, each cell linked to a published page one of whose sides pools
    exactly that row (its filters are the row's) and which shows that workload, at that
    workload with the scorecard's tiers as its targets (a page whose own targets are fewer
    keeps its own: the page script takes as many targets as it has); where no page does, to
    the explorer showing that row alone at the tiers (`explorer_href`)."""
    pages = pages_by_row(planned)
    views = []
    for card in cards:
        sequence = card.workload.name
        best = {m.key: _best(card, m) for m in metrics.SCORECARD}
        rows = tuple(_row_view(card, row, best, pages, catalog, sequence) for row in card.rows)
        views.append(
            ScorecardView(
                anchor=f"scorecard-{card.model}-{sequence.replace('/', '-')}",
                model=model_name(models, card.model),
                sequence=sequence,
                basis=card.basis,
                tiers=tuple(fixed(t, 0) for t in card.tiers),
                rows=rows,
            )
        )
    return views


def pages_by_row(planned: Sequence[PlannedPage]) -> dict[RowKey, list[tuple[str, tuple[str, ...]]]]:
    """(slug, sequences) of each published page, by the row each of its sides pools exactly: a
    side whose filters are model, GPU, precision and method alone (and datasets)."""
    found: dict[RowKey, list[tuple[str, tuple[str, ...]]]] = {}
    for page in sorted(planned, key=lambda p: p.head.slug):
        for side in page.stub.sides:
            filters = {k: v for k, v in side.filters.items() if k != "dataset"}
            if set(filters) == {"model", "hardware", "precision", "spec_method"} and all(
                isinstance(v, str) for v in filters.values()
            ):
                key = tuple(
                    str(filters[k]).lower() for k in ("model", "hardware", "precision", "spec_method")
                )
                found.setdefault((key[0], key[1], key[2], key[3]), []).append(
                    (page.head.slug, page.head.sequences)
                )
    return found


def _best(card: Scorecard, metric: Metric) -> list[float | None]:
    """Per tier, the best value of the metric over the rows (None where no row has one)."""
    found: list[float | None] = []
    for n in range(len(card.tiers)):
        values = [v for row in card.rows if (v := row.at[n].values.get(metric.key)) is not None]
        pick = max if metric.better == "higher" else min
        found.append(pick(values) if values and metric.better else None)
    return found


def _text(metric: Metric, value: float | None, measured: bool, best: float | None) -> MetricText:
    if not measured:
        return MetricText(metric.key, "not measured", False)
    if value is None:
        return MetricText(metric.key, "n/a", False)
    text = metric.prefix + fixed(value, metric.decimals, thousands=True)
    return MetricText(metric.key, text, best is not None and is_tie(value, best))


def _row_view(
    card: Scorecard,
    row: ScoreRow,
    best: Mapping[str, list[float | None]],
    pages: Mapping[RowKey, list[tuple[str, tuple[str, ...]]]],
    catalog: HardwareCatalog,
    sequence: str,
) -> RowView:
    key = (card.model, row.hardware, row.precision, row.spec_method)
    slug = next((slug for slug, shown in pages.get(key, []) if sequence in shown), None)
    spec = catalog.gpus.get(row.hardware)
    tiers = ",".join(fixed(t, 0) for t in card.tiers)
    href = (
        f"{slug}/index.html?seq={quote(sequence, safe='/')}&t={tiers}" if slug else explorer_href(card, row)
    )
    cells = []
    for n, at in enumerate(row.at):
        texts = tuple(_text(m, at.values.get(m.key), at.measured, best[m.key][n]) for m in metrics.SCORECARD)
        cells.append(CellView(at.measured, texts, href if at.measured else None))
    return RowView(
        gpu=hardware_name(catalog, row.hardware),
        hardware=row.hardware,
        vendor=(spec.vendor if spec and spec.vendor else "unknown"),
        precision=row.precision.upper(),
        method="none" if row.spec_method == "none" else row.spec_method.upper(),
        engines=row.frameworks,
        modes=tuple(MODES[d] for d in row.disagg),
        cells=tuple(cells),
    )


def explorer_href(card: Scorecard, row: ScoreRow) -> str | None:
    """The explorer's view of a row alone at the scorecard's tiers: one side with the row's
    filters (GPU, precision, method, datasets), in the URL shape assets/explore.js reads. None
    where that view would read another throughput basis than the scorecard (the scorecard reads
    output tok/s for a model some other row gives only that of; a view of this row alone would
    not), so a link never shows another number than its cell."""
    if card.basis == "output" and not row.output_only:
        return None
    filters = {"hardware": [row.hardware], "precision": [row.precision], "spec_method": [row.spec_method]}
    if row.datasets:
        filters["dataset"] = list(row.datasets)
    side = ",".join(
        f"{key}:" + "|".join(quote(v, safe="") for v in values) for key, values in filters.items()
    )
    query = (
        f"model={quote(card.model, safe='')}&seq={quote(card.workload.name, safe='/')}"
        f"&side={side}&t={','.join(fixed(t, 0) for t in card.tiers)}"
    )
    return f"{EXPLORER}?{query}"


@dataclass(frozen=True)
class FilterChoice:
    """One of the index's filters: the row attribute it reads and the values the rows have."""

    key: str
    label: str
    values: tuple[str, ...]


def row_filters(row: RowView) -> dict[str, tuple[str, ...]]:
    """What each filter reads of a row (a row pooling several engines or modes has them all)."""
    return {
        "vendor": (row.vendor,),
        "gpu": (row.gpu,),
        "precision": (row.precision,),
        "engine": row.engines,
        "mode": row.modes,
        "method": (row.method,),
    }


FILTER_LABELS = {
    "vendor": "Vendor",
    "gpu": "GPU",
    "precision": "Precision",
    "engine": "Engine (rows that pool it)",
    "mode": "Aggregated / disaggregated (rows that pool it)",
    "method": "Speculative decoding",
}


def scorecard_filters(cards: Sequence[ScorecardView]) -> list[FilterChoice]:
    """The index's filters, each with the values the rows have, in order of first appearance."""
    found: dict[str, dict[str, None]] = {key: {} for key in FILTER_LABELS}
    for card in cards:
        for row in card.rows:
            for key, values in row_filters(row).items():
                found[key].update(dict.fromkeys(values))
    return [
        FilterChoice(key, label, tuple(sorted(found[key], key=str.lower)))
        for key, label in FILTER_LABELS.items()
        if found[key]
    ]
