"""`build-site`: a thin command over the pipeline; exit 0 on success, 1 on bad input, 2 on usage."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from site_builder import __version__
from site_builder.formatting import parse_sequence_label
from site_builder.kinds import KIND_KEYS
from site_builder.problems import InputError, Problem, printable
from site_builder.project import Project
from site_builder.read.provenance import DatasetInfo
from site_builder.scaffold import ScaffoldError, init_project, stub_text, write_stub
from site_builder.write import OutputError

# The commands that need the pipeline (pandas, scipy, jinja2: most of a second) import it when
# they run, so `--help`, `init`, `new` and `schema` start at once.

COMMANDS = ("build", "serve", "check", "init", "new", "schema", "import", "import-published")


def _print_problems(problems: Sequence[Problem]) -> None:
    for problem in problems:
        print(problem, file=sys.stderr)


def _dataset_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("attribution (kept with the data and shown on every page)")
    group.add_argument("--id", required=True, help="dataset id, e.g. inferencex-dsr1")
    group.add_argument("--title", required=True)
    group.add_argument("--source", required=True, help="where the numbers come from")
    group.add_argument("--url")
    group.add_argument("--licence")
    group.add_argument("--retrieved", help="date the source was captured")
    group.add_argument("--notes-file", type=Path, help="a text file whose content becomes the notes")
    group.add_argument("-o", "--out", type=Path, required=True, help="native JSON file to create")


def _dataset(args: argparse.Namespace, published: bool) -> DatasetInfo:
    notes = args.notes_file.read_text(encoding="utf-8").strip() if args.notes_file else None
    return DatasetInfo(
        id=args.id,
        title=args.title,
        source=args.source,
        url=args.url,
        licence=args.licence,
        retrieved=args.retrieved,
        notes=notes,
        published_values=published,
    )


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="build-site", description=__doc__)
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
    b.add_argument(
        "--no-cache",
        action="store_true",
        help="build every page afresh (the cache in .site-builder-cache/ is neither read nor written)",
    )
    b.add_argument("--workers", type=int, help="processes that build pages (default: one a core)")

    v = commands.add_parser("serve", help="build, serve on localhost and rebuild on every change")
    v.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")
    v.add_argument("--host", default="127.0.0.1")
    v.add_argument("--port", type=int, default=8000, help="port (0: any free port)")

    c = commands.add_parser("check", help="validate data and stubs (and a built site's links)")
    c.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")
    c.add_argument("--site", type=Path, help="also check the internal links of this built site")
    c.add_argument("--strict", action="store_true", help="warnings fail the check too")
    c.add_argument(
        "--check-external",
        action="store_true",
        help="with --site: also fetch each outside http(s) link of the pages and report those that fail",
    )
    c.add_argument("--format", choices=("text", "json"), default="text")

    t = commands.add_parser("init", help="start a new site project in an empty folder")
    t.add_argument("folder", type=Path, help="new or empty folder to write the project into")

    n = commands.add_parser("new", help="write a new comparison stub")
    n.add_argument("kind", choices=KIND_KEYS)
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
    n.add_argument("--sequence", default="1k/1k")
    n.add_argument("--name", help="file name without .md (default: the slug)")
    n.add_argument("--root", type=Path, default=Path("."), help="project folder (default: .)")

    j = commands.add_parser("schema", help="print the stub front matter's JSON Schema")
    j.add_argument("-o", "--out", type=Path, help="write it to this file instead")

    i = commands.add_parser("import", help="import result files into the native format")
    i.add_argument("sources", type=Path, nargs="+", help="result files in any supported format")
    _dataset_args(i)

    p = commands.add_parser("import-published", help="import a published page's table as points")
    p.add_argument("page", type=Path, help="text of the published comparison page")
    p.add_argument("--model", required=True)
    p.add_argument("--hardware", required=True)
    p.add_argument("--precision")
    p.add_argument("--spec-method", default="unknown")
    p.add_argument("--sequence", default="1k/1k")
    p.add_argument("--vary", choices=("precision", "spec_method", "hardware"), required=True)
    p.add_argument("--side", action="append", required=True, metavar="LABEL=VALUE")
    _dataset_args(p)
    return root


def _build(args: argparse.Namespace) -> int:
    from site_builder.pipeline import build

    project = Project.under(args.root, args.out)
    project = Project(
        data=args.data or project.data,
        content=args.content or project.content,
        out=project.out,
        templates=args.templates or project.templates,
        docs=project.docs,
    )
    report = build(
        project,
        strict=args.strict,
        site_url=args.site_url,
        progress=_progress(args.quiet),
        cache=not args.no_cache,
        workers=args.workers,
    )
    for warning in report.warnings:
        print(warning, file=sys.stderr)
    if not args.quiet:
        print(
            f"Built {report.page_count} comparison pages from {report.point_count} points into {project.out} "
            f"in {report.seconds:.2f} s ({len(report.warnings)} warnings, {len(report.notices)} notices)"
        )
    return 0


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
    from site_builder.serve import start

    server = start(Project.under(args.root), args.host, args.port, wait=False)
    print(
        f"Serving on {server.url} (Ctrl+C to stop); watching content/, data/, templates/, docs/", flush=True
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
    return 0


def _check(args: argparse.Namespace) -> int:
    from site_builder.check import CheckReport, as_json, as_text, run_check

    try:
        report = run_check(Project.under(args.root), args.site, args.check_external)
    except (ValueError, OSError) as exc:  # still a report, so --format json always prints JSON
        report = CheckReport(problems=[Problem(args.root.as_posix(), "", "", printable(str(exc)))])
    text = as_json(report, args.strict) if args.format == "json" else as_text(report, args.strict)
    print(text)
    return 1 if report.failed(args.strict) else 0


def _init(args: argparse.Namespace) -> int:
    written = init_project(args.folder)
    print(f"Wrote a new site project in {args.folder} ({len(written)} files).")
    print(f"Next: cd {args.folder} && build-site   (then open site/index.html, or run build-site serve)")
    return 0


def _new(args: argparse.Namespace) -> int:
    slug, text = stub_text(args.kind, args.model, args.sides, args.gpu, args.precision, args.sequence)
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
    _print_problems(log.warnings)
    print(f"Imported {count} records into {args.out} ({len(log.notices)} notices)")
    return 0


def _import_published(args: argparse.Namespace) -> int:
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
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or (arguments[0] not in COMMANDS and arguments[0] not in ("-h", "--help", "--version")):
        arguments.insert(0, "build")
    args = parser().parse_args(arguments)
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
    try:
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

    return (OutputError, ImportRefused, ScaffoldError, ValueError, OSError)


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
