"""`build-site check`: the whole pipeline but the write (data, stubs, templates, guides, output
paths), so it fails wherever `build` would; optionally a built site's links. Text or JSON."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from site_builder.linkcheck import broken_links
from site_builder.pipeline import Options, run
from site_builder.problems import InputError, Problem, Severity, summarised
from site_builder.project import Project
from site_builder.write import NoSink


@dataclass
class CheckReport:
    problems: list[Problem] = field(default_factory=list)
    pages: int = 0
    points: int = 0
    site_checked: bool = False

    def failed(self, strict: bool) -> bool:
        bad = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
        return any(p.severity in bad for p in self.problems)

    def counts(self) -> Counter[Severity]:
        """How many problems of each severity."""
        return Counter(p.severity for p in self.problems)


def run_check(project: Project, site: Path | None = None, check_external: bool = False) -> CheckReport:
    report = CheckReport()
    site_url = None
    try:
        output = run(project, NoSink(), Options(workers=None))
        report.problems = list(output.problems)
        report.pages, report.points = output.page_count, output.point_count
        site_url = output.site_url
    except InputError as exc:
        report.problems = list(exc.problems)
    if site is not None:
        if not site.is_dir():
            report.problems.append(Problem(site.as_posix(), "", "", "no built site here"))
        else:
            report.problems.extend(broken_links(site, site_url, check_external))
            report.site_checked = True
    return report


def _as_dict(problem: Problem) -> dict[str, Any]:
    line = re.fullmatch(r"line (\d+)", problem.record)
    suggestion = re.search(r"did you mean '([^']+)'", problem.reason)
    return {
        "severity": problem.severity.value,
        "file": problem.file,
        "line": int(line.group(1)) if line else None,
        "record": problem.record or None,
        "field": problem.field or None,
        "reason": problem.reason,
        "suggestion": suggestion.group(1) if suggestion else None,
    }


def as_json(report: CheckReport, strict: bool) -> str:
    found = report.counts()
    counts = {s.value: found[s] for s in Severity}
    document = {
        "ok": not report.failed(strict),
        "strict": strict,
        "pages": report.pages,
        "points": report.points,
        "site_checked": report.site_checked,
        "counts": counts,
        "problems": [_as_dict(p) for p in report.problems],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _skipped(problem: Problem) -> bool:
    """A notice that a file or a run was left unread ("skipped: …")."""
    return problem.severity is Severity.NOTICE and problem.reason.startswith("skipped")


def as_text(report: CheckReport, strict: bool, notices: bool = False) -> str:
    """Errors and warnings, then every file or run left unread with its reason (a notice that
    starts "skipped"; with `notices`, every notice), then the verdict. A cause repeated past a
    few files is summarised in one line."""
    lines = summarised(p for p in report.problems if p.severity is not Severity.NOTICE)
    shown = [p for p in report.problems if p.severity is Severity.NOTICE and (notices or _skipped(p))]
    lines += summarised(shown)
    counts = report.counts()
    errors, warnings = counts[Severity.ERROR], counts[Severity.WARNING]
    verdict = "failed" if report.failed(strict) else "ok"
    links = "; links checked" if report.site_checked else ""
    lines.append(
        f"check {verdict}: {report.pages} pages from {report.points} points, {errors} errors, "
        f"{warnings} warnings{links}"
    )
    return "\n".join(lines)
