"""The build cache's blobs (cache.py): content-addressed, never changed through a link, a blob
whose content is not its name (a write cut short, an edit through the output folder) replaced."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from pathlib import Path

from site_builder.cache import BuildCache, blob_stamp, keep_blob


def test_a_new_blob_is_named_by_its_content(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    path = cache._keep(b"<p>page</p>")
    assert path.name == hashlib.sha256(b"<p>page</p>").hexdigest() and path.read_bytes() == b"<p>page</p>"
    assert cache._keep(b"<p>page</p>") == path  # kept, not written again
    assert [p.name for p in cache.blobs.iterdir()] == [path.name]  # nothing written aside


def test_a_blob_cut_short_is_written_again_aside_of_what_links_it(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache")
    content = b"<p>a whole page</p>" * 100
    blob = cache.blobs / hashlib.sha256(content).hexdigest()
    blob.write_bytes(content[:50])  # a killed build's partial blob
    linked = tmp_path / "site-index.html"
    os.link(blob, linked)  # the old site links it
    path = cache._keep(content)
    assert path == blob and path.read_bytes() == content
    assert linked.read_bytes() == content[:50]  # the old site's file is not changed through its link
    assert path.stat().st_ino != linked.stat().st_ino


def _keep_in_a_worker(folder: str, content: bytes) -> list[object]:
    return blob_stamp(keep_blob(Path(folder), content))


def test_workers_keeping_the_same_files_at_once_leave_whole_blobs(tmp_path: Path) -> None:
    """A build's workers keep their pages' files themselves: the same content from several
    processes at once gives one blob with exactly that content, and every stamp names it."""
    cache = BuildCache(tmp_path / "cache")
    contents = [bytes([n]) * 200_000 for n in range(3)]
    jobs = [content for content in contents for _ in range(4)]
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    )
    with context.Pool(4) as pool:
        stamps = pool.starmap(_keep_in_a_worker, [(str(cache.blobs), content) for content in jobs])
    assert sorted(p.name for p in cache.blobs.iterdir()) == sorted(
        hashlib.sha256(c).hexdigest() for c in contents
    )
    for content, stamp in zip(jobs, stamps, strict=True):
        assert stamp[0] == hashlib.sha256(content).hexdigest() and stamp[1] == len(content)
        assert (cache.blobs / str(stamp[0])).read_bytes() == content
