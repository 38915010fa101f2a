"""Hostile and broken input (issue 11): every case is a clear error naming the file, builds
correctly, or renders inert. Never a traceback, a wrong number, a read outside the project or a
lost user file. Each test here fails on the code before the input rules (b33e61e)."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from site_builder.catalog import load_hardware
from site_builder.cli import main
from site_builder.content import load_site_config, read_stub
from site_builder.files import Refused, parse_yaml
from site_builder.problems import ProblemLog
from site_builder.read.load import load_results
from tests.conftest import LAB_CSV, ROOT, STUB

HEADER = LAB_CSV.splitlines()[0]
GOOD_ROW = LAB_CSV.splitlines()[1]
SECRET = "AWS_SECRET_ACCESS_KEY=hunter2-do-not-leak"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def load(tmp_path: Path, name: str, content: str | bytes) -> tuple[int, list[str]]:
    """One result file in a data folder: (points loaded, problems as printed)."""
    data = tmp_path / name.replace(".", "-") / "data"
    data.mkdir(parents=True)
    path = data / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = load_results(data)
    return len(result.table), [str(p) for p in result.log.errors]


def csv_row(**changes: str) -> str:
    columns = HEADER.split(",")
    values = dict(zip(columns, GOOD_ROW.split(","), strict=True))
    values.update(changes)
    return ",".join(columns) + "\n" + ",".join(values[c] for c in columns) + "\n"


def native_json(**changes: object) -> str:
    record: dict[str, object] = {
        "model": "dsr1",
        "hardware": "h200",
        "framework": "sglang",
        "precision": "fp8",
        "isl": 1024,
        "osl": 1024,
        "concurrency": 4,
        "throughput_per_gpu": 300.0,
        "median_tpot_ms": 10.0,
    }
    record.update(changes)
    return json.dumps([record], ensure_ascii=False)


# -- leaks ----------------------------------------------------------------------------------------


def test_a_data_file_linking_outside_the_project_is_refused_naming_the_link(
    project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "environ.csv"
    outside.write_text(f"{SECRET}\x00HOME=/root\x00")
    (project / "data" / "results" / "leak.csv").symlink_to(outside)
    code, printed = run(capsys, "check", "--root", str(project), "--format", "json")
    report = json.loads(printed)
    assert code == 1 and SECRET not in printed and "hunter2" not in printed
    (problem,) = [p for p in report["problems"] if p["severity"] == "error"]
    assert problem["file"] == "data/results/leak.csv"
    assert "symbolic link" in problem["reason"] and "outside" in problem["reason"]


def test_a_stub_linking_outside_the_project_is_refused_and_nothing_published(
    project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "stub.md"
    outside.write_text(STUB.replace("A small comparison", SECRET))
    (project / "content" / "stolen.md").symlink_to(outside)
    code, printed = run(capsys, "build", "--root", str(project), "-q")
    assert code == 1 and "content/stolen.md" in printed and "symbolic link" in printed
    assert not (project / "site").exists()


def test_a_symlinked_stub_inside_the_project_is_still_read(project: Path) -> None:
    (project / "content" / "drafts").mkdir()
    real = project / "content" / "drafts" / "x.md"
    real.write_text(STUB.replace("kind:", "slug: linked\nkind:"))
    (project / "content" / "linked.md").symlink_to(real)
    log = ProblemLog()
    assert read_stub(project / "content" / "linked.md", "content/linked.md", log, project / "content")
    assert not log.problems


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "https://ex.org/\nDisallow: /", "ftp://ex.org/", "/x"]
)
def test_site_url_is_validated_from_the_command_line_and_site_yaml_alike(
    project: Path, capsys: pytest.CaptureFixture[str], url: str
) -> None:
    code, printed = run(capsys, "build", "--root", str(project), "--site-url", url, "-q")
    assert code == 1 and "--site-url" in printed and "site_url" in printed
    assert not (project / "site").exists()
    (project / "content" / "site.yaml").write_text(f"site_url: {json.dumps(url)}\n")
    code, printed = run(capsys, "build", "--root", str(project), "-q")
    assert code == 1 and "content/site.yaml" in printed and "site_url" in printed
    assert not (project / "site").exists()


def test_a_file_the_user_added_to_the_output_is_kept_or_the_build_refuses(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    site = project / "site"
    (site / "CNAME").write_text("bench.example.org\n")
    (site / ".well-known").mkdir()
    (site / ".well-known" / "security.txt").write_text("Contact: x\n")
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    assert (site / "CNAME").read_text() == "bench.example.org\n"
    assert (site / ".well-known" / "security.txt").is_file()
    (site / "notes.txt").write_text("mine")
    code, printed = run(capsys, "build", "--root", str(project), "-q")
    assert code == 1 and "notes.txt" in printed and "keep:" in printed
    assert (site / "notes.txt").read_text() == "mine"  # nothing was replaced
    (project / "content" / "site.yaml").write_text("keep: [CNAME, notes.txt]\n")
    code, printed = run(capsys, "build", "--root", str(project), "-q")
    assert code == 1 and ".well-known/security.txt" in printed  # no longer kept, still never deleted
    (project / "content" / "site.yaml").write_text("keep: [CNAME, .well-known/, notes.txt]\n")
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    assert (site / "notes.txt").read_text() == "mine" and (site / "CNAME").is_file()
    assert (site / ".well-known" / "security.txt").is_file()


def test_an_output_folder_inside_an_input_folder_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, printed = run(capsys, "build", "--root", str(project), "-o", str(project / "data" / "site"), "-q")
    assert code == 1 and "input folder" in printed
    assert not (project / "data" / "site").exists()


# -- leftovers and kills --------------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_staging_left_by_a_killed_build_is_removed_by_the_next(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = project / f".site.building-{_dead_pid()}"
    (stale / "half").mkdir(parents=True)
    live = project / f".site.building-{os.getpid() + 0}"  # this process: not a running build's
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    assert not stale.exists() and not live.exists()
    assert (project / "site" / "index.html").is_file()


def test_a_site_left_missing_between_the_two_renames_is_restored(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    retired = project / f".site.previous-{_dead_pid()}"
    (project / "site").rename(retired)  # what a kill between the renames leaves
    (project / "content" / "broken.md").write_text("no front matter\n")
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 1  # a failed build …
    assert (project / "site" / "index.html").is_file()  # … still put the previous site back
    assert not retired.exists()


def test_a_build_killed_at_any_moment_leaves_a_whole_site(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "site_builder.cli", "build", "--root", str(project), "-q"]
    subprocess.run(command, env=env, check=True, timeout=60)
    expected = sorted(p.relative_to(project / "site") for p in (project / "site").rglob("*"))
    for delay in (0.3, 0.8, 1.2, 1.6):
        child = subprocess.Popen(command, env=env)
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        now = sorted(p.relative_to(project / "site") for p in (project / "site").rglob("*"))
        assert now == expected, f"killed after {delay} s"
    subprocess.run(command, env=env, check=True, timeout=60)

    # killed builds' staging folders, and the replaced site, are deleted by a process of its own
    # (write.remove_in_background): then nothing is left beside the output
    def leftovers() -> list[str]:
        return sorted(p.name for p in project.iterdir() if p.name.startswith(".site."))

    assert _gone_within(30, leftovers)


def _gone_within(seconds: float, left: Callable[[], list[str]]) -> bool:
    deadline = time.monotonic() + seconds
    while left() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not left()


def test_nothing_is_left_beside_the_output_and_a_stopped_deletion_is_finished_next_time(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every build, cached or not, leaves nothing beside the output once the replaced site is
    deleted (a process of its own); a deletion that was stopped (its folder left, its process
    gone) is finished by the next build, as is the spare staging folder older versions kept."""

    def others() -> list[str]:
        return [p.name for p in project.iterdir() if p.name.startswith(".site.")]

    for options in ((), ("--no-cache",), (), ("--no-cache",)):
        assert run(capsys, "build", "--root", str(project), "-q", *options)[0] == 0
        assert _gone_within(30, others)
    shutil.copytree(project / "site", project / f".site.previous-{_dead_pid()}")
    shutil.copytree(project / "site", project / ".site.spare")
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    assert _gone_within(30, others)
    assert (project / "site" / "index.html").is_file()


# -- crashes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [7, {"name": "dsr1"}, ["dsr1"], True])
def test_a_non_text_model_in_an_inferencex_row_is_an_error(tmp_path: Path, model: object) -> None:
    fixture = json.loads((ROOT / "tests/fixtures/inferencex-api/benchmarks-excerpt.json").read_text())
    row = fixture[0] if isinstance(fixture, list) else fixture
    count, errors = load(tmp_path, "api.json", json.dumps([{**row, "model": model}]))
    assert count == 0
    assert any("data/api.json" in e and "'model'" in e and "must be text" in e for e in errors), errors


def test_agg_rows_with_a_non_text_prefix_are_an_error(tmp_path: Path) -> None:
    row = json.loads((ROOT / "tests/fixtures/agg/agg_dsr1_fp8_h200_trt_1k1k_v1.json").read_text())
    count, errors = load(tmp_path, "agg.json", json.dumps({**row, "infmax_model_prefix": {"x": 1}}))
    assert count == 0 and any("infmax_model_prefix" in e and "must be text" in e for e in errors), errors


@pytest.mark.parametrize("digits", [401, 5001])
def test_a_very_long_integer_names_the_file_and_check_prints_json(
    project: Path, capsys: pytest.CaptureFixture[str], digits: int
) -> None:
    text = native_json(throughput_per_gpu="__N__").replace('"__N__"', "9" * digits)
    (project / "data" / "results" / "long.json").write_text(text)
    code, printed = run(capsys, "check", "--root", str(project), "--format", "json")
    report = json.loads(printed)
    assert code == 1
    (problem,) = [p for p in report["problems"] if p["severity"] == "error"]
    assert problem["file"] == "data/results/long.json" and problem["line"] == 1
    assert "number" in problem["reason"] and len(problem["reason"]) < 200


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_deep_nesting_is_refused_with_its_line(tmp_path: Path, suffix: str) -> None:
    if suffix == "json":
        count, errors = load(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
        assert count == 0 and len(errors) == 1 and "nested more than" in errors[0] and "line 1" in errors[0]
        return
    (tmp_path / "site.yaml").write_text("title: " + "[" * 5000 + "]" * 5000 + "\n")
    log = ProblemLog()
    load_site_config(tmp_path, log)
    (problem,) = log.errors
    assert problem.file.endswith("site.yaml") and "nested more than" in problem.reason


def test_a_yaml_alias_bomb_in_a_stub_is_refused_at_once(tmp_path: Path) -> None:
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    bomb += [
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]" for i in range(20)
    ]
    path = tmp_path / "bomb.md"
    path.write_text("---\nkind: precision\nmodel: dsr1\n" + "\n".join(bomb) + "\n---\n")
    log = ProblemLog()
    started = time.perf_counter()
    assert read_stub(path, "content/bomb.md", log, tmp_path) is None
    assert time.perf_counter() - started < 2
    (problem,) = log.errors
    assert problem.record == "line 5" and "alias" in problem.reason


def test_yaml_keys_keep_the_lines_of_the_file() -> None:
    """Front matter starts on the file's second line: a key's line is the file's, for messages."""
    document = parse_yaml("kind: precision\nsides:\n  - {label: A}\n", 2)
    assert document.data == {"kind": "precision", "sides": [{"label": "A"}]}
    assert document.lines[("sides", 0, "label")] == 4
    with pytest.raises(Refused) as refused:
        parse_yaml("a: &x 1\nb: *x\n", 2)
    assert refused.value.where == "line 3" and "alias" in refused.value.reason


@pytest.mark.parametrize("value", [".inf", ".nan", "-1.0", "0", "1e308"])
def test_catalog_costs_and_power_are_finite_and_positive(tmp_path: Path, value: str) -> None:
    text = (ROOT / "data" / "hardware.yaml").read_text()
    path = tmp_path / "hardware.yaml"
    path.write_text(re.sub(r"watts_all_in: \d+", f"watts_all_in: {value}", text, count=1))
    log = ProblemLog()
    assert load_hardware(path, log) is None
    (problem,) = log.errors
    assert problem.field.endswith("watts_all_in") and problem.record.startswith("gpu '")


@pytest.mark.parametrize("value", [".inf", ".nan", "-1.5", "1e308"])
def test_stub_and_site_constants_are_held_to_the_numeric_rule(tmp_path: Path, value: str) -> None:
    stub = STUB.replace("sides:", f"constants:\n  h200: {{usd_per_gpu_hour: {value}}}\nsides:")
    (tmp_path / "x.md").write_text(stub)
    log = ProblemLog()
    assert read_stub(tmp_path / "x.md", "content/x.md", log, tmp_path) is None
    (problem,) = log.errors
    assert problem.field == "constants.h200.usd_per_gpu_hour" and problem.record == "line 6"
    (tmp_path / "site.yaml").write_text(f"constants:\n  h200: {{usd_per_gpu_hour: {value}}}\n")
    log = ProblemLog()
    load_site_config(tmp_path, log)
    (problem,) = log.errors
    assert problem.field == "constants.h200.usd_per_gpu_hour"


# -- silently wrong -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"throughput_per_gpu": "1e308"}, "throughput_per_gpu"),
        ({"throughput_per_gpu": "NaN"}, "throughput_per_gpu"),
        ({"concurrency": "1e308"}, "concurrency"),
        ({"median_tpot_ms": "1e-300"}, "median_tpot_ms"),  # 1/TPOT would be 1e300 tok/s/user
        ({"median_tpot_ms": "-Infinity"}, "median_tpot_ms"),
    ],
)
def test_absurd_values_are_refused_naming_the_users_field(
    tmp_path: Path, changes: dict[str, str], field: str
) -> None:
    text = LAB_CSV.splitlines()[0] + ",median_tpot_ms\n" if "median_tpot_ms" not in HEADER else None
    assert text is None
    count, errors = load(tmp_path, "lab.csv", csv_row(**changes))
    assert count == 0 and len(errors) == 1, errors
    assert errors[0].startswith(f"error: data/lab.csv, line 2, field '{field}': "), errors


def test_a_duplicate_json_key_is_an_error_naming_both_values(tmp_path: Path) -> None:
    text = native_json().replace(
        '"throughput_per_gpu": 300.0', '"throughput_per_gpu": 7000, "throughput_per_gpu": 700000'
    )
    count, errors = load(tmp_path, "dup.json", text)
    assert count == 0
    assert errors == [
        "error: data/dup.json, field '[0].throughput_per_gpu': given twice in one object (7000 and 700000): "
        "keep one, so no value is silently dropped"
    ]


def test_a_duplicate_key_in_a_stub_side_names_both_lines(tmp_path: Path) -> None:
    stub = STUB.replace(
        "  - {label: FP4, precision: fp4}", "  - label: FP4\n    precision: fp4\n    precision: fp8"
    )
    (tmp_path / "x.md").write_text(stub)
    log = ProblemLog()
    assert read_stub(tmp_path / "x.md", "content/x.md", log, tmp_path) is None
    (problem,) = log.errors
    assert problem.field == "sides[0].precision" and "lines 7 and 8" in problem.reason


def test_negative_hourly_cost_in_the_catalog_never_wins(tmp_path: Path) -> None:
    text = (ROOT / "data" / "hardware.yaml").read_text()
    path = tmp_path / "hardware.yaml"
    path.write_text(text.replace("hyperscaler: ", "hyperscaler: -", 1))
    log = ProblemLog()
    assert load_hardware(path, log) is None
    assert "usd_per_gpu_hour.hyperscaler" in log.errors[0].field


# -- unclear --------------------------------------------------------------------------------------


def test_an_empty_hardware_catalog_adds_nothing_and_says_so(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project's catalog adds to the packaged one: an empty one adds nothing (a warning)."""
    (project / "data" / "hardware.yaml").write_text("")
    code, printed = run(capsys, "check", "--root", str(project))
    assert code == 0 and "warning: " in printed and "data/hardware.yaml" in printed and "empty" in printed
    code, printed = run(capsys, "check", "--root", str(project), "--strict")
    assert code == 1


def test_a_long_slug_or_model_is_a_clear_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "content" / "long.md").write_text(STUB.replace("kind:", f"slug: {'a' * 300}\nkind:"))
    code, printed = run(capsys, "check", "--root", str(project))
    assert code == 1 and "content/long.md" in printed and "slug" in printed and "Errno" not in printed
    (project / "content" / "long.md").unlink()
    (project / "data" / "results" / "long.csv").write_text(csv_row(model="m" * 300))
    code, printed = run(capsys, "build", "--root", str(project), "-q")
    assert code == 1 and "long.csv, line 2, field 'model'" in printed and "Errno" not in printed


def test_a_truncated_pretty_json_file_is_one_error(tmp_path: Path) -> None:
    text = json.dumps(json.loads(native_json()) * 20, indent=2)
    count, errors = load(tmp_path, "cut.json", text[: len(text) // 2])
    assert count == 0 and len(errors) == 1 and "not valid JSON" in errors[0]


# -- good input refused ---------------------------------------------------------------------------


def test_byte_order_marks_are_accepted(tmp_path: Path) -> None:
    assert load(tmp_path, "excel.csv", b"\xef\xbb\xbf" + LAB_CSV.encode())[0] == 7
    assert load(tmp_path, "bom.json", b"\xef\xbb\xbf" + native_json().encode())[0] == 1
    (tmp_path / "bom.md").write_bytes(b"\xef\xbb\xbf" + STUB.encode())
    log = ProblemLog()
    assert read_stub(tmp_path / "bom.md", "content/bom.md", log, tmp_path) is not None


@pytest.mark.parametrize("character", ["\u2028", "\f", "\u2029", "\x85"])
def test_a_separator_inside_a_quoted_field_keeps_the_row_whole(tmp_path: Path, character: str) -> None:
    header = HEADER.replace(",date", ",note")
    rows = [row.rsplit(",", 1)[0] + f',"before{character}after"' for row in LAB_CSV.splitlines()[1:3]]
    assert load(tmp_path, "lab.csv", "\n".join([header, *rows]) + "\n") == (2, [])
    jsonl = "\n".join(native_json(note=f"a{character}b", concurrency=c)[1:-1] for c in (4, 8))
    assert load(tmp_path, "lines.jsonl", jsonl) == (2, [])


# -- bad input accepted ---------------------------------------------------------------------------


def test_nul_characters_are_refused(tmp_path: Path) -> None:
    count, errors = load(tmp_path, "nul.csv", csv_row(hardware="h2\x0000"))
    assert count == 0 and errors == [
        "error: data/nul.csv, line 2: contains a NUL character (column 8): not a text file"
    ]
    count, errors = load(tmp_path, "nul.json", native_json(model="ds\u0000r1"))
    assert count == 0 and "field '[0].model'" in errors[0] and "NUL" in errors[0]


@pytest.mark.parametrize("value", ["dsr1\n", "ds\x1br1", "ds\u202er1"])
def test_control_characters_in_identifiers_are_refused(tmp_path: Path, value: str) -> None:
    count, errors = load(tmp_path, "ctl.json", native_json(hardware=value + "x"))
    assert count == 0 and "field 'hardware'" in errors[0] and "printable" in errors[0]
    assert "\x1b" not in errors[0] and "\u202e" not in errors[0]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model", {"a": 1}),
        ("input_throughput_per_gpu", -5),
        ("p99_ttft_ms", -1),
        ("throughput_per_gpu", 1e308),
    ],
)
def test_wrong_kinds_and_signs_are_refused(tmp_path: Path, field: str, value: object) -> None:
    count, errors = load(tmp_path, "bad.json", native_json(**{field: value}))
    assert count == 0 and len(errors) == 1 and f"field '{field}'" in errors[0], errors


def test_error_messages_quote_only_a_short_printable_excerpt(tmp_path: Path) -> None:
    count, errors = load(tmp_path, "x.json", native_json(throughput_per_gpu="A" * 10_000 + "\x1b[31m"))
    assert count == 0 and len(errors) == 1 and len(errors[0]) < 200 and "\x1b" not in errors[0]
    count, errors = load(tmp_path, "y.csv", "\x1b[2J" + "k" * 5000 + ",b\n1,2\n")
    assert len(errors) == 1 and len(errors[0]) < 400 and "\x1b" not in errors[0]


def test_page_json_never_holds_nan_or_infinity(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "content" / "site.yaml").write_text("constants:\n  h200: {usd_per_gpu_hour: .nan}\n")
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 1
    (project / "content" / "site.yaml").write_text("constants:\n  h200: {usd_per_gpu_hour: 2.5}\n")
    assert run(capsys, "build", "--root", str(project), "-q")[0] == 0
    page = (project / "site" / "h200-fp4-vs-fp8" / "index.html").read_text()
    assert "NaN" not in page and "Infinity" not in page
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    assert all(math.isfinite(v) for v in _numbers(data))


def _numbers(value: object) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []
