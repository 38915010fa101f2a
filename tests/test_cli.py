"""The command line's manners: a suggestion for a slip, a next step for every refusal, help for
every option, Ctrl+C without a traceback, `--version` without the pipeline's libraries."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from site_builder import check, importer, pipeline, scaffold, serve
from site_builder.cli import main, parser
from site_builder.runner import SPAWN_FROM, map_pages

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """main's exit status (argparse's too) and what it printed (stderr, then stdout)."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    printed = capsys.readouterr()
    return code, printed.err + printed.out


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("bild", "build"), ("biuld", "build"), ("serv", "serve"), ("chekc", "check"), ("imprt", "import")],
)
def test_a_mistyped_command_names_the_nearest(
    typed: str, meant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = refused([typed], capsys)
    assert code == 2 and f"unknown command '{typed}' (did you mean '{meant}'?)" in err


def test_a_word_like_no_command_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = refused(["publish"], capsys)
    assert code == 2 and "did you mean" not in err
    assert "build, serve, check, init, new, schema, import, import-published" in err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["build", "--rot", "."], "'--rot': did you mean '--root'?"),
        (["--rot", "."], "'--rot': did you mean '--root'?"),  # build, the default command
        (["serve", "--prot", "8001"], "'--prot': did you mean '--port'?"),
        (["build", "--no-cahce"], "'--no-cahce': did you mean '--no-cache'?"),
        (["build", "--site_url=https://a.example/"], "did you mean '--site-url'?"),
        (
            ["check", "--format", "jsn"],
            "invalid choice: 'jsn' (choose from 'text', 'json'); did you mean 'json'?",
        ),
    ],
)
def test_a_mistyped_option_names_the_nearest(
    argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = refused(argv, capsys)
    assert code == 2 and hint in err


def test_every_option_of_every_command_has_help() -> None:
    root = parser()
    assert sorted(root.commands) == sorted(
        ["build", "serve", "check", "init", "new", "schema", "import", "import-published"]
    )
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, command in root.commands.items()
        for action in command._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert missing == []
    for name, command in root.commands.items():  # and --help shows it
        shown = command.format_help()
        for action in command._actions:
            assert str(action.help).split("%")[0][:30] in " ".join(shown.split()), (name, action.dest)


@pytest.mark.parametrize("port", ["99999", "65536", "-1", "eighty"])
def test_a_bad_port_says_the_range(port: str, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = refused(["serve", "--root", str(project), "--port", port], capsys)
    assert code == 2 and "is not a port: give a whole number from 1 to 65535 (0: any free port)" in err


def test_a_port_in_use_suggests_another(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = refused(["serve", "--root", str(project), "--port", str(port)], capsys)
    assert code == 1
    assert f"build-site: port {port} on 127.0.0.1 is in use" in err
    assert "--port 0 for any free port" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["build"], ["serve", "--port", "0"], ["new", "precision"]])
def test_a_folder_without_a_project_says_what_to_do(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if command[0] == "new":
        command += ["--model", "dsr1", "--gpu", "h200", "--sides", "fp4", "fp8"]
    code, err = refused([*command, "--root", str(tmp_path)], capsys)
    assert code == 1
    said = f"no site project in {tmp_path} (no data/ or content/ folder): start one with "
    said += "`build-site init FOLDER`, or give the project's folder with --root"
    assert f"build-site: {said}" in err
    assert list(tmp_path.iterdir()) == []  # nothing made there


def test_check_says_so_in_its_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """check reports a folder without a project as a problem: in JSON too, for CI."""
    assert main(["check", "--root", str(tmp_path), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (problem,) = report["problems"]
    assert report["ok"] is False and problem["severity"] == "error"
    assert "no site project in" in problem["reason"] and "build-site init FOLDER" in problem["reason"]
    assert main(["check", "--root", str(tmp_path)]) == 1
    assert "`build-site init FOLDER`, or give the project's folder with --root" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["yesterday", "-5", "1.7e9", "2026-01-01", "99999999999999999"])
def test_a_bad_source_date_epoch_says_what_it_must_be(
    value: str, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    for command in (["build"], ["check"], ["serve", "--port", "0"]):
        code, err = refused([*command, "--root", str(project)], capsys)
        assert code == 1 and f"SOURCE_DATE_EPOCH={value!r} is not a time" in err
        assert "whole number of seconds since 1970-01-01 UTC" in err
    assert not (project / "site").exists()


def test_a_good_source_date_epoch_dates_the_pages(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01 00:00 UTC
    assert main(["build", "--root", str(project), "-q"]) == 0
    assert "2026-01-01" in (project / "site" / "h200-fp4-vs-fp8" / "index.html").read_text()


def test_verbose_prints_every_notice(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an InferenceX v1 row takes its sequence from the file name: a notice
    shutil.copy(FIXTURES / "agg" / "agg_dsr1_fp8_h200_trt_1k1k_v1.json", project / "data" / "results")
    assert main(["build", "--root", str(project)]) == 0
    out, err = capsys.readouterr()
    count = int(out.rsplit(", ", 1)[1].split()[0])
    assert count >= 1 and "notice:" not in err
    assert main(["build", "--root", str(project), "-v"]) == 0
    err = capsys.readouterr().err
    notices = [line for line in err.splitlines() if line.startswith("notice: ")]
    assert len(notices) == count and any("taken from the file name" in line for line in notices)
    assert main(["check", "--root", str(project), "-v"]) == 0
    shown = [line for line in capsys.readouterr().out.splitlines() if line.startswith("notice: ")]
    assert shown == notices


HEAVY = ("pandas", "numpy", "scipy", "plotly", "pydantic", "jinja2", "yaml", "markdown_it")


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["serve", "--help"]])
def test_version_and_help_import_none_of_the_pipeline(argv: list[str]) -> None:
    """`build-site --version` answers at once: it imports none of the libraries that take most of
    a second (measured: 0.6 s before, the interpreter's own start after)."""
    script = (
        "import sys\nfrom site_builder.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    if argv == ["--version"]:
        assert done.stdout.startswith("build-site ")


# -- Ctrl+C ---------------------------------------------------------------------------------------


def _interrupt(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "module", "name"),
    [
        (["build"], pipeline, "build"),
        (["check"], check, "run_check"),
        (["serve", "--port", "0"], serve, "start"),
        (
            ["new", "precision", "--model", "dsr1", "--gpu", "h200", "--sides", "fp4", "fp8"],
            scaffold,
            "write_stub",
        ),
        (
            ["import", "x.json", "--id", "i", "--title", "t", "--source", "s", "-o", "o.json"],
            importer,
            "import_results",
        ),
    ],
)
def test_ctrl_c_in_any_command_is_one_line_and_status_130(
    argv: list[str],
    module: object,
    name: str,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(module, name, _interrupt)
    monkeypatch.chdir(project)
    assert main(argv) == 130
    assert capsys.readouterr().err == "build-site: interrupted\n"


def test_ctrl_c_in_init(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(scaffold, "init_project", _interrupt)
    assert main(["init", str(tmp_path / "new")]) == 130
    assert capsys.readouterr().err == "build-site: interrupted\n"


def _interrupted(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


def test_ctrl_c_during_a_build(tmp_path: Path) -> None:
    """SIGINT while the build writes pages into its staging folder: one line, status 130, the
    staging folder gone and no site made."""
    project = tmp_path / "project"
    for name in ("data", "content"):
        shutil.copytree(ROOT / name, project / name)
    out = tmp_path / "site"
    command = [sys.executable, "-m", "site_builder.cli", "build", "--root", str(project), "-o", str(out)]
    process = subprocess.Popen([*command, "--no-cache", "-q"], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not any(p.is_file() for p in tmp_path.glob(".site.building-*/*/*")):  # a page written
        assert process.poll() is None and time.monotonic() < deadline, "no page seen in staging"
        time.sleep(0.01)
    code, err = _interrupted(process)
    assert (code, err) == (130, "build-site: interrupted\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_ctrl_c_stops_serve(project: Path) -> None:
    command = [sys.executable, "-m", "site_builder.cli", "serve", "--root", str(project), "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    assert process.stdout.readline().startswith("Serving on http://127.0.0.1:")
    code, err = _interrupted(process)
    assert code == 130 and err.splitlines()[-1] == "build-site: interrupted"
    assert "Traceback" not in err


def _interrupted_page(shared: None, page: int) -> int:
    """A page whose worker gets Ctrl+C while making it (as the terminal sends it to every
    process of the command)."""
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.01)  # the signal's handler runs here, if the worker has one
    return page


def test_ctrl_c_is_the_build_process_s_to_handle_not_a_worker_s() -> None:
    """A worker ignores Ctrl+C (one that raised it printed a traceback, or left the pool
    waiting forever): its pages come back whole, and the build process decides."""
    pages = list(range(SPAWN_FROM + 10))  # enough for a pool, forked or spawned
    try:
        made = list(map_pages(_interrupted_page, pages, 2, None))
    except KeyboardInterrupt:  # a worker's, sent back as its page's result
        pytest.fail("a worker was interrupted by Ctrl+C")
    assert made == pages


def test_ctrl_c_from_the_terminal_stops_build_and_workers(tmp_path: Path) -> None:
    """Ctrl+C at a terminal signals the whole process group, workers included."""
    project = tmp_path / "project"
    for name in ("data", "content"):
        shutil.copytree(ROOT / name, project / name)
    command = [sys.executable, "-m", "site_builder.cli", "build", "--root", str(project), "-o"]
    process = subprocess.Popen(
        [*command, str(tmp_path / "site"), "--no-cache", "-q", "--workers", "2"],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not any(p.is_file() for p in tmp_path.glob(".site.building-*/*/*")):  # a page written
        assert process.poll() is None and time.monotonic() < deadline, "no page seen in staging"
        time.sleep(0.01)
    time.sleep(0.3)  # the workers, busy or idle
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (130, "build-site: interrupted\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]
