"""Every command reads what it is given under the one input rule (a regular file, text, no NUL,
within the size limit), and every address that reaches a link or structured data is http(s)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from site_builder.cli import main
from site_builder.files import MAX_FILE_BYTES

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path(__file__).parent / "fixtures" / "native" / "typed-in.csv"
ATTRIBUTION = ["--id", "lab", "--title", "Lab", "--source", "notebook"]


def _refused(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Files no command may read, each with the words its refusal gives."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "folder").mkdir()
    binary = tmp_path / "tool.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\xff\xfe")
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:  # sparse: no disk used
        handle.truncate(MAX_FILE_BYTES + 1)
    cases = {
        "fifo": (fifo, "not a regular file"),
        "folder": (tmp_path / "folder", "not a regular file"),
        "binary": (binary, "not valid UTF-8"),
        "huge": (huge, "MiB an input may be"),
    }
    environ = Path("/proc/self/environ")
    if environ.exists():
        cases["environ"] = (environ, "NUL")
    return cases


@pytest.mark.parametrize("option", ["--notes-file", "source"])
def test_import_refuses_what_is_not_a_text_file(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name, (path, reason) in _refused(inputs).items():
        out = tmp_path / f"{name}.json"
        named = ["--notes-file", str(path), str(SOURCE)] if option == "--notes-file" else [str(path)]
        if option == "source" and name == "folder":  # a folder of result files is a source
            reason = "no result file under this folder was read"
        assert main(["import", *named, "-o", str(out), *ATTRIBUTION]) == 1, name
        err = capsys.readouterr().err
        assert str(path) in err and reason in err, (name, err)
        assert "Traceback" not in err and not out.exists(), name


def test_a_notes_file_that_is_text_becomes_the_notes(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("\ufeffMeasured on our lab's node.\n", encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["import", str(SOURCE), "--notes-file", str(notes), "-o", str(out), *ATTRIBUTION]) == 0
    assert '"notes": "Measured on our lab\'s node."' in out.read_text(encoding="utf-8")


def test_a_published_page_is_read_under_the_same_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "page.txt"
    os.mkfifo(fifo)
    out = tmp_path / "out.json"
    args = ["import-published", str(fifo), "--model", "m", "--hardware", "b200", "--vary", "precision"]
    args += ["--side", "FP4=fp4", "--sequence", "1k/1k", "-o", str(out), *ATTRIBUTION]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert str(fifo) in err and "not a regular file" in err and not out.exists()


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "data:text/html,x", "file:///etc/passwd", "//x.example/", "https://x/ y"]
)
def test_import_refuses_an_address_that_is_not_http(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.json"
    assert main(["import", str(SOURCE), "--url", url, "-o", str(out), *ATTRIBUTION]) == 1
    err = capsys.readouterr().err
    assert "'--url'" in err and "http" in err and "Traceback" not in err and not out.exists()


def test_an_http_address_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert (
        main(["import", str(SOURCE), "--url", "https://lab.example/run/7", "-o", str(out), *ATTRIBUTION]) == 0
    )
    assert '"url": "https://lab.example/run/7"' in out.read_text(encoding="utf-8")


def test_a_dataset_address_that_is_not_http_is_refused_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "data", project / "data")
    shutil.copytree(ROOT / "content", project / "content")
    sweep = project / "data" / "results" / "example-sweep" / "_dataset.yaml"
    sweep.write_text(sweep.read_text(encoding="utf-8") + 'url: "javascript:alert(1)"\n', encoding="utf-8")
    hardware = project / "data" / "hardware.yaml"
    hardware.write_text(
        hardware.read_text(encoding="utf-8") + 'source_url: "javascript:alert(2)"\n', encoding="utf-8"
    )
    assert main(["build", "--root", str(project), "-q", "--no-cache", "-o", str(tmp_path / "site")]) == 1
    err = capsys.readouterr().err
    assert "data/results/example-sweep/_dataset.yaml, field 'url'" in err
    assert "hardware.yaml" in err and "source_url" in err
    assert not (tmp_path / "site").exists()


STUB = (
    "---\nkind: hardware\nmodel: dsr1\nprecision: fp8\nsides:\n"
    "  - {label: B200, hardware: b200}\n  - {label: H200, hardware: h200}\n---\n"
)


def test_a_hidden_stub_is_named_with_the_reason_it_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "data", project / "data")
    (project / "content").mkdir()
    (project / "content" / "site.yaml").write_text("auto_pages: false\n", encoding="utf-8")
    for name in ("..md", ".#page.md"):
        (project / "content" / name).write_text(STUB, encoding="utf-8")
    assert main(["build", "--root", str(project), "--no-cache", "-o", str(tmp_path / "site")]) == 0
    err = capsys.readouterr().err
    for name in ("..md", ".#page.md"):
        assert f"warning: content/{name}: skipped: a name starting with '.' or '#' is hidden" in err
    assert "rename it" in err and "build-site new KIND" in err


def test_a_link_to_a_folder_outside_the_data_is_named_once(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(The conftest's one-page project: what is checked is the loader's walk of data/.)"""
    outside = project / "elsewhere"
    outside.mkdir()
    shutil.copy(SOURCE, outside / "runs.csv")
    (project / "data" / "results" / "linked").symlink_to(outside, target_is_directory=True)
    inside = project / "data" / "results" / "lab"
    inside.mkdir()
    (project / "data" / "results" / "lab.csv").rename(inside / "lab.csv")
    (project / "data" / "again").symlink_to(inside, target_is_directory=True)  # read where it is
    assert main(["build", "--root", str(project), "-q", "--no-cache", "-o", str(project / "site")]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "symbolic link" in line]
    assert lines == [
        "warning: data/results/linked: a symbolic link to a folder outside data/: skipped, nothing is "
        "read from outside the project (copy the folder into data/ instead)"
    ]


def test_a_metadata_file_address_that_is_not_http_is_refused(tmp_path: Path) -> None:
    from site_builder.read.load import load_file

    fixtures = Path(__file__).parent / "fixtures" / "vllm"
    for name in ("kimi_fp4_b200_c16.json", "kimi_fp4_b200_c16.meta.yaml"):
        shutil.copy(fixtures / name, tmp_path / name)
    meta = tmp_path / "kimi_fp4_b200_c16.meta.yaml"
    meta.write_text(
        meta.read_text(encoding="utf-8").replace("https://example.org/runs/1", "javascript:alert(1)"),
        encoding="utf-8",
    )
    errors = load_file(tmp_path / "kimi_fp4_b200_c16.json").log.errors
    assert any(e.file.endswith("kimi_fp4_b200_c16.meta.yaml") and e.field == "run_url" for e in errors), (
        errors
    )


def test_a_records_own_address_that_is_not_http_is_left_out_with_one_warning(tmp_path: Path) -> None:
    """A record's run_url reaches a link and comparison.json: one that breaks the address rule is
    left out of both, said once a file and address (naming file, record and field), while a good
    one is kept as written."""
    from site_builder.read.load import load_file

    csv = tmp_path / "runs.csv"
    lines = SOURCE.read_text(encoding="utf-8").splitlines()
    header, rows = lines[0] + ",run_url", [*lines[1:3], lines[2].replace(",64,", ",32,")]
    urls = ["javascript:alert(1)", "javascript:alert(1)", "https://lab.example/run/3"]
    csv.write_text("\n".join([header, *(f"{r},{u}" for r, u in zip(rows, urls, strict=True))]) + "\n")
    result = load_file(csv)
    assert result.table.python_values("run_url") == [None, None, "https://lab.example/run/3"]
    warned = [p for p in result.log.warnings if p.field == "run_url"]
    assert len(warned) == 1 and warned[0].record == "line 2" and "javascript:alert(1)" in warned[0].reason
