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


def fixed(value: float, decimals: int) -> str:
    """Half-up rounded, fixed-point text with thousands left unseparated (table style)."""
    quantum = QUANTA.get(decimals) or Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


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
