"""What rendering makes once a process for the sides pages share (comparison.json's summaries,
the chart markers, the page data's knots) and the JSON written from those fragments: byte for
byte what encoding the whole page at once writes, and never another side's fragment."""

from __future__ import annotations

import gc
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from site_builder import charts, comparison_json, metrics
from site_builder.charts import EncodedJSON, chart_data, script_json_text
from site_builder.comparison_json import ComparisonResult, summarize
from site_builder.pipeline import run
from site_builder.project import Project
from site_builder.render import json_for_script, page_data
from tests.conftest import ROOT
from tests.factories import point
from tests.test_narrate import comparison


def _whole(value: object) -> str:
    """The JSON of a value encoded at once, as the page wrote it before fragments."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False, allow_nan=False)


def _comparison(a_points: list[tuple[float, float, int]], slug: str = "a-vs-b") -> ComparisonResult:
    fp8 = [point(30, 1200, 128, framework="atom"), point(45, 700, 48), point(60, 600, 32), point(100, 200, 8)]
    return comparison(slug=slug, fp4=[point(*p) for p in a_points], fp8=fp8)


def _clear() -> None:
    comparison_json._SUMMARIES_JSON.clear()
    comparison_json._SUMMARY_JSON.clear()
    charts._SIDE_MARKERS.clear()


def test_fragments_equal_the_whole_encoding_on_every_default_page(tmp_path: Path) -> None:
    """Every page of the default site, first made (memos empty) and then from the memos."""
    for name in ("data", "content", "templates", "docs"):
        shutil.copytree(ROOT / name, tmp_path / name)
    pages = run(Project.under(tmp_path)).pages
    assert len(pages) >= 3
    _clear()
    for _ in range(2):
        for page in pages:
            c = page.comparison
            assert comparison_json.comparison_json(c) == c.model_dump_json().encode() + b"\n"
            for data in (chart_data(c), page_data(c)):
                assert script_json_text(data) == _whole(data)


def test_a_memoised_fragment_is_the_sides_own_even_when_ids_are_reused() -> None:
    """Pages made one after the other, each dropped before the next: a memo keyed by identity
    that did not hold its objects would hand a later side an earlier side's text."""
    _clear()
    for n in range(12):
        first = (20.0 + n, 2000.0 + n, 128)  # each page's FP4 side measured differently
        c = _comparison([first, (50.0, 1000.0, 32), (90.0, 400.0, 8)], slug=f"page-{n}")
        written = json.loads(comparison_json.comparison_json(c))
        fp4 = written["sequences"][0]["sides"][0]
        assert [p["interactivity"] for p in fp4["points"]] == [20.0 + n, 50.0, 90.0]
        assert fp4["points"][0]["throughput_per_gpu"] == 2000.0 + n
        markers = json.loads(str(json_for_script(chart_data(c))))["points"]["1k/1k"][0]
        knots = json.loads(str(json_for_script(page_data(c))))["sequences"]["1k/1k"]["sides"][0]["knots"]
        assert knots[0][0] == 20.0 + n
        assert markers["frontier"] == [1, 1, 1]  # all three on FP4's frontier: no off values
        del c, written
        gc.collect()


def test_pages_sharing_a_side_share_its_fragments() -> None:
    _clear()
    c = _comparison([(20, 2000, 128), (35, 900, 64), (50, 1000, 32), (90, 400, 8)])
    same_side = c.model_copy(update={"slug": "another-page"})  # the same summaries
    first = comparison_json.comparison_json(c)
    made = len(comparison_json._SUMMARIES_JSON._entries)
    assert made == 3  # FP4's frontier and points; FP8's, every point on its frontier, are one
    assert comparison_json.comparison_json(same_side) == first.replace(b"a-vs-b", b"another-page")
    assert len(comparison_json._SUMMARIES_JSON._entries) == made  # nothing made again
    # FP4's point at 35 tok/s/user (900 tok/s/GPU) is below the frontier (50 at 1000): an off
    # value, six significant digits
    points = chart_data(c)["points"]["1k/1k"][0]
    assert points["frontier"] == [1, 0, 1, 1]
    assert points["off"][0] == [35]


def test_encoded_json_is_a_dict_with_its_text() -> None:
    inner = EncodedJSON([("x", [1.5, None], None)])
    outer = EncodedJSON([("a", "</script>é", None), ("inner", inner, inner.text)])
    assert outer == {"a": "</script>é", "inner": {"x": [1.5, None]}}
    assert outer.text == _whole(outer) == '{"a":"</script>é","inner":{"x":[1.5,null]}}'
    page = {"title": "t", "points": outer}
    assert script_json_text(page) == _whole(page)
    assert (
        str(json_for_script(page))
        == '{"title":"t","points":{"a":"\\u003c/script\\u003eé","inner":{"x":[1.5,null]}}}'
    )


@given(
    st.lists(
        st.tuples(
            st.floats(0.5, 1e4),
            st.floats(1.0, 1e5),
            st.text(alphabet=st.sampled_from(list('ab{},:"\\é\n')), min_size=1, max_size=30),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_summaries_written_together_are_cut_into_each_ones_json(
    rows: list[tuple[float, float, str, bool]],
) -> None:
    """Summaries lacking their JSON are written as one list and cut apart: each piece is that
    summary's own JSON, also where a record holds what the cut looks for (`},{"interactivity":`)."""
    summaries = [
        summarize(point(x, y, record=record.replace("a", '},{"interactivity":')), frontier)
        for x, y, record, frontier in rows
    ]
    pieces = comparison_json._summaries_each(summaries)
    assert pieces == [s.model_dump_json().encode() for s in summaries]


def test_a_summarys_json_is_the_models_also_for_values_validation_never_lets_in() -> None:
    """A summary's values are written as the model writes them (the summaries are written as
    plain dicts: comparison_json._PLAIN_SUMMARIES): a float that is not finite is null, text
    is UTF-8 with its quotes and controls escaped, an int stays an int."""
    assert comparison_json._PLAIN_SUMMARIES
    made = summarize(point(20.0, 1000.0, record='é "q" \\ \t'), True)
    odd = made.model_copy(update={"throughput_per_gpu": float("inf"), "users_per_gpu": float("nan")})
    pieces = comparison_json._summaries_each([made, odd])
    assert pieces == [made.model_dump_json().encode(), odd.model_dump_json().encode()]
    assert b'"throughput_per_gpu":null' in pieces[1] and '"record":"é \\"q\\"'.encode() in pieces[0]


def test_the_page_datas_metrics_follow_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shown metrics' table is made once a process, for the registry as it is: a changed
    registry (a test's, a plugin's) gets its own."""
    c = _comparison([(20, 2000, 128), (50, 1000, 32), (90, 400, 8)])
    before = json.loads(script_json_text(page_data(c)))
    assert [m["key"] for m in before["metrics"]] == [m.key for m in metrics.SHOWN]
    monkeypatch.setattr(metrics, "SHOWN", metrics.SHOWN[:2])
    after = json.loads(script_json_text(page_data(c)))
    assert [m["key"] for m in after["metrics"]] == [m.key for m in metrics.SHOWN[:2]]
    assert after["quantities"] == metrics.shown_quantities()
