"""Where loaded things come from: the data set a file belongs to, and one record's origin.

Both are pydantic models because people write them (a `_dataset.yaml`, a native file's
`dataset` block) or read them back (every evaluation run and sweep row carries its provenance).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from site_builder.files import Prose, Title, WebAddress
from site_builder.workload import WorkloadLabel


class Frozen(BaseModel):
    """A model that never changes once made and refuses fields it does not know."""

    model_config = ConfigDict(frozen=True, extra="forbid")


EXAMPLE_WORDS = re.compile(r"\bexample data\b|\binvented\b", re.IGNORECASE)


class DatasetInfo(BaseModel):
    """Attribution of a set of points: shown in every page's provenance."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=64)
    title: Title
    source: Prose
    url: WebAddress | None = None
    licence: Prose | None = None
    retrieved: Title | None = None
    notes: str | None = None
    published_values: bool = Field(
        default=False,
        description="True when the points are values a page published (read off its table), not measurements",
    )
    example: bool = Field(
        default=False,
        description="True when the points are example or invented data, not measurements: every page "
        "using them is marked 'Example data'",
    )
    example_files: list[str] | None = Field(
        default=None,
        description="the files of an invented example (build-site init writes it with its example): any "
        "other file this attribution covers is warned about, since its page would call it invented",
    )
    workload: WorkloadLabel | None = Field(
        default=None,
        description="the variable-length dataset or trace every run of the data set used (sharegpt): the "
        "label of each point that names none of its own (a record's, then a metadata file's, win)",
    )

    @property
    def is_example(self) -> bool:
        """Example data: said so by `example: true`, or by a title that calls it example or invented
        data (the attribution readers see), so a page built from it never reads as measured."""
        return self.example or bool(EXAMPLE_WORDS.search(self.title))


class Provenance(Frozen):
    """Where a point came from, so every figure on a page can be traced back."""

    dataset: str
    source_file: str
    record: str
    client: str | None = None  # the benchmark client and its version, e.g. "AIPerf 0.13.0"
    date: str | None = None
    run_url: str | None = None
    image: str | None = None
    note: str | None = None
