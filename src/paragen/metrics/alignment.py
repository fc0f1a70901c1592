"""Alignment accuracy against gold links (the headline stand-in, paragen.data.headline_synthetic).

What 004 could show only by example (Figure 4, Table 4) is measurable on the stand-in, whose every target
token has one gold source position. Two aligners are scored per target token under teacher forcing:

- **attention**: the source *position* with the highest attention weight; correct when it is the gold one;
- **source-side prediction (SPM)**: the *word* with the highest q_j over the vocabulary (q_j predicts a bag of
  source words, not positions); correct when it is the gold source word.

Both are reported as the percentage of target tokens with a gold link whose prediction is correct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

Links = Sequence[tuple[int, int]]  # (source position, target position)


@dataclass(frozen=True)
class AlignmentScore:
    correct: int
    total: int

    @property
    def accuracy(self) -> float:
        return 100.0 * self.correct / self.total if self.total else 0.0


def _gold(links: Links, target_length: int, where: str) -> dict[int, int]:
    gold: dict[int, int] = {}
    for source_position, target_position in links:
        if not 0 <= target_position < target_length:
            raise ValueError(f"{where}: link {source_position}-{target_position} points past the target "
                             f"({target_length} tokens)")
        if target_position in gold:
            raise ValueError(f"{where}: target position {target_position} has two gold links")
        gold[target_position] = source_position
    return gold


def position_accuracy(predicted: Sequence[Sequence[int]], links: Sequence[Links]) -> AlignmentScore:
    """Attention: ``predicted[n][j]`` is the source position chosen for target token j of pair n."""
    if len(predicted) != len(links):
        raise ValueError(f"{len(predicted)} predicted alignments but {len(links)} gold ones")
    correct = total = 0
    for n, (positions, pair_links) in enumerate(zip(predicted, links)):
        gold = _gold(pair_links, len(positions), f"pair {n + 1}")
        total += len(gold)
        correct += sum(positions[j] == i for j, i in gold.items())
    return AlignmentScore(correct, total)


def word_accuracy(predicted: Sequence[Sequence[str]], sources: Sequence[Sequence[str]],
                  links: Sequence[Links]) -> AlignmentScore:
    """SPM: ``predicted[n][j]`` is the source-vocabulary word chosen for target token j of pair n; the gold
    answer is the source word at the gold position."""
    if not len(predicted) == len(sources) == len(links):
        raise ValueError(f"{len(predicted)} predictions, {len(sources)} sources and {len(links)} alignments")
    correct = total = 0
    for n, (words, source, pair_links) in enumerate(zip(predicted, sources, links)):
        gold = _gold(pair_links, len(words), f"pair {n + 1}")
        for j, i in gold.items():
            if not 0 <= i < len(source):
                raise ValueError(f"pair {n + 1}: link {i}-{j} points past the source ({len(source)} tokens)")
        total += len(gold)
        correct += sum(words[j] == source[i] for j, i in gold.items())
    return AlignmentScore(correct, total)
