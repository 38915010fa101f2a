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
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

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
        holder = self.name_owners.get(name) if name else None
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
    folders = [pattern.rstrip("/") for pattern in keep]
    exact, inside = set(folders), tuple(f"{folder}/" for folder in folders)
    globs = re.compile("|".join(f"(?:{fnmatch.translate(pattern)})" for pattern in keep)) if keep else None
    return lambda path: path in exact or path.startswith(inside) or bool(globs and globs.match(path))


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


def _written_before(out: Path) -> set[str] | None:
    """The files the last build wrote (listed in its marker), or None for an older marker."""
    lines = (out / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    if MANIFEST_HEADER not in lines:
        return None
    return set(lines[lines.index(MANIFEST_HEADER) + 1 :])


def files_to_keep(out: Path, files: Collection[str], keep: Sequence[str]) -> list[str]:
    """The user's files in an existing output folder that the new site carries over; refuses
    (OutputError) a file the build did not write and `keep:` does not name, and a kept file the
    new site would overwrite."""
    if not (out / MARKER).is_file():
        return []
    written = _written_before(out)
    present = [p for p in _files_in(out) if p != MARKER]
    is_kept = kept_by(keep)
    kept = [p for p in present if is_kept(p)]
    carried = set(kept)
    unknown = [p for p in present if written is not None and p not in written and p not in carried]
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


def clean_leftovers(out: Path) -> None:
    """Staging and retired folders of builds that were killed (their process is gone): removed.
    A site left missing by a kill mid-swap (no atomic exchange) is put back first."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(building|previous)-(\d+)")
    if not out.parent.is_dir():
        return
    leftovers = []
    for entry in sorted(out.parent.iterdir()):
        match = pattern.fullmatch(entry.name)
        if match and entry.is_dir() and not entry.is_symlink() and not _alive(int(match.group(2))):
            leftovers.append((match.group(1), entry))
    for kind, entry in leftovers:
        if kind == "previous" and not out.exists() and (entry / MARKER).is_file():
            entry.rename(out)
        else:
            shutil.rmtree(entry, ignore_errors=True)


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


def rewrite_file(path: str, change: Callable[[bytes], bytes]) -> None:
    """The file at `path` changed by `change`: written over where it is when the file is its own
    (`_overwrite`), else written anew beside it and moved over it, so a file hard-linked from the
    build cache is replaced, never changed through the link."""
    with open(path, "rb") as source:
        old = source.read()
    content = change(old)
    if content == old or _overwrite(path, content):
        return
    fresh = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.new")
    with open(fresh, "wb") as out:
        out.write(content)
    os.replace(fresh, path)


def _overwrite(target: str, content: bytes) -> bool:
    """Write `content` over the regular file at `target` where it is, if the file is its own (no
    other link to it: never through to a cache blob); False if there is no such file. Its blocks
    are used again, where a new file takes new ones: 10x the system time on a disk that has
    just freed thousands of files (and unlinking the old one frees more)."""
    try:  # not a symbolic link; O_NONBLOCK: a FIFO in the way fails at once instead of waiting
        descriptor = os.open(target, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # nothing there, a link, a folder, a FIFO
        return False
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            return False
        view = memoryview(content)
        while view:
            view = view[os.write(descriptor, view) :]
        os.ftruncate(descriptor, len(content))
        return True
    finally:
        os.close(descriptor)


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

    def __init__(
        self,
        out: Path,
        keep: Sequence[str] = (),
        input_folders: Sequence[Path] = (),
        *,
        reuse: bool = False,
    ) -> None:
        self.out = out.resolve()
        self.keep = keep
        check_output_folder(self.out, input_folders)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(self.out)
        files_to_keep(self.out, (), keep)  # refuse a user's unlisted file now, before any work
        self.folder = self.out.parent / f".{self.out.name}.building-{os.getpid()}"
        self._root = os.fspath(self.folder) + os.sep
        self.retired = self.out.parent / f".{self.out.name}.previous-{os.getpid()}"
        # With `reuse`, the site this build replaces is kept as the next build's staging folder:
        # its folders are used again, a file already linked to the right blob stays, and a file
        # of its own is written over where it is (`_overwrite`), where a fresh folder would mean
        # creating every folder and file, and deleting the old site every file (both slow on a
        # disk that has just freed thousands of files). Without it, a spare is deleted.
        self.reuse = reuse
        self.spare = self.out.parent / f".{self.out.name}.spare"
        shutil.rmtree(self.folder, ignore_errors=True)
        self.reused = False
        spare = self.spare.is_dir() and not self.spare.is_symlink()
        if reuse and spare:
            try:
                os.rename(self.spare, self.folder)  # atomic: a build running beside takes it, or this
                self.reused = True
            except OSError:
                pass
        elif spare:
            remove_in_background(self.spare)
        if not self.reused:
            self.folder.mkdir()
        self.written: set[str] = set()
        self._folders: set[str] = set()  # top-level folders made
        self._links = True

    def _target(self, relative: str) -> str:
        parts = relative.split("/")
        if relative.startswith("/") or any(part in ("", ".", "..") for part in parts):
            raise OutputError(f"refusing to write outside the output folder: {relative}")
        if relative in self.written:
            raise OutputError(f"{relative} is written twice")
        target = self.path(relative)
        if len(parts) > 1 and parts[0] not in self._folders:  # one level: pages are slug/file
            self._folder_for(target)
            if len(parts) == 2:
                self._folders.add(parts[0])
        self.written.add(relative)
        return target

    def path(self, relative: str) -> str:
        """Where a file of the site (relative POSIX path) is in the staging folder."""
        return self._root + relative.replace("/", os.sep)

    def _folder_for(self, target: str) -> None:
        """The folder a file goes in; in a reused staging folder, what is in the way (a file, or
        a link, where a folder goes) removed first: nothing is written through a link."""
        if self.reused:
            relative = os.path.relpath(os.path.dirname(target), self.folder)
            here = os.fspath(self.folder)
            for part in relative.split(os.sep) if relative != os.curdir else ():
                here = os.path.join(here, part)
                if os.path.islink(here) or (os.path.lexists(here) and not os.path.isdir(here)):
                    os.unlink(here)
        os.makedirs(os.path.dirname(target), exist_ok=True)

    def _clear(self, target: str) -> None:
        """In a reused staging folder: what is at `target` removed, so that a new file is made
        (a file there may be a link to a cache blob: never written through)."""
        if not self.reused or not os.path.lexists(target):
            return
        if os.path.isdir(target) and not os.path.islink(target):
            shutil.rmtree(target)
        else:
            os.unlink(target)

    def write(self, relative: str, content: bytes) -> None:
        target = self._target(relative)
        if self.reused and _overwrite(target, content):
            return
        self._clear(target)
        with open(target, "xb") as out:
            out.write(content)

    def link(self, relative: str, source: Path) -> None:
        """The file as `source` holds it: hard-linked where the system allows, else copied."""
        target = self._target(relative)
        if self.reused:
            try:
                there, wanted = os.lstat(target), os.stat(source)
            except OSError:
                pass
            else:
                if (there.st_ino, there.st_dev) == (wanted.st_ino, wanted.st_dev):
                    return  # the same file already: the spare's link to the same blob
            self._clear(target)
        if self._links:
            try:
                os.link(source, target)
                return
            except OSError:
                self._links = False
        shutil.copyfile(source, target)

    def rewrite(self, relative: str, change: Callable[[bytes], bytes]) -> None:
        """A file written this build, changed: written anew beside it and moved over it, so a
        file hard-linked from the build cache is replaced, never changed through the link."""
        if relative in self.written:
            rewrite_file(self.path(relative), change)

    def finish(self) -> None:
        """Carry kept files over, write the marker, swap the new site in."""
        try:
            kept = files_to_keep(self.out, self.written, self.keep)
            if self.reused:  # what the spare holds that this build did not write
                self._drop_all_but({*self.written, *kept})
            for relative in kept:
                target = self.path(relative)
                self._folder_for(target)
                self._clear(target)
                shutil.copy2(self.out / relative, target, follow_symlinks=False)
            manifest = "\n".join([MANIFEST_HEADER, *sorted(self.written)])
            self._clear(self.path(MARKER))
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
        except BaseException:
            self.abort()
            if self.retired.exists() and not self.out.exists():
                self.retired.rename(self.out)
            raise
        if self.reuse and self.retired.is_dir() and not self.spare.exists():
            try:
                os.rename(self.retired, self.spare)  # the next build's staging folder
                return
            except OSError:
                pass
        remove_in_background(self.retired)

    def _drop_all_but(self, wanted: set[str]) -> None:
        """Remove every file and link of the reused staging folder that is not `wanted`, then
        every folder left empty."""
        for relative in _files_in(self.folder):
            if relative not in wanted:
                os.unlink(self.path(relative))
        for here, _, _ in os.walk(self.folder, topdown=False):
            if here != os.fspath(self.folder):
                with contextlib.suppress(OSError):  # not empty: it holds a file of this site
                    os.rmdir(here)

    def abort(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


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
