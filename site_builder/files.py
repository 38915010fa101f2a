"""The one rule for every file a user gives us, and for every number that reaches a page.

A build runs in CI on files it did not write, sometimes from a pull request, so every input is
read the same way:

- only a regular file inside its input folder is read: a symbolic link (or a path through one)
  that leaves the folder is refused, naming the link, so nothing outside the project is read;
  devices, pipes and files over `MAX_FILE_BYTES` are refused too;
- text is decoded as UTF-8 with or without a byte-order mark (UTF-16 with one), line endings
  normalised, and a NUL character refused with its line;
- JSON and YAML are parsed with nesting deeper than `MAX_DEPTH` and number literals longer than
  `MAX_NUMBER_CHARS` refused; YAML aliases are refused (no alias bomb); a key given twice in one
  object or mapping is an error naming both values (JSON) or both lines (YAML);
- identifiers (model, hardware, precision … keys) are printable text of at most
  `MAX_IDENTIFIER_CHARS` characters;
- every number is finite and at most `LIMIT` in size, and greater than 0 where it must be
  (`sane_number`, and the `PositiveNumber` / `Count` field types for pydantic models);
- a message quotes a user's value only as a short printable `excerpt`.

A loader reads a file with `read_text(path, display, log, root=folder)` (or `load_json` /
`load_yaml`), which log the problem and return None when the file is refused.
"""

from __future__ import annotations

import codecs
import json
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt
import yaml
from pydantic import AfterValidator, Field

from site_builder.problems import ProblemLog, printable

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 32  # nesting of objects and lists; real result files use fewer than 8
MAX_NUMBER_CHARS = 32  # digits, sign, point and exponent of one number literal
MAX_IDENTIFIER_CHARS = 64
# what a text shown on every page it belongs to may hold: a title (a page's, a site's, a data
# set's, a model's or GPU's name) and a sentence or paragraph (a stub's summary, the site's
# description, a data set's source and licence, a constant's source); a side's label is an
# identifier (MAX_IDENTIFIER_CHARS)
MAX_TITLE_CHARS = 200
MAX_PROSE_CHARS = 2000
EXCERPT_CHARS = 40
LIMIT = 1e9  # no throughput, latency, count, price or power a page shows comes near this
MAX_COUNT = 10**9

LineMap = dict[tuple[str | int, ...], int]


class Refused(Exception):
    """Input the rules refuse: why, and where if known ('line N', a field path)."""

    def __init__(self, reason: str, where: str = "", field_name: str = "") -> None:
        super().__init__(reason)
        self.reason, self.where, self.field_name = reason, where, field_name

    def log(self, log: ProblemLog, display: str) -> None:
        log.add(display, self.where, self.field_name, self.reason)


# -- showing a user's value -----------------------------------------------------------------------


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A value as a message may quote it: short, printable, its kind named for a container."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, str):
        shown = printable(value[: limit + 1])
        if len(value) > limit:
            shown = shown[:limit] + f"… ({len(value)} characters)"
        return f"'{shown}'"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"a {len(str(abs(value)))}-digit number"  # str(): ints this size only come from code
    text = printable(repr(value))
    return text if len(text) <= limit else text[:limit] + "…"


# -- reading a file ---------------------------------------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def read_bytes_checked(path: Path, root: Path | None) -> bytes:
    """The bytes of a regular file inside `root` (None: a file the user named on the command line)."""
    try:
        if root is not None:
            target = path.resolve()
            if not _inside(target, root.resolve()):
                link = "is a symbolic link" if path.is_symlink() else "leads through a symbolic link"
                raise Refused(
                    f"{link} to a file outside {root.name}/: refused, nothing is read from outside "
                    "the project (copy the file into the project instead)"
                )
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise Refused("not a regular file (a device, a pipe or a folder): refused")
        if info.st_size > MAX_FILE_BYTES:
            raise Refused(
                f"{info.st_size} bytes: larger than the {MAX_FILE_BYTES // 2**20} MiB an input may be"
            )
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise Refused("cannot read: no such file (a broken symbolic link?)") from None
    except OSError as exc:
        raise Refused(f"cannot read: {exc.strerror or type(exc).__name__}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise Refused(f"larger than the {MAX_FILE_BYTES // 2**20} MiB an input may be")
    return raw


def decode(raw: bytes) -> str:
    """UTF-8 (a byte-order mark dropped; UTF-16 if one says so), newlines as '\\n', no NUL."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError:
            raise Refused("not valid UTF-16 despite its byte-order mark: save it as UTF-8") from None
    else:
        body = raw[len(codecs.BOM_UTF8) :] if raw.startswith(codecs.BOM_UTF8) else raw
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = body[: exc.start].count(b"\n") + 1
            raise Refused(
                f"not valid UTF-8 (byte {exc.start}: {exc.reason}): save it as UTF-8", f"line {line}"
            ) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    nul = text.find("\x00")
    if nul >= 0:
        line, column = position(text, nul)
        raise Refused(f"contains a NUL character (column {column}): not a text file", f"line {line}")
    return text


def position(text: str, offset: int) -> tuple[int, int]:
    """(line, column), both from 1, of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def read_text(path: Path, display: str, log: ProblemLog, root: Path | None) -> str | None:
    """A text input under the rules above, or None with the reason logged against `display`."""
    try:
        return decode(read_bytes_checked(path, root))
    except Refused as exc:
        exc.log(log, display)
        return None


def read_bytes(path: Path, display: str, log: ProblemLog, root: Path | None) -> bytes | None:
    """A binary input (a theme asset) under the same rule for where it may come from."""
    try:
        return read_bytes_checked(path, root)
    except Refused as exc:
        exc.log(log, display)
        return None


# -- JSON -----------------------------------------------------------------------------------------

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class _Duplicated(dict[str, Any]):
    """An object in which a key appeared twice: (key, first value, second value) each time."""

    duplicates: list[tuple[str, Any, Any]]


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    duplicates = []
    for key, value in pairs:
        if key in result:
            duplicates.append((key, result[key], value))
        result[key] = value
    if not duplicates:
        return result
    marked = _Duplicated(result)
    marked.duplicates = duplicates
    return marked


def _json_number(kind: type[int] | type[float]) -> Any:
    def parse(literal: str) -> int | float:
        if len(literal) > MAX_NUMBER_CHARS:
            raise Refused(
                f"a number of {len(literal)} characters: numbers may have at most {MAX_NUMBER_CHARS}"
            )
        return kind(literal)

    return parse


def _check_depth(text: str) -> None:
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line, column = position(text, match.start())
                raise Refused(
                    f"nested more than {MAX_DEPTH} levels deep (column {column}): not a result file",
                    f"line {line}",
                )
        elif token in "]}":
            depth -= 1


def _path_text(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{printable(part)}" if out else printable(part))
    return out


def _walk(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every value with its path, containers included (only run when something is wrong)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(path, value)]
    while stack:
        here, item = stack.pop()
        yield here, item
        if isinstance(item, dict):
            stack.extend(((*here, str(k)), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(((*here, i), v) for i, v in reversed(list(enumerate(item))))


def parse_json(text: str) -> Any:
    """JSON under the rules: raises json.JSONDecodeError for malformed text, Refused for the rest."""
    _check_depth(text)
    try:
        document = json.loads(
            text,
            object_pairs_hook=_json_object,
            parse_int=_json_number(int),
            parse_float=_json_number(float),
        )
    except Refused as exc:
        literal = re.search(rf"-?\d[\d.eE+-]{{{MAX_NUMBER_CHARS},}}", text)
        if literal:
            line, column = position(text, literal.start())
            raise Refused(f"{exc.reason} (column {column})", f"line {line}") from None
        raise
    except RecursionError:
        raise Refused(f"nested more than {MAX_DEPTH} levels deep: not a result file") from None
    if "\\u0000" in text:
        for path, item in _walk(document):
            if isinstance(item, str) and "\x00" in item:
                raise Refused("contains a NUL character: not text", "", _path_text(path))
    _raise_duplicates(document)
    return document


def _raise_duplicates(document: Any) -> None:
    if not _contains_duplicates(document):
        return
    for path, item in _walk(document):
        if isinstance(item, _Duplicated):
            key, first, second = item.duplicates[0]
            raise Refused(
                f"given twice in one object ({excerpt(first)} and {excerpt(second)}): "
                "keep one, so no value is silently dropped",
                "",
                _path_text((*path, key)),
            )


def _contains_duplicates(document: Any) -> bool:
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, _Duplicated):
            return True
        if isinstance(item, dict):
            stack.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, dict | list))
    return False


# -- YAML -----------------------------------------------------------------------------------------

_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing aliases and deep nesting while it composes."""

    depth = 0
    first_line = 1  # the file line the text starts on

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise Refused(
                "uses a YAML alias (*name): aliases are not allowed here; write the value out",
                f"line {event.start_mark.line + self.first_line}",
            )
        self.depth += 1
        if self.depth > MAX_DEPTH:
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise Refused(f"nested more than {MAX_DEPTH} levels deep", f"line {mark.line + self.first_line}")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


@dataclass
class YamlDocument:
    """Parsed YAML and the line (in the file) of every key and list item, by its path."""

    data: Any
    lines: LineMap = field(default_factory=dict)


def _check_nodes(root: yaml.Node, first_line: int) -> LineMap:
    """Lines of every key; duplicate keys, over-long numbers and escaped NULs refused."""
    lines: LineMap = {}
    stack: list[tuple[yaml.Node, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                name = str(key.value)
                line = key.start_mark.line + first_line
                if name in seen:
                    raise Refused(
                        f"given twice in one mapping (lines {seen[name]} and {line}): keep one",
                        f"line {line}",
                        _path_text((*path, name)),
                    )
                seen[name] = line
                lines[(*path, name)] = line
                stack.append((value, (*path, name)))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                lines[(*path, index)] = item.start_mark.line + first_line
                stack.append((item, (*path, index)))
        else:  # a scalar: the only other node a YAML document holds
            where = f"line {node.start_mark.line + first_line}"
            if node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER_CHARS:
                raise Refused(
                    f"a number of {len(node.value)} characters: numbers may have at most {MAX_NUMBER_CHARS}",
                    where,
                    _path_text(path),
                )
            if "\x00" in node.value:
                raise Refused("contains a NUL character: not text", where, _path_text(path))
    return lines


def _document(loader: yaml.SafeLoader, first_line: int) -> YamlDocument:
    """The document a loader composes, checked (`_check_nodes`) before it is constructed."""
    root = loader.get_single_node()
    if root is None:
        return YamlDocument(None)
    lines = _check_nodes(root, first_line)
    return YamlDocument(loader.construct_document(root), lines)


def parse_yaml(text: str, first_line: int = 1) -> YamlDocument:
    """YAML under the rules; `first_line` is the file line the text starts on (front matter: 2)."""
    try:
        loader = _StrictLoader(text)  # its reader refuses unprintable characters at once
    except yaml.YAMLError as exc:
        raise Refused(f"not valid YAML: {printable(str(exc).splitlines()[0])}") from None
    loader.first_line = first_line
    try:
        return _document(loader, first_line)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + first_line}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "malformed"
        raise Refused(f"not valid YAML: {printable(str(problem))}", where) from None
    except (ValueError, OverflowError) as exc:  # a scalar the safe constructor cannot make
        raise Refused(f"not valid YAML: {excerpt(str(exc), 80)}") from None
    finally:
        loader.dispose()


def load_yaml(path: Path, display: str, log: ProblemLog, root: Path | None) -> YamlDocument | None:
    text = read_text(path, display, log, root)
    if text is None:
        return None
    try:
        return parse_yaml(text)
    except Refused as exc:
        exc.log(log, display)
        return None


def load_structured(path: Path, display: str, log: ProblemLog, root: Path | None) -> Any:
    """A small side file (metadata, dataset): JSON if it ends in .json, else YAML; None if refused."""
    if path.suffix != ".json":
        document = load_yaml(path, display, log, root)
        return document.data if document else None
    text = read_text(path, display, log, root)
    if text is None:
        return None
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        log.add(display, f"line {exc.lineno}", "", f"not valid JSON: {exc.msg} (column {exc.colno})")
    except Refused as exc:
        exc.log(log, display)
    return None


# -- identifiers and numbers ----------------------------------------------------------------------


def identifier(value: object) -> str:
    """Text that names something (a model, a GPU, a precision): printable, short, not empty."""
    if not isinstance(value, str):
        raise ValueError(f"must be text, got {excerpt(value)}")
    text = value.strip()
    if not text:
        raise ValueError("must not be empty")
    if not text.isprintable():
        raise ValueError(f"must be printable text without control characters, got {excerpt(text)}")
    if len(text) > MAX_IDENTIFIER_CHARS:
        raise ValueError(f"must be at most {MAX_IDENTIFIER_CHARS} characters, got {excerpt(text)}")
    return text


NUMBER_FAULTS = (
    "must be a finite number",
    f"must be at most {LIMIT:.0e} in size",
    "must be greater than 0",
    "must not be negative",
)  # the numeric rule's parts, in the order they are judged


def number_faults(
    values: npt.NDArray[np.float64], *, positive: bool = False, nonnegative: bool = False
) -> npt.NDArray[np.int8]:
    """The numeric rule over many numbers at once: for each, the first part of it the number
    breaks (an index into NUMBER_FAULTS), or -1: finite, at most LIMIT in size, > 0 or ≥ 0
    where the quantity must be."""
    with np.errstate(invalid="ignore"):
        broken = [~np.isfinite(values), np.abs(values) > LIMIT]
        broken += [values <= 0 if positive else np.zeros(len(values), bool)]
        broken += [values < 0 if nonnegative else np.zeros(len(values), bool)]
    faults = np.full(len(values), -1, dtype=np.int8)
    for code in reversed(range(len(broken))):  # the first part broken is the one named
        faults[broken[code]] = code
    return faults


def sane_number(
    value: float, *, positive: bool = False, nonnegative: bool = False, written: object = None
) -> float:
    """The numeric rule (`number_faults`) for one number; `written` is the value as the user
    wrote it, for the message."""
    fault = int(
        number_faults(np.array([value], dtype=np.float64), positive=positive, nonnegative=nonnegative)[0]
    )
    if fault < 0:
        return value
    raise ValueError(f"{NUMBER_FAULTS[fault]}, got {excerpt(value if written is None else written)}")


def _positive(value: float) -> float:
    return sane_number(value, positive=True)


def _nonnegative(value: float) -> float:
    return sane_number(value, nonnegative=True)


def _finite(value: float) -> float:
    return sane_number(value)


# Field types for pydantic models holding numbers that reach a page.
PositiveNumber = Annotated[float, AfterValidator(_positive)]
NonNegativeNumber = Annotated[float, AfterValidator(_nonnegative)]
FiniteNumber = Annotated[float, AfterValidator(_finite)]
Count = Annotated[int, Field(gt=0, le=MAX_COUNT)]
Whole = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Identifier = Annotated[str, AfterValidator(identifier)]
Title = Annotated[str, Field(max_length=MAX_TITLE_CHARS)]
Prose = Annotated[str, Field(max_length=MAX_PROSE_CHARS)]


def check_web_address(value: str) -> str:
    """An absolute http(s) address with a host, no whitespace or control characters: the one
    rule for every address that reaches a link or structured data (site_url, --site-url,
    --url, a dataset's url, a run's run_url, the catalog's source_url)."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"must be an absolute http:// or https:// address, got {excerpt(value)}")
    if any(c.isspace() or not c.isprintable() or c in "<>\"'`" for c in value):
        raise ValueError(
            f"must not contain spaces, quotes, angle brackets or control characters, got {excerpt(value)}"
        )
    return value


def web_address(value: str | None) -> str | None:
    """`value` where it keeps the address rule above, else None (nothing to link)."""
    try:
        return check_web_address(value) if value else None
    except ValueError:
        return None


WebAddress = Annotated[str, AfterValidator(check_web_address)]
