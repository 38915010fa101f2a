"""GPU telemetry written beside a run: the mean measured power per GPU over the run's window.

The InferenceX runner samples `nvidia-smi --query-gpu=timestamp,index,power.draw,... --format=csv
-l 1` into `gpu_metrics.csv` in the run's folder, from before the server starts until after the
benchmark (model loading and idle time included). Its result JSON records the benchmark's window
(`benchmark_start_time_unix`, `benchmark_end_time_unix`), so only the samples inside it count:
each GPU's samples are averaged, then the GPUs (watts per GPU, the unit of the point table's
`avg_watts_per_gpu`). nvidia-smi writes its local time without a zone; it is read as UTC, the
clock of the CI runners that write these files.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
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
