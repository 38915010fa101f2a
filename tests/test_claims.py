"""Claims graded by what the measurements can decide (issue 26, item 1).

A value interpolated on a monotone frontier lies between its two bracketing knots, so the ratio of
two sides at a target lies between bounds from those knots. The bounds here are computed
independently from the generated points (an O(n²) frontier, the knots either side of a target),
never read from the engine; the headline's every winner claim must hold under them.
"""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from site_builder.present.narrate import caveats, narrate, paragraphs
from site_builder.present.schema import ComparisonResult, SequenceResult, SideIdentity
from site_builder.present.tables import table
from tests import reference_impl as ref
from tests.factories import SideInput, compare_sequence, constants, point

LABELS = ("A", "B")


def frontier(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Points no other beats or equals on both interactivity and throughput, by interactivity."""
    kept = {
        p
        for i, p in enumerate(points)
        if not any(
            q[0] >= p[0] and q[1] >= p[1] and (q != p or j < i) for j, q in enumerate(points) if j != i
        )
    }
    return sorted(kept)


def bounds_at(knots: list[tuple[float, float]], x: float) -> tuple[float, float] | None:
    """The lowest and highest throughput of the knots bracketing x (the knot itself at a knot)."""
    if not knots or not knots[0][0] <= x <= knots[-1][0]:
        return None
    for kx, ky in knots:
        if kx == x:
            return (ky, ky)
    right = next(i for i, (kx, _) in enumerate(knots) if kx > x)
    ys = (knots[right - 1][1], knots[right][1])
    return (min(ys), max(ys))


def page(sides: list[list[tuple[float, float]]], targets: list[float] | None = None) -> ComparisonResult:
    inputs = [
        SideInput(label, {}, "best available", "mi355x", constants(), [point(x, y, 8) for x, y in side])
        for label, side in zip(LABELS, sides, strict=True)
    ]
    seq = compare_sequence(1024, 1024, "1k/1k", inputs, targets)
    return ComparisonResult(
        slug="a-vs-b",
        kind="precision",
        title="A vs B",
        model="dsr1",
        model_name="DeepSeek-R1",
        hardware=["mi355x"],
        default_sequence="1k/1k",
        cost_tier="hyperscaler",
        sides=[SideIdentity(label=label, filters={}) for label in LABELS],
        sequences=[seq],
        constants=[constants()],
        data_sources=[],
        notices=[],
    )


def summary(c: ComparisonResult) -> str:
    return narrate(c, c.sequences[0], ["MI355X"], [""]).summary


def targets_in(text: str) -> list[float]:
    """'45, 60 and 75 tok/s/user' -> [45.0, 60.0, 75.0]."""
    return [float(t) for t in re.findall(r"\d+(?:\.\d+)?", text)]


def claims_of(headline: str) -> list[tuple[int, list[float], str]]:
    """Each 'X ahead at <targets> …' claim: the leader, its targets and what follows up to the
    next claim (its ratio words)."""
    found = []
    for match in re.finditer(
        r"\b([AB]) ahead at (?:all \w+ targets \(1k/1k, |both targets \(1k/1k, |the one target \(1k/1k, )?([\d., and]+?) tok/s/user(.*?)(?=;|$)",
        headline,
    ):
        found.append((LABELS.index(match.group(1)), targets_in(match.group(2)), match.group(3)))
    one = re.match(
        r"([AB]) delivers (.*) the tok/s/GPU of [AB].* at (\d+(?:\.\d+)?) tok/s/user \(1k/1k\)\.$", headline
    )
    if one:
        found.append((LABELS.index(one.group(1)), [float(one.group(3))], one.group(2)))
    return found


def independent_worst(sides: list[list[tuple[float, float]]], x: float, leader: int) -> float:
    """The leader's tok/s/GPU ÷ the other's at the knots' worst case for the leader."""
    ends = [bounds_at(frontier(side), x) for side in sides]
    lead, other = ends[leader], ends[1 - leader]
    assert lead is not None and other is not None
    return lead[0] / other[1]


side_points = st.lists(
    st.tuples(
        st.integers(min_value=10, max_value=200).map(float),
        st.integers(min_value=50, max_value=5000).map(float),
    ),
    min_size=1,
    max_size=6,
    unique_by=lambda p: p[0],
)


@given(st.lists(side_points, min_size=2, max_size=2))
@example(  # a point ratio at one target, 'at least' at the others, each with its own worst case
    [[(10.0, 104.0), (91.0, 103.0), (115.0, 50.0)], [(81.0, 1475.0), (115.0, 754.0)]]
)
def test_every_headline_winner_claim_holds_under_the_bounds(sides: list[list[tuple[float, float]]]) -> None:
    """Whatever the points, a side the headline says is ahead at a target leads there even at
    the knots' worst case for it; an 'at least N×' never exceeds that worst case; and where
    the headline says the winner is not determined, the knots allow the other side to lead
    or tie."""
    c = page(sides)
    headline = summary(c)
    for leader, at, words in claims_of(headline):
        worsts = [independent_worst(sides, x, leader) for x in at]
        assert all(w > 1.01 for w in worsts), (headline, worsts)
        for least, where in re.findall(
            r"at least (\d[\d,]*\.\d\d)×(?: at ([\d., and]+?) tok/s/user)?", words
        ):
            # an 'at least' said at some of the targets holds at those; said alone, at all of them
            held = [independent_worst(sides, x, leader) for x in targets_in(where)] if where else worsts
            assert float(least.replace(",", "")) <= min(held) + 1e-12, (headline, held)
    undetermined = re.search(
        r"inner not determined by the measurements at (?:all \w+ targets \(1k/1k, )?([\d., and]+?) tok/s/user",
        headline,
    )
    if undetermined:
        for x in targets_in(undetermined.group(1)):
            for leader in (0, 1):
                assert independent_worst(sides, x, leader) <= 1.0 / 0.99 + 1e-12, headline


def dense(top: float) -> list[tuple[float, float]]:
    """A well-measured frontier: a knot every 5 tok/s/user, throughput falling gently."""
    return [(float(x), top - 10.0 * x) for x in range(20, 105, 5)]


def test_a_well_measured_lead_is_stated_as_a_ratio() -> None:
    c = page([dense(2000.0), dense(1000.0)])
    headline = summary(c)
    assert headline.startswith("A ahead at all three targets (1k/1k, ")
    assert "the tok/s/GPU of B." in headline and "at least" not in headline
    assert "not determined" not in headline


def test_a_lead_the_knots_keep_but_leave_wide_is_stated_as_a_bound() -> None:
    # at 30: A between 5000 and 1000, B between 900 and 700 → A ahead by 1.11× to 7.14×
    a = [(20.0, 5000.0), (40.0, 1000.0), (50.0, 900.0)]
    b = [(20.0, 900.0), (40.0, 700.0), (50.0, 600.0)]
    c = page([a, b], [30.0])
    assert summary(c).startswith("A delivers at least 1.11× the tok/s/GPU of B (between 1.11× and 7.15× ")
    (paragraph,) = paragraphs(c, c.sequences[0], "here")
    assert "A delivers at least 1.11× the tok/s/GPU of B" in paragraph
    assert "B costs at least 1.11× as much per token as A" in paragraph
    (note,) = [n for n in caveats(c, c.sequences[0]) if n.startswith("What the measurements decide")]
    assert "at 30 tok/s/user the lead is stated as the least the bounds guarantee" in note
    rows = {row.key: row for row in table(c, c.sequences[0])}
    a_cell, b_cell = rows["throughput"].cells[0]
    assert a_cell.win and not b_cell.win
    assert a_cell.note.startswith("leads by between 1.11× and 7.15× given the bracketing measured points; ")
    assert "interpolated between measured points: 1,000.0 to 5,000.0" in a_cell.note


def test_a_winner_the_knots_do_not_decide_is_said_so_everywhere() -> None:
    # at 30: A between 5000 and 500, B between 1500 and 1400: either could lead
    a = [(20.0, 5000.0), (40.0, 500.0)]
    b = [(20.0, 1500.0), (40.0, 1400.0)]
    c = page([a, b], [30.0, 35.0])
    seq: SequenceResult = c.sequences[0]
    headline = summary(c)
    assert headline.startswith("Winner not determined by the measurements at both targets (1k/1k, 30 and 35")
    assert "A ÷ B lies between 0.33× and 3.58× given the bracketing measured points" in headline
    for paragraph in paragraphs(c, seq, "here"):
        assert "Tok/s/GPU winner not determined by the measurements (A ÷ B between" in paragraph or (
            "tok/s/GPU winner not determined by the measurements (A ÷ B between" in paragraph
        )
    rows = {row.key: row for row in table(c, seq)}
    for a_cell, b_cell in rows["throughput"].cells:
        assert not a_cell.win and not b_cell.win
        assert b_cell.text.endswith(" (winner not determined)")
        assert a_cell.note.startswith("winner not determined by the measurements: A ÷ B between ")
    assert seq.results[0].claims["throughput_per_gpu"].grade == "undetermined"
    dumped = c.model_dump(mode="json")
    claim = dumped["sequences"][0]["results"][0]["claims"]["throughput_per_gpu"]
    assert claim["grade"] == "undetermined" and claim["ratio_lo"] < 1 < claim["ratio_hi"]
    side = dumped["sequences"][0]["results"][0]["sides"][0]
    assert side["bounds"]["throughput_per_gpu"] == [500.0, 5000.0]


def test_at_the_knots_the_bounds_are_the_values() -> None:
    c = page([[(20.0, 2000.0), (40.0, 1000.0)], [(20.0, 900.0), (40.0, 600.0)]], [20.0, 40.0])
    for target in c.sequences[0].results:
        made = target.claim("throughput")
        assert made is not None and made.grade == "decided" and made.ratio_lo == made.ratio == made.ratio_hi
    assert "not determined" not in summary(c) and "at least" not in summary(c)


def test_reference_grades_agree_with_the_engine_on_generated_pages() -> None:
    """The reference implementation's grade (tests/reference_impl.py) on a handful of cases."""
    assert ref.claim_grade(2.0, 1.0, (1.8, 2.2), (0.95, 1.05))[1] == "decided"
    assert ref.claim_grade(2.0, 1.0, (1.2, 5.0), (0.9, 1.1))[1] == "bounded"
    assert ref.claim_grade(2.0, 1.0, (0.5, 5.0), (0.9, 1.1))[1] == "undetermined"
    assert ref.claim_grade(1.0, 1.0, (1.0, 1.0), (1.0, 1.0))[1] == "tied"
    for a_bounds, b_bounds in (
        ((1.8, 2.2), (0.95, 1.05)),
        ((1.2, 5.0), (0.9, 1.1)),
        ((0.5, 5.0), (0.9, 1.1)),
    ):
        c = page(
            [[(20.0, a_bounds[1]), (40.0, a_bounds[0])], [(20.0, b_bounds[1]), (40.0, b_bounds[0])]], [30.0]
        )
        made = c.sequences[0].results[0].claim("throughput")
        a, b = (m.value("throughput") for m in c.sequences[0].results[0].sides)
        assert made is not None and a is not None and b is not None
        assert made.grade == ref.claim_grade(a, b, a_bounds, b_bounds)[1]


def test_a_lead_that_changes_sides_is_said_as_mixed() -> None:
    a = dense(2000.0)
    b = [(x, 3000.0 - 25.0 * x) for x, _ in dense(0.0)]  # B ahead at low interactivity, A at high
    c = page([a, b], [25.0, 90.0])
    assert all(r.claim("throughput").grade == "decided" for r in c.sequences[0].results)  # type: ignore[union-attr]
    headline = summary(c)
    assert headline.startswith("Mixed result at 1k/1k: A ahead at 90 tok/s/user (")
    assert "; B ahead at 25 tok/s/user (" in headline
