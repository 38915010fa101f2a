"""An identity memo (memo.IdentityMemo) that makes what it lacks in one batch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from site_builder.memo import IdentityMemo

Key = TypeVar("Key")
Value = TypeVar("Value")


class BatchMemo(IdentityMemo[Key, Value]):
    """An identity memo asked for many objects at once, the ones it lacks made together: what is
    made a column at a time (a CSV's lines) is fastest in a batch, and
    each object's value must depend on that object alone."""

    def get_many(self, objs: Sequence[Key], make: Callable[[Sequence[Key]], list[Value]]) -> list[Value]:
        entries = self._entries
        found = [entries.get(id(obj)) for obj in objs]
        lacking = {
            id(obj): obj
            for obj, entry in zip(objs, found, strict=True)
            if entry is None or entry[0] is not obj
        }
        if lacking:
            made = dict(
                zip(lacking, zip(lacking.values(), make(list(lacking.values())), strict=True), strict=True)
            )
            if len(entries) + len(made) > self.limit:
                entries.clear()
            entries.update(made)
            found = [made.get(id(obj), entry) for obj, entry in zip(objs, found, strict=True)]
        return [entry[1] for entry in found if entry is not None]  # every one found or made
