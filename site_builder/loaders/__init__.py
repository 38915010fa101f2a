"""Load every result file under a folder into validated points, detecting formats by their keys.

Problems in any file are collected, never raised one at a time, so a single run tells the user
everything that is wrong.
"""

from __future__ import annotations

import contextlib
import csv
import gc
import hashlib
import io
import json
import re
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from pydantic import ValidationError

from site_builder.evaluations import EvalRun
from site_builder.files import (
    MAX_IDENTIFIER_CHARS,
    MAX_NUMBER_CHARS,
    Refused,
    excerpt,
    load_structured,
    parse_json,
    read_bytes_checked,
    read_text,
)
from site_builder.loaders import bulk, evals, formats, native, serving
from site_builder.loaders.common import PointDraft, RecordContext, date_from_stamp, finish_point
from site_builder.loaders.formats import InputFormat, Source
from site_builder.loaders.sweeps import looks_sweep, read_row
from site_builder.points import DatasetInfo, Provenance
from site_builder.pool import PointPool, PoolBuilder
from site_builder.problems import Loc, ProblemLog, Severity, add_validation_errors, suggest
from site_builder.sweeps import SweepRow

RESULT_SUFFIXES = (".json", ".jsonl", ".csv", ".parquet")
DATASET_FILE = "_dataset.yaml"
DATASET_ID_CHARS = MAX_IDENTIFIER_CHARS  # what a dataset id may be at most
FOLDER_METADATA = ("_meta.yaml", "_meta.yml", "_meta.json")
MAX_LINE_ERRORS = 10  # of one JSON Lines file; then a count


@dataclass
class LoadResult:
    found: PoolBuilder = field(default_factory=PoolBuilder)  # the points, in order (`points`)
    evaluations: list[EvalRun] = field(default_factory=list)
    sweeps: list[SweepRow] = field(default_factory=list)  # node-level sweep rows (sweeps.py)
    datasets: dict[str, DatasetInfo] = field(default_factory=dict)
    log: ProblemLog = field(default_factory=ProblemLog)
    # evaluation runs before their samples logs are attached: (run, file date stamp, folder)
    pending_runs: list[tuple[EvalRun, str, Path]] = field(default_factory=list)
    sample_logs: list[evals.SampleLog] = field(default_factory=list)

    @property
    def points(self) -> PointPool:
        """Every point loaded, in order: those read in bulk made when first read (pool.py)."""
        return self.found.pool()

    def attach_samples(self) -> None:
        """Give each evaluation run the per-question scores its samples log holds (loaders/evals.py)."""

        def warn(file: str, reason: str) -> None:
            self.log.add(file, "", "", reason, Severity.WARNING)

        self.evaluations.extend(evals.attach_samples(self.pending_runs, self.sample_logs, warn))
        self.pending_runs, self.sample_logs = [], []


def detect_record(record: Mapping[str, Any]) -> str | None:
    """The name of the format one object is in, judged by its keys alone (loaders/formats.py)."""
    found = formats.detect(record)
    return found.name if found else None


def _is_metadata_file(path: Path) -> bool:
    name = path.name
    return name in FOLDER_METADATA or name == DATASET_FILE or bool(re.search(r"\.meta\.(ya?ml|json)$", name))


def result_files(root: Path) -> Iterator[Path]:
    """Every file under `root` but hidden ones; symbolic links too, so that read_text can
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
        if self._companion():
            return
        if self.path.suffix == ".parquet":
            self._parquet()
            return
        text = read_text(self.path, self.display, self.log, self.confined)
        if text is None:
            return
        if self.path.suffix == ".csv":
            self._csv(text)
            return
        try:
            records = self._json_records(parse_json(text))
        except json.JSONDecodeError as whole_error:
            records = self._jsonl_records(text, whole_error)
        except Refused as exc:
            exc.log(self.log, self.display)
            return
        if records is None:
            return
        evaluation = None if self.dataset else evals.detect(records)
        if evaluation is not None:
            self._evaluations(evaluation, records)
        elif records and all(isinstance(r, Mapping) and looks_sweep(set(r)) for _, r in records):
            self._sweeps(records)
        else:
            self._records(records)

    def _companion(self) -> bool:
        """A file a client writes beside its results (formats.Companion): skip it and say so."""
        found = formats.companion(self.path.name)
        if found is None:
            return False
        input_format, known = found
        if known.main is not None and not self.path.with_name(known.main).is_file():
            self.log.add(
                self.display,
                "",
                "",
                f"{known.what}: not read on its own; put {known.main} beside it ({input_format.title})",
            )
        else:
            self.log.add(self.display, "", "", f"skipped: {known.what}, not a result", Severity.NOTICE)
        return True

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
                records.append((f"line {n}", parse_json(line)))
            except json.JSONDecodeError as exc:
                bad.append(n)
                if len(bad) <= MAX_LINE_ERRORS:
                    self.log.add(
                        self.display, f"line {n}", "", f"not valid JSON: {exc.msg} (column {exc.colno})"
                    )
            except Refused as exc:
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
                f"unsupported version {excerpt(version)} (this build reads version {native.NATIVE_VERSION})",
            )
            return None
        envelope = ("format", "version", "dataset", "points", "evaluations", "sweeps")
        for key in document:
            if key not in envelope:
                self.log.add(self.display, "", key, "unknown field" + suggest(key, envelope))
        try:
            self.dataset = DatasetInfo.model_validate(document.get("dataset"))
        except ValidationError as exc:
            add_validation_errors(self.log, self.display, exc, prefix=("dataset",), fields=_dataset_fields)
            return None
        points = document.get("points", [] if {"evaluations", "sweeps"} & set(document) else None)
        sweep_rows = document.get("sweeps", [])
        if not isinstance(sweep_rows, list):
            self.log.add(self.display, "", "sweeps", "not a list")
            return None
        if sweep_rows:
            self._sweeps([(f"sweeps[{i}]", row) for i, row in enumerate(sweep_rows, 1)])
        scores = document.get("evaluations", [])
        if not isinstance(points, list):
            self.log.add(self.display, "", "points", "missing or not a list")
            return None
        if not isinstance(scores, list):
            self.log.add(self.display, "", "evaluations", "not a list")
            return None
        if scores:
            labelled = [(f"evaluations[{i}]", row) for i, row in enumerate(scores, 1)]
            self._evaluations(evals.BY_NAME["native-evals"], labelled)
        return [(f"record {i}", row) for i, row in enumerate(points, 1)]

    def _csv(self, text: str) -> None:
        """A native CSV, read by pandas as text (every cell validated like a JSON value)."""
        try:
            header = next(csv.reader(io.StringIO(text)), [])
        except csv.Error as exc:
            self.log.add(self.display, "line 1", "", f"not a well-formed CSV: {exc}")
            return
        scores = evals.looks_native_eval(set(header))
        sweep = looks_sweep(set(header))
        if not scores and not sweep and not native.looks_native_columns(header):
            self.log.add(
                self.display,
                "line 1",
                "",
                f"unknown format: a CSV needs the native columns ({', '.join(native.REQUIRED_COLUMNS)}); "
                f"found {_few_columns(header)}",
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
        if not scores and not sweep and self._native_csv_typed(text, header):
            return
        try:
            frame = _read_csv(text)
        except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
            reason = "a row has more cells than the header" if isinstance(exc, Warning) else str(exc).strip()
            self.log.add(self.display, "", "", f"not a well-formed CSV: {reason}")
            return
        if not scores and not sweep:
            self._native_csv(frame)
            return
        rows = [(f"line {n}", _cells(row)) for n, row in enumerate(frame.to_dict("records"), 2)]
        if scores:
            self._evaluations(evals.BY_NAME["native-evals"], [(label, row) for label, row in rows if row])
            return
        self._sweeps([(label, row) for label, row in rows if row])

    def _native_csv(self, frame: pd.DataFrame) -> None:
        """A CSV of native points: checked column by column (bulk.py); a row any check flags is
        read on its own, so its problems are named by line and column as ever."""
        columns = {str(name): frame[name].to_numpy() for name in frame.columns}
        self._native_table(columns, len(frame), _csv_labels(len(frame)), _row_of(columns, _cells))

    def _native_csv_typed(self, text: str, header: list[str]) -> bool:
        """A native CSV whose number columns pandas parses as numbers (`_typed_csv`), checked in
        bulk; a row any check flags is read on its own from the file read as text, as ever.
        False, having read nothing, where the file is not plainly such a table."""
        found = _typed_csv(text, header)
        if found is None:
            return False
        frame, too_long = found
        parsed = {name: frame[name].to_numpy(dtype=np.float64) for name in header if name in NUMBER_COLUMNS}
        columns = {name: frame[name].to_numpy() for name in header if name not in parsed}
        as_text: list[dict[str, Any]] = []  # the file read as text, once a row needs it

        def row(index: int) -> dict[str, Any]:
            if not as_text:
                whole = _read_csv(text)
                as_text.append({str(name): whole[name].to_numpy() for name in whole.columns})
            return _cells({name: values[index] for name, values in as_text[0].items()})

        self._native_table(columns, len(frame), _csv_labels(len(frame)), row, parsed=parsed, flagged=too_long)
        return True

    def _parquet(self) -> None:
        """A Parquet table of native points (large data sets): the columns of the native CSV,
        typed; an empty cell (null) is a missing field. Read under the input rules (inputs.py)."""
        try:
            raw = read_bytes_checked(self.path, self.confined)
        except Refused as exc:
            exc.log(self.log, self.display)
            return
        try:
            frame = pd.read_parquet(io.BytesIO(raw))
        except ImportError:
            self.log.add(
                self.display, "", "", "reading Parquet needs pyarrow: pip install 'site-builder[parquet]'"
            )
            return
        except Exception as exc:  # a damaged or foreign file: say so, never a traceback
            self.log.add(self.display, "", "", f"not a readable Parquet file: {excerpt(str(exc), 80)}")
            return
        header = [str(name) for name in frame.columns]
        if not native.looks_native_columns(header):
            self.log.add(
                self.display,
                "",
                "",
                "unknown format: a Parquet table needs the native columns "
                f"({', '.join(native.REQUIRED_COLUMNS)}); found {_few_columns(header)}",
            )
            return
        columns: dict[str, bulk.Column] = {
            str(name): [
                None if null else v for v, null in zip(frame[name].tolist(), frame[name].isna(), strict=True)
            ]
            for name in frame.columns
        }
        labels = bulk.Numbered("row", 1, len(frame))
        given = _row_of(columns, lambda row: {k: v for k, v in row.items() if v is not None})
        self._native_table(columns, len(frame), labels, given)

    def _native_table(
        self,
        columns: Mapping[str, bulk.Column],
        size: int,
        labels: Sequence[str],
        record: Callable[[int], dict[str, Any]],
        *,
        parsed: Mapping[str, bulk.Floats] | None = None,
        flagged: npt.NDArray[np.bool_] | None = None,
    ) -> None:
        """Native points from columns (and columns `parsed` as numbers already): in bulk, and a
        row that is `flagged` or that a check flags on its own, as `record` gives it."""
        dataset = self._accepted_dataset()
        if dataset is None:
            return
        unknown = np.zeros(size, dtype=bool) if flagged is None else flagged
        for name in set(columns) - set(native.COLUMNS):
            unknown |= np.fromiter((v is not None and v != "" for v in columns[name]), dtype=bool, count=size)
        in_bulk = bulk.native_points(columns, unknown, labels, dataset.id, self.display, parsed)

        def read_one(index: int) -> None:
            row = record(index)
            if row:
                self._record((labels[index], row), True, dataset)

        self._bulk_and_each(in_bulk, None, size, read_one)

    def _bulk_and_each(
        self,
        in_bulk: bulk.NativeRows | None,
        records_of_rows: npt.NDArray[np.intp] | None,
        size: int,
        read_one: Callable[[int], None],
    ) -> None:
        """The file's points in record order: the rows read in bulk (each row's record among the
        `size` is `records_of_rows`, or the row's `kept`), every other record by `read_one`."""
        if in_bulk is None:
            for index in range(size):
                read_one(index)
            return
        kept = in_bulk.kept if records_of_rows is None else records_of_rows
        start = 0
        others = np.ones(size, dtype=bool)
        others[kept] = False
        for index in np.flatnonzero(others).tolist():
            upto = int(np.searchsorted(kept, index))
            self.result.found.add_rows(in_bulk, np.arange(start, upto, dtype=np.intp))
            start = upto
            read_one(index)
        self.result.found.add_rows(in_bulk, np.arange(start, len(kept), dtype=np.intp))

    # -- evaluation results --------------------------------------------------------------------

    def _evaluations(self, kind: evals.EvalFormat, records: list[tuple[str, Any]]) -> None:
        """An evaluation file (loaders/evals.py): its runs, or a samples log for a run beside it."""
        dataset = self.dataset or self._dataset_for_file()
        if dataset is None:
            return
        known = self.result.datasets.setdefault(dataset.id, dataset)
        if known != dataset:
            reason = f"dataset '{dataset.id}' is already attributed differently by another file"
            self.log.add(self.display, "", "dataset.id", reason)
            return
        errors_before = len(self.log.errors)
        info = evals.FileInfo(self.path, self.display, dataset.id, lambda: self._metadata(kind.title))
        found = kind.read(records, info, lambda label: RecordContext(self.display, label, self.log))
        if len(self.log.errors) > errors_before:
            return  # nothing from a file with errors: the build stops and names them all
        self.result.pending_runs.extend((run, stamp, self.path.parent) for run, stamp in found.runs)
        if found.samples is not None:
            self.result.sample_logs.append(found.samples)

    # -- node-level sweep rows --------------------------------------------------------------------

    def _sweeps(self, records: list[tuple[str, Any]]) -> None:
        """Sweep rows (sweeps.py): each kept as read, and as a per-GPU output-basis point where it
        has throughput and a GPU count (for the matched-interactivity analysis)."""
        dataset = self.dataset or self._dataset_for_file()
        if dataset is None:
            return
        self.result.datasets.setdefault(dataset.id, dataset)
        for label, row in records:
            ctx = RecordContext(self.display, label, self.log)
            if not isinstance(row, Mapping):
                ctx.error("", "not an object")
                continue
            provenance = self._provenance(dataset, label, row, formats.NATIVE)
            found = read_row(row, ctx, provenance)
            if found is not None:
                self.result.sweeps.append(found)
                point = found.to_point()
                if point is not None:
                    self.result.found.append(point)

    # -- records -----------------------------------------------------------------------------

    def _records(self, records: list[tuple[str, Any]], forced: bool = False) -> None:
        dataset = self._accepted_dataset()
        if dataset is None:
            return
        found = self._native_in_bulk(records, forced, dataset.id)
        in_bulk, records_of_rows = found if found is not None else (None, None)
        self._bulk_and_each(
            in_bulk, records_of_rows, len(records), lambda i: self._record(records[i], forced, dataset)
        )

    def _accepted_dataset(self) -> DatasetInfo | None:
        """The file's dataset, unless another file attributes the same id differently (logged)."""
        dataset = self.dataset or self._dataset_for_file()
        if dataset is None:
            return None
        known = self.result.datasets.setdefault(dataset.id, dataset)
        if known != dataset:
            self.log.add(
                self.display,
                "",
                "dataset.id",
                f"dataset '{dataset.id}' is already attributed differently by another file "
                f"(title '{known.title}', source '{known.source}'): give this one its own id",
            )
            return None
        return dataset

    def _native_in_bulk(
        self, records: list[tuple[str, Any]], forced: bool, dataset: str
    ) -> tuple[bulk.NativeRows, npt.NDArray[np.intp]] | None:
        """The native records that pass every check column by column (bulk.py), and the index
        of each one's record; every other record is for `_record` to read one at a time."""
        formats_by_keys: dict[frozenset[str], InputFormat | None] = {}
        chosen: list[int] = []
        for index, (_, row) in enumerate(records):
            if not isinstance(row, Mapping):
                continue
            if not (forced or self.dataset):
                keys = frozenset(row)
                if keys not in formats_by_keys:
                    formats_by_keys[keys] = formats.detect(row)
                if formats_by_keys[keys] is not formats.NATIVE:
                    continue
            chosen.append(index)
        if len(chosen) < sum(isinstance(row, Mapping) for _, row in records):
            return None  # a file that mixes formats may load a metadata file midway: one at a time
        columns, flagged = bulk.rows_to_columns([records[i][1] for i in chosen])
        in_bulk = bulk.native_points(columns, flagged, [records[i][0] for i in chosen], dataset, self.display)
        if in_bulk is None:
            return None
        return in_bulk, np.asarray(chosen, dtype=np.intp)[in_bulk.kept]

    def _record(self, record: tuple[str, Any], forced: bool, dataset: DatasetInfo) -> None:
        """One record read on its own: every problem named by file, record and field."""
        for label, row, kind in self._detected([record], forced):
            ctx = RecordContext(self.display, label, self.log)
            if not isinstance(row, Mapping):
                ctx.error("", "not an object")
                continue
            if kind is None:
                ctx.error(
                    "",
                    f"unknown format: not any of {formats.supported_names()} "
                    f"(keys: {', '.join(excerpt(k, 24) for k in sorted(map(str, row))[:12])})",
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
                ctx.notice(*skipped)
                continue
            errors_before = len(self.log.errors)
            draft = self._draft(kind, row, ctx)
            if draft is None:
                continue
            point = finish_point(draft, ctx, self._provenance(dataset, label, row, kind))
            if point is not None and len(self.log.errors) == errors_before:
                self.result.found.append(point)

    def _detected(
        self, records: list[tuple[str, Any]], forced: bool
    ) -> Iterator[tuple[str, Any, InputFormat | None]]:
        """Each record with its format; a document that holds many records (a report) opened up."""
        for label, row in records:
            if not isinstance(row, Mapping):
                yield label, row, None
                continue
            kind = formats.NATIVE if forced or self.dataset else formats.detect(row)
            if kind is None or kind.expand is None:
                yield label, row, kind
                continue
            for inner, part in kind.expand(row):
                yield " ".join(x for x in (label, inner) if x), part, kind

    def _draft(self, kind: InputFormat, row: Mapping[str, Any], ctx: RecordContext) -> PointDraft | None:
        assert kind.read is not None
        source = Source(self.path.name)
        if kind.needs_metadata:
            loaded = self._metadata(kind.title)
            if loaded is None:
                return None
            source = Source(self.path.name, loaded[0], loaded[1])
        return kind.read(row, ctx, source)

    def _provenance(
        self, dataset: DatasetInfo, label: str, row: Mapping[str, Any], kind: InputFormat
    ) -> Provenance:
        meta = self._metadata_cache[0] if self._metadata_cache else None
        date = row.get("date") if isinstance(row.get("date"), str) else kind.date(row)
        return Provenance(
            dataset=dataset.id,
            source_file=self.display,
            record=label or "whole file",
            client=kind.client(row),
            date=(meta.date if meta and meta.date else None) or date_from_stamp(date),
            run_url=(meta.run_url if meta else None) or _text(row.get("run_url")),
            image=(meta.image if meta else None) or _text(row.get("image")),
            note=(meta.note if meta else None) or _text(row.get("note")),
        )

    # -- side files ----------------------------------------------------------------------------

    def _metadata(self, title: str) -> tuple[serving.RunMetadata, str] | None:
        """The metadata file for a result of a format that needs one (`title` names the format)."""
        if self._metadata_loaded:
            return self._metadata_cache
        self._metadata_loaded = True
        stem = self.path.name.rsplit(".", 1)[0]
        candidates = [self.path.with_name(f"{stem}.meta{ext}") for ext in (".yaml", ".yml", ".json")]
        candidates += [folder / name for folder in self._folders_up() for name in FOLDER_METADATA]
        found = next((c for c in candidates if c.is_file() or c.is_symlink()), None)
        if found is None:
            self.log.add(
                self.display,
                "",
                "",
                f"{title} needs a metadata file: "
                f"{stem}.meta.yaml beside it, or _meta.yaml in its folder or one above, naming "
                "hardware, precision, framework and GPU count or TP (docs/data-format.md)",
            )
            return None
        meta_display = _display(found, self.root)
        data = load_structured(found, meta_display, self.log, self.confined)
        if data is None:
            return None
        try:
            self._metadata_cache = (serving.RunMetadata.model_validate(data), meta_display)
        except ValidationError as exc:
            add_validation_errors(
                self.log, meta_display, exc, fields=lambda loc: serving.RunMetadata.model_fields
            )
        return self._metadata_cache

    def _folders_up(self) -> Iterator[Path]:
        """The file's folder, then each one above it up to the data folder: nearest first."""
        folder = self.path.parent
        while True:
            yield folder
            if folder == self.root or folder.parent == folder:
                return
            folder = folder.parent

    def _dataset_for_file(self) -> DatasetInfo | None:
        folder = self.path.parent
        while True:
            candidate = folder / DATASET_FILE
            if candidate.is_file() or candidate.is_symlink():
                data = load_structured(candidate, _display(candidate, self.root), self.log, self.confined)
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
        if len(slug) > DATASET_ID_CHARS:  # a deep path: cut, kept unique by a hash of the whole
            digest = hashlib.sha256(relative.encode()).hexdigest()[:8]
            slug = slug[: DATASET_ID_CHARS - 9].rstrip("-.") + "-" + digest
        return DatasetInfo(id=slug, title=self.path.name, source=f"result file {self.display}")


def _few_columns(header: list[str], shown: int = 4, width: int = 24) -> str:
    """The first few header cells, each cut short: enough to recognise a file, never a wall of text."""
    if not header:
        return "no columns"
    cells = [c if len(c) <= width else c[: width - 1] + "…" for c in header[:shown]]  # printable: ProblemLog
    more = f", … ({len(header)} columns)" if len(header) > shown else ""
    return ", ".join(cells) + more


NUMBER_COLUMNS = frozenset(native.COLUMNS) - {
    *bulk.TEXT_FIELDS,
    *bulk.FLAG_FIELDS,
    *native.PROVENANCE_COLUMNS,
}  # the native columns that hold a number
# pandas parses numbers as Python's `float` does (correctly rounded) from 3.1 on
EXACT_NUMBERS = tuple(int(part) for part in pd.__version__.split(".")[:2]) >= (3, 1)


def _read_csv(text: str, header: Sequence[str] = (), numbers: Collection[str] = ()) -> pd.DataFrame:
    """A CSV as pandas reads it: every cell as the text written (an empty one as ""), but in
    the `numbers` columns (of those the `header` names), read as numbers (NaN where empty;
    ValueError where a cell is not one)."""
    with warnings.catch_warnings():
        # pandas only warns when the first row is longer than the header: refuse that too
        warnings.simplefilter("error", pd.errors.ParserWarning)
        return pd.read_csv(
            io.StringIO(text),
            # Python strings as read (dtype=str would convert them twice)
            dtype={name: np.float64 if name in numbers else object for name in header} if numbers else object,
            keep_default_na=False,
            na_values={name: [""] for name in numbers} if numbers else None,
            skip_blank_lines=False,
            index_col=False,
            engine="c",
        )


def _typed_csv(text: str, header: list[str]) -> tuple[pd.DataFrame, npt.NDArray[np.bool_]] | None:
    """A native CSV read with its number columns parsed by pandas, and which rows have a number
    cell too long to be read as one (MAX_NUMBER_CHARS): only for a file of native
    columns alone in plain rows (no quotes, every line as many cells as the header), where a
    cell's length can be counted from the text; None otherwise (and where a number cell is
    not a number pandas reads), for the file to be read as text."""
    if not EXACT_NUMBERS or not set(header) <= set(native.COLUMNS) or '"' in text or "\r" in text:
        return None
    lengths = _cell_lengths(text, len(header))
    if lengths is None:
        return None
    numbers = [name for name in header if name in NUMBER_COLUMNS]
    try:
        frame = _read_csv(text, header, numbers)
    except (ValueError, pd.errors.ParserError, pd.errors.ParserWarning):
        return None
    if len(frame) != len(lengths) or [str(name) for name in frame.columns] != header:
        return None
    at = [header.index(name) for name in numbers]
    too_long: npt.NDArray[np.bool_] = np.any(lengths[:, at] > MAX_NUMBER_CHARS, axis=1)
    return frame, too_long


def _cell_lengths(text: str, width: int) -> npt.NDArray[np.int64] | None:
    """The length of every cell of every row below the header, counted in the UTF-8 text
    (a cell's bytes: at least its characters), if every line has `width` cells and the file
    neither quotes nor holds a blank line; None otherwise (and for one column, where a blank
    line could not be told from an empty cell)."""
    if width < 2:
        return None
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    if len(raw) and raw[-1] != ord("\n"):
        raw = np.append(raw, np.uint8(ord("\n")))
    ends = np.flatnonzero((raw == ord(",")) | (raw == ord("\n")))  # where each cell ends
    if len(ends) % width or len(ends) < width:
        return None
    line_ends = raw[ends].reshape(-1, width) == ord("\n")
    if not line_ends[:, -1].all() or line_ends[:, :-1].any():
        return None
    lengths = np.diff(ends, prepend=-1) - 1
    return lengths.reshape(-1, width)[1:]


def _csv_labels(rows: int) -> bulk.Numbered:
    return bulk.Numbered("line", 2, rows)  # the header is line 1


def _row_of(
    columns: Mapping[str, bulk.Column], record: Callable[[Mapping[str, Any]], dict[str, Any]]
) -> Callable[[int], dict[str, Any]]:
    """A row of these columns as `record` makes a record of it."""
    return lambda index: record({name: values[index] for name, values in columns.items()})


def _cells(row: Mapping[Any, Any]) -> dict[str, str]:
    """A CSV row as a record: the cells that hold something (an empty cell is a missing field)."""
    return {str(k): v for k, v in row.items() if isinstance(v, str) and v != ""}


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


def excluded(relative: str, patterns: Sequence[str]) -> bool:
    """Whether a path under the data folder (posix, relative) or a folder above it matches a glob.

    `*` and `?` stay within one path segment; `**` spans any number of folders.
    """
    parts = relative.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(_glob(pattern).fullmatch(p) for pattern in patterns for p in prefixes)


def _glob(pattern: str) -> re.Pattern[str]:
    out, i = "", 0
    text = pattern.strip().strip("/")
    while i < len(text):
        if text.startswith("**/", i):
            out, i = out + "(?:[^/]+/)*", i + 3
        elif text.startswith("**", i):
            out, i = out + ".*", i + 2
        elif text[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif text[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(text[i]), i + 1
    return re.compile(out)


def load_results(
    root: Path,
    log: ProblemLog | None = None,
    exclude: Sequence[str] = (),
    skip: Callable[[str], bool] | None = None,
) -> LoadResult:
    """Every result file under `root` (recursively), in sorted order, but those `exclude` names
    and those whose shown name (data/…) `skip` refuses (a rebuild loading what its pages need)."""
    result = LoadResult(log=log or ProblemLog())
    if not root.is_dir():
        result.log.add(root.as_posix(), "", "", "results folder does not exist")
        return result
    with _no_collection():
        for path in result_files(root):
            if _is_metadata_file(path) or path.suffix not in RESULT_SUFFIXES:
                continue
            if exclude and excluded(path.relative_to(root).as_posix(), exclude):
                continue
            if skip is not None and skip(_display(path, root)):
                continue
            _FileLoader(path, root, _display(path, root), result).load()
        result.attach_samples()
    return result


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """The cyclic garbage collector paused while loading, and what the load made moved to the
    oldest generation after: a load makes hundreds of thousands of objects that all live on, and
    the young generations' collections would walk them all again and again as they age (a third
    of the load time of 100k points). Garbage among them is still collected, by a full collection."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:  # (unfreeze would also thaw what someone else froze)
            gc.freeze()  # freeze + unfreeze: every tracked object into the oldest generation, unwalked
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def load_file(path: Path, log: ProblemLog | None = None) -> LoadResult:
    """One file on its own (the importer's entry point)."""
    result = LoadResult(log=log or ProblemLog())
    _FileLoader(path, path.parent, path.as_posix(), result, confined=False).load()
    result.attach_samples()
    return result
