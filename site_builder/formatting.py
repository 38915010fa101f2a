"""Rounding and formatting that readers and spreadsheets expect (half-up, not half-even)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal


def round_half_up(value: float, decimals: int = 0) -> float:
    """Round half away from zero on the shortest decimal repr, as a spreadsheet does."""
    if not math.isfinite(value):
        raise ValueError(f"cannot round non-finite value {value!r}")
    quantum = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def round_half_up_int(value: float) -> int:
    return int(round_half_up(value, 0))


QUANTA = {decimals: Decimal(1).scaleb(-decimals) for decimals in range(10)}  # made once: fixed is hot


# Decimal writes a value quantized to more than 6 places in exponent form (0E-7): those go to it
FORMATS = {decimals: f".{decimals}f" for decimals in range(7)}
GROUPED_FORMATS = {decimals: f",.{decimals}f" for decimals in range(7)}  # the same, thousands separated


def fixed(value: float, decimals: int, thousands: bool = False) -> str:
    """Half-up rounded, fixed-point text with thousands left unseparated (table style), or with
    `thousands` separated: grouped(fixed(value, decimals)), made by formatting where it can.

    Rounds the shortest repr (what a reader sees of the number). Without Decimal where that is
    plain: a repr with no more digits than asked is padded, and one whose first dropped digit is
    not 5 is what correctly rounded formatting writes (the float lies on the same side of the
    halfway point as its repr, or a shorter repr would exist). A 5 there (a tie in the repr,
    which formatting would round by the binary value, half to even), an exponent, or inf/nan
    go to Decimal."""
    text = repr(value)
    if "e" not in text and "n" not in text and decimals in FORMATS:
        whole, _, fraction = text.partition(".")
        if len(fraction) <= decimals:
            padded = whole + "." + fraction.ljust(decimals, "0") if decimals else whole
            return grouped(padded) if thousands else padded
        if fraction[decimals] != "5":
            return format(value, (GROUPED_FORMATS if thousands else FORMATS)[decimals])
    quantum = QUANTA.get(decimals) or Decimal(1).scaleb(-decimals)
    rounded = str(Decimal(text).quantize(quantum, rounding=ROUND_HALF_UP))
    return grouped(rounded) if thousands else rounded


def grouped(text: str) -> str:
    """'12345.6' -> '12,345.6': thousands separated, for hover text (tables keep plain digits)."""
    sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, fraction = digits.partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        whole, groups = whole[:-3], [whole[-3:], *groups]
    return sign + ",".join([whole, *groups]) + dot + fraction


def sequence_label(isl: int, osl: int) -> str:
    """1024/8192 -> '1k/8k'; lengths that are not whole multiples of 1024 are written out."""

    def one(n: int) -> str:
        return f"{n // 1024}k" if n % 1024 == 0 else str(n)

    return f"{one(isl)}/{one(osl)}"


def parse_sequence_label(label: str) -> tuple[int, int]:
    """'1k/8k' -> (1024, 8192); also accepts '1024/8192' and '8k1k'."""
    text = label.strip().lower().replace(" ", "")
    if "/" in text:
        parts = text.split("/")
    else:
        k = text.find("k")
        parts = [text[: k + 1], text[k + 1 :]] if k > 0 else [text]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"'{label}' is not a sequence like 1k/1k, 1k/8k or 8k/1k")

    def one(part: str) -> int:
        if part.endswith("k"):
            return int(part[:-1]) * 1024
        return int(part)

    try:
        isl, osl = one(parts[0]), one(parts[1])
    except ValueError as exc:
        raise ValueError(f"'{label}' is not a sequence like 1k/1k, 1k/8k or 8k/1k") from exc
    if isl <= 0 or osl <= 0:
        raise ValueError(f"'{label}' must have positive lengths")
    return isl, osl
