"""Problems found in user input, collected so that one run reports all of them at once."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from pydantic import ValidationError

from site_builder.spelling import closest

Loc = tuple[str | int, ...]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


class Cause(StrEnum):
    """What kind of finding a problem is, for a step that treats one kind apart (never told
    from the problem's words)."""

    OTHER = "other"
    MISSING = "missing"  # a field that must be given is not: the same wherever it is lacking


@dataclass(frozen=True, order=True)
class Problem:
    """One actionable finding: where it is (file, record, field) and why it matters."""

    file: str
    record: str
    field: str
    reason: str
    severity: Severity = Severity.ERROR
    cause: Cause = dataclasses.field(default=Cause.OTHER, compare=False)  # not part of what is said

    def __str__(self) -> str:
        where = self.file
        if self.record:
            where += f", {self.record}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{self.severity.value}: {where}: {self.reason}"


def of_severity(problems: Iterable[Problem], severity: Severity) -> list[Problem]:
    return [p for p in problems if p.severity is severity]


@dataclass
class ProblemLog:
    """Accumulates problems from every stage so a build can stop before writing anything."""

    problems: list[Problem] = field(default_factory=list)

    def add(
        self,
        file: str | Path,
        record: str,
        field_name: str,
        reason: str,
        severity: Severity = Severity.ERROR,
        cause: Cause = Cause.OTHER,
    ) -> None:
        """Every part made printable and bounded: a message never carries a user's file whole."""
        self.problems.append(
            Problem(
                _bounded(str(file), 300),
                _bounded(record, 200),
                _bounded(field_name, 200),
                _bounded(reason, 2000),
                severity,
                cause,
            )
        )

    def extend(self, other: ProblemLog) -> None:
        self.problems.extend(other.problems)

    @property
    def errors(self) -> list[Problem]:
        return of_severity(self.problems, Severity.ERROR)

    @property
    def warnings(self) -> list[Problem]:
        return of_severity(self.problems, Severity.WARNING)

    @property
    def notices(self) -> list[Problem]:
        return of_severity(self.problems, Severity.NOTICE)


REPEATS_SHOWN = 20  # problems of one cause listed before the rest are counted in one line
_CAUSE_DETAIL = re.compile(r"\S*/\S*|\d+")  # paths and numbers: one cause, whatever they are


def summarised(problems: Iterable[Problem], shown: int = REPEATS_SHOWN) -> list[str]:
    """The problems as lines, each cause (severity, field and reason alike, paths and numbers in
    the reason aside) listed `shown` times at most and the rest said in one line after them:
    50,000 unreadable files give 20 lines and "… and 49,980 more files like it", not 50,000."""
    lines: list[str] = []
    hidden: dict[tuple[Severity, str, str], list[Problem]] = {}
    seen: dict[tuple[Severity, str, str], int] = {}
    for problem in problems:
        cause = (problem.severity, problem.field, _CAUSE_DETAIL.sub("#", problem.reason))
        seen[cause] = seen.get(cause, 0) + 1
        if seen[cause] <= shown:
            lines.append(str(problem))
        else:
            hidden.setdefault(cause, []).append(problem)
    for (severity, field_name, _), rest in hidden.items():
        files = len({p.file for p in rest})
        what = "files" if files == len(rest) else f"problems (in {files:,} files)"
        about = f"field '{field_name}': " if field_name else ""
        said = about + _bounded(rest[0].reason, 200)
        lines.append(f"{severity.value}: … and {len(rest):,} more {what} like it ({said})")
    return lines


def printable(text: str) -> str:
    """Control, format and separator characters escaped: safe for a terminal or a CI log."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _bounded(text: str, limit: int) -> str:
    shown = printable(text[: limit + 1])
    return shown if len(shown) <= limit else shown[:limit] + "…"


class InputError(Exception):
    """Raised when input problems make the build impossible; carries every problem found."""

    def __init__(self, stopping: list[Problem], everything: list[Problem] | None = None) -> None:
        self.stopping = stopping  # the problems that stopped the build
        self.problems = everything if everything is not None else stopping  # all found, warnings too
        super().__init__("\n".join(str(p) for p in stopping))


def suggest(name: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest choice (spelling.closest), or nothing."""
    best = closest(name, choices)
    return f" (did you mean '{best}'?)" if best else ""


def field_path(loc: Loc) -> str:
    """('sides', 0, 'precison') -> 'sides[0].precison'."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def add_validation_errors(
    log: ProblemLog,
    file: str,
    exc: ValidationError,
    *,
    prefix: Loc = (),
    fields: Callable[[Loc], Iterable[str]] | None = None,
    record: Callable[[Loc], str] = lambda loc: "",
) -> None:
    """One problem per pydantic error: where (`record`), which field, and for an unknown key the
    closest known one (`fields` gives the keys allowed where it stands)."""
    for err in exc.errors():
        loc = (*prefix, *err["loc"])
        message = err["msg"]
        if err["type"] == "extra_forbidden" and fields is not None:
            message = "unknown field" + suggest(str(loc[-1]), fields(loc))
        log.add(file, record(loc), field_path(loc), message)
