"""Hardware constants and model names, with site- and page-level overrides."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml
from pydantic import TypeAdapter, ValidationError

from site_builder.models import (
    AppliedConstants,
    ConstantOverride,
    CostTier,
    HardwareCatalog,
    HardwareSpec,
    ModelInfo,
)
from site_builder.problems import ProblemLog, add_validation_errors


def _read_yaml(path: Path, log: ProblemLog) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        log.add(path.as_posix(), "", "", f"cannot read: {exc}")
        return None


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
    data = _read_yaml(path, log)
    if data is None:
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
        return TypeAdapter(dict[str, ModelInfo]).validate_python(data or {})
    except ValidationError as exc:
        _report(exc, path, log)
        return {}


def model_name(models: Mapping[str, ModelInfo], key: str) -> str:
    return models[key].name if key in models else key


def hardware_name(catalog: HardwareCatalog, key: str) -> str:
    spec = catalog.gpus.get(key)
    return spec.name if spec else key.upper()


def constants_for(
    catalog: HardwareCatalog,
    hardware: str,
    tier: CostTier,
    *overrides: Mapping[str, ConstantOverride],
) -> AppliedConstants:
    """Catalog values, then each override layer in turn (site, then page); None if unknown."""
    spec = catalog.gpus.get(hardware)
    watts = spec.watts_all_in if spec else None
    usd = spec.usd_per_gpu_hour.get(tier) if spec else None
    source, as_of = catalog.source, catalog.as_of
    for layer in overrides:
        override = layer.get(hardware)
        if override is None:
            continue
        watts = override.watts_all_in if override.watts_all_in is not None else watts
        usd = override.usd_per_gpu_hour if override.usd_per_gpu_hour is not None else usd
        source = override.source or f"override of: {source}"
        as_of = override.as_of or as_of
    return AppliedConstants(
        hardware=hardware,
        hardware_name=hardware_name(catalog, hardware),
        cost_tier=tier,
        usd_per_gpu_hour=usd,
        watts_all_in=watts,
        source=source,
        as_of=str(as_of),
    )
