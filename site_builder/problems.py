"""Problems found in user input, collected so that one run reports all of them at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True, order=True)
class Problem:
    """One actionable finding: where it is (file, record, field) and why it matters."""

    file: str
    record: str
    field: str
    reason: str
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        where = self.file
        if self.record:
            where += f", {self.record}"
        if self.field:
            where += f", field '{self.field}'"
        return f"{self.severity.value}: {where}: {self.reason}"


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
    ) -> None:
        self.problems.append(Problem(str(file), record, field_name, reason, severity))

    def extend(self, other: ProblemLog) -> None:
        self.problems.extend(other.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    @property
    def notices(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.NOTICE]


class InputError(Exception):
    """Raised when input problems make the build impossible; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
