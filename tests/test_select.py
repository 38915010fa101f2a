"""Selecting a side's points: the grouped PointIndex gives exactly what filtering every point gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.compute import side_facts
from site_builder.content import FilterValue
from site_builder.points import BenchmarkPoint, Configuration
from site_builder.read.provenance import Provenance
from site_builder.select import PointIndex, select

MODELS = ["dsr1", "DSR1", "gptoss"]
HARDWARE = ["h100", "H100", "b200"]
PRECISIONS = ["fp8", "FP8", "fp4"]
FRAMEWORKS = ["sglang", "vllm", "SGLang"]
METHODS = ["none", "mtp"]
DATASETS = ["set-a", "set-b"]


def configuration(
    model: str, hardware: str, precision: str, framework: str, method: str, disagg: bool
) -> Configuration:
    return Configuration(
        model=model,
        hardware=hardware,
        precision=precision,
        framework=framework,
        spec_method=method,
        disagg=disagg,
    )


configurations = st.builds(
    configuration,
    st.sampled_from(MODELS),
    st.sampled_from(HARDWARE),
    st.sampled_from(PRECISIONS),
    st.sampled_from(FRAMEWORKS),
    st.sampled_from(METHODS),
    st.booleans(),
)


@st.composite
def pools(draw: st.DrawFn) -> list[BenchmarkPoint]:
    """Points sharing a few Configuration objects (as loaders share them) and some equal but
    separate ones, in a random order, over two datasets."""
    configs = draw(st.lists(configurations, min_size=1, max_size=6))
    picks = draw(
        st.lists(
            st.tuples(st.integers(0, len(configs) - 1), st.sampled_from(DATASETS), st.booleans()), max_size=40
        )
    )
    points = []
    for n, (i, dataset, copied) in enumerate(picks):
        config = configs[i].model_copy() if copied else configs[i]
        points.append(
            BenchmarkPoint(
                config=config,
                isl=1024,
                osl=1024,
                concurrency=n + 1,
                throughput_per_gpu=100.0 + n,
                interactivity=10.0 + n,
                provenance=Provenance(dataset=dataset, source_file="f.csv", record=f"row {n}"),
            )
        )
    return points


def text_or_list(values: list[str]) -> st.SearchStrategy[FilterValue]:
    return st.one_of(st.sampled_from(values), st.lists(st.sampled_from(values), min_size=1, max_size=3))


filter_sets = st.fixed_dictionaries(
    {},
    optional={
        "model": st.sampled_from([*MODELS, "other"]),
        "hardware": st.sampled_from([*HARDWARE, "mi355x"]),
        "precision": st.one_of(
            st.sampled_from(PRECISIONS), st.lists(st.sampled_from(PRECISIONS), min_size=1)
        ),
        "framework": text_or_list(FRAMEWORKS),
        "spec_method": st.sampled_from(METHODS),
        "disagg": st.booleans(),
        "dataset": text_or_list([*DATASETS, "SET-A"]),
    },
)


@settings(max_examples=300, deadline=None)
@given(pools(), st.lists(filter_sets, min_size=1, max_size=4))
def test_index_selects_what_filtering_every_point_selects(
    points: list[BenchmarkPoint], filters: list[dict[str, FilterValue]]
) -> None:
    index = PointIndex(points)
    for wanted in filters:
        got = index.select(wanted)
        expected = select(points, wanted)
        assert [id(p) for p in got] == [id(p) for p in expected]  # the same objects, in pool order


def test_index_selection_by_hand() -> None:
    shared = configuration("dsr1", "h100", "fp8", "sglang", "none", False)
    other = configuration("dsr1", "h100", "fp4", "vllm", "mtp", True)

    def pt(config: Configuration, n: int, dataset: str = "set-a") -> BenchmarkPoint:
        return BenchmarkPoint(
            config=config,
            isl=1,
            osl=1,
            concurrency=n,
            throughput_per_gpu=1.0,
            interactivity=1.0,
            provenance=Provenance(dataset=dataset, source_file="f", record=str(n)),
        )

    points = [pt(shared, 1), pt(other, 2), pt(shared, 3, "set-b"), pt(shared, 4), pt(other, 5)]
    index = PointIndex(points)
    assert [p.concurrency for p in index.select({"model": "DSR1", "hardware": "H100"})] == [1, 2, 3, 4, 5]
    assert [
        p.concurrency for p in index.select({"model": "dsr1", "hardware": "h100", "precision": "FP8"})
    ] == [1, 3, 4]
    assert [p.concurrency for p in index.select({"framework": ["vllm", "none"]})] == [2, 5]
    assert [p.concurrency for p in index.select({"disagg": False, "dataset": "SET-A"})] == [1, 4]
    assert index.select({"model": "dsr1", "hardware": "b200"}) == []


def test_selection_is_one_tuple_per_filter_set_and_side_facts_read_it_once() -> None:
    shared = configuration("dsr1", "h100", "fp8", "sglang", "none", False)
    fp4 = configuration("dsr1", "h100", "fp4", "sglang", "mtp", False)

    def pt(config: Configuration, n: int, isl: int, dataset: str = "set-a") -> BenchmarkPoint:
        return BenchmarkPoint(
            config=config,
            isl=isl,
            osl=1024,
            concurrency=n,
            throughput_per_gpu=1.0,
            interactivity=1.0,
            interactivity_source="derived" if n == 3 else "tpot",
            provenance=Provenance(dataset=dataset, source_file="f", record=str(n)),
        )

    index = PointIndex([pt(shared, 1, 1024), pt(fp4, 2, 8192, "set-b"), pt(shared, 3, 8192, "set-b")])
    chosen = index.selection({"model": "dsr1", "hardware": "h100", "framework": ["sglang"]})
    assert index.selection({"framework": ["sglang"], "hardware": "h100", "model": "dsr1"}) is chosen
    assert index.select({"model": "dsr1", "hardware": "h100", "framework": ["sglang"]}) == list(chosen)
    assert index.selection({"model": "dsr1", "hardware": "h100", "framework": "sglang"}) == chosen
    facts = side_facts(chosen)
    assert side_facts(chosen) is facts
    assert {k: [p.concurrency for p in v] for k, v in facts.workloads.items()} == {
        (1024, 1024): [1],
        (8192, 1024): [2, 3],
    }
    assert (facts.output_only, facts.derived_interactivity) == (False, True)
    assert facts.datasets == {"set-a", "set-b"}
    assert (facts.precisions, facts.spec_methods) == (["fp4", "fp8"], ["mtp", "none"])
    assert side_facts(list(chosen)) is not facts and side_facts(list(chosen)) == facts  # a list: read afresh
