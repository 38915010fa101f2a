"""The build cache: what each page's files were made from, so a rebuild redoes only what changed.

A page is made from its stub, the data rows its model selects, the catalogs, the site settings,
this tool's code, the theme and the guides; its key is a digest of exactly those inputs
(`PageKeys`): a key that matches the cache's gives the page's files without redoing it. The
files are kept as content-addressed blobs that the output folder hard-links, so reusing a page
costs a link. (The related links, which depend on every other page, are not part of a page's
key: the build fills them into each page's HTML afterwards.) A written stub's page also keeps its
numbers (the pipeline's pickle of its comparison result) under the key of what they are computed
from, its key without the prose and the theme: editing a stub's prose renders the page again
without loading a point or computing anything.

The cache is one folder (`.site-builder-cache/` beside content/) tagged with CACHEDIR.TAG;
deleting it is always safe (the next build is a clean one, byte for byte the same), and a
folder of that name without the tag is a user's and is left alone (the build runs uncached).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import plotly

import site_builder
from site_builder import __version__
from site_builder.content import Stub
from site_builder.problems import Problem, Severity

FOLDER = ".site-builder-cache"
TAG = "CACHEDIR.TAG"
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by site-builder (build cache; safe to delete).\n"
)
MANIFEST = "manifest.json"
# blobs a page entry keeps beside its files, each under a key of its own: its HTML with the
# related links filled in, and (a written stub's) its numbers
EXTRAS = ("filled", "numbers")
FORMAT = 4  # 2: one key a page (was one to compute and one to render); 3: what loading found;
# 4: a written stub's numbers


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
    """Every file under these files and folders, by relative name and content."""
    found = []
    for place in places:
        paths = sorted(p for p in place.rglob("*") if p.is_file()) if place.is_dir() else [place]
        found += [(p.as_posix(), file_digest(p)) for p in paths]
    return digest(found)


@functools.cache
def code_digest() -> str:
    """This tool's own code (its version and sources) and the chart library's version, as this
    process loaded them (once a process)."""
    package = Path(site_builder.__file__).parent
    return digest(__version__, plotly.__version__, tree_digest(*sorted(package.rglob("*.py"))))


def markdown_key() -> str:
    """What turning Markdown into HTML depends on besides the text: this tool's code (which
    extensions, what is cleaned) and the versions of the two libraries that do it."""
    return digest(code_digest(), importlib.metadata.version("markdown"), importlib.metadata.version("nh3"))


class DataFiles:
    """Every file under the data folder, by the name a point's provenance gives it (data/…), and
    the SHA-256 of its content: read once a run."""

    def __init__(self, data_folder: Path) -> None:
        files = [p for p in sorted(data_folder.rglob("*")) if p.is_file()] if data_folder.is_dir() else []
        by_display = {(Path(data_folder.name) / p.relative_to(data_folder)).as_posix(): p for p in files}
        self.hashes = {name: file_digest(path) for name, path in by_display.items()}


class PageKeys:
    """The digest a page is keyed on: the stub (spec, body, file and the lines problems name),
    the data its model selects — every data file with a point of that model, and every data file
    without points (metadata, dataset attribution, evaluations), which any page may read — the
    catalogs, the site settings (and build date), the code, the theme and the guides."""

    def __init__(
        self,
        data: DataFiles,
        files_of_model: Mapping[str, Iterable[str]],
        shared_inputs: Iterable[Path],
        theme: Iterable[Path],
        settings: Mapping[str, Any],
    ) -> None:
        hashes = data.hashes
        with_points = {name for names in files_of_model.values() for name in names}
        without_points = sorted((n, h) for n, h in hashes.items() if n not in with_points)
        self._data = {
            model: digest(sorted((n, hashes.get(n, "")) for n in names), without_points)
            for model, names in files_of_model.items()
        }
        self._no_points = digest([], without_points)
        self._shared = digest(code_digest(), [file_digest(p) for p in shared_inputs], settings)
        self._theme = tree_digest(*theme)

    def _data_of(self, stub: Stub) -> Any:
        """The digests of the data the page's sides may select (Stub.models)."""
        models = stub.models()
        if models is None:
            return sorted(self._data.items())
        return [self._data[m] for m in sorted(self._data) if m.lower() in models] or self._no_points

    def page(self, stub: Stub) -> str:
        return digest(self.numbers(stub), self._theme, stub.body)

    def numbers(self, stub: Stub) -> str:
        """The digest of what the page's numbers are computed from: its key without the prose
        and the theme (the stub's lines stay in, as its problems name them)."""
        spec = stub.spec.model_dump(mode="json")
        return digest(
            self._shared, self._data_of(stub), stub.path, stub.slug, spec, [list(line) for line in stub.lines]
        )


def problems_out(problems: Sequence[Problem]) -> list[dict[str, str]]:
    return [asdict(p) for p in problems]


def problems_in(stored: Sequence[Mapping[str, str]]) -> list[Problem]:
    return [Problem(p["file"], p["record"], p["field"], p["reason"], Severity(p["severity"])) for p in stored]


class BuildCache:
    """The cache folder: a manifest of page entries (JSON) and the blobs page files are kept in."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.blobs = folder / "blobs"
        self.usable = self._claim()
        manifest = self._load() if self.usable else {}
        self.pages: dict[str, dict[str, Any]] = manifest.get("pages", {})
        self.inputs_entry: dict[str, Any] | None = manifest.get("inputs")
        self.markdown_entry: dict[str, Any] | None = manifest.get("markdown")
        self.used: set[str] = set()  # slugs this run looked up or stored

    def _claim(self) -> bool:
        """True when the folder is ours (tagged) or could be made ours; never takes over a user's."""
        if self.folder.exists():
            return (self.folder / TAG).is_file() and not self.folder.is_symlink()
        try:
            self.blobs.mkdir(parents=True)
            (self.folder / TAG).write_text(TAG_TEXT)
        except OSError:
            return False
        return True

    def _load(self) -> dict[str, Any]:
        """The manifest's pages and inputs entries (empty when missing, damaged or older)."""
        try:
            manifest = json.loads((self.folder / MANIFEST).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            return {}
        pages, inputs, markdown = manifest.get("pages"), manifest.get("inputs"), manifest.get("markdown")
        return {
            "pages": pages if isinstance(pages, dict) else {},
            "inputs": inputs if isinstance(inputs, dict) else None,
            "markdown": markdown if isinstance(markdown, dict) else None,
        }

    # -- looking up ------------------------------------------------------------------------------

    def page(self, slug: str, key: str) -> dict[str, Any] | None:
        """The page's head, entry, problems and files, if made from exactly these inputs and every
        blob is still as written (an edited output file, which shares the blob, is a miss)."""
        self.used.add(slug)
        entry = self.pages.get(slug)
        if entry is None or entry.get("key") != key:
            return None
        return entry if all(self._intact(stamp) for stamp in entry["files"].values()) else None

    def _intact(self, stamp: list[Any]) -> bool:
        """Whether a blob is as a page's entry stamped it (name, size, modification time)."""
        name, size, mtime = stamp
        try:
            info = os.stat(os.path.join(self.blobs, name))  # a string join: thousands a rebuild
        except OSError:
            return False
        return (info.st_size, info.st_mtime_ns) == (size, mtime)

    def filled(self, slug: str, html: str, links: Any) -> Path | None:
        """The page's HTML (blob `html`) with these related links filled in, if kept (and still as
        written). Keyed by the links, not their HTML: the section's template and context are
        part of the page's key, and a page made again starts an entry without it."""
        return self._extra(slug, "filled", digest(html, links))

    def store_filled(self, slug: str, html: str, links: Any, content: bytes | list[Any]) -> Path:
        """Keep the page's HTML with its related links filled in (its content, or the stamp
        `keep_blob` gave the worker that kept it); returns where it is."""
        return self._store_extra(slug, "filled", digest(html, links), content)

    def _extra(self, slug: str, extra: str, key: str) -> Path | None:
        """One of a page entry's EXTRAS, if kept under this key and still as written."""
        kept = self.pages.get(slug, {}).get(extra)
        if kept is None or kept["key"] != key or not self._intact(kept["blob"]):
            return None
        return self.blob(str(kept["blob"][0]))

    def _store_extra(self, slug: str, extra: str, key: str, content: bytes | list[Any]) -> Path:
        stamp = self._stamp_of(content)
        self.pages[slug][extra] = {"key": key, "blob": stamp}
        return self.blob(str(stamp[0]))

    def _stamp_of(self, content: bytes | list[Any]) -> list[Any]:
        """A blob's stamp: of the content, kept now, or as the worker that kept it gave it."""
        return blob_stamp(self._keep(content)) if isinstance(content, bytes) else content

    def _keep(self, content: bytes) -> Path:
        return keep_blob(self.blobs, content)

    def blob(self, name: str) -> Path:
        return self.blobs / name

    @property
    def templates(self) -> Path | None:
        """Where Jinja keeps the theme's compiled templates (None: it cannot)."""
        folder = self.folder / "templates"
        try:
            folder.mkdir(exist_ok=True)
        except OSError:
            return None
        return folder

    def numbers(self, slug: str, key: str) -> bytes | None:
        """The page's numbers as the last run that computed them from exactly these inputs kept
        them (pickled by the pipeline), if still as written."""
        kept = self._extra(slug, "numbers", key)
        try:
            return kept.read_bytes() if kept is not None else None
        except OSError:
            return None

    def inputs(self, key: str) -> dict[str, Any] | None:
        """What the last run that loaded exactly these inputs kept of them (pipeline.InputsSummary)."""
        stored = self.inputs_entry
        return stored["summary"] if stored is not None and stored.get("key") == key else None

    def markdown(self) -> dict[str, str]:
        """The guides' HTML the last build made from their Markdown, by a digest of the text, if
        made by this code with these Markdown libraries (`markdown_key`)."""
        stored = self.markdown_entry
        if stored is None or stored.get("key") != markdown_key() or not isinstance(stored.get("html"), dict):
            return {}
        return {str(k): str(v) for k, v in stored["html"].items()}

    # -- storing ---------------------------------------------------------------------------------

    def store_markdown(self, html: Mapping[str, str]) -> None:
        self.markdown_entry = {"key": markdown_key(), "html": dict(html)}

    def store_inputs(self, key: str, summary: dict[str, Any]) -> None:
        self.inputs_entry = {"key": key, "summary": summary}

    def store_page(
        self,
        slug: str,
        key: str,
        head: dict[str, Any] | None,
        entry: dict[str, Any] | None,
        problems: Sequence[Problem],
        files: Mapping[str, bytes | list[Any]],
        numbers: tuple[str, bytes] | None = None,
    ) -> dict[str, Path]:
        """Keep the page (its files as blobs: their content, or the stamps `keep_blob` gave a
        worker that kept them; head None: a page not published), and with `numbers` (their key
        and bytes) what its numbers were; returns where each file is."""
        self.used.add(slug)
        stored = {relative: self._stamp_of(content) for relative, content in files.items()}
        self.pages[slug] = {
            "key": key,
            "head": head,
            "entry": entry,
            "problems": problems_out(problems),
            "files": stored,
        }
        if numbers is not None:
            self._store_extra(slug, "numbers", *numbers)
        return {relative: self.blob(str(stamp[0])) for relative, stamp in stored.items()}

    def save(self) -> None:
        """Write the manifest for the pages this run used, and drop blobs nothing refers to."""
        if not self.usable:
            return
        pages = {slug: self.pages[slug] for slug in sorted(self.used) if slug in self.pages}
        with contextlib.suppress(OSError):
            manifest = {
                "format": FORMAT,
                "pages": pages,
                "inputs": self.inputs_entry,
                "markdown": self.markdown_entry,
            }
            _write_atomically(self.folder / MANIFEST, json.dumps(manifest).encode())
            referenced = {stamp[0] for page in pages.values() for stamp in _blob_stamps(page)}
            for blob in self.blobs.iterdir():
                if blob.name not in referenced:
                    blob.unlink()

    def clear(self) -> None:
        """Forget everything (the folder stays, tagged)."""
        if self.usable:
            shutil.rmtree(self.folder / "templates", ignore_errors=True)
            shutil.rmtree(self.blobs, ignore_errors=True)
            self.blobs.mkdir(parents=True, exist_ok=True)
            (self.folder / MANIFEST).unlink(missing_ok=True)
        self.pages, self.inputs_entry = {}, None


def _blob_stamps(page: Mapping[str, Any]) -> list[list[Any]]:
    """The stamps (name, size, time) of every blob a page entry refers to: its files, its HTML
    with the related links filled in, and its numbers."""
    stamps = list(page.get("files", {}).values())
    return stamps + [page[extra]["blob"] for extra in EXTRAS if extra in page]


def keep_blob(blobs: Path, content: bytes) -> Path:
    """The blob holding `content` in the folder `blobs`: the one there if it still holds exactly
    that (pages share blobs, and a page's output links must stay as they are), else written anew
    (never trust a blob an edit of an output file reached through its link). Safe from several
    processes at once (a build's workers keep their pages' files themselves)."""
    name = hashlib.sha256(content).hexdigest()
    path = blobs / name
    if _write_new(path, content):  # nothing links a blob just made: no need to write it aside
        return path
    try:
        if hashlib.sha256(path.read_bytes()).hexdigest() == name:
            return path
    except OSError:
        pass
    _write_atomically(path, content)
    return path


def blob_stamp(path: Path) -> list[Any]:
    """What a page entry records of a blob (name, size, modification time): `_intact` checks it."""
    info = path.stat()
    return [path.name, info.st_size, info.st_mtime_ns]


def _write_new(path: Path, content: bytes) -> bool:
    """Write a file that does not exist yet; False if it does (or cannot be made). A write cut
    short leaves a blob whose content is not its name: the next `_keep` finds it and replaces it,
    and no manifest stamped it (the manifest is saved when a build ends)."""
    try:
        out = open(path, "xb")  # noqa: SIM115 - closed below, removed if the write fails
    except OSError:
        return False
    try:
        with out:
            out.write(content)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    return True


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
