"""Evaluation results (accuracy on a benchmark task): the `EvalRun` model, which comparison side
each run belongs to (`runs_for_side`), and the formats they are read from: lm-evaluation-harness
files, InferenceX evaluation rows, native scores.

An `EvalRun` is one evaluation of one served configuration on one task: a score with its
standard error or number of questions, and, where the harness logged them, the per-question
scores.

Like the benchmark formats (formats.py), each is recognised by the keys of its records,
never by a file name, and every problem names file, record and field. A format reads a whole
file's records (a results file is one record; a samples log is one record per question):

- `lm-eval-results`: `results_<date>.json` of lm-evaluation-harness (0.4): per task its metrics
  as `"<metric>,<filter>"` with `"<metric>_stderr,<filter>"` companions, `n-samples`,
  `higher_is_better`, `configs`, `config` (model arguments) and `date`. The harness cannot know
  the hardware, precision or engine: a metadata file beside it gives them, as for raw benchmark
  results. One primary metric per task is kept (the task's first metric and first filter).
- `lm-eval-samples`: `samples_<task>_<date>.jsonl` written with `--log_samples`: one line per
  question and filter with `doc_id`, `doc_hash` and the metric's per-question value. It is
  attached to the results file of the same folder and date, so the two sides of a page can be
  compared question by question.
- `inferencex-evals`: the InferenceX dashboard's evaluation rows (`hw`, `task`, `score`,
  `score_name`, `score_se`, `n_eff`, …).
- `native-evals`: our own score records (docs/data-format.md), for typed-in results.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from site_builder.content import FilterValue
from site_builder.files import Identifier
from site_builder.filters import accepts as filter_accepts
from site_builder.read.fields import (
    RecordContext,
    as_mapping,
    date_from_stamp,
    normalise_framework,
    normalise_hardware,
    normalise_model,
    normalise_precision,
    normalise_spec_method,
    objects,
    parse_bool,
    read_number,
)
from site_builder.read.provenance import Frozen, Provenance
from site_builder.read.serving import RunMetadata

# What harnesses call the same measurement: InferenceX's names → lm-evaluation-harness's.
METRIC_ALIASES = {
    "em_strict": "exact_match,strict-match",
    "em_flexible": "exact_match,flexible-extract",
}
METRIC_LABELS = {
    "exact_match,strict-match": "exact match, strict",
    "exact_match,flexible-extract": "exact match, flexible extraction",
}
TASK_NAMES = {"gsm8k": "GSM8K", "mmlu": "MMLU", "gpqa": "GPQA", "math500": "MATH-500", "aime24": "AIME 2024"}


def canonical_metric(name: str) -> str:
    key = name.strip()
    return METRIC_ALIASES.get(key.lower(), key)


def metric_label(metric: str) -> str:
    if metric in METRIC_LABELS:
        return METRIC_LABELS[metric]
    name, _, flt = metric.partition(",")
    name = name.replace("_", " ")
    return name if flt in ("", "none") else f"{name}, {flt.replace('-', ' ')}"


def task_name(task: str) -> str:
    return TASK_NAMES.get(task.lower(), task)


class EvalRun(Frozen):
    """One evaluation of one serving configuration on one task."""

    model: Identifier
    hardware: Identifier | None = None  # None: the source does not say where it ran
    precision: Identifier
    spec_method: Identifier = "none"
    framework: Identifier | None = None
    task: Identifier
    metric: Identifier
    higher_is_better: bool = True
    score: float = Field(ge=0.0, le=1.0, description="the proportion right: 0.955 for 95.5%")
    stderr: float | None = Field(default=None, ge=0.0, le=0.5)
    questions: int | None = Field(default=None, gt=0)
    setup: str | None = None  # the serving configuration and harness settings, for people
    per_question: tuple[tuple[str, float], ...] | None = None  # (question id, score), from a samples log
    provenance: Provenance

    @field_validator("score", "stderr")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @property
    def date(self) -> str | None:
        return self.provenance.date

    def per_question_map(self) -> dict[str, float] | None:
        return dict(self.per_question) if self.per_question is not None else None


@dataclass(frozen=True)
class SideRuns:
    """The runs attached to one side, and whether they ran on other hardware than the side's."""

    runs: tuple[EvalRun, ...]
    other_hardware: bool


def _same(value: str | None, wanted: FilterValue | None) -> bool:
    """An unset filter accepts anything; a set one, only a value it names (select.filter_accepts)."""
    return wanted is None or filter_accepts(value, wanted)


def runs_for_side(
    runs: Iterable[EvalRun],
    filters: Mapping[str, FilterValue],
    precisions: Sequence[str],
    spec_methods: Sequence[str],
) -> SideRuns:
    """Runs of the side's model at the precisions and speculative methods its points use.

    The side's own filters for framework narrow the runs too. Runs on the side's hardware are
    preferred; only where there are none do runs of the same model, precision and method on
    any hardware stand in, and the page says so.
    """
    wanted_precisions = set(map(str.lower, precisions))
    wanted_methods = set(map(str.lower, spec_methods))
    candidates = [
        r
        for r in runs
        if _same(r.model, filters.get("model"))
        and r.precision.lower() in wanted_precisions
        and r.spec_method.lower() in wanted_methods
        and _same(r.framework, filters.get("framework"))
    ]
    here = [r for r in candidates if _same(r.hardware, filters.get("hardware"))]
    if here:
        return SideRuns(tuple(here), other_hardware=False)
    return SideRuns(tuple(candidates), other_hardware=bool(candidates))


# -- reading evaluation files ------------------------------------------------------------------

Records = Sequence[tuple[str, Any]]  # (record label, record) as the file loader read them
_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)")

NATIVE_EVAL_COLUMNS = (
    "model",
    "hardware",
    "precision",
    "spec_method",
    "framework",
    "task",
    "metric",
    "score",
    "stderr",
    "questions",
    "higher_is_better",
    "setup",
    "date",
    "run_url",
    "note",
)


@dataclass
class SampleLog:
    """Per-question scores of one task from one run, waiting for their results file."""

    display: str
    folder: Path
    stamp: str
    task: str
    scores: dict[tuple[str, str], dict[str, float]] = field(
        default_factory=dict
    )  # (filter, metric) → id → score


@dataclass
class EvalFile:
    """What one file gave: runs, or a samples log, with the file's own date stamp."""

    runs: list[tuple[EvalRun, str]] = field(default_factory=list)  # (run, file stamp for samples)
    samples: SampleLog | None = None


@dataclass(frozen=True)
class FileInfo:
    """What a reader may need beyond the records: the file, its dataset and its metadata."""

    path: Path
    display: str
    dataset: str
    metadata: Callable[[], tuple[RunMetadata, str] | None]  # loads the metadata file when asked


Reader = Callable[[Records, FileInfo, Callable[[str], RecordContext]], EvalFile]


@dataclass(frozen=True)
class EvalFormat:
    name: str
    title: str
    detect: Callable[[set[str]], bool]  # the first record's keys
    read: Reader


# -- shared ---------------------------------------------------------------------------------------


def _run(
    values: Mapping[str, Any], names: Mapping[str, str], ctx: RecordContext, provenance: Provenance
) -> EvalRun | None:
    """Validate one run, naming the user's field for every problem."""
    try:
        return EvalRun.model_validate({**values, "provenance": provenance})
    except ValidationError as exc:
        for err in exc.errors():
            ours = str(err["loc"][0]) if err["loc"] else ""
            ctx.error(names.get(ours, ours), err["msg"])
        return None


def _whole(value: Any, name: str, ctx: RecordContext) -> int | None:
    number = read_number(value, name, ctx, whole=True)
    return None if number is None else int(number)


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def file_stamp(name: str) -> str:
    """'results_2026-01-21T00-34-31.779836.json' → '2026-01-21T00-34-31.779836' (or '')."""
    match = _STAMP.search(name)
    return match.group(1) if match else ""


def _date_of(stamp: str) -> str | None:
    return stamp[:10] if stamp else None


# -- lm-evaluation-harness results ------------------------------------------------------------------


def _model_from_args(config: Mapping[str, Any]) -> str | None:
    """The served model's name from the harness's `model_args` (a string or a mapping)."""
    args = config.get("model_args")
    if isinstance(args, Mapping):
        for key in ("pretrained", "model", "model_name"):
            if isinstance(args.get(key), str):
                return str(args[key])
        return None
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("pretrained", "model", "model_name") and value.strip():
                return value.strip()
    return None


def _lookup(value: Any, *keys: str) -> Any:
    """value[key][key]…: None where a step is missing or not an object."""
    for key in keys:
        value = as_mapping(value).get(key)
    return value


def _names(entries: Any, key: str) -> list[Any]:
    """Each object's `key` in a list of objects (none when it is not a list)."""
    return (
        [entry.get(key) for entry in entries if isinstance(entry, Mapping)]
        if isinstance(entries, list)
        else []
    )


def _primary_metric(task: str, values: Mapping[str, Any], configs: Mapping[str, Any]) -> str | None:
    """The task's headline '<metric>,<filter>': its config's first metric and first filter."""
    config = as_mapping(configs.get(task))
    filters = [*_names(config.get("filter_list"), "name"), "none"]
    for name in _names(config.get("metric_list"), "metric"):
        for flt in filters:
            key = f"{name},{flt}"
            if key in values:
                return key
    return next(
        (k for k, v in values.items() if "," in k and "_stderr," not in k and not isinstance(v, (str, bool))),
        None,
    )


def _top_level_tasks(document: Mapping[str, Any]) -> list[str]:
    results = document.get("results")
    assert isinstance(results, Mapping)
    groups = as_mapping(document.get("group_subtasks")).values()
    members = {str(s) for subtasks in groups if isinstance(subtasks, list) for s in subtasks}
    return [str(t) for t in results if str(t) not in members]


def _harness_date(document: Mapping[str, Any], stamp: str) -> str | None:
    value = document.get("date")
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 32503680000:
        return datetime.fromtimestamp(float(value), UTC).date().isoformat()
    return date_from_stamp(value) or _date_of(stamp)


def _settings(document: Mapping[str, Any], task: str) -> str:
    parts = []
    shots = _lookup(document, "n-shot", task)
    if isinstance(shots, int):
        parts.append(f"{shots}-shot")
    generation = as_mapping(_lookup(document, "configs", task, "generation_kwargs"))
    temperature = generation.get("temperature")
    # a temperature is a number: `temperature: false` says nothing about sampling (False == 0)
    numeric = isinstance(temperature, int | float) and not isinstance(temperature, bool)
    if generation.get("do_sample") is False or (numeric and temperature == 0):
        parts.append("greedy")
    elif numeric:
        parts.append(f"temperature {temperature}")
    version = document.get("lm_eval_version")
    parts.append(f"lm-evaluation-harness {version}" if isinstance(version, str) else "lm-evaluation-harness")
    return ", ".join(parts)


def _framework_name(value: str | None) -> str | None:
    """The framework's key, where the source names one."""
    return normalise_framework(value)[0] if value else None


def _serving_setup(framework: str | None, tp: Any, ep: Any, dp_attention: bool) -> str:
    """'sglang TP8 EP8 DPA': the serving configuration, for people."""
    parts = [framework]
    if tp:
        parts.append(f"TP{tp}")
    if isinstance(ep, int) and ep > 1:
        parts.append(f"EP{ep}")
    if dp_attention:
        parts.append("DPA")
    return " ".join(p for p in parts if p)


def _metadata_setup(meta: RunMetadata) -> str:
    text = _serving_setup(meta.framework, meta.tp, meta.ep, bool(meta.dp_attention))
    if meta.concurrency:
        text += f"{', ' if text else ''}concurrency {meta.concurrency}"
    return text


def _joined(*parts: str | None) -> str:
    """The parts that say something, separated by semicolons."""
    return "; ".join(p for p in parts if p)


@dataclass(frozen=True)
class _Served:
    """What the metadata file beside a results file says about the runs in it."""

    meta: RunMetadata
    display: str  # the metadata file, for messages
    model: str
    setup: str


def _served(document: Mapping[str, Any], info: FileInfo, ctx: RecordContext) -> _Served | None:
    """The serving configuration of a results file: its metadata file, and the model it names."""
    loaded = info.metadata()
    if loaded is None:
        return None
    meta, meta_display = loaded
    served = _text(document.get("model_name")) or _model_from_args(as_mapping(document.get("config")))
    found = normalise_model(None, served)
    model = meta.model or (found if isinstance(found, str) else None)
    if model is None:
        ctx.error(
            "model_name",
            f"cannot tell which model {served!r} is: give `model:` (the model key) in {meta_display}",
        )
        return None
    return _Served(meta, meta_display, model, _joined(_metadata_setup(meta), _text(meta.note)))


def read_harness_results(
    records: Records, info: FileInfo, context: Callable[[str], RecordContext]
) -> EvalFile:
    """One `results_*.json`: a run per top-level task, identity from the metadata file."""
    out = EvalFile()
    label, document = records[0]
    ctx = context(label)
    if not isinstance(document.get("results"), Mapping):
        ctx.error("results", "missing or not an object")
        return out
    served = _served(document, info, ctx)
    if served is None:
        return out
    stamp = file_stamp(info.path.name)
    for task in _top_level_tasks(document):
        run = _harness_run(document, task, served, info, stamp, context(f"results.{task}"))
        if run is not None:
            out.runs.append((run, stamp))
    return out


def _harness_run(
    document: Mapping[str, Any], task: str, served: _Served, info: FileInfo, stamp: str, ctx: RecordContext
) -> EvalRun | None:
    """The run of one task of a results file: its primary metric, if that is a proportion."""
    where = f"results.{task}"
    values = document["results"].get(task)
    if not isinstance(values, Mapping):
        ctx.error(where, "not an object")
        return None
    metric = _primary_metric(task, values, as_mapping(document.get("configs")))
    if metric is None:
        ctx.notice(where, "no numeric metric: task skipped")
        return None
    name, _, flt = metric.partition(",")
    score = read_number(values.get(metric), f"{where}.{metric}", ctx, required=True)
    stderr_key = f"{name}_stderr,{flt}"
    stderr = read_number(values.get(stderr_key), f"{where}.{stderr_key}", ctx)
    if score is None:
        return None
    if not 0.0 <= score <= 1.0:
        ctx.notice(
            f"{where}.{metric}",
            f"{score:g} is not a proportion between 0 and 1: only accuracy-like scores are shown; "
            "task skipped",
        )
        return None
    counts = as_mapping(_lookup(document, "n-samples", task))
    meta, meta_display = served.meta, served.display
    return _run(
        {
            "model": served.model,
            "hardware": normalise_hardware(meta.hardware),
            "precision": normalise_precision(meta.precision),
            "spec_method": normalise_spec_method(meta.spec_method),
            "framework": _framework_name(meta.framework),
            "task": task,
            "metric": metric,
            "higher_is_better": bool(as_mapping(_lookup(document, "higher_is_better", task)).get(name, True)),
            "score": score,
            "stderr": stderr,
            "questions": counts.get("effective", counts.get("original")),
            "setup": _joined(served.setup, _settings(document, task)),
        },
        {
            "score": f"{where}.{metric}",
            "stderr": f"{where}.{stderr_key}",
            "questions": f"n-samples.{task}.effective",
            "model": "model",
            "hardware": f"hardware (in {meta_display})",
            "precision": f"precision (in {meta_display})",
        },
        ctx,
        Provenance(
            dataset=info.dataset,
            source_file=info.display,
            record=where,
            date=meta.date or _harness_date(document, stamp),
            run_url=meta.run_url,
            note=f"metadata: {meta_display}",
        ),
    )


# -- lm-evaluation-harness per-sample logs ------------------------------------------------------------


def read_harness_samples(
    records: Records, info: FileInfo, context: Callable[[str], RecordContext]
) -> EvalFile:
    """One `samples_<task>_<date>.jsonl`: per-question scores by filter and metric."""
    stamp = file_stamp(info.path.name)
    match = re.match(r"samples_(.+?)_" + re.escape(stamp), info.path.name) if stamp else None
    if match is None:
        context("").error(
            "", "a samples log is matched to its results file by its name: samples_<task>_<date>.jsonl"
        )
        return EvalFile()
    log = SampleLog(info.display, info.path.parent, stamp, match.group(1))
    for label, row in records:
        ctx = context(label)
        if isinstance(row, Mapping) and "doc_id" in row:
            _add_sample(log, row, ctx)
        else:
            ctx.error("doc_id", "missing: not a samples-log line")
    return EvalFile(samples=log)


def _sample_metrics(row: Mapping[str, Any]) -> list[str]:
    """The metrics a samples-log line scores: those it lists, or else its numeric fields."""
    names = row.get("metrics")
    listed = [m for m in names if isinstance(m, str)] if isinstance(names, list) else []
    return listed or [
        k for k, v in row.items() if isinstance(v, int | float) and not isinstance(v, bool) and k != "doc_id"
    ]


def _add_sample(log: SampleLog, row: Mapping[str, Any], ctx: RecordContext) -> None:
    """One question's scores, under its filter and metric."""
    question = _text(row.get("doc_hash")) or str(row.get("doc_id"))
    flt = _text(row.get("filter")) or "none"
    for name in _sample_metrics(row):
        value = read_number(row.get(name), name, ctx)
        if value is None:
            continue
        scores = log.scores.setdefault((flt, name), {})
        if question in scores:
            ctx.error("doc_id", f"question {question} appears twice for filter {flt}")
            continue
        scores[question] = value


def attach_samples(
    runs: list[tuple[EvalRun, str, Path]], logs: Sequence[SampleLog], warn: Callable[[str, str], None]
) -> list[EvalRun]:
    """Each run with the per-question scores of its samples log, where one matches it exactly."""
    by_key = {(log.folder, log.stamp, log.task): log for log in logs}  # of two alike, the last
    used: set[tuple[Path, str, str]] = set()
    attached: list[EvalRun] = []
    for run, stamp, folder in runs:
        key = (folder, stamp, run.task)
        log = by_key.get(key)  # no log has an empty stamp: none for a run without one
        if log is not None:
            used.add(key)
            run = _with_samples(run, log, warn)
        attached.append(run)
    for log in logs:
        key = (log.folder, log.stamp, log.task)
        if key not in used or by_key[key] is not log:
            warn(log.display, f"no results_{log.stamp}.json with task '{log.task}' beside it: log not used")
    return attached


def _with_samples(run: EvalRun, log: SampleLog, warn: Callable[[str, str], None]) -> EvalRun:
    """The run with its log's per-question scores, if they are the run's metric and agree with its score."""
    name, _, flt = run.metric.partition(",")
    scores = log.scores.get((flt or "none", name))
    if not scores:
        warn(log.display, f"no per-question '{name}' for filter '{flt}': the run is compared without it")
        return run
    mean = sum(scores.values()) / len(scores)
    if abs(mean - run.score) > 1e-6 or (run.questions is not None and run.questions != len(scores)):
        warn(
            log.display,
            f"its {len(scores)} questions average {mean:.6f}, but {run.provenance.source_file} reports "
            f"{run.score:.6f} over {run.questions} questions: the log is not used",
        )
        return run
    return run.model_copy(update={"per_question": tuple(sorted(scores.items()))})


# -- InferenceX evaluation rows ----------------------------------------------------------------------


def _inferencex_model(row: Mapping[str, Any]) -> str | None:
    prefix, path = row.get("model_prefix"), row.get("model")
    model = normalise_model(
        prefix if isinstance(prefix, str) else None, path if isinstance(path, str) else None
    )
    if model is None and isinstance(path, str):
        # amd/DeepSeek-R1-0528-MXFP4-Preview: a preview of a known checkpoint
        model = normalise_model(None, re.sub(r"-preview$", "", path.strip(), flags=re.IGNORECASE))
    return model if isinstance(model, str) else None


def _flag(value: Any) -> bool:
    """A yes/no field; one that is not a boolean counts as no."""
    try:
        return parse_bool(value)
    except ValueError:
        return False


def _inferencex_setup(row: Mapping[str, Any], framework: str | None) -> str:
    parts = [_serving_setup(framework, row.get("tp"), row.get("ep"), _flag(row.get("dp_attention", False)))]
    if row.get("conc") is not None:
        parts.append(f"concurrency {row['conc']}")
    parts.append("lm-evaluation-harness")
    return ", ".join(part for part in parts if part)  # no leading ", " where the serving setup is unknown


def read_inferencex_evals(
    records: Records, info: FileInfo, context: Callable[[str], RecordContext]
) -> EvalFile:
    out = EvalFile()
    for label, row, ctx in objects(records, context):
        model = _inferencex_model(row)
        if model is None:
            ctx.error("model", f"unknown model {row.get('model')!r} and no model_prefix")
            continue
        framework = _framework_name(_text(row.get("framework")))
        source = _text(row.get("source"))
        hardware = _text(row.get("hw"))
        run = _run(
            {
                "model": model,
                "hardware": normalise_hardware(hardware) if hardware else None,
                "precision": normalise_precision(str(row.get("precision", ""))),
                "spec_method": normalise_spec_method(row.get("spec_decoding")),
                "framework": framework,
                "task": _text(row.get("task")) or "",
                "metric": canonical_metric(_text(row.get("score_name")) or "score"),
                "score": read_number(row.get("score"), "score", ctx, required=True),
                "stderr": read_number(row.get("score_se"), "score_se", ctx),
                "questions": _whole(row.get("n_eff"), "n_eff", ctx),
                "setup": _inferencex_setup(row, framework),
            },
            {"hardware": "hw", "spec_method": "spec_decoding", "stderr": "score_se", "questions": "n_eff"},
            ctx,
            Provenance(
                dataset=info.dataset,
                source_file=info.display,
                record=label or "whole file",
                date=date_from_stamp(row.get("timestamp")) or _date_of(file_stamp(source or "")),
                note=f"harness result {source}" if source else None,
            ),
        )
        if run is not None:
            out.runs.append((run, ""))
    return out


# -- native score records ---------------------------------------------------------------------------


# The text fields a record may give, each as it is kept: a key normalised, any other as written.
_NATIVE_KEYS: dict[str, Callable[[str], str | None]] = {
    "model": str,
    "hardware": normalise_hardware,
    "precision": normalise_precision,
    "framework": _framework_name,
    "task": str,
    "setup": str,
}


def native_eval_values(row: Mapping[str, Any], ctx: RecordContext) -> dict[str, Any]:
    ctx.unknown_fields(row, NATIVE_EVAL_COLUMNS)
    values: dict[str, Any] = {
        key: normalise(row[key]) for key, normalise in _NATIVE_KEYS.items() if _text(row.get(key))
    }
    values["spec_method"] = normalise_spec_method(row.get("spec_method"))
    values["metric"] = canonical_metric(_text(row.get("metric")) or "score")
    values["score"] = read_number(row.get("score"), "score", ctx, required=True)
    values["stderr"] = read_number(row.get("stderr"), "stderr", ctx)
    values["questions"] = _whole(row.get("questions"), "questions", ctx)
    if row.get("higher_is_better") not in (None, ""):
        try:
            values["higher_is_better"] = parse_bool(row["higher_is_better"])
        except ValueError as exc:
            ctx.error("higher_is_better", str(exc))
    return values


def read_native_evals(records: Records, info: FileInfo, context: Callable[[str], RecordContext]) -> EvalFile:
    out = EvalFile()
    for label, row, ctx in objects(records, context):
        values = native_eval_values(row, ctx)
        if values["score"] is not None and values["stderr"] is None and values["questions"] is None:
            ctx.error("stderr", "give the standard error or the number of questions (questions), or both")
        provenance = Provenance(
            dataset=info.dataset,
            source_file=info.display,
            record=label or "whole file",
            date=date_from_stamp(row.get("date")),
            run_url=_text(row.get("run_url")),
            note=_text(row.get("note")),
        )
        run = _run(values, {}, ctx, provenance)
        if run is not None:
            out.runs.append((run, ""))
    return out


def looks_native_eval(keys: set[str]) -> bool:
    return {"task", "score", "model"} <= keys and "throughput_per_gpu" not in keys


EVAL_FORMATS: tuple[EvalFormat, ...] = (
    EvalFormat(
        name="lm-eval-results",
        title="an lm-evaluation-harness results file",
        detect=lambda keys: (
            "results" in keys
            and bool({"configs", "versions", "n-samples", "n-shot", "lm_eval_version", "config"} & keys)
        ),
        read=read_harness_results,
    ),
    EvalFormat(
        name="lm-eval-samples",
        title="an lm-evaluation-harness samples log",
        detect=lambda keys: "doc_id" in keys and bool({"filtered_resps", "resps", "doc_hash"} & keys),
        read=read_harness_samples,
    ),
    EvalFormat(
        name="inferencex-evals",
        title="an InferenceX evaluation row",
        detect=lambda keys: {"hw", "task"} <= keys and bool({"score", "em_strict"} & keys),
        read=read_inferencex_evals,
    ),
    EvalFormat(
        name="native-evals",
        title="a native score record",
        detect=looks_native_eval,
        read=read_native_evals,
    ),
)


def detect(records: Records) -> EvalFormat | None:
    """The evaluation format of a file, judged by its first record's keys (None: not an evaluation)."""
    first = next((row for _, row in records if isinstance(row, Mapping)), None)
    if first is None:
        return None
    keys = {str(k) for k in first}
    return next((f for f in EVAL_FORMATS if f.detect(keys)), None)


BY_NAME: dict[str, EvalFormat] = {f.name: f for f in EVAL_FORMATS}
