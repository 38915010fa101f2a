"""Inputs from outside the repository: the `../shared/` folder beside the project.

CI always has `../shared/` beside its clone, so there a missing input is a real error and the test
FAILS. A user's fresh clone has nothing beside it, so there the test is SKIPPED, with the reason.
That rule lives here and only here:

- `needs(*parts)` is a mark for a test or a module (`pytestmark = needs("seeds")`); two hooks in
  `tests/conftest.py` apply the rule to every test that carries it: `skip_missing` after collection,
  `fail_if_missing` just before the test body;
- `params(build, *parts, ids=...)` is a parametrize list computed from outside data without
  reading it at import time when it is absent: one placeholder parameter that carries the mark;
- `path(*parts)` is where an input is (or would be), for module constants; it reads nothing.

Nothing here reads `../shared/` while collecting, except `params` when the input is there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

if TYPE_CHECKING:
    from _pytest.mark.structures import ParameterSet

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MARKER = "outside_input"
MARKER_HELP = f"{MARKER}(path): needs this input under ../shared (skipped in a fresh clone, fails in CI)"

T = TypeVar("T")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def path(*parts: str) -> Path:
    """Where `../shared/<parts>` is, whether or not it is there."""
    return SHARED.joinpath(*parts)


def _shown(where: Path) -> str:
    return "../shared/" + where.relative_to(SHARED).as_posix()


def missing(where: Path) -> str | None:
    """None when the input is there; else why not, as a skip reason."""
    if where.exists():
        return None
    top = SHARED / where.relative_to(SHARED).parts[0]
    if not top.exists():
        return f"{_shown(top)} is not beside the project (a fresh clone); these tests run in CI"
    return f"{_shown(where)} is missing ({_shown(top)} is there, but incomplete); these tests run in CI"


def needs(*parts: str) -> pytest.MarkDecorator:
    """Mark: the test reads `../shared/<parts>`."""
    return pytest.mark.outside_input(path(*parts))  # the name is MARKER


def params(
    build: Callable[[Path], Iterable[T]], *parts: str, ids: Callable[[T], str] = str
) -> list[ParameterSet]:
    """`build(path)`'s values as parameters when the input is there; else one placeholder.

    Each parameter carries the `needs` mark, so the placeholder skips in a fresh clone and fails in
    CI (the test body never runs with it).
    """
    where = path(*parts)
    mark = needs(*parts)
    if missing(where) is None:
        return [pytest.param(value, id=ids(value), marks=mark) for value in build(where)]
    return [pytest.param(None, id="outside-input-missing", marks=mark)]


def _needed(item: pytest.Item) -> list[Path]:
    return [Path(mark.args[0]) for mark in item.iter_markers(MARKER)]


def skip_missing(items: list[pytest.Item]) -> None:
    """After collection, outside CI: a skip mark on each test whose input is missing."""
    if in_ci():
        return
    for item in items:
        for where in _needed(item):
            reason = missing(where)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def fail_if_missing(item: pytest.Item) -> None:
    """Before the test body, in CI: a missing input fails the test."""
    if not in_ci():
        return
    for where in _needed(item):
        if missing(where) is not None:
            pytest.fail(
                f"{_shown(where)} ({where}) is missing, and CI=true: CI always has ../shared beside "
                "its clone, so a missing outside input there is a real error",
                pytrace=False,
            )
