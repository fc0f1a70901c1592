"""Odd-generation counts of SPM §6.1 (Kiyono et al.): repeated tokens and missing length.

- repeats: for every token that occurs more than once in the output, its count in the output
  minus its count in the reference (never below 0), summed over tokens;
- shortfall: how many tokens the output is shorter than the gold headline (0 when not shorter).

Figure 2 of the paper counts the sentences where each is non-zero.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence


def repeats(output: Sequence[str], reference: Sequence[str]) -> int:
    out, ref = Counter(output), Counter(reference)
    return sum(max(0, count - ref[token]) for token, count in out.items() if count > 1)


def shortfall(output: Sequence[str], reference: Sequence[str]) -> int:
    return max(0, len(reference) - len(output))


def is_odd(output: Sequence[str], reference: Sequence[str]) -> bool:
    """Either kind of odd generation: a token repeated beyond the gold, or shorter than the gold."""
    return repeats(output, reference) > 0 or shortfall(output, reference) > 0


@dataclass(frozen=True)
class OddGeneration:
    sentences: int
    sentences_with_repeats: int
    sentences_short: int
    repeated_tokens: int
    missing_tokens: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def odd_generation(outputs: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> OddGeneration:
    if len(outputs) != len(references):
        raise ValueError(f"{len(outputs)} outputs but {len(references)} references")
    rep = [repeats(o, r) for o, r in zip(outputs, references)]
    short = [shortfall(o, r) for o, r in zip(outputs, references)]
    return OddGeneration(len(outputs), sum(x > 0 for x in rep), sum(x > 0 for x in short), sum(rep), sum(short))
