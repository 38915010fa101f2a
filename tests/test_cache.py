"""The page cache (cache.py): a page put under a key comes back from a later run as it went in;
its files are blobs named by their content; a missing or changed blob, a damaged manifest or a
folder that is not the cache's is a miss; `save` keeps what the run used and drops the rest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from site_builder.cache import FOLDER, MANIFEST, TAG, PageCache
from site_builder.problems import Problem, Severity

ENTRY = {"kind": "precision", "title": "A: x vs y", "sequences": ["1k/1k"], "auto": False}
PROBLEMS = [Problem("content/a.md", "line 3", "sides", "a warning", Severity.WARNING)]
FILES = {"a-page/index.html": b"<p>page</p>", "a-page/points.csv": b"a,b\n1,2\n"}


def _saved(folder: Path, key: str = "k1") -> PageCache:
    cache = PageCache.open(folder)
    assert cache is not None
    cache.put(key, FILES, ENTRY, PROBLEMS)
    cache.save()
    return cache


def test_a_page_comes_back_from_a_later_run_as_it_went_in(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER)
    again = PageCache.open(tmp_path / FOLDER)
    assert again is not None and again.get("another key") is None
    found = again.get("k1")
    assert found is not None
    assert (found.entry, found.problems) == (ENTRY, PROBLEMS)
    assert {name: path.read_bytes() for name, path in found.files.items()} == FILES
    assert all(path.name == hashlib.sha256(path.read_bytes()).hexdigest() for path in found.files.values())
    assert (tmp_path / FOLDER / TAG).is_file()


@given(st.dictionaries(st.text(), st.text() | st.integers() | st.booleans(), max_size=4), st.text())
def test_any_index_entry_and_problem_come_back_as_they_went_in(entry: dict[str, object], reason: str) -> None:
    import tempfile

    problems = [Problem("content/a.md", "", "", reason, Severity.NOTICE)]
    with tempfile.TemporaryDirectory() as folder:
        cache = PageCache.open(Path(folder) / FOLDER)
        assert cache is not None
        cache.put("k", {}, entry, problems)
        cache.save()
        again = PageCache.open(Path(folder) / FOLDER)
        assert again is not None
        found = again.get("k")
        assert found is not None and (found.entry, found.problems) == (entry, problems)


def test_a_missing_or_cut_blob_is_a_miss(tmp_path: Path) -> None:
    cache = _saved(tmp_path / FOLDER)
    blob = cache.blobs / hashlib.sha256(FILES["a-page/index.html"]).hexdigest()
    blob.write_bytes(b"<p>pa")  # what a write cut short would leave
    assert PageCache(tmp_path / FOLDER).get("k1") is None
    blob.unlink()
    assert PageCache(tmp_path / FOLDER).get("k1") is None


def test_a_damaged_manifest_is_a_miss(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER)
    manifest = tmp_path / FOLDER / MANIFEST
    stored = json.loads(manifest.read_text())
    for damaged in (
        "{not json",
        json.dumps([]),
        json.dumps({**stored, "format": 1}),
        json.dumps({**stored, "pages": "a string"}),
        json.dumps({**stored, "pages": {"k1": "a string"}}),
        json.dumps({**stored, "pages": {"k1": {**stored["pages"]["k1"], "entry": "a string"}}}),
        json.dumps({**stored, "pages": {"k1": {**stored["pages"]["k1"], "problems": None}}}),
    ):
        manifest.write_text(damaged)
        assert PageCache(tmp_path / FOLDER).get("k1") is None, damaged


def test_save_keeps_what_the_run_used_and_drops_every_other_blob(tmp_path: Path) -> None:
    _saved(tmp_path / FOLDER, "old")
    cache = PageCache.open(tmp_path / FOLDER)
    assert cache is not None
    cache.put("new", {"b/index.html": b"<p>b</p>"}, ENTRY, [])
    cache.save()
    again = PageCache(tmp_path / FOLDER)
    assert again.get("old") is None and again.get("new") is not None
    assert [p.name for p in again.blobs.iterdir()] == [hashlib.sha256(b"<p>b</p>").hexdigest()]


def test_clear_forgets_everything_and_the_folder_stays_ours(tmp_path: Path) -> None:
    cache = _saved(tmp_path / FOLDER)
    cache.clear()
    assert cache.get("k1") is None and list(cache.blobs.iterdir()) == []
    assert PageCache.open(tmp_path / FOLDER) is not None and PageCache(tmp_path / FOLDER).get("k1") is None


def test_a_folder_of_that_name_without_the_tag_is_the_users(tmp_path: Path) -> None:
    mine = tmp_path / FOLDER
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    assert PageCache.open(mine) is None
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere")
    assert PageCache.open(tmp_path / "linked") is None
