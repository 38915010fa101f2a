"""Power logs written beside a run: the mean measured power per GPU over the run's window.

Two clients write one beside a result (`POWER_LOGS`, the registry the loader reads them by);
AIPerf keeps its own inside the result.

The InferenceX runner samples `nvidia-smi --query-gpu=timestamp,index,power.draw,... --format=csv
-l 1` into `gpu_metrics.csv` in the run's folder, from before the server starts until after the
benchmark (model loading and idle time included). Its result JSON records the benchmark's window
(`benchmark_start_time_unix`, `benchmark_end_time_unix`), so only the samples inside it count:
each GPU's samples are averaged, then the GPUs (watts per GPU, the unit of the point table's
`avg_watts_per_gpu`). nvidia-smi writes its local time without a zone; it is read as UTC, the
clock of the CI runners that write these files.

AIPerf writes its own GPU telemetry into its result (`telemetry_data`: each GPU's statistics over
the run, from DCGM, pynvml or amdsmi); `aiperf_power` takes the run's GPUs from it (the declared
count; the busiest where the host reports more and they stand clearly apart from idle ones).

An MLPerf power run (`mlcommons/power-dev`'s PTDaemon client) writes `spl.txt` beside the run's
LoadGen summary: one line a second, `Time,MM-DD-YYYY HH:MM:SS.SSS,Watts,W,…` (the analyser's
total over its channels first, then each channel's), measured at the wall for the whole system.
LoadGen's detailed log beside it records the measured window (`power_begin`, `power_end`, in the
same clock and format); the mean total inside it, divided by the run's GPUs, is the all-in power
per GPU (host, fans and network share included), which MLPerf's own summariser averages the
same way.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

TELEMETRY_FILE = "gpu_metrics.csv"
# nvidia-smi's CSV headers for the board power (with and without the `nounits` format option)
POWER_COLUMNS = ("power.draw [W]", "power.draw")
WINDOW = ("benchmark_start_time_unix", "benchmark_end_time_unix")
_TIME_FORMATS = ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S")


@dataclass(frozen=True)
class RunPower:
    """The mean watts per GPU inside a run's window, and what it was computed from."""

    watts_per_gpu: float
    gpus: int
    samples: int
    column: str


def _epoch(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def run_window(record: Mapping[str, Any]) -> tuple[float, float] | None:
    """A result's benchmark window in epoch seconds, where it records a sound one."""
    start, end = (_epoch(record.get(key)) for key in WINDOW)
    if start is None or end is None or not start < end:
        return None
    return start, end


def _seconds(stamp: str) -> float | None:
    for pattern in _TIME_FORMATS:
        try:
            return datetime.strptime(stamp.strip(), pattern).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    return None


def _watts(cell: str) -> float | None:
    """'412.34 W' or '412.34'; None for nvidia-smi's '[N/A]' and anything not a number."""
    text = cell.strip().removesuffix("W").strip()
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 < value < 1e6 else None


def _samples_by_gpu(
    rows: csv.DictReader[str], column: str, window: tuple[float, float]
) -> dict[str, list[float]]:
    """Each GPU's (by nvidia-smi's `index`) power samples inside the window."""
    by_gpu: dict[str, list[float]] = {}
    start, end = window
    for row in rows:
        when = _seconds(row.get("timestamp") or "")
        watts = _watts(row.get(column) or "")
        if when is not None and watts is not None and start <= when <= end:
            by_gpu.setdefault((row.get("index") or "").strip(), []).append(watts)
    return by_gpu


def window_power(text: str, window: tuple[float, float]) -> RunPower | str:
    """The mean power per GPU of the samples inside `window`, or why there is none."""
    rows = csv.DictReader(io.StringIO(text), skipinitialspace=True)
    header = [name.strip() for name in rows.fieldnames or []]
    rows.fieldnames = header
    column = next((c for c in POWER_COLUMNS if c in header), None)
    if column is None or "timestamp" not in header:
        return f"no 'timestamp' and '{POWER_COLUMNS[0]}' columns (nvidia-smi --query-gpu CSV)"
    try:
        by_gpu = _samples_by_gpu(rows, column, window)
    except csv.Error as exc:  # a field past the csv module's size limit, a stray quote
        return f"not a readable CSV ({exc})"
    if not by_gpu:
        return "no power sample inside the run's window (timestamps read as UTC)"
    means = [sum(v) / len(v) for v in by_gpu.values()]
    return RunPower(sum(means) / len(means), len(means), sum(map(len, by_gpu.values())), column)


# AIPerf's telemetry (`telemetry_data` of profile_export_aiperf.json: DCGM, pynvml or amdsmi),
# each GPU's statistics over the profiling run: its power (W) and how busy it was (%)
AIPERF_POWER = ("nvidia_power_usage", "amd_power")
AIPERF_BUSY = ("nvidia_gpu_utilization", "amd_gfx_activity")
IDLE_BUSY_PERCENT = 5.0  # a GPU at most this busy on average served none of the run


@dataclass(frozen=True)
class GpuSummary:
    """One GPU of AIPerf's telemetry: where it was read, its mean power and utilization."""

    name: str  # "<endpoint> <gpu key>"
    watts: float | None
    busy: float | None
    power_metric: str
    samples: int  # the power block's `count`: samples over the run (0 where not recorded)


def _avg(metrics: Mapping[str, Any], names: tuple[str, ...], unit: str) -> tuple[float | None, str]:
    """The first of these metric blocks' `avg` (in `unit`, where the block names one), and its name."""
    for name in names:
        block = metrics.get(name)
        if not isinstance(block, Mapping):
            continue
        value = _epoch(block.get("avg"))
        if value is not None and value >= 0 and block.get("unit", unit) == unit:
            return value, name
    return None, names[0]


def as_block(metrics: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    block = metrics.get(name)
    return block if isinstance(block, Mapping) else {}


def aiperf_gpus(telemetry: Mapping[str, Any]) -> list[GpuSummary]:
    """Every GPU AIPerf's telemetry lists, once (a GPU two endpoints both report, by its UUID)."""
    found: dict[str, GpuSummary] = {}
    endpoints = telemetry.get("endpoints")
    for endpoint, block in (endpoints if isinstance(endpoints, Mapping) else {}).items():
        gpus = block.get("gpus") if isinstance(block, Mapping) else None
        for key, gpu in (gpus if isinstance(gpus, Mapping) else {}).items():
            if not isinstance(gpu, Mapping):
                continue
            metrics = as_block(gpu, "metrics")
            watts, power_metric = _avg(metrics, AIPERF_POWER, "W")
            busy, _ = _avg(metrics, AIPERF_BUSY, "%")
            count = _epoch(as_block(metrics, power_metric).get("count")) or 0
            identity = str(gpu.get("gpu_uuid") or f"{endpoint} {key}")
            summary = GpuSummary(f"{endpoint} {key}", watts, busy, power_metric, int(count))
            found.setdefault(identity, summary)
    return list(found.values())


def aiperf_power(telemetry: Mapping[str, Any], gpus: int) -> RunPower | str | None:
    """The mean power per GPU of the run's `gpus` GPUs in AIPerf's telemetry, or why there is
    none (None: the file holds no GPU telemetry). DCGM reports every GPU of a host, idle ones
    too, so where it lists more GPUs than the run declares, the `gpus` busiest are the run's,
    but only where they are clearly apart from the rest: every other GPU idle (at most
    IDLE_BUSY_PERCENT utilization on average) and every one kept busier than that."""
    listed = aiperf_gpus(telemetry)
    if not listed:
        return None
    measured = [gpu for gpu in listed if gpu.watts is not None]
    if len(measured) < gpus:
        return f"it has the power of {len(measured)} GPUs, fewer than the run's {gpus}"
    kept = measured
    if len(measured) > gpus:
        found = _busiest(measured, gpus)
        if isinstance(found, str):
            return found
        kept = found
    watts = [gpu.watts for gpu in kept if gpu.watts is not None]
    samples = sum(gpu.samples for gpu in kept)
    return RunPower(sum(watts) / len(watts), len(watts), samples, f"{kept[0].power_metric}.avg")


def _busiest(measured: list[GpuSummary], gpus: int) -> list[GpuSummary] | str:
    """The `gpus` busiest GPUs, where they are clearly apart from the others; else why not."""
    more = f"it lists {len(measured)} GPUs, more than the run's {gpus}"
    if any(gpu.busy is None for gpu in measured):
        return f"{more}, and not how busy each was ({' or '.join(AIPERF_BUSY)}) to tell which served it"
    ranked = sorted(measured, key=lambda gpu: -(gpu.busy or 0.0))
    kept, rest = ranked[:gpus], ranked[gpus:]
    least = min(gpu.busy or 0.0 for gpu in kept)
    most_idle = max(gpu.busy or 0.0 for gpu in rest)
    if least <= IDLE_BUSY_PERCENT or most_idle > IDLE_BUSY_PERCENT:
        return (
            f"{more}, and its {gpus} busiest (down to {least:.3g} % utilization) are not clearly apart "
            f"from the others (up to {most_idle:.3g} %; an idle GPU is at most {IDLE_BUSY_PERCENT:g} %): "
            "which served the run is not known, so none is counted"
        )
    return kept


# -- MLPerf power: PTDaemon's spl.txt inside LoadGen's power_begin/power_end ------------------

SPL_FILE = "spl.txt"
DETAIL_FILE = "mlperf_log_detail.txt"
_SPL_TIME = "%m-%d-%Y %H:%M:%S.%f"
_MLLOG_STAMP = re.compile(r'"key": "(power_begin|power_end)", "value": "([^"]+)"')


def _spl_seconds(stamp: str) -> float | None:
    """PTDaemon's and LoadGen's `MM-DD-YYYY HH:MM:SS.SSS`, in seconds on one (zone-less) clock."""
    try:
        return datetime.strptime(stamp.strip(), _SPL_TIME).replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def power_window(detail: str | None) -> tuple[float, float] | str:
    """The measured window LoadGen's detailed log records for a power run, or why there is none."""
    if detail is None:
        return f"no {DETAIL_FILE} beside it to take the run's power_begin and power_end from"
    stamps = dict(_MLLOG_STAMP.findall(detail))
    begin, end = (_spl_seconds(stamps.get(key, "")) for key in ("power_begin", "power_end"))
    if begin is None or end is None or not begin < end:
        return f"{DETAIL_FILE} records no sound power_begin and power_end (not a power run)"
    return begin, end


def _spl_sample(line: str, window: tuple[float, float]) -> float | None:
    """The total watts of one spl.txt line inside the window (None: outside it, or not a sample)."""
    fields = line.split(",")
    if len(fields) < 4 or fields[0] != "Time" or fields[2] != "Watts":
        return None
    when = _spl_seconds(fields[1])
    if when is None or not window[0] <= when <= window[1]:
        return None
    try:
        watts = float(fields[3])
    except ValueError:
        return None
    return watts if math.isfinite(watts) and 0 < watts < 1e7 else None


def system_power(text: str, window: tuple[float, float], gpus: int | None) -> RunPower | str:
    """The mean wall power of the whole system inside the window, shared among its GPUs."""
    if not gpus:
        return "the run has no GPU count to share the system's power among"
    samples = [w for line in text.splitlines() if (w := _spl_sample(line, window)) is not None]
    if not samples:
        return "no 'Time,…,Watts,…' sample inside the run's power_begin–power_end window"
    mean = sum(samples) / len(samples)
    return RunPower(mean / gpus, gpus, len(samples), f"Watts (the whole system at the wall ÷ {gpus} GPUs)")


# -- the registry ------------------------------------------------------------------------------

Beside = Callable[[str], str | None]  # the text of a file of this name beside the result, if any
Window = tuple[float, float]


@dataclass(frozen=True)
class PowerLog:
    """A file written beside a result that gives its run's measured power: its name, the formats
    whose results it belongs to (empty: any), the run's window, and the power inside it."""

    file: str
    formats: tuple[str, ...]
    window: Callable[[Mapping[str, Any], Beside], Window | str]
    power: Callable[[str, Window, int | None], RunPower | str]


def _result_window(record: Mapping[str, Any], beside: Beside) -> Window | str:
    found = run_window(record)
    return found or f"the result records no {' and '.join(WINDOW)} to take its samples from"


POWER_LOGS: tuple[PowerLog, ...] = (
    PowerLog(TELEMETRY_FILE, (), _result_window, lambda text, window, gpus: window_power(text, window)),
    PowerLog(SPL_FILE, ("mlperf",), lambda record, beside: power_window(beside(DETAIL_FILE)), system_power),
)
