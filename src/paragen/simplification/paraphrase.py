"""Apply paraphrase rules to a sentence: the report's "paraphrase" baseline (003 §3.1, §4.3.1).

The report "performs any substitution it can find in the database" and leaves the order open. Here
the application is deterministic: left to right, at each position the longest complex side that
matches wins; where several rules share that complex side, the highest weight wins, ties going to
the output that sorts first. Substituted words are not rewritten again (no cascades).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from paragen.simplification.ppdb import Rule


@dataclass(frozen=True)
class Substitution:
    start: int
    complex: tuple[str, ...]
    simple: tuple[str, ...]


class Paraphraser:
    """A lookup from complex phrase to its best rule, applied longest match first, left to right."""

    def __init__(self, rules: Iterable[Rule]):
        best: dict[tuple[str, ...], Rule] = {}
        for rule in rules:
            current = best.get(rule.complex)
            if current is None or (-rule.weight, rule.simple) < (-current.weight, current.simple):
                best[rule.complex] = rule
        self.table = best
        self.longest = max((len(c) for c in best), default=0)

    def substitutions(self, tokens: Sequence[str]) -> list[Substitution]:
        """Where rules apply, in sentence order (non-overlapping)."""
        found, i = [], 0
        while i < len(tokens):
            for length in range(min(self.longest, len(tokens) - i), 0, -1):
                rule = self.table.get(tuple(tokens[i:i + length]))
                if rule is not None:
                    found.append(Substitution(i, rule.complex, rule.simple))
                    i += length
                    break
            else:
                i += 1
        return found

    def apply(self, tokens: Sequence[str]) -> list[str]:
        output, i = [], 0
        for sub in self.substitutions(tokens):
            output += tokens[i:sub.start]
            output += sub.simple
            i = sub.start + len(sub.complex)
        return output + list(tokens[i:])

    def sentence(self, text: str) -> str:
        return " ".join(self.apply(text.split()))
