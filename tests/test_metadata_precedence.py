"""One precedence for the metadata of every format (read/load.py, docs/data-format.md): a
record's own value, then the nearest `_meta.yaml`, then the ones above it up to the data folder,
then the data set's `_dataset.yaml`, the farthest layer. Formats read without metadata files
(the native format, InferenceX CSV exports) take the record's, then the data set's.

The field is the workload label, the one field every layer can give. Each case is a real result
file of tests/fixtures/clients (or tests/fixtures/native; sources and licences in the READMEs
there) copied into a project with its fixture's own `_meta.yaml` as the farther layer; the
`_dataset.yaml`, the labels and the nearer `_meta.yaml` are generated here.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import pytest

from site_builder.problems import Cause, ProblemLog
from site_builder.read.load import load_results

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLIENTS = FIXTURES / "clients"
ATTRIBUTION = "id: precedence\ntitle: Precedence test\nsource: tests/fixtures\n"
LAYERS = ("dataset", "far", "near")  # farthest first
RECORD_LABEL = "record-label"


@dataclass(frozen=True)
class Case:
    """A result file (under `fixture`) and the folder of the fixture's own metadata file (the
    file keeps its path below that folder, as layouts that name a benchmark need)."""

    fixture: str
    result: str
    reads_metadata_files: bool = True


CASES = {
    "vllm": Case("vllm-bench-serve", "openai-chat-infqps-concurrency8-DeepSeek-R1-0528-20261022-101500.json"),
    "sglang": Case("sglang-request-rate", "llama_3_3_70b_online_output.jsonl"),
    "genai-perf": Case("genai-perf", "c8/profile_export_genai_perf.json"),
    "aiperf": Case("aiperf-records", "run1/profile_export_aiperf.json"),
    "guidellm": Case("guidellm-v1", "sync-tp4/Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json"),
    "llmperf": Case("llmperf", "result_01-ai_Yi-1.5-34B-Chat_8/01-ai-Yi-1-5-34B-Chat_550_150_summary.json"),
    "mlperf": Case(
        "mlperf/results/8xMI300X_2xEPYC-9374F",
        "llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt",
    ),
    "inferencex-agg": Case("inferencex-agg-no-prefix", "results.json"),
    "inferencex-csv": Case("inferencex-csv", "InferenceX_Kimi-K2.5_interactivity.csv", False),
    "native-json": Case("../native", "points.json", False),
    "native-csv": Case("../native", "typed-in.csv", False),
}


def _project(tmp_path: Path, case: Case, given: dict[str, str]) -> Path:
    """data/results/near/<result>, the fixture's metadata (if any) in data/results/_meta.yaml,
    and each layer's label where `given` names one."""
    results = tmp_path / "data" / "results"
    target = results / "near" / case.result
    target.parent.mkdir(parents=True)
    _copy_with_a_record_label(CLIENTS / case.fixture / case.result, target)
    own = CLIENTS / case.fixture / "_meta.yaml"
    far = own.read_text() if own.is_file() else ""
    texts = {
        "dataset": (results / "_dataset.yaml", ATTRIBUTION),
        "far": (results / "_meta.yaml", far),
        "near": (results / "near" / "_meta.yaml", ""),
    }
    for layer, (path, text) in texts.items():
        label = f"workload: {given[layer]}\n" if layer in given else ""
        if text or label:
            path.write_text(text + label)
    return tmp_path / "data"


def _copy_with_a_record_label(source: Path, target: Path) -> None:
    """A native file with its first record labelled (a record's own value); any other as it is."""
    if source.parent.name != "native":
        shutil.copy(source, target)
    elif source.suffix == ".json":  # its points as a list, so that the `_dataset.yaml` attributes them
        points = json.loads(source.read_text())["points"]
        points[0]["workload"] = RECORD_LABEL
        target.write_text(json.dumps(points))
    else:
        rows = list(csv.DictReader(io.StringIO(source.read_text())))
        for n, row in enumerate(rows):
            row["workload"] = RECORD_LABEL if n == 0 else ""
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        target.write_text(out.getvalue())


def _record_labels(case: Case) -> dict[str, str | None]:
    """What the records themselves say, by record: a native file's first record its label, an
    SGLang line its dataset (`random`: fixed-length, no label; any other its name)."""
    source = CLIENTS / case.fixture / case.result
    if source.parent.name == "native":
        return {"record 1" if source.suffix == ".json" else "line 2": RECORD_LABEL}
    if case.fixture.startswith("sglang"):
        lines = enumerate(source.read_text().split("\n"), 1)
        named = {f"line {n}": json.loads(line)["dataset_name"] for n, line in lines if line.strip()}
        return {record: None if name == "random" else name for record, name in named.items()}
    return {}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize(
    "given",
    list(product((False, True), repeat=3)),
    ids=lambda g: "".join("DFN"[i] if on else "-" for i, on in enumerate(g)),
)
def test_the_nearest_layer_that_gives_a_label_wins_in_every_format(
    tmp_path: Path, name: str, given: tuple[bool, bool, bool]
) -> None:
    case = CASES[name]
    labels = {layer: f"{layer}-label" for layer, on in zip(LAYERS, given, strict=True) if on}
    log = ProblemLog()
    records = load_results(_project(tmp_path, case, labels), log).table.records(
        columns=("record", "workload")
    )
    assert records and not log.errors
    consulted = LAYERS if case.reads_metadata_files else ("dataset",)
    from_metadata = next((labels[layer] for layer in reversed(consulted) if layer in labels), None)
    own = _record_labels(case)
    expected = {r["record"]: own.get(r["record"], from_metadata) for r in records}
    assert {r["record"]: r["workload"] for r in records} == expected


def test_a_missing_metadata_field_is_one_error_a_folder_by_its_cause(tmp_path: Path) -> None:
    """The real llmperf summaries under a `_meta.yaml` without the model or the framework: each
    is one error for the folder, marked as a missing field (not told from its words)."""
    for n, summary in enumerate(sorted((CLIENTS / "llmperf").glob("*/*_summary.json"))):
        shutil.copy(summary, tmp_path / f"run{n}.json")
    (tmp_path / "_meta.yaml").write_text("hardware: a10g\nprecision: bf16\ntp: 4\n")
    log = ProblemLog()
    load_results(tmp_path, log)
    assert sorted(p.field.rsplit(": ", 1)[-1] for p in log.errors) == ["framework", "model"]
    assert all(p.cause is Cause.MISSING and p.file == f"{tmp_path.name}/" for p in log.errors)


def test_aggregate_rows_under_an_unreadable_metadata_file_are_not_read_without_it(tmp_path: Path) -> None:
    """The real aggregate rows need their `_meta.yaml` (no model prefix, no lengths): where it
    cannot be read, its error is said once, naming it, and the rows wait for it rather than each
    failing on what it would have given (as a client result's do)."""
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(CLIENTS / "inferencex-agg-no-prefix" / "results.json", results / "results.json")
    (results / "_meta.yaml").write_text("model: [llama70b\n")  # not YAML
    log = ProblemLog()
    assert len(load_results(results, log).table) == 0
    (error,) = log.errors
    assert error.file == "results/_meta.yaml"
