"""The hardware and model catalogs: GPU constants and model names, with site and page overrides,
and the registry of the per-GPU constants a metric formula may read (`CONSTANTS`).

The packaged `data/hardware.yaml` and `data/models.yaml` are the defaults; a project's own file adds
to them and overrides them entry by entry (a GPU or a model at a time; project.py finds the files).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from site_builder.files import Count, Identifier, PositiveNumber, Prose, Title, WebAddress, load_yaml
from site_builder.formatting import fixed
from site_builder.problems import ProblemLog, Severity, add_validation_errors

CostTier = Literal["hyperscaler", "neocloud", "rental"]


@dataclass(frozen=True)
class Constant:
    """One per-GPU constant a metric formula may read (metrics.py): its name, its words, and how
    the provenance's constants table writes it. The page script gets `key` and `missing` in its
    page data (render/pages.py), so it words a missing constant as the build does."""

    key: str  # the formula's name; the field of the catalog, of an override and of comparison.json
    short: str  # "cost": warnings, caveats, which source gave which constant
    missing: str  # why a metric needing it has no value, {tier} and {gpu} filled in
    heading: str  # the provenance's constants table: the column's heading …
    prefix: str = ""  # … and a value's text there: prefix, the value, unit
    unit: str = ""
    decimals: int | None = None  # None: the value as written (Python's str)
    per_tier: bool = False  # the catalog gives one value per cost tier (data/hardware.yaml)

    def reason(self, tier: str, gpu: str) -> str:
        """Why a metric needing this constant has no value for this GPU."""
        return self.missing.format(tier=tier, gpu=gpu)

    def text(self, value: float | None) -> str:
        """A value as the provenance's constants table writes it ('unknown' without one)."""
        if value is None:
            return "unknown"
        number = str(value) if self.decimals is None else fixed(value, self.decimals)
        return self.prefix + number + self.unit


# The per-GPU constants, in the order comparison.json and the constants table list them. Each is
# also a field of HardwareSpec, ConstantOverride and AppliedConstants below, where an author's
# catalog and stubs are validated (tests/test_registries.py checks that every entry has them).
CONSTANTS: dict[str, Constant] = {
    c.key: c
    for c in (
        Constant(
            key="usd_per_gpu_hour",
            short="cost",
            missing="no {tier} cost per GPU-hour for {gpu}",
            heading="$ per GPU-hour",
            prefix="$",
            per_tier=True,
        ),
        Constant(
            key="watts_all_in",
            short="power",
            missing="no all-in power per GPU for {gpu}",
            heading="All-in power",
            unit=" W",
            decimals=0,
        ),
    )
}


class HardwareSpec(BaseModel):
    """Constants of one GPU: all-in power and owning cost by tier."""

    model_config = ConfigDict(extra="forbid")

    name: Title
    vendor: str | None = None
    architecture: str | None = None
    watts_all_in: PositiveNumber | None = None
    usd_per_gpu_hour: dict[CostTier, PositiveNumber] = Field(default_factory=dict)
    gpus_per_node: Count | None = None  # GPUs in one server: a single-node run uses at most this many
    # who gave this entry's constants, where it came from another file than the catalog's own
    # source (a project's entry over the packaged catalog): set when the catalogs are merged
    source: str | None = None
    as_of: str | None = None


class HardwareCatalog(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: Prose
    source_url: WebAddress | None = None
    as_of: str
    default_cost_tier: CostTier = "hyperscaler"
    gpus: dict[Identifier, HardwareSpec]


class HardwareAdditions(BaseModel):
    """A project's own `data/hardware.yaml`: entries that add to or replace the packaged ones,
    with the source of their values (the packaged catalog's where it gives none)."""

    model_config = ConfigDict(extra="forbid")

    source: Prose | None = None
    source_url: WebAddress | None = None
    as_of: str | None = None
    default_cost_tier: CostTier | None = None
    gpus: dict[Identifier, HardwareSpec] = Field(default_factory=dict)


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Title


class ConstantOverride(BaseModel):
    """A site's or page's own value for a GPU's constants, with where it came from."""

    model_config = ConfigDict(extra="forbid")

    watts_all_in: PositiveNumber | None = None
    usd_per_gpu_hour: PositiveNumber | None = None
    source: Prose | None = None
    as_of: str | None = None


class AppliedConstants(BaseModel):
    """The constants one page used for one GPU, as printed on that page."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def values(self) -> dict[str, float | None]:
        """The constants a metric formula may read (CONSTANTS), None where unknown."""
        return {key: getattr(self, key) for key in CONSTANTS}

    def missing(self) -> list[str]:
        """Short names of the unknown constants: ['cost'], ['cost', 'power'] …"""
        return [c.short for c in CONSTANTS.values() if getattr(self, c.key) is None]

    def texts(self) -> list[str]:
        """Each constant as the provenance's constants table writes it ('$1.95', '2170 W')."""
        return [c.text(getattr(self, c.key)) for c in CONSTANTS.values()]

    hardware: str
    hardware_name: str
    cost_tier: CostTier
    usd_per_gpu_hour: float | None
    watts_all_in: float | None
    source: str
    as_of: str


def _read_yaml(path: Path, log: ProblemLog) -> object:
    """A catalog: the project's own (read only inside its data folder) or the packaged one."""
    document = load_yaml(path, path.as_posix(), log, root=path.parent)
    return document.data if document else None


def _report(exc: ValidationError, path: Path, log: ProblemLog) -> None:
    add_validation_errors(
        log,
        path.as_posix(),
        exc,
        fields=lambda loc: (
            HardwareSpec.model_fields if len(loc) == 3 and loc[0] == "gpus" else HardwareCatalog.model_fields
        ),
        record=lambda loc: f"gpu '{loc[1]}'" if len(loc) > 1 and loc[0] == "gpus" else "",
    )


def load_hardware(path: Path, log: ProblemLog, own: Path | None = None) -> HardwareCatalog | None:
    """The catalog at `path` (the packaged one), with a project's own file (`own`) added entry by
    entry: a GPU it lists replaces the packaged entry of that key, credited to its own source."""
    errors_before = len(log.errors)
    data = _read_yaml(path, log)
    if data is None:
        if len(log.errors) == errors_before:
            log.add(path.as_posix(), "", "", "empty: the hardware catalog needs source, as_of and gpus")
        return None
    try:
        catalog = HardwareCatalog.model_validate(data)
    except ValidationError as exc:
        _report(exc, path, log)
        return None
    if own is None:
        return catalog
    additions = _read_additions(own, log)
    return catalog if additions is None else merged(catalog, additions, own.as_posix())


def _read_additions(path: Path, log: ProblemLog) -> HardwareAdditions | None:
    errors_before = len(log.errors)
    data = _read_yaml(path, log)
    if data is None and len(log.errors) == errors_before:
        log.add(path.as_posix(), "", "", "empty: adds nothing to the packaged catalog", Severity.WARNING)
    try:
        return HardwareAdditions.model_validate(data or {})
    except ValidationError as exc:
        _report(exc, path, log)
        return None


def merged(catalog: HardwareCatalog, additions: HardwareAdditions, name: str) -> HardwareCatalog:
    """The packaged catalog with a project's entries added or put in place of its own (`name`:
    the project's file, credited where it names no source). Each entry keeps its credit; the
    project may set the default cost tier, while the catalog's own source stays the packaged one's."""
    own_credit = {"source": additions.source or f"{name} of this project", "as_of": additions.as_of}
    gpus = {
        key: spec.model_copy(update={"source": catalog.source, "as_of": catalog.as_of})
        for key, spec in catalog.gpus.items()
    }
    for key, spec in additions.gpus.items():
        gpus[key] = spec.model_copy(
            update={"source": spec.source or own_credit["source"], "as_of": spec.as_of or own_credit["as_of"]}
        )
    tier = {"default_cost_tier": additions.default_cost_tier} if additions.default_cost_tier else {}
    return catalog.model_copy(update={**tier, "gpus": gpus})


def load_models(path: Path, log: ProblemLog, own: Path | None = None) -> dict[str, ModelInfo]:
    """The model names at `path` (the packaged ones), a project's own file (`own`) adding to and
    overriding them name by name."""
    found: dict[str, ModelInfo] = {}
    for place in (path, own):
        if place is None or not place.is_file():
            continue
        data = _read_yaml(place, log)
        try:
            found.update(TypeAdapter(dict[Identifier, ModelInfo]).validate_python(data or {}))
        except ValidationError as exc:
            _report(exc, place, log)
    return found


def model_name(models: Mapping[str, ModelInfo], key: str) -> str:
    return models[key].name if key in models else key


def hardware_name(catalog: HardwareCatalog, key: str) -> str:
    """The catalog's display name, or the key as the data wrote it (never re-cased)."""
    spec = catalog.gpus.get(key)
    return spec.name if spec else key


OVERRIDE_WITHOUT_SOURCE = "a site or page override that names no source"


def _catalog_value(spec: HardwareSpec | None, constant: Constant, tier: CostTier) -> float | None:
    """A constant as the catalog gives it for a GPU (at the page's cost tier where it has tiers)."""
    if spec is None:
        return None
    value = getattr(spec, constant.key)
    if constant.per_tier:
        value = value.get(tier)
    return float(value) if value else None


Credit = tuple[str, str]  # (source, as of)


def constants_for(
    catalog: HardwareCatalog,
    hardware: str,
    tier: CostTier,
    *overrides: Mapping[str, ConstantOverride],
) -> AppliedConstants:
    """Catalog values, then each override layer in turn (site, then page); None if unknown.

    Only a layer that gave a value the page uses is credited: a GPU the catalog lacks is never
    credited to the catalog's source, and a page with no constant credits nobody."""
    spec = catalog.gpus.get(hardware)
    catalog_credit = (catalog.source, str(catalog.as_of))
    if spec is not None and spec.source:  # an entry a project's own catalog gave
        catalog_credit = (spec.source, str(spec.as_of or ""))
    found: dict[str, tuple[float | None, Credit | None]] = {}
    for key, constant in CONSTANTS.items():
        value = _catalog_value(spec, constant, tier)
        found[key] = (value, catalog_credit) if value else (None, None)
    for layer in overrides:
        override = layer.get(hardware)
        if override is not None:
            _apply(override, found)
    credited = {name: credit for name, (_, credit) in found.items() if credit is not None}
    credits = list(dict.fromkeys(credited.values()))
    return AppliedConstants(
        hardware=hardware,
        hardware_name=hardware_name(catalog, hardware),
        cost_tier=tier,
        **{name: value for name, (value, _) in found.items()},
        source=_source(credited, credits),
        as_of="; ".join(dict.fromkeys(as_of for _, as_of in credits if as_of)) or "—",
    )


def _apply(override: ConstantOverride, found: dict[str, tuple[float | None, Credit | None]]) -> None:
    """An override layer's values over what was found, each credited to the layer's source."""
    credit = (override.source or OVERRIDE_WITHOUT_SOURCE, str(override.as_of or ""))
    for name in found:
        value = getattr(override, name)
        if value is not None:
            found[name] = (value, credit)


def _source(credited: Mapping[str, Credit], credits: list[Credit]) -> str:
    """Who gave the page's constants: one source, or which constant came from where."""
    if len(credits) > 1:
        return "; ".join(f"{CONSTANTS[name].short}: {credit[0]}" for name, credit in credited.items())
    return credits[0][0] if credits else "none"
