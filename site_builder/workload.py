"""What a curve is measured on: fixed lengths (ISL/OSL), or a `workload:` label.

A run over fixed lengths (a random dataset, or lengths drawn from a range around a nominal one)
is the workload (isl, osl): "1k/1k". A run over a variable-length dataset (ShareGPT prompts, a
prompt file) has no such pair: each run's measured means differ, so its data may name the
workload instead (`workload: sharegpt`), and every point with that label is one workload, one
curve, whatever its measured lengths. One type holds both, so grouping, ordering, the sequence
switch and the `seq=` address treat them alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Annotated, NamedTuple

from pydantic import AfterValidator

from site_builder.files import excerpt
from site_builder.formatting import parse_sequence_label, sequence_label

MAX_LABEL_CHARS = 32  # a stub's `sequence:` may name one
LABEL_PATTERN = re.compile(rf"[A-Za-z][A-Za-z0-9._-]{{0,{MAX_LABEL_CHARS - 1}}}")
LABEL_RULE = (
    f"a short name of at most {MAX_LABEL_CHARS} characters: a letter, then letters, digits, '.', '_' or '-' "
    "(e.g. sharegpt, mooncake-trace)"
)


class Workload(NamedTuple):
    """A workload: (isl, osl) of fixed-length runs, or a label (then isl = osl = 0: the
    lengths of its points vary, and each point keeps its measured means)."""

    isl: int
    osl: int
    label: str = ""

    @property
    def name(self) -> str:
        """What the page, its switch and its address call it: '1k/1k', or the label."""
        return self.label or sequence_label(self.isl, self.osl)


DEFAULT_WORKLOAD = Workload(1024, 1024)  # 1k/1k: a page opens on it and the index lists it first


def labelled(label: str) -> Workload:
    return Workload(0, 0, label)


def workload_order(default: Workload) -> Callable[[Workload], tuple[bool, str, int, int]]:
    """The sort key of workloads: `default` first, then fixed lengths by size, then labels
    alphabetically."""

    def key(w: Workload) -> tuple[bool, str, int, int]:
        return (w != default, w.label, w.isl, w.osl)

    return key


def sorted_workloads(workloads: Iterable[Workload], default: Workload = DEFAULT_WORKLOAD) -> list[Workload]:
    """Workloads in the page's order (workload_order)."""
    return sorted(workloads, key=workload_order(default))


def check_label(value: object) -> str:
    """A `workload:` label as written, or ValueError naming the rule."""
    if not isinstance(value, str) or not LABEL_PATTERN.fullmatch(value):
        raise ValueError(f"must be {LABEL_RULE}, got {excerpt(value)}")
    return value


WorkloadLabel = Annotated[str, AfterValidator(check_label)]  # a metadata file's `workload:`


def parse_workload(text: str) -> Workload:
    """'1k/8k' -> Workload(1024, 8192); a label ('sharegpt') -> that labelled workload."""
    if LABEL_PATTERN.fullmatch(text.strip()):
        return labelled(text.strip())
    try:
        return Workload(*parse_sequence_label(text))
    except ValueError as exc:
        raise ValueError(f"{exc}, or a `workload:` label: {LABEL_RULE}") from exc
