"""Small builders of points and constants for tests."""

from __future__ import annotations

from site_builder.models import AppliedConstants, BenchmarkPoint, Configuration, Provenance


def point(
    interactivity: float,
    throughput: float,
    concurrency: int = 8,
    *,
    framework: str = "sglang",
    precision: str = "fp8",
    spec_method: str = "none",
    hardware: str = "mi355x",
    model: str = "dsr1",
    tp: int = 8,
    isl: int = 1024,
    osl: int = 1024,
    date: str | None = "2026-01-01",
    output: float | None = None,
    record: str = "record 1",
) -> BenchmarkPoint:
    return BenchmarkPoint(
        config=Configuration(
            model=model,
            hardware=hardware,
            framework=framework,
            precision=precision,
            spec_method=spec_method,
            tp=tp,
            gpu_count=tp,
        ),
        isl=isl,
        osl=osl,
        concurrency=concurrency,
        throughput_per_gpu=throughput,
        output_throughput_per_gpu=output,
        interactivity=interactivity,
        provenance=Provenance(dataset="test", source_file="test.json", record=record, date=date),
    )


def constants(
    usd: float | None = 1.48, watts: float | None = 2650.0, hardware: str = "mi355x"
) -> AppliedConstants:
    return AppliedConstants(
        hardware=hardware,
        hardware_name=hardware.upper(),
        cost_tier="hyperscaler",
        usd_per_gpu_hour=usd,
        watts_all_in=watts,
        source="test constants",
        as_of="2026-04",
    )
