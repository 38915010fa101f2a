"""A client file that mixes fixed-length and variable-length runs, read as it is, no manual split.

SGLang bench_serving appends one JSON line a run and records each run's `dataset_name`: a
`random` line is a fixed-length run (its workload is its ISL/OSL), a `sharegpt` line one over
ShareGPT's own lengths (the workload `sharegpt`). Where a metadata file's `workload:` says
otherwise, the record's own dataset wins, with one warning per file naming the record and the
field.

The files are real: tests/fixtures/clients/sglang-request-rate holds two bench_serving outputs
exactly as published, each with random and ShareGPT lines (source and licence in
tests/fixtures/clients/README.md); only the metadata added here is ours.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from site_builder.sides import by_workload
from site_builder.workload import Workload, labelled

RUNS = Path(__file__).resolve().parent / "fixtures" / "clients" / "sglang-request-rate"
FILES = ("llama_3_3_70b_offline_output.jsonl", "llama_3_3_70b_online_output.jsonl")


def _results(tmp_path: Path, meta_extra: str = "", dataset_yaml: str | None = None) -> Path:
    """The fixture folder as a data set of its own (its files and _meta.yaml as they are)."""
    folder = tmp_path / "results" / "h200"
    shutil.copytree(RUNS, folder)
    if meta_extra:
        with (folder / "_meta.yaml").open("a") as meta:
            meta.write(meta_extra)
    if dataset_yaml is not None:
        (folder / "_dataset.yaml").write_text(dataset_yaml)
    return tmp_path / "results"


def _expected(name: str) -> list[tuple[str, str | None, int, int]]:
    """(record, workload, isl, osl) of each line of a fixture file, from its own fields: a
    random line keeps random_input_len/random_output_len, a ShareGPT line is labelled and its
    lengths are the means (token totals ÷ completed requests), rounded."""
    found: list[tuple[str, str | None, int, int]] = []
    for n, line in enumerate((RUNS / name).read_text().splitlines(), 1):
        raw: dict[str, Any] = json.loads(line)
        if raw["dataset_name"] == "random":
            found.append((f"line {n}", None, raw["random_input_len"], raw["random_output_len"]))
        else:
            isl = round(raw["total_input_tokens"] / raw["completed"])
            osl = round(raw["total_output_tokens"] / raw["completed"])
            found.append((f"line {n}", raw["dataset_name"], isl, osl))
    return found


def _loaded(results: Path) -> tuple[dict[str, list[tuple[str, str | None, int, int]]], ProblemLog]:
    log = ProblemLog()
    records = load_results(results, log).table.records(
        columns=("source_file", "record", "workload", "isl", "osl")
    )
    found: dict[str, list[tuple[str, str | None, int, int]]] = {}
    for r in records:
        found.setdefault(r["source_file"].rsplit("/", 1)[-1], []).append(
            (r["record"], r["workload"], r["isl"], r["osl"])
        )
    return found, log


def test_one_mixed_file_gives_its_fixed_length_and_its_sharegpt_workloads(tmp_path: Path) -> None:
    results = _results(tmp_path)
    found, log = _loaded(results)
    assert found == {name: _expected(name) for name in FILES}
    assert {w for rows in found.values() for _, w, _, _ in rows} == {None, "sharegpt"}  # both kinds
    assert log.errors == [] and log.warnings == []
    # the label's origin said once for the folder, naming both files; no length notice for it
    (said,) = [n for n in log.notices if n.field == "dataset_name"]
    assert (
        said.file == "results/h200/" and "workload sharegpt from the records' own dataset_name" in said.reason
    )
    assert "(2 files: " in said.reason
    assert not [n for n in log.notices if "derived from the file" in n.reason]


def test_the_online_file_alone_is_two_curves(tmp_path: Path) -> None:
    """The paced runs of one file: its random 1k/1k runs one curve, its ShareGPT runs another."""
    results = _results(tmp_path)
    (results / "h200" / FILES[0]).unlink()
    groups = by_workload(load_results(results, ProblemLog()).table)
    expected = _expected(FILES[1])
    sizes = {w: len(g) for w, g in groups.items()}
    assert sizes == {
        Workload(1024, 1024): sum(1 for _, w, i, o in expected if w is None and (i, o) == (1024, 1024)),
        labelled("sharegpt"): sum(1 for _, w, _, _ in expected if w == "sharegpt"),
    }
    assert sizes == {Workload(1024, 1024): 5, labelled("sharegpt"): 2}  # as the file holds them


def test_a_metadata_label_the_records_contradict_is_one_warning_per_file(tmp_path: Path) -> None:
    """`workload: sharegpt` over the whole folder, as the docs once asked for a split folder:
    each file's random lines stay fixed-length, said once per file against its first random line."""
    results = _results(tmp_path, meta_extra="workload: sharegpt\n")
    found, log = _loaded(results)
    assert found == {name: _expected(name) for name in FILES}  # nothing relabelled
    warnings = log.warnings
    assert [(w.file.rsplit("/", 1)[-1], w.record, w.field) for w in warnings] == [
        (name, "line 1", "dataset_name") for name in FILES
    ]
    for warning in warnings:
        assert "dataset_name 'random' is a fixed-length dataset" in warning.reason
        assert "results/h200/_meta.yaml gives workload: sharegpt" in warning.reason
        assert "the record's own dataset wins (read as fixed-length, by its ISL/OSL)" in warning.reason
    assert log.errors == []


def test_a_data_set_label_that_differs_names_the_dataset_yaml(tmp_path: Path) -> None:
    """A `_dataset.yaml` naming another label: the random lines stay fixed-length and the ShareGPT
    lines keep their own name, each cause one warning per file, naming the data set file."""
    attribution = "id: h200\ntitle: Llama 3.3 70B on 4 x H200\nsource: datacrunch\nworkload: mooncake\n"
    results = _results(tmp_path, dataset_yaml=attribution)
    found, log = _loaded(results)
    assert found == {name: _expected(name) for name in FILES}
    online = [w for w in log.warnings if w.file.endswith(FILES[1])]
    first_sharegpt = next(r for r, w, _, _ in _expected(FILES[1]) if w == "sharegpt")
    assert [(w.record, w.field) for w in online] == [
        ("line 1", "dataset_name"),
        (first_sharegpt, "dataset_name"),
    ]
    assert all("results/h200/_dataset.yaml gives workload: mooncake" in w.reason for w in online)
    assert "the record's own dataset wins (labelled sharegpt)" in online[1].reason
    assert len(log.warnings) == 4 and log.errors == []
