"""A `workload:` label: runs over a variable-length dataset (ShareGPT) form one workload, one
curve, named by the label, with their measured mean lengths shown; fixed-length runs keep their
(isl, osl) workloads.

The runs are real: the ShareGPT and random-dataset lines of SGLang bench_serving outputs in
tests/fixtures/clients/sglang-request-rate (source and licence in that folder's README), each
line copied byte for byte; only the metadata and attribution files are ours.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from site_builder.cli import main
from site_builder.content import StubSpec
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from site_builder.read.table import PointTable
from site_builder.sides import by_workload

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "tests" / "fixtures" / "clients" / "sglang-request-rate"
GPUS = 4  # the fixture's metadata: TP 4 on 4 H200
STUB = """---
kind: custom
model: llama3.3-70b
hardware: h200
precision: bf16
sequence: sharegpt
title: "H200 BF16: paced by a request rate vs every request at once"
sides:
  - {label: Rate, dataset: online}
  - {label: Burst, dataset: offline}
---
The same deployment driven two ways.
"""
FILES = {"online": "llama_3_3_70b_online_output.jsonl", "offline": "llama_3_3_70b_offline_output.jsonl"}


def _lines(name: str, dataset: str) -> list[str]:
    """A fixture file's lines (as written) over one dataset (`dataset_name`)."""
    return [
        line for line in (RUNS / name).read_text().splitlines() if json.loads(line)["dataset_name"] == dataset
    ]


def _project(tmp_path: Path, label: str | None = "sharegpt") -> Path:
    """Two datasets (online: paced by a request rate; offline: every request at once), each a
    folder of random-dataset runs and a folder of ShareGPT runs whose metadata names the label."""
    (tmp_path / "content").mkdir()
    data = tmp_path / "data"
    (data / "results").mkdir(parents=True)
    for name in ("hardware.yaml", "models.yaml"):
        shutil.copy(ROOT / "data" / name, data / name)
    for dataset, name in FILES.items():
        folder = data / "results" / dataset
        for kind in ("random", "sharegpt"):
            (folder / kind).mkdir(parents=True)
            (folder / kind / name).write_text("\n".join(_lines(name, kind)) + "\n")
        shutil.copy(RUNS / "_meta.yaml", folder / "_meta.yaml")
        (folder / "_dataset.yaml").write_text(
            f"id: {dataset}\ntitle: Llama 3.3 70B on 4 x H200\nsource: datacrunch-research/h200-benchmarks\n"
            "licence: MIT\n"
        )
        if label is not None:
            (folder / "sharegpt" / "_meta.yaml").write_text(f"workload: {label}\n")
    (tmp_path / "content" / "sharegpt.md").write_text(STUB)
    return tmp_path


def _raw(dataset: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _lines(FILES[dataset], "sharegpt")]


def _by_hand(raw: dict[str, Any]) -> tuple[float, float, int]:
    """(interactivity, throughput per GPU, concurrency) of one run, from its own fields: the
    concurrency in flight by Little's law (completed ÷ duration × mean end-to-end latency), the
    total tok/s ÷ GPUs, and, without TPOT in the file, output tok/s ÷ concurrency."""
    concurrency = max(1, round(raw["completed"] / raw["duration"] * raw["mean_e2e_latency_ms"] / 1000))
    tokens = raw["total_input_tokens"] + raw["total_output_tokens"]
    return raw["output_throughput"] / concurrency, tokens / raw["duration"] / GPUS, concurrency


def _frontier(points: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    """The points no other beats on both interactivity and throughput, by rising interactivity."""
    kept = [p for p in points if not any(q[0] >= p[0] and q[1] >= p[1] and q != p for q in points)]
    return sorted(kept)


def _text(source: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", source)))


def _tokens(value: float) -> str:
    return f"{round(value):,}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = _project(tmp_path_factory.mktemp("labelled"))
    # the same comparison opening on 1k/1k: it links to its other workloads, the label's among them
    fixed = STUB.replace("sequence: sharegpt", "sequence: 1k/1k").replace('title: "', 'title: "1k/1k first: ')
    (project / "content" / "fixed-first.md").write_text(fixed)
    assert main(["build", "--root", str(project), "-q"]) == 0
    return project / "site"


def test_without_a_metadata_label_the_runs_are_labelled_by_their_own_dataset(tmp_path: Path) -> None:
    """SGLang records each run's `dataset_name`: without a label in the metadata, the ShareGPT
    runs are the workload `sharegpt` all the same (one notice per folder says where it came
    from), and no "derived from the file" notice asks for a label."""
    project = _project(tmp_path, label=None)
    log = ProblemLog()
    points = load_results(project / "data" / "results", log).table.records()
    sharegpt = [p for p in points if "sharegpt" in p["source_file"]]
    assert len(sharegpt) == 3 and {p["workload"] for p in sharegpt} == {"sharegpt"}
    assert {p["workload"] for p in points if "random" in p["source_file"]} == {None}
    said = [n for n in log.notices if n.field == "dataset_name"]
    assert [n.file for n in said] == [f"results/{d}/sharegpt/{FILES[d]}" for d in sorted(FILES)]
    assert all("workload sharegpt from the records' own dataset_name" in n.reason for n in said)
    assert not [n for n in log.notices if "derived from the file" in n.reason]


def test_labelled_runs_are_one_curve_whose_knots_are_the_raw_files(built: Path) -> None:
    data = json.loads((built / "sharegpt" / "comparison.json").read_text())
    (labelled,) = [s for s in data["sequences"] if s["sequence"] == "sharegpt"]
    rate, burst = labelled["sides"]
    knots = [(k["interactivity"], k["throughput_per_gpu"], k["concurrency"]) for k in rate["frontier"]]
    expected = _frontier([_by_hand(raw) for raw in _raw("online")])
    assert len(expected) == 2  # both paced runs are on one curve (their lengths differ)
    assert knots == [pytest.approx(k, rel=1e-12) for k in expected]
    assert rate["point_count"] == 2 and burst["point_count"] == 1
    ((x, y, c),) = [
        (k["interactivity"], k["throughput_per_gpu"], k["concurrency"]) for k in burst["frontier"]
    ]
    assert (x, y, c) == pytest.approx(_by_hand(_raw("offline")[0]), rel=1e-12)
    # the page opens on it (its stub's sequence); the fixed-length workloads follow by size
    fixed = data["sequences"][1:]
    assert data["default_sequence"] == "sharegpt" and data["sequences"][0] is labelled
    assert [(s["isl"], s["osl"]) for s in fixed] == sorted({(s["isl"], s["osl"]) for s in fixed})
    assert (1024, 1024) in [(s["isl"], s["osl"]) for s in fixed]
    assert all("workload" not in s for s in fixed)


def test_json_and_heading_carry_the_label_and_the_measured_means(built: Path) -> None:
    page = built / "sharegpt"
    data = json.loads((page / "comparison.json").read_text())
    labelled = data["sequences"][0]
    assert (labelled["workload"], labelled["isl"], labelled["osl"]) == ("sharegpt", None, None)
    assert data["latency"]["workloads"][0]["workload"] == "sharegpt"
    assert all("workload" not in w for w in data["latency"]["workloads"][1:])
    lengths = labelled["sides"][0]["lengths"]
    raws = _raw("online")
    means_in = [r["total_input_tokens"] / r["completed"] for r in raws]
    means_out = [r["total_output_tokens"] / r["completed"] for r in raws]
    assert lengths["isl_mean"] == pytest.approx(sum(means_in) / 2, rel=1e-12)
    assert lengths["isl_range"] == pytest.approx([min(means_in), max(means_in)], rel=1e-12)
    assert lengths["osl_range"] == pytest.approx([min(means_out), max(means_out)], rel=1e-12)
    source = (page / "index.html").read_text()
    # the sequence switch offers it by name, and its panel's heading is the label
    assert '<option value="sharegpt" selected>sharegpt</option>' in source
    panel = source.split('data-sequence="sharegpt"', 1)[1].split("</div>", 1)[0]
    assert "<h3>sharegpt</h3>" in panel
    (line,) = re.findall(r'<p class="workload-lengths">(.*?)</p>', panel, re.S)
    said = (
        f"Rate's measured means {_tokens(sum(means_in) / 2)} in (runs {_tokens(min(means_in))}–"
        f"{_tokens(max(means_in))}), {_tokens(sum(means_out) / 2)} out (runs {_tokens(min(means_out))}–"
        f"{_tokens(max(means_out))})"
    )
    assert _text(line).startswith("sharegpt is a workload of varying lengths") and said in _text(line)
    burst = _raw("offline")[0]
    one_run = f"Burst's measured means {_tokens(burst['total_input_tokens'] / burst['completed'])} in, "
    assert one_run in _text(line)  # one run: no range
    # the page's own points file names the workload too
    points = (page / "points.csv").read_text().splitlines()
    assert sum(line.startswith("sharegpt,") for line in points) == 3


def test_explorer_data_and_address_use_the_label(built: Path) -> None:
    script = (built / "explore" / "data" / "llama3.3-70b.js").read_text()
    document = json.loads(script.split("] = ", 1)[1].rstrip().removesuffix(";"))
    sequences = document["sequences"]
    # 1k/1k first, then by size, then the labelled workloads
    assert sequences[0] == ["1k/1k", 1024, 1024] and sequences[-1] == ["sharegpt", None, None]
    assert sequences[1:-1] == sorted(sequences[1:-1], key=lambda s: (s[1], s[2]))
    index = len(sequences) - 1
    labelled = [n for n, s in enumerate(document["points"]["sequence"]) if s == index]
    assert len(labelled) == 3  # every ShareGPT run, whatever its lengths
    # a page links to itself at its other workloads by name (?seq=), the label's too
    assert 'href="index.html?seq=1k/1k"' in (built / "sharegpt" / "index.html").read_text()
    fixed = (built / "fixed-first" / "index.html").read_text()
    assert 'href="index.html?seq=sharegpt"' in fixed
    assert '<option value="sharegpt">sharegpt</option>' in fixed


def test_a_bad_label_is_one_error_naming_file_record_and_field(tmp_path: Path) -> None:
    record = {
        "model": "dsr1",
        "hardware": "h200",
        "framework": "vllm",
        "precision": "fp8",
        "isl": 200,
        "osl": 190,
        "workload": "share gpt!",
        "concurrency": 8,
        "throughput_per_gpu": 100.0,
        "median_tpot_ms": 20.0,
        "gpu_count": 8,
    }
    dataset = {"id": "lab", "title": "Lab runs", "source": "our lab"}
    document = {"format": "site-builder-points", "version": 1, "dataset": dataset, "points": [record]}
    (tmp_path / "points.json").write_text(json.dumps(document))
    log = ProblemLog()
    assert len(load_results(tmp_path, log).table) == 0
    (error,) = log.errors
    assert error.file.endswith("points.json") and error.field == "workload" and error.record
    assert "a letter, then letters, digits" in error.reason and "share gpt!" in error.reason


def test_a_bad_label_in_metadata_is_one_error_against_that_file(tmp_path: Path) -> None:
    project = _project(tmp_path, label="sharegpt")
    (project / "data" / "results" / "online" / "sharegpt" / "_meta.yaml").write_text(
        "workload: 'ShareGPT v3'\n"
    )
    log = ProblemLog()
    load_results(project / "data" / "results", log)
    (error,) = log.errors
    assert error.file.endswith("online/sharegpt/_meta.yaml") and error.field == "workload"
    assert "a letter, then letters, digits" in error.reason


def test_import_round_trips_the_label(tmp_path: Path) -> None:
    project = _project(tmp_path)
    folder = project / "data" / "results" / "online"
    out = tmp_path / "imported" / "online.json"
    attribution = ["--id", "x", "--title", "X", "--source", "s"]
    assert main(["import", str(folder), "-o", str(out), *attribution]) == 0
    records = json.loads(out.read_text())["points"]
    assert sorted(str(r.get("workload")) for r in records) == ["None"] * 5 + ["sharegpt"] * 2
    columns = ("workload", "isl", "osl", "concurrency", "throughput_per_gpu")
    log = ProblemLog()
    again = load_results(out.parent, log).table.records(columns=columns)
    before = load_results(folder, ProblemLog()).table.records(columns=columns)
    assert [str(e) for e in log.errors] == []
    assert sorted(again, key=str) == sorted(before, key=str)


POINT = st.fixed_dictionaries(
    {
        "model": st.sampled_from(["dsr1", "llama70b"]),
        "workload": st.sampled_from([None, "sharegpt", "mooncake-trace"]),
        "isl": st.sampled_from([180, 224, 1024]),
        "osl": st.sampled_from([190, 1024]),
        "concurrency": st.integers(1, 64),
    }
)


@settings(max_examples=150, deadline=None)
@given(st.lists(POINT, min_size=1, max_size=30))
def test_grouping_never_merges_labels_or_models(drawn: list[dict[str, Any]]) -> None:
    records = [
        {
            **p,
            "hardware": "h200",
            "framework": "vllm",
            "precision": "fp8",
            "throughput_per_gpu": 100.0,
            "interactivity": 10.0,
            "dataset": "d",
            "source_file": "f.json",
            "record": f"record {n}",
        }
        for n, p in enumerate(drawn)
    ]
    table = PointTable.from_records(records)
    for model in {p["model"] for p in drawn}:
        rows = table.select({"model": model})
        groups = by_workload(rows)
        mine = [p for p in records if p["model"] == model]
        assert sum(len(g) for g in groups.values()) == len(mine)  # every point in one group
        for workload, group in groups.items():
            found = group.records(columns=("model", "workload", "isl", "osl", "record"))
            assert {r["model"] for r in found} == {model}
            assert {r["workload"] for r in found} == {workload.label or None}
            if not workload.label:  # a fixed-length workload: one (isl, osl)
                assert {(r["isl"], r["osl"]) for r in found} == {(workload.isl, workload.osl)}
            else:  # a label's every point, whatever its lengths
                assert {r["record"] for r in found} == {
                    p["record"] for p in mine if p["workload"] == workload.label
                }


def test_a_stub_opens_on_a_label_or_says_what_it_may_name() -> None:
    sides = [{"label": "a", "hardware": "h200"}, {"label": "b", "hardware": "b200"}]
    spec = StubSpec.model_validate({"kind": "custom", "model": "m", "sequence": "sharegpt", "sides": sides})
    assert spec.sequence == "sharegpt"
    with pytest.raises(ValidationError) as refused:
        StubSpec.model_validate({"kind": "custom", "model": "m", "sequence": "share gpt", "sides": sides})
    (error,) = refused.value.errors()
    assert error["loc"] == ("sequence",)
    assert "1k/1k" in error["msg"] and "`workload:` label" in error["msg"]


def _caption(source: str, control: str) -> str:
    (found,) = re.findall(rf'<label for="{control}">(.*?)</label>', source)
    return str(found)


def test_the_workload_switch_says_workload_where_one_is_labelled(built: Path, tmp_path: Path) -> None:
    """Its caption names input/output tokens only where every workload is a pair of lengths: a
    labelled one (sharegpt) has none, so a page or an explorer offering one says "Workload"."""
    for slug in ("sharegpt", "fixed-first"):
        assert _caption((built / slug / "index.html").read_text(), "sequence-select") == "Workload"
    assert _caption((built / "explore" / "index.html").read_text(), "explore-seq") == "Workload"
    project = _project(tmp_path, label=None)
    for folder in (project / "data" / "results").glob("*/sharegpt"):  # (they label themselves)
        shutil.rmtree(folder)  # the random-dataset runs alone: every workload a pair of lengths
    (project / "content" / "sharegpt.md").write_text(STUB.replace("sequence: sharegpt", "sequence: 1k/1k"))
    assert main(["build", "--root", str(project), "-q"]) == 0
    site = project / "site"
    page = (site / "sharegpt" / "index.html").read_text()
    assert _caption(page, "sequence-select") == "Sequence (input/output tokens)"
    assert (
        _caption((site / "explore" / "index.html").read_text(), "explore-seq")
        == "Sequence (input/output tokens)"
    )
