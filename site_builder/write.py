"""Write a built site all at once: into a temporary folder beside the target, then swap it in.

Every output file is claimed by one owner (a stub's page, the guides, the theme's assets, the
index …); a second claim to a path, or to a top-level name another owner uses, is refused with
both owners named, so a stub with slug `methodology` cannot silently replace the guide.
A failed build leaves the previous site untouched, and a folder this tool did not create is
never replaced (nothing a user wrote is deleted): files a user added to a built site are carried
over when `keep:` names them, and otherwise the build refuses, saying how to keep them. The
marker file lists what the last build wrote, so the two can be told apart. The swap is one
atomic exchange where the system has it; staging folders of killed builds go at the next build.
"""

from __future__ import annotations

import contextlib
import ctypes
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

try:
    import fcntl
except ImportError:  # not on this system: a staging folder is judged by its name's process
    fcntl = None  # type: ignore[assignment]

MARKER = ".site-builder-output"
MANIFEST_HEADER = "# files written by the last build:"


class OutputError(Exception):
    pass


@dataclass(frozen=True)
class Owner:
    """Who writes a file: `what` for people ("comparison page", "guide"), `file` the input behind
    it; owners of one `group` (the guides, the theme's assets) share their top-level names."""

    what: str
    file: str = ""
    group: str = ""

    def __str__(self) -> str:
        return f"{self.what} ({self.file})" if self.file else self.what

    @property
    def shares_with(self) -> str:
        return self.group or f"{self.what}|{self.file}"


@dataclass(frozen=True)
class Collision:
    path: str
    name: str  # the top-level name both claim ("" for the same top-level file)
    first: Owner
    second: Owner

    def __str__(self) -> str:
        if not self.name:
            return f"{self.second} writes {self.path}, which {self.first} writes too"
        return (
            f"{self.second} writes {self.path}, under the top-level name '{self.name}' that {self.first} uses"
        )


def top_name(path: str) -> str:
    """The URL namespace a path claims: 'x/index.html' -> 'x', 'index.html' -> 'index' (its
    address, as a folder would be); other top-level files ('robots.txt') claim only themselves."""
    first, slash, _ = path.lstrip("/").partition("/")
    if slash:
        return first
    return PurePosixPath(path).stem if path.endswith(".html") else ""


@dataclass
class SiteFiles(Mapping[str, bytes]):
    """The site's files (relative POSIX path -> bytes), each with its owner."""

    files: dict[str, bytes] = field(default_factory=dict)
    path_owners: dict[str, Owner] = field(default_factory=dict)
    name_owners: dict[str, Owner] = field(default_factory=dict)  # top-level name -> its owner
    collisions: list[Collision] = field(default_factory=list)

    def add(self, path: str, content: bytes, owner: Owner) -> bool:
        """Claim a path and keep its content; False if the claim was refused (see `claim`)."""
        if not self.claim(path, owner):
            return False
        self.files[path] = content
        return True

    def claim_all(self, paths: Iterable[str], owner: Owner) -> None:
        for path in paths:
            self.claim(path, owner)

    def claim(self, path: str, owner: Owner) -> bool:
        """Claim a path; False (and a recorded collision) if it, or its top-level name, is another's."""
        if path in self.path_owners:
            self.collisions.append(Collision(path, "", self.path_owners[path], owner))
            return False
        name = top_name(path)
        holder = self.name_owners.get(name)  # never a holder for "": such names are not recorded
        if holder is not None and holder.shares_with != owner.shares_with:
            self.collisions.append(Collision(path, name, holder, owner))
            return False
        if name:
            self.name_owners.setdefault(name, owner)
        self.path_owners[path] = owner
        return True

    def add_all(self, files: Mapping[str, bytes], owner: Owner) -> None:
        for path, content in files.items():
            self.add(path, content, owner)

    def __getitem__(self, path: str) -> bytes:
        return self.files[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_output_folder(out: Path, input_folders: Sequence[Path] = ()) -> None:
    """Refuse an output folder that is a file, holds a user's own files, or sits inside an input
    folder (the next build would read its own output)."""
    resolved = out.resolve()
    for folder in input_folders:
        if _inside(resolved, folder.resolve()):
            raise OutputError(
                f"{out} is inside the input folder {folder}: the next build would read its own "
                "output; choose an output folder outside data/, content/, templates/ and docs/"
            )
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a folder; choose another output path")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise OutputError(
            f"{out} is not empty and was not written by build-site (no {MARKER} file); "
            "refusing to replace it: choose another output folder or empty it yourself"
        )


def kept_by(keep: Sequence[str]) -> Callable[[str], bool]:
    """Whether a file (relative POSIX path) of the output folder matches a `keep:` entry: a path,
    a folder (with or without a trailing /) or a glob; the entries read once, for every file."""
    # per entry: the glob, or the path itself and everything under it; nothing for no entry
    entries = [
        f"(?:{fnmatch.translate(pattern)})|(?s:{re.escape(pattern.rstrip('/'))}(?:/.*)?\\Z)"
        for pattern in keep
    ]
    matcher = re.compile("|".join(entries) or "(?!)")
    return lambda path: matcher.match(path) is not None


def _files_in(folder: Path) -> list[str]:
    """Every file and link under a folder (links not followed), as relative POSIX paths: one
    directory read a folder, the entry's type from it (no stat a file)."""
    found: list[str] = []
    pending = [(os.fspath(folder), "")]
    while pending:
        here, prefix = pending.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, f"{prefix}{entry.name}/"))
                else:
                    found.append(prefix + entry.name)
    return sorted(found)


def _written_before(out: Path, present: Collection[str]) -> set[str]:
    """The files the last build wrote (listed in its marker); an older marker lists none, so
    every file `present` counts as written by it."""
    lines = (out / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    if MANIFEST_HEADER not in lines:
        return set(present)
    return set(lines[lines.index(MANIFEST_HEADER) + 1 :])


def files_to_keep(out: Path, files: Collection[str], keep: Sequence[str]) -> list[str]:
    """The user's files in an existing output folder that the new site carries over; refuses
    (OutputError) a file the build did not write and `keep:` does not name, and a kept file the
    new site would overwrite."""
    if not (out / MARKER).is_file():
        return []
    present = [p for p in _files_in(out) if p != MARKER]
    kept = list(filter(kept_by(keep), present))
    unknown = sorted(set(present) - _written_before(out, present) - set(kept))
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise OutputError(
            f"{out} holds files build-site did not write: {shown}. Replacing the folder would delete "
            "them: list them under keep: in content/site.yaml (e.g. keep: [CNAME, .well-known/, "
            f"{unknown[0].split('/')[0]}]) to carry them into every build, or move them out"
        )
    clashes = [p for p in kept if p in files]
    if clashes:
        raise OutputError(
            f"{out}/{clashes[0]} is kept (keep: in content/site.yaml) but the site writes it too: "
            "remove it from the output folder or from keep:"
        )
    return kept


def clean_leftovers(out: Path) -> list[Path]:
    """Staging and retired folders of builds that were killed or failed, whoever made them: a
    staging folder no build holds (`Staging` locks its own), a retired one whose process is
    gone, and the `.site.spare` folder older versions kept beside the output. A site left
    missing by a kill mid-swap (no atomic exchange) is put back first. Returns the folders that
    could not be removed (another user's, say): the build names them."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(?:(building|previous)-(\d+)|spare)")
    if not out.parent.is_dir():
        return []
    leftovers = []
    for entry in sorted(out.parent.iterdir()):
        match = pattern.fullmatch(entry.name)
        if not match or not entry.is_dir() or entry.is_symlink():
            continue
        kind, pid = match.groups()  # (None, None): the spare folder
        if _abandoned(entry) if kind == "building" else (pid is None or not _alive(int(pid))):
            leftovers.append((kind, entry))
    for kind, entry in leftovers:
        if kind == "previous" and not out.exists() and (entry / MARKER).is_file():
            entry.rename(out)
        elif kind is None:  # the spare folder
            remove_in_background(entry)
        else:
            remove_tree(entry)
    return [entry for kind, entry in leftovers if kind is not None and entry.exists()]


def _abandoned(staging: Path) -> bool:
    """Whether no build holds this staging folder (the lock its build took is free)."""
    try:
        handle = os.open(staging, os.O_RDONLY)
    except OSError:
        return True
    try:
        _lock(handle)
    except BlockingIOError:
        return False
    finally:
        os.close(handle)
    return True


def _lock(handle: int) -> None:
    """Lock an open file or folder for this process (BlockingIOError: another holds it); a
    no-op where the system has no such locks."""
    if fcntl is not None:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def remove_tree(folder: Path) -> None:
    """Delete a folder of this tool's, its read-only folders made writable first (a site whose
    files were made read-only); what cannot be deleted (another user's) is left."""

    top = os.fspath(folder)

    def writable_then_again(remove: Callable[[str], object], path: str, error: Any) -> None:
        parent = os.path.dirname(path)
        if isinstance(error[1], PermissionError) and (parent == top or parent.startswith(top + os.sep)):
            with contextlib.suppress(OSError):
                os.chmod(parent, 0o700)
                remove(path)

    shutil.rmtree(folder, onerror=writable_then_again)


# The remover first renames the folder to hold its own process id (.site.previous-<its pid>),
# so that a build starting meanwhile leaves it to the remover (clean_leftovers: a live process's).
_REMOVER = """
import os, re, shutil, sys
folder = sys.argv[1]
mine = re.sub(r"-[0-9]+$", f"-{os.getpid()}", folder)
try:
    os.rename(folder, mine)
except OSError:
    mine = folder
shutil.rmtree(mine, ignore_errors=True)
"""


def remove_in_background(folder: Path) -> None:
    """Delete a folder without waiting for it: the replaced site, whose deletion can take longer
    than the build on a disk that discards freed blocks (3 s for 1,000 pages here). A process of
    its own does it, so a build that exits does not stop it; if it is stopped, the next build
    finds the folder (`clean_leftovers`: its name holds a process that is gone) and deletes it."""
    if not folder.exists():
        return
    try:
        subprocess.Popen(
            [sys.executable, "-c", _REMOVER, os.fspath(folder)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)


def write_new_file(path: Path, content: bytes) -> None:
    """A new file, whole or not at all: written under a hidden name beside it, then linked into
    place, never over an existing file (FileExistsError); a kill or a full disk leaves nothing
    at `path`. What a killed writer left under such a name is removed first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for unfinished in path.parent.glob(f".{glob.escape(path.name)}.writing-*"):
        pid = unfinished.name.rsplit("-", 1)[1]
        if pid.isdigit() and not _alive(int(pid)):
            unfinished.unlink(missing_ok=True)
    temporary = path.parent / f".{path.name}.writing-{os.getpid()}"
    try:
        with open(temporary, "wb") as out:
            out.write(content)
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise
        except OSError:  # no hard links here: a rename, which would replace a file made meanwhile
            if path.exists():
                raise FileExistsError(f"{path} exists") from None
            os.rename(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux renameat2 RENAME_EXCHANGE); False where unsupported."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return bool(renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0)


class Staging:
    """A site written file by file into a staging folder beside `out`, then swapped in whole.

    The rules of `write_site`: a user's file in `out` that `keep` does not name stops the build
    before anything is written; kept files are carried over; the marker lists what was written;
    the old site stays until the new one replaces it in one step; `abort` leaves it untouched."""

    def __init__(self, out: Path, keep: Sequence[str] = (), input_folders: Sequence[Path] = ()) -> None:
        self.out = out.resolve()
        self.keep = keep
        check_output_folder(self.out, input_folders)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(self.out)
        files_to_keep(self.out, (), keep)  # refuse a user's unlisted file now, before any work
        self.folder = self.out.parent / f".{self.out.name}.building-{os.getpid()}"
        self.retired = self.out.parent / f".{self.out.name}.previous-{os.getpid()}"
        try:
            remove_tree(self.folder)  # a folder of this name is an earlier process's of this id
            self.folder.mkdir()
            self._held: int | None = os.open(self.folder, os.O_RDONLY)
        except OSError as exc:
            raise self.refusal(exc) from None
        _lock(self._held)  # while this build lives: no other build takes the folder for a leftover
        self.written: set[str] = set()
        self._folders: set[str] = set()  # folders made (a page's five files share one)

    def refusal(self, exc: OSError) -> OutputError:
        """A write that failed (a full disk, no permission), said with the output folder."""
        return OutputError(
            f"cannot write the site into {self.out} ({exc.strerror or exc}): the previous site is "
            "untouched; free space or permission there, or choose another output folder with -o"
        )

    def _target(self, relative: str) -> str:
        """Where a new file of the site goes in the staging folder (its folder made)."""
        parts = relative.split("/")
        if any(part in ("", ".", "..") for part in parts):  # an absolute path's first part is ""
            raise OutputError(f"refusing to write outside the output folder: {relative}")
        if relative in self.written:
            raise OutputError(f"{relative} is written twice")
        self.written.add(relative)
        target = os.path.join(self.folder, *parts)
        folder = os.path.dirname(target)
        if folder not in self._folders:
            os.makedirs(folder, exist_ok=True)
            self._folders.add(folder)
        return target

    def write(self, relative: str, content: bytes) -> None:
        try:
            with open(self._target(relative), "xb") as out:
                out.write(content)
        except OSError as exc:
            raise self.refusal(exc) from None

    def finish(self) -> None:
        """Carry kept files over, write the marker, swap the new site in."""
        try:
            kept = files_to_keep(self.out, self.written, self.keep)
            for relative in kept:
                target = self.folder / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.out / relative, target, follow_symlinks=False)
            manifest = "\n".join([MANIFEST_HEADER, *sorted(self.written)])
            (self.folder / MARKER).write_text(
                f"Written by build-site; replaced on every build.\n{manifest}\n"
            )
            if not self.out.exists():
                self.folder.rename(self.out)
            elif _exchange(self.folder, self.out):
                self.folder.rename(self.retired)  # now the old site
            else:
                self.out.rename(self.retired)
                self.folder.rename(self.out)
        except BaseException as exc:
            self.abort()
            if self.retired.exists() and not self.out.exists():
                self.retired.rename(self.out)
            if isinstance(exc, OSError):
                raise self.refusal(exc) from None
            raise
        self._release()
        remove_in_background(self.retired)

    def abort(self) -> None:
        """Drop the staging folder (the previous site stays)."""
        remove_tree(self.folder)
        self._release()

    def _release(self) -> None:
        if self._held is not None:
            os.close(self._held)
            self._held = None


def write_site(
    out: Path,
    files: Mapping[str, bytes],
    keep: Sequence[str] = (),
    input_folders: Sequence[Path] = (),
) -> None:
    """Replace `out` with exactly `files` (relative POSIX path -> content) and the user's files
    that `keep` names. The old site is there until the new one replaces it in one step."""
    staging = Staging(out, keep, input_folders)
    try:
        for relative, content in sorted(files.items()):
            staging.write(relative, content)
    except BaseException:
        staging.abort()
        raise
    staging.finish()


# -- sinks: where a run's files go as they are made (pipeline.run) --------------------------------


class Sink(Protocol):
    """Takes the site's files as they are made; `finish` makes them the site, `abort` drops them."""

    def start(self, keep: list[str]) -> None: ...
    def put(self, relative: str, content: bytes) -> None: ...
    def finish(self) -> None: ...
    def abort(self) -> None: ...


class MemorySink:
    """The site in memory (tests, small sites)."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def start(self, keep: list[str]) -> None:
        pass

    def put(self, relative: str, content: bytes) -> None:
        self.files[relative] = content

    def finish(self) -> None:
        pass

    def abort(self) -> None:
        self.files = {}

    def site(self, claims: SiteFiles) -> SiteFiles:
        """The files, each with its owner, in the order their owners claimed them."""
        site = SiteFiles()
        for relative, owner in claims.path_owners.items():
            site.add(relative, self.files[relative], owner)
        return site


class NoSink:
    """Nothing written and nothing kept: `check`."""

    def start(self, keep: list[str]) -> None:
        pass

    def put(self, relative: str, content: bytes) -> None:
        pass

    def finish(self) -> None:
        pass

    def abort(self) -> None:
        pass


class StagingSink:
    """The output folder's staging copy (write.Staging), swapped in by `finish`."""

    def __init__(self, out: Path, input_folders: tuple[Path, ...]) -> None:
        self.out, self.input_folders = out, input_folders
        self.staging: Staging | None = None

    def start(self, keep: list[str]) -> None:
        self.staging = Staging(self.out, keep, self.input_folders)

    def put(self, relative: str, content: bytes) -> None:
        assert self.staging is not None
        self.staging.write(relative, content)

    def finish(self) -> None:
        if self.staging is not None:
            self.staging.finish()

    def abort(self) -> None:
        if self.staging is not None:
            self.staging.abort()
