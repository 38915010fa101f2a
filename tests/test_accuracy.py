"""Accuracy beside speed: the statistics, the evaluation loaders, and what a page says of them.

Expected values are computed here from the definitions (mean, standard error with n − 1, the
normal 95% quantile), not copied from the output.
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.engine.accuracy import (
    RunScore,
    compare_task,
    difference,
    pool,
    run_numbers,
)
from site_builder.problems import ProblemLog, Severity
from site_builder.read.evals import native_eval_values
from site_builder.read.fields import RecordContext
from site_builder.read.load import load_results
from tests import outside
from tests.conftest import SCORES_CSV

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "lm-eval"
Z = 1.959963984540054


def _sd(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


# -- statistics -------------------------------------------------------------------------------------


def test_one_run_interval_from_its_standard_error() -> None:
    numbers = run_numbers(RunScore(0.9545, stderr=0.00574, questions=1319))
    assert numbers.estimate is not None and numbers.excluded is None
    assert numbers.estimate.lo == pytest.approx(0.9545 - 1.96 * 0.00574, abs=1e-4)
    assert numbers.estimate.hi == pytest.approx(0.9545 + 1.96 * 0.00574, abs=1e-4)


def test_one_run_interval_from_the_number_of_questions() -> None:
    # p = 0.9 over 101 questions: se = sqrt(0.9 * 0.1 / 100) = 0.03, as the harness computes it
    numbers = run_numbers(RunScore(0.9, questions=101))
    assert numbers.estimate is not None
    assert numbers.estimate.stderr == pytest.approx(0.03)
    assert (numbers.estimate.lo, numbers.estimate.hi) == pytest.approx((0.9 - Z * 0.03, 0.9 + Z * 0.03))


def test_interval_is_clipped_to_zero_and_one() -> None:
    numbers = run_numbers(RunScore(0.99, stderr=0.02))
    assert numbers.estimate is not None and numbers.estimate.hi == 1.0


def test_failed_and_errorless_runs_stay_out_of_the_pooled_score() -> None:
    assert run_numbers(RunScore(0.0, questions=1319)).excluded == "failed"
    assert run_numbers(RunScore(0.95)).excluded == "no-error"
    pooled = pool([RunScore(0.0, questions=1319), RunScore(0.95, stderr=0.006), RunScore(0.9)])
    assert pooled is not None and pooled.runs == 1 and pooled.estimate.value == 0.95
    assert pool([RunScore(0.0, questions=10)]) is None


def test_runs_without_per_question_results_pool_conservatively() -> None:
    pooled = pool([RunScore(0.95, stderr=0.006), RunScore(0.93, stderr=0.008)])
    assert pooled is not None and pooled.method == "conservative"
    assert pooled.estimate.value == pytest.approx(0.94)
    assert pooled.estimate.stderr == pytest.approx(math.sqrt((0.006**2 + 0.008**2) / 2))
    # 0.02 apart against a combined 95% noise of 1.96 * 0.01 = 0.0196: flagged as disagreeing
    assert pooled.spread == (0.93, 0.95) and not pooled.consistent


def test_runs_with_per_question_results_pool_exactly() -> None:
    a = {str(q): float(q % 3 != 0) for q in range(30)}
    b = {str(q): float(q % 5 != 0) for q in range(30)}
    pooled = pool(
        [RunScore(sum(a.values()) / 30, per_question=a), RunScore(sum(b.values()) / 30, per_question=b)]
    )
    means = [(a[str(q)] + b[str(q)]) / 2 for q in range(30)]
    assert pooled is not None and pooled.method == "per-question"
    assert pooled.estimate.stderr == pytest.approx(_sd(means) / math.sqrt(30))


def test_unpaired_difference() -> None:
    a = pool([RunScore(0.955, stderr=0.0057)])
    b = pool([RunScore(0.958, stderr=0.0055)])
    assert a is not None and b is not None
    d = difference(a, b)
    se = math.sqrt(0.0057**2 + 0.0055**2)
    assert d.method == "unpaired" and d.estimate.value == pytest.approx(-0.003)
    assert (d.estimate.lo, d.estimate.hi) == pytest.approx((-0.003 - Z * se, -0.003 + Z * se))
    assert d.verdict == "within-noise"


def test_paired_difference_is_tighter_and_can_leave_noise() -> None:
    """200 questions; B answers 12 right that A gets wrong and nothing the other way round."""
    base = {str(q): float(q % 10 != 0) for q in range(200)}  # 180 right
    worse = dict(base)
    flipped = [q for q in range(200) if q % 10 != 0][:12]
    for q in flipped:
        worse[str(q)] = 0.0
    a = pool([RunScore(sum(worse.values()) / 200, per_question=worse)])
    b = pool([RunScore(sum(base.values()) / 200, per_question=base)])
    assert a is not None and b is not None
    d = difference(a, b)
    diffs = [worse[str(q)] - base[str(q)] for q in range(200)]
    assert d.method == "paired" and d.questions == 200
    assert d.estimate.value == pytest.approx(-12 / 200)
    assert d.estimate.stderr == pytest.approx(_sd(diffs) / math.sqrt(200))
    assert d.verdict == "b-better"
    unpaired = math.hypot(a.estimate.stderr, b.estimate.stderr)
    assert d.estimate.stderr < 0.6 * unpaired
    assert -12 / 200 + Z * unpaired > 0  # unpaired, the same gap would be within noise


def test_lower_is_better_flips_the_verdict() -> None:
    a, b = pool([RunScore(0.30, stderr=0.01)]), pool([RunScore(0.20, stderr=0.01)])
    assert a is not None and b is not None
    assert difference(a, b, higher_is_better=True).verdict == "a-better"
    assert difference(a, b, higher_is_better=False).verdict == "b-better"


answers = st.lists(st.booleans(), min_size=12, max_size=60)


@settings(max_examples=150, deadline=None)
@given(runs=st.lists(answers, min_size=2, max_size=4))
def test_conservative_pooling_is_never_narrower_than_exact(runs: list[list[bool]]) -> None:
    """The fallback's standard error bounds the exact per-question one from above."""
    n = min(len(r) for r in runs)
    scores = [RunScore(sum(r[:n]) / n, per_question={str(q): float(r[q]) for q in range(n)}) for r in runs]
    exact = pool(scores)
    fallback = pool([RunScore(s.score, questions=n) for s in scores if s.score > 0])
    if exact is None or fallback is None or exact.runs != fallback.runs:
        return
    assert fallback.estimate.stderr >= exact.estimate.stderr - 1e-12


@settings(max_examples=150, deadline=None)
@given(
    a=st.floats(0.01, 1.0),
    b=st.floats(0.01, 1.0),
    se_a=st.floats(0.0, 0.1),
    se_b=st.floats(0.0, 0.1),
)
def test_difference_is_antisymmetric_and_its_interval_ordered(
    a: float, b: float, se_a: float, se_b: float
) -> None:
    forward = compare_task([RunScore(a, stderr=se_a)], [RunScore(b, stderr=se_b)])
    backward = compare_task([RunScore(b, stderr=se_b)], [RunScore(a, stderr=se_a)])
    assert forward.difference is not None and backward.difference is not None
    f, r = forward.difference.estimate, backward.difference.estimate
    assert f.lo <= f.value <= f.hi
    assert f.value == pytest.approx(-r.value) and f.lo == pytest.approx(-r.hi)
    swapped = {"a-better": "b-better", "b-better": "a-better", "within-noise": "within-noise"}
    assert backward.difference.verdict == swapped[forward.difference.verdict]


# -- loaders ----------------------------------------------------------------------------------------


def _copy_fixture(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(FIXTURES, root / "lm-eval", ignore=shutil.ignore_patterns("*.py"))
    return root


def test_harness_results_load_with_their_samples(tmp_path: Path) -> None:
    root = _copy_fixture(tmp_path)
    loaded = load_results(root)
    assert [p for p in loaded.log.problems if p.severity is not Severity.NOTICE] == []
    runs = {r.precision: r for r in loaded.evaluations}
    assert sorted(runs) == ["fp4", "fp8"]
    fp4 = runs["fp4"]
    # the fixture's FP4 server answered 35 of 40 questions (make_fixture.py)
    assert fp4.model == "dsr1" and fp4.hardware == "mi355x" and fp4.framework == "sglang"
    assert fp4.task == "gsm8k" and fp4.metric == "exact_match,strict-match"
    assert fp4.score == pytest.approx(35 / 40) and fp4.questions == 40
    assert fp4.stderr == pytest.approx(math.sqrt((35 / 40) * (5 / 40) * 40 / 39) / math.sqrt(40))
    assert fp4.date == "2026-05-05"  # the harness's Unix `date`, in UTC
    assert fp4.per_question is not None and len(fp4.per_question) == 40
    assert sum(v for _, v in fp4.per_question) == 35
    assert "5-shot" in (fp4.setup or "") and "greedy" in (fp4.setup or "") and "TP8" in (fp4.setup or "")


def test_temperature_false_is_not_read_as_greedy(tmp_path: Path) -> None:
    """`temperature: false` is no temperature (False == 0 in Python): the setup says neither
    greedy nor a temperature; `temperature: 0.7` is a temperature."""
    root = _copy_fixture(tmp_path)
    results = next((root / "lm-eval" / "fp4").rglob("results_*.json"))
    document = json.loads(results.read_text())
    for value, said in ((False, None), (0.7, "temperature 0.7")):
        document["configs"]["gsm8k"]["generation_kwargs"] = {"temperature": value}
        results.write_text(json.dumps(document))
        fp4 = next(r for r in load_results(root).evaluations if r.precision == "fp4")
        setup = fp4.setup or ""
        assert "greedy" not in setup and "False" not in setup, setup
        assert said is None or said in setup


def test_a_samples_log_that_disagrees_with_its_results_is_not_used(tmp_path: Path) -> None:
    root = _copy_fixture(tmp_path)
    log = next(root.rglob("samples_gsm8k_2026-05-05*.jsonl"))
    lines = log.read_text().splitlines()
    first = json.loads(lines[0])
    first["exact_match"] = 1.0 - first["exact_match"]
    log.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    loaded = load_results(root)
    fp4 = next(r for r in loaded.evaluations if r.precision == "fp4")
    assert fp4.per_question is None
    warning = next(p for p in loaded.log.warnings if "is not used" in p.reason)
    assert warning.file.endswith(log.name)


def test_harness_results_without_metadata_name_the_file(tmp_path: Path) -> None:
    root = _copy_fixture(tmp_path)
    for meta in root.rglob("_meta.yaml"):
        meta.unlink()
    loaded = load_results(root)
    assert loaded.evaluations == []
    assert any("metadata file" in p.reason and "results_2026-05-05" in p.file for p in loaded.log.errors)


def test_harness_stderr_not_available_falls_back_to_the_question_count(tmp_path: Path) -> None:
    root = _copy_fixture(tmp_path)
    results = next(root.rglob("results_2026-05-04*.json"))
    document = json.loads(results.read_text())
    document["results"]["gsm8k"]["exact_match_stderr,strict-match"] = "N/A"
    results.write_text(json.dumps(document))
    fp8 = next(r for r in load_results(root).evaluations if r.precision == "fp8")
    assert fp8.stderr is None and fp8.questions == 40
    numbers = run_numbers(RunScore(fp8.score, fp8.stderr, fp8.questions))
    assert numbers.estimate is not None
    assert numbers.estimate.stderr == pytest.approx(math.sqrt(0.95 * 0.05 / 39))


NATIVE_SCORES = SCORES_CSV


def test_native_score_csv_and_json(tmp_path: Path) -> None:
    root = tmp_path / "results"
    root.mkdir()
    (root / "scores.csv").write_text(NATIVE_SCORES)
    envelope = {
        "format": "site-builder-points",
        "version": 1,
        "dataset": {"id": "typed", "title": "Typed-in scores", "source": "a paper's table 3"},
        "evaluations": [
            {
                "model": "dsr1",
                "hardware": "B200-TRT",
                "precision": "NVFP4",
                "task": "gsm8k",
                "score": 0.9,
                "questions": 1319,
            }
        ],
    }
    (root / "typed.json").write_text(json.dumps(envelope))
    loaded = load_results(root)
    assert loaded.log.errors == []
    by_file = sorted((r.provenance.source_file, r.hardware, r.precision, r.score) for r in loaded.evaluations)
    assert by_file == [
        ("results/scores.csv", "h200", "fp4", 0.93),
        ("results/scores.csv", "h200", "fp8", 0.95),
        ("results/typed.json", "b200", "fp4", 0.9),  # aliases: B200-TRT → b200, NVFP4 → fp4
    ]
    assert loaded.evaluations[0].provenance.record == "line 2"


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ({"score": "1.5"}, "score", "less than or equal to 1"),
        ({"score": "nan"}, "score", "finite"),
        ({"stderr": "", "questions": ""}, "stderr", "standard error or the number of questions"),
        ({"scroe": "0.9"}, "scroe", "did you mean 'score'"),
        ({"questions": "12.5"}, "questions", "whole number"),
        ({"higher_is_better": "perhaps"}, "higher_is_better", "perhaps"),
    ],
)
def test_bad_native_scores_name_file_record_and_field(
    tmp_path: Path, row: dict[str, str], field: str, words: str
) -> None:
    good = {
        "model": "dsr1",
        "hardware": "h200",
        "precision": "fp8",
        "task": "gsm8k",
        "score": "0.9",
        "stderr": "0.01",
    }
    record = {**good, **row}
    root = tmp_path / "results"
    root.mkdir()
    (root / "scores.csv").write_text(",".join(record) + "\n" + ",".join(record.values()) + "\n")
    loaded = load_results(root)
    assert loaded.evaluations == []
    problem = next(p for p in loaded.log.errors if p.field == field)
    assert problem.file == "results/scores.csv" and problem.record == "line 2" and words in problem.reason


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["model", "hardware", "precision", "task", "metric", "score", "stderr", "questions", "date", "x"]
        ),
        st.one_of(st.none(), st.text(max_size=8), st.floats(allow_nan=True), st.integers(), st.booleans()),
    )
)
def test_native_score_records_never_raise(row: dict[str, object]) -> None:
    log = ProblemLog()
    values = native_eval_values(row, RecordContext("f.json", "record 1", log))
    assert set(values) >= {"metric", "score", "stderr", "questions", "spec_method"}


@outside.needs("real-data", "inferencex-evals", "supplemental-evals.json")
def test_the_imported_evaluations_are_the_real_rows(tmp_path: Path) -> None:
    """data/results/inferencex-evals.json holds exactly what importing the real file gives."""
    real = outside.path("real-data", "inferencex-evals", "supplemental-evals.json")
    rows = json.loads(real.read_text())
    root = tmp_path / "results"
    root.mkdir()
    shutil.copy(ROOT / "data" / "results" / "inferencex-evals.json", root)
    imported = load_results(root).evaluations
    assert len(imported) == len(rows) == 66
    for run, row in zip(imported, rows, strict=True):
        assert run.score == row["score"] and run.stderr == row["score_se"] and run.questions == row["n_eff"]
        assert run.task == row["task"] and run.precision == row["precision"]
        assert run.hardware == row["hw"].lower().removesuffix("-trt")


# -- pages ------------------------------------------------------------------------------------------


def _built(project: Path) -> Path:
    assert main(["build", "--root", str(project), "-q"]) == 0
    return project / "site"


def _json(site: Path, slug: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((site / slug / "comparison.json").read_text())
    return data


def test_a_page_without_evaluation_results_says_so_in_one_line(project: Path) -> None:
    site = _built(project)
    html = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert 'id="accuracy-heading"' not in html and "accuracy.csv" not in html
    assert html.count("No accuracy results for either side") == 1
    assert _json(site, "h200-fp4-vs-fp8")["accuracy"] is None
    assert "accuracy: no data" in (site / "index.html").read_text()


def test_scores_on_a_page_with_intervals_and_a_verdict(project: Path) -> None:
    (project / "data" / "results" / "scores.csv").write_text(NATIVE_SCORES)
    site = _built(project)
    accuracy = _json(site, "h200-fp4-vs-fp8")["accuracy"]
    assert isinstance(accuracy, dict)
    (task,) = accuracy["tasks"]
    fp4, fp8 = task["sides"]
    se4 = math.sqrt(0.93 * 0.07 / 1318)  # FP4 gives only its question count
    assert fp4["stderr"] == pytest.approx(se4) and fp8["stderr"] == 0.006
    se = math.hypot(se4, 0.006)
    lo, hi = -0.02 - Z * se, -0.02 + Z * se
    assert (task["difference"]["ci_lo"], task["difference"]["ci_hi"]) == pytest.approx((lo, hi))
    assert hi < 0 and task["difference"]["verdict"] == "b-better" and task["difference"]["better"] == "FP8"
    html = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert (
        f"FP4 scores 93.0% on GSM8K against 95.0% for FP8: FP8 is better by 2.0 points "
        f"(95% CI of FP4 − FP8: \u2212{abs(lo) * 100:.1f} to \u2212{abs(hi) * 100:.1f}, unpaired)"
    ) in html
    summary = html.split('class="summary">')[1].split("</p>")[0]
    assert "On GSM8K accuracy FP8 scores 2.0 points higher" in summary
    assert "FP8 better by 2.0 pts on GSM8K" in (site / "index.html").read_text()
    rows = list(csv.DictReader(io.StringIO((site / "h200-fp4-vs-fp8" / "accuracy.csv").read_text())))
    assert [r["row"] for r in rows] == ["run", "pooled", "run", "pooled", "difference"]
    assert float(rows[-1]["ci_hi"]) == pytest.approx(hi)


def test_within_noise_is_never_called_a_win(project: Path) -> None:
    scores = NATIVE_SCORES.replace("0.95,0.006", "0.935,0.007")
    (project / "data" / "results" / "scores.csv").write_text(scores)
    site = _built(project)
    html = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert "is within noise" in html and "better by" not in html
    assert "accuracy: within noise" in (site / "index.html").read_text()
    summary = html.split('class="summary">')[1].split("</p>")[0]
    assert "GSM8K" not in summary


def test_one_side_only_is_said_in_one_line(project: Path) -> None:
    (project / "data" / "results" / "scores.csv").write_text(
        NATIVE_SCORES.splitlines()[0] + "\n" + NATIVE_SCORES.splitlines()[2] + "\n"
    )
    site = _built(project)
    html = (site / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert "FP4 has no usable GSM8K result, so the two cannot be compared on accuracy" in html
    accuracy = _json(site, "h200-fp4-vs-fp8")["accuracy"]
    assert isinstance(accuracy, dict) and accuracy["sides_without"] == ["FP4"]
    assert accuracy["tasks"][0]["difference"] is None
    assert "accuracy: FP8 only" in (site / "index.html").read_text()


def test_per_question_logs_give_a_paired_difference(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "content").mkdir(parents=True)
    root = _copy_fixture(project / "data")
    (root / "points.csv").write_text(
        "model,hardware,framework,precision,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms\n"
        + "".join(
            f"dsr1,mi355x,sglang,{p},8,8,1024,1024,{c},{t * f},{m}\n"
            for p, f in (("fp4", 1.5), ("fp8", 1.0))
            for c, t, m in ((4, 300, 10), (16, 900, 20), (64, 1800, 40))
        )
    )
    (project / "content" / "fp4.md").write_text(
        "---\nkind: precision\nmodel: dsr1\nhardware: mi355x\nsides:\n"
        "  - {label: FP4, precision: fp4}\n  - {label: FP8, precision: fp8}\n---\n"
    )
    site = _built(project)
    slug = next(p.parent.name for p in site.glob("*/comparison.json"))
    accuracy = _json(site, slug)["accuracy"]
    assert isinstance(accuracy, dict)
    d = accuracy["tasks"][0]["difference"]
    # make_fixture.py: FP4 misses 4 questions FP8 answers and answers 1 FP8 misses, of 40
    diffs = [-1.0] * 4 + [1.0] + [0.0] * 35
    assert d["method"] == "paired" and d["questions"] == 40
    assert d["value"] == pytest.approx(-3 / 40)
    assert d["stderr"] == pytest.approx(_sd(diffs) / math.sqrt(40))
    html = (site / slug / "index.html").read_text()
    assert "paired over the 40 questions both answered" in html


def test_speculative_decoding_difference_outside_noise_is_flagged(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "content").mkdir(parents=True)
    (project / "data" / "results").mkdir(parents=True)
    (project / "data" / "results" / "points.csv").write_text(
        "model,hardware,framework,precision,spec_method,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms\n"
        + "".join(
            f"dsr1,h200,sglang,fp8,{s},8,8,1024,1024,{c},{t * f},{m}\n"
            for s, f in (("mtp", 1.4), ("none", 1.0))
            for c, t, m in ((4, 300, 10), (16, 900, 20), (64, 1800, 40))
        )
    )
    (project / "data" / "results" / "scores.csv").write_text(
        "model,hardware,precision,spec_method,task,score,stderr\n"
        "dsr1,h200,fp8,mtp,gsm8k,0.90,0.005\n"
        "dsr1,h200,fp8,none,gsm8k,0.95,0.005\n"
    )
    (project / "content" / "mtp.md").write_text(
        "---\nkind: spec-decoding\nmodel: dsr1\nhardware: h200\nprecision: fp8\nsides:\n"
        "  - {label: MTP, spec_method: mtp}\n  - {label: 'Off', spec_method: none}\n---\n"
    )
    site = _built(project)
    html = (site / "mtp" / "index.html").read_text()
    assert "Off is better by 5.0 points" in html
    assert "so this difference is worth investigating" in html
