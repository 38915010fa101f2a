"""Bring outside results into the project's own native format, keeping their attribution.

Two sources: any result file the loaders read (InferenceX, vLLM, SGLang, native), and the text of
a published comparison page, whose table gives values at its own targets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from site_builder.content import load_site_config
from site_builder.files import read_text
from site_builder.problems import InputError, ProblemLog, Severity
from site_builder.read.evals import EvalRun
from site_builder.read.fields import LATENCY_METRICS, LATENCY_STATS, latency_ms_field
from site_builder.read.load import folder_metadata_root, load_file, load_folder
from site_builder.read.native import NATIVE_FORMAT, NATIVE_VERSION
from site_builder.read.provenance import DatasetInfo
from site_builder.read.table import CONFIG_TEXT, ROLES, WORKER_GROUP_KEYS
from site_builder.write import write_new_file


class ImportRefused(Exception):
    pass


# a point's fields as a native record names them, in the record's order (ours -> the point's);
# the interactivity only where it was stated (from TPOT or output tok/s ÷ concurrency, the loader
# derives it again and says how), the basis only where it is not the default, latency in ms
_RECORD_FIELDS: dict[str, str] = {
    **{key: key for key in (*CONFIG_TEXT, "disagg", "multinode", "tp", "ep", "pp", "dp_attention")},
    **{f"{role}_{key}": f"{role}_{key}" for role in ROLES for key in (*WORKER_GROUP_KEYS, "dp_attention")},
    **{
        key: key
        for key in (
            "gpu_count",
            "isl",
            "osl",
            "workload",
            "concurrency",
            "throughput_per_gpu",
            "output_throughput_per_gpu",
            "input_throughput_per_gpu",
            "isl_mean",
            "osl_mean",
            "random_range_ratio",
        )
    },
}
_LATENCY_MS = {
    latency_ms_field(metric, stat): f"{metric}_{column}"
    for metric in LATENCY_METRICS
    for stat, column in LATENCY_STATS.items()
}
# the energy fields, written only where the point's power was measured
_POWER_FIELDS = {
    "avg_power_w": "avg_watts_per_gpu",
    "joules_per_total_token": "joules_per_total_token",
    "joules_per_output_token": "joules_per_output_token",
}
_PROVENANCE_FIELDS = ("date", "run_url", "image", "note")


def native_record(point: Mapping[str, Any]) -> dict[str, Any]:
    """A point (a row of the point table) as one native record: identity, measurements in the
    native units, provenance; a field the point lacks is left out."""
    record = {ours: point[theirs] for ours, theirs in _RECORD_FIELDS.items()}
    if point["interactivity_source"] == "stated":
        record["interactivity"] = point["interactivity"]
    if point["throughput_basis"] == "output":
        record["throughput_basis"] = "output"
    for ours, theirs in _LATENCY_MS.items():
        seconds = point[theirs]
        if seconds is not None:
            record[ours] = seconds * 1000.0
    if point["avg_watts_per_gpu"] is not None:
        record.update({ours: point[theirs] for ours, theirs in _POWER_FIELDS.items()})
    record.update({key: point[key] for key in _PROVENANCE_FIELDS})
    return {k: v for k, v in record.items() if v is not None}


def native_eval_record(run: EvalRun) -> dict[str, Any]:
    """An evaluation run as one native score record (per-question scores stay in their log)."""
    prov = run.provenance
    record: dict[str, Any] = {
        "model": run.model,
        "hardware": run.hardware,
        "precision": run.precision,
        "spec_method": run.spec_method,
        "framework": run.framework,
        "task": run.task,
        "metric": run.metric,
        "score": run.score,
        "stderr": run.stderr,
        "questions": run.questions,
        "higher_is_better": None if run.higher_is_better else False,
        "setup": run.setup,
        "date": prov.date,
        "run_url": prov.run_url,
        "note": prov.note or f"imported from {prov.source_file}, {prov.record}",
    }
    return {k: v for k, v in record.items() if v is not None}


def native_document(
    dataset: DatasetInfo, records: Sequence[Mapping[str, Any]], evaluations: Sequence[Mapping[str, Any]] = ()
) -> str:
    """A native JSON file: the envelope with its attribution, then one record per point (and per
    evaluation run, where there are any)."""
    document: dict[str, Any] = {
        "format": NATIVE_FORMAT,
        "version": NATIVE_VERSION,
        # `example` only where set, so an import of measured data reads as it always has
        "dataset": dataset.model_dump(exclude_none=True, exclude=None if dataset.example else {"example"}),
        "points": list(records),
    }
    if evaluations:
        document["evaluations"] = list(evaluations)
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def read_named_file(path: Path) -> str:
    """A text file named on the command line (a notes file, a published page), read under the
    rule every input is read under (files.read_text: a regular file, text, no NUL, size limit)."""
    log = ProblemLog()
    text = read_text(path, str(path), log, root=None)
    if text is None:
        raise InputError(log.errors)
    return text


def dataset_from_options(**fields: Any) -> DatasetInfo:
    """The attribution given as command-line options, under the rules a dataset file keeps (an
    address must be http(s)); a refusal names the option."""
    try:
        return DatasetInfo(**fields)
    except ValidationError as exc:
        log = ProblemLog()
        for err in exc.errors():
            option = "--" + str(err["loc"][0]).replace("_", "-") if err["loc"] else "options"
            log.add("the command line", "", option, err["msg"].removeprefix("Value error, "))
        raise InputError(log.errors) from None


def _write_new(out: Path, text: str) -> None:
    """`out` written whole, or not at all (write.write_new_file), never over an existing file."""
    exists = f"{out} exists; the importer never overwrites a file (remove it or choose -o)"
    if out.exists():
        raise ImportRefused(exists)
    try:
        write_new_file(out, text.encode("utf-8"))
    except FileExistsError:
        raise ImportRefused(exists) from None
    except OSError as exc:
        raise ImportRefused(
            f"cannot write {out} ({exc.strerror or exc}); nothing was written: free space or "
            "permission there, or choose another -o"
        ) from None


def _build_exclude(folder: Path, log: ProblemLog) -> list[str]:
    """The `exclude:` of the project the folder lies in (content/site.yaml beside its data
    folder), so that a folder imports the files a build of it reads; said once where it applies."""
    data = folder_metadata_root(folder)
    content = data.parent / "content"
    if data.name != "data" or not (content / "site.yaml").is_file():
        return []
    exclude = load_site_config(content, log).exclude
    if exclude:
        reason = "applied to the import as build and check apply it: the files it names are not imported"
        log.add(f"{content.name}/site.yaml", "", "exclude", reason, Severity.NOTICE)
    return exclude


def import_results(sources: Sequence[Path], dataset: DatasetInfo, out: Path) -> tuple[int, ProblemLog]:
    """Load result files of any supported format (benchmarks and evaluations), or every result
    file under a folder, and write them as one native file; returns how many records it wrote."""
    log = ProblemLog()
    points: list[dict[str, Any]] = []
    evaluations: list[EvalRun] = []
    for source in sources:
        loaded = (
            load_folder(source, log, _build_exclude(source, log))
            if source.is_dir()
            else load_file(source, log)
        )
        if source.is_dir() and not len(loaded.table) and not loaded.evaluations:
            log.add(source.as_posix(), "", "", "no result file under this folder was read: nothing to import")
        points.extend(loaded.table.records())
        evaluations.extend(loaded.evaluations)
    if log.errors:
        raise InputError(log.errors)
    for point in points:
        point["note"] = point["note"] or f"imported from {point['source_file']}, {point['record']}"
    scores = [native_eval_record(r) for r in evaluations]
    _write_new(out, native_document(dataset, [native_record(p) for p in points], scores))
    return len(points) + len(scores), log


# -- published comparison pages -----------------------------------------------------------------

_CELL = re.compile(r"([A-Za-z][A-Za-z0-9.\- ]*?):\s*[~$]?\s*(\d+(?:\.\d+)?)")
_TARGET = re.compile(r"\bat (\d+(?:\.\d+)?) tok/s/user", re.IGNORECASE)
_ROWS = {"throughput": "Throughput (tok/s/gpu)", "concurrency": "Concurrency"}


def parse_published_table(text: str) -> tuple[list[float], dict[str, dict[str, list[float]]]]:
    """Targets (from the prose, in order) and {row: {side label: values}} from a page's text.

    Reads both the Markdown table layout (`| Throughput (tok/s/gpu) | FP4:1064.0INT4:495.8 | …`)
    and the one-cell-a-line layout of a copied page.
    """
    targets = list(dict.fromkeys(float(value) for value in _TARGET.findall(text)))  # each once, in order
    lines = [line.strip() for line in text.splitlines()]
    table = {row: _side_values(_row_cells(lines, title, len(targets))) for row, title in _ROWS.items()}
    if not targets:
        raise ValueError("no targets ('at N tok/s/user') in the page text")
    for row, values in table.items():
        for label, numbers in values.items():
            if len(numbers) != len(targets):
                raise ValueError(f"row {row}, side {label}: {len(numbers)} values for {len(targets)} targets")
    return targets, table


def _row_cells(lines: list[str], title: str, count: int) -> list[str]:
    """The cells of the row `title`: a Markdown table's row, or the `count` lines below the title."""
    cells: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith(f"| {title} |"):
            cells = [c.strip() for c in line.strip("|").split("|")[1:]]
            break
        if line == title:
            cells = lines[i + 1 : i + 1 + count]
            break
    if not cells:
        raise ValueError(f"no '{title}' row in the page text")
    return cells


def _side_values(cells: list[str]) -> dict[str, list[float]]:
    """{side label: its values} from a row's cells ("FP4:1064.0INT4:495.8"), in order."""
    values: dict[str, list[float]] = {}
    for cell in cells:
        for label, number in _CELL.findall(cell):
            values.setdefault(label.strip(), []).append(float(number))
    return values


def published_points(
    text: str,
    identity: Mapping[str, Any],
    vary: str,
    sides: Mapping[str, str],
) -> list[dict[str, Any]]:
    """Native records for a page's table: one per side and target, at the target's interactivity."""
    targets, table = parse_published_table(text)
    records = []
    for label, value in sides.items():
        if label not in table["throughput"]:
            raise ValueError(f"side '{label}' is not in the table (it has {', '.join(table['throughput'])})")
        for i, target in enumerate(targets):
            record = dict(identity)
            record[vary] = value
            record.update(
                {
                    "interactivity": target,
                    "throughput_per_gpu": table["throughput"][label][i],
                    "concurrency": int(table["concurrency"][label][i]),
                    "note": f"{label} at {target:g} tok/s/user as published in the page's table",
                }
            )
            records.append(record)
    return records


def import_published(
    page: Path,
    dataset: DatasetInfo,
    identity: Mapping[str, Any],
    vary: str,
    sides: Mapping[str, str],
    out: Path,
) -> int:
    records = published_points(read_named_file(page), identity, vary, sides)
    _write_new(out, native_document(dataset, records))
    return len(records)
