"""The explorer's state in its URL (templates/assets/explore.js `parseQuery` and `stateQuery`), run
by Node (tests/js/explore_check.cjs): the issue's URL shape reads as the state it names and is
written back unchanged; any state the page can hold survives a round trip through its query; a
hostile or malformed query (unknown keys, bad targets, more than 8 sides, repeated keys, encoded
commas, broken escapes, random text) gives a sane state and never throws.

Every case of a test goes to one Node process, as in tests/test_engine_js.py.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
CHECK = ROOT / "tests" / "js" / "explore_check.cjs"
# The fields a side filters on (site_builder/present/explore.py FIELDS), written out here so a
# field the script forgets fails the test.
FIELDS = (
    "hardware",
    "precision",
    "framework",
    "spec_method",
    "disagg",
    "dataset",
    "variant",
    "tp",
    "ep",
    "gpus",
)
MAX_SIDES, MAX_TARGETS = 8, 6
ISSUE_QUERY = (
    "model=dsr1&seq=1k/1k&side=hardware:mi355x,precision:fp4&side=hardware:mi355x,precision:fp8"
    "&t=50,80,110&metric=cost"
)


def run_explore(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each case's answer from explore.js (see tests/js/explore_check.cjs)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.json"
        path.write_text(json.dumps(cases), encoding="utf-8")
        done = subprocess.run([node, str(CHECK), str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    assert len(answers) == len(cases)
    return answers


def parsed(queries: list[str]) -> list[dict[str, Any]]:
    """Each query's answer, none of them an error."""
    answers = run_explore([{"query": q} for q in queries])
    errors = [(q, a["error"]) for q, a in zip(queries, answers, strict=True) if "error" in a]
    assert errors == []
    return answers


def state(**given: Any) -> dict[str, Any]:
    """A parsed state: nothing asked but what is given."""
    found: dict[str, Any] = {
        "model": None,
        "seq": None,
        "sides": [],
        "targets": None,
        "metric": None,
        "basis": None,
    }
    found.update(given)
    return found


def assert_sane(found: dict[str, Any]) -> None:
    """What the page may read of any parsed state: texts or null, at most 8 sides of known fields
    each with a non-empty list of non-empty texts, null or 1 to 6 finite positive targets."""
    assert set(found) == {"model", "seq", "sides", "targets", "metric", "basis"}
    for key in ("model", "seq", "metric", "basis"):
        assert found[key] is None or isinstance(found[key], str), key
    assert isinstance(found["sides"], list) and len(found["sides"]) <= MAX_SIDES
    for side in found["sides"]:
        assert isinstance(side, dict) and set(side) <= set(FIELDS), side
        for values in side.values():
            assert isinstance(values, list) and values and all(isinstance(v, str) and v for v in values)
    targets = found["targets"]
    if targets is not None:
        assert 1 <= len(targets) <= MAX_TARGETS
        assert all(isinstance(t, int | float) and math.isfinite(t) and t > 0 for t in targets)


def normalised(found: dict[str, Any]) -> dict[str, Any]:
    """A state as its query keeps it: the default basis and an empty metric are not written."""
    return {
        **found,
        "basis": None if found["basis"] == "median" else found["basis"],
        "metric": found["metric"] or None,
    }


def test_the_issues_url_shape_reads_as_its_state_and_is_written_back_unchanged() -> None:
    (answer,) = parsed([ISSUE_QUERY])
    assert answer["state"] == state(
        model="dsr1",
        seq="1k/1k",
        sides=[
            {"hardware": ["mi355x"], "precision": ["fp4"]},
            {"hardware": ["mi355x"], "precision": ["fp8"]},
        ],
        targets=[50, 80, 110],
        metric="cost",
    )
    assert answer["query"] == ISSUE_QUERY
    (with_mark,) = parsed(["?" + ISSUE_QUERY + "&basis=p90"])  # location.search, with its "?"
    assert with_mark["state"]["basis"] == "p90" and with_mark["query"] == ISSUE_QUERY + "&basis=p90"


def test_hostile_queries_give_sane_states() -> None:
    many = "&".join(f"side=hardware:gpu{n}" for n in range(12))
    cases: dict[str, dict[str, Any]] = {
        # unknown keys, at the top and in a side, are left out
        "model=dsr1&foo=bar&side=gpu:b200,hardware:b200,__proto__:x,constructor:y": state(
            model="dsr1", sides=[{"hardware": ["b200"]}]
        ),
        # bad targets: the default targets (null) instead
        "t=50,abc": state(),
        "t=-5": state(),
        "t=0,50": state(),
        "t=": state(),
        "t=Infinity": state(),
        "t=1e999": state(),
        "t=50,,80": state(),
        # more than 6 targets: the first 6; more than 8 sides: the first 8
        "t=1,2,3,4,5,6,7,8": state(targets=[1, 2, 3, 4, 5, 6]),
        many: state(sides=[{"hardware": [f"gpu{n}"]} for n in range(MAX_SIDES)]),
        # a repeated key: the last one given
        "model=a&model=b&t=10&t=20": state(model="b", targets=[20]),
        "side=hardware:a,hardware:b": state(sides=[{"hardware": ["b"]}]),
        # encoded commas: a comma inside a side's value; between targets, a separator still
        "side=hardware:a%2Cb|c": state(sides=[{"hardware": ["a,b", "c"]}]),
        "t=50%2C80": state(targets=[50, 80]),
        # a side written wholly encoded, as urlencode writes it
        "side=hardware%3Ab200%2Cprecision%3Afp4%7Cfp8": state(
            sides=[{"hardware": ["b200"], "precision": ["fp4", "fp8"]}]
        ),
        # broken escapes are kept as written, never thrown
        "seq=%ZZ&model=%": state(seq="%ZZ", model="%"),
        "side=hardware:%E0%A4%A": state(sides=[{"hardware": ["%E0%A4%A"]}]),
        # empty parts, a side without filters (every point), keys without values
        "&&=&side=&side=:x,a:,hardware:|&model": state(model="", sides=[{}, {}]),
        "": state(),
    }
    queries = list(cases)
    for query, answer in zip(queries, parsed(queries), strict=True):
        assert answer["state"] == cases[query], query
        assert_sane(answer["state"])
        assert answer["again"] == normalised(answer["state"]), query


QUERY_TEXT = st.text(alphabet=st.sampled_from("%,:|&=+?/ 0123456789aAeE.-_x\u00e9\u4e2d"), max_size=12)
PAIR = st.tuples(
    st.sampled_from(["model", "seq", "side", "t", "metric", "basis", "x", "__proto__", "%73ide", ""]),
    st.lists(
        st.tuples(st.sampled_from([*FIELDS, "gpu", "__proto__", "toString", ""]), QUERY_TEXT).map(
            lambda kv: f"{kv[0]}:{kv[1]}"
        )
        | QUERY_TEXT,
        max_size=4,
    ).map(",".join),
).map(lambda kv: f"{kv[0]}={kv[1]}")


@settings(
    max_examples=1,
    deadline=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@given(
    st.lists(st.lists(PAIR, max_size=14).map("&".join), min_size=300, max_size=300),
    st.lists(st.text(max_size=40), min_size=100, max_size=100),
)
def test_any_query_gives_a_sane_state_that_its_own_query_gives_back(
    shaped: list[str], random: list[str]
) -> None:
    queries = shaped + random
    for query, answer in zip(queries, parsed(queries), strict=True):
        assert_sane(answer["state"])
        assert answer["again"] == normalised(answer["state"]), query


VALUE = st.text(min_size=1, max_size=10)
SIDE = st.dictionaries(st.sampled_from(FIELDS), st.lists(VALUE, min_size=1, max_size=3), max_size=4)
TARGETS = st.none() | st.lists(
    st.floats(min_value=1e-6, max_value=1e30, allow_nan=False, allow_infinity=False)
    | st.integers(min_value=1, max_value=10**6),
    min_size=1,
    max_size=MAX_TARGETS,
)
STATE = st.fixed_dictionaries(
    {
        "model": st.text(max_size=12),
        "seq": st.text(max_size=12) | st.sampled_from(["1k/1k", "8k/1k", "128/2k"]),
        "sides": st.lists(SIDE, max_size=MAX_SIDES),
        "targets": TARGETS,
        "metric": st.none() | st.text(min_size=1, max_size=12),
        "basis": st.sampled_from([None, "p90", "p99"]),
    }
)


@settings(
    max_examples=1,
    deadline=None,
    derandomize=True,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
@given(st.lists(STATE, min_size=300, max_size=300))
def test_every_state_survives_its_query(states: list[dict[str, Any]]) -> None:
    answers = run_explore([{"state": s} for s in states])
    for given_state, answer in zip(states, answers, strict=True):
        assert answer["parsed"] == given_state, answer["query"]
