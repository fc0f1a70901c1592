"""Paired bootstrap resampling (Koehn, 2004) between two systems on the same test set.

Each metric supplies per-sentence sufficient statistics (BLEU n-gram counts, SARI n-gram counts,
ROUGE sentence F1) and a function from a resampled set of rows to a corpus score, so one
resampling loop serves every metric. The p-value is the fraction of resamples in which system B
does not score higher than system A: small values mean B's gain is unlikely to be chance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

ScoreFn = Callable[[np.ndarray], float]


@dataclass(frozen=True)
class BootstrapResult:
    score_a: float
    score_b: float
    p_value: float
    samples: int
    seed: int

    def as_dict(self) -> dict[str, float | int]:
        return {"score_a": self.score_a, "score_b": self.score_b, "delta": self.score_b - self.score_a,
                "p_value": self.p_value, "samples": self.samples, "seed": self.seed}


def paired_bootstrap(stats_a: np.ndarray, stats_b: np.ndarray, score: ScoreFn, samples: int = 1000,
                     seed: int = 12345) -> BootstrapResult:
    """Resample sentence indices with replacement ``samples`` times; the same indices for A and B."""
    if len(stats_a) != len(stats_b):
        raise ValueError(f"systems differ in length: {len(stats_a)} vs {len(stats_b)} sentences")
    if len(stats_a) == 0:
        raise ValueError("cannot bootstrap an empty test set")
    rng = np.random.default_rng(seed)
    n = len(stats_a)
    not_better = 0
    for _ in range(samples):
        rows = rng.integers(0, n, size=n)
        if score(stats_b[rows]) <= score(stats_a[rows]):
            not_better += 1
    return BootstrapResult(score(stats_a), score(stats_b), not_better / samples, samples, seed)


def cluster_interval(correct: np.ndarray, groups: list[str], samples: int = 1000, seed: int = 12345,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval (%) of the accuracy of ``correct`` (0/1 per sentence) when whole groups are resampled.

    CopyNet Table 1's uncertainty comes more from which 40 rules of a type were drawn than from their
    instances (100 test instances of one rule succeed or fail together), so the resampling unit is the
    rule: each resample draws as many groups as there are, with replacement, and takes all their sentences.
    """
    if len(correct) != len(groups):
        raise ValueError(f"{len(correct)} sentences but {len(groups)} group labels")
    if len(correct) == 0:
        raise ValueError("cannot bootstrap an empty test set")
    names = list(dict.fromkeys(groups))
    index = {name: i for i, name in enumerate(names)}
    hits, sizes = np.zeros(len(names)), np.zeros(len(names))
    for value, group in zip(correct, groups):
        hits[index[group]] += value
        sizes[index[group]] += 1
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, len(names), size=(samples, len(names)))
    accuracy = 100.0 * hits[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    tail = 100.0 * (1.0 - level) / 2
    low, high = np.percentile(accuracy, [tail, 100.0 - tail])
    return float(low), float(high)
