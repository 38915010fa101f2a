"""Stubs: one Markdown file with YAML front matter per comparison page, and the site config."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from site_builder.catalog import ConstantOverride, CostTier
from site_builder.kinds import KIND_KEYS, KINDS
from site_builder.numbers import parse_sequence_label
from site_builder.problems import ProblemLog, add_validation_errors, suggest
from site_builder.project import is_hidden
from site_builder.sections import ANALYSES, DEFAULT_ANALYSES

FilterValue = str | bool | list[str]
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*$"


class Filters(BaseModel):
    """What selects points: shared by a page and narrowed per side. Empty means any."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    hardware: str | None = None
    precision: str | None = None
    spec_method: str | None = None
    framework: str | list[str] | None = None
    disagg: bool | None = None
    dataset: str | list[str] | None = None


FILTER_KEYS = tuple(Filters.model_fields)


class SideSpec(Filters):
    """One side: a label and the filters that narrow the page's common filters."""

    label: str = Field(min_length=1)


class SlaSpec(BaseModel):
    """The latency limits of the `latency-sla` section (docs/authoring.md)."""

    model_config = ConfigDict(extra="forbid")

    tpot_ms: float | None = Field(default=None, gt=0, lt=1e6)
    ttft_ms: float | None = Field(default=None, gt=0, lt=1e7)
    basis: Literal["measured", "derived"] = "measured"

    @model_validator(mode="after")
    def _a_limit(self) -> SlaSpec:
        if self.tpot_ms is None and self.ttft_ms is None:
            raise ValueError("set tpot_ms, ttft_ms or both")
        return self


class StubSpec(Filters):
    """The front matter of a comparison stub (docs/authoring.md explains every field)."""

    kind: str = Field(json_schema_extra={"enum": list(KIND_KEYS)})
    title: str | None = None
    summary: str | None = None
    slug: str | None = Field(default=None, pattern=SLUG_PATTERN)
    model: str
    sequence: str = "1k/1k"
    sides: list[SideSpec] = Field(min_length=2, max_length=2)
    targets: list[float] | None = Field(default=None, min_length=1, max_length=6)
    cost_tier: CostTier | None = None
    constants: dict[str, ConstantOverride] = Field(default_factory=dict)
    draft: bool = False
    sections: list[str] = Field(
        default_factory=lambda: list(DEFAULT_ANALYSES),
        min_length=1,
        json_schema_extra={"items": {"enum": list(ANALYSES)}},
    )
    sla: SlaSpec | None = None

    @field_validator("sections")
    @classmethod
    def _sections(cls, value: list[str]) -> list[str]:
        for key in value:
            if key not in ANALYSES:
                raise ValueError(
                    f"unknown section {key!r}: one of {', '.join(ANALYSES)}{suggest(key, ANALYSES)}"
                )
        if len(set(value)) < len(value):
            raise ValueError("a section is listed more than once")
        return value

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in KINDS:
            raise ValueError(
                f"unknown kind {value!r}: one of {', '.join(KIND_KEYS)}{suggest(value, KIND_KEYS)}"
            )
        return value

    @field_validator("sequence")
    @classmethod
    def _sequence(cls, value: str) -> str:
        parse_sequence_label(value)
        return value

    @field_validator("targets")
    @classmethod
    def _targets(cls, value: list[float] | None) -> list[float] | None:
        if value is not None and any(not (0 < t < 1e6) for t in value):
            raise ValueError("targets are interactivities in tok/s/user, each greater than 0")
        return value

    @model_validator(mode="after")
    def _sides_have_hardware(self) -> StubSpec:
        for side in self.sides:
            if not (side.hardware or self.hardware):
                raise ValueError(f"side '{side.label}' has no hardware: set it on the page or the side")
        if self.sides[0].label == self.sides[1].label:
            raise ValueError("the two sides need different labels")
        if "latency-sla" in self.sections and self.sla is None:
            raise ValueError("the latency-sla section needs sla: {tpot_ms: 100} (or ttft_ms, or both)")
        return self


class SiteConfig(BaseModel):
    """content/site.yaml: site-wide settings an operator may change."""

    model_config = ConfigDict(extra="forbid")

    title: str = "LLM inference comparisons"
    description: str = "Matched-interactivity comparisons of LLM inference benchmarks."
    site_url: str | None = Field(default=None, pattern=r"^https?://")
    auto_pages: bool = True
    cost_tier: CostTier | None = None
    constants: dict[str, ConstantOverride] = Field(default_factory=dict)
    # globs of paths under data/ that are not results (e.g. "runs/**/logs"), skipped when loading
    exclude: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class ResolvedSide:
    label: str
    filters: dict[str, FilterValue]

    @property
    def hardware(self) -> str:
        value = self.filters["hardware"]
        assert isinstance(value, str)
        return value


def _hashable(value: FilterValue) -> str | bool | tuple[str, ...]:
    if isinstance(value, list):
        return tuple(sorted(v.lower() for v in value))
    return value.lower() if isinstance(value, str) else value


@dataclass(frozen=True)
class Stub:
    """A stub after validation: what the build needs to compute and render its page."""

    path: str | None  # the stub file as the user names it; None for a generated page
    slug: str
    spec: StubSpec
    body: str
    sides: tuple[ResolvedSide, ResolvedSide]
    lines: tuple[tuple[tuple[str | int, ...], int], ...] = ()

    @property
    def generated(self) -> bool:
        return self.path is None

    def line_of(self, *loc: str | int) -> str:
        """'line N' of a front-matter key (or its nearest parent), for error messages."""
        return line_of(dict(self.lines), loc) if self.lines else ""

    @property
    def sequence(self) -> tuple[int, int]:
        return parse_sequence_label(self.spec.sequence)

    def identity(self) -> tuple[object, ...]:
        """What the page compares, whatever its labels or datasets: a stub with the same identity
        as a generated page takes that page over."""
        sides = sorted(
            tuple(sorted((k, _hashable(v)) for k, v in side.filters.items() if k != "dataset"))
            for side in self.sides
        )
        return (self.spec.kind, *sides)


_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)


def split_front_matter(text: str) -> tuple[str, str] | None:
    match = _FRONT_MATTER.match(text)
    return (match.group(1), match.group(2)) if match else None


def node_lines(front: str, first_line: int = 2) -> dict[tuple[str | int, ...], int]:
    """Line in the file of every key and list item of the front matter, by its path."""
    try:
        root = yaml.compose(front)
    except yaml.YAMLError:
        return {}
    lines: dict[tuple[str | int, ...], int] = {}

    def walk(node: yaml.Node, path: tuple[str | int, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                child = (*path, str(key.value))
                lines[child] = key.start_mark.line + first_line
                walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                child = (*path, index)
                lines[child] = item.start_mark.line + first_line
                walk(item, child)

    if root is not None:
        walk(root, ())
    return lines


def line_of(lines: dict[tuple[str | int, ...], int], loc: tuple[str | int, ...]) -> str:
    """The closest line for a pydantic error location: the key itself, else its nearest parent."""
    path = tuple(loc)
    while path:
        if path in lines:
            return f"line {lines[path]}"
        path = path[:-1]
    return "line 1"  # a missing top-level field: the front matter as a whole


def resolve_sides(spec: StubSpec) -> tuple[ResolvedSide, ResolvedSide]:
    common = {k: getattr(spec, k) for k in FILTER_KEYS if getattr(spec, k) is not None}
    resolved = []
    for side in spec.sides:
        filters: dict[str, FilterValue] = dict(common)
        filters.update({k: getattr(side, k) for k in FILTER_KEYS if getattr(side, k) is not None})
        resolved.append(ResolvedSide(side.label, filters))
    return resolved[0], resolved[1]


def read_stub(path: Path, display: str, log: ProblemLog) -> Stub | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.add(display, "", "", f"cannot read: {exc}")
        return None
    parts = split_front_matter(text)
    if parts is None:
        log.add(display, "line 1", "", "no front matter: a stub starts with '---', YAML, then '---'")
        return None
    front, body = parts
    try:
        data = yaml.safe_load(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 2}" if mark is not None else ""
        log.add(display, where, "", f"front matter is not valid YAML: {exc}")
        return None
    if not isinstance(data, dict):
        log.add(display, "line 2", "", "front matter must be a mapping of keys to values")
        return None
    try:
        spec = StubSpec.model_validate(data)
    except ValidationError as exc:
        lines = node_lines(front)
        add_validation_errors(
            log,
            display,
            exc,
            fields=lambda loc: StubSpec.model_fields if len(loc) == 1 else SideSpec.model_fields,
            record=lambda loc: line_of(lines, loc),
        )
        return None
    slug = spec.slug or path.stem
    if not re.match(SLUG_PATTERN, slug):
        log.add(display, "", "slug", f"'{slug}' is not a valid slug (lowercase letters, digits, '-')")
        return None
    key_lines = tuple(sorted(node_lines(front).items(), key=lambda item: item[1]))
    return Stub(path=display, slug=slug, spec=spec, body=body, sides=resolve_sides(spec), lines=key_lines)


def load_stubs(content_dir: Path, log: ProblemLog) -> list[Stub]:
    stubs: list[Stub] = []
    seen: dict[str, str] = {}
    for path in sorted(p for p in content_dir.glob("*.md") if not is_hidden(p)):
        display = f"{content_dir.name}/{path.name}"
        stub = read_stub(path, display, log)
        if stub is None:
            continue
        if stub.slug in seen:
            log.add(display, "", "slug", f"slug '{stub.slug}' is already used by {seen[stub.slug]}")
            continue
        seen[stub.slug] = display
        if not stub.spec.draft:
            stubs.append(stub)
    return stubs


def load_site_config(content_dir: Path, log: ProblemLog) -> SiteConfig:
    path = content_dir / "site.yaml"
    if not path.is_file():
        return SiteConfig()
    display = f"{content_dir.name}/site.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        return SiteConfig.model_validate(data)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        log.add(display, "", "", f"cannot read: {exc}")
    except ValidationError as exc:
        add_validation_errors(log, display, exc, fields=lambda loc: SiteConfig.model_fields)
    return SiteConfig()


def stub_json_schema() -> dict[str, object]:
    """The stub front matter as JSON Schema, for editors (docs/stub.schema.json)."""
    schema = StubSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Comparison stub front matter"
    return schema
