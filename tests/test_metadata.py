"""Metadata that is easy to give (read/metadata.py, read/load.py): `_meta.yaml` files merge field
by field from the results root down to the file, the nearest winning; build, check and import
look them up alike; InferenceX runner file names fill what they state; a cause is said once per
folder; nominal lengths drawn from a range are accepted; a variant and the configuration fields
select a side's points."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.problems import ProblemLog, Severity
from site_builder.read.fields import PointDraft, RecordContext, Stated, sequence_length
from site_builder.read.load import load_file, load_results
from site_builder.read.metadata import FROM_FILE_NAME, Merged, runner_name_fields
from site_builder.read.serving import RunMetadata
from site_builder.read.table import PointTable

FIXTURES = Path(__file__).parent / "fixtures"
# a real vLLM benchmark_serving result (tests/fixtures/vllm, source and licence in its README):
# 160 of 160 requests, 163840 input and 117008 output tokens, 447.59 tok/s in all
RUN = FIXTURES / "vllm" / "kimi_fp4_b200_c16.json"

# values each metadata field may take in the property tests (every field RunMetadata has)
FIELD_VALUES: dict[str, list[Any]] = {
    "model": ["dsr1", "kimik2.5"],
    "hardware": ["b200", "h200", "mi355x"],
    "framework": ["vllm", "sglang"],
    "precision": ["fp4", "fp8"],
    "spec_method": ["none", "mtp"],
    "disagg": [False, True],
    "tp": [4, 8],
    "ep": [1, 8],
    "pp": [1, 2],
    "pcp": [1, 2],
    "dp_attention": [False, True],
    "prefill_gpus": [4, 8],
    "decode_gpus": [0, 8],
    "gpu_count": [8, 16],
    "isl": [1024, 8192],
    "osl": [1024, 8192],
    "random_range_ratio": [0.5, 0.8],
    "variant": ["confidential-computing", "lmcache"],
    "workload": ["sharegpt", "mooncake-trace"],
    "concurrency": [4, 64],
    "date": ["2026-01-02", "2026-03-04"],
    "run_url": ["https://example.org/run/1", "https://example.org/run/2"],
    "image": ["vllm/vllm-openai:v0.11", "lmsysorg/sglang:v0.5"],
    "note": ["first", "second"],
}


def test_every_metadata_field_is_in_the_property_test() -> None:
    assert set(FIELD_VALUES) == set(RunMetadata.model_fields)


LAYER = st.dictionaries(
    st.sampled_from(sorted(FIELD_VALUES)), st.integers(0, 1), max_size=len(FIELD_VALUES)
).map(lambda chosen: {key: FIELD_VALUES[key][i] for key, i in chosen.items()})


@settings(max_examples=200)
@given(st.lists(LAYER, min_size=1, max_size=4))
def test_merge_takes_every_field_from_the_nearest_layer_that_gives_it(layers: list[dict[str, Any]]) -> None:
    named = [(f"level{n}/_meta.yaml", layer) for n, layer in enumerate(layers)]
    merged = Merged.of(named, "run")
    for key in FIELD_VALUES:
        givers = [n for n, layer in enumerate(layers) if key in layer]
        if givers:
            assert merged.values[key] == layers[givers[-1]][key]
            assert merged.origins[key] == f"level{givers[-1]}/_meta.yaml"
        else:
            assert key not in merged.values


RUNNER = "dsr1_1k1k_fp8_sglang_tp8-ep1-dpafalse_disagg-false_spec-none_conc16_h200-nv_0"


@settings(max_examples=100)
@given(st.lists(LAYER, min_size=0, max_size=3))
def test_a_runner_file_name_fills_only_what_no_metadata_file_gives(layers: list[dict[str, Any]]) -> None:
    merged = Merged.of([(f"l{n}", layer) for n, layer in enumerate(layers)], RUNNER)
    stated = runner_name_fields(RUNNER)
    for key, value in stated.items():
        if key == "concurrency":  # the result file records it
            assert merged.origins.get(key) != FROM_FILE_NAME
        elif any(key in layer for layer in layers):
            assert merged.origins[key] != FROM_FILE_NAME
        else:
            assert (merged.values[key], merged.origins[key]) == (value, FROM_FILE_NAME)


def test_runner_file_names_new_and_old() -> None:
    assert runner_name_fields(RUNNER) == {
        "model": "dsr1",
        "isl": 1024,
        "osl": 1024,
        "precision": "fp8",
        "framework": "sglang",
        "tp": 8,
        "ep": 1,
        "dp_attention": False,
        "disagg": False,
        "spec_method": "none",
        "hardware": "h200",
    }
    old = runner_name_fields("dsr1_1k8k_fp4_trt_tp4_conc8_b200-nb_1")
    assert old == {
        "model": "dsr1",
        "isl": 1024,
        "osl": 8192,
        "precision": "fp4",
        "framework": "trt",
        "tp": 4,
        "hardware": "b200",
    }
    mtp = runner_name_fields(
        "gptoss_8k1k_fp4_dynamo-trt_tp4-pp2-dcp1-pcp2-ep4-dpatrue_disagg-true_spec-mtp_conc64"
    )
    assert (mtp["model"], mtp["pp"], mtp["pcp"], mtp["disagg"], mtp["spec_method"]) == (
        "gptoss120b", 2, 2, True, "mtp"
    )  # fmt: skip
    assert "hardware" not in mtp
    for other in ("run", "kimi_fp4_b200_c16", "profile_export_aiperf", "dsr1_1k1k_fp8_sglang_conc16"):
        assert runner_name_fields(other) == {}


# -- the lookup, end to end ----------------------------------------------------------------------


def _tree(tmp_path: Path, layers: dict[str, str], name: str = "run.json") -> Path:
    """data/results/a/b/<name> (a copy of RUN), and metadata files: {relative path: text}."""
    data = tmp_path / "data"
    run = data / "results" / "a" / "b" / name
    run.parent.mkdir(parents=True)
    shutil.copy(RUN, run)
    for relative, text in layers.items():
        (data / relative).write_text(text)
    return run


NESTED = {
    "results/_meta.yaml": "hardware: b200\nprecision: fp4\nframework: vllm\ntp: 4\nmodel: kimik2.5\n",
    "results/a/_meta.yaml": "tp: 8\nisl: 1024\n",
    "results/a/b/run.meta.yaml": "precision: fp8\nnote: our run\n",
}


def test_nested_metadata_merges_and_build_check_and_import_agree(tmp_path: Path) -> None:
    run = _tree(tmp_path, NESTED)
    log = ProblemLog()
    (point,) = load_results(tmp_path / "data", log).table.records()
    assert not log.errors
    assert (point["hardware"], point["precision"], point["framework"], point["tp"], point["isl"]) == (
        "b200", "fp8", "vllm", 8, 1024
    )  # fmt: skip
    assert point["gpu_count"] == 8 and point["throughput_per_gpu"] == pytest.approx(447.59 / 8)
    # the importer, given only the file, looks its metadata up the same way (from data/ down)
    imported = load_file(run)
    assert not imported.log.errors
    (alone,) = imported.table.records()
    same = (
        "hardware",
        "precision",
        "framework",
        "tp",
        "isl",
        "osl",
        "gpu_count",
        "throughput_per_gpu",
        "note",
    )
    assert {k: alone[k] for k in same} == {k: point[k] for k in same}
    out = tmp_path / "imported.json"
    args = ["import", str(run), "-o", str(out), "--id", "mine", "--title", "Mine", "--source", "lab"]
    assert main(args) == 0
    (record,) = json.loads(out.read_text())["points"]
    assert (record["precision"], record["tp"], record["hardware"]) == ("fp8", 8, "b200")


def test_a_folder_imports_the_files_its_build_reads(tmp_path: Path) -> None:
    """content/site.yaml's exclude: applies to `import` of a folder as to build and check (the
    real llmperf summaries, tests/fixtures/clients/README.md, beside a file the build leaves out)."""
    results = tmp_path / "data" / "results" / "lb"
    shutil.copytree(FIXTURES / "clients" / "llmperf", results)
    (results / "notes").mkdir()
    (results / "notes" / "scratch.json").write_text('{"hello": 1}')
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "site.yaml").write_text("exclude: [results/*/notes]\n")
    assert main(["check", "--root", str(tmp_path)]) == 0
    out = tmp_path / "imported.json"
    args = ["import", str(results), "-o", str(out), "--id", "lb", "--title", "LB", "--source", "lab"]
    assert main(args) == 0
    points = json.loads(out.read_text())["points"]
    assert sorted(p["concurrency"] for p in points) == [1, 8, 64]
    # without the exclude, the same import reads the file the build leaves out, and refuses it
    (tmp_path / "content" / "site.yaml").write_text("title: LB\n")
    assert main([*args[:3], str(tmp_path / "again.json"), *args[4:]]) != 0


NO_PREFIX = FIXTURES / "clients" / "inferencex-agg-no-prefix"


def test_inferencex_rows_without_a_model_prefix_take_model_and_lengths_from_the_metadata(
    tmp_path: Path,
) -> None:
    """Real aggregate rows of an InferenceX fork's dashboard (tests/fixtures/clients/README.md):
    no infmax_model_prefix, isl or osl; a `_meta.yaml` fills them, said once for the folder; each
    row's timestamp is its date."""
    rows = json.loads((NO_PREFIX / "results.json").read_text())
    assert all("infmax_model_prefix" not in r and "isl" not in r for r in rows)
    log = ProblemLog()
    points = load_results(NO_PREFIX, log).table.records()
    assert not log.errors
    assert [(p["model"], p["isl"], p["osl"]) for p in points] == [("llama70b", 1024, 1024)] * 5
    assert [p["throughput_per_gpu"] for p in points] == [r["tput_per_gpu"] for r in rows]
    assert [p["date"] for p in points] == ["2025-10-15"] * 4 + [None]  # the last has no timestamp
    (said,) = [p for p in log.notices if "_meta.yaml" in p.reason]
    assert (
        said.reason == "model, isl, osl taken from inferencex-agg-no-prefix/_meta.yaml where a row lacks them"
    )
    # without the metadata: the rows say what to add, and where, once (tests/test_inferencex_no_metadata.py)
    shutil.copy(NO_PREFIX / "results.json", tmp_path / "results.json")
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    (missing,) = log.errors
    assert "add model: …, isl: …, osl: … to a _meta.yaml in the file's folder" in missing.reason


def test_a_gpu_without_constants_is_warned_once_for_a_page_whose_sides_share_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The FP8 and BF16 rows of the real Gaudi 2.5 excerpt make a precision page: both sides on
    one GPU the catalog lacks, which the page's warning names once, not once a side."""
    shutil.copytree(NO_PREFIX, tmp_path / "data" / "results" / "gaudi")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "site.yaml").write_text("title: Gaudi\n")
    assert main(["check", "--root", str(tmp_path)]) == 0
    said = capsys.readouterr()
    lines = (said.out + said.err).splitlines()
    (warning,) = [line for line in lines if "no cost or power constants for gaudi25" in line]
    assert "generated page gaudi25-fp8-vs-bf16-llama70b" in warning


@settings(max_examples=12)
@given(st.lists(st.sampled_from([None, "fp4", "fp8"]), min_size=3, max_size=3), st.sampled_from([4, 8]))
def test_the_nearest_precision_wins_end_to_end(
    tmp_path_factory: pytest.TempPathFactory, precisions: list[str | None], tp: int
) -> None:
    root = tmp_path_factory.mktemp("nested")
    places = ["results/_meta.yaml", "results/a/_meta.yaml", "results/a/b/_meta.yaml"]
    layers = {place: "" for place in places}
    layers[places[0]] = f"hardware: b200\nframework: vllm\nmodel: kimik2.5\ntp: {tp}\n"
    for place, precision in zip(places, precisions, strict=True):
        if precision:
            layers[place] += f"precision: {precision}\n"
    _tree(root, layers)
    log = ProblemLog()
    points = load_results(root / "data", log).table.records()
    given_ones = [p for p in precisions if p]
    if not given_ones:
        assert not points and len(log.errors) == 1 and "precision" in log.errors[0].reason
        return
    (point,) = points
    assert point["precision"] == given_ones[-1] and point["tp"] == tp


def test_a_missing_field_is_said_once_per_folder_naming_it_and_where(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "results" / "sweep"
    folder.mkdir(parents=True)
    for concurrency in (4, 16, 64):
        raw = json.loads(RUN.read_text()) | {"max_concurrency": concurrency}
        (folder / f"run-c{concurrency}.json").write_text(json.dumps(raw))
    (folder / "_meta.yaml").write_text("hardware: b200\nframework: vllm\ntp: 8\nmodel: kimik2.5\n")
    log = ProblemLog()
    load_results(tmp_path / "data", log)
    (error,) = log.errors
    assert error.file == "data/results/sweep/"
    assert error.reason.startswith("a vLLM benchmark_serving result needs a metadata file giving precision")
    assert "add precision: … to data/results/sweep/_meta.yaml" in error.reason
    assert error.reason.endswith("(3 files: run-c16.json, run-c4.json, run-c64.json)")
    # a bad value is named once, against the metadata file that gave it
    (folder / "_meta.yaml").write_text("hardware: b200\nframework: vllm\ntp: eight\nprecision: fp4\n")
    log = ProblemLog()
    load_results(tmp_path / "data", log)
    (error,) = log.errors
    assert (error.file, error.field) == ("data/results/sweep/_meta.yaml", "tp")
    assert error.reason.endswith("(3 files: run-c16.json, run-c4.json, run-c64.json)")


def test_a_runner_file_name_gives_what_it_states_and_the_provenance_says_so(tmp_path: Path) -> None:
    _tree(tmp_path, {"results/_meta.yaml": "model: kimik2.5\n"}, name=f"{RUNNER}.json")
    log = ProblemLog()
    (point,) = load_results(tmp_path / "data", log).table.records()
    assert not log.errors
    assert (point["hardware"], point["precision"], point["framework"], point["tp"], point["gpu_count"]) == (
        "h200", "fp8", "sglang", 8, 8
    )  # fmt: skip
    assert point["concurrency"] == 16  # the file's own max_concurrency
    assert point["note"] == (
        "metadata: model from data/results/_meta.yaml; isl, osl, precision, framework, tp, ep, "
        "dp_attention, disagg, spec_method, hardware from the file name"
    )
    (notice,) = [p for p in log.notices if "runner file name" in p.reason]
    assert notice.file == f"data/results/a/b/{RUNNER}.json"
    assert notice.reason.startswith(
        "isl, osl, precision, framework, tp, ep, dp_attention, disagg, spec_method"
    )


# -- lengths drawn from a range ------------------------------------------------------------------


def _length(
    nominal: int, mean: float, ratio: float | None, ours: str = "isl"
) -> tuple[PointDraft, ProblemLog]:
    draft, log = PointDraft(), ProblemLog()
    ctx = RecordContext("run.json", "", log)
    sequence_length(draft, ours, (nominal, f"_meta.yaml: {ours}"), None, Stated(mean, "mean"), ctx, ratio)
    return draft, log


@settings(max_examples=300)
@given(
    st.sampled_from([1024, 2048, 8192]),
    st.floats(0.05, 1.0),
    st.floats(0.01, 1.3),
    st.booleans(),
)
def test_a_nominal_length_is_accepted_when_the_mean_fits_its_range(
    nominal: int, ratio: float, share: float, with_ratio: bool
) -> None:
    mean = nominal * share
    draft, log = _length(nominal, mean, ratio if with_ratio else None)
    lowest = nominal * (ratio if with_ratio else 1.0)
    fits = lowest * 0.95 <= mean <= nominal * 1.05
    assert (draft.values.get("isl") == nominal) == fits
    assert bool(log.errors) == (not fits)
    if not fits:
        (error,) = log.errors
        off = abs(mean - nominal) / nominal
        assert f"{off:.0%} {'below' if mean < nominal else 'above'} the nominal {nominal}" in error.reason


def test_range_ratio_from_the_metadata_end_to_end(tmp_path: Path) -> None:
    raw = json.loads(RUN.read_text())
    raw["total_input_tokens"] = 160 * 870  # a mean of 870 of a nominal 1024: 15 % below
    meta = "hardware: b200\nframework: vllm\nprecision: fp4\ntp: 8\nisl: 1024\nmodel: kimik2.5\n"
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps(raw))
    (folder / "_meta.yaml").write_text(meta)
    log = ProblemLog()
    assert not len(load_results(folder, log).table)
    error = log.errors[0]
    assert error.field == "results/_meta.yaml: isl"
    assert "15% below the nominal 1024" in error.reason and "random_range_ratio" in error.reason
    (folder / "_meta.yaml").write_text(meta + "random_range_ratio: 0.8\n")
    log = ProblemLog()
    (point,) = load_results(folder, log).table.records()
    assert point["isl"] == 1024 and not log.errors


# -- variants and the configuration filters ------------------------------------------------------


def _point(dataset: str, variant: str | None, tp: int, gpus: int, concurrency: int) -> dict[str, Any]:
    return {
        "model": "dsr1", "hardware": "h200", "framework": "vllm", "precision": "fp8", "tp": tp,
        "gpu_count": gpus, "isl": 1024, "osl": 1024, "concurrency": concurrency, "variant": variant,
        "throughput_per_gpu": 100.0 + concurrency, "interactivity": 50.0, "dataset": dataset,
        "source_file": f"{dataset}.csv", "record": f"line {concurrency}",
    }  # fmt: skip


def test_sides_select_by_variant_tp_ep_and_gpus() -> None:
    table = PointTable.from_records(
        [
            _point("inferencex", None, 8, 8, 4),
            _point("mine", "confidential-computing", 8, 8, 4),
            _point("mine", None, 4, 8, 4),
            _point("mine", None, 4, 16, 8),
        ]
    )
    datasets = table.select({"variant": "Confidential-Computing"}).values("dataset")
    assert datasets == ["mine"]
    assert table.select({"tp": 8}).values("dataset") == ["inferencex", "mine"]
    assert len(table.select({"tp": [4, 8], "gpus": 16})) == 1
    assert len(table.select({"dataset": "mine", "tp": 4})) == 2
    assert table.select({"gpus": 8}).values("gpu_count") == [8]
    configurations = table.values("configuration")
    assert "vllm TP8 (agg, 8 GPUs) [confidential-computing]" in configurations


AB_STUB = """---
kind: custom
model: dsr1
hardware: h200
precision: fp8
title: "H200 FP8: confidential computing on vs off"
sides:
  - {label: CC on, variant: confidential-computing}
  - {label: Published, dataset: published}
---
The same configuration with confidential computing on (our runs) and as published.
"""


def test_an_ab_pair_across_datasets_keeps_both_sides(project: Path) -> None:
    """The same configuration in two datasets: no duplicate, and a custom stub compares them."""
    results = project / "data" / "results"
    (results / "lab.csv").unlink()
    published = results / "published"
    ours = results / "ours"
    published.mkdir()
    ours.mkdir()
    header = "model,hardware,framework,precision,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms"
    rows = [(4, 300.0, 10.0), (16, 900.0, 20.0), (64, 1800.0, 40.0)]
    body = "".join(f"dsr1,h200,vllm,fp8,8,8,1024,1024,{c},{t},{m}\n" for c, t, m in rows)
    (published / "points.csv").write_text(header + "\n" + body)
    (published / "_dataset.yaml").write_text("id: published\ntitle: Published\nsource: a public run\n")
    cc = "".join(
        f"dsr1,h200,vllm,fp8,8,8,1024,1024,{c},{t * 0.9},{m * 1.1},confidential-computing\n"
        for c, t, m in rows
    )
    (ours / "points.csv").write_text(header + ",variant\n" + cc)
    (ours / "_dataset.yaml").write_text("id: ours\ntitle: Our cluster\nsource: our lab\n")
    (project / "content" / "h200-fp4-vs-fp8.md").unlink()
    (project / "content" / "cc.md").write_text(AB_STUB)
    assert main(["build", "--root", str(project), "-q", "--strict"]) == 0
    (page,) = [p for p in (project / "site").glob("*/comparison.json")]
    result = json.loads(page.read_text())
    on, off = (side for side in result["sequences"][0]["sides"])
    assert {k["variant"] for k in on["frontier"]} == {"confidential-computing"}
    assert {k["dataset"] for k in on["frontier"]} == {"ours"}
    assert {k["variant"] for k in off["frontier"]} == {None}
    assert on["point_count"] == off["point_count"] == 3
    points = (page.parent / "points.csv").read_text().splitlines()
    assert "variant" in points[0].split(",") and sum("confidential-computing" in line for line in points) == 3


def test_a_duplicate_within_one_dataset_is_still_one_warning(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h200,sglang,fp8,none,8,8,1024,1024,64,1700.0,41.0,2026-08-01\n")
    assert main(["check", "--root", str(project)]) == 0
    out = capsys.readouterr().out
    assert out.count("duplicate point") == 1
    assert "kept the one from data/results/lab.csv (dated 2026-09-01, newer than 2026-08-01)" in out
    assert Severity.WARNING.value in out


def test_an_import_from_elsewhere_names_the_metadata_above_it_did_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a project and the current folder the lookup starts at the file's folder: the
    error names the _meta.yaml one folder up and how to have it read; from that folder it is read."""
    runs = tmp_path / "runs"
    (runs / "c16").mkdir(parents=True)
    shutil.copy(RUN, runs / "c16" / "run.json")
    (runs / "_meta.yaml").write_text(
        "hardware: b200\nprecision: fp4\nframework: vllm\ntp: 8\nmodel: kimik2.5\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    (error,) = load_file(runs / "c16" / "run.json").log.errors
    assert f"{(runs / '_meta.yaml').as_posix()} was not read: run the import from its folder" in error.reason
    monkeypatch.chdir(runs)
    loaded = load_file(Path("c16") / "run.json")
    assert not loaded.log.errors and loaded.table.records()[0]["hardware"] == "b200"
