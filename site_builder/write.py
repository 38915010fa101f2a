"""Write a built site all at once: into a temporary folder beside the target, then swap it in.

Every output file is claimed by one owner (a stub's page, the guides, the theme's assets, the
index …); a second claim to a path, or to a top-level name another owner uses, is refused with
both owners named, so a stub with slug `methodology` cannot silently replace the guide.
A failed build leaves the previous site untouched, and a folder this tool did not create is
never replaced (nothing a user wrote is deleted).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MARKER = ".site-builder-output"


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
    parts = PurePosixPath(path).parts
    if len(parts) > 1:
        return parts[0]
    return PurePosixPath(path).stem if path.endswith(".html") else ""


@dataclass
class SiteFiles(Mapping[str, bytes]):
    """The site's files (relative POSIX path -> bytes), each with its owner."""

    files: dict[str, bytes] = field(default_factory=dict)
    path_owners: dict[str, Owner] = field(default_factory=dict)
    name_owners: dict[str, Owner] = field(default_factory=dict)  # top-level name -> its owner
    collisions: list[Collision] = field(default_factory=list)

    def add(self, path: str, content: bytes, owner: Owner) -> bool:
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
        self.files[path] = content
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


def check_output_folder(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out} exists and is not a folder; choose another output path")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise OutputError(
            f"{out} is not empty and was not written by build-site (no {MARKER} file); "
            "refusing to replace it: choose another output folder or empty it yourself"
        )


def write_site(out: Path, files: Mapping[str, bytes]) -> None:
    """Replace `out` with exactly `files` (relative POSIX path -> content)."""
    out = out.resolve()
    check_output_folder(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.building-{os.getpid()}"
    retired = out.parent / f".{out.name}.previous-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        for relative, content in sorted(files.items()):
            target = staging / relative
            if staging.resolve() not in target.resolve().parents:
                raise OutputError(f"refusing to write outside the output folder: {relative}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        (staging / MARKER).write_text("Written by build-site; replaced on every build.\n")
        if out.exists():
            out.rename(retired)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if retired.exists() and not out.exists():
            retired.rename(out)
        raise
    shutil.rmtree(retired, ignore_errors=True)
