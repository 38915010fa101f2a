"""build-site end to end: outputs, exit codes, atomic swap, nothing of the user's overwritten."""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder import write
from site_builder.cli import main
from site_builder.write import MARKER, Staging


def build(project: Path, *extra: str) -> int:
    return main(["build", "--root", str(project), "-q", *extra])


def read_tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_builds_comparison_json(project: Path) -> None:
    assert build(project) == 0
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    assert data["schema_version"] == 2 and data["slug"] == "h200-fp4-vs-fp8" and data["kind"] == "precision"
    assert data["title"] == "H200: FP4 vs FP8 Precision Comparison"
    assert data["model_name"] == "DeepSeek-R1-0528" and data["default_sequence"] == "1k/1k"
    assert [s["sequence"] for s in data["sequences"]] == ["1k/1k", "1k/8k"]
    one_k = data["sequences"][0]
    # FP8 spans 25–100, FP4 33.3–111.1: band 33.3–100 → targets 50, 67, 83
    assert one_k["band"]["display_lo"] == 34 and one_k["band"]["display_hi"] == 100
    assert one_k["targets"] == [50.0, 67.0, 83.0]
    first = one_k["results"][0]["sides"][0]
    assert first["measured"] and set(first) >= {
        "throughput_per_gpu",
        "cost_per_million_tokens",
        "tokens_per_sec_per_mw",
        "joules_per_token",
        "concurrency",
        "brackets",
    }
    knot = one_k["sides"][0]["frontier"][first["brackets"][0]]
    assert knot["configuration"] == "sglang TP8 (agg, 8 GPUs)"
    assert data["constants"][0]["usd_per_gpu_hour"] == 1.41 and data["constants"][0]["watts_all_in"] == 1730
    eight_k = data["sequences"][1]
    assert not eight_k["band"]["overlap"] and eight_k["results"] == []
    assert (project / "site" / MARKER).is_file()


def test_two_builds_are_byte_identical(project: Path) -> None:
    assert build(project) == 0
    first = read_tree(project / "site")
    assert build(project) == 0
    assert read_tree(project / "site") == first


def test_bad_input_exits_nonzero_names_the_place_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert build(project) == 0
    before = read_tree(project / "site")
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h200,sglang,fp8,none,8,8,1024,1024,128,-1,50.0,2026-09-03\n")
    (project / "content" / "broken.md").write_text("---\nkind: precision\nmodle: dsr1\n---\n")
    assert build(project) == 1
    err = capsys.readouterr().err
    assert "data/results/lab.csv, line 9, field 'throughput_per_gpu': must be greater than 0" in err
    assert "content/broken.md, line 3, field 'modle': unknown field (did you mean 'model'?)" in err
    assert "nothing was written" in err and "Traceback" not in err
    assert read_tree(project / "site") == before


def test_failed_write_leaves_the_previous_site(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert build(project) == 0
    before = read_tree(project / "site")
    original = Staging.write

    def failing(self: Staging, relative: str, content: bytes) -> None:
        if relative.endswith("/comparison.json"):
            raise OSError("disk full")
        original(self, relative, content)

    monkeypatch.setattr(Staging, "write", failing)
    assert build(project, "--no-cache") == 1  # cached, the page would be copied from the cache
    monkeypatch.undo()
    assert read_tree(project / "site") == before
    assert [p.name for p in project.iterdir() if p.name.startswith(".site.")] == []


def test_refuses_to_replace_a_folder_it_did_not_write(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = project / "site"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own notes")
    assert build(project) == 1
    assert "refusing to replace it" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "my own notes"


def test_write_site_rejects_paths_outside(tmp_path: Path) -> None:
    with pytest.raises(write.OutputError):
        write.write_site(tmp_path / "out", {"../escape.txt": b"x"})
    assert not (tmp_path / "escape.txt").exists()


def test_stub_pointing_at_missing_data_says_what_exists(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text().replace("precision: fp8}", "precision: int4}"))
    assert build(project) == 1
    err = capsys.readouterr().err
    assert (
        "content/h200-fp4-vs-fp8.md, line 7, field 'sides[1].precision': side 'FP8': no points with " in err
    )
    assert "precision=int4 among model=dsr1, hardware=h200; available: fp4, fp8" in err


def test_strict_mode_fails_on_warnings(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text() + "dsr1,h200,sglang,fp8,none,8,8,1024,1024,64,1700.0,41.0,2026-08-01\n")
    assert build(project) == 0  # a duplicate is a warning
    assert "duplicate point" in capsys.readouterr().err
    assert build(project, "--strict") == 1


def test_gpu_without_constants_shows_metrics_unavailable(project: Path) -> None:
    csv = project / "data" / "results" / "lab.csv"
    csv.write_text(csv.read_text().replace("h200", "tpuv7"))
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text().replace("hardware: h200", "hardware: tpuv7"))
    assert build(project) == 0
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    m = data["sequences"][0]["results"][0]["sides"][0]
    assert m["measured"] and m["throughput_per_gpu"] > 0
    assert (
        m["cost_per_million_tokens"] is None
        and "no hyperscaler cost" in m["unavailable"]["cost_per_million_tokens"]
    )


def test_site_and_page_constant_overrides(project: Path) -> None:
    (project / "content" / "site.yaml").write_text(
        "constants:\n  h200: {usd_per_gpu_hour: 2.0, source: site deal}\n"
    )
    assert build(project) == 0
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    assert data["constants"][0]["usd_per_gpu_hour"] == 2.0 and data["constants"][0]["watts_all_in"] == 1730
    assert (
        data["constants"][0]["source"]
        == "cost: site deal; power: the InferenceX dashboard's published constants (SemiAnalysis)"
    )
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(
        stub.read_text().replace(
            "hardware: h200\n", "hardware: h200\nconstants:\n  h200: {watts_all_in: 1500}\n"
        )
    )
    assert build(project) == 0
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    assert data["constants"][0]["usd_per_gpu_hour"] == 2.0 and data["constants"][0]["watts_all_in"] == 1500


def test_pinned_targets_and_not_measured(project: Path) -> None:
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(stub.read_text().replace("sides:", "targets: [30, 60, 105]\nsides:"))
    assert build(project) == 0
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    results = data["sequences"][0]["results"]
    assert [r["interactivity"] for r in results] == [30.0, 60.0, 105.0]
    assert not results[0]["sides"][0]["measured"]  # FP4 starts at 33.3
    assert results[0]["sides"][1]["measured"]
    assert results[2]["sides"][0]["measured"] and not results[2]["sides"][1]["measured"]
    assert data["sequences"][1]["targets_pinned"] is False


def test_import_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = Path(__file__).parent / "fixtures" / "native" / "typed-in.csv"
    out = tmp_path / "out.json"
    args = ["import", str(source), "-o", str(out), "--id", "lab", "--title", "Lab", "--source", "notebook"]
    assert main(args) == 0
    document = json.loads(out.read_text())
    assert document["format"] == "site-builder-points" and len(document["points"]) == 3
    assert document["dataset"] == {
        "id": "lab",
        "title": "Lab",
        "source": "notebook",
        "published_values": False,
    }
    out.write_text("mine")
    assert main(args) == 1
    assert "never overwrites" in capsys.readouterr().err and out.read_text() == "mine"


def test_import_round_trip_keeps_every_number(tmp_path: Path) -> None:
    from site_builder.read.load import load_file
    from site_builder.read.table import CONFIG_COLUMNS

    source = Path(__file__).parent / "fixtures" / "agg" / "agg_bmk.json"
    out = tmp_path / "native.json"
    assert main(["import", str(source), "-o", str(out), "--id", "x", "--title", "X", "--source", "s"]) == 0
    before, after = load_file(source).table, load_file(out).table
    assert len(before) == len(after) == 2
    configuration = [*CONFIG_COLUMNS, "isl", "osl", "concurrency", "throughput_per_gpu"]
    power = ["avg_watts_per_gpu", "joules_per_total_token", "joules_per_output_token"]
    for a, b in zip(before.records(), after.records(), strict=True):
        assert [a[k] for k in configuration] == [b[k] for k in configuration]
        assert b["interactivity"] == pytest.approx(a["interactivity"], rel=1e-14)
        assert [a[k] for k in power] == [b[k] for k in power]


def test_cli_help_and_default_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    assert "import-published" in capsys.readouterr().out


def test_narrowed_pooling_is_recorded(project: Path) -> None:
    stub = project / "content" / "h200-fp4-vs-fp8.md"
    stub.write_text(
        stub.read_text().replace("hardware: h200\n", "hardware: h200\nframework: sglang\ndisagg: false\n")
    )
    assert build(project) == 0
    data = json.loads((project / "site" / "h200-fp4-vs-fp8" / "comparison.json").read_text())
    side = data["sequences"][0]["sides"][0]
    assert side["pooling"] == "narrowed: framework=sglang; disagg=False"
    assert side["filters"] == {
        "model": "dsr1",
        "hardware": "h200",
        "framework": "sglang",
        "disagg": False,
        "precision": "fp4",
    }


def generated_slugs(project: Path) -> list[str]:
    site = project / "site"
    return sorted(p.name for p in site.iterdir() if (p / "comparison.json").is_file())


def test_generated_pages_and_takeover_by_identity(project: Path) -> None:
    # without the stub, the data implies one precision page, generated
    (project / "content" / "h200-fp4-vs-fp8.md").rename(project / "content" / "my-own-name.md")
    assert build(project) == 0
    # the stub (under another file name and other labels) has the same identity: no duplicate page
    assert generated_slugs(project) == ["my-own-name"]
    (project / "content" / "my-own-name.md").unlink()
    assert build(project) == 0
    assert generated_slugs(project) == ["h200-fp4-vs-fp8-dsr1"]
    data = json.loads((project / "site" / "h200-fp4-vs-fp8-dsr1" / "comparison.json").read_text())
    assert data["title"] == "H200: FP4 vs FP8 Precision Comparison"
    (project / "content" / "site.yaml").write_text("auto_pages: false\n")
    assert build(project) == 0
    assert generated_slugs(project) == []


def test_build_date_only_from_source_date_epoch(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert build(project) == 0
    page = (project / "site" / "index.html").read_text()
    assert " on 20" not in page.split("<footer", 1)[1]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    assert build(project) == 0
    footer = (project / "site" / "index.html").read_text().split("<footer", 1)[1]
    assert "on 2026-09-21" in footer


def test_progress_display_on_an_interactive_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from site_builder import cli

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    show = cli._progress(quiet=False)
    assert show is not None and cli._progress(quiet=True) is None
    for done in range(1, 61):
        show("rendering pages", done, 60)
    err = capsys.readouterr().err
    assert "\rrendering pages: 25/60" in err and err.endswith("rendering pages: 60/60\n")
    short = cli._progress(quiet=False)
    assert short is not None
    short("rendering pages", 1, 3)
    assert capsys.readouterr().err == ""  # short builds stay quiet


def test_the_output_folders_files_are_listed_with_links_not_followed(tmp_path: Path) -> None:
    """What a build checks before replacing a folder: every file, and a link (to a file or a
    folder) as itself: a linked folder's files are not the output folder's."""
    out = tmp_path / "site"
    (out / "a" / "b").mkdir(parents=True)
    (out / "index.html").write_text("i")
    (out / "a" / "b" / "c.txt").write_text("c")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("s")
    (out / "a" / "linked-folder").symlink_to(elsewhere)
    (out / "linked-file").symlink_to(out / "index.html")
    assert write._files_in(out) == ["a/b/c.txt", "a/linked-folder", "index.html", "linked-file"]


def _kept_as_defined(path: str, keep: list[str]) -> bool:
    """`keep:` as documented, entry by entry: the path itself, a file inside a folder, a glob."""
    for pattern in keep:
        folder = pattern.rstrip("/")
        if path == folder or path.startswith(folder + "/") or fnmatch.fnmatchcase(path, pattern):
            return True
    return False


PATH_PART = st.sampled_from(["CNAME", ".well-known", "a", "b.txt", "x.html", "[ab]", "*", "?", "sub"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(PATH_PART, min_size=1, max_size=3).map("/".join), max_size=6),
    st.lists(
        st.builds(
            lambda parts, slash: "/".join(parts) + slash,
            st.lists(PATH_PART, min_size=1, max_size=3),
            st.sampled_from(["", "/"]),
        ),
        max_size=4,
    ),
)
def test_keep_entries_match_as_defined(paths: list[str], keep: list[str]) -> None:
    is_kept = write.kept_by(keep)
    assert [is_kept(p) for p in paths] == [_kept_as_defined(p, keep) for p in paths]


def test_the_command_reports_and_exits_with_its_code_without_tearing_down(project: Path) -> None:
    """`build-site` ends with os._exit once its output is flushed: what it printed arrives
    whole, and its exit code is main's (0 built, 1 refused)."""
    command = [sys.executable, "-m", "site_builder.cli", "build", "--root", str(project)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Built 1 comparison page from ") and re.search(
        r"notices?\)\n$", done.stdout
    )
    assert (project / "site" / "index.html").is_file()
    (project / "content" / "broken.md").write_text("---\nkind: precision\nmodel: [\n---\n")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert "broken.md" in done.stderr and done.stderr.rstrip().endswith("nothing was written")


def test_the_swap_leaves_the_old_site_whole_until_it_is_done(tmp_path: Path) -> None:
    """The old site is there, whole, until the new one replaces it in one step."""
    write.write_site(tmp_path / "site", {"index.html": b"old"})
    staging = Staging(tmp_path / "site")
    staging.write("page/points.csv", b"a page's file")
    staging.write("index.html", b"new")
    assert (tmp_path / "site" / "index.html").read_bytes() == b"old"
    staging.finish()
    assert (tmp_path / "site" / "page" / "points.csv").read_bytes() == b"a page's file"
    assert (tmp_path / "site" / "index.html").read_bytes() == b"new"
