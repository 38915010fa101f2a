"""'Did you mean …?': the one rule every message uses to suggest what a mistyped name meant
(a command, a flag, a field, a filter value). Kept free of heavy imports: `--version` and the
command-line parser use it before anything else is loaded."""

from __future__ import annotations

from collections.abc import Iterable


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known name fewest typing slips away from a mistyped one (a letter left out, added,
    changed, or two neighbours swapped), where that is at most a third of the word (at least
    one slip); ties go to the first listed. None where nothing is that close."""
    slips = {name: slips_between(word, name) for name in known}
    best = min(slips, key=lambda name: slips[name], default=None)
    if best is None or slips[best] > max(1, len(word.lstrip("-")) // 3):
        return None
    return best


def slips_between(typed: str, meant: str) -> int:
    """Letters left out, added or changed, or neighbours swapped, from `meant` to `typed`
    (the optimal string alignment distance)."""
    previous2: list[int] = []
    previous = list(range(len(meant) + 1))
    for i, letter in enumerate(typed, 1):
        current = [i]
        for j, other in enumerate(meant, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (letter != other))
            if i > 1 and j > 1 and letter == meant[j - 2] and typed[i - 2] == other:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]
