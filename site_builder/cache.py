"""The page cache: each page's files under a digest of everything the page is made from.

A page is made from its stub, the data its sides may select, the catalogs, the site settings,
this tool's code, the theme and the guides. `page_key` digests exactly those (the parts every
page shares are digested once a build, in `Digests`): a key the cache holds gives the page's
files, index entry and problems without making it again. Its related links, which the plan
decides from every page's head, are part of its key: a page is made again when they change.

The cache is one folder (`.site-builder-cache/` beside content/) tagged with CACHEDIR.TAG: a
manifest (JSON) and the files, named by the SHA-256 of their content ("blobs"). It is the only
module that knows about either. Deleting it is always safe (the next build is a clean one, byte
for byte the same); a folder of that name without the tag is a user's and is left alone (the
build runs uncached). A manifest entry is used only as it was written (a digest of it is kept
with it), so a damaged or foreign manifest is a miss, never an error. The site's files are hard
links to the blobs where the system allows (a rebuild then writes no page's bytes again), else
copies. A blob is used only while its size and modification time are the ones it was kept with, so
an output file edited in place (through its link) is a miss: its page is made again (into a new
blob), never the edit republished.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import site_builder
from site_builder import __version__
from site_builder.content import SiteConfig, Stub
from site_builder.plan import RelatedLink
from site_builder.problems import Problem, Severity
from site_builder.project import Project

FOLDER = ".site-builder-cache"
TAG = "CACHEDIR.TAG"
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by site-builder (build cache; safe to delete).\n"
)
MANIFEST = "manifest.json"
FORMAT = 7  # 5: entries by page key, each with its own digest. 6: no head. 7: a blob's time kept
BLOB_NAME = re.compile(r"[0-9a-f]{64}")


# -- keys -----------------------------------------------------------------------------------------


def digest(*parts: Any) -> str:
    """A stable digest of JSON-able parts (keys sorted)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


def tree_digest(*places: Path) -> str:
    """Every file under these files and folders, by name and content."""
    found = []
    for place in places:
        paths = sorted(p for p in place.rglob("*") if p.is_file()) if place.is_dir() else [place]
        found += [(p.as_posix(), file_digest(p)) for p in paths]
    return digest(found)


def code_digest() -> str:
    """This tool's own code (its version and sources) and the chart library's version."""
    package = Path(site_builder.__file__).parent
    plotly = importlib.metadata.version("plotly")
    return digest(__version__, plotly, tree_digest(*sorted(package.rglob("*.py"))))


def markdown_key() -> str:
    """What turning a guide's Markdown into HTML depends on besides its text: this tool's code
    (which extensions, what is cleaned) and the versions of the two libraries that do it."""
    return digest(code_digest(), importlib.metadata.version("markdown"), importlib.metadata.version("nh3"))


def data_file_digests(data_folder: Path) -> dict[str, str]:
    """Every file under the data folder, by the name a point's provenance gives it (data/…)."""
    if not data_folder.is_dir():
        return {}
    files = [p for p in sorted(data_folder.rglob("*")) if p.is_file()]
    return {(Path(data_folder.name) / p.relative_to(data_folder)).as_posix(): file_digest(p) for p in files}


@dataclass(frozen=True)
class Digests:
    """What every page's key is made of but its stub, digested once a build."""

    shared: str  # the code, the catalogs, site.yaml, the settings and build date, the theme, the guides
    data_of_model: dict[str, str]  # a model's data files, and every data file without points
    no_points: str  # every data file without points (metadata, attribution, evaluations)

    @classmethod
    def of(cls, project: Project, config: SiteConfig, files_of_model: Mapping[str, Iterable[str]]) -> Digests:
        hashes = data_file_digests(project.data)
        with_points = {name for names in files_of_model.values() for name in names}
        without_points = sorted((n, h) for n, h in hashes.items() if n not in with_points)
        settings = [
            file_digest(project.catalog_file("hardware.yaml")),
            file_digest(project.catalog_file("models.yaml")),
            file_digest(project.content / "site.yaml"),
            config.model_dump_json(),
            os.environ.get("SOURCE_DATE_EPOCH"),
        ]
        theme = tree_digest(*project.template_folders(), *project.guide_files(config.guides).values())
        return cls(
            shared=digest(code_digest(), settings, theme),
            data_of_model={
                model: digest(sorted((n, hashes.get(n, "")) for n in names), without_points)
                for model, names in files_of_model.items()
            },
            no_points=digest([], without_points),
        )


def page_key(stub: Stub, digests: Digests, related: Sequence[RelatedLink]) -> str:
    """The digest of everything a page is made from: what every page shares, the data its sides
    may select (the data of the models they name, or of every model), the stub itself (spec,
    prose, file, and the lines its problems name) and the links to its related pages."""
    models = stub.models()
    by_model = sorted(digests.data_of_model.items())
    if models is None:
        data: Any = by_model
    else:
        data = [d for model, d in by_model if model.lower() in models] or digests.no_points
    spec = stub.spec.model_dump(mode="json")
    lines = [list(line) for line in stub.lines]
    links = [[link.href, link.text] for link in related]
    return digest(digests.shared, data, stub.path, stub.slug, spec, lines, stub.body, links)


# -- the folder -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CachedPage:
    """A page as the cache holds it: its files (each a blob of this cache), index entry and the
    problems making it found."""

    files: dict[str, Path]
    entry: dict[str, Any] | None
    problems: list[Problem]


class PageCache:
    """The cache folder: `get` a page by its key, `put` one, `save` what this run used. Besides
    the pages it keeps the guides' HTML made from their Markdown (`guides_html`), which costs
    more than a small site's pages, and Jinja's compiled theme (`templates`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.blobs = folder / "blobs"
        self.templates = folder / "templates"  # where Jinja keeps the theme compiled
        manifest = self._load()
        pages, guides = manifest.get("pages"), manifest.get("guides")
        self._stored: dict[str, Any] = pages if isinstance(pages, dict) else {}
        self._used: dict[str, dict[str, Any]] = {}  # entries looked up or put by this run
        self._guides: dict[str, Any] = guides if isinstance(guides, dict) else {}
        self._markdown_key = markdown_key()

    @classmethod
    def open(cls, folder: Path) -> PageCache | None:
        """The cache in `folder`, made if missing; None if the folder is not ours (no tag) or
        cannot be made."""
        if folder.is_symlink() or (folder.exists() and not (folder / TAG).is_file()):
            return None
        try:
            for inside in (folder / "blobs", folder / "templates"):
                inside.mkdir(parents=True, exist_ok=True)
            if not (folder / TAG).is_file():
                (folder / TAG).write_text(TAG_TEXT)
        except OSError:
            return None
        return cls(folder)

    def _load(self) -> dict[str, Any]:
        """The manifest (empty when it is missing, damaged or of another format)."""
        try:
            manifest = json.loads((self.folder / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            return {}
        return manifest

    def get(self, key: str) -> CachedPage | None:
        """The page made from exactly the inputs `key` digests, if the cache holds it whole."""
        stored = self._stored.get(key)
        if not isinstance(stored, dict) or stored.get("check") != _check(key, stored):
            return None
        kept = stored["files"]  # relative path -> [blob name, size, modification time]
        if not all(isinstance(blob, list) and len(blob) == 3 for blob in kept.values()):
            return None
        files = {relative: self.blobs / str(name) for relative, (name, _, _) in kept.items()}
        if not all(
            _unchanged(files[relative], size, written) for relative, (_, size, written) in kept.items()
        ):
            return None
        self._used[key] = stored
        return CachedPage(
            files,
            stored["entry"],
            [Problem(**{**p, "severity": Severity(p["severity"])}) for p in stored["problems"]],
        )

    def put(
        self,
        key: str,
        files: Mapping[str, bytes],
        entry: dict[str, Any] | None,
        problems: Sequence[Problem],
    ) -> CachedPage:
        """Keep a page under its key; returns it as `get` will."""
        blobs = {relative: self._keep(content) for relative, content in files.items()}
        stored: dict[str, Any] = {
            "files": {
                relative: [path.name, len(files[relative]), path.stat().st_mtime_ns]
                for relative, path in blobs.items()
            },
            "entry": entry,
            "problems": [asdict(p) for p in problems],
        }
        stored = json.loads(json.dumps(stored))  # as the manifest will hold it (tuples as lists)
        stored["check"] = _check(key, stored)
        self._used[key] = stored
        return CachedPage(blobs, entry, list(problems))

    def _keep(self, content: bytes) -> Path:
        """The blob holding `content`: the one there if it holds exactly that, else written anew
        (whole, or not at all)."""
        path = self.blobs / hashlib.sha256(content).hexdigest()
        try:
            stamp = _blob_stamp(path)
            there = stamp is not None and stamp[0] == len(content) and path.read_bytes() == content
        except OSError:
            there = False
        if not there:
            _write_atomically(path, content)
        return path

    def guides_html(self) -> dict[str, str]:
        """The guides' HTML as the last run made it from their Markdown, by a digest of the text,
        if made by this code with these Markdown libraries."""
        html = self._guides.get("html")
        if self._guides.get("check") != digest(self._markdown_key, html) or not isinstance(html, dict):
            return {}
        return html

    def keep_guides_html(self, html: Mapping[str, str]) -> None:
        self._guides = {"html": dict(html), "check": digest(self._markdown_key, html)}

    def save(self) -> None:
        """Write the manifest of the pages this run used (in one step), and drop every blob they
        do not refer to."""
        with contextlib.suppress(OSError):
            manifest = {"format": FORMAT, "pages": self._used, "guides": self._guides}
            _write_atomically(self.folder / MANIFEST, json.dumps(manifest, sort_keys=True).encode())
            referenced = {name for page in self._used.values() for name, *_ in page["files"].values()}
            for blob in self.blobs.iterdir():
                if blob.name not in referenced:
                    blob.unlink()

    def clear(self) -> None:
        """Forget everything (the folder stays, tagged)."""
        for inside in (self.blobs, self.templates):
            shutil.rmtree(inside, ignore_errors=True)
            inside.mkdir(parents=True, exist_ok=True)
        (self.folder / MANIFEST).unlink(missing_ok=True)
        self._stored, self._used, self._guides = {}, {}, {}


def _check(key: str, stored: Mapping[str, Any]) -> str:
    """The digest an entry is kept with: an entry whose content (or key) differs is not used."""
    return digest(key, {part: stored.get(part) for part in ("files", "entry", "problems")})


def _blob_stamp(path: Path) -> tuple[int, int] | None:
    """A blob's size and modification time (None: no such blob, or a name the cache never gives)."""
    if not BLOB_NAME.fullmatch(path.name):
        return None
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def _unchanged(path: Path, size: int, written: int) -> bool:
    """Whether `path` is a blob of this size, last written when it was kept (an output file
    linked to it and edited in place changes its modification time)."""
    return _blob_stamp(path) == (size, written)


def _write_atomically(path: Path, content: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".writing-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
