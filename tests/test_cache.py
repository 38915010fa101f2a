"""The page cache (cache.py): a page put under a key comes back from a later run as it went in;
its files are blobs named by their content; a missing or changed blob, a damaged manifest or a
folder that is not the cache's is a miss with one notice; `save` keeps what the run used and
drops the rest; one run at a time holds the cache; a cache that cannot be written is given up."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder import cache as cache_module
from site_builder.cache import FOLDER, MANIFEST, TAG, PageCache
from site_builder.problems import Problem, Severity

ENTRY = {"kind": "precision", "title": "A: x vs y", "sequences": ["1k/1k"], "auto": False}
PROBLEMS = [Problem("content/a.md", "line 3", "sides", "a warning", Severity.WARNING)]
FILES = {"a-page/index.html": b"<p>page</p>", "a-page/points.csv": b"a,b\n1,2\n"}


def _open(folder: Path) -> PageCache:
    cache, notice = PageCache.open(folder)
    assert cache is not None, notice
    return cache


def _saved(folder: Path, key: str = "k1") -> None:
    cache = _open(folder)
    cache.put(key, FILES, ENTRY, PROBLEMS)
    cache.save()
    cache.close()


def _looked_up(folder: Path, key: str = "k1") -> tuple[bytes | None, str | None]:
    """What a later run finds under `key` (the HTML of the page, None for a miss), and its notice."""
    cache = _open(folder)
    try:
        found = cache.get(key)
        return (found.files["a-page/index.html"] if found else None), cache.notice
    finally:
        cache.close()


def _blob(folder: Path, content: bytes) -> Path:
    return folder / "blobs" / hashlib.sha256(content).hexdigest()


def test_a_page_comes_back_from_a_later_run_as_it_went_in(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER)
    again = _open(tmp_path / FOLDER)
    assert again.get("another key") is None
    found = again.get("k1")
    assert found is not None
    assert (found.entry, found.problems, found.files) == (ENTRY, PROBLEMS, FILES)
    assert sorted(p.name for p in (tmp_path / FOLDER / "blobs").iterdir()) == sorted(
        hashlib.sha256(content).hexdigest() for content in FILES.values()
    )
    assert (tmp_path / FOLDER / TAG).is_file() and again.notice is None


@given(st.dictionaries(st.text(), st.text() | st.integers() | st.booleans(), max_size=4), st.text())
def test_any_index_entry_and_problem_come_back_as_they_went_in(entry: dict[str, object], reason: str) -> None:
    problems = [Problem("content/a.md", "", "", reason, Severity.NOTICE)]
    with tempfile.TemporaryDirectory() as folder:
        cache = _open(Path(folder) / FOLDER)
        cache.put("k", {}, entry, problems)
        cache.save()
        cache.close()
        again = _open(Path(folder) / FOLDER)
        found = again.get("k")
        assert found is not None and (found.entry, found.problems) == (entry, problems)


def test_a_missing_cut_or_changed_blob_is_a_miss_with_one_notice(tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    blob = _blob(folder, FILES["a-page/index.html"])
    for damage in (
        lambda: blob.write_bytes(b"<p>pa"),  # what a write cut short would leave
        lambda: blob.write_bytes(b"<p>PAGE</p>"),  # other bytes, the same size
        blob.unlink,
    ):
        _saved(folder)
        stamp = blob.stat()
        damage()
        if blob.exists():  # its time put back: only its bytes tell
            os.utime(blob, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        found, notice = _looked_up(folder)
        assert found is None and notice is not None and "blobs/" in notice


DAMAGED_MANIFESTS = [
    "",
    "{not json",
    '{"format": 8, "pages": {',  # cut short
    "\x00\xff garbage",
    "[" * 100_000,
    json.dumps([]),
    json.dumps({"format": "8"}),
    json.dumps({"format": 8, "pages": "a string", "guides": {}}),
    json.dumps({"format": 8, "pages": {"k1": "a string"}, "guides": {}}),
]


@pytest.mark.parametrize("damaged", DAMAGED_MANIFESTS, ids=range(len(DAMAGED_MANIFESTS)))
def test_a_damaged_manifest_is_a_miss_with_one_notice(tmp_path: Path, damaged: str) -> None:
    _saved(tmp_path / FOLDER)
    (tmp_path / FOLDER / MANIFEST).write_text(damaged)
    found, notice = _looked_up(tmp_path / FOLDER)
    assert found is None and notice is not None and "manifest" in notice


def test_a_manifest_entry_of_wrong_types_or_changed_is_a_miss(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER)
    manifest = tmp_path / FOLDER / MANIFEST
    stored = json.loads(manifest.read_text())
    page = stored["pages"]["k1"]
    blob = next(iter(page["files"].values()))
    for entry in (
        {**page, "entry": "a string"},
        {**page, "problems": None},
        {**page, "problems": [{"file": 1}]},
        {**page, "files": {"a-page/index.html": "../../secret"}},
        {**page, "files": {"a-page/index.html": [blob, 11, 0]}},  # an older format's shape
        {**page, "entry": {**ENTRY, "title": "another"}},  # types right, content not as written
    ):
        manifest.write_text(json.dumps({**stored, "pages": {"k1": entry}}))
        found, notice = _looked_up(tmp_path / FOLDER)
        assert found is None and notice is not None, entry


def test_another_versions_manifest_is_a_miss_without_a_word(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER)
    (tmp_path / FOLDER / MANIFEST).write_text(json.dumps({"format": 7, "pages": {"k1": {}}}))
    assert _looked_up(tmp_path / FOLDER) == (None, None)


@pytest.fixture(scope="module")
def saved_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("random") / FOLDER
    _saved(folder)
    return folder


@settings(max_examples=60)
@given(
    st.binary(max_size=300)
    | st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    ).map(lambda v: json.dumps(v).encode())
)
def test_random_bytes_or_json_in_the_manifest_are_a_miss_never_an_error(
    saved_once: Path, manifest_bytes: bytes
) -> None:
    (saved_once / MANIFEST).write_bytes(manifest_bytes)
    found, notice = _looked_up(saved_once)
    assert found is None and (notice is None or "manifest" in notice)


def test_save_keeps_what_the_run_used_and_drops_every_other_blob(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER, "old")
    cache = _open(tmp_path / FOLDER)
    cache.put("new", {"a-page/index.html": b"<p>b</p>"}, ENTRY, [])
    cache.save()
    cache.close()
    assert _looked_up(tmp_path / FOLDER, "old") == (None, None)
    assert _looked_up(tmp_path / FOLDER, "new") == (b"<p>b</p>", None)
    assert [p.name for p in (tmp_path / FOLDER / "blobs").iterdir()] == [
        hashlib.sha256(b"<p>b</p>").hexdigest()
    ]


def test_a_folder_of_that_name_without_the_tag_is_the_users(tmp_path: Path) -> None:
    mine = tmp_path / FOLDER
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    cache, notice = PageCache.open(mine)
    assert cache is None and notice is not None and TAG in notice
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere")
    assert PageCache.open(tmp_path / "linked")[0] is None
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_cache_folder_replaced_by_a_file_is_not_used_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / FOLDER).write_text("a file")
    cache, notice = PageCache.open(tmp_path / FOLDER)
    assert cache is None and notice is not None and "--no-cache" in notice
    assert (tmp_path / FOLDER).read_text() == "a file"


def test_one_run_at_a_time_holds_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run waits for the first (here: briefly), then goes on without the cache; once
    the first is done, the cache is free again."""
    monkeypatch.setattr(cache_module, "WAIT_SECONDS", 0.3)
    first = _open(tmp_path / FOLDER)
    second, notice = PageCache.open(tmp_path / FOLDER)
    assert second is None and notice is not None and "in use by another build" in notice
    first.close()
    _open(tmp_path / FOLDER).close()


def test_files_a_killed_run_was_writing_are_removed_by_the_next(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER)
    left = [tmp_path / FOLDER / ".writing-abc", tmp_path / FOLDER / "blobs" / ".writing-def"]
    for path in left:
        path.write_bytes(b"half a fi")
    assert _looked_up(tmp_path / FOLDER) == (FILES["a-page/index.html"], None)
    assert not any(path.exists() for path in left)


@pytest.fixture
def full_disk_in_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every file the cache writes in `tmp_path` is written to /dev/full: the system's own
    ENOSPC ("No space left on device")."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    original = tempfile.mkstemp

    def full(*args: object, **kwargs: object) -> tuple[int, str]:
        folder = str(kwargs.get("dir", ""))
        if folder.startswith(str(tmp_path)):
            return os.open("/dev/full", os.O_WRONLY), os.path.join(folder, ".writing-nowhere")
        return original(*args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(tempfile, "mkstemp", full)
    yield


@pytest.mark.usefixtures("full_disk_in_cache")
def test_a_full_disk_gives_up_the_cache_with_one_notice(tmp_path: Path) -> None:
    cache = _open(tmp_path / FOLDER)
    cache.put("k1", FILES, ENTRY, PROBLEMS)
    cache.put("k2", {"b/index.html": b"b"}, ENTRY, PROBLEMS)
    cache.save()
    cache.close()
    assert (
        cache.notice is not None
        and os.strerror(errno.ENOSPC) in cache.notice
        and "--no-cache" in cache.notice
    )
    assert not (tmp_path / FOLDER / MANIFEST).exists() and list((tmp_path / FOLDER / "blobs").iterdir()) == []


def test_a_cache_that_cannot_be_made_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object, **__: object) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(Path, "mkdir", refused)
    cache, notice = PageCache.open(tmp_path / FOLDER)
    assert cache is None and notice is not None and os.strerror(errno.EACCES) in notice
