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
