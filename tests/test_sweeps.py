"""Node-level sweeps: rows read as written, and every figure checked by hand from the rows."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from site_builder.engine.sweep import Measure, Sla, analyse_workload, meets_sla, merge, peak
from site_builder.pipeline import run
from site_builder.present.result import sweep_ratio_text
from site_builder.project import Project
from site_builder.read.load import load_file

FIXTURE = Path(__file__).parent / "fixtures" / "sweeps" / "small-sweep.csv"
ROOT = Path(__file__).resolve().parent.parent


def test_rows_load_with_only_latency_or_only_throughput() -> None:
    loaded = load_file(FIXTURE)
    assert not loaded.log.errors
    assert len(loaded.sweeps) == 9
    latency_only = [r for r in loaded.sweeps if r.output_throughput is None]
    assert [(r.hardware, r.concurrency, r.tpot_ms) for r in latency_only] == [("h200", 128, 40.0)]
    # a per-GPU point on an output basis for every row with throughput and a GPU count
    points = loaded.table.records()
    assert len(points) == 8
    point = next(p for p in points if p["hardware"] == "b200" and p["concurrency"] == 32)
    assert point["throughput_basis"] == "output"
    assert point["throughput_per_gpu"] == 4800 / 8
    assert point["interactivity"] == 1000 / 6
    derived = next(p for p in points if p["hardware"] == "b200" and p["concurrency"] == 128)
    assert derived["interactivity_source"] == "derived"
    assert derived["interactivity"] == 9600 / 128


def test_bad_cells_are_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "model,hardware,precision,isl,osl,concurrency,output_throughput,system_power_w\n"
        "m,b200,fp8,128,128,4,0,-5\n"
        "m,b200,fp8,128,128,8,,\n"
    )
    log = load_file(bad).log
    found = {(e.record, e.field) for e in log.errors}
    assert ("line 2", "output_throughput") in found  # zero is not a measurement
    assert ("line 2", "system_power_w") in found
    assert ("line 3", "output_throughput") in found  # no measurement at all


def rows(hardware: str) -> list[Measure]:
    return [r.measure() for r in load_file(FIXTURE).sweeps if r.hardware == hardware and r.isl == 1024]


def test_analyses_equal_hand_calculations() -> None:
    w = analyse_workload(
        1024, 1024, rows("b200"), rows("h200"), Sla(tpot_ms=20, ttft_ms=None, basis="measured")
    )
    by_c = {p.concurrency: p for p in w.throughput}
    assert by_c[8].ratio == 1600 / 1000
    assert by_c[32].ratio == 4800 / 2400
    assert by_c[64].a is None and by_c[64].b == 3200 and by_c[64].ratio is None  # not measured, not 0
    assert by_c[128].b is None  # the latency-only row gives no throughput
    assert by_c[256].b is None
    a_peak, b_peak = w.peaks
    assert a_peak is not None and (a_peak.output_throughput, a_peak.concurrency) == (9600, 128)
    assert b_peak is not None and (b_peak.output_throughput, b_peak.concurrency) == (3200, 64)
    assert w.peak_ratio == 9600 / 3200
    tpot = {p.concurrency: p for p in w.tpot}
    assert tpot[128].a == 1000 / (9600 / 128) and 128 in w.tpot_derived[0]  # derived, and marked
    assert tpot[128].b == 40 and 128 not in w.tpot_derived[1]
    assert tpot[32].ratio == 6 / 12
    # SLA 20 ms, measured basis: B200 meets at 8 and 32 (128 has no measured TPOT, 256 is 30 ms);
    # H200 at 8, 32 and 64 (18 ms); 128 is 40 ms
    assert w.sla is not None
    assert (w.sla[0].concurrency, w.sla[0].output_throughput) == (32, 4800)
    assert (w.sla[1].concurrency, w.sla[1].output_throughput) == (64, 3200)
    assert w.sla_ratio == 32 / 64
    power = {p.concurrency: p for p in w.power}
    assert power[32].a == 4800 / 8000 and power[32].b == 2400 / 6000
    assert power[32].ratio == (4800 / 8000) / (2400 / 6000)
    assert set(power) == {32, 128}  # power exists only at these
    assert power[128].b is None


def test_derived_sla_basis() -> None:
    # derived per-token latency: 1000 ÷ (output ÷ concurrency): at 128, 1000 ÷ 75 = 13.3 ms; at 256,
    # 1000 ÷ (9000 ÷ 256) = 28.4 ms
    result = meets_sla(merge(rows("b200")), Sla(tpot_ms=20, ttft_ms=None, basis="derived"))
    assert result.concurrency == 128
    assert result.tpot_ms == 1000 / (9600 / 128)
    both = meets_sla(merge(rows("b200")), Sla(tpot_ms=20, ttft_ms=100, basis="measured"))
    assert both.concurrency == 32  # TTFT 80 ms ≤ 100


def test_ratio_text_cannot_mislead() -> None:
    labels = ["FP4", "FP8"]
    assert sweep_ratio_text(2.3, labels) == "2.30×"
    assert sweep_ratio_text(0.99, labels) == "0.99× (FP8 slightly ahead)"
    assert sweep_ratio_text(0.5, labels) == "0.50× (FP8 ahead)"
    assert sweep_ratio_text(1.02, labels) == "1.02× (FP4 slightly ahead)"
    assert sweep_ratio_text(1.001, labels) == "1.00× (even)"
    assert sweep_ratio_text(0.8, labels, lower_is_better=True) == "0.80× (FP4 lower)"
    assert sweep_ratio_text(None, labels) is None


measures = st.lists(
    st.builds(
        Measure,
        concurrency=st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]),
        output_throughput=st.one_of(st.none(), st.floats(1, 1e6)),
        gpu_count=st.one_of(st.none(), st.integers(1, 72)),
        tpot_ms=st.one_of(st.none(), st.floats(0.1, 1e4)),
        ttft_ms=st.one_of(st.none(), st.floats(0.1, 1e5)),
        power_w=st.one_of(st.none(), st.floats(1, 1e5)),
    ),
    max_size=12,
)


@given(measures, measures, st.floats(1, 1000))
def test_properties(a: list[Measure], b: list[Measure], limit: float) -> None:
    w = analyse_workload(128, 128, a, b, Sla(tpot_ms=limit, ttft_ms=None, basis="measured"))
    tested_a = {m.concurrency for m in a}
    for p in w.throughput:
        assert p.concurrency in tested_a | {m.concurrency for m in b}  # never interpolated
        assert (p.ratio is None) == (p.a is None or p.b is None)
        assert p.a != 0 and p.b != 0  # a missing value is None, never zero
        if p.ratio is not None and p.a is not None and p.b is not None:
            assert math.isclose(p.ratio, p.a / p.b)
    top = peak(merge(a))
    having = [m.output_throughput for m in a if m.output_throughput is not None]
    assert (top is None) == (not having)
    if top is not None:
        assert top.output_throughput == max(having)
    assert w.sla is not None
    result = w.sla[0]
    if result.concurrency is not None:
        assert result.tpot_ms is not None and result.tpot_ms <= limit
        assert all(c <= result.concurrency for c in result.meeting)


def test_example_page_builds_with_hand_checked_figures(tmp_path: Path) -> None:
    """The default site's example page: its figures equal hand calculations from the example rows."""
    project = Project.under(ROOT, tmp_path / "site")
    output = run(project)
    data = json.loads(output.files.files["example-b200-fp4-vs-h200-fp8-sweep/comparison.json"])
    sweep = data["sweep"]
    w = next(x for x in sweep["workloads"] if x["sequence"] == "2k/2k")
    # example-sweep.csv, 2048/2048: B200 FP4 at 1024 = 14158.2 tok/s (its highest); H200 FP8 at 512 = 4357.7
    assert w["peaks"][0]["output_throughput"] == 14158.2 and w["peaks"][0]["concurrency"] == 1024
    assert w["peaks"][1]["output_throughput"] == 4357.7 and w["peaks"][1]["concurrency"] == 512
    assert w["peak_ratio"] == 14158.2 / 4357.7
    # SLA 50 ms measured: B200 FP4 512 (36.21 ms; 1024 is 69.43), H200 FP8 64 (24.45 ms; 128 and 256
    # have no measured TPOT, 512 is 112.79 ms)
    assert [r["concurrency"] for r in w["sla"]] == [512, 64]
    assert w["sla_concurrency_ratio_text"] == "8.00×"
    missing = next(x for x in sweep["workloads"] if x["sequence"] == "128/2k")
    assert missing["measured"] == [True, False]
    assert all(p["values"][1] is None for p in missing["output_throughput"])
    tpot = {p["concurrency"]: p for p in w["tpot_ms"]}
    assert tpot[128]["derived"] == [False, True]
    assert tpot[128]["values"][1] == 1000 / (3388.6 / 128)
    assert data["throughput_basis"] == "output"
    html = output.files.files["example-b200-fp4-vs-h200-fp8-sweep/index.html"].decode()
    assert "changes hardware and precision at once" in html
    assert "not measured" in html and "(derived)" in html
    csv_text = output.files.files["example-b200-fp4-vs-h200-fp8-sweep/sweep.csv"].decode()
    assert ",derived," in csv_text


def test_the_authors_body_shows_without_the_matched_interactivity_sections(tmp_path: Path) -> None:
    """A stub that asks only for sweep sections still shows the Markdown its author wrote, once."""
    project = tmp_path / "p"
    shutil.copytree(
        ROOT / "data" / "results" / "example-sweep", project / "data" / "results" / "example-sweep"
    )
    (project / "content").mkdir()
    stub = (ROOT / "content" / "example-b200-fp4-vs-h200-fp8-sweep.md").read_text()
    stub = stub.replace(", matched-interactivity]", "]")
    assert "matched-interactivity" not in stub.split("---")[1]
    (project / "content" / "sweep.md").write_text(stub)
    output = run(Project.under(project, project / "site"))
    html = output.files.files["sweep/index.html"].decode()
    assert html.count("Every number on this page comes from an invented sweep") == 1
    assert 'id="findings-heading"' not in html


def test_a_blank_or_na_required_cell_is_named_missing(tmp_path: Path) -> None:
    """A required cell holding only spaces or N/A was taken as present and then crashed the loader."""
    header, row = FIXTURE.read_text().splitlines()[:2]
    cells = row.split(",")
    column = header.split(",").index("isl")
    for blank in (" ", "N/A"):
        cells[column] = blank
        path = tmp_path / "sweep.csv"
        path.write_text(header + "\n" + ",".join(cells) + "\n")
        result = load_file(path)
        assert not result.sweeps
        assert [(p.field, p.reason.split(":")[0]) for p in result.log.errors] == [("isl", "missing")]


def test_mean_latencies_are_labelled_mean_everywhere(tmp_path: Path) -> None:
    """Rows giving mean_tpot_ms / mean_ttft_ms: the page, comparison.json and sweep.csv say mean."""
    project = tmp_path / "p"
    folder = project / "data" / "results" / "example-sweep"
    shutil.copytree(ROOT / "data" / "results" / "example-sweep", folder)
    rows_file = folder / "example-sweep.csv"
    rows_file.write_text(
        rows_file.read_text().replace("median_tpot_ms,median_ttft_ms", "mean_tpot_ms,mean_ttft_ms")
    )
    (project / "content").mkdir()
    stub = (ROOT / "content" / "example-b200-fp4-vs-h200-fp8-sweep.md").read_text()
    (project / "content" / "sweep.md").write_text(stub)
    output = run(Project.under(project, project / "site"))
    data = json.loads(output.files.files["sweep/comparison.json"])
    # example-sweep.csv, first B200 FP4 row at 128/128, concurrency 4: TPOT 4.56 ms, TTFT 22.8 ms
    row = next(r for r in data["sweep"]["rows"] if r["sequence"] == "128/128" and r["concurrency"] == 4)
    assert (row["mean_tpot_ms"], row["mean_ttft_ms"]) == (4.56, 22.8)
    assert (row["median_tpot_ms"], row["median_ttft_ms"]) == (None, None)
    html = output.files.files["sweep/index.html"].decode()
    assert "Mean time to first token" in html and "Mean TPOT at each concurrency" in html
    assert "a mean TPOT" in html
    assert "Median TPOT" not in html and "Median time" not in html
    header, first = output.files.files["sweep/sweep.csv"].decode().splitlines()[:2]
    cells = dict(zip(header.split(","), first.split(","), strict=True))
    assert cells["mean_tpot_ms"] != "" and cells["median_tpot_ms"] == ""


def test_a_row_with_both_mean_and_median_latencies_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sweep.csv"
    path.write_text(
        "model,hardware,precision,isl,osl,concurrency,median_tpot_ms,mean_ttft_ms\nm,b200,fp8,128,128,4,5,40\n"
    )
    log = load_file(path).log
    assert [(e.record, e.field) for e in log.errors] == [("line 2", "mean_ttft_ms")]
    assert "medians or as means" in log.errors[0].reason


def _example_with_power(tmp_path: Path, watts: dict[str, str]) -> dict[str, bytes]:
    """The example sweep page with every row's system power set per hardware ('' : not measured)."""
    project = tmp_path / "p"
    folder = project / "data" / "results" / "example-sweep"
    shutil.copytree(ROOT / "data" / "results" / "example-sweep", folder)
    rows_file = folder / "example-sweep.csv"
    lines = rows_file.read_text().splitlines()
    header = lines[0].split(",")
    hardware, power = header.index("hardware"), header.index("system_power_w")
    edited = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        cells[power] = watts.get(cells[hardware], "")
        edited.append(",".join(cells))
    rows_file.write_text("\n".join(edited) + "\n")
    (project / "content").mkdir()
    stub = (ROOT / "content" / "example-b200-fp4-vs-h200-fp8-sweep.md").read_text()
    (project / "content" / "sweep.md").write_text(stub)
    return run(Project.under(project, project / "site")).files.files


def test_node_power_nine_times_below_the_catalog_is_flagged_and_within_two_is_not(tmp_path: Path) -> None:
    # catalog all-in: B200 2,170 W per GPU, H200 1,730 W per GPU (the page's constants).
    # B200: 1,928.8 W for 8 GPUs = 241.1 W per GPU, 2,170 ÷ 241.1 = 9.00× apart: flagged.
    # H200: 8,000 W for 8 GPUs = 1,000 W per GPU, 1,730 ÷ 1,000 = 1.73×: not flagged.
    files = _example_with_power(tmp_path, {"b200": "1928.8", "h200": "8000"})
    data = json.loads(files["sweep/comparison.json"])
    flagged = [n for n in data["notices"] if "disagrees with the catalog" in n]
    workloads = {w["sequence"] for w in data["sweep"]["workloads"] if w["measured"][0]}
    assert len(flagged) == len(workloads) and all(n.startswith("B200 FP4's") for n in flagged)
    assert "241 W per GPU measured against the catalog's all-in 2,170 W per GPU, 9.00× apart" in flagged[0]
    html = files["sweep/index.html"].decode()
    power_section = html[html.index('id="power-heading"') :]
    assert "241 W per GPU measured against the catalog&#39;s all-in 2,170 W per GPU" in power_section
    assert "H200 FP8&#39;s measured power disagrees" not in html
    assert "1,000" in power_section  # H200's measured watts per GPU listed, unflagged


def test_node_power_within_two_times_is_not_flagged(tmp_path: Path) -> None:
    # B200: 16,000 W ÷ 8 = 2,000 W per GPU, 2,170 ÷ 2,000 = 1.085×; H200 not measured
    files = _example_with_power(tmp_path, {"b200": "16000"})
    data = json.loads(files["sweep/comparison.json"])
    assert not [n for n in data["notices"] if "disagrees with the catalog" in n]
    assert "power-flag" not in files["sweep/index.html"].decode().split('id="power-heading"')[1]
