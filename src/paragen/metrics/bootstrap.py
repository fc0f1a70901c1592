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


def group_sums(values: np.ndarray, groups: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the sum of ``values`` and the number of sentences: ``(sums [G, ...], sizes [G])``.

    ``values`` is ``[N]`` or ``[N, K]`` (K systems scored on the same sentences), ``groups`` has N labels; the G
    groups are numbered in order of first appearance, so a seed draws the same groups whoever calls. Resampling
    groups then needs only these G-row tables (a resample is a sum over drawn rows), not the N sentences.
    """
    if len(values) != len(groups):
        raise ValueError(f"{len(values)} sentences but {len(groups)} group labels")
    if len(values) == 0:
        raise ValueError("cannot bootstrap an empty test set")
    index = {name: i for i, name in enumerate(dict.fromkeys(groups))}
    ids = np.fromiter((index[group] for group in groups), dtype=np.intp, count=len(groups))
    sums = np.zeros((len(index),) + np.shape(values)[1:])
    np.add.at(sums, ids, np.asarray(values, dtype=float))
    return sums, np.bincount(ids, minlength=len(index)).astype(float)


def draw_groups(count: int, samples: int, seed: int) -> np.ndarray:
    """``[samples, count]`` group indices: each row one resample of ``count`` groups drawn with replacement."""
    return np.random.default_rng(seed).integers(0, count, size=(samples, count))


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central ``level`` percentile interval of resampled ``values`` (0.95: 2.5th and 97.5th percentiles)."""
    tail = 100.0 * (1.0 - level) / 2
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return float(low), float(high)


def cluster_interval(correct: np.ndarray, groups: list[str], samples: int = 1000, seed: int = 12345,
                     level: float = 0.95) -> tuple[float, float]:
    """Percentile interval (%) of the accuracy of ``correct`` (0/1 per sentence) when whole groups are resampled.

    CopyNet Table 1's uncertainty comes more from which 40 rules of a type were drawn than from their
    instances (100 test instances of one rule succeed or fail together), so the resampling unit is the
    rule: each resample draws as many groups as there are, with replacement, and takes all their sentences.
    """
    hits, sizes = group_sums(correct, groups)
    drawn = draw_groups(len(sizes), samples, seed)
    return percentile_interval(100.0 * hits[drawn].sum(axis=1) / sizes[drawn].sum(axis=1), level)
