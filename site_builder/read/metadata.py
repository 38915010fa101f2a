"""A raw result's metadata: what its client cannot know (hardware, precision, parallelism …).

One lookup for `build`, `check` and `import`: the `_meta.yaml` of every folder from the results
root down to the file's own, then `<stem>.meta.yaml` beside the file, merged field by field (the
nearest file wins each field it gives). What they leave out is filled, where it can be, from an
InferenceX runner file name (`dsr1_1k1k_fp8_sglang_tp8-ep1-dpafalse_disagg-false_spec-none_conc4_
mi300x-amd_0.json`, or the older `…_tp4_conc8_…`). Every field remembers where it came from, so
the provenance and the messages can say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder.problems import Cause
from site_builder.read.fields import normalise_hardware, normalise_model

FOLDER_METADATA = ("_meta.yaml", "_meta.yml", "_meta.json")
FILE_METADATA = (".meta.yaml", ".meta.yml", ".meta.json")
FROM_FILE_NAME = "the file name"

# InferenceX's RESULT_FILENAME: {model}_{isl}k{osl}k_{precision}_{framework}_tp{N}[-pp{N}-dcp{N}
# -pcp{N}][-ep{N}][-dpa{bool}][_disagg-{bool}][_spec-{method}]_conc{N}[_{runner}]
_RUNNER_NAME = re.compile(
    r"(?P<model>[a-z0-9.]+)_(?P<isl>\d+)k(?P<osl>\d+)k_(?P<precision>[a-z0-9]+)_(?P<framework>[a-z0-9.-]+)"
    r"_tp(?P<tp>\d+)(?:-pp(?P<pp>\d+))?(?:-dcp\d+)?(?:-pcp(?P<pcp>\d+))?(?:-ep(?P<ep>\d+))?"
    r"(?:-dpa(?P<dp_attention>true|false))?(?:_disagg-(?P<disagg>true|false))?"
    r"(?:_spec-(?P<spec_method>draft_model|[a-z0-9-]+))?_conc(?P<concurrency>\d+)(?:_(?P<runner>.+))?",
    re.IGNORECASE,
)


def runner_name_fields(stem: str) -> dict[str, Any]:
    """The metadata an InferenceX runner file name states (none where the name is not one)."""
    match = _RUNNER_NAME.fullmatch(stem)
    if match is None:
        return {}
    found: dict[str, Any] = {
        "model": normalise_model(match["model"], None),
        "isl": int(match["isl"]) * 1024,
        "osl": int(match["osl"]) * 1024,
        "precision": match["precision"],
        "framework": match["framework"],
    }
    for key in ("tp", "pp", "pcp", "ep"):
        if match[key] is not None:
            found[key] = int(match[key])
    for key in ("dp_attention", "disagg"):
        if match[key] is not None:
            found[key] = match[key].lower() == "true"
    if match["spec_method"] is not None:
        found["spec_method"] = match["spec_method"]
    if match["runner"]:
        found["hardware"] = normalise_hardware(match["runner"])
    return found


def folders_down(path: Path, root: Path) -> list[Path]:
    """The folders from `root` down to the file's own (root first); only the file's own where
    it does not lie under `root`."""
    folder = path.parent
    found = [folder]
    while folder != root and folder.parent != folder and root in folder.parents:
        folder = folder.parent
        found.append(folder)
    return found[::-1]


def chain(path: Path, root: Path) -> list[Path]:
    """The metadata files that apply to a result file, farthest first: one `_meta.yaml` (or
    .yml, .json) a folder from `root` down, then the file's own `<stem>.meta.yaml`."""
    stem = path.name.rsplit(".", 1)[0]
    found = [first_present(folder / name for name in FOLDER_METADATA) for folder in folders_down(path, root)]
    found.append(first_present(path.with_name(stem + suffix) for suffix in FILE_METADATA))
    return [p for p in found if p is not None]


def first_present(candidates: Iterable[Path]) -> Path | None:
    """The first of these paths that is a file, or a symbolic link (for read_text to judge)."""
    return next((path for path in candidates if path.is_file() or path.is_symlink()), None)


@dataclass
class Merged:
    """Metadata merged from its layers: each field's value and where it came from (a file's
    name as the user knows it, or FROM_FILE_NAME)."""

    values: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, layers: Sequence[tuple[str, Mapping[str, Any]]], stem: str) -> Merged:
        """Layers farthest first, each field taken from the nearest that gives it; then what the
        runner file name states, for the fields none gives."""
        merged = cls()
        for name, layer in layers:
            for key, value in layer.items():
                merged.values[str(key)] = value
                merged.origins[str(key)] = name
        for key, value in runner_name_fields(stem).items():
            if key not in merged.values and key != "concurrency" and value is not None:
                merged.values[key] = value
                merged.origins[key] = FROM_FILE_NAME
        return merged

    def from_layers(self) -> dict[str, str]:
        """Each field a layer gives (not the file name), with the layer that gives it."""
        return {key: origin for key, origin in self.origins.items() if origin != FROM_FILE_NAME}

    def from_file_name(self) -> list[str]:
        return [key for key, origin in self.origins.items() if origin == FROM_FILE_NAME]

    def said(self) -> str:
        """Where the fields came from, for the provenance: 'hardware, precision from
        results/x/_meta.yaml; tp, ep from the file name'."""
        by_origin: dict[str, list[str]] = {}
        for key, origin in self.origins.items():
            by_origin.setdefault(origin, []).append(key)
        return "; ".join(f"{', '.join(keys)} from {origin}" for origin, keys in by_origin.items())


@dataclass
class Grouped:
    """Messages said once per folder and cause: the first file that met one, and every file
    (in order) that met it since."""

    found: dict[tuple[str, str, str, str, str], list[str]] = field(default_factory=dict)
    causes: dict[tuple[str, str, str, str, str], Cause] = field(default_factory=dict)  # problems.Cause

    def add(
        self,
        where: str,
        record: str,
        field_name: str,
        reason: str,
        severity: str,
        file: str,
        cause: Cause = Cause.OTHER,
    ) -> None:
        key = (where, record, field_name, reason, severity)
        files = self.found.setdefault(key, [])
        self.causes.setdefault(key, cause)
        if file not in files:
            files.append(file)

    def each(self) -> Iterator[tuple[str, str, str, str, str, Cause]]:
        """(where, record, field, reason, severity, cause) once per cause, naming the files it
        applies to."""
        for key, files in self.found.items():
            where, record, field_name, reason, severity = key
            if where.endswith("/") and len(files) == 1:  # a folder's cause met by one file: the file
                yield files[0], record, field_name, reason, severity, self.causes[key]
            else:
                note = _files_note(where, files)
                yield where, record, field_name, f"{reason}{note}", severity, self.causes[key]


def _files_note(where: str, files: list[str]) -> str:
    if files == [where]:
        return ""
    names = [file.rsplit("/", 1)[-1] for file in files[:3]]
    more = ", …" if len(files) > 3 else ""
    count = "1 file" if len(files) == 1 else f"{len(files)} files"
    return f" ({count}: {', '.join(names)}{more})"
