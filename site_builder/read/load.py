"""The load stage: every result file under a folder into one point table (+ evaluation runs,
sweep rows and data sets), each file's format detected by its keys.

Each file is read into drafts by its format's reader (formats.py), validated in one go
(validate_rows.py) and its sound records kept as rows of the table. Problems in any file are
collected, never raised one at a time, so a single run tells the user everything that is
wrong; a file's problems are logged record by record, each record's reader problems first.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd
from pydantic import BaseModel, ValidationError

from site_builder.files import (
    MAX_IDENTIFIER_CHARS,
    Refused,
    excerpt,
    load_structured,
    parse_json,
    read_bytes_checked,
    read_text,
    web_address,
)
from site_builder.problems import (
    Cause,
    Loc,
    Problem,
    ProblemLog,
    Severity,
    add_validation_errors,
    field_path,
    suggest,
)
from site_builder.read import evals, formats, metadata, native, serving, telemetry, workloads
from site_builder.read.copies import without_copies
from site_builder.read.evals import EvalRun
from site_builder.read.fields import PointDraft, RecordContext, as_mapping, date_from_stamp, objects
from site_builder.read.formats import InputFormat, Reader, Source
from site_builder.read.provenance import DatasetInfo, Provenance
from site_builder.read.short_outputs import short_outputs
from site_builder.read.sweeps import SweepRow, looks_sweep, point_row, read_row
from site_builder.read.table import PointTable
from site_builder.read.validate_rows import Drafts, Objects, Validated, each_distinct, validate

PROVENANCE_KEYS = tuple(Provenance.model_fields)
RESULT_SUFFIXES = (".json", ".jsonl", ".csv", ".parquet")
SETTINGS_SUFFIXES = (".yaml", ".yml")  # catalogs and metadata files, read where they apply
DATASET_FILE = "_dataset.yaml"
INIT_EXAMPLE_ID = "example"  # the data set id of the example build-site init writes
DATASET_ID_CHARS = MAX_IDENTIFIER_CHARS  # what a dataset id may be at most
MAX_LINE_ERRORS = 10  # of one JSON Lines file; then a count
AFTER_RECORDS = 2**62  # the slot of a problem found after a file's records (_FileLog)
Mask = npt.NDArray[np.bool_]
_Model = TypeVar("_Model", bound=BaseModel)


@dataclass
class LoadResult:
    table: PointTable = field(default_factory=lambda: PointTable.from_records([]))  # every point, in order
    evaluations: list[EvalRun] = field(default_factory=list)
    sweeps: list[SweepRow] = field(default_factory=list)  # node-level sweep rows (sweeps.py)
    datasets: dict[str, DatasetInfo] = field(default_factory=dict)
    log: ProblemLog = field(default_factory=ProblemLog)
    # the table's rows as files give them (PointTable.from_parts), joined once every file is read
    parts: list[dict[str, Any]] = field(default_factory=list)
    # evaluation runs before their samples logs are attached: (run, file date stamp, folder)
    pending_runs: list[tuple[EvalRun, str, Path]] = field(default_factory=list)
    sample_logs: list[evals.SampleLog] = field(default_factory=list)
    # each metadata file read once, for every result file it applies to (None: not readable)
    metadata_files: dict[Path, Mapping[str, Any] | None] = field(default_factory=dict)
    # each `_dataset.yaml` read once, for every result file it attributes (None: not readable)
    dataset_files: dict[Path, DatasetInfo | None] = field(default_factory=dict)
    grouped: metadata.Grouped = field(default_factory=metadata.Grouped)  # said once per folder and cause
    # a file's folder for what is said of its points at the end (short_outputs): its nearest
    # metadata file's, where it has one (the runs that file describes), else its own
    said_under: dict[str, str] = field(default_factory=dict)

    def finish(self) -> None:
        """The table of every file's rows, each evaluation run with the per-question scores its
        samples log holds (evals.py), and the messages said once per folder and cause."""
        for where, record, field_name, reason, severity, cause in self.grouped.each():
            self.log.add(where, record, field_name, reason, Severity(severity), cause)
        self.grouped = metadata.Grouped()
        if self.parts:
            self.table = PointTable.from_parts(self.parts)
            self.parts = []
        self.table, copies = without_copies(self.table)
        for copy, reason in copies:
            self.log.add(copy, "", "", reason, Severity.WARNING)
        for where, reason in short_outputs(self.table, self.said_under):
            self.log.add(where, "", "osl", reason, Severity.WARNING)

        def warn(file: str, reason: str) -> None:
            self.log.add(file, "", "", reason, Severity.WARNING)

        self.evaluations.extend(evals.attach_samples(self.pending_runs, self.sample_logs, warn))
        self.pending_runs, self.sample_logs = [], []


@dataclass
class _FileLog(ProblemLog):
    """One file's problems, each tagged with the record being read when it was found (`slot`),
    so that the problems validation finds for the file's records at once are logged after each
    record's own, as if every record were read and validated in turn."""

    slot: int = -1  # -1: before the first record
    tags: list[tuple[int, int, int]] = field(default_factory=list)  # (slot, 0 read / 1 validated, order)

    def add(
        self,
        file: str | Path,
        record: str,
        field_name: str,
        reason: str,
        severity: Severity = Severity.ERROR,
        cause: Cause = Cause.OTHER,
    ) -> None:
        super().add(file, record, field_name, reason, severity, cause)
        self.tags.append((self.slot, 0, len(self.tags)))

    def add_validated(
        self, slot: int, step: int, file: str, record: str, field_name: str, reason: str, cause: Cause
    ) -> None:
        super().add(file, record, field_name, reason, Severity.ERROR, cause)
        self.tags.append((slot, 1, step))

    def errors_in(self, slots: Iterable[int]) -> set[int]:
        """Those of these slots that have an error."""
        wanted = set(slots)
        return {
            tag[0]
            for tag, p in zip(self.tags, self.problems, strict=True)
            if tag[0] in wanted and p.severity is Severity.ERROR
        }

    def reader_errors(self) -> set[tuple[int, str]]:
        """(slot, field) of each error a reader gave, which validation is not to restate."""
        return {
            (tag[0], p.field)
            for tag, p in zip(self.tags, self.problems, strict=True)
            if tag[1] == 0 and p.severity is Severity.ERROR
        }

    def ordered(self) -> list[Problem]:
        order = sorted(range(len(self.tags)), key=self.tags.__getitem__)
        return [self.problems[i] for i in order]


def detect_record(record: Mapping[str, Any]) -> str | None:
    """The name of the format one object is in, judged by its keys alone (loaders/formats.py)."""
    found = formats.detect(record)
    return found.name if found else None


def _is_metadata_file(path: Path) -> bool:
    name = path.name
    return name in metadata.FOLDER_METADATA or name == DATASET_FILE or name.endswith(metadata.FILE_METADATA)


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
        self.log = _FileLog()
        self.dataset: DatasetInfo | None = None
        self._dataset_file = ""  # the `_dataset.yaml` that attributes the file, as the user knows it
        self._accepted: DatasetInfo | None = None  # the file's dataset, once accepted
        self._workload_origin = ""  # the metadata file that gave `workload:`
        self._workloads_said: set[str] = set()  # why a record's own dataset set its workload
        self._metadata_loaded = False
        self._metadata_cache: tuple[serving.RunMetadata, str] | None = None
        # the file's metadata merged, with (True) or without (False) the metadata files (_merged)
        self._merged_cache: dict[bool, metadata.Merged | None] = {}
        self._nearest_file: str | None = None  # the metadata file nearest the result, if any
        self._taken_cache: dict[str, dict[str, tuple[Any, str]] | None] = {}  # formats.Source.fills
        self._metadata_said = ""  # where each metadata field came from, for the provenance
        self._power_said: set[str] = set()  # why the telemetry beside the file gave no power
        self._run_urls_refused: set[str] = set()  # a record's run_url that broke the address rule

    def load(self) -> None:
        """Read the file; its problems go to the result's log, in order, when it is done (its
        notices once per folder: the load's end says each, with the files it applies to)."""
        try:
            self._load()
        finally:
            folder = _display(self.path.parent, self.root) + "/"
            self.result.said_under[self.display] = self._said_under(folder)
            for problem in self.log.ordered():
                if problem.severity is Severity.NOTICE and problem.file == self.display:
                    # a notice is said once per folder, naming the files it applies to
                    self.result.grouped.add(
                        folder, problem.record, problem.field, problem.reason, problem.severity, self.display
                    )
                elif self._metadata_missing(problem):
                    # a field no metadata file gives: the same for every record and file below it
                    self.result.grouped.add(
                        folder,
                        "",
                        problem.field,
                        problem.reason,
                        problem.severity,
                        self.display,
                        problem.cause,
                    )
                else:
                    self.result.log.problems.append(problem)

    def _said_under(self, folder: str) -> str:
        """The folder this file's points are spoken of under: its nearest metadata file's."""
        nearest = self._nearest_file or ""
        return nearest.rsplit("/", 1)[0] + "/" if "/" in nearest else folder

    def _metadata_missing(self, problem: Problem) -> bool:
        """Whether a problem of this file's is a field missing that its metadata file must give
        (a missing field the reader named after that file, or after `_meta.yaml` for a field a
        format fills from the metadata files)."""
        if problem.file != self.display or problem.cause is not Cause.MISSING:
            return False
        if problem.field.startswith("_meta.yaml: "):
            return True
        return self._metadata_cache is not None and problem.field.startswith(f"{self._metadata_cache[1]}: ")

    def _load(self) -> None:
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
        written_as_text = formats.text_format(self.path.name)
        if written_as_text is not None and written_as_text.parse_text is not None:
            self._text(written_as_text, written_as_text.parse_text(text))
            return
        records = self._json(text)
        if records is not None:
            self._route(records)

    def _json(self, text: str) -> list[tuple[str, Any]] | None:
        """A JSON file's records, labelled: one document's, else one a line (JSON Lines)."""
        try:
            return self._json_records(parse_json(text))
        except json.JSONDecodeError as whole_error:
            return self._jsonl_records(text, whole_error)
        except Refused as exc:
            exc.log(self.log, self.display)
            return None

    def _text(self, kind: InputFormat, record: Mapping[str, Any]) -> None:
        """A result written as text (an MLPerf summary), made a record by its format's parser;
        one holding no result (an accuracy run's summary) is skipped, and said so."""
        if formats.detect(record) is not kind:
            reason = f"skipped: {kind.title} that holds no result (an accuracy run writes one)"
            self.log.add(self.display, "", "", reason, Severity.NOTICE)
            return
        self._records([("", record)])

    def _route(self, records: list[tuple[str, Any]]) -> None:
        """A JSON file's records as evaluation runs, sweep rows or points, as their keys say."""
        evaluation = None if self.dataset else evals.detect(records)
        request_log = None if self.dataset else formats.request_log([as_mapping(r) for _, r in records])
        if evaluation is not None:
            self._evaluations(evaluation, records)
        elif request_log is not None:  # a client's per-request records, whatever the file's name
            self.log.add(self.display, "", "", f"skipped: {request_log.what}, not a result", Severity.NOTICE)
        elif records and all(looks_sweep(set(as_mapping(r))) for _, r in records):
            self._sweeps(records)
        else:
            self._records(records)

    def _companion(self) -> bool:
        """A file a client writes beside its results (formats.Companion): skip it and say so."""
        found = formats.companion(self.path.name)
        if found is None:
            return False
        input_format, known = found
        main = known.main_file(self.path.name)
        if main is not None and not self.path.with_name(main).is_file():
            self.log.add(
                self.display,
                "",
                "",
                f"{known.what}: not read on its own; put {main} beside it ({input_format.title})",
            )
        else:
            self.log.add(self.display, "", "", f"skipped: {known.what}, not a result", Severity.NOTICE)
        return True

    def _context(self, label: str) -> RecordContext:
        """Where a record of this file sits, for its problems."""
        return RecordContext(self.display, label, self.log)

    # -- reading ---------------------------------------------------------------------------

    def _json_records(self, document: Any) -> list[tuple[str, Any]] | None:
        if isinstance(document, list):
            return [(f"record {i}", row) for i, row in enumerate(document, 1)]
        if not isinstance(document, Mapping):
            self.log.add(self.display, "", "", "unknown format: expected a JSON object or array")
            return None
        if document.get("format") == native.NATIVE_FORMAT:
            return self._native_envelope(document)
        return [("", document)]

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
        bad: list[tuple[str, str, str]] = []  # (line, field, reason)
        for n, line in lines:
            try:
                records.append((f"line {n}", parse_json(line)))
            except json.JSONDecodeError as exc:
                bad.append((f"line {n}", "", f"not valid JSON: {exc.msg} (column {exc.colno})"))
            except Refused as exc:
                bad.append((f"line {n}", exc.field_name, exc.reason))
        for where, name, reason in bad[:MAX_LINE_ERRORS]:
            self.log.add(self.display, where, name, reason)
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
        RecordContext(self.display, "", self.log).unknown_fields(document, envelope)
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
        """A CSV, read by pandas as text (every cell validated like a JSON value): native points,
        sweep rows, scores, or the rows of a format that writes CSV (InferenceX's export)."""
        comments, text = _comment_lines(text)
        if comments:
            self._said_comments(text_lines=comments)
        header_line = f"line {comments + 1}"
        try:
            header = next(csv.reader(io.StringIO(text)), [])
        except csv.Error as exc:
            self.log.add(self.display, header_line, "", f"not a well-formed CSV: {exc}")
            return
        scores = evals.looks_native_eval(set(header))
        records = scores or looks_sweep(set(header))  # evaluation scores or sweep rows, not points
        written = _row_format(header) if not records else None
        if not records and written is None and not native.looks_native_columns(header):
            self.log.add(
                self.display,
                header_line,
                "",
                f"unknown format: a CSV needs the native columns ({', '.join(native.REQUIRED_COLUMNS)}); "
                f"found {_few_columns(header)}",
            )
            return
        frame = self._csv_frame(text, header, header_line)
        if frame is None:
            return
        if not records and written is None:
            self._native_csv(frame)
            return
        cells = map(_cells, frame.to_dict("records"))
        first = comments + 2  # the line of the first row: after the comments and the header
        rows = [(f"line {n}", row) for n, row in enumerate(cells, first) if row]  # a row of empty cells: none
        if written is not None:
            self._records(rows)
        elif scores:
            self._evaluations(evals.BY_NAME["native-evals"], rows)
        else:
            self._sweeps(rows)

    def _csv_frame(self, text: str, header: list[str], header_line: str) -> pd.DataFrame | None:
        """The CSV's cells, unless a column is named twice or a row is longer than the header."""
        for column, name in enumerate(header, 1):
            first = header.index(name) + 1
            if first != column:
                self.log.add(
                    self.display,
                    header_line,
                    name,
                    f"column appears twice (columns {first} and {column}): keep one, "
                    "so no value is silently dropped",
                )
                return None
        try:
            return _read_csv(text)
        except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
            reason = "a row has more cells than the header" if isinstance(exc, Warning) else str(exc).strip()
            self.log.add(self.display, "", "", f"not a well-formed CSV: {reason}")
            return None

    def _said_comments(self, text_lines: int) -> None:
        """Comment lines above a CSV's header (InferenceX's export opens with its licence) are
        not data; where no `_dataset.yaml` attributes the file, a licence there would not reach
        the page, so say where to give it."""
        if self.dataset is not None or metadata.first_present(f / DATASET_FILE for f in self._folders_up()):
            return
        self.log.add(
            self.display,
            f"lines 1–{text_lines}" if text_lines > 1 else "line 1",
            "",
            "comment lines above the header skipped: where they state a licence or an attribution "
            f"the data requires, give it in a {DATASET_FILE} beside the file (licence:, source:), "
            "so the pages credit it",
            Severity.NOTICE,
        )

    def _native_csv(self, frame: pd.DataFrame) -> None:
        """A CSV of native points: every cell as text, an empty one ""."""
        columns = {str(name): frame[name].to_numpy() for name in frame.columns}
        self._native_table(columns, _holds_text, "line", 2)  # the header is line 1

    def _parquet(self) -> None:
        """A Parquet table of native points (large data sets): the columns of the native CSV,
        typed; an empty cell (null) is a missing field. Read under the input rules (files.py)."""
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
        columns: dict[str, Objects] = {}
        for name in frame.columns:
            columns[str(name)] = frame[name].to_numpy(dtype=object)
            columns[str(name)][frame[name].isna().to_numpy()] = None
        self._native_table(columns, _holds_value, "row", 1)

    def _native_table(
        self, columns: Mapping[str, Objects], holds: Callable[[Objects], Mask], word: str, first: int
    ) -> None:
        """Native points from a table's columns (`holds`: which cells hold a value), the rows
        labelled '{word} {first}' on; a row with no cell is no record. Each record's unknown
        fields first, then validation's problems."""
        dataset = self._accepted_dataset()
        if dataset is None:
            return
        rows = _rows_with_a_cell(columns, holds)
        if len(rows) < len(columns["model"]):
            columns = {name: values[rows] for name, values in columns.items()}
        taken = self._taken(formats.NATIVE) or {}  # a native file reads no metadata file
        if "workload" in taken:  # the metadata's label, where a row names none
            labels = columns.get("workload", np.full(len(rows), None, dtype=object)).copy()
            labels[~holds(labels)] = taken["workload"][0]
            columns = {**columns, "workload": labels}
        drafts, unknown = native.columns(columns, holds)
        for record, name, reason in unknown:
            self.log.slot = record
            self.log.add(self.display, f"{word} {rows[record] + first}", name, reason)
        self.log.slot = AFTER_RECORDS
        validated = validate(drafts)
        for record, step, name, reason, cause in validated.problems:
            where = f"{word} {rows[record] + first}"
            self.log.add_validated(record, step, self.display, where, name, reason, cause)
        sound = np.setdiff1d(validated.kept, [record for record, _, _ in unknown])
        records = np.array([f"{word} {row}" for row in (rows[sound] + first).tolist()], dtype=object)
        run_urls = _per_value(columns.get("run_url"), sound, _text)
        if run_urls is not None:
            kept = [self._run_url(url, record) for url, record in zip(run_urls, records, strict=True)]
            run_urls = np.array(kept, dtype=object)
        provenance = {
            "dataset": dataset.id,
            "source_file": self.display,
            "record": records,
            "date": _per_value(columns.get("date"), sound, _date),
            "run_url": run_urls,
            **{key: _per_value(columns.get(key), sound, _text) for key in ("image", "note")},
        }
        self._keep(validated, sound, provenance)

    def _keep(self, validated: Validated, sound: npt.NDArray[np.intp], provenance: Mapping[str, Any]) -> None:
        """These validated records (kept by validation, and no error in their reader) as rows of
        the table, with their provenance."""
        if len(sound) == 0:
            return
        size = len(next(iter(validated.columns.values())))
        if len(sound) < size:
            columns = {key: values[sound] for key, values in validated.columns.items()}
        else:
            columns = dict(validated.columns)
        self.result.parts.append({**columns, **provenance})

    # -- evaluation results --------------------------------------------------------------------

    def _evaluations(self, kind: evals.EvalFormat, records: list[tuple[str, Any]]) -> None:
        """An evaluation file (loaders/evals.py): its runs, or a samples log for a run beside it."""
        dataset = self._accepted_dataset(advice=False)
        if dataset is None:
            return
        errors_before = len(self.log.errors)
        info = evals.FileInfo(self.path, self.display, dataset.id, lambda: self._metadata(kind.title))
        found = kind.read(records, info, self._context)
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
        points = []
        for label, row, ctx in objects(records, self._context):
            provenance = Provenance(**self._origin(dataset, label, row, formats.NATIVE))
            found = read_row(row, ctx, provenance)
            if found is not None:
                self.result.sweeps.append(found)
                point = point_row(found, ctx)
                if point is not None:
                    points.append(point)
        if points:
            self.result.parts.append({key: [point.get(key) for point in points] for key in points[0]})

    # -- records -----------------------------------------------------------------------------

    def _records(self, records: list[tuple[str, Any]]) -> None:
        """Records of any format (a JSON file's): each drafted by its format's reader, in turn,
        then all validated at once."""
        dataset = self._accepted_dataset()
        if dataset is None:
            return
        drafts: list[PointDraft] = []
        slots: list[int] = []
        labels: list[str] = []
        origins: list[dict[str, Any]] = []
        for slot, (label, row, kind) in enumerate(self._detected(records)):
            self.log.slot = slot
            found = self._draft_of(label, row, kind)
            if found is not None:
                drafts.append(found[0])
                slots.append(slot)
                labels.append(label)
                origins.append(self._origin(dataset, label, row, found[1]))
        self.log.slot = AFTER_RECORDS
        if not drafts:
            return
        validated = validate(Drafts.of(drafts))
        said = self.log.reader_errors()
        for record, step, name, reason, cause in validated.problems:
            if (slots[record], name) not in said:
                self.log.add_validated(slots[record], step, self.display, labels[record], name, reason, cause)
        refused = self.log.errors_in(slots)  # a record the reader found an error in is not kept
        sound = np.array([i for i in validated.kept.tolist() if slots[i] not in refused], dtype=np.intp)
        provenance = {key: [origins[i][key] for i in sound.tolist()] for key in PROVENANCE_KEYS}
        self._keep(validated, sound, provenance)

    def _draft_of(
        self, label: str, row: Any, kind: InputFormat | None
    ) -> tuple[PointDraft, InputFormat] | None:
        """One record's draft by its format's reader, and the format; None, the problem logged,
        where there is none to validate."""
        ctx = self._context(label)
        if not isinstance(row, Mapping):
            ctx.error("", "not an object")
            return None
        if kind is None:
            ctx.error(
                "",
                f"unknown format: not any of {formats.supported_names()} "
                f"(keys: {', '.join(excerpt(k, 24) for k in sorted(map(str, row))[:12])})",
            )
            return None
        unfixed = kind.unfixed(row)
        skipped = unfixed.notice() if unfixed is not None else kind.skip(row) or kind.skip_file(self.path)
        if skipped:
            ctx.notice(*skipped)
            return None
        if kind.read is None:
            ctx.error(
                "",
                f"{kind.title} is recognised but not supported yet; "
                "convert it to the native format (docs/data-format.md)",
            )
            return None
        return self._draft(kind, kind.read, row, ctx)

    def _accepted_dataset(self, *, advice: bool = True) -> DatasetInfo | None:
        """The file's dataset, unless another file attributes the same id differently (logged;
        `advice`: naming the other attribution and what to do)."""
        dataset = self.dataset or self._dataset_for_file()
        if dataset is None:
            return None
        known = self.result.datasets.setdefault(dataset.id, dataset)
        if known == dataset:
            self._accepted = dataset
            return dataset
        reason = f"dataset '{dataset.id}' is already attributed differently by another file"
        if advice:
            reason += f" (title '{known.title}', source '{known.source}'): give this one its own id"
        self.log.add(self.display, "", "dataset.id", reason)
        return None

    def _detected(self, records: list[tuple[str, Any]]) -> Iterator[tuple[str, Any, InputFormat | None]]:
        """Each record with its format; a document that holds many records (a report) opened up."""
        for label, row in records:
            if not isinstance(row, Mapping):
                yield label, row, None
                continue
            kind = formats.NATIVE if self.dataset else formats.detect(row)  # a native file's: native
            if kind is None or kind.expand is None:
                yield label, row, kind
                continue
            for inner, part in kind.expand(row):
                yield " ".join(x for x in (label, inner) if x), part, kind

    def _draft(
        self, kind: InputFormat, read: Reader, row: Mapping[str, Any], ctx: RecordContext
    ) -> tuple[PointDraft, InputFormat] | None:
        """A record's draft by `read`, its format's reader, given the metadata file it needs;
        and the format."""
        if kind.needs_metadata:
            loaded = self._metadata(kind.title, kind.requires, kind.metadata_hint, kind.model_folder)
            if loaded is None:
                return None
            meta = self._record_workload(kind.dataset(row), loaded[0], ctx)
            source = Source(self.path.name, meta, loaded[1])
        else:
            taken = self._taken(kind)
            if taken is None:
                return None
            source = Source(self.path.name, fills=taken)
        draft = read(row, ctx, source)  # None: the reader kept nothing and said why
        if draft is None:
            return None
        self._measured_power(draft, row, ctx, kind)
        if "workload" in source.fills and "workload" not in draft.values:  # the record names none
            value, origin = source.fills["workload"]
            draft.set("workload", value, f"{origin}: workload")
        return draft, kind

    def _origin(
        self, dataset: DatasetInfo, label: str, row: Mapping[str, Any], kind: InputFormat
    ) -> dict[str, Any]:
        """A record's provenance (read.provenance.Provenance's fields): the metadata file's
        date, run and note where one was read, else the record's own."""
        meta = self._metadata_cache[0] if self._metadata_cache else None  # None: no metadata file
        date = row.get("date") if isinstance(row.get("date"), str) else kind.date(row)
        record = label or "whole file"
        found = {
            "dataset": dataset.id,
            "source_file": self.display,
            "record": record,
            "client": kind.client(row),
            "date": getattr(meta, "date", None) or date_from_stamp(date),
            **{key: getattr(meta, key, None) or _text(row.get(key)) for key in ("run_url", "image", "note")},
        }
        found["run_url"] = self._run_url(found["run_url"] or _text(kind.run_url(row)), record)
        if meta is not None and metadata.FROM_FILE_NAME in self._metadata_said:
            found["note"] = "; ".join(filter(None, (found["note"], f"metadata: {self._metadata_said}")))
        return found

    # -- side files ----------------------------------------------------------------------------

    def _measured_power(
        self, draft: PointDraft, row: Mapping[str, Any], ctx: RecordContext, kind: InputFormat
    ) -> None:
        """A run's mean power per GPU from a power log beside it (read.telemetry.POWER_LOGS),
        where the record gives none of its own; why not, where the log is there but gives none."""
        for log in telemetry.POWER_LOGS:
            path = self.path.with_name(log.file)
            if "avg_power_w" in draft.values or (log.formats and kind.name not in log.formats):
                continue
            if not path.is_file():
                continue
            window = log.window(row, self._beside)
            if isinstance(window, str):
                self._power_notice(ctx, path.name, window)
                continue
            text = read_text(path, _display(path, self.root), self.log, self.confined)
            gpus = draft.values.get("gpu_count")
            found = None if text is None else log.power(text, window, gpus if isinstance(gpus, int) else None)
            if isinstance(found, telemetry.RunPower):
                draft.set("avg_power_w", found.watts_per_gpu, f"{path.name} {found.column}")
            elif found is not None:
                self._power_notice(ctx, path.name, found)

    def _beside(self, name: str) -> str | None:
        """The text of the file of this name beside the result (None: there is none)."""
        path = self.path.with_name(name)
        return read_text(path, _display(path, self.root), self.log, self.confined) if path.is_file() else None

    def _run_url(self, url: str | None, record: str) -> str | None:
        """A record's run_url where it keeps the address rule (files.check_web_address), else None:
        it reaches a link and comparison.json, so `javascript:` and the like are left out, with a
        warning once a file and address."""
        if url is None or web_address(url) is not None:
            return url
        if url not in self._run_urls_refused:
            self._run_urls_refused.add(url)
            reason = (
                f"{excerpt(url)} is not an absolute http:// or https:// address: left out of the page and "
                "comparison.json (give the run's http(s) address, or leave run_url empty)"
            )
            self.log.add(self.display, record, "run_url", reason, Severity.WARNING)
        return None

    def _power_notice(self, ctx: RecordContext, telemetry_file: str, why: str) -> None:
        """Why the telemetry beside the file gave a record no power: once a file and cause."""
        if why not in self._power_said:
            self._power_said.add(why)
            ctx.notice("avg_power_w", f"{telemetry_file} beside it is not attached: {why}")

    def _metadata(
        self,
        title: str,
        requires: Sequence[str] = (),
        hint: str = "",
        model_folder: Callable[[PurePath], tuple[str, PurePath] | None] = lambda path: None,
    ) -> tuple[serving.RunMetadata, str] | None:
        """The metadata of a result of a format that needs it (`title` names the format): the
        file's merged metadata (_merged), what an InferenceX runner file name states filling the
        rest (read/metadata.py), as RunMetadata."""
        if self._metadata_loaded:
            return self._metadata_cache
        self._metadata_loaded = True
        merged = self._merged(with_files=True)
        if merged is None:
            return None  # its problem is logged once, naming the metadata file
        nearest = self._nearest_file
        meta = self._validated_metadata(merged, title, nearest, _unmet(merged.values, requires), hint)
        if meta is not None and not self._model_fits_its_folder(meta, merged, model_folder(self.path)):
            return None
        named = merged.from_file_name()
        if meta is not None and named:
            folder = _display(self.path.parent, self.root) + "/"
            reason = (
                f"{', '.join(named)} taken from the InferenceX runner file name (a _meta.yaml "
                "field would win over it)"
            )
            self.result.grouped.add(folder, "", "", reason, Severity.NOTICE, self.display)
        if meta is not None:
            self._metadata_cache = (meta, nearest or f"{metadata.FROM_FILE_NAME} {self.path.name}")
            self._metadata_said = merged.said()
            self._workload_origin = merged.origins.get("workload", "")
        return self._metadata_cache

    def _record_workload(
        self, said: workloads.RecordDataset | None, meta: serving.RunMetadata, ctx: RecordContext
    ) -> serving.RunMetadata:
        """The metadata a record is read with, its workload the one the record's own dataset
        makes, where its format records one: a file may mix fixed-length runs (random) and runs
        over a variable-length dataset (sharegpt). Where the metadata's `workload:` says
        otherwise the record wins, with one warning a file; a label it gives, one notice a folder."""
        if said is None or said.label == meta.workload:
            return meta
        if meta.workload is None:
            reason = (
                f"workload {said.label} from the records' own {said.field} (runs over one "
                "variable-length dataset are one curve, named by it)"
            )
            self._say_workload("", said.field, reason, Severity.NOTICE)
        else:
            kind = f"the variable-length dataset {said.label}" if said.label else "a fixed-length dataset"
            wins = f"labelled {said.label}" if said.label else "read as fixed-length, by its ISL/OSL"
            reason = (
                f"{said.field} {excerpt(said.value)} is {kind}, but {self._workload_origin} gives workload: "
                f"{meta.workload}: the record's own dataset wins ({wins}); remove workload: from "
                f"{self._workload_origin} (these records name their dataset themselves)"
            )
            self._say_workload(ctx.record, said.field, reason, Severity.WARNING)
        return meta.model_copy(update={"workload": said.label})

    def _say_workload(self, record: str, field_name: str, reason: str, severity: Severity) -> None:
        """Said once a file (a notice: once a folder, load's end names the files)."""
        if reason not in self._workloads_said:
            self._workloads_said.add(reason)
            self.log.add(self.display, record, field_name, reason, severity)

    def _merged(self, *, with_files: bool) -> metadata.Merged | None:
        """The file's metadata: one lookup, for every format and for build, check and import.
        Its layers, farthest first: the data set's (`_dataset.yaml`'s `workload:`, or a native
        file's `dataset` block), then, for a format that reads metadata files (`with_files`),
        each from the data folder down to the file (read/metadata.py); the nearest layer that
        gives a field wins it, and a record's own value wins over all (docs/data-format.md).
        None where a metadata file cannot be read (its problem logged once, naming it)."""
        if with_files not in self._merged_cache:
            layers = self._dataset_layer()
            for path in metadata.chain(self.path, self.root) if with_files else ():
                mapping = self._metadata_file(path)
                if mapping is None:
                    self._merged_cache[with_files] = None
                    return None
                layers.append((_display(path, self.root), mapping))
                self._nearest_file = layers[-1][0]
            stem = self.path.name.rsplit(".", 1)[0]
            self._merged_cache[with_files] = metadata.Merged.of(layers, stem)
        return self._merged_cache[with_files]

    def _dataset_layer(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The data set's `workload:`, the farthest metadata layer."""
        dataset = self._accepted
        if dataset is None or dataset.workload is None:
            return []
        return [(self._dataset_file or f"{self.display}: dataset", {"workload": dataset.workload})]

    def _model_fits_its_folder(
        self, meta: serving.RunMetadata, merged: metadata.Merged, layout: tuple[str, PurePath] | None
    ) -> bool:
        """False (an error once per folder) where a metadata file above the folder a run's layout
        names its model by (MLPerf's benchmark folder) gives it another model: such a file labels
        every benchmark of a submission alike. One inside that folder is the user's own key."""
        if layout is None or meta.model is None or meta.model.lower() == layout[0].lower():
            return True
        name, folder = layout
        inside = _display(Path(folder), self.root) + "/"
        origin = merged.origins.get("model", "")
        if origin.startswith(inside):
            return True
        reason = (
            f"model: {meta.model} from {origin} would label a run of the {name} benchmark (folder "
            f"{folder.name}): a metadata file above a submission's benchmark folders gives every "
            f"benchmark below it that model; give this one its model in {inside}_meta.yaml"
        )
        self.result.grouped.add(inside, "", "model", reason, Severity.ERROR, self.display)
        return False

    def _taken(self, kind: InputFormat) -> dict[str, tuple[Any, str]] | None:
        """What a format read without a metadata file of its own takes from the metadata where a
        record lacks it, each with the file that gives it: the fields it `fills` (from the
        metadata files) and the workload label; said once per folder where it `fills`. None
        where a metadata file cannot be read."""
        if kind.name not in self._taken_cache:
            merged = self._merged(with_files=bool(kind.fills))
            self._taken_cache[kind.name] = None if merged is None else self._fill_values(kind, merged)
        return self._taken_cache[kind.name]

    def _fill_values(self, kind: InputFormat, merged: metadata.Merged) -> dict[str, tuple[Any, str]]:
        """The values of `_taken`, from the file's merged metadata."""
        layers = merged.from_layers()
        takes = (*kind.fills, "workload")
        taken = [key for key in takes if key in layers and merged.values[key] is not None]
        if kind.fills:
            self._say_taken(taken, [key for key in layers if key not in takes], layers)
        return {key: (merged.values[key], layers[key]) for key in taken}

    def _say_taken(self, taken: Sequence[str], unused: Sequence[str], origins: Mapping[str, str]) -> None:
        """Which metadata fields fill what a format's rows lack, and which are not used: one
        notice per folder."""
        if not taken and not unused:
            return
        files = ", ".join(sorted({origins[key] for key in (*taken, *unused)}))
        said = [f"{', '.join(taken)} taken from {files} where a row lacks them"] if taken else []
        if unused:
            said.append(f"not used from {files}: {', '.join(unused)} (each row gives its own)")
        folder = _display(self.path.parent, self.root) + "/"
        self.result.grouped.add(folder, "", "", "; ".join(said), Severity.NOTICE, self.display)

    def _metadata_file(self, path: Path) -> Mapping[str, Any] | None:
        """One metadata file's fields, read once for every result file it applies to (its
        problems logged once)."""
        if path not in self.result.metadata_files:
            display = _display(path, self.root)
            problems_before = len(self.log.problems)
            document = load_structured(path, display, self.log, self.confined)
            if document is None and len(self.log.problems) == problems_before:
                document = {}  # an empty file: no fields
            data = document if document is None or isinstance(document, Mapping) else None
            if document is not None and data is None:
                self.log.add(display, "", "", "not a mapping of metadata fields (field: value)")
            self.result.metadata_files[path] = data
        return self.result.metadata_files[path]

    def _validated_metadata(
        self,
        merged: metadata.Merged,
        title: str,
        nearest: str | None,
        unmet: Sequence[str] = (),
        hint: str = "",
    ) -> serving.RunMetadata | None:
        """The merged metadata as RunMetadata; None where it is not, or lacks a field the format
        requires (`unmet`), each cause said once per folder (a missing field: which to add and
        where, and `hint`; a bad value: naming the file that gave it)."""
        errors: list[Any] = []
        try:
            meta = serving.RunMetadata.model_validate(merged.values)
            if not unmet:
                return meta
        except ValidationError as exc:
            errors = list(exc.errors())
        folder = _display(self.path.parent, self.root)
        missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing"] + list(unmet)
        if missing:
            where = nearest or f"{folder}/_meta.yaml"
            reason = (
                f"{title} needs a metadata file giving {', '.join(map(_said, missing))} (the result file "
                f"does not say): add {', '.join(f'{key}: …' for key in missing)} to {where} (a folder's "
                "_meta.yaml applies to every file below it, the nearest winning each field; "
                f"<name>.meta.yaml to one file; docs/data-format.md){hint}"
            ) + self._unread_above()
            self.result.grouped.add(folder + "/", "", "", reason, Severity.ERROR, self.display, Cause.MISSING)
        for error in errors:
            if error["type"] == "missing":
                continue
            key = field_path(error["loc"])
            origin = merged.origins.get(str(error["loc"][0]) if error["loc"] else "", nearest or folder)
            origin = self.display if origin == metadata.FROM_FILE_NAME else origin
            reason = _metadata_reason(error, serving.RunMetadata.model_fields)
            self.result.grouped.add(origin, "", key, reason, Severity.ERROR, self.display)
        return None

    def _unread_above(self) -> str:
        """Where a file is looked at on its own (an import outside a project and the current
        folder), a metadata file above it that the lookup did not read, and how to have it read."""
        if self.root != self.path.parent:
            return ""
        folders = list(self.path.parent.parents)[:2]  # the two folders above
        names = metadata.FOLDER_METADATA
        found = [metadata.first_present(folder / name for name in names) for folder in folders]
        nearest = next((path for path in found if path is not None), None)
        if nearest is None:
            return ""
        return (
            f"; {nearest.as_posix()} was not read: run the import from its folder or one above "
            "(the lookup starts at the project's data/ folder, else the current folder)"
        )

    def _folders_up(self) -> Iterator[Path]:
        """The file's folder, then each one above it up to the data folder: nearest first."""
        return reversed(metadata.folders_down(self.path, self.root))

    def _read_model(self, path: Path, model: type[_Model]) -> _Model | None:
        """A side file (metadata, data set) read and validated as `model`; None, the problems
        logged naming the file, where it cannot be read or is not one."""
        display = _display(path, self.root)
        data = load_structured(path, display, self.log, self.confined)
        if data is None:
            return None
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            add_validation_errors(self.log, display, exc, fields=lambda loc: model.model_fields)
            return None

    def _dataset_for_file(self) -> DatasetInfo | None:
        """The `_dataset.yaml` nearest the file, else a data set named after the file's path."""
        found = metadata.first_present(folder / DATASET_FILE for folder in self._folders_up())
        if found is not None:
            if found not in self.result.dataset_files:  # read once: its problems said once
                self.result.dataset_files[found] = self._read_model(found, DatasetInfo)
            dataset = self.result.dataset_files[found]
            self._dataset_file = _display(found, self.root)
            if dataset is not None:
                self._warn_if_not_the_example(found, dataset)
            return dataset
        relative = self.path.relative_to(self.root).with_suffix("").as_posix()
        slug = re.sub(r"[^a-z0-9._-]+", "-", relative.lower()).strip("-.") or "results"
        if len(slug) > DATASET_ID_CHARS:  # a deep path: cut, kept unique by a hash of the whole
            digest = hashlib.sha256(relative.encode()).hexdigest()[:8]
            slug = slug[: DATASET_ID_CHARS - 9].rstrip("-.") + "-" + digest
        return DatasetInfo(id=slug, title=self.path.name, source=f"result file {self.display}")

    def _warn_if_not_the_example(self, attribution: Path, dataset: DatasetInfo) -> None:
        """A file an invented example's attribution covers that is not one of the example's own
        (a user's results beside it): its pages would call the user's numbers invented."""
        written = dataset.example_files
        if written is None and dataset.id == INIT_EXAMPLE_ID:  # a project init wrote before example_files
            written = ["example.csv"]
        if written is None or self.path.relative_to(attribution.parent).as_posix() in written:
            return
        where = _display(attribution, self.root)
        self.log.add(
            self.display,
            "",
            "dataset",
            f"attributed by {where}, the invented example's ({', '.join(written)}), so its pages would call "
            "these numbers invented: move this file to a folder of its own with its own _dataset.yaml "
            "(e.g. data/results/ours/), and delete the example's folder once you have your own results",
            Severity.WARNING,
        )


# a field a format requires -> the metadata fields any one of which gives it
_GIVEN_BY = {"gpu_count": (("gpu_count",), ("tp",), ("prefill_gpus", "decode_gpus"))}


def _said(key: str) -> str:
    """A field to add, with the other ways of giving it: 'gpu_count (or tp, or prefill_gpus and …)'."""
    others = [" and ".join(way) for way in _GIVEN_BY.get(key, ())[1:]]
    return f"{key} (or {', or '.join(others)})" if others else key


def _unmet(values: Mapping[str, Any], requires: Sequence[str]) -> list[str]:
    """The fields a format requires that the merged metadata does not give."""
    return [
        key
        for key in requires
        if not any(all(values.get(f) is not None for f in way) for way in _GIVEN_BY.get(key, ((key,),)))
    ]


def _metadata_reason(error: Any, known: Iterable[str]) -> str:
    """A metadata field's validation error in words (an unknown field with the nearest known)."""
    if error["type"] == "extra_forbidden":
        return "unknown field" + suggest(str(error["loc"][0]), known)
    return str(error["msg"])


def _few_columns(header: list[str], shown: int = 4, width: int = 24) -> str:
    """The first few header cells, each cut short: enough to recognise a file, never a wall of text."""
    if not header:
        return "no columns"
    cells = [c if len(c) <= width else c[: width - 1] + "…" for c in header[:shown]]  # printable: ProblemLog
    more = f", … ({len(header)} columns)" if len(header) > shown else ""
    return ", ".join(cells) + more


def _read_csv(text: str) -> pd.DataFrame:
    """A CSV as pandas reads it: every cell as the text written (an empty one as "")."""
    with warnings.catch_warnings():
        # pandas only warns when the first row is longer than the header: refuse that too
        warnings.simplefilter("error", pd.errors.ParserWarning)
        return pd.read_csv(
            io.StringIO(text),
            dtype=object,  # Python strings as read (dtype=str would convert them twice)
            keep_default_na=False,
            na_filter=False,  # no cell is "missing" to pandas: an empty one is ""
            skip_blank_lines=False,
            index_col=False,
            engine="c",
        )


def _comment_lines(text: str) -> tuple[int, str]:
    """How many `#` lines open a CSV (before its header), and the text after them."""
    lines = text.split("\n")
    count = next((n for n, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return count, "\n".join(lines[count:])


def _row_format(header: list[str]) -> InputFormat | None:
    """The format, other than the native one, whose rows a CSV with this header holds."""
    found = formats.detect(dict.fromkeys(header))
    return found if found is not None and found is not formats.NATIVE and found.read is not None else None


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


def _holds_text(cells: Objects) -> Mask:
    """Which of a CSV's cells hold something (an empty cell is a missing field)."""
    return np.asarray(cells != "", dtype=bool)


def _holds_value(cells: Objects) -> Mask:
    """Which of a Parquet table's cells hold a value (None: null, a missing field)."""
    return np.asarray(pd.notna(cells), dtype=bool)


def _rows_with_a_cell(
    columns: Mapping[str, Objects], holds: Callable[[Objects], Mask]
) -> npt.NDArray[np.intp]:
    """The rows of a table with at least one cell that holds a value: those whose model cell
    does, and of the others those with another cell that does."""
    empty = np.flatnonzero(~holds(columns["model"]))
    for values in columns.values():
        empty = empty[~holds(values[empty])] if len(empty) else empty
    keep = np.ones(len(columns["model"]), dtype=bool)
    keep[empty] = False
    return np.flatnonzero(keep)


def _date(value: Any) -> str | None:
    return date_from_stamp(value) if isinstance(value, str) else None


def _per_value(
    values: Objects | None, rows: npt.NDArray[np.intp], rule: Callable[[Any], Any]
) -> Objects | None:
    """`rule` of a column's value in each of these rows, once per distinct value (None: no column)."""
    return None if values is None else each_distinct(values[rows], rule)


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


# a glob's wildcards as regular expressions; any other text stands for itself
_GLOB_WILDCARDS = {"**/": "(?:[^/]+/)*", "**": ".*", "*": "[^/]*", "?": "[^/]"}
_GLOB_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|[^*?]+")


def _glob(pattern: str) -> re.Pattern[str]:
    tokens = _GLOB_TOKEN.findall(pattern.strip().strip("/"))
    return re.compile("".join(_GLOB_WILDCARDS.get(token) or re.escape(token) for token in tokens))


def load_results(
    root: Path,
    log: ProblemLog | None = None,
    exclude: Sequence[str] = (),
) -> LoadResult:
    """Every result file under `root` (recursively), in sorted order, but those `exclude` names."""
    result = LoadResult(log=log or ProblemLog())
    if not root.is_dir():
        result.log.add(root.as_posix(), "", "", "results folder does not exist")
        return result
    _load_under(root, root, result, exclude)
    result.finish()
    return result


def load_folder(folder: Path, log: ProblemLog | None = None, exclude: Sequence[str] = ()) -> LoadResult:
    """A folder named on the importer's command line: every result file under it but those
    `exclude` names (globs under the data folder, as a build's), read as a build reads them, each
    file's metadata looked up from the data folder it lies in (metadata_root) down, so a
    `_meta.yaml` above the folder counts as in a build."""
    result = LoadResult(log=log or ProblemLog())
    folder = folder.resolve()
    _load_under(folder, folder_metadata_root(folder), result, exclude)
    result.finish()
    return result


def _load_under(folder: Path, root: Path, result: LoadResult, exclude: Sequence[str]) -> None:
    """Load every file under `folder` (which lies in `root`, the folder metadata is looked up
    from and names are shown from), listing what is not read."""
    for path in result_files(folder):
        if path.is_dir():  # a symbolic link to a folder, which the walk does not follow
            _linked_folder(path, root, result.log)
            continue
        if _is_metadata_file(path) or path.suffix in SETTINGS_SUFFIXES:
            continue
        if excluded(path.relative_to(root).as_posix(), exclude):  # none: nothing excluded
            continue
        if path.suffix not in RESULT_SUFFIXES and not _read_by_name(path.name):  # listed, never passed over
            folder_shown = _display(path.parent, root) + "/"  # said once per folder, naming its files
            result.grouped.add(folder_shown, "", "", _not_read(path), Severity.NOTICE, _display(path, root))
            continue
        _FileLoader(path, root, _display(path, root), result).load()


def _not_read(path: Path) -> str:
    """Why a file under the data folder is not read, for the notice that lists it."""
    return f"skipped: not a result file ({', '.join(RESULT_SUFFIXES)} files are read)"


def _read_by_name(file_name: str) -> bool:
    """A file of another kind a format reads (an MLPerf summary) or names as a companion."""
    return formats.text_format(file_name) is not None or formats.companion(file_name) is not None


def _linked_folder(path: Path, root: Path, log: ProblemLog) -> None:
    """A symbolic link to a folder is not followed (a folder inside is read where it is); one
    leading out of the data folder is said once, naming it, rather than skipped without a word."""
    if not path.resolve().is_relative_to(root.resolve()):
        log.add(
            _display(path, root),
            "",
            "",
            f"a symbolic link to a folder outside {root.name}/: skipped, nothing is read from outside "
            f"the project (copy the folder into {root.name}/ instead)",
            Severity.WARNING,
        )


def load_file(path: Path, log: ProblemLog | None = None, root: Path | None = None) -> LoadResult:
    """One file on its own (the importer's entry point), its metadata looked up as a build
    does, from `root` (metadata_root: the data folder it lies in) down to the file."""
    result = LoadResult(log=log or ProblemLog())
    _FileLoader(path.resolve(), root or metadata_root(path), path.as_posix(), result, confined=False).load()
    result.finish()
    return result


def metadata_root(path: Path) -> Path:
    """Where the metadata lookup of a file imported on its own starts, as a build's would:
    folder_metadata_root of the folder it lies in."""
    return folder_metadata_root(path.resolve().parent)


def folder_metadata_root(folder: Path) -> Path:
    """Where the metadata lookup for files in `folder` starts, as a build's would: the project's
    `data/` folder it lies in; else the current folder, where it lies below it; else itself."""
    absolute = folder.resolve()
    for above in (absolute, *absolute.parents):
        if above.name == "data":
            return above
    here = Path.cwd().resolve()
    return here if here == absolute or here in absolute.parents else absolute
