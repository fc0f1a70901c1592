"""004 Table 4 (Appendix E): which source word SPM's q_j aligns each target token to, grouped automatically.

For each target token y_j of sampled test pairs (teacher forcing), the pair is (y_j, argmax of q_j over the
vocabulary). 004 groups its examples by hand; here every pair falls into the first group whose rule it meets:

- **identical**: the same token (the pairs 004's table leaves out);
- **inflection**: different tokens with the same Porter stem (004: "verb inflection", calls/called; a stem misses
  irregular forms such as win/won, which fall into the later groups);
- **shorter**: the target token has fewer characters than the aligned word (004: "paraphrasing to shorter form",
  quake/earthquake, eu/european);
- **others**: the rest (004: tourists/people, dead/killed).

Within a group, pairs are ranked by how often they occur, most frequent first (ties in alphabetical order).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Callable, Sequence

GROUPS: tuple[str, ...] = ("identical", "inflection", "shorter", "others")


def porter_stem() -> Callable[[str], str]:
    from nltk.stem.porter import PorterStemmer  # nltk comes with rouge-score

    return PorterStemmer().stem


def group_of(target: str, aligned: str, stem: Callable[[str], str]) -> str:
    if target == aligned:
        return "identical"
    if stem(target) == stem(aligned):
        return "inflection"
    if len(target) < len(aligned):
        return "shorter"
    return "others"


def sample_indices(count: int, sample: int, seed: int) -> list[int]:
    """``sample`` of ``count`` pair indices drawn with ``seed`` (all of them when ``sample >= count``), in order."""
    if sample >= count:
        return list(range(count))
    return sorted(random.Random(seed).sample(range(count), sample))


def grouped_pairs(targets: Sequence[Sequence[str]], aligned: Sequence[Sequence[str]],
                  stem: Callable[[str], str] | None = None) -> dict[str, list[list]]:
    """Group -> ``[target, aligned word, count]`` rows, most frequent first; ``aligned[n][j]`` is q_j's word for
    target token j of pair n."""
    if len(targets) != len(aligned):
        raise ValueError(f"{len(targets)} targets but {len(aligned)} aligned sentences")
    stem = stem or porter_stem()
    counts: Counter[tuple[str, str]] = Counter()
    for n, (target, words) in enumerate(zip(targets, aligned)):
        if len(target) != len(words):
            raise ValueError(f"pair {n + 1}: {len(target)} target tokens but {len(words)} aligned words")
        counts.update(zip(target, words))
    groups: dict[str, list[list]] = {group: [] for group in GROUPS}
    for (target, word), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        groups[group_of(target, word, stem)].append([target, word, count])
    return groups
