"""Write a built site all at once: into a temporary folder beside the target, then swap it in.

A failed build leaves the previous site untouched, and a folder this tool did not create is
never replaced (nothing a user wrote is deleted).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

MARKER = ".site-builder-output"


class OutputError(Exception):
    pass


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
