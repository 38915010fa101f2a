"""A side with one point on a workload has no interactivity range to match: where the two sides
have no interactivity in common, `check` (a stub's page) and the plan (a generated page left
unpublished) say which side, how many points on which workload, and what to do."""

from __future__ import annotations

from pathlib import Path

from site_builder.check import run_check
from site_builder.problems import Problem, Severity
from site_builder.project import Project

HEADER = "model,hardware,framework,precision,spec_method,tp,gpu_count,isl,osl,concurrency,throughput_per_gpu,median_tpot_ms\n"
FP8 = (
    "dsr1,h200,sglang,fp8,none,8,8,1024,1024,4,300.0,10.0\n"
    "dsr1,h200,sglang,fp8,none,8,8,1024,1024,16,900.0,20.0\n"
    "dsr1,h200,sglang,fp8,none,8,8,1024,1024,64,1800.0,40.0\n"
)
NEXT_STEP = "add runs at more concurrencies to that side, or widen its filters so it selects more points"


def _unmatched(project: Path, fp4_rows: str) -> list[Problem]:
    (project / "data" / "results" / "lab.csv").write_text(HEADER + FP8 + fp4_rows)
    report = run_check(Project.under(project))
    return [p for p in report.problems if "no interactivity in common" in p.reason]


def test_a_stub_whose_side_has_one_point_says_so(project: Path) -> None:
    # FP4 measured once, at 4 ms TPOT: 250 tok/s/user, beyond FP8's 25-100
    (warning,) = _unmatched(project, "dsr1,h200,sglang,fp4,none,8,8,1024,1024,4,450.0,4.0\n")
    assert warning.severity is Severity.WARNING and warning.file.endswith("h200-fp4-vs-fp8.md")
    assert "side 'FP4' has only 1 point on 1k/1k (at 250.0 tok/s/user)" in warning.reason
    assert "a single point has no interactivity range to match" in warning.reason
    assert warning.reason.endswith(NEXT_STEP)
    assert "FP8" not in warning.reason.split("measured range only", 1)[1]  # FP8 has a range


def test_points_at_one_interactivity_are_said_with_their_count(project: Path) -> None:
    rows = "".join(f"dsr1,h200,sglang,fp4,none,8,8,1024,1024,{c},{c * 100}.0,4.0\n" for c in (2, 4))
    (warning,) = _unmatched(project, rows)
    assert "side 'FP4' has 2 points all at one interactivity on 1k/1k (at 250.0 tok/s/user)" in warning.reason
    assert "a single interactivity has no interactivity range to match" in warning.reason


def test_a_generated_page_left_out_says_which_side_has_one_point(project: Path) -> None:
    (project / "content" / "h200-fp4-vs-fp8.md").unlink()
    (notice,) = _unmatched(project, "dsr1,h200,sglang,fp4,none,8,8,1024,1024,4,450.0,4.0\n")
    assert notice.severity is Severity.NOTICE and "not published" in notice.reason
    assert "has only 1 point on 1k/1k (at 250.0 tok/s/user)" in notice.reason
    assert notice.reason.endswith(NEXT_STEP)


def test_sides_with_ranges_that_miss_each_other_get_no_such_words(project: Path) -> None:
    rows = "".join(
        f"dsr1,h200,sglang,fp4,none,8,8,1024,1024,{c},{c * 100}.0,{tpot}\n"
        for c, tpot in ((2, 3.0), (4, 4.0))
    )
    (warning,) = _unmatched(project, rows)
    assert "point" not in warning.reason.split("measured range only", 1)[1]
