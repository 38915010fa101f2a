"""Load every result file under a folder into validated points, detecting formats by their keys.

Problems in any file are collected, never raised one at a time, so a single run tells the user
everything that is wrong.
"""

from __future__ import annotations

import csv
import io
import json
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import ValidationError

from site_builder import inputs
from site_builder.loaders import formats, native, serving
from site_builder.loaders.common import PointDraft, RecordContext, date_from_stamp, finish_point
from site_builder.loaders.formats import InputFormat, Source
from site_builder.points import BenchmarkPoint, DatasetInfo, Provenance
from site_builder.problems import Loc, ProblemLog, add_validation_errors, suggest

RESULT_SUFFIXES = (".json", ".jsonl", ".csv")
DATASET_FILE = "_dataset.yaml"
FOLDER_METADATA = ("_meta.yaml", "_meta.yml", "_meta.json")
MAX_LINE_ERRORS = 10  # of one JSON Lines file; then a count


@dataclass
class LoadResult:
    points: list[BenchmarkPoint] = field(default_factory=list)
    datasets: dict[str, DatasetInfo] = field(default_factory=dict)
    log: ProblemLog = field(default_factory=ProblemLog)


def detect_record(record: Mapping[str, Any]) -> str | None:
    """The name of the format one object is in, judged by its keys alone (loaders/formats.py)."""
    found = formats.detect(record)
    return found.name if found else None


def _is_metadata_file(path: Path) -> bool:
    name = path.name
    return (
        name in FOLDER_METADATA
        or name == DATASET_FILE
        or bool(re.search(r"\.meta\.(ya?ml|json)$", name))
        or name.endswith(".pytorch.json")
        or name in ("warmup.json", "summary.json")
    )


def result_files(root: Path) -> Iterator[Path]:
    """Every file under `root` but hidden ones; symbolic links too, so that inputs.read_text can
    refuse one that leaves the folder by name rather than skip it without a word."""
    for path in sorted(root.rglob("*")):
        if (path.is_file() or path.is_symlink()) and not any(
            part.startswith(".") for part in path.relative_to(root).parts
        ):
            yield path


class _FileLoader:
    """Loads one file; knows its display name, dataset and (for raw formats) metadata."""

    def __init__(
        self, path: Path, root: Path, display: str, result: LoadResult, *, confined: bool = True
    ) -> None:
        self.path, self.root, self.display, self.result = path, root, display, result
        self.confined = root if confined else None  # the folder reads must stay inside
        self.log = result.log
        self.dataset: DatasetInfo | None = None
        self._metadata_loaded = False
        self._metadata_cache: tuple[serving.RunMetadata, str] | None = None

    def load(self) -> None:
        text = inputs.read_text(self.path, self.display, self.log, self.confined)
        if text is None:
            return
        if self.path.suffix == ".csv":
            self._csv(text)
            return
        try:
            records = self._json_records(inputs.parse_json(text))
        except json.JSONDecodeError as whole_error:
            records = self._jsonl_records(text, whole_error)
        except inputs.Refused as exc:
            exc.log(self.log, self.display)
            return
        if records is not None:
            self._records(records)

    # -- reading ---------------------------------------------------------------------------

    def _json_records(self, document: Any) -> list[tuple[str, Any]] | None:
        if isinstance(document, Mapping) and document.get("format") == native.NATIVE_FORMAT:
            return self._native_envelope(document)
        if isinstance(document, list):
            return [(f"record {i}", row) for i, row in enumerate(document, 1)]
        if isinstance(document, Mapping):
            return [("", document)]
        self.log.add(self.display, "", "", "unknown format: expected a JSON object or array")
        return None

    def _jsonl_records(self, text: str, whole_error: json.JSONDecodeError) -> list[tuple[str, Any]] | None:
        """One JSON value a line (JSON Lines), if the first line is one on its own; otherwise the
        file is one broken JSON document and gets one error, not one per line."""
        lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
        first = _json_line(lines[0][1]) if len(lines) >= 2 else None
        if not isinstance(first, Mapping):
            where = f"line {whole_error.lineno}"
            self.log.add(
                self.display, where, "", f"not valid JSON: {whole_error.msg} (column {whole_error.colno})"
            )
            return None
        records: list[tuple[str, Any]] = []
        bad: list[int] = []
        for n, line in lines:
            try:
                records.append((f"line {n}", inputs.parse_json(line)))
            except json.JSONDecodeError as exc:
                bad.append(n)
                if len(bad) <= MAX_LINE_ERRORS:
                    self.log.add(
                        self.display, f"line {n}", "", f"not valid JSON: {exc.msg} (column {exc.colno})"
                    )
            except inputs.Refused as exc:
                bad.append(n)
                if len(bad) <= MAX_LINE_ERRORS:
                    self.log.add(self.display, f"line {n}", exc.field_name, exc.reason)
        if len(bad) > MAX_LINE_ERRORS:
            self.log.add(
                self.display, "", "", f"{len(bad) - MAX_LINE_ERRORS} more lines are not valid JSON Lines"
            )
        return records

    def _native_envelope(self, document: Mapping[str, Any]) -> list[tuple[str, Any]] | None:
        version = document.get("version")
        if version != native.NATIVE_VERSION:
            self.log.add(
                self.display,
                "",
                "version",
                f"unsupported version {inputs.excerpt(version)} "
                f"(this build reads version {native.NATIVE_VERSION})",
            )
            return None
        for key in document:
            if key not in ("format", "version", "dataset", "points"):
                self.log.add(
                    self.display,
                    "",
                    key,
                    "unknown field" + suggest(key, ["format", "version", "dataset", "points"]),
                )
        try:
            self.dataset = DatasetInfo.model_validate(document.get("dataset"))
        except ValidationError as exc:
            add_validation_errors(self.log, self.display, exc, prefix=("dataset",), fields=_dataset_fields)
            return None
        points = document.get("points")
        if not isinstance(points, list):
            self.log.add(self.display, "", "points", "missing or not a list")
            return None
        return [(f"record {i}", row) for i, row in enumerate(points, 1)]

    def _csv(self, text: str) -> None:
        """A native CSV, read by pandas as text (every cell validated like a JSON value)."""
        try:
            header = next(csv.reader(io.StringIO(text)), [])
        except csv.Error as exc:
            self.log.add(self.display, "line 1", "", f"not a well-formed CSV: {exc}")
            return
        if not native.looks_native_columns(header):
            found = ", ".join(inputs.excerpt(c, 24) for c in header[:8])
            found += f" … ({len(header)} columns)" if len(header) > 8 else ""
            self.log.add(
                self.display,
                "line 1",
                "",
                f"unknown format: a CSV needs the native columns ({', '.join(native.REQUIRED_COLUMNS)}); "
                f"found {found or 'none'}",
            )
            return
        for column, name in enumerate(header, 1):
            first = header.index(name) + 1
            if first != column:
                self.log.add(
                    self.display,
                    "line 1",
                    name,
                    f"column appears twice (columns {first} and {column}): keep one, "
                    "so no value is silently dropped",
                )
                return
        try:
            with warnings.catch_warnings():
                # pandas only warns when the first row is longer than the header: refuse that too
                warnings.simplefilter("error", pd.errors.ParserWarning)
                frame = pd.read_csv(
                    io.StringIO(text),
                    dtype=str,
                    keep_default_na=False,
                    skip_blank_lines=False,
                    index_col=False,
                    engine="c",
                )
        except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
            reason = "a row has more cells than the header" if isinstance(exc, Warning) else str(exc).strip()
            self.log.add(self.display, "", "", f"not a well-formed CSV: {reason}")
            return
        rows = [
            (f"line {n}", {k: v for k, v in row.items() if isinstance(v, str) and v != ""})
            for n, row in enumerate(frame.to_dict("records"), 2)
        ]
        self._records([(label, row) for label, row in rows if row], forced=True)

    # -- records -----------------------------------------------------------------------------

    def _records(self, records: list[tuple[str, Any]], forced: bool = False) -> None:
        dataset = self.dataset or self._dataset_for_file()
        if dataset is None:
            return
        known = self.result.datasets.setdefault(dataset.id, dataset)
        if known != dataset:
            self.log.add(
                self.display,
                "",
                "dataset.id",
                f"dataset '{dataset.id}' is already attributed differently by another file "
                f"(title '{known.title}', source '{known.source}'): give this one its own id",
            )
            return
        for label, row in records:
            ctx = RecordContext(self.display, label, self.log)
            if not isinstance(row, Mapping):
                ctx.error("", "not an object")
                continue
            kind = formats.NATIVE if forced or self.dataset else formats.detect(row)
            if kind is None:
                ctx.error(
                    "",
                    f"unknown format: not any of {formats.supported_names()} "
                    f"(keys: {', '.join(inputs.excerpt(k, 24) for k in sorted(map(str, row))[:12])})",
                )
                continue
            if kind.read is None:
                ctx.error(
                    "",
                    f"{kind.title} is recognised but not supported yet; "
                    "convert it to the native format (docs/data-format.md)",
                )
                continue
            skipped = kind.skip(row)
            if skipped:
                ctx.notice("scenario_type", skipped)
                continue
            errors_before = len(self.log.errors)
            draft = self._draft(kind, row, ctx)
            if draft is None:
                continue
            point = finish_point(draft, ctx, self._provenance(dataset, label, row, draft))
            if point is not None and len(self.log.errors) == errors_before:
                self.result.points.append(point)

    def _draft(self, kind: InputFormat, row: Mapping[str, Any], ctx: RecordContext) -> PointDraft | None:
        assert kind.read is not None
        source = Source(self.path.name)
        if kind.needs_metadata:
            loaded = self._metadata()
            if loaded is None:
                return None
            source = Source(self.path.name, loaded[0], loaded[1])
        return kind.read(row, ctx, source)

    def _provenance(
        self, dataset: DatasetInfo, label: str, row: Mapping[str, Any], draft: PointDraft
    ) -> Provenance:
        meta = self._metadata_cache[0] if self._metadata_cache else None
        date = row.get("date") if isinstance(row.get("date"), str) else None
        return Provenance(
            dataset=dataset.id,
            source_file=self.display,
            record=label or "whole file",
            date=(meta.date if meta and meta.date else None) or date_from_stamp(date),
            run_url=(meta.run_url if meta else None) or _text(row.get("run_url")),
            image=(meta.image if meta else None) or _text(row.get("image")),
            note=(meta.note if meta else None) or _text(row.get("note")),
        )

    # -- side files ----------------------------------------------------------------------------

    def _metadata(self) -> tuple[serving.RunMetadata, str] | None:
        if self._metadata_loaded:
            return self._metadata_cache
        self._metadata_loaded = True
        stem = self.path.name.rsplit(".", 1)[0]
        candidates = [self.path.with_name(f"{stem}.meta{ext}") for ext in (".yaml", ".yml", ".json")]
        candidates += [self.path.with_name(name) for name in FOLDER_METADATA]
        found = next((c for c in candidates if c.is_file() or c.is_symlink()), None)
        if found is None:
            self.log.add(
                self.display,
                "",
                "",
                "a raw benchmark result needs a metadata file beside it "
                f"({stem}.meta.yaml or _meta.yaml) naming hardware, precision, framework, "
                "GPU count or TP, and ISL/OSL (docs/data-format.md)",
            )
            return None
        meta_display = _display(found, self.root)
        data = inputs.load_structured(found, meta_display, self.log, self.confined)
        if data is None:
            return None
        try:
            self._metadata_cache = (serving.RunMetadata.model_validate(data), meta_display)
        except ValidationError as exc:
            add_validation_errors(
                self.log, meta_display, exc, fields=lambda loc: serving.RunMetadata.model_fields
            )
        return self._metadata_cache

    def _dataset_for_file(self) -> DatasetInfo | None:
        folder = self.path.parent
        while True:
            candidate = folder / DATASET_FILE
            if candidate.is_file() or candidate.is_symlink():
                data = inputs.load_structured(
                    candidate, _display(candidate, self.root), self.log, self.confined
                )
                if data is None:
                    return None
                try:
                    return DatasetInfo.model_validate(data)
                except ValidationError as exc:
                    display = _display(candidate, self.root)
                    add_validation_errors(self.log, display, exc, fields=_dataset_fields)
                    return None
            if folder == self.root or folder.parent == folder:
                break
            folder = folder.parent
        relative = self.path.relative_to(self.root).with_suffix("").as_posix()
        slug = re.sub(r"[^a-z0-9._-]+", "-", relative.lower()).strip("-.") or "results"
        return DatasetInfo(id=slug, title=self.path.name, source=f"result file {self.display}")


def _json_line(line: str) -> Any:
    try:
        return json.loads(line)
    except (json.JSONDecodeError, RecursionError, ValueError):
        return None


def _dataset_fields(loc: Loc) -> Iterable[str]:
    return DatasetInfo.model_fields


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _display(path: Path, root: Path) -> str:
    """The path as the user knows it: from the data folder's name down (data/results/x.csv)."""
    try:
        return (Path(root.name) / path.relative_to(root)).as_posix()
    except ValueError:
        return path.as_posix()


def load_results(root: Path, log: ProblemLog | None = None) -> LoadResult:
    """Every result file under `root` (recursively), in sorted order."""
    result = LoadResult(log=log or ProblemLog())
    if not root.is_dir():
        result.log.add(root.as_posix(), "", "", "results folder does not exist")
        return result
    for path in result_files(root):
        if _is_metadata_file(path) or path.suffix not in RESULT_SUFFIXES:
            continue
        _FileLoader(path, root, _display(path, root), result).load()
    return result


def load_file(path: Path, log: ProblemLog | None = None) -> LoadResult:
    """One file on its own (the importer's entry point)."""
    result = LoadResult(log=log or ProblemLog())
    _FileLoader(path, path.parent, path.as_posix(), result, confined=False).load()
    return result
