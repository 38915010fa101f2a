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
build runs uncached).

Nothing read back can run code or give a wrong page: the manifest is JSON whose every part is
checked on read (`StoredPage`) and used only as it was written (a digest of each entry is kept
with it); a blob is used only while its bytes are the ones its name digests. A damaged cache
is a miss, reported once a run (`notice`), never an error. The site gets copies of the blobs,
never links: nothing done to the output folder reaches the cache. One run at a time uses the
cache (a lock on `lock` in the folder): another build, or serve, of the same project that finds
it taken waits briefly, then builds without the cache. A cache that cannot be written (full
disk, no permission) is given up for the rest of the run, with one notice.
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
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

import site_builder
from site_builder import __version__
from site_builder.content import SiteConfig, Stub
from site_builder.plan import RelatedLink
from site_builder.problems import Cause, Problem, Severity
from site_builder.project import Project

FOLDER = ".site-builder-cache"
TAG = "CACHEDIR.TAG"
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by site-builder (build cache; safe to delete).\n"
)
MANIFEST = "manifest.json"
LOCK = "lock"
WRITING = ".writing-"  # the prefix of a file being written (renamed into place when whole)
FORMAT = 8  # 5: entries by page key, each with its own digest. 6: no head. 8: a file is its blob's name
BLOB_NAME = re.compile(r"[0-9a-f]{64}")
WAIT_SECONDS = 5.0  # how long a run waits for another run of the project to finish with the cache
NO_CACHE = "--no-cache skips the cache"

try:
    import fcntl
except ImportError:  # not on this system: runs do not wait for each other
    fcntl = None  # type: ignore[assignment]


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
            *(file_digest(path) for path in project.catalog_files("hardware.yaml") if path),
            *(file_digest(path) for path in project.catalog_files("models.yaml") if path),
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


def page_key(stub: Stub, digests: Digests, related: Sequence[RelatedLink], preview: str | None = None) -> str:
    """The digest of everything a page is made from: what every page shares, the data its sides
    may select (the data of the models they name, or of every model), the stub itself (spec,
    prose, file, and the lines its problems name) and the links to its related pages; and
    `preview`, what draws its preview image, where its files hold one (None: they do not)."""
    models = stub.models()
    by_model = sorted(digests.data_of_model.items())
    if models is None:
        data: Any = by_model
    else:
        data = [d for model, d in by_model if model.lower() in models] or digests.no_points
    spec = stub.spec.model_dump(mode="json")
    lines = [list(line) for line in stub.lines]
    links = [[link.href, link.text] for link in related]
    key = digest(digests.shared, data, stub.path, stub.slug, spec, lines, stub.body, links)
    return digest(key, "preview", preview) if preview is not None else key


# -- what the manifest holds, checked on read -----------------------------------------------------


class _Stored(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


BlobName = Annotated[str, StringConstraints(pattern=BLOB_NAME.pattern)]


class StoredProblem(_Stored):
    file: str
    record: str
    field: str
    reason: str
    severity: Literal["error", "warning", "notice"]
    cause: Literal["other", "missing"] = "other"


class StoredPage(_Stored):
    """A page as the manifest keeps it: its files (relative path -> blob name), index entry,
    problems, and the digest of all three with its key."""

    files: dict[str, BlobName]
    entry: dict[str, Any] | None
    problems: list[StoredProblem]
    check: str


class StoredGuides(_Stored):
    html: dict[str, str] = {}
    check: str = ""


class Manifest(_Stored):
    format: Literal[8]  # FORMAT
    pages: dict[str, StoredPage]
    guides: StoredGuides


class _Format(BaseModel):
    """Which version of the tool wrote the manifest: a whole number, or none."""

    model_config = ConfigDict(strict=True)
    format: int | None = None


# -- the folder -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CachedPage:
    """A page as the cache holds it: its files' bytes, index entry and the problems making it found."""

    files: dict[str, bytes]
    entry: dict[str, Any] | None
    problems: list[Problem]


class PageCache:
    """The cache folder, held by this run (`open` … `close`): `get` a page by its key, `put` one,
    `save` what this run used. Besides the pages it keeps the guides' HTML made from their
    Markdown (`guides_html`), which costs more than a small site's pages. `notice`: the first
    thing that went wrong with it this run (None: nothing)."""

    def __init__(self, folder: Path, lock: int | None) -> None:
        self.folder = folder
        self.blobs = folder / "blobs"
        self.notice: str | None = None
        self.writable = True  # False once a write failed: the rest of the run leaves the cache alone
        self._lock = lock
        manifest = self._load()
        self._stored: dict[str, StoredPage] = manifest.pages if manifest else {}
        self._used: dict[str, StoredPage] = {}  # entries looked up or put by this run
        self._guides = manifest.guides if manifest else StoredGuides()
        self._markdown_key = markdown_key()

    @classmethod
    def open(cls, folder: Path) -> tuple[PageCache | None, str | None]:
        """The cache in `folder` (made if missing) held by this run, or None and why not: the
        folder is not ours (no tag), cannot be made or written, or another run holds it."""
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            return None, f"not a folder (a file or a link): building without the build cache; {NO_CACHE}"
        if folder.exists() and not (folder / TAG).is_file():
            return None, f"holds no {TAG}: not this tool's build cache, left alone; building without it"
        try:
            cls._make(folder)
            lock = _hold(folder / LOCK)
        except OSError as exc:
            return None, f"the build cache cannot be used ({_reason(exc)}): building without it; {NO_CACHE}"
        except Busy:
            return None, (
                f"the build cache is in use by another build or serve of this project (waited "
                f"{WAIT_SECONDS:.0f} s): building without it"
            )
        _remove_unfinished(folder)
        return cls(folder, lock), None

    @staticmethod
    def _make(folder: Path) -> None:
        (folder / "blobs").mkdir(parents=True, exist_ok=True)
        if not (folder / TAG).is_file():
            (folder / TAG).write_text(TAG_TEXT)

    def _load(self) -> Manifest | None:
        """The manifest (None when it is missing, damaged or of another format)."""
        try:
            text = (self.folder / MANIFEST).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._trouble(f"its manifest cannot be read ({_reason(exc)})")
            return None
        try:
            if _Format.model_validate_json(text).format != FORMAT:  # another version's: a miss
                return None
            return Manifest.model_validate_json(text)
        except ValidationError as exc:
            self._trouble(f"its manifest is damaged ({exc.errors()[0]['msg']})")
            return None

    def _trouble(self, what: str) -> None:
        if self.notice is None:
            self.notice = f"the build cache is damaged: {what}; the pages concerned are made afresh"

    def get(self, key: str) -> CachedPage | None:
        """The page made from exactly the inputs `key` digests, if the cache holds it whole."""
        stored = self._stored.get(key)
        if stored is None:
            return None
        if stored.check != _check(key, stored):
            self._trouble(f"the entry of a page was changed after it was written ({MANIFEST})")
            return None
        files = {}
        for relative, name in stored.files.items():
            content = _read_blob(self.blobs / name)
            if content is None:
                self._trouble(f"a file it lists is missing or changed (blobs/{name})")
                return None
            files[relative] = content
        self._used[key] = stored
        problems = [
            Problem(**{**p.model_dump(), "severity": Severity(p.severity), "cause": Cause(p.cause)})
            for p in stored.problems
        ]
        return CachedPage(files, stored.entry, problems)

    def put(
        self,
        key: str,
        files: Mapping[str, bytes],
        entry: dict[str, Any] | None,
        problems: Sequence[Problem],
    ) -> None:
        """Keep a page under its key (unless the cache cannot be written)."""
        if not self.writable:
            return
        try:
            names = {relative: self._keep(content) for relative, content in files.items()}
        except OSError as exc:
            self._give_up(exc)
            return
        parts: dict[str, Any] = {
            "files": names,
            "entry": json.loads(json.dumps(entry)),  # as the manifest will hold it (tuples as lists)
            "problems": [
                {**asdict(p), "severity": p.severity.value, "cause": p.cause.value} for p in problems
            ],
        }
        self._used[key] = StoredPage(**parts, check=digest(key, parts))

    def _keep(self, content: bytes) -> str:
        """The name of the blob holding `content`: the one there if it holds exactly that, else
        written anew (whole, or not at all)."""
        name = hashlib.sha256(content).hexdigest()
        if _read_blob(self.blobs / name) is None:
            _write_atomically(self.blobs / name, content)
        return name

    def _give_up(self, exc: OSError) -> None:
        """A write failed: the cache is left as it is for the rest of the run, said once."""
        self.writable = False
        self.notice = self.notice or (
            f"the build cache cannot be written ({_reason(exc)}): building on without it; "
            f"free space or permission there, or {NO_CACHE}"
        )

    def guides_html(self) -> dict[str, str]:
        """The guides' HTML as the last run made it from their Markdown, by a digest of the text,
        if made by this code with these Markdown libraries."""
        if self._guides.check != digest(self._markdown_key, self._guides.html):
            return {}
        return dict(self._guides.html)

    def keep_guides_html(self, html: Mapping[str, str]) -> None:
        self._guides = StoredGuides(html=dict(html), check=digest(self._markdown_key, html))

    def save(self) -> None:
        """Write the manifest of the pages this run used (in one step), and drop every blob they
        do not refer to."""
        if not self.writable:
            return
        manifest = Manifest(format=8, pages=self._used, guides=self._guides)
        try:
            _write_atomically(self.folder / MANIFEST, manifest.model_dump_json().encode())
            referenced = {name for page in self._used.values() for name in page.files.values()}
            for blob in self.blobs.iterdir():
                if blob.name not in referenced:
                    blob.unlink()
        except OSError as exc:
            self._give_up(exc)

    def close(self) -> None:
        """Let the next run have the cache."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def _check(key: str, stored: StoredPage) -> str:
    """The digest an entry is kept with: an entry whose content (or key) differs is not used."""
    return digest(key, stored.model_dump(include={"files", "entry", "problems"}))


def _read_blob(path: Path) -> bytes | None:
    """A blob's bytes, if they are the ones its name digests."""
    try:
        content = path.read_bytes()
    except OSError:
        return None
    return content if hashlib.sha256(content).hexdigest() == path.name else None


class Busy(Exception):
    """Another run of the project held the cache for WAIT_SECONDS."""


def _hold(path: Path) -> int | None:
    """The lock file, open and locked by this run (None where the system has no locks)."""
    if fcntl is None:
        return None
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(handle)
                raise Busy from None
            time.sleep(0.1)
        except OSError:
            os.close(handle)
            raise


def _remove_unfinished(folder: Path) -> None:
    """What a killed run left: files it was writing, and Jinja's compiled theme, which earlier
    versions kept here (code: nothing from the cache is run)."""
    for place in (folder, folder / "blobs"):
        for unfinished in place.glob(f"{WRITING}*"):
            with contextlib.suppress(OSError):
                unfinished.unlink()
    shutil.rmtree(folder / "templates", ignore_errors=True)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _write_atomically(path: Path, content: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=WRITING)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
