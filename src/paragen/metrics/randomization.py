"""Exact paired randomization (sign-flip) test over rules, for two systems' exact match on rule data (issue 67).

A rule's test instances succeed or fail together, so the rule is the unit of a comparison (issue 40), and a copying
type at the default scale has only a handful of rules. A bootstrap over 4 rules returns p = 0 whenever one system
wins all 4, while no test over 4 independent units can honestly say more than 1 in 2^4 = 16. This test uses the
per-rule differences d_r = hits of B − hits of A (B: the row tested, A: its baseline). Under the null hypothesis
that the two systems are exchangeable within each rule, each d_r is as likely to have come out with the opposite
sign, so the 2^n sign assignments of the n differences are equally likely; the p-value is the share of them whose
sum is at least the observed sum (one-sided: B better than A; ``p_value_lower``: at most, B worse). The sum of hit
differences is N times the difference of the two accuracies over all N lines, so the test's statistic is the
difference the table shows. With n ≤ ``EXHAUSTIVE_MAX_RULES`` every assignment is enumerated (the p-value is exact);
beyond that ``MONTE_CARLO_DRAWS`` random assignments are drawn from a recorded seed and p = (1 + hits) / (1 + draws)
(Phipson & Smyth, 2010: never 0, valid at any draw count). The smallest p a test can give, its floor, is
2^−n enumerated and max(2^−n, 1 / (1 + draws)) drawn; tables print it beside the p. Tied rules (d_r = 0) read
the same under either sign, so with t of them no p can fall below 2^−(n − t): tables print that too
(:func:`paragen.report.rule_tests.floor_with_ties`). Whether to enumerate is decided by the untied rules, so a test
with many ties is exact, and a drawn p never sits beside a ties floor it could undercut.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

EXHAUSTIVE_MAX_RULES = 16
"""Up to this many untied rules every sign assignment is enumerated (at most 2^16 = 65,536 distinct sums); beyond,
a seeded draw."""

MONTE_CARLO_DRAWS = 100_000
MONTE_CARLO_SEED = 12345

INTERVAL_MIN_RULES = 20
"""The fewest rules at which a table shows a rule-resampling 95 % interval. The percentile interval of a mean of G
per-rule values covers the truth in fewer than 95 % of draws when G is small: ``python
bench/cluster_interval_coverage.py`` measured 79.8 % (normal) and 73.6 % (skewed) at 4 rules, 88.7 % and 84.5 % at 8,
89.0 % (skewed) at 16, and at least 90 % for both from 20 rules (docs/scoring.md). Below this the table lists the
per-rule differences instead."""

_CHUNK = 10_000  # Monte Carlo assignments drawn at once ([chunk, n] signs)


@dataclass(frozen=True)
class SignFlipResult:
    statistic: int  # sum of the per-rule differences (B's hits − A's hits)
    p_value: float  # share of assignments with a sum >= the observed: B better than A
    p_value_lower: float  # share with a sum <= the observed: B worse than A
    p_floor: float  # the smallest p this rule count and method can give
    rules: int
    method: str  # "exhaustive" or "monte carlo"
    assignments: int  # 2^n enumerated, or the draws
    seed: int | None  # Monte Carlo only

    def as_dict(self) -> dict[str, Any]:
        test: dict[str, Any] = {"method": self.method, "assignments": self.assignments}
        if self.seed is not None:
            test["seed"] = self.seed
        return {"p_value": self.p_value, "p_value_lower": self.p_value_lower, "p_floor": self.p_floor,
                "sign_flip": test}


def _sums_exhaustive(differences: np.ndarray) -> np.ndarray:
    """The sum of ``differences`` ([n] integers) under each of the 2^n sign assignments: ``[2^n]``; assignment k
    flips difference i where bit i of k is set (k = 0: the observed signs)."""
    n = len(differences)
    bits = (np.arange(2 ** n, dtype=np.int64)[:, None] >> np.arange(n, dtype=np.int64)) & 1
    return (1 - 2 * bits) @ differences


def sign_flip_test(differences: Sequence[int] | np.ndarray, exhaustive_max: int = EXHAUSTIVE_MAX_RULES,
                   draws: int = MONTE_CARLO_DRAWS, seed: int = MONTE_CARLO_SEED) -> SignFlipResult:
    """Paired sign-flip test of the per-rule hit differences ``differences`` ([n] integers, B − A).

    Integers keep every comparison of sums exact (no float ties). With at most ``exhaustive_max`` untied rules
    (d_r ≠ 0) all 2^n assignments are counted (through the untied rules' 2^(n − t): the ties only repeat each
    sum 2^t times); otherwise ``draws`` assignments of all n signs, each ±1 with probability 1/2, from ``seed``.
    A drawn test thus has more than ``exhaustive_max`` untied rules, where the floor 2^−(n − t) the ties leave is
    below the draws' own 1 / (1 + draws)."""
    d = np.asarray(differences)
    if d.ndim != 1 or len(d) == 0:
        raise ValueError(f"the sign-flip test needs one difference per rule, got shape {d.shape}")
    if not np.issubdtype(d.dtype, np.integer):
        if not np.all(d == np.round(d)):
            raise ValueError("the sign-flip test takes per-rule hit differences (whole numbers)")
    d = d.astype(np.int64)
    n, observed = len(d), int(d.sum())
    untied = d[d != 0]
    if len(untied) <= exhaustive_max:
        # a tie reads the same under either sign, so every count over the 2^n assignments is 2^t times the count
        # over the untied rules' 2^(n - t): the shares, hence p, are those of the untied rules alone
        sums = _sums_exhaustive(untied)  # no untied rule: the one empty assignment, sum 0
        return SignFlipResult(observed, float(np.mean(sums >= observed)), float(np.mean(sums <= observed)),
                              2.0 ** -n, n, "exhaustive", 2 ** n, None)
    rng = np.random.default_rng(seed)
    upper = lower = 0
    for start in range(0, draws, _CHUNK):
        signs = 1 - 2 * rng.integers(0, 2, size=(min(_CHUNK, draws - start), n), dtype=np.int64)
        sums = signs @ d
        upper += int(np.sum(sums >= observed))
        lower += int(np.sum(sums <= observed))
    return SignFlipResult(observed, (1 + upper) / (1 + draws), (1 + lower) / (1 + draws),
                          max(2.0 ** -n, 1 / (1 + draws)), n, "monte carlo", draws, seed)


def rule_sign_flip(hits: np.ndarray, sizes: np.ndarray, **options: Any) -> dict[str, Any]:
    """The sign-flip test of B against A from per-rule hits (``[G, 2]``: A's then B's) and sizes (``[G]`` lines),
    with the per-rule differences in accuracy points (B − A, rules in the order given) and how many rules favour
    each system: what a table prints below ``INTERVAL_MIN_RULES`` rules."""
    gain = np.rint(hits[:, 1] - hits[:, 0]).astype(np.int64)  # hits are sums of 0/1
    result = sign_flip_test(gain, **options)
    return {**result.as_dict(), "rule_differences": [float(x) for x in 100.0 * gain / sizes],
            "favour_b": int(np.sum(gain > 0)), "favour_a": int(np.sum(gain < 0)), "ties": int(np.sum(gain == 0))}
