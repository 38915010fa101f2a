"""Stubs: one Markdown file with YAML front matter per comparison page, and the site config."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from site_builder.catalog import ConstantOverride, CostTier
from site_builder.files import (
    MAX_IDENTIFIER_CHARS,
    Count,
    Identifier,
    PositiveNumber,
    Prose,
    Refused,
    Title,
    check_web_address,
    excerpt,
    identifier,
    load_yaml,
    parse_yaml,
    read_text,
)
from site_builder.kinds import KIND_KEYS, KINDS
from site_builder.problems import ProblemLog, Severity, add_validation_errors, suggest
from site_builder.project import OPERATOR_GUIDES, is_hidden
from site_builder.scaffold import PLACEHOLDERS
from site_builder.sections import ANALYSES, DEFAULT_ANALYSES
from site_builder.workload import Workload, parse_workload

FilterValue = str | bool | int | list[str] | list[int]
SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
MAX_SLUG_CHARS = 100  # a folder name on every file system, with room to spare
Label = Annotated[str, Field(min_length=1, max_length=MAX_IDENTIFIER_CHARS), AfterValidator(identifier)]
# Files a user adds to the output folder that every build keeps (GitHub Pages, Netlify, ACME …).
DEFAULT_KEEP = ("CNAME", ".well-known/", "_headers", "_redirects", ".htaccess")


def check_keep(value: str) -> str:
    """A `keep:` entry: a path or glob relative to the output folder, never leaving it."""
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts or "\\" in value or not value.isprintable():
        raise ValueError(
            f"must be a path inside the output folder, like CNAME or .well-known/, got {excerpt(value)}"
        )
    return value


def check_guide(value: str) -> str:
    """A `guides:` entry: one of the packaged guides for the people who run a site."""
    if value not in OPERATOR_GUIDES:
        raise ValueError(
            f"{excerpt(value)} is not a packaged guide a site may add: choose from "
            f"{', '.join(OPERATOR_GUIDES)} (the readers' guides are always published)"
        )
    return value


class Filters(BaseModel):
    """What selects points: shared by a page and narrowed per side. Empty means any."""

    model_config = ConfigDict(extra="forbid")

    model: Identifier | None = None
    hardware: Identifier | None = None
    precision: Identifier | None = None
    spec_method: Identifier | None = None
    framework: Identifier | list[Identifier] | None = None
    disagg: bool | None = None
    dataset: Identifier | list[Identifier] | None = None
    # every other configuration field (docs/authoring.md): an A/B of one configuration
    variant: Identifier | list[Identifier] | None = None
    tp: Count | list[Count] | None = None
    ep: Count | list[Count] | None = None
    pp: Count | list[Count] | None = None
    gpus: Count | list[Count] | None = None  # the deployment's GPU count
    dp_attention: bool | None = None
    multinode: bool | None = None


FILTER_KEYS = tuple(Filters.model_fields)
# a filter that reads a point-table column of another name
FILTER_COLUMNS = {"gpus": "gpu_count"}


class SideSpec(Filters):
    """One side: a label and the filters that narrow the page's common filters."""

    label: Label


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
    title: Title | None = None
    summary: Prose | None = None
    slug: str | None = Field(default=None, pattern=SLUG_PATTERN, max_length=MAX_SLUG_CHARS)
    model: Identifier
    sequence: str = Field(default="1k/1k", max_length=32)
    sides: list[SideSpec] = Field(min_length=2, max_length=2)
    targets: list[PositiveNumber] | None = Field(default=None, min_length=1, max_length=6)
    cost_tier: CostTier | None = None
    constants: dict[Identifier, ConstantOverride] = Field(default_factory=dict)
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
        parse_workload(value)
        return value

    @field_validator("targets")
    @classmethod
    def _targets(cls, value: list[float] | None) -> list[float] | None:
        if value is not None and any(not (0 < t < 1e6) for t in value):
            raise ValueError("targets are interactivities in tok/s/user, each greater than 0 and below 10⁶")
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

    title: Title = "LLM inference comparisons"
    description: Prose = "Matched-interactivity comparisons of LLM inference benchmarks."
    site_url: Annotated[str, AfterValidator(check_web_address)] | None = None
    auto_pages: bool = True
    cost_tier: CostTier | None = None
    constants: dict[Identifier, ConstantOverride] = Field(default_factory=dict)
    keep: list[Annotated[str, AfterValidator(check_keep)]] = Field(
        default_factory=lambda: list(DEFAULT_KEEP),
        description="files and folders (globs; a trailing / for a folder) in the output folder that "
        "builds keep: a user's CNAME, .well-known/ …",
    )
    # globs of paths under data/ that are not results (e.g. "runs/**/logs"), skipped when loading
    exclude: list[str] = Field(default_factory=list)
    guides: list[Annotated[str, AfterValidator(check_guide)]] = Field(
        default_factory=list,
        description="packaged guides for the people who run a site, published too: "
        "authoring, deployment, performance (the readers' guides are always published)",
    )


@dataclass(frozen=True)
class ResolvedSide:
    label: str
    filters: dict[str, FilterValue]

    @property
    def hardware(self) -> str:
        value = self.filters["hardware"]
        assert isinstance(value, str)
        return value


def _hashable(value: FilterValue) -> str | bool | int | tuple[str, ...]:
    if isinstance(value, list):
        return tuple(sorted(str(v).lower() for v in value))
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
    def sequence(self) -> Workload:
        """The workload the page opens on: '1k/1k', or a `workload:` label (sharegpt)."""
        return parse_workload(self.spec.sequence)

    def models(self) -> set[str] | None:
        """The models (lower case) its sides may select points of: each side's own (a side may
        name another model than the page); None when a side names a list of models, or none,
        and so may select any."""
        named = [side.filters.get("model") for side in self.sides]
        if not all(isinstance(m, str) for m in named):
            return None
        return {str(m).lower() for m in named}

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


def read_stub(path: Path, display: str, log: ProblemLog, root: Path) -> Stub | None:
    """One stub, read under the input rules (files.py) from inside `root` (its content folder)."""
    text = read_text(path, display, log, root)
    if text is None:
        return None
    parts = split_front_matter(text)
    if parts is None:
        log.add(display, "line 1", "", "no front matter: a stub starts with '---', YAML, then '---'")
        return None
    front, body = parts
    try:
        document = parse_yaml(front, first_line=2)
    except Refused as exc:
        log.add(display, exc.where, exc.field_name, f"front matter: {exc.reason}")
        return None
    data, lines = document.data, document.lines
    if not isinstance(data, dict):
        log.add(display, "line 2", "", "front matter must be a mapping of keys to values")
        return None
    try:
        spec = StubSpec.model_validate(data)
    except ValidationError as exc:
        add_validation_errors(
            log,
            display,
            exc,
            fields=lambda loc: StubSpec.model_fields if len(loc) == 1 else SideSpec.model_fields,
            record=lambda loc: line_of(lines, loc),
        )
        return None
    slug = spec.slug or path.stem
    if not re.match(SLUG_PATTERN, slug) or len(slug) > MAX_SLUG_CHARS:
        log.add(
            display,
            "",
            "slug",
            f"{excerpt(slug)} is not a valid slug (lowercase letters, digits, '-'; "
            f"at most {MAX_SLUG_CHARS} characters): set slug: in the front matter",
        )
        return None
    key_lines = tuple(sorted(lines.items(), key=lambda item: item[1]))
    _warn_of_placeholder(text, display, log)
    return Stub(path=display, slug=slug, spec=spec, body=body, sides=resolve_sides(spec), lines=key_lines)


def _warn_of_placeholder(text: str, display: str, log: ProblemLog) -> None:
    """A stub whose body still holds the sentence `new` or `init` wrote for its author to replace:
    published, it would read as the page's own words (a warning: `check --strict` fails on it)."""
    for placeholder in PLACEHOLDERS:
        at = text.find(placeholder)
        if at >= 0:
            log.add(
                display,
                f"line {text.count(chr(10), 0, at) + 1}",
                "body",
                f"still the placeholder build-site wrote ({excerpt(placeholder)}): replace it with your "
                "own prose about the page, or delete it",
                Severity.WARNING,
            )


def load_stubs(content_dir: Path, log: ProblemLog) -> list[Stub]:
    stubs: list[Stub] = []
    seen: dict[str, str] = {}
    found = sorted(content_dir.glob("*.md"))
    for path in (p for p in found if is_hidden(p)):
        log.add(
            f"{content_dir.name}/{path.name}",
            "",
            "",
            "skipped: a name starting with '.' or '#' is hidden (an editor's or the system's file); "
            "rename it, e.g. my-page.md, to make it a page",
            Severity.WARNING,
        )
    for path in (p for p in found if not is_hidden(p)):
        display = f"{content_dir.name}/{path.name}"
        stub = read_stub(path, display, log, content_dir)
        if stub is None:
            continue
        if stub.slug in seen:
            log.add(display, "", "slug", f"slug '{stub.slug}' is already used by {seen[stub.slug]}")
            continue
        seen[stub.slug] = display
        if not stub.spec.draft:
            stubs.append(stub)
    return stubs


def load_site_config(content_dir: Path, log: ProblemLog, site_url: str | None = None) -> SiteConfig:
    """content/site.yaml (every key optional), with --site-url, if given, held to the same rule."""
    path = content_dir / "site.yaml"
    display = f"{content_dir.name}/site.yaml"
    data: object = {}
    if path.is_file() or path.is_symlink():
        document = load_yaml(path, display, log, root=content_dir)
        data = document.data if document is not None and document.data is not None else {}
    config = SiteConfig()
    try:
        config = SiteConfig.model_validate(data)
    except ValidationError as exc:
        add_validation_errors(log, display, exc, fields=lambda loc: SiteConfig.model_fields)
    if site_url is not None:
        try:
            config = config.model_copy(update={"site_url": check_web_address(site_url)})
        except ValueError as exc:
            log.add("--site-url", "", "site_url", str(exc))
    return config


def stub_json_schema() -> dict[str, object]:
    """The stub front matter as JSON Schema, for editors (docs/stub.schema.json)."""
    schema = StubSpec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Comparison stub front matter"
    return schema
