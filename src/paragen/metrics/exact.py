"""Exact-match and top-k accuracy (CopyNet Tables 1 and 4).

A prediction counts only when the generated token sequence equals the
reference exactly (Gu et al., 2016, §5.1); top-k counts a sentence when any
of the k best beam hypotheses does.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

Tokens = Sequence[str]

TOP_K = (1, 5, 10)
"""The top-k accuracies a rule-data score reports by default (CopyNet reports top-1 on rule data, §5.1, and top-10
on STC, Table 4), as far as the n-best lists reach: a top-10 read from one kept hypothesis would be top-1 renamed."""


def exact_match(hypotheses: Sequence[Tokens], references: Sequence[Tokens]) -> float:
    """Percentage of hypotheses identical to their reference."""
    return top_k_accuracy([[h] for h in hypotheses], references, 1)


def top_k_accuracy(nbest: Sequence[Sequence[Tokens]], references: Sequence[Tokens], k: int) -> float:
    """Percentage of sentences whose reference is among their first ``k`` hypotheses."""
    if len(nbest) != len(references):
        raise ValueError(f"{len(nbest)} hypothesis lists but {len(references)} references")
    if not references:
        return 0.0
    hits = sum(any(list(h) == list(ref) for h in hyps[:k]) for hyps, ref in zip(nbest, references))
    return 100.0 * hits / len(references)


def accuracy_by_tag(nbest: Sequence[Sequence[Tokens]], references: Sequence[Tokens], tags: Sequence[str],
                    ks: Sequence[int] = (1,)) -> dict[str, dict[str, float | int]]:
    """Top-k accuracies per tag (e.g. rule type) and over everything (key ``"all"``)."""
    if len(tags) != len(references):
        raise ValueError(f"{len(tags)} tags but {len(references)} references")
    groups: dict[str, list[int]] = defaultdict(list)
    for i, tag in enumerate(tags):
        groups[tag].append(i)
    groups["all"] = list(range(len(references)))
    result: dict[str, dict[str, float | int]] = {}
    for tag, ids in groups.items():
        row: dict[str, float | int] = {"count": len(ids)}
        for k in ks:
            row[f"top{k}"] = top_k_accuracy([nbest[i] for i in ids], [references[i] for i in ids], k)
        result[tag] = row
    return result
