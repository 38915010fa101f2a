"""One rule for runs that are not fixed-length workloads, whichever client wrote them.

An agentic run (multi-turn conversations, sub-agents) or a trace replay sends requests whose
lengths follow the trace: its mean input and output lengths are not an ISL/OSL the run was set
to, so its points would be read as a fixed-length workload that nobody ran. Each format says how
its files mark such a run (`recognise` functions below, one per format, registered in
formats.FORMATS as `unfixed`); the loader then keeps every one of them out the same way, with
one notice per folder naming the field that marks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from site_builder.files import excerpt
from site_builder.read.fields import as_mapping, at_path
from site_builder.workload import LABEL_PATTERN


@dataclass(frozen=True)
class Unfixed:
    """What marks a run as agentic or a trace replay: the field as its file names it, and its value."""

    field: str
    value: Any

    def notice(self) -> tuple[str, str]:
        """(field, reason) of the one notice every format gives such a run."""
        return self.field, (
            f"skipped: an agentic or trace-replay run ({self.field}: {excerpt(self.value)}) has no "
            "fixed ISL/OSL, so it is kept out of the fixed-length curves"
        )


def inferencex(row: Mapping[str, Any]) -> Unfixed | None:
    """InferenceX AgentX aggregates (`scenario_type`, or the request accounting only they carry)
    and dashboard rows of `benchmark_type` agentic_traces."""
    for key in ("scenario_type", "num_requests_successful"):
        if key in row:
            return Unfixed(key, row[key])
    if row.get("benchmark_type") == "agentic_traces":
        return Unfixed("benchmark_type", row["benchmark_type"])
    return None


# AIPerf's `input_config.input.custom_dataset_type` values that replay a trace or conversations
_AIPERF_TRACE_TYPES = ("mooncake_trace", "multi_turn")


def aiperf(raw: Mapping[str, Any]) -> Unfixed | None:
    """AIPerf: a trace or multi-turn dataset type, a fixed (trace) schedule, trajectory sampling of
    agentic traces, or the branch statistics of sub-agent runs."""
    config = as_mapping(raw.get("input_config"))
    given = as_mapping(config.get("input"))
    loadgen = as_mapping(config.get("loadgen"))
    checks = (
        ("input_config.input.custom_dataset_type", given.get("custom_dataset_type") in _AIPERF_TRACE_TYPES),
        ("input_config.input.fixed_schedule", given.get("fixed_schedule") is True),
        ("input_config.loadgen.trajectory_start_min_ratio", "trajectory_start_min_ratio" in loadgen),
        ("branch_stats", "branch_stats" in raw),
    )
    for name, marked in checks:
        if marked:
            return Unfixed(name, at_path(raw, name))
    return None


@dataclass(frozen=True)
class RecordDataset:
    """The dataset a record says it ran on: the field as its file names it, the value, and the
    workload label that makes it (None: a fixed-length dataset, whose workload is its ISL/OSL)."""

    field: str
    value: str
    label: str | None


def sglang(raw: Mapping[str, Any]) -> RecordDataset | None:
    """SGLang bench_serving writes `dataset_name` on every line: `random` and `random-ids` draw
    fixed lengths (its own file naming treats every `random*` alike); any other (sharegpt,
    burstgpt, mmmu, generated-shared-prefix …) is a dataset of its own lengths, labelled by its
    name. A value that is no label (or no text) says nothing."""
    name = raw.get("dataset_name")
    if not isinstance(name, str):
        return None
    if name.startswith("random"):
        return RecordDataset("dataset_name", name, None)
    return RecordDataset("dataset_name", name, name) if LABEL_PATTERN.fullmatch(name) else None
