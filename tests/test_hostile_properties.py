"""Property tests for issue 11: hostile values and structures fed to every loader, the stub and
settings parsers, the catalog and the engine. Whatever the input: no exception, every problem
names its file, every accepted number is finite and within the numeric rule, and every message
is short and printable."""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from site_builder.catalog import load_hardware
from site_builder.content import load_site_config, read_stub
from site_builder.engine.compare import Constants, compare_sequence
from site_builder.files import LIMIT
from site_builder.formatting import fixed
from site_builder.problems import ProblemLog
from site_builder.read import native
from site_builder.read.load import load_results
from site_builder.read.table import PointTable
from tests.conftest import ROOT, STUB
from tests.factories import point, side_points
from tests.test_hostile import native_json

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

hostile_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1e308, -1e308, 5e-324, 10**30, 2**63, -(2**63)]),
    st.integers(),
)
hostile_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "\x00", "a\x1b[31m", "\u202e", "NaN", "Infinity", "-inf", "1e999", "9" * 400]),
)
hostile_scalars = st.one_of(st.none(), st.booleans(), hostile_numbers, hostile_text)
hostile_values = st.recursive(
    hostile_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)

NATIVE_FIELDS = [
    *native.REQUIRED_COLUMNS,
    "median_tpot_ms",
    "p99_ttft_ms",
    "avg_power_w",
    "gpu_count",
    "note",
]
GOOD: dict[str, Any] = json.loads(native_json())[0]


def _json_text(value: Any) -> str:
    """JSON as a hostile file would hold it: NaN and Infinity written out, huge integers too."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


def _fresh(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "data"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder / name


def assert_points_sane(table: PointTable) -> None:
    for p in table.records():
        for key in (
            "throughput_per_gpu",
            "interactivity",
            "output_throughput_per_gpu",
            "input_throughput_per_gpu",
        ):
            assert p[key] is None or (math.isfinite(p[key]) and abs(p[key]) <= LIMIT)
        assert p["throughput_per_gpu"] > 0 and p["interactivity"] > 0 and p["concurrency"] > 0
        assert all(c.isprintable() for c in p["model"] + p["hardware"] + p["precision"])


def assert_problems_clean(log: ProblemLog, file: str) -> None:
    for problem in log.problems:
        text = str(problem)
        assert problem.file.endswith(file), text
        assert text.isprintable() and len(text) < 3000, text


@SETTINGS
@given(st.dictionaries(st.sampled_from(NATIVE_FIELDS), hostile_values, max_size=6))
def test_native_json_records_never_raise_or_load_a_bad_number(
    tmp_path: Path, changes: dict[str, Any]
) -> None:
    path = _fresh(tmp_path, "points.json")
    path.write_text(_json_text([{**GOOD, **changes}]))
    result = load_results(path.parent)
    assert_points_sane(result.table)
    assert_problems_clean(result.log, "data/points.json")
    assert len(result.table) + bool(result.log.errors) == 1


@SETTINGS
@given(
    st.lists(st.sampled_from(list(GOOD)), min_size=1, max_size=3),
    st.lists(hostile_text, min_size=3, max_size=3),
)
def test_native_csv_cells_never_raise(tmp_path: Path, columns: list[str], cells: list[str]) -> None:
    row = dict(GOOD)
    for column, cell in zip(columns, cells, strict=False):
        row[column] = cell
    text = (
        ",".join(row) + "\n" + ",".join(json.dumps(str(v), ensure_ascii=False) for v in row.values()) + "\n"
    )
    path = _fresh(tmp_path, "lab.csv")
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    result = load_results(path.parent)
    assert_points_sane(result.table)
    assert_problems_clean(result.log, "data/lab.csv")


def _fixture_rows(relative: str) -> list[dict[str, Any]]:
    document = json.loads((ROOT / "tests" / "fixtures" / relative).read_text())
    return document if isinstance(document, list) else [document]


INFERENCEX = [
    (
        "inferencex-api/benchmarks-excerpt.json",
        ["model", "hardware", "framework", "precision", "conc", "metrics", "prefill_tp"],
    ),
    (
        "agg/agg_dsr1_fp8_h200_trt_1k1k_v1.json",
        ["infmax_model_prefix", "model", "hw", "tp", "tput_per_gpu", "median_tpot", "conc", "isl"],
    ),
]


@SETTINGS
@given(st.sampled_from(INFERENCEX), st.data())
def test_inferencex_rows_never_raise(
    tmp_path: Path, case: tuple[str, list[str]], data: st.DataObject
) -> None:
    relative, keys = case
    row = dict(_fixture_rows(relative)[0])
    for key in data.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3)):
        row[key] = data.draw(hostile_values)
    path = _fresh(tmp_path, "rows.json")
    path.write_text(_json_text([row]))
    result = load_results(path.parent)
    assert_points_sane(result.table)
    assert_problems_clean(result.log, "data/rows.json")


SERVING = [
    ("vllm/kimi_fp4_b200_c16.json", "vllm/kimi_fp4_b200_c16.meta.yaml", "run.json", "run.meta.yaml"),
    ("sglang/qwen35_mxfp4_mtp_isl32768_osl1024.jsonl", "sglang/_meta.yaml", "run.jsonl", "_meta.yaml"),
    (
        "clients/llmperf/result_01-ai_Yi-1.5-34B-Chat_8/01-ai-Yi-1-5-34B-Chat_550_150_summary.json",
        "clients/llmperf/_meta.yaml",
        "run.json",
        "_meta.yaml",
    ),
]
SERVING_KEYS = [
    "max_concurrency",
    "total_token_throughput",
    "output_throughput",
    "median_tpot_ms",
    "completed",
    "server_info",
    "total_throughput",
    "num_concurrent_requests",
    "results_mean_output_throughput_token_per_s",
    "results_number_output_tokens_mean",
    "results_num_requests_started",
    "timestamp",
]


@SETTINGS
@given(
    st.sampled_from(SERVING),
    st.dictionaries(st.sampled_from(SERVING_KEYS), hostile_values, max_size=3),
    st.dictionaries(
        st.sampled_from(["tp", "gpu_count", "isl", "hardware", "model"]), hostile_values, max_size=2
    ),
)
def test_vllm_and_sglang_results_and_their_metadata_never_raise(
    tmp_path: Path, case: tuple[str, str, str, str], changes: dict[str, Any], meta_changes: dict[str, Any]
) -> None:
    result_file, meta_file, result_name, meta_name = case
    fixtures = ROOT / "tests" / "fixtures"
    text = (fixtures / result_file).read_text()
    first = text.splitlines()[0] if result_file.endswith(".jsonl") else text  # a JSON Lines file's first
    path = _fresh(tmp_path, result_name)
    record = {**json.loads(first), **changes}
    path.write_text(_json_text(record) + ("\n" + _json_text(record) if result_name.endswith("l") else ""))
    meta = (fixtures / meta_file).read_text() + "".join(
        f"\n{k}: {_json_text(v)}" for k, v in meta_changes.items()
    )
    (path.parent / meta_name).write_text(meta + "\n")
    result = load_results(path.parent)
    assert_points_sane(result.table)
    assert_problems_clean(result.log, "")


STUB_KEYS = [
    "kind",
    "model",
    "hardware",
    "slug",
    "title",
    "targets",
    "sequence",
    "constants",
    "sides",
    "cost_tier",
]


@SETTINGS
@given(st.dictionaries(st.sampled_from(STUB_KEYS), hostile_values, max_size=3))
def test_the_stub_parser_never_raises(tmp_path: Path, changes: dict[str, Any]) -> None:
    front = STUB.split("---")[1].strip().splitlines()
    kept = [line for line in front if line.split(":")[0] not in changes and not line.startswith("  ")]
    if "sides" not in changes:
        kept += [line for line in front if line.startswith("  ") or line.startswith("sides")]
    text = "---\n" + "\n".join(kept + [f"{k}: {_json_text(v)}" for k, v in changes.items()]) + "\n---\nbody\n"
    path = tmp_path / "x.md"
    path.write_text(text)
    log = ProblemLog()
    stub = read_stub(path, "content/x.md", log, tmp_path)
    assert_problems_clean(log, "content/x.md")
    if stub is not None:
        assert stub.slug.isprintable() and len(stub.slug) <= 100
        for target in stub.spec.targets or []:
            assert math.isfinite(target) and target > 0


@SETTINGS
@given(
    st.dictionaries(
        st.sampled_from(["title", "site_url", "keep", "constants", "cost_tier", "auto_pages"]),
        hostile_values,
        max_size=3,
    )
)
def test_the_settings_parser_never_raises(tmp_path: Path, changes: dict[str, Any]) -> None:
    (tmp_path / "site.yaml").write_text("".join(f"{k}: {_json_text(v)}\n" for k, v in changes.items()))
    log = ProblemLog()
    config = load_site_config(tmp_path, log)
    assert_problems_clean(log, "site.yaml")
    if config.site_url is not None:
        assert config.site_url.startswith(("http://", "https://")) and not any(
            c.isspace() for c in config.site_url
        )
    assert all(".." not in k.split("/") and not k.startswith("/") for k in config.keep)


@SETTINGS
@given(st.sampled_from(["watts_all_in", "name", "usd_per_gpu_hour"]), hostile_values)
def test_the_catalog_never_raises_or_holds_a_bad_constant(tmp_path: Path, key: str, value: Any) -> None:
    path = tmp_path / "hardware.yaml"
    path.write_text(f"source: s\nas_of: '2026'\ngpus:\n  h200: {{{key}: {_json_text(value)}}}\n")
    log = ProblemLog()
    catalog = load_hardware(path, log)
    assert_problems_clean(log, "hardware.yaml")
    if catalog is not None:
        spec = catalog.gpus["h200"]
        for number in [spec.watts_all_in, *spec.usd_per_gpu_hour.values()]:
            assert number is None or (math.isfinite(number) and 0 < number <= LIMIT)


sane_positive = st.floats(min_value=1e-3, max_value=LIMIT)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(sane_positive, sane_positive, st.integers(1, 10**6)), min_size=1, max_size=8),
    st.lists(st.tuples(sane_positive, sane_positive, st.integers(1, 10**6)), min_size=1, max_size=8),
    st.tuples(st.floats(min_value=1e-3, max_value=1e4), st.floats(min_value=1.0, max_value=1e5)),
)
def test_the_engine_on_any_input_the_rules_admit_gives_finite_formattable_numbers(
    side_a: list[tuple[float, float, int]],
    side_b: list[tuple[float, float, int]],
    costs: tuple[float, float],
) -> None:
    points = [side_points([point(x, y, c) for x, y, c in side]) for side in (side_a, side_b)]
    constants = [Constants(usd_per_gpu_hour=costs[0], watts_all_in=costs[1])] * 2
    numbers = compare_sequence(1024, 1024, points, constants)
    for pair in numbers.results:
        for at in pair:
            for value in at.values.values():
                if value is not None:
                    assert math.isfinite(value)
                    fixed(value, 3)  # never decimal.InvalidOperation


# -- evaluation results (issue 14's loaders, held to the same rules) ------------------------------

EVAL_ROW: dict[str, Any] = {
    "model": "deepseek-ai/DeepSeek-R1-0528",
    "hw": "B200-TRT",
    "framework": "trt",
    "precision": "fp8",
    "spec_decoding": "none",
    "tp": 8,
    "ep": 1,
    "conc": 64,
    "dp_attention": "false",
    "task": "gsm8k",
    "score": 0.95,
    "score_name": "em_strict",
    "score_se": 0.006,
    "n_eff": 1319,
    "timestamp": "2026-01-20T22:32:06Z",
    "source": "eval_results/x/results_2026-01-20T22-32-06.176867.json",
}
HARNESS = ROOT / "tests" / "fixtures" / "lm-eval" / "fp8" / "deepseek-ai__DeepSeek-R1-0528"


def assert_runs_sane(runs: list[Any]) -> None:
    for run in runs:
        assert 0.0 <= run.score <= 1.0 and math.isfinite(run.score)
        assert run.stderr is None or (math.isfinite(run.stderr) and 0 <= run.stderr <= 0.5)
        assert all(c.isprintable() for c in run.model + (run.hardware or "") + run.precision + run.task)


@SETTINGS
@given(st.dictionaries(st.sampled_from(list(EVAL_ROW)), hostile_values, max_size=5))
@example(changes={"hw": "\x1b"})  # once loaded as a GPU name (found in CI)
@example(changes={"task": "\u202e" + "x" * 80})
def test_inferencex_evaluation_rows_never_raise(tmp_path: Path, changes: dict[str, Any]) -> None:
    path = _fresh(tmp_path, "evals.json")
    path.write_text(_json_text([{**EVAL_ROW, **changes}]))
    result = load_results(path.parent)
    assert_runs_sane(result.evaluations)
    assert_problems_clean(result.log, "data/evals.json")
    assert len(result.evaluations) + bool(result.log.errors) == 1


@SETTINGS
@given(
    st.sampled_from(
        ["results", "n-samples", "higher_is_better", "configs", "date", "config", "group_subtasks"]
    ),
    hostile_values,
    st.one_of(st.none(), hostile_values),
)
def test_harness_results_and_samples_never_raise(
    tmp_path: Path, key: str, value: Any, task_metric: Any
) -> None:
    folder = tmp_path / "data" / "run"
    shutil.rmtree(tmp_path / "data", ignore_errors=True)
    shutil.copytree(HARNESS, folder)
    results = next(folder.glob("results_*.json"))
    document = json.loads(results.read_text())
    document[key] = value
    if task_metric is not None and isinstance(document.get("results"), dict):
        document["results"]["gsm8k"] = {"exact_match,strict-match": task_metric}
    results.write_text(_json_text(document))
    samples = next(folder.glob("samples_*.jsonl"))
    lines = samples.read_text().splitlines()
    first = json.loads(lines[0])
    first["exact_match"] = value
    samples.write_text("\n".join([_json_text(first), *lines[1:]]) + "\n")
    result = load_results(tmp_path / "data")
    assert_runs_sane(result.evaluations)
    for problem in result.log.problems:
        text = str(problem)
        assert text.isprintable() and len(text) < 3000, text


# -- node-level sweep rows (issue 13's loader, held to the same rules) -----------------------------

SWEEP_HEADER, SWEEP_ROW = (
    (ROOT / "tests" / "fixtures" / "sweeps" / "small-sweep.csv").read_text().splitlines()[:2]
)


@SETTINGS
@given(st.lists(hostile_text, min_size=1, max_size=3), st.lists(st.integers(0, 11), min_size=1, max_size=3))
def test_sweep_rows_never_raise(tmp_path: Path, cells: list[str], where: list[int]) -> None:
    header = SWEEP_HEADER.split(",")
    row = next(csv.reader([SWEEP_ROW]))
    for cell, index in zip(cells, where, strict=False):
        row[index % len(row)] = cell
    text = SWEEP_HEADER + "\n" + ",".join(json.dumps(c, ensure_ascii=False) for c in row) + "\n"
    path = _fresh(tmp_path, "sweep.csv")
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    result = load_results(path.parent)
    assert_problems_clean(result.log, "data/sweep.csv")
    assert len(header) == len(row)
    for sweep_row in getattr(result, "sweeps", []):
        for name in ("output_throughput", "median_tpot_ms", "median_ttft_ms", "system_power_w"):
            value = getattr(sweep_row, name, None)
            assert value is None or (math.isfinite(value) and 0 < value <= LIMIT)
