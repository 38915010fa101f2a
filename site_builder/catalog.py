"""The hardware and model catalogs: GPU constants and model names, with site and page overrides.

The packaged `data/hardware.yaml` is the default; a project's own file replaces it (project.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from site_builder import metrics
from site_builder.files import Identifier, PositiveNumber, load_yaml
from site_builder.problems import ProblemLog, add_validation_errors

CostTier = Literal["hyperscaler", "neocloud", "rental"]


class HardwareSpec(BaseModel):
    """Constants of one GPU: all-in power and owning cost by tier."""

    model_config = ConfigDict(extra="forbid")

    name: str
    vendor: str | None = None
    architecture: str | None = None
    watts_all_in: PositiveNumber | None = None
    usd_per_gpu_hour: dict[CostTier, PositiveNumber] = Field(default_factory=dict)


class HardwareCatalog(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str
    source_url: str | None = None
    as_of: str
    default_cost_tier: CostTier = "hyperscaler"
    gpus: dict[Identifier, HardwareSpec]


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str


class ConstantOverride(BaseModel):
    """A site's or page's own value for a GPU's constants, with where it came from."""

    model_config = ConfigDict(extra="forbid")

    watts_all_in: PositiveNumber | None = None
    usd_per_gpu_hour: PositiveNumber | None = None
    source: str | None = None
    as_of: str | None = None


class AppliedConstants(BaseModel):
    """The constants one page used for one GPU, as printed on that page."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def values(self) -> dict[str, float | None]:
        """The constants a metric formula may read (metrics.CONSTANTS), None where unknown."""
        return {name: getattr(self, name) for name in metrics.CONSTANTS}

    def missing(self) -> list[str]:
        """Short names of the unknown constants: ['cost'], ['cost', 'power'] …"""
        return [short for name, short in metrics.CONSTANTS.items() if getattr(self, name) is None]

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


def load_hardware(path: Path, log: ProblemLog) -> HardwareCatalog | None:
    errors_before = len(log.errors)
    data = _read_yaml(path, log)
    if data is None:
        if len(log.errors) == errors_before:
            log.add(path.as_posix(), "", "", "empty: the hardware catalog needs source, as_of and gpus")
        return None
    try:
        return HardwareCatalog.model_validate(data)
    except ValidationError as exc:
        _report(exc, path, log)
        return None


def load_models(path: Path, log: ProblemLog) -> dict[str, ModelInfo]:
    if not path.is_file():
        return {}
    data = _read_yaml(path, log)
    try:
        return TypeAdapter(dict[Identifier, ModelInfo]).validate_python(data or {})
    except ValidationError as exc:
        _report(exc, path, log)
        return {}


def model_name(models: Mapping[str, ModelInfo], key: str) -> str:
    return models[key].name if key in models else key


def hardware_name(catalog: HardwareCatalog, key: str) -> str:
    """The catalog's display name, or the key as the data wrote it (never re-cased)."""
    spec = catalog.gpus.get(key)
    return spec.name if spec else key


OVERRIDE_WITHOUT_SOURCE = "a site or page override that names no source"


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
    found: dict[str, tuple[float | None, tuple[str, str] | None]] = {
        "usd_per_gpu_hour": (spec.usd_per_gpu_hour.get(tier), catalog_credit)
        if spec and spec.usd_per_gpu_hour.get(tier)
        else (None, None),
        "watts_all_in": (spec.watts_all_in, catalog_credit) if spec and spec.watts_all_in else (None, None),
    }
    for layer in overrides:
        override = layer.get(hardware)
        if override is None:
            continue
        credit = (override.source or OVERRIDE_WITHOUT_SOURCE, str(override.as_of or ""))
        for name in found:
            value = getattr(override, name)
            if value is not None:
                found[name] = (value, credit)
    credited = {name: credit for name, (_, credit) in found.items() if credit is not None}
    credits = list(dict.fromkeys(credited.values()))
    if len(credits) > 1:  # say which constant came from where
        source = "; ".join(f"{metrics.CONSTANTS[name]}: {credit[0]}" for name, credit in credited.items())
    else:
        source = credits[0][0] if credits else "none"
    return AppliedConstants(
        hardware=hardware,
        hardware_name=hardware_name(catalog, hardware),
        cost_tier=tier,
        usd_per_gpu_hour=found["usd_per_gpu_hour"][0],
        watts_all_in=found["watts_all_in"][0],
        source=source,
        as_of="; ".join(dict.fromkeys(as_of for _, as_of in credits if as_of)) or "—",
    )
