"""`build-site`: a thin command over the pipeline; exit 0 on success, 1 on bad input, 2 on usage."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from site_builder import __version__
from site_builder.spelling import closest

if TYPE_CHECKING:
    from site_builder.problems import Problem
    from site_builder.project import Project
    from site_builder.read.provenance import DatasetInfo

# Every command imports what it needs when it runs (the pipeline's pandas, scipy, jinja2 and
# pydantic: most of a second), so `--version` and `--help` answer at once.

# in the order parser() makes them
COMMANDS = ("build", "serve", "check", "init", "new", "schema", "import", "import-published")
INTERRUPTED = 130  # the exit status of a command stopped by Ctrl+C (128 + SIGINT), as shells report it
LAST_EPOCH = 253402300799  # 9999-12-31 23:59:59 UTC, the last second a date can show


class Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors suggest the nearest command, option or choice."""

    commands: dict[str, Parser]  # the root's: each command's parser

    def error(self, message: str) -> NoReturn:
        super().error(message + _choice_hint(message))

    def unrecognized(self, extras: Sequence[str]) -> NoReturn:
        """Stop on arguments this command does not take, naming the nearest option of each."""
        options = [name for action in self._actions for name in action.option_strings]
        hints = [f"'{word}': {near}" for word in extras if (near := _nearest(word.split("=")[0], options))]
        super().error(
            f"unrecognized arguments: {' '.join(extras)}" + (f" ({'; '.join(hints)})" if hints else "")
        )


def _nearest(word: str, known: Iterable[str]) -> str:
    """'did you mean 'X'?' for the known word closest to a mistyped one (spelling.closest), else ''."""
    best = closest(word, known)
    return f"did you mean '{best}'?" if best else ""


def _choice_hint(message: str) -> str:
    """A suggestion for argparse's "invalid choice: 'X' (choose from 'A', 'B')"."""
    if "invalid choice: '" not in message or "(choose from " not in message:
        return ""
    word = message.split("invalid choice: '", 1)[1].split("'", 1)[0]
    choices = [c.strip(" '") for c in message.split("(choose from ", 1)[1].rstrip(")").split(",")]
    near = _nearest(word, choices)
    return f"; {near}" if near else ""


def _port(text: str) -> int:
    """A TCP port: a whole number from 0 to 65535."""
    if not (text.isascii() and text.isdigit() and int(text) <= 65535):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port: give a whole number from 1 to 65535 (0: any free port)"
        )
    return int(text)


def _print_problems(problems: Sequence[Problem]) -> None:
    from site_builder.problems import summarised

    for line in summarised(problems):
        print(line, file=sys.stderr)


def _dataset_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("attribution (kept with the data and shown on every page)")
    group.add_argument("--id", required=True, help="dataset id, e.g. inferencex-dsr1")
    group.add_argument("--title", required=True, help="the dataset's title, shown on every page")
    group.add_argument("--source", required=True, help="where the numbers come from")
    group.add_argument("--url", help="http(s) address of the source")
    group.add_argument("--licence", help="the licence the numbers are published under, e.g. CC-BY-4.0")
    group.add_argument("--retrieved", help="date the source was captured")
    group.add_argument("--notes-file", type=Path, help="a text file whose content becomes the notes")
    group.add_argument("-o", "--out", type=Path, required=True, help="native JSON file to create")


def _dataset(args: argparse.Namespace, published: bool) -> DatasetInfo:
    from site_builder.importer import dataset_from_options, read_named_file

    notes = read_named_file(args.notes_file).strip() if args.notes_file else None
    return dataset_from_options(
        id=args.id,
        title=args.title,
        source=args.source,
        url=args.url,
        licence=args.licence,
        retrieved=args.retrieved,
        notes=notes,
        published_values=published,
    )


def parser() -> Parser:
    from site_builder.kinds import KIND_KEYS

    root = Parser(prog="build-site", description=__doc__)
    root.add_argument("--version", action="version", version=f"build-site {__version__}")
    commands = root.add_subparsers(dest="command")

    b = commands.add_parser("build", help="build the site (the default command)")
    b.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")
    b.add_argument("--data", type=Path, help="data folder (default: ROOT/data)")
    b.add_argument("--content", type=Path, help="content folder (default: ROOT/content)")
    b.add_argument("-o", "--out", type=Path, help="output folder (default: ROOT/site)")
    b.add_argument(
        "--templates", type=Path, help="your templates, over the default theme (default: ROOT/templates)"
    )
    b.add_argument(
        "--site-url", help="absolute http(s) URL the site is served from (sitemap, canonical links)"
    )
    b.add_argument("--strict", action="store_true", help="treat warnings as errors")
    b.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    b.add_argument("-v", "--verbose", action="store_true", help="print every notice too (how input was read)")
    b.add_argument(
        "--no-cache",
        action="store_true",
        help="build every page afresh (the cache in .site-builder-cache/ is neither read nor written)",
    )
    b.add_argument("--workers", type=int, help="processes that build pages (default: one a core)")
    b.add_argument(
        "--preview-images",
        action="store_true",
        help="give each comparison page a preview image (<slug>/preview.png, 1200x630, its og:image), "
        "drawn by kaleido in a headless Chrome or Chromium: pip install 'site-builder[preview]' "
        "(without them the build goes on without images, saying so once)",
    )

    v = commands.add_parser("serve", help="build, serve on localhost and rebuild on every change")
    v.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")
    v.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    v.add_argument("--port", type=_port, default=8000, help="port, 1-65535 (default: 8000; 0: any free port)")

    c = commands.add_parser("check", help="validate data and stubs (and a built site's links)")
    c.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")
    c.add_argument("--site", type=Path, help="also check the internal links of this built site")
    c.add_argument("--strict", action="store_true", help="warnings fail the check too")
    c.add_argument(
        "--check-external",
        action="store_true",
        help="with --site: also fetch each outside http(s) link of the pages and report those that fail",
    )
    c.add_argument(
        "--format", choices=("text", "json"), default="text", help="text (default) or json, for CI"
    )
    c.add_argument("-v", "--verbose", action="store_true", help="list every notice too (text format)")

    t = commands.add_parser("init", help="start a new site project in an empty folder")
    t.add_argument("folder", type=Path, help="new or empty folder to write the project into")

    n = commands.add_parser("new", help="write a new comparison stub")
    n.add_argument("kind", choices=KIND_KEYS, help="the page kind: " + ", ".join(KIND_KEYS))
    n.add_argument("--model", required=True, help="model key, e.g. dsr1")
    n.add_argument("--gpu", help="GPU key shared by both sides, e.g. mi355x")
    n.add_argument(
        "--sides",
        nargs=2,
        required=True,
        metavar=("A", "B"),
        help="precisions, speculative methods (B may be none) or GPUs",
    )
    n.add_argument("--precision", help="precision shared by both sides (spec-decoding, hardware)")
    n.add_argument(
        "--by",
        metavar="FIELD",
        help="custom pages: the configuration field the two sides differ in (default: framework), "
        "e.g. variant, dataset, tp, gpus",
    )
    n.add_argument("--sequence", default="1k/1k", help="the sequence the page opens on (default: 1k/1k)")
    n.add_argument("--name", help="file name without .md (default: the slug)")
    n.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")

    j = commands.add_parser("schema", help="print the stub front matter's JSON Schema")
    j.add_argument("-o", "--out", type=Path, help="write it to this file instead")

    i = commands.add_parser("import", help="import result files into the native format")
    i.add_argument(
        "sources", type=Path, nargs="+", help="result files in any supported format, or folders of them"
    )
    i.add_argument("-v", "--verbose", action="store_true", help="print every notice too")
    _dataset_args(i)

    p = commands.add_parser("import-published", help="import a published page's table as points")
    p.add_argument("page", type=Path, help="text of the published comparison page")
    p.add_argument("--model", required=True, help="model key of every value, e.g. dsr1")
    p.add_argument("--hardware", required=True, help="GPU key of every value, e.g. b200")
    p.add_argument("--precision", help="precision of every value, unless it is what varies")
    p.add_argument("--spec-method", default="unknown", help="speculative method (default: unknown)")
    p.add_argument("--sequence", default="1k/1k", help="the values' sequence (default: 1k/1k)")
    p.add_argument(
        "--vary",
        choices=("precision", "spec_method", "hardware"),
        required=True,
        help="what differs between the sides",
    )
    p.add_argument(
        "--side",
        action="append",
        required=True,
        metavar="LABEL=VALUE",
        help="a side as the published table labels it, and its value of --vary (once per side)",
    )
    _dataset_args(p)
    root.commands = dict(zip(COMMANDS, (b, v, c, t, n, j, i, p), strict=True))
    return root


def _build(args: argparse.Namespace) -> int:
    from site_builder.pipeline import build
    from site_builder.project import Project

    project = Project.under(args.root, args.out)
    project = Project(
        data=args.data or project.data,
        content=args.content or project.content,
        out=project.out,
        templates=args.templates or project.templates,
        docs=project.docs,
    )
    _require_project(args.root, project)
    report = build(
        project,
        strict=args.strict,
        site_url=args.site_url,
        progress=_progress(args.quiet),
        cache=not args.no_cache,
        workers=args.workers,
        preview_images=args.preview_images,
    )
    _print_problems(report.warnings + (report.notices if args.verbose else []))
    for remark in report.remarks:
        print(remark, file=sys.stderr)
    if not args.quiet:
        pages, points = counted(report.page_count, "comparison page"), counted(report.point_count, "point")
        warnings, notices = counted(len(report.warnings), "warning"), counted(len(report.notices), "notice")
        took = f"{report.seconds:.2f} s"
        print(f"Built {pages} from {points} into {project.out} in {took} ({warnings}, {notices})")
    return 0


def counted(count: int, noun: str) -> str:
    """'1 comparison page', '2 comparison pages'."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


class NextStep(Exception):
    """A refusal the user is told in one line, with what to do instead."""


def _require_project(root: Path, project: Project) -> None:
    """Refuse a folder that holds no project (no data/ and no content/), saying what to do."""
    if not project.data.is_dir() and not project.content.is_dir():
        raise NextStep(
            f"no site project in {root} (no data/ or content/ folder): start one with "
            "`build-site init FOLDER`, or give the project's folder with --root"
        )


def _check_source_date_epoch() -> None:
    """SOURCE_DATE_EPOCH, when set, must be a time the pages can show (else it was ignored)."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "")
    if value and not (value.isascii() and value.isdigit() and int(value) <= LAST_EPOCH):
        raise NextStep(
            f"SOURCE_DATE_EPOCH={value[:40]!r} is not a time: set it to a whole number of seconds "
            "since 1970-01-01 UTC (e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)), or unset it"
        )


def _progress(quiet: bool) -> Callable[[str, int, int], None] | None:
    """A one-line counter on an interactive terminal, for builds long enough to want one."""
    if quiet or not sys.stderr.isatty():
        return None

    def show(stage: str, done: int, total: int) -> None:
        if total >= 50 and (done % 25 == 0 or done == total):
            end = "\n" if done == total else ""
            print(f"\r{stage}: {done}/{total}", end=end, file=sys.stderr, flush=True)

    return show


def _serve(args: argparse.Namespace) -> int:
    from site_builder.project import Project
    from site_builder.serve import start

    project = Project.under(args.root)
    _require_project(args.root, project)
    try:
        server = start(project, args.host, args.port, wait=False)
    except OSError as exc:
        raise NextStep(_listen_refused(exc, args.host, args.port)) from None
    print(
        f"Serving on {server.url} (Ctrl+C to stop); watching content/, data/, templates/, docs/", flush=True
    )
    try:
        while True:
            time.sleep(3600)
    finally:
        server.shutdown()


def _listen_refused(error: OSError, host: str, port: int) -> str:
    """Why serve cannot listen on host:port, and what to do instead."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another build-site serve?): choose another with "
            f"--port, e.g. --port {port + 1 if port < 65535 else 8000}, or --port 0 for any free port"
        )
    if error.errno == errno.EACCES:
        return (
            f"not allowed to listen on port {port} (ports below 1024 need privileges): use e.g. --port 8000"
        )
    return f"cannot listen on {host}, port {port} ({error.strerror or error}): check --host and --port"


def _check(args: argparse.Namespace) -> int:
    from site_builder.check import CheckReport, as_json, as_text, run_check
    from site_builder.problems import Problem, printable
    from site_builder.project import Project

    project = Project.under(args.root)
    try:
        _require_project(args.root, project)
        _check_source_date_epoch()
        report = run_check(project, args.site, args.check_external)
    except (NextStep, ValueError, OSError) as exc:  # still a report: --format json always prints JSON
        report = CheckReport(problems=[Problem(args.root.as_posix(), "", "", printable(str(exc)))])
    if args.format == "json":
        text = as_json(report, args.strict)
    else:
        text = as_text(report, args.strict, notices=args.verbose)
    print(text)
    return 1 if report.failed(args.strict) else 0


def _init(args: argparse.Namespace) -> int:
    from site_builder.scaffold import init_project

    written = init_project(args.folder)
    print(f"Wrote a new site project in {args.folder} ({len(written)} files).")
    print(f"Next: cd {args.folder} && build-site   (then open site/index.html, or run build-site serve)")
    return 0


def _new(args: argparse.Namespace) -> int:
    from site_builder.project import Project
    from site_builder.scaffold import stub_text, write_stub

    _require_project(args.root, Project.under(args.root))
    slug, text = stub_text(
        args.kind, args.model, args.sides, args.gpu, args.precision, args.sequence, args.by
    )
    path = write_stub(args.root / "content", slug, text, args.name)
    print(f"Wrote {path}: edit it, then run build-site (or build-site serve)")
    return 0


def _schema(args: argparse.Namespace) -> int:
    from site_builder.content import stub_json_schema

    text = json.dumps(stub_json_schema(), indent=2) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


def _import(args: argparse.Namespace) -> int:
    from site_builder.importer import import_results

    count, log = import_results(args.sources, _dataset(args, published=False), args.out)
    _print_problems(log.warnings + (log.notices if args.verbose else []))
    print(f"Imported {count} records into {args.out} ({len(log.notices)} notices)")
    return 0


def _import_published(args: argparse.Namespace) -> int:
    from site_builder.formatting import parse_sequence_label
    from site_builder.importer import import_published

    isl, osl = parse_sequence_label(args.sequence)
    identity = {
        "model": args.model,
        "hardware": args.hardware,
        "framework": "unknown",
        "precision": args.precision,
        "spec_method": args.spec_method,
        "isl": isl,
        "osl": osl,
    }
    sides = dict(side.split("=", 1) for side in args.side)
    count = import_published(
        args.page,
        _dataset(args, published=True),
        {k: v for k, v in identity.items() if v is not None},
        args.vary,
        sides,
        args.out,
    )
    print(f"Imported {count} published values into {args.out}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (0 done, 1 refused, 2 misused, 130 interrupted)."""
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:  # Ctrl+C: one line, no traceback (a build removes its own staging)
        fresh_line = "\n" if sys.stderr.isatty() else ""  # after a progress counter's line
        print(f"{fresh_line}build-site: interrupted", file=sys.stderr)
        return INTERRUPTED


def _main(arguments: list[str]) -> int:
    if arguments[:1] == ["--version"]:  # at once: no parser, nothing imported
        print(f"build-site {__version__}")
        return 0
    root = parser()
    if arguments and not arguments[0].startswith("-") and arguments[0] not in COMMANDS:
        near = _nearest(arguments[0], COMMANDS)
        root.error(
            f"unknown command '{arguments[0]}'"
            + (f" ({near})" if near else "")
            + f"; commands: {', '.join(COMMANDS)}"
        )
    if not arguments or arguments[0] not in (*COMMANDS, "-h", "--help"):
        arguments.insert(0, "build")
    args, extras = root.parse_known_args(arguments)
    if extras:
        root.commands[args.command].unrecognized(extras)
    handlers = {
        "build": _build,
        "serve": _serve,
        "check": _check,
        "init": _init,
        "new": _new,
        "schema": _schema,
        "import": _import,
        "import-published": _import_published,
    }
    from site_builder.problems import InputError

    try:
        if args.command in ("build", "serve"):
            _check_source_date_epoch()
        return handlers[args.command](args)
    except InputError as exc:
        _print_problems(exc.stopping)
        print(f"build-site: {len(exc.stopping)} problem(s); nothing was written", file=sys.stderr)
        return 1
    except _reported_errors() as exc:  # evaluated only when something was raised
        print(f"build-site: {exc}", file=sys.stderr)
        return 1


def _reported_errors() -> tuple[type[Exception], ...]:
    """What a command raises that the user is told in one line (no traceback)."""
    from site_builder.importer import ImportRefused
    from site_builder.scaffold import ScaffoldError
    from site_builder.write import OutputError

    return (NextStep, OutputError, ImportRefused, ScaffoldError, ValueError, OSError)


def run() -> NoReturn:
    """The `build-site` command: `main`, then `leave`."""
    leave(main())


def leave(code: int) -> NoReturn:
    """End the process with `code` once its output is flushed, without tearing the interpreter
    down: freeing a build's objects one by one took 0.3-0.6 s at 990 pages, and nothing is left
    to do (worker pools are shut down, files closed, the old site's removal is a process of its
    own). Only for the command's own process; tests call `main`."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    run()
