"""Degenerate outputs: empty lines, and lines of one token repeated ("UNK UNK UNK"), counted so that a table never
shows such a run's scores as if it had written sentences. A metric scores an empty output 0.0 without a word; a
share of them above :data:`DEGENERATE_SHARE` is marked in the table and in the run's training outcome."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

DEGENERATE_SHARE = 0.05
"""Above this share of a split's lines (5 %), empty or one-token-repeated outputs are marked: a trained model rarely
writes an empty line for a non-empty reference, so more than one in twenty says the run has not learned to write."""


@dataclass(frozen=True)
class Degenerate:
    empty: int  # lines with no token
    repeated: int  # lines of two or more tokens, all the same token
    lines: int

    @property
    def marked(self) -> bool:
        return self.lines > 0 and (self.empty + self.repeated) / self.lines > DEGENERATE_SHARE

    def describe(self, what: str = "outputs") -> str:
        """``"30 of 30 outputs empty"``, ``"12 of 100 outputs one token repeated"``, or both joined by "and"."""
        parts = [f"{n} of {self.lines} {what} {kind}" for n, kind in ((self.empty, "empty"),
                                                                      (self.repeated, "one token repeated")) if n]
        return " and ".join(parts)

    def as_dict(self) -> dict[str, int]:
        return {"empty": self.empty, "one_token_repeated": self.repeated, "lines": self.lines}


def count_degenerate(lines: Iterable[str | list[str]]) -> Degenerate:
    """Count empty and one-token-repeated lines (a line: a string of space-separated tokens, or a token list)."""
    empty = repeated = total = 0
    for line in lines:
        tokens = line.split() if isinstance(line, str) else line
        total += 1
        if not tokens:
            empty += 1
        elif len(tokens) > 1 and len(set(tokens)) == 1:
            repeated += 1
    return Degenerate(empty, repeated, total)
