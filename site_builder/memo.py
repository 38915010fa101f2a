"""A per-process memo of values derived from immutable objects, keyed by the objects' identity.

Pages of one build share their points (a point is on several pages, a side's points on several
pages), so what is derived from the same objects is derived once a process. Each entry holds its
key objects, so an id is never reused for another object while its entry lives; the memo is
cleared when it is full, so its memory stays bounded however many pages a process builds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


class IdentityMemo(Generic[Key, Value]):
    """`make(obj)` once per object (by identity) while the entry lasts."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: dict[int, tuple[Key, Value]] = {}

    def get(self, obj: Key, make: Callable[[Key], Value]) -> Value:
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0] is obj:
            return entry[1]
        return self._keep(obj, make(obj))

    def get_each(self, objs: Iterable[Key], make: Callable[[Key], Value]) -> list[Value]:
        """`get` for each object in turn, in one call (a side summarises a hundred points)."""
        entries, found = self._entries, []
        for obj in objs:
            entry = entries.get(id(obj))
            found.append(entry[1] if entry is not None and entry[0] is obj else self._keep(obj, make(obj)))
        return found

    def get_many(self, objs: Sequence[Key], make: Callable[[Sequence[Key]], list[Value]]) -> list[Value]:
        """`get` for many objects, the ones it lacks made together by `make` (what is made a
        column at a time, a CSV's lines, is fastest in a batch); each object's value must depend
        on that object alone."""
        entries = self._entries
        found = [entries.get(id(obj)) for obj in objs]
        lacking = [o for o, entry in zip(objs, found, strict=True) if entry is None or entry[0] is not o]
        if lacking:
            unique = list({id(o): o for o in lacking}.values())
            made = {id(o): (o, value) for o, value in zip(unique, make(unique), strict=True)}
            if len(entries) + len(made) > self.limit:
                entries.clear()
            entries.update(made)
            found = [made.get(id(obj), entry) for obj, entry in zip(objs, found, strict=True)]
        return [entry[1] for entry in found if entry is not None]  # every one found or made

    def _keep(self, obj: Key, value: Value) -> Value:
        """Remember a value, the memo emptied first when full (its memory stays bounded)."""
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[id(obj)] = (obj, value)
        return value

    def clear(self) -> None:
        self._entries.clear()


class SequenceMemo(Generic[Key, Value]):
    """`make(items)` once per sequence of the very same objects in the same order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: dict[tuple[int, ...], tuple[tuple[Key, ...], Value]] = {}

    def get(self, items: Sequence[Key], make: Callable[[tuple[Key, ...]], Value]) -> Value:
        held = tuple(items)
        key = tuple(map(id, held))
        entry = self._entries.get(key)
        if entry is not None:  # the entry holds its objects: their ids are theirs while it lives
            return entry[1]
        value = make(held)
        if len(self._entries) >= self.limit:
            self._entries.clear()
        self._entries[key] = (held, value)
        return value

    def clear(self) -> None:
        self._entries.clear()
