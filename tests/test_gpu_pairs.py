"""Generated GPU-vs-GPU pages: the hardware kind discovers every two GPUs measured on one model at
one precision and one speculative method (kinds.KINDS["hardware"].discover)."""

from __future__ import annotations

from site_builder.content import SiteConfig, Stub
from site_builder.plan import PlanFacts, plan_pages
from site_builder.workload import Workload


def _facts() -> PlanFacts:
    one_k, eight_k = Workload(1024, 1024), Workload(8192, 1024)
    return PlanFacts(
        workloads={
            ("dsr1", "b200", "fp8", "none"): {one_k, eight_k},
            ("dsr1", "h200", "fp8", "none"): {one_k},
            ("dsr1", "mi355x", "fp8", "none"): {eight_k},
            ("dsr1", "b200", "fp8", "mtp"): {one_k},
            ("dsr1", "h200", "fp8", "mtp"): {one_k},
            ("dsr1", "h200", "fp4", "none"): {one_k},  # no other GPU at FP4
            ("dsr1", "mi355x", "fp8", "unknown"): {one_k},  # an unknown method pairs with nothing
        },
        sources={("dsr1", gpu): {f"lab-{gpu}"} for gpu in ("b200", "h200", "mi355x")},
    )


def test_every_two_gpus_at_one_precision_and_method_that_share_a_workload() -> None:
    names = {"b200": "B200", "h200": "H200"}  # the catalog's names; mi355x is not in this one
    pages = [p for p in plan_pages([], _facts(), SiteConfig(), names) if p.spec.kind == "hardware"]
    found = {p.slug: p for p in pages}
    # h200 and mi355x share no workload at FP8 without speculative decoding: no page
    assert sorted(found) == ["b200-vs-h200-fp8-dsr1", "b200-vs-h200-fp8-mtp-dsr1", "b200-vs-mi355x-fp8-dsr1"]
    mtp = found["b200-vs-h200-fp8-mtp-dsr1"]
    assert [side.filters for side in mtp.sides] == [
        {
            "model": "dsr1",
            "precision": "fp8",
            "spec_method": "mtp",
            "dataset": ["lab-b200", "lab-h200"],
            "hardware": gpu,
        }
        for gpu in ("b200", "h200")
    ]
    assert [side.label for side in mtp.sides] == ["B200", "H200"]
    # a GPU the catalog does not know is named as written
    assert [side.label for side in found["b200-vs-mi355x-fp8-dsr1"].sides] == ["B200", "mi355x"]
    assert found["b200-vs-mi355x-fp8-dsr1"].spec.sequence == "8k/1k"  # the one workload both measured


def test_a_stub_with_the_same_slug_takes_the_generated_pair_over() -> None:
    generated = plan_pages([], _facts(), SiteConfig())
    stub = next(p for p in generated if p.slug == "b200-vs-h200-fp8-dsr1")
    authored = Stub(path="content/b200-vs-h200.md", slug=stub.slug, spec=stub.spec, body="", sides=stub.sides)
    planned = plan_pages([authored], _facts(), SiteConfig())
    assert [p.path for p in planned if p.slug == "b200-vs-h200-fp8-dsr1"] == ["content/b200-vs-h200.md"]
