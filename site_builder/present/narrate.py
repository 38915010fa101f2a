"""Generated prose: three paragraphs, a one-line result and the caveats that apply to a page.

Pure functions of a computed comparison. Wording follows DESIGN.md: true comparatives ("costs 52%
less", "2.09× as much", "+115%"), "essentially tied" within 1%, templates chosen by a stable hash
of the page identity so a rebuild gives the same words, and no template twice on one page.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from site_builder.catalog import AppliedConstants
from site_builder.confounders import CONFOUNDERS
from site_builder.engine.compare import SPREAD_LIMIT, is_tie, winner
from site_builder.formatting import fixed, grouped
from site_builder.kinds import KINDS, Words
from site_builder.present.schema import (
    EXAMPLE_MARK,
    AccuracyDifference,
    AccuracySide,
    AccuracyTask,
    Claim,
    ComparisonResult,
    MetricsAtTarget,
    SequenceResult,
    SideResult,
    SweepExtreme,
    SweepResult,
    SweepSla,
    SweepWorkload,
)
from site_builder.read.fields import short_output_share


@dataclass(frozen=True)
class Narrative:
    eyebrow: str
    lede: str
    summary: str
    paragraphs: list[str]
    caveats: list[str]
    accuracy: list[str] = field(default_factory=list)  # a paragraph per task
    accuracy_line: str | None = None  # the one line a page without evaluation results gets
    accuracy_mark: str | None = None  # the index card's accuracy verdict
    sweep: dict[str, list[str]] = field(default_factory=dict)  # paragraphs per sweep section
    sla_limit: str = ""  # "100 ms per output token"
    # per sequence: why its table has no matched numbers (absent where it has), and what each
    # side pools there
    no_match: dict[str, str] = field(default_factory=dict)
    pooling: dict[str, str] = field(default_factory=dict)
    # per sequence: where its files say the lengths differ from the nominal label (absent: nothing)
    workloads: dict[str, str] = field(default_factory=dict)
    # the settings the headline's caveat names as confounders ("spec_method", "disagg", "precision")
    confounded_by: tuple[str, ...] = ()


def stable_choice(key: str, count: int, picks: int) -> list[int]:
    """`picks` distinct indices in range(count), fixed by `key` (not by Python's salted hash)."""
    digest = hashlib.sha256(key.encode()).digest()
    pool = list(range(count))
    chosen = []
    for i in range(picks):
        index = digest[i] % len(pool)
        chosen.append(pool.pop(index))
    return chosen


def tput_text(value: float) -> str:
    return grouped(fixed(value, 0))


def cost_text(value: float) -> str:
    return "$" + grouped(fixed(value, 2))


def ratio_text(ratio: float) -> str:
    return grouped(fixed(ratio, 2)) + "×"


def percent_text(fraction: float) -> str:
    return grouped(fixed(fraction * 100, 0)) + "%"


def target_text(interactivity: float) -> str:
    """A target as the prose names it: '45', or '42.5' where it is not whole."""
    return fixed(interactivity, 0) if interactivity == int(interactivity) else fixed(interactivity, 1)


def plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def side_labels(comparison: ComparisonResult) -> list[str]:
    return [s.label for s in comparison.sides]


def throughput(m: MetricsAtTarget) -> float:
    """A measured side's throughput at a target (every measured side has one)."""
    value = m.value("throughput")
    assert value is not None
    return value


def ratio_floor_text(ratio: float) -> str:
    """A lower bound rounded down to 2 decimals, so 'at least' never claims more than it holds."""
    return ratio_text(math.floor(ratio * 100) / 100)


def ratio_ceil_text(ratio: float) -> str:
    """An upper bound rounded up to 2 decimals, so 'at most' never claims less than it holds."""
    return ratio_text(math.ceil(ratio * 100) / 100)


NOT_DETERMINED = "winner not determined by the measurements"
BRACKETING = "given the bracketing measured points"


def bounds_text(labels: Sequence[str], made: Claim) -> str:
    """'FP4 ÷ FP8 between 0.05× and 118.01× given the bracketing measured points'."""
    return (
        f"{labels[0]} ÷ {labels[1]} between {ratio_floor_text(made.ratio_lo)} and "
        f"{ratio_ceil_text(made.ratio_hi)} {BRACKETING}"
    )


def lead_bounds_text(made: Claim) -> str:
    """'between 4.40× and 54.56×': the leader's advantage at its worst and best."""
    assert made.lead_at_least is not None and made.lead_at_most is not None  # a leader has them
    return f"between {ratio_floor_text(made.lead_at_least)} and {ratio_ceil_text(made.lead_at_most)}"


def throughput_comparison(labels: Sequence[str], a: float, b: float, made: Claim | None = None) -> str:
    """'FP4 delivers 2.15× the tok/s/GPU of INT4 (+115%)', or a tie; where the bracketing knots
    leave a wide spread, the lead they guarantee ('at least 4.40×'); where they allow either
    side to lead, that the measurements do not determine the winner."""
    grade = made.grade if made else "decided"
    if made and grade == "undetermined":
        return f"tok/s/GPU {NOT_DETERMINED} ({bounds_text(labels, made)})"
    if is_tie(a, b):
        return f"{labels[0]} and {labels[1]} are essentially tied on tok/s/GPU"
    (hi_label, hi), (lo_label, lo) = sorted(zip(labels, (a, b), strict=True), key=lambda p: -p[1])
    if made and grade == "bounded":
        assert made.lead_at_least is not None
        return (
            f"{hi_label} delivers at least {ratio_floor_text(made.lead_at_least)} the tok/s/GPU of "
            f"{lo_label} ({lead_bounds_text(made)} {BRACKETING})"
        )
    ratio = hi / lo
    gain = percent_text(ratio - 1)
    return f"{hi_label} delivers {ratio_text(ratio)} the tok/s/GPU of {lo_label} (+{gain})"


def sentence_start(compare: str) -> str:
    """A comparison as the start of a sentence: the words this module begins one with are
    capitalised (a side's label never is: "vLLM" stays as written)."""
    if compare.startswith(LOWERCASE_OPENINGS):
        return compare[0].upper() + compare[1:]
    return compare


LOWERCASE_OPENINGS = ("tok/s/GPU ", "cost-per-token ")


def cost_comparison(
    labels: Sequence[str], a: float, b: float, form: int = 0, made: Claim | None = None
) -> str:
    """'FP4 costs 52% less per token than INT4' or 'INT4 costs 2.09× as much per token as FP4';
    graded by the bracketing knots as throughput_comparison is.

    Never "N% cheaper" with N ≥ 100: a saving is 1 − cheap/expensive, always below 100%.
    """
    if made and made.grade == "undetermined":
        return f"cost-per-token {NOT_DETERMINED} ({bounds_text(labels, made)})"
    if is_tie(a, b):
        return f"{labels[0]} and {labels[1]} are essentially tied on cost per token"
    (cheap_label, cheap), (dear_label, dear) = sorted(zip(labels, (a, b), strict=True), key=lambda p: p[1])
    if made and made.grade == "bounded":
        assert made.lead_at_least is not None
        return (
            f"{dear_label} costs at least {ratio_floor_text(made.lead_at_least)} as much per token as "
            f"{cheap_label} ({lead_bounds_text(made)} {BRACKETING})"
        )
    saving_rounds_to_all = percent_text(1 - cheap / dear) == "100%"
    if form % 2 == 0 and not saving_rounds_to_all:
        return f"{cheap_label} costs {percent_text(1 - cheap / dear)} less per token than {dear_label}"
    return f"{dear_label} costs {ratio_text(dear / cheap)} as much per token as {cheap_label}"


def band_phrase(sequence: SequenceResult, target: float) -> str:
    band = sequence.band
    if not band.overlap or band.lo is None or band.hi is None:
        return "Where the two frontiers do not overlap"
    span = f"{band.display_lo}–{band.display_hi} tok/s/user band"
    if not band.lo <= target <= band.hi:
        return f"Outside the {span}"
    position = (target - band.lo) / (band.hi - band.lo)  # an overlap has width (engine Band)
    return f"{BAND_PLACES[bisect.bisect_right(BAND_PLACE_LIMITS, position)]} {span}"


# Where a target lies in the band, by its position there (0: the low end, 1: the high end)
BAND_PLACE_LIMITS = (0.375, 0.625)
BAND_PLACES = ("Near the low end of the", "Around the middle of the", "Toward the upper edge of the")


# Each template gets: band, t (target), where (model and GPU), A/B labels, a/b throughput and
# cost texts, and the comparison sentence.
PAIR_TEMPLATES = (
    "{band}, at {t} tok/s/user on {where}: {A} runs {a_tput} tok/s/GPU at {a_cost} per million "
    "tokens, {B} runs {b_tput} at {b_cost}. {Compare}.",
    "{A} posts {a_tput} tok/s/GPU for {a_cost} per million tokens at {t} tok/s/user on {where}; "
    "{B} posts {b_tput} tok/s/GPU for {b_cost}. {band} ({t} tok/s/user), {compare}.",
    "Throughput at {t} tok/s/user on {where}: {A} hits {a_tput} tok/s/GPU, {B} hits {b_tput}. "
    "Per-million-token costs land at {a_cost} and {b_cost} respectively. {Compare}.",
    "At {t} tok/s/user ({band_lower}) on {where}, {A} delivers {a_tput} tok/s/GPU at {a_cost}/M "
    "tokens; {B} delivers {b_tput} tok/s/GPU at {b_cost}/M. {Compare}.",
    "Matched at {t} tok/s/user on {where}, {A} serves {a_tput} tok/s/GPU and {B} {b_tput}, which puts "
    "a million tokens at {a_cost} against {b_cost}. {Compare}.",
)


# A target where a side has no cost (its GPU lacks the constant): throughput only, cost named once.
NO_COST_TEMPLATE = (
    "At {t} tok/s/user on {where}, {A} runs {a_tput} tok/s/GPU and {B} runs {b_tput}; {no_cost}. {Compare}."
)


def _no_cost_text(labels: Sequence[str], costs: Sequence[float | None]) -> str:
    lacking = [label for label, cost in zip(labels, costs, strict=True) if cost is None]
    return f"no cost per token for {_join(lacking)} (no cost constant for its GPU)"


def _one_side_paragraph(
    sequence: SequenceResult, labels: Sequence[str], sides: Sequence[MetricsAtTarget], t: str, where: str
) -> str:
    measured, missing = [], []
    for label, side, m in zip(labels, sequence.sides, sides, strict=True):
        if m.measured:
            measured.append((label, m))
        else:
            missing.append(_range_text(label, side))
    gaps = "; ".join(missing)
    if not measured:
        return (
            f"At {t} tok/s/user on {where} neither side was measured ({gaps}), so there is no matched number."
        )
    label, m = measured[0]
    tput, cost = tput_text(throughput(m)), m.value("cost")
    priced = f" at {cost_text(cost)} per million tokens" if cost is not None else ""
    return (
        f"At {t} tok/s/user on {where} only {label} was measured: {tput} tok/s/GPU{priced}. "
        f"{gaps[0].upper() + gaps[1:]}, so there is no matched number for it here."
    )


def _range_text(label: str, side: SideResult) -> str:
    if side.interactivity_range is None:
        return f"{label} has no measured points on this workload"
    lo, hi = side.interactivity_range
    if len(side.frontier) == 1:
        return f"{label} was measured at one interactivity only ({fixed(lo, 1)} tok/s/user)"
    return f"{label}'s frontier spans {fixed(lo, 1)}–{fixed(hi, 1)} tok/s/user"


def no_matched_range(labels: Sequence[str], sequence: SequenceResult) -> str:
    """Why a workload has no matched numbers, with each side's measured range."""
    ranges = "; ".join(_range_text(label, side) for label, side in zip(labels, sequence.sides, strict=True))
    return f"No matched range at {sequence.sequence}: {ranges}."


def paragraphs(comparison: ComparisonResult, sequence: SequenceResult, where: str) -> list[str]:
    labels = side_labels(comparison)
    key = f"{comparison.slug}|{sequence.sequence}"
    templates = stable_choice(key, len(PAIR_TEMPLATES), min(len(sequence.results), len(PAIR_TEMPLATES)))
    forms = stable_choice(key + "|form", 2, 1)
    closers = KINDS[comparison.kind].closers
    closer_order = stable_choice(key + "|closer", len(closers), min(len(sequence.results), len(closers)))
    result = []
    for i, target in enumerate(sequence.results):
        t = target_text(target.interactivity)
        a, b = target.sides
        if not (a.measured and b.measured):
            result.append(_one_side_paragraph(sequence, labels, target.sides, t, where))
            continue
        compare = throughput_comparison(labels, throughput(a), throughput(b), target.claim("throughput"))
        a_money, b_money = a.value("cost"), b.value("cost")
        if a_money is not None and b_money is not None:
            spent = cost_comparison(labels, a_money, b_money, forms[0] + i, target.claim("cost"))
            compare = f"{spent}; {compare}"
            template = PAIR_TEMPLATES[templates[i % len(templates)]]
            prices = {"a_cost": cost_text(a_money), "b_cost": cost_text(b_money)}
        else:
            template = NO_COST_TEMPLATE
            prices = {"no_cost": _no_cost_text(labels, (a_money, b_money))}
        band = band_phrase(sequence, target.interactivity)
        text = template.format(
            band=band,
            band_lower=band[0].lower() + band[1:],
            t=t,
            where=where,
            A=labels[0],
            B=labels[1],
            a_tput=tput_text(throughput(a)),
            b_tput=tput_text(throughput(b)),
            compare=compare,
            Compare=sentence_start(compare),
            **prices,
        )
        if i < len(closer_order):
            text += " " + closers[closer_order[i]]
        result.append(text)
    return result


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def method_name(method: str) -> str:
    """'MTP', or 'no speculative decoding' for none."""
    return METHOD_NAMES.get(method, method.upper())


METHOD_NAMES = {"none": "no speculative decoding"}
MODE_NAMES = {"agg": "aggregated", "disagg": "disaggregated"}


def where_text(comparison: ComparisonResult, hardware_names: Sequence[str]) -> str:
    gpus = " vs ".join(dict.fromkeys(hardware_names))
    return f"{comparison.model_name} ({gpus})"


def eyebrow(comparison: ComparisonResult, hardware_names: Sequence[str]) -> str:
    gpus = " vs ".join(dict.fromkeys(hardware_names))
    return f"{comparison.model_name} · {gpus} · {KINDS[comparison.kind].name}"


def lede(comparison: ComparisonResult, hardware_names: Sequence[str], architectures: Sequence[str]) -> str:
    a, b = side_labels(comparison)
    gpu = " and ".join(
        f"{name} ({arch})" if arch else name
        for name, arch in dict.fromkeys(zip(hardware_names, architectures, strict=True))
    )
    words = Words(a=a, b=b, model=comparison.model_name, gpu=gpu, gpu_with_architecture=gpu, precision="")
    return (
        f"{KINDS[comparison.kind].lede(words)}: throughput per GPU, cost per million tokens, energy and "
        "concurrency compared at matched interactivity (tok/s per user), "
        "with the measurements behind every number."
    )


def no_match_panel(comparison: ComparisonResult, sequence: SequenceResult) -> str:
    """The table's words where a workload has no matched range (the headline's are shorter)."""
    labels = side_labels(comparison)
    ranges = "; ".join(_range_text(label, side) for label, side in zip(labels, sequence.sides, strict=True))
    return (
        f"{ranges[0].upper()}{ranges[1:]}. There is no stretch of interactivity where both have a "
        "measured curve, so no matched numbers are shown here."
    )


def _targets_text(targets: Sequence[float]) -> str:
    return _join([target_text(t) for t in targets]) + " tok/s/user"


def _count_text(count: int, total: int) -> str:
    if count == total:
        return {1: "the one target", 2: "both targets"}.get(
            count, f"all {NUMBER_WORDS.get(count, str(count))} targets"
        )
    return f"{NUMBER_WORDS.get(count, str(count))} of {NUMBER_WORDS.get(total, str(total))} targets"


NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class TargetOutcome:
    """One matched target in the headline: who leads on tok/s/GPU and how surely (the claim the
    bracketing knots support), and by how much."""

    target: float
    leader: int | None  # side index where the measurements determine a lead; else None
    grade: str  # "decided", "bounded", "tied" or "undetermined" (engine compare.Claim)
    ratio: float  # the leader's throughput ÷ the other's at the interpolated values (≥ 1)
    claim: Claim | None
    values: tuple[float, float]  # each side's throughput


def outcomes(sequence: SequenceResult) -> list[TargetOutcome]:
    found = []
    for result in sequence.results:
        if all(m.measured for m in result.sides):
            a, b = (throughput(m) for m in result.sides)
            made = result.claim("throughput")
            point_leader = winner(a, b, "higher")  # None: essentially tied
            grade = made.grade if made else ("tied" if point_leader is None else "decided")
            leader = point_leader if grade in ("decided", "bounded") else None
            ratio = max(a, b) / min(a, b)
            found.append(TargetOutcome(result.interactivity, leader, grade, ratio, made, (a, b)))
    return found


def _ratios_text(found: Sequence[TargetOutcome], of: str) -> str:
    """A lead over its targets: '1.41× to 2.34× {of}' (or one ratio, or 'at each') where the
    bracketing knots keep the spread narrow, 'at least 4.40× {of}' where they do not, and both,
    each with its targets, where the targets differ."""
    point = sorted((o for o in found if o.grade == "decided"), key=lambda o: o.ratio)
    bounded = [o for o in found if o.grade == "bounded"]
    text = ""
    if point:
        low, high = ratio_text(point[0].ratio), ratio_text(point[-1].ratio)
        text = f"{low} to {high}" if low != high else low if len(point) == 1 else f"{low} at each"
    if not bounded:
        return f"{text} {of}"
    least = min(o.claim.lead_at_least for o in bounded if o.claim and o.claim.lead_at_least is not None)
    at_least = f"at least {ratio_floor_text(least)}"
    if not point:
        return f"{at_least} {of}"
    return (
        f"{text} {of} at {_targets_text([o.target for o in point])}, "
        f"{at_least} at {_targets_text([o.target for o in bounded])}"
    )


def _undetermined_text(labels: Sequence[str], found: Sequence[TargetOutcome]) -> str:
    """'winner not determined by the measurements at 45 and 60 tok/s/user (FP4 ÷ FP8 between
    0.05× and 118.01× given the bracketing measured points)'."""
    claims = [o.claim for o in found if o.claim is not None]
    at = _targets_text([o.target for o in found])
    if not claims:
        return f"{NOT_DETERMINED} at {at}"
    lo, hi = min(c.ratio_lo for c in claims), max(c.ratio_hi for c in claims)
    return (
        f"{NOT_DETERMINED} at {at} ({labels[0]} ÷ {labels[1]} between {ratio_floor_text(lo)} and "
        f"{ratio_ceil_text(hi)} {BRACKETING})"
    )


def summary(comparison: ComparisonResult, sequence: SequenceResult) -> str:
    """The one-line result over every target: one leader with its range of ratios, a mixed
    result said as mixed, and the targets where the measurements do not determine a winner
    (engine compare.Claim)."""
    labels = side_labels(comparison)
    if not sequence.band.overlap and not sequence.targets_pinned:
        return no_matched_range(labels, sequence)
    found = outcomes(sequence)
    if not found:
        return f"No target at {sequence.sequence} where both sides were measured."
    groups = {grade: [o for o in found if o.grade == grade] for grade in ("tied", "undetermined")}
    led = {side: [o for o in found if o.leader == side] for side in (0, 1)}
    if len(found) == 1 and not groups["undetermined"]:
        o = found[0]
        compared = throughput_comparison(labels, *o.values, o.claim)
        return f"{compared} at {_targets_text([o.target])} ({sequence.sequence})."
    if len(groups["undetermined"]) == len(found):
        return _none_determined(labels, sequence, found)
    if len(groups["tied"]) == len(found) or any(len(mine) == len(found) for mine in led.values()):
        return _one_leader(labels, sequence, found)
    return _parts(labels, sequence, led, groups)


def _none_determined(labels: Sequence[str], sequence: SequenceResult, found: Sequence[TargetOutcome]) -> str:
    """The headline where the measurements determine the winner at no target."""
    total = len(found)
    where = f"({sequence.sequence}, {_targets_text([o.target for o in found])})"
    claims = [o.claim for o in found if o.claim is not None]
    bounds = ""
    if claims:
        lo, hi = min(c.ratio_lo for c in claims), max(c.ratio_hi for c in claims)
        bounds = (
            f": {labels[0]} ÷ {labels[1]} lies between {ratio_floor_text(lo)} and {ratio_ceil_text(hi)} "
            f"{BRACKETING}, so either side could lead"
        )
    return f"Winner not determined by the measurements at {_count_text(total, total)} {where}{bounds}."


def _one_leader(labels: Sequence[str], sequence: SequenceResult, found: Sequence[TargetOutcome]) -> str:
    """The headline where one side leads (or the sides tie) at every target."""
    total = len(found)
    where = f"({sequence.sequence}, {_targets_text([o.target for o in found])})"
    leader = found[0].leader
    if leader is None:
        tied = f"{labels[0]} and {labels[1]} are essentially tied on tok/s/GPU"
        return f"{tied} at {_count_text(total, total)} {where}."
    ratios = _ratios_text(found, f"the tok/s/GPU of {labels[1 - leader]}")
    return f"{labels[leader]} ahead at {_count_text(total, total)} {where}: {ratios}."


def _parts(
    labels: Sequence[str],
    sequence: SequenceResult,
    led: dict[int, list[TargetOutcome]],
    groups: dict[str, list[TargetOutcome]],
) -> str:
    """The headline where the targets differ: where each side leads, where they tie, and where
    the measurements do not determine a winner; 'Mixed result' where each side leads somewhere."""
    parts = []
    for leader, mine in led.items():
        if mine:
            ratios = _ratios_text(mine, f"the tok/s/GPU of {labels[1 - leader]}")
            at = _targets_text([o.target for o in mine])
            parts.append(f"{labels[leader]} ahead at {at} ({ratios})")
    if groups["tied"]:
        parts.append(f"essentially tied at {_targets_text([o.target for o in groups['tied']])}")
    if groups["undetermined"]:
        parts.append(_undetermined_text(labels, groups["undetermined"]))
    opening = "Mixed result at" if all(led.values()) else "At"
    return f"{opening} {sequence.sequence}: " + "; ".join(parts) + "."


def pooled_text(side: SideResult) -> str:
    """What one side's frontier pools: engines (methods; modes), and precisions, GPU counts and dates
    where they mix."""
    methods = _join([method_name(m) for m in side.spec_methods])
    modes = _join([MODE_NAMES[m] for m in side.modes])
    text = f"{_join(side.engines)} ({methods}; {modes})"
    if len(side.precisions) > 1:
        text += f", pooling precisions {_join([p.upper() for p in side.precisions])}"
    if side.unknown_gpu_counts:
        count = side.unknown_gpu_counts
        text += (
            f", {count} {plural(count, 'point', 'points')} of which {plural(count, 'has', 'have')} "
            "no recorded GPU count (per GPU as the source gives it; users per GPU unknown)"
        )
    if side.dates and side.dates[0] != side.dates[1]:
        text += f", runs from {side.dates[0]} to {side.dates[1]}"
    return text


def _side_pools(sequence: SequenceResult, unknown: str, known: str) -> list[str]:
    """Per side with a frontier, what it pools: `known` with the side's {label}, {how} it pools
    and what it {uses}, or `unknown` ({label}) where its published values name no configuration."""
    return [
        (unknown if side.engines == ["unknown"] else known).format(
            label=side.label,
            how=f"is {side.pooling}" if side.narrowed else "pools the best available configurations",
            uses=pooled_text(side),
        )
        for side in sequence.sides
        if side.frontier
    ]


def pooling_line(comparison: ComparisonResult, sequence: SequenceResult) -> str:
    """Beside the table: what each side pools at this workload (precisions, engines, modes, GPU
    counts, dates), so a pooled number never stands without it."""
    parts = _side_pools(sequence, "{label}: published values, configuration not given", "{label}: {uses}")
    return (f"At {sequence.sequence} each side's frontier pools " + "; ".join(parts) + ".") if parts else ""


def _tokens(value: float) -> str:
    return grouped(fixed(value, 0))


def _lowest(ratio: float, length: int) -> float:
    """The shortest length a range ratio draws: ratio × nominal, at least one token."""
    return max(1.0, ratio * length)


def _drawn_range(label: str, isl: int, osl: int, ratios: Sequence[float]) -> str:
    """'B200 FP4's lengths were drawn from 768–1,024 input and 768–1,024 output tokens'."""
    ranges = [
        f"{_tokens(_lowest(r, isl))}–{_tokens(isl)} input and "
        f"{_tokens(_lowest(r, osl))}–{_tokens(osl)} output tokens"
        for r in ratios
    ]
    return f"{label}'s lengths were drawn from " + " or ".join(ranges)


def _short_outputs(sequence: SequenceResult, side: SideResult) -> float | None:
    """How far short of the nominal output length a side's measured mean output falls (a share),
    where it falls below the lowest length it could be drawn from by more than the tolerance
    the loader allows a stated length: the loader's own rule (read.fields.short_output_share)."""
    lengths = side.lengths
    if lengths is None or lengths.osl_mean is None or sequence.osl is None:  # None: labelled, no nominal
        return None
    return short_output_share(sequence.osl, lengths.osl_mean, min([1.0, *lengths.random_range_ratios]))


def short_output_text(label: str, sequence: SequenceResult, side: SideResult) -> str | None:
    """'B200 FP4's outputs averaged 340 tokens, 67 % short of the nominal 1,024'."""
    short = _short_outputs(sequence, side)
    if short is None or side.lengths is None or side.lengths.osl_mean is None or sequence.osl is None:
        return None
    return (
        f"{label}'s outputs averaged {_tokens(side.lengths.osl_mean)} tokens, "
        f"{fixed(short * 100, 0)}% short of the nominal {_tokens(sequence.osl)}"
    )


def _mean_with_range(mean: float | None, span: tuple[float, float] | None, what: str) -> str | None:
    """'1,050 in (runs 1,020–1,080)': a side's mean length, and the range of its runs' means
    where they differ as shown."""
    if mean is None:
        return None
    lo, hi = (_tokens(v) for v in span) if span else ("", "")
    return f"{_tokens(mean)} {what}" + (f" (runs {lo}–{hi})" if lo != hi else "")


def labelled_workload_line(sequence: SequenceResult) -> str:
    """Under a labelled workload's heading (sharegpt): each side's measured mean lengths and
    their range across its runs, since the label states none."""
    parts = []
    for side in sequence.sides:
        lengths = side.lengths
        if lengths is None:
            parts.append(f"{side.label}'s files give no measured lengths")
            continue
        means = [
            _mean_with_range(lengths.isl_mean, lengths.isl_range, "in"),
            _mean_with_range(lengths.osl_mean, lengths.osl_range, "out"),
        ]
        parts.append(f"{side.label}'s measured means " + ", ".join(m for m in means if m))
    return f"{sequence.sequence} is a workload of varying lengths, each run's own: " + "; ".join(parts) + "."


def workload_line(sequence: SequenceResult) -> str:
    """Under a workload's heading, where the files say its lengths differ from its label: the
    ranges lengths were drawn from, short outputs, the measured means ('' where nothing to say);
    under a labelled one's, its measured lengths (labelled_workload_line)."""
    if sequence.isl is None or sequence.osl is None:
        return labelled_workload_line(sequence)
    parts = []
    for side in sequence.sides:
        lengths = side.lengths
        if lengths is None:
            continue
        said = []
        if lengths.random_range_ratios:
            said.append(_drawn_range(side.label, sequence.isl, sequence.osl, lengths.random_range_ratios))
        short = short_output_text(side.label, sequence, side)
        if short:
            said.append(short)
        if said and lengths.isl_mean is not None and lengths.osl_mean is not None:
            said.append(f"measured means {_tokens(lengths.isl_mean)} in, {_tokens(lengths.osl_mean)} out")
        parts.extend(said)
    if not parts:
        return ""
    return f"{sequence.sequence} is the nominal workload: " + "; ".join(parts) + "."


def short_outputs_caveat(sequence: SequenceResult) -> str | None:
    """The headline's caveat where a side's outputs fell well short of the nominal length: its
    tok/s are not those of full-length outputs, whatever the workload's label says."""
    said = [t for side in sequence.sides if (t := short_output_text(side.label, sequence, side))]
    if not said:
        return None
    return (
        f"{sequence.sequence} is nominal: " + "; ".join(said) + " (requests ended early; was end-of-sequence "
        "ignored?), so those tok/s are not those of full-length outputs."
    )


def caveats(comparison: ComparisonResult, sequence: SequenceResult) -> list[str]:
    """The notes that apply to this page's data, naming the engines and methods involved."""
    notes = [
        *_pooling_note(sequence),
        *_acceptance_note(comparison, sequence),
        *_disaggregated_note(sequence),
        *(note for constants in comparison.constants for note in _constants_notes(constants)),
        *_dates_note(sequence),
    ]
    notes.extend(claim_notes(comparison, sequence))
    notes.extend(comparison.notices)
    return notes


def _pooling_note(sequence: SequenceResult) -> list[str]:
    """What each side's frontier pools, where either has one."""
    pooled = _side_pools(
        sequence,
        "{label}: the published values do not say which engine or configuration",
        "{label} {how}: its frontier uses {uses}",
    )
    if not pooled:
        return []
    return [
        "Each side's curve is the frontier of every configuration it selects, so it may mix engines, "
        "speculative decoding and deployment modes. " + "; ".join(pooled) + "."
    ]


def _acceptance_note(comparison: ComparisonResult, sequence: SequenceResult) -> list[str]:
    """Speculative decoding compared across engines, or by a kind that always warns of it."""
    engines_with_spec = sorted(
        {e for s in sequence.sides if set(s.spec_methods) - {"none"} for e in s.engines} - {"unknown"}
    )
    if not (KINDS[comparison.kind].engine_caveat or len(engines_with_spec) > 1):
        return []
    return [
        "Speculative-decoding acceptance rates differ between inference engines"
        + (f" (here: {_join(engines_with_spec)})" if engines_with_spec else "")
        + ", so points from different engines are not directly comparable: part of a gap at matched "
        "interactivity can come from the engine rather than the method."
    ]


def _disaggregated_note(sequence: SequenceResult) -> list[str]:
    if not any("disagg" in s.modes for s in sequence.sides):
        return []
    return [
        "Disaggregated deployments (separate prefill and decode workers) are counted per GPU over all "
        "their GPUs, prefill and decode together; their concurrency is that of the whole deployment."
    ]


def _constants_notes(constants: AppliedConstants) -> list[str]:
    """Where a GPU's cost and energy constants come from, and which it lacks."""
    notes = []
    parts = []
    if constants.usd_per_gpu_hour is not None:
        parts.append(
            f"${fixed(constants.usd_per_gpu_hour, 3).rstrip('0').rstrip('.')} per GPU-hour "
            f"({constants.cost_tier})"
        )
    if constants.watts_all_in is not None:
        parts.append(f"{fixed(constants.watts_all_in / 1000, 2)} kW all-in per GPU")
    if parts:
        notes.append(
            f"Cost and energy for {constants.hardware_name} use {_join(parts)}, from {constants.source} "
            f"(as of {constants.as_of}). Cost is derived from the interpolated throughput."
        )
    missing = constants.missing()
    if missing:
        notes.append(
            f"No {' or '.join(missing)} constant is known for {constants.hardware_name}: "
            "those metrics are shown as unavailable."
        )
    return notes


def run_dates(sequences: Sequence[SequenceResult]) -> list[str]:
    """Each side's first and last run date on these workloads, sorted."""
    return sorted(date for sequence in sequences for s in sequence.sides if s.dates for date in s.dates)


def _dates_note(sequence: SequenceResult) -> list[str]:
    dates = run_dates([sequence])
    if len(set(dates)) < 2:
        return []
    first, last = dates[0], dates[-1]
    return [
        f"Points come from runs on different dates ({first} to {last}); one curve can "
        "join points from different runs."
    ]


def claim_notes(comparison: ComparisonResult, sequence: SequenceResult) -> list[str]:
    """One note saying which targets' tok/s/GPU winner the measurements leave undetermined and
    which leads are stated as bounds (engine compare.Claim), and the rule behind both."""
    found = outcomes(sequence)
    undetermined = [o.target for o in found if o.grade == "undetermined"]
    bounded = [o.target for o in found if o.grade == "bounded"]
    if not (undetermined or bounded):
        return []
    said = []
    if undetermined:
        said.append(f"at {_targets_text(undetermined)} the {NOT_DETERMINED} (either side could lead)")
    if bounded:
        said.append(
            f"at {_targets_text(bounded)} the lead is stated as the least the bounds guarantee, since "
            f"its best case is more than {fixed(SPREAD_LIMIT, 0)}× its worst"
        )
    return [
        "What the measurements decide: an interpolated value lies between the two measured points "
        "that bracket it, so each ratio lies between bounds taken from those points (hover a table "
        f"value for its own); on tok/s/GPU, {_join(said)}. The provenance table lists the bracketing "
        "points; the methodology page gives the rule."
    ]


# -- accuracy ---------------------------------------------------------------------------------------


def score_text(score: float | None) -> str:
    """0.9545 → '95.5%' (None: a side without a usable score)."""
    if score is None:
        return "no usable result"
    return f"{fixed(score * 100, 1)}%"


def points_text(difference: float, signed: bool = True) -> str:
    """0.012 → '+1.2', -0.003 → '−0.3' (percentage points; a true minus sign)."""
    magnitude = fixed(abs(difference) * 100, 1)
    if not signed or magnitude == fixed(0, 1):
        return magnitude
    return ("+" if difference > 0 else "\u2212") + magnitude


def interval_text(lo: float, hi: float, signed: bool) -> str:
    if signed:
        return f"{points_text(lo)} to {points_text(hi)}"
    return f"{score_text(lo)} to {score_text(hi)}"


def score_interval(lo: float | None, hi: float | None) -> str:
    """A score's 95% interval, '94.8% to 96.1%', or '—' where a run or side has none."""
    if lo is None or hi is None:
        return "—"
    return interval_text(lo, hi, False)


def _side_detail(side: AccuracySide, page_hardware: str) -> list[str]:
    details = []
    if side.other_hardware:
        details.append(
            f"{side.label} has no results on {page_hardware}; its runs on {_join(side.hardware)} stand in"
        )
    if side.pooled_runs > 1:
        assert side.spread is not None  # pooled runs have a spread
        lo, hi = side.spread
        spread = f"{score_text(lo)} to {score_text(hi)}"
        text = f"{side.label}'s score is the mean of {side.pooled_runs} runs ({spread})"
        if not side.consistent:
            text += (
                ", which differ by more than their noise: serving configuration or harness settings matter"
            )
        details.append(text)
    excluded = sum(not r.pooled for r in side.runs)
    if excluded:
        details.append(f"{excluded} {side.label} {plural(excluded, 'run', 'runs')} left out (see the runs)")
    return details


SAME_OUTPUTS = "Speculative decoding should not change the answers under greedy decoding"


def accuracy_paragraph(comparison: ComparisonResult, task: AccuracyTask, page_hardware: Sequence[str]) -> str:
    """One task: both scores, the difference with its interval and a verdict that respects noise."""
    d = task.difference
    if d is None:  # the engine compares two sides that both have a score, and only those
        return _one_score(task)
    a, b = task.sides
    name = task.task_name
    ci = interval_text(d.ci_lo, d.ci_hi, signed=True)
    how = f"paired over the {d.questions} questions both answered" if d.method == "paired" else "unpaired"
    opening = f"{a.label} scores {score_text(a.score)} on {name} against {score_text(b.score)} for {b.label}"
    if d.better is None:
        text = (
            f"{opening}; the difference ({points_text(d.value)} points, 95% CI {ci}, {how}) is within noise."
        )
        same_outputs = "and these results agree."
    else:
        text = (
            f"{opening}: {d.better} is better by {points_text(d.value, signed=False)} points "
            f"(95% CI of {a.label} − {b.label}: {ci}, {how}), a difference outside the noise."
        )
        same_outputs = (
            "so this difference is worth investigating (the runs' settings, dates or an engine bug)."
        )
    if KINDS[comparison.kind].same_outputs:
        text += f" {SAME_OUTPUTS}, {same_outputs}"
    details = [
        detail
        for side, hardware in zip(task.sides, page_hardware, strict=False)
        for detail in _side_detail(side, hardware)
    ]
    if details:
        text += " " + "; ".join(details) + "."
    return text


def _one_score(task: AccuracyTask) -> str:
    """A task where fewer than two sides have a usable score."""
    name = task.task_name
    a, b = task.sides
    one, other = (a, b) if a.score is not None else (b, a)
    if one.score is None:
        return f"No usable {name} result for either side: every run lacks an interval or failed."
    return (
        f"{one.label} scores {score_text(one.score)} on {name} "
        f"(95% CI {score_interval(one.ci_lo, one.ci_hi)}); "
        f"{other.label} has no usable {name} result, so the two cannot be compared on accuracy."
    )


def accuracy_outside_noise(comparison: ComparisonResult) -> list[tuple[AccuracyTask, AccuracyDifference]]:
    """Each task whose difference is outside noise, with that difference."""
    tasks = comparison.accuracy.tasks if comparison.accuracy else []
    return [(t, t.difference) for t in tasks if t.difference is not None and t.difference.better is not None]


def accuracy_summary(comparison: ComparisonResult) -> str:
    """The headline's addendum: accuracy is named there only when a difference is outside noise."""
    return " ".join(
        f"On {task.task_name} accuracy {d.better} scores "
        f"{points_text(d.value, signed=False)} points higher "
        f"(95% CI of the difference {interval_text(d.ci_lo, d.ci_hi, signed=True)})."
        for task, d in accuracy_outside_noise(comparison)
    )


def accuracy_line(comparison: ComparisonResult) -> str | None:
    if comparison.accuracy is not None:
        return None
    line = "No accuracy results for either side"
    if KINDS[comparison.kind].accuracy_caveat:
        return (
            line + ": a precision change can change model quality, "
            "so check it before choosing on throughput or cost alone."
        )
    return line + "."


def accuracy_mark(comparison: ComparisonResult) -> str | None:
    """'accuracy: within noise', 'FP8 better by 1.2 pts', 'accuracy: FP4 only' or 'accuracy: no data'."""
    accuracy = comparison.accuracy
    if accuracy is None:
        return "accuracy: no data" if KINDS[comparison.kind].accuracy_caveat else None
    ahead = accuracy_outside_noise(comparison)
    if ahead:
        return "; ".join(
            f"{d.better} better by {points_text(d.value, signed=False)} pts on {t.task_name}"
            for t, d in ahead
        )
    if any(t.difference is not None for t in accuracy.tasks):
        return "accuracy: within noise"
    having = sorted({s.label for t in accuracy.tasks for s in t.sides if s.score is not None})
    return f"accuracy: {_join(having)} only" if having else "accuracy: no usable result"


# -- node-level sweeps ----------------------------------------------------------------------------


def mixed_changes(comparison: ComparisonResult) -> str | None:
    """The headline's caveat when the sides differ in more than the one thing the page compares
    (a new GPU at FP4 against an old one at FP8)."""
    a, b = comparison.sides
    varied = [
        k
        for k in ("hardware", "precision", "framework", "spec_method")
        if a.filters.get(k) != b.filters.get(k)
    ]
    if len(varied) < 2:
        return None
    names = _join([{"spec_method": "speculative decoding", "framework": "engine"}.get(k, k) for k in varied])
    return (
        f"Caveat: {a.label} against {b.label} changes {names} at once, "
        "so no single change accounts for the gap."
    )


def confounding(comparison: ComparisonResult, sequence: SequenceResult) -> list[tuple[int, str, str]]:
    """What one side's frontier uses and the other's lacks, beyond what the page compares (a
    setting both sides' filters fix is named by mixed_changes where they differ, and cannot
    differ where they agree): (side's index, setting, words), by the CONFOUNDERS registry."""
    varied = KINDS[comparison.kind].varies
    a, b = sequence.sides
    if not sequence.band.overlap:
        return []
    found = []
    for n, (side, other) in enumerate(((a, b), (b, a))):
        for c in CONFOUNDERS.values():
            if c.setting == varied or all(c.setting in s.filters for s in comparison.sides):
                continue
            used = set(getattr(side, c.frontier_values)) - set(getattr(other, c.frontier_values)) - {c.unused}
            found += [(n, c.setting, c.value_words(value)) for value in sorted(used)]
    return found


def confounders(comparison: ComparisonResult, sequence: SequenceResult) -> str | None:
    """The headline's caveat when one side's frontier uses speculative decoding, disaggregation
    or a precision the other's lacks: part of the gap may come from it."""
    a, b = sequence.sides
    found = []
    named = confounding(comparison, sequence)
    for n, (side, other) in enumerate(((a, b), (b, a))):
        extra = [words for index, _, words in named if index == n]
        if extra:
            found.append(f"{side.label}'s frontier uses {_join(extra)}, which {other.label}'s lacks")
    if not found:
        return None
    varied = KINDS[comparison.kind].varies
    return (
        f"Caveat at {sequence.sequence}: {'; '.join(found)}, so part of the gap may come from that rather "
        f"than from {VARIED_NAMES.get(varied, 'what the page compares')}."
    )


VARIED_NAMES = {
    "precision": "the precision",
    "spec_method": "speculative decoding",
    "hardware": "the GPU",
    "framework": "the engine",
}


def in_parentheses(text: str) -> str:
    """'(0.49×, B200 FP4 lower)' for '0.49× (B200 FP4 lower)': never a parenthesis inside one."""
    head, _, tail = text.partition(" (")
    return f"({head}, {tail.removesuffix(')')})" if tail else f"({text})"


def _where_extreme(e: SweepExtreme) -> str:
    return f"at {e.sequence}, concurrency {e.concurrency}"


def _missing_workloads(comparison: ComparisonResult, sweep: SweepResult) -> str:
    gaps = [
        f"{side.label} has no rows at {w.sequence}"
        for w in sweep.workloads
        for side, measured in zip(comparison.sides, w.measured, strict=True)
        if not measured
    ]
    return f" {_join(gaps)}: shown as not measured, not as zero." if gaps else ""


def _span_sentence(
    comparison: ComparisonResult, sweep: SweepResult, attribute: str, what: str, none: str | None = None
) -> str:
    """Where A ÷ B of one analysis is largest and smallest, over every concurrency both sides
    have; `none` where there is no such concurrency (by default: 'No concurrency has …')."""
    labels = side_labels(comparison)
    found = sweep.extremes.get(attribute)
    if not found:
        return none or f"No concurrency has {what} from both sides, so there is no ratio."
    count = sum(1 for w in sweep.workloads for p in getattr(w, attribute) if p.ratio is not None)
    largest, smallest = found
    if count == 1:
        where = _where_extreme(largest)
        return f"{labels[0]} ÷ {labels[1]} {what}: {largest.ratio_text} {where} (the one shared)."
    return (
        f"Over the {count} concurrencies where both sides have {what}, {labels[0]} ÷ {labels[1]} is largest "
        f"{_where_extreme(largest)} {in_parentheses(largest.ratio_text)} and smallest "
        f"{_where_extreme(smallest)} {in_parentheses(smallest.ratio_text)}."
    )


def sla_limit(sweep: SweepResult) -> str:
    if sweep.sla is None:
        return ""
    parts = []
    if sweep.sla.tpot_ms is not None:
        derived = " (derived from throughput)" if sweep.sla.basis == "derived" else ""
        parts.append(f"{fixed(sweep.sla.tpot_ms, 0)} ms per output token{derived}")
    if sweep.sla.ttft_ms is not None:
        parts.append(f"{fixed(sweep.sla.ttft_ms, 0)} ms to first token")
    return " and ".join(parts)


def _peaks_text(labels: Sequence[str], sweep: SweepResult) -> str:
    """Each workload's peak output throughput on both sides, and where the ratio is largest."""
    having = [w for w in sweep.workloads if w.peak_ratio is not None]
    if not having:
        return "No workload where both sides have a throughput."
    peaks = []
    for w in having:
        pa, pb = w.peaks
        assert pa is not None and pb is not None  # a peak ratio is of two peaks
        peaks.append(
            f"at {w.sequence} {labels[0]} peaks at {tput_text(pa.output_throughput)} tok/s (concurrency "
            f"{pa.concurrency}) and {labels[1]} at {tput_text(pb.output_throughput)} (concurrency "
            f"{pb.concurrency}): {w.peak_ratio_text}"
        )
    ranked = sorted(having, key=attrgetter("peak_ratio"))
    peak_span = (
        f" The peak ratio is largest at {ranked[-1].sequence} and smallest at {ranked[0].sequence}."
        if len(ranked) > 1
        else ""
    )
    return "Peak output throughput: " + "; ".join(peaks) + "." + peak_span


def _sla_side(label: str, result: SweepSla, measured: bool) -> str:
    if not measured:
        return f"{label} was not measured"
    if result.concurrency is None:
        return f"{label} meets it at no tested concurrency"
    return f"{label} serves up to {result.concurrency} concurrent users"


def _sla_text(labels: Sequence[str], sweep: SweepResult) -> str:
    """Per workload, the most users each side serves within the SLA limits."""
    sla = []
    for w in sweep.workloads:
        if w.sla is None:
            continue
        texts = [_sla_side(*side) for side in zip(labels, w.sla, w.measured, strict=True)]
        ratio = ""
        if w.sla_concurrency_ratio_text:
            head, _, tail = w.sla_concurrency_ratio_text.partition(" (")
            ratio = f" ({head} the users" + (f", {tail}" if tail else ")")
        sla.append(f"at {w.sequence} {_join(texts)}{ratio}")
    return f"Within {sla_limit(sweep)}: " + "; ".join(sla) + "." if sla else ""


def _stated(sweep: SweepResult, latency: str) -> str:
    """'a TPOT' for medians (the default every sweep page assumes), 'a mean TPOT' otherwise."""
    statistic = sweep.latency_statistic
    return f"a {latency}" if statistic == "median" else f"a {statistic} {latency}"


def sweep_paragraphs(comparison: ComparisonResult) -> dict[str, list[str]]:
    sweep = comparison.sweep
    if sweep is None:
        return {}
    return {
        "matched-concurrency": [
            _span_sentence(comparison, sweep, "output_throughput", "output tok/s")
            + _missing_workloads(comparison, sweep)
        ],
        "peak": [_peaks_text(side_labels(comparison), sweep)],
        "latency": [
            _span_sentence(comparison, sweep, "tpot_ms", _stated(sweep, "TPOT"))
            + " "
            + _span_sentence(comparison, sweep, "ttft_ms", _stated(sweep, "TTFT"))
            + " Lower is better for both."
        ],
        "latency-sla": [_sla_text(side_labels(comparison), sweep)],
        "power": [
            _span_sentence(
                comparison,
                sweep,
                "tokens_per_watt",
                "a measured system power",
                none="Power was not measured at any concurrency both sides tested, so there is no ratio.",
            )
        ],
    }


def tested_edge(w: SweepWorkload, side: int, concurrency: int) -> str:
    """' (the highest concurrency B200 tested)' where a finding sits on the edge of what a side
    tested, so it may lie beyond; '' inside."""
    tested = [p.concurrency for p in w.output_throughput if p.values[side] is not None]
    if len(tested) < 2 or min(tested) < concurrency < max(tested):
        return ""
    return "highest" if concurrency == max(tested) else "lowest"


def _edges(labels: Sequence[str], w: SweepWorkload, concurrencies: Sequence[int | None]) -> str:
    """'; at the highest concurrency both tested' (or the side that did) where a finding sits on
    the edge of the tested concurrencies, so the true value may lie beyond."""
    edges = [tested_edge(w, side, c) if c is not None else "" for side, c in enumerate(concurrencies)]
    if edges[0] and edges[0] == edges[1]:
        return f"; at the {edges[0]} concurrency both tested"
    said = [
        f"{label} at its {edge} tested concurrency" for label, edge in zip(labels, edges, strict=True) if edge
    ]
    return f"; {_join(said)}" if said else ""


def _span_finding(what: str, found: Sequence[tuple[float, str, str]]) -> str:
    """'peak output tok/s 1.20× (2k/2k) to 3.40× (128/128)': the smallest and largest A ÷ B."""
    ranked = sorted(found)
    (low, low_text, low_at), (high, high_text, high_at) = ranked[0], ranked[-1]
    if len(ranked) == 1 or low == high:
        return f"{what} {low_text} ({low_at})"
    return f"{what} from {low_text} ({low_at}) to {high_text} ({high_at})"


def sweep_findings(comparison: ComparisonResult, sweep: SweepResult) -> str:
    """The headline of a sweep page: A ÷ B's smallest and largest peak, matched-concurrency and
    SLA findings, each saying where it sits on the edge of a side's tested concurrencies."""
    labels = side_labels(comparison)
    parts = []
    peaks = []
    for w in sweep.workloads:
        if w.peak_ratio is not None and w.peak_ratio_text:
            concurrencies = [p.concurrency if p else None for p in w.peaks]
            peaks.append((w.peak_ratio, w.peak_ratio_text, w.sequence + _edges(labels, w, concurrencies)))
    if peaks:
        parts.append(_span_finding("peak output tok/s", peaks))
    matched = sweep.extremes.get("output_throughput")
    if matched:
        found = [(e.ratio, e.ratio_text, f"{e.sequence}, concurrency {e.concurrency}") for e in matched]
        parts.append(_span_finding("output tok/s at matched concurrency", found))
    sla = []
    for w in sweep.workloads:
        if w.sla and w.sla_concurrency_ratio is not None and w.sla_concurrency_ratio_text:
            at = w.sequence + _edges(labels, w, [r.concurrency for r in w.sla])
            sla.append((w.sla_concurrency_ratio, w.sla_concurrency_ratio_text, at))
    if sla:
        parts.append(_span_finding(f"users served within {sla_limit(sweep)}", sla))
    if not parts:
        return "No workload where both sides have a measured throughput."
    return f"{labels[0]} ÷ {labels[1]}: " + "; ".join(parts) + "."


def sweep_summary(comparison: ComparisonResult) -> str:
    """The headline of a page without the matched-interactivity analysis: the default workload's
    peak ratio, or the first workload that has one."""
    sweep = comparison.sweep
    labels = side_labels(comparison)
    if sweep is None:
        return ""
    for w in sweep.workloads:
        if w.peak_ratio_text is not None:
            return (
                f"{labels[0]}'s peak output throughput is {w.peak_ratio_text} {labels[1]}'s at {w.sequence}."
            )
    return "No workload where both sides have a measured throughput."


def narrate(
    comparison: ComparisonResult,
    sequence: SequenceResult,
    hardware_names: Sequence[str],
    architectures: Sequence[str],
) -> Narrative:
    where = where_text(comparison, hardware_names)
    if comparison.sweep is not None:  # a sweep page headlines its own analysis
        headline = sweep_findings(comparison, comparison.sweep)
    elif "matched-interactivity" in comparison.sections:
        headline = summary(comparison, sequence)
    else:
        headline = sweep_summary(comparison)
    # the headline, then the caveat and the accuracy addendum where there are
    caveat = [
        mixed_changes(comparison),
        confounders(comparison, sequence),
        short_outputs_caveat(sequence),
        accuracy_summary(comparison),
    ]
    headline = " ".join([headline, *filter(None, caveat)])
    if comparison.example_data:
        headline = f"{EXAMPLE_MARK} (invented for illustration, not measurements): {headline}"
    side_hardware = [hardware_names[min(i, len(hardware_names) - 1)] for i in range(len(comparison.sides))]
    return Narrative(
        eyebrow=eyebrow(comparison, hardware_names),
        lede=lede(comparison, hardware_names, architectures),
        summary=headline,
        paragraphs=paragraphs(comparison, sequence, where),
        caveats=caveats(comparison, sequence),
        accuracy=[
            accuracy_paragraph(comparison, t, side_hardware)
            for t in (comparison.accuracy.tasks if comparison.accuracy else [])
        ],
        accuracy_line=accuracy_line(comparison),
        accuracy_mark=accuracy_mark(comparison),
        sweep=sweep_paragraphs(comparison),
        sla_limit=sla_limit(comparison.sweep) if comparison.sweep else "",
        no_match={
            s.sequence: no_match_panel(comparison, s) for s in comparison.sequences if not s.band.overlap
        },
        pooling={s.sequence: pooling_line(comparison, s) for s in comparison.sequences},
        workloads={s.sequence: line for s in comparison.sequences if (line := workload_line(s))},
        confounded_by=tuple(dict.fromkeys(setting for _, setting, _ in confounding(comparison, sequence))),
    )
